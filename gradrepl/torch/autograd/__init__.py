"""``torch.autograd``: ``backward``, ``grad``, ``Function``, the legacy ``Variable``, grad modes,
``functional.jacobian``/``hessian``."""
from __future__ import annotations

import contextlib
import warnings

import numpy as np

from .._grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .._base import EngineTensor, raw
from .._tensor import Tensor
from . import forward_ad, functional, graph, profiler  # noqa: F401
from ._engine import backward, grad
from .function import Function, FunctionCtx, InplaceFunction, NestedIOFunction, \
    once_differentiable
from ..overrides import handle_torch_function, has_torch_function, is_tensor_like  # noqa: F401

__all__ = ["Variable", "Function", "backward", "grad", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "inference_mode", "set_detect_anomaly",
           "detect_anomaly", "gradcheck", "gradgradcheck", "functional", "graph"]


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, EngineTensor)


class Variable(metaclass=VariableMeta):
    """The pre-0.4 wrapper: ``Variable(t, requires_grad=True)`` is a tensor sharing t's values
    (as ``t.detach()``) with ``requires_grad`` set; every tensor is a Variable."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:  # torch's legacy constructor warns at the caller's line, then checks
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if data is None:
            arr = np.zeros((0,), np.float32)
        elif isinstance(data, EngineTensor):
            arr = raw(data)
        else:
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = Tensor._wrap(arr, True)
        if requires_grad:
            t.requires_grad_(True)
        return t


class inference_mode(no_grad):
    __module__ = "torch.autograd.grad_mode"

    def __init__(self, mode=True):
        super().__init__()
        self.mode = not mode


class _Anomaly:
    enabled = False


def set_detect_anomaly(mode, check_nan=True):
    _Anomaly.enabled = bool(mode)
    return contextlib.nullcontext()


def is_anomaly_enabled():
    return _Anomaly.enabled


@contextlib.contextmanager
def detect_anomaly(check_nan=True):
    prev = _Anomaly.enabled
    _Anomaly.enabled = True
    try:
        yield
    finally:
        _Anomaly.enabled = prev


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              check_forward_ad=False, check_backward_ad=True, **_kw):
    """Finite differences against the analytic Jacobians (float64 inputs), as torch's:
    reverse mode (rows by ``grad``) unless ``check_backward_ad=False``, forward mode (columns
    by dual tensors) with ``check_forward_ad=True``."""
    inputs = (inputs,) if isinstance(inputs, EngineTensor) else tuple(inputs)
    outs = _as_tuple(func(*inputs))
    for oi, o in enumerate(outs):
        for i, x in enumerate(inputs):
            if not isinstance(x, EngineTensor) or x.stop_gradient:
                continue
            numeric = _numeric_jacobian(func, inputs, x, oi, eps)
            checks = []
            if check_backward_ad:
                checks.append(("", _reverse_jacobian(func, inputs, x, oi, raw(o))))
            if check_forward_ad:
                checks.append(("computed with forward mode ",
                               _forward_jacobian(func, inputs, i, oi, raw(o))))
            for mode, analytic in checks:
                if not np.allclose(analytic, numeric, rtol=rtol, atol=atol):
                    if raise_exception:
                        raise GradcheckError(
                            f"Jacobian {mode}mismatch for output {oi} with respect to input "
                            f"{i},\nnumerical:{_ops_repr(numeric)}\nanalytical:"
                            f"{_ops_repr(analytic)}\n")
                    return False
    return True


class GradcheckError(RuntimeError):
    """``torch.autograd.gradcheck.GradcheckError``: what gradcheck raises on a mismatch."""


GradcheckError.__module__ = "torch.autograd.gradcheck"


def _as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


def _numeric_jacobian(func, inputs, x, oi, eps):
    a = raw(x)
    flat = a.reshape(-1)
    cols = []
    for j in range(a.size):
        old = flat[j]
        # with grad mode on, as torch's: gradgradcheck's function takes a gradient inside
        flat[j] = old + eps
        plus = raw(_first(func(*inputs), oi)).reshape(-1).astype(np.float64)
        flat[j] = old - eps
        minus = raw(_first(func(*inputs), oi)).reshape(-1).astype(np.float64)
        flat[j] = old
        cols.append((plus - minus) / (2 * eps))
    return np.array(cols)  # (input size, output size)


def _reverse_jacobian(func, inputs, x, oi, o):
    jac = np.zeros((raw(x).size, o.size))
    for k in range(o.size):
        seed = np.zeros(o.size, o.dtype)
        seed[k] = 1
        g = grad(_first(func(*inputs), oi), x, Tensor._wrap(seed.reshape(o.shape)),
                 allow_unused=True)[0]
        if g is not None:
            jac[:, k] = raw(g).reshape(-1)
    return jac


def _forward_jacobian(func, inputs, i, oi, o):
    x = raw(inputs[i])
    jac = np.zeros((x.size, o.size))
    for j in range(x.size):
        t = np.zeros(x.size, x.dtype)
        t[j] = 1
        with forward_ad.dual_level():
            args = list(inputs)
            args[i] = forward_ad.make_dual(inputs[i], Tensor._wrap(t.reshape(x.shape)))
            tangent = forward_ad.unpack_dual(_first(func(*args), oi)).tangent
        if tangent is not None:
            jac[j] = raw(tangent).reshape(-1)
    return jac


def _first(out, k):
    return out[k] if isinstance(out, tuple) else out


def _ops_repr(a):
    return repr(Tensor._wrap(a))


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, **_kw):
    """torch's: ``gradcheck`` of the function's gradients (``grad(..., create_graph=True)``)
    with respect to the inputs and the output gradients; missing output gradients are drawn as
    torch draws them (``make_tensor(low=-1, high=1)``, moving the global generator)."""
    from .._dtypes import float64
    from ..testing import make_tensor

    inputs = (inputs,) if isinstance(inputs, EngineTensor) else tuple(inputs)
    if grad_outputs is None:
        outs = [o for o in _as_tuple(func(*inputs))
                if isinstance(o, EngineTensor) and not o.stop_gradient]
        grad_outputs = tuple(
            make_tensor(o.shape, dtype=o.dtype if (o.dtype.is_floating_point or o.dtype.is_complex)
                        else float64, low=-1, high=1, requires_grad=True,
                        noncontiguous=gen_non_contig_grad_outputs) for o in outs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_in = {i for i, x in enumerate(inputs) if isinstance(x, EngineTensor)
               and not x.stop_gradient}
    diff_go = {i for i, x in enumerate(grad_outputs) if not x.stop_gradient}

    def new_func(*args):
        ins = tuple(x.requires_grad_() if i in diff_in else x
                    for i, x in enumerate(args[:-n_out]))
        outs = tuple(o for o in _as_tuple(func(*ins))
                     if isinstance(o, EngineTensor) and not o.stop_gradient)
        gos = tuple(x.requires_grad_() if i in diff_go else x
                    for i, x in enumerate(args[-n_out:]))
        wrt = tuple(x for i, x in enumerate(ins) if i in diff_in)
        gis = grad(outs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gis if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)


class enforce_grad_layout_policy:
    """Whether accumulated gradients are made to follow their parameter's strides (gradrepl's
    gradients are always laid out as their values): a context manager and decorator that only
    keeps the flag."""

    __module__ = "torch.autograd.grad_mode"
    _enabled = True

    def __init__(self, enable=True):
        self.prev = enforce_grad_layout_policy._enabled
        enforce_grad_layout_policy._enabled = bool(enable)
        self.mode = enable

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc_value, traceback):
        enforce_grad_layout_policy._enabled = self.prev

    def __call__(self, fn):
        import functools

        enforce_grad_layout_policy._enabled = self.prev
        mode = self.mode

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with enforce_grad_layout_policy(mode):
                return fn(*args, **kwargs)

        return wrapped

    def clone(self):
        return self.__class__(self.mode)


_MULTITHREADING = [True]


def is_multithreading_enabled():
    return _MULTITHREADING[0]


class set_multithreading_enabled:
    def __init__(self, mode):
        self.prev = _MULTITHREADING[0]
        _MULTITHREADING[0] = bool(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _MULTITHREADING[0] = self.prev


def is_view_replay_enabled():
    return False
