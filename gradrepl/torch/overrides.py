"""``torch.overrides``: the ``__torch_function__`` protocol's helpers (``is_tensor_like``,
``has_torch_function``, ``handle_torch_function`` ...), as torch's Python side defines them:
an argument overrides a torch function when its type defines ``__torch_function__`` other than
the plain Tensor's.
"""
from __future__ import annotations

import contextlib
import functools

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
           "handle_torch_function", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property",
           "resolve_name", "wrap_torch_function", "TorchFunctionMode", "BaseTorchFunctionMode",
           "enable_reentrant_dispatch"]


def _tensor_type():
    from ._tensor import Tensor

    return Tensor


def _plain(t):
    """Whether type ``t`` uses the plain Tensor's protocol (no override of its own)."""
    T = _tensor_type()
    tf = getattr(t, "__torch_function__", None)
    if tf is None:
        return True
    base = getattr(T, "__torch_function__", None)
    func = getattr(tf, "__func__", tf)
    return base is not None and func is getattr(base, "__func__", base)


def is_tensor_like(inp):
    """True for a Tensor (or subclass) and for anything whose type has ``__torch_function__``."""
    return type(inp) is _tensor_type() or hasattr(inp, "__torch_function__") or \
        isinstance(inp, _tensor_type())


def _overridable(args):
    out_types, out_args = [], []
    for arg in args:
        t = type(arg)
        if t in out_types or _plain(t):
            continue
        if not hasattr(t, "__torch_function__"):
            continue
        # subclasses before their parents, else in order
        index = len(out_args)
        for i, old in enumerate(out_args):
            if issubclass(t, type(old)):
                index = i
                break
        out_types.append(t)
        out_args.insert(index, arg)
    return out_args


def has_torch_function(relevant_args):
    return bool(_overridable(relevant_args))


def has_torch_function_unary(arg):
    return bool(_overridable((arg,)))


def has_torch_function_variadic(*args):
    return bool(_overridable(args))


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    overloaded = _overridable(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        tf = type(arg).__torch_function__
        result = tf(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(public_api, "__module__", "") + "." + getattr(public_api, "__name__",
                                                                  repr(public_api))
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {[type(a) for a in overloaded]}")


def wrap_torch_function(dispatcher):
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner


def is_tensor_method_or_property(func):
    T = _tensor_type()
    return getattr(T, getattr(func, "__name__", ""), None) is func


def resolve_name(f):
    mod = getattr(f, "__module__", None)
    name = getattr(f, "__qualname__", getattr(f, "__name__", None))
    if mod is None or name is None:
        return None
    return f"{mod}.{name}"


def get_ignored_functions():
    return set()


def get_overridable_functions():
    return {}


def get_testing_overrides():
    return {}


class TorchFunctionMode:
    inner = None

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return None


class BaseTorchFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def enable_reentrant_dispatch():
    yield
