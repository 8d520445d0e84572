"""``paddle.utils``: the helpers scripts use from it (gradrepl's own code, Paddle's behaviour).

``try_import``, ``deprecated``, ``run_check``, ``require_version``, ``unique_name`` (``generate``,
``guard``, ``switch``), ``download`` (gradrepl has no network: it raises a clear error),
``flatten`` / ``pack_sequence_as`` / ``map_structure`` / ``is_sequence`` over nested lists,
tuples and dicts, and ``dlpack`` (``to_dlpack`` / ``from_dlpack`` through numpy). Texts
measured on Paddle 3.3.1 and 2.6.2.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import sys
import warnings

from . import dlpack, download, unique_name  # noqa: F401

__all__ = ["deprecated", "run_check", "require_version", "try_import"]


def try_import(module_name, err_msg=None):
    """Import ``module_name`` and return it; ImportError naming the pip package if missing."""
    install_name = {"cv2": "opencv-python"}.get(module_name, module_name)
    try:
        return importlib.import_module(module_name)
    except ImportError:
        if err_msg is None:
            err_msg = (f"Failed importing {module_name}. This likely means that some paddle "
                       "modules require additional dependencies that have to be manually "
                       f"installed (usually with `pip install {install_name}`). ")
        raise ImportError(err_msg) from None


class VisibleDeprecationWarning(UserWarning):
    """A deprecation warning python shows outside ``__main__`` too."""


VisibleDeprecationWarning.__module__ = "paddle.utils.deprecated"


def _version_parts(text):
    parts = [int(p) for p in str(text).split(".") if p.isdigit()]
    return parts + [0] * (4 - len(parts))


def deprecated(update_to="", since="", reason="", level=0):
    """Decorator marking an API deprecated: its docstring gets a ``Warning:`` notice; with
    ``level`` 1 each call warns (VisibleDeprecationWarning) once the running version is at least
    ``since``, with 2 each call raises RuntimeError; 0 (the default) only edits the docstring."""

    def decorator(func):
        assert isinstance(update_to, str), 'type of "update_to" must be str.'
        assert isinstance(since, str), 'type of "since" must be str.'
        assert isinstance(reason, str), 'type of "reason" must be str.'
        assert isinstance(level, int) and 0 <= level < 3, (
            'type of "level" must be int and must be one of 0, 1, 2. But '
            f'received: {level}.')
        msg = f'API "{func.__module__}.{func.__name__}" is deprecated'
        if since.strip():
            msg += f" since {since.strip()}"
        msg += ", and will be removed in future versions."
        if update_to.strip():
            assert update_to.strip().startswith("paddle."), (
                f'Argument update_to must start with "paddle.", your value is "{update_to}"')
            msg += f' Please use "{update_to.strip()}" instead.'
        if reason.strip():
            msg += f"\n    Reason: {reason.strip()}"
        if func.__doc__:
            func.__doc__ = "\n\nWarning:\n    " + msg + "\n\n" + inspect.cleandoc(func.__doc__)
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(
                    f'API "{func.__module__}.{func.__name__}" has been deprecated.')
            from .. import profiles

            current = profiles.current().version
            if getattr(func, "_paddle_api", False) and not profiles.current().deprecation_warnings:
                pass  # one of Paddle's own APIs under a version that does not warn (2.6.2)
            elif not since.strip() or _version_parts(current) >= _version_parts(since):
                warnings.warn(f"\033[93m\nWarning:\n{msg} \033[0m",
                              category=VisibleDeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapper

    return decorator


def deprecated_api(module, **kw):
    """``deprecated(**kw)`` for one of Paddle's own APIs that real Paddle decorates: the message
    names Paddle's module (``paddle.nn.functional.loss.softmax_with_cross_entropy``), and it warns
    only under the profiles whose Paddle does (``deprecation_warnings``)."""

    def decorator(func):
        func.__module__ = module
        func._paddle_api = True
        return deprecated(**kw)(func)

    return decorator


def run_check():
    """Paddle's install check: gradrepl runs on the CPU, so it reports one CPU."""
    print("Running verify PaddlePaddle program ... ")
    print("PaddlePaddle works well on 1 CPU.")
    print("PaddlePaddle is installed successfully! Let's start deep learning with PaddlePaddle "
          "now.")


def require_version(min_version, max_version=None):
    """Raise ``Exception('VersionError: ...')`` unless the emulated version is in range."""
    from .. import profiles

    for v, what in ((min_version, "min_version"), (max_version, "max_version")):
        if v is not None and not isinstance(v, str):
            raise TypeError(f"The type of '{what}' in require_version must be str, but "
                            f"received {type(v)}.")
    current = profiles.current().version
    have = _version_parts(current)
    if max_version is None:
        if have < _version_parts(min_version):
            raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is "
                            f"required, but {current} installed, Maybe you should update "
                            "PaddlePaddle.")
        return None
    if not _version_parts(min_version) <= have <= _version_parts(max_version):
        raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, {max_version}] "
                        f"required, but {current} installed.")
    return None


# ------------------------------------------------------------------ nested structures
def is_sequence(seq):
    """Lists, tuples and dicts are nested structures (strings are not)."""
    return isinstance(seq, (list, tuple, dict)) and not isinstance(seq, str)


def _items(nest):
    if isinstance(nest, dict):
        return [nest[k] for k in sorted(nest)]
    return list(nest)


def flatten(nest):
    """The leaves of a nested list / tuple / dict (dicts by sorted key), in order."""
    if not is_sequence(nest):
        return [nest]
    out = []
    for item in _items(nest):
        out.extend(flatten(item))
    return out


def _pack(structure, flat, i):
    if not is_sequence(structure):
        return flat[i], i + 1
    packed = []
    for item in _items(structure):
        v, i = _pack(item, flat, i)
        packed.append(v)
    if isinstance(structure, dict):
        return dict(zip(sorted(structure), packed)), i
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*packed), i
    return type(structure)(packed), i


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence`` put back in ``structure``'s nesting."""
    if not is_sequence(flat_sequence):
        raise TypeError("flat_sequence must be a sequence")
    if not is_sequence(structure):
        if len(flat_sequence) != 1:
            raise ValueError("Structure is a scalar but len(flat_sequence) == "
                             f"{len(flat_sequence)} > 1")
        return flat_sequence[0]
    n = len(flatten(structure))
    if n != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {n} elements, but "
                         f"flat_sequence had {len(flat_sequence)} elements.  Structure: "
                         f"{structure}, flat_sequence: {flat_sequence}.")
    return _pack(structure, list(flat_sequence), 0)[0]


def map_structure(func, *structure):
    """``func`` applied leaf by leaf to one or more structures of the same nesting."""
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)])


def assert_same_structure(nest1, nest2, check_types=True):
    """ValueError / TypeError unless the two nestings match."""
    n1, n2 = len(flatten(nest1)), len(flatten(nest2))
    if n1 != n2:
        raise ValueError("The two structures don't have the same number of elements.\n\n"
                         f"First structure ({n1} elements): {nest1}\n\n"
                         f"Second structure ({n2} elements): {nest2}")
    if is_sequence(nest1) and is_sequence(nest2):
        if check_types and type(nest1) is not type(nest2):
            raise TypeError("The two structures don't have the same sequence type. First "
                            f"structure has type {type(nest1)}, while second structure has "
                            f"type {type(nest2)}.")
        for a, b in zip(_items(nest1), _items(nest2)):
            assert_same_structure(a, b, check_types)


def strtobool(val):
    """'y', 'yes', 't', 'true', 'on', '1' -> True; their opposites -> False."""
    v = str(val).lower()
    if v in ("y", "yes", "t", "true", "on", "1"):
        return True
    if v in ("n", "no", "f", "false", "off", "0"):
        return False
    raise ValueError(f"invalid truth value {val!r}")

from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
