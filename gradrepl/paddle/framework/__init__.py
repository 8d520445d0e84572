"""``paddle.framework``: saving and loading (``paddle.save`` / ``paddle.load``), and the
framework names Paddle also keeps here (the same objects as at ``paddle.``)."""
from .io import load, save

__all__ = ["save", "load"]

_FROM_PADDLE = ("ParamAttr", "in_dynamic_mode", "seed", "get_default_dtype", "set_default_dtype",
                "CPUPlace", "CUDAPlace", "no_grad", "grad", "disable_static",
                "enable_static")


def __getattr__(name):
    if name in _FROM_PADDLE:
        import gradrepl.paddle as paddle

        return getattr(paddle, name)
    raise AttributeError(f"module 'paddle.framework' has no attribute {name!r}")
