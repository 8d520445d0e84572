"""``paddle.vision.set_image_backend`` / ``get_image_backend`` / ``image_load``: which library
(Pillow or OpenCV) loads the images of the folder datasets."""
from __future__ import annotations

__all__ = ["set_image_backend", "get_image_backend", "image_load"]

_BACKENDS = ("pil", "cv2", "tensor")
_image_backend = "pil"


def _check(backend):
    if backend not in _BACKENDS:
        raise ValueError(f"Expected backend are one of ['pil', 'cv2', 'tensor'], but got "
                         f"{backend}")


def set_image_backend(backend):
    """Load images with 'pil' (the default), 'cv2' or 'tensor'."""
    global _image_backend
    _check(backend)
    _image_backend = backend


def get_image_backend():
    """The backend set by ``set_image_backend`` ('pil' unless changed)."""
    return _image_backend


def image_load(path, backend=None):
    """The image at ``path``: a PIL image ('pil') or a BGR numpy array ('cv2')."""
    backend = _image_backend if backend is None else backend
    _check(backend)
    if backend == "pil":
        from .transforms.functional_pil import pil

        return pil()[0].open(path)
    if backend == "cv2":
        from .transforms.functional_cv2 import try_import

        return try_import("cv2").imread(path)
    return None
