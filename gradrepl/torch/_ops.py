"""torch's functions on the engine's ops: arithmetic with torch's promotion, math, reductions,
shapes, linear algebra. The ``torch`` namespace and the Tensor methods both call these.

Every engine op used here is a *copy* of the registry entry (``top``) that carries torch's view
of the backward node it makes:

- ``torch_name``: the node's class name (``MulBackward0``, ``SumBackward1``) as torch 2.13
  names it for this call (torch's name depends on the overload: ``x.sum()`` vs ``x.sum(0)``);
- ``torch_saves``: what torch's node keeps for backward (``"none"``, ``"all"``, ``"cross"``: an
  input is kept when the *other* input needs a gradient, as MulBackward0 does, ``"div"``,
  ``"out"``: its result, ``"in0"``, ``"in0+out"``, ``"other"``: something that is not one of
  the engine inputs, e.g. the indices of ``max(dim)``). It decides the errors torch raises
  for a second backward through a freed graph and for a saved tensor modified in place;
- ``torch_inputs``: which engine inputs are torch inputs (``next_functions``): ``1 - x`` is
  ``subtract(1, x)`` for the engine but RsubBackward1 has one input.

The op keeps the engine's VJP (and so its double-backward); a few forwards are replaced by
torch's kernel where it computes differently (``x ** 2`` is ``x * x``, sums are plain).
"""
from __future__ import annotations

import builtins as _b
import copy
import sys as _sys
import math as _math

import numpy as np

from ..engine import grad_mode
from ..engine._native import lib as _NATIVE
from ..engine.ops import broadcast as _broadcast_ops
from ..engine.ops import math as EM
from ..engine.ops import _kernels as K
from ..engine.ops import complex as _complex_ops
from ..engine.ops._util import array_like as _array_like
from ..engine.ops._util import quiet as _quiet
from ..engine.ops._util import scalar_of as _scalar_of
from ..engine import registry as _registry_mod
from ..engine.registry import OPS, OpDef, apply, needs_grad
from . import _bfloat16, _dtypes, _mm_grad, _selection, _storage, _unary_grads, _view_meta
from ._base import EngineTensor, raw
from ._tensor import Tensor, _dim

_STATE = grad_mode.STATE
_wrap = Tensor._wrap

# ------------------------------------------------------------------------------ op copies
_COPIES: dict = {}
# the bases whose copies take the complex rule (engine/ops/complex.py): their VJPs are written
# as ``dy * f'(z)`` and run as ``conj(vjp(conj(dy)))`` on complex values, ``dy * conj(f'(z))``
_HOLOMORPHIC = frozenset(_complex_ops.HOLOMORPHIC) | {
    "tanh", "sigmoid", "sinh", "cosh", "asinh", "acosh", "atanh", "tan", "log_softmax",
    "softmax", "fused_addmm", "fused_addcmul", "fused_addcdiv", "prod"}


class _TorchOp(OpDef):
    """A registry op copied for the dialect. A VJP the dialect assigns to a holomorphic op's copy
    (torch's own formulas for mul, div, tanh, mm ...) takes the complex rule as the registry's
    VJPs do; without it every complex gradient through them came out conjugated."""

    def __setattr__(self, name, value):
        if (name == "vjp" and value is not None and self.__dict__.get("holomorphic")
                and not hasattr(value, "__wrapped__")
                and not hasattr(value, "__wrapped_vjp__")):
            value = _complex_ops._conjugated(value)
        object.__setattr__(self, name, value)


def top(base, name, saves="all", inputs=None, forward=None):
    """The registry op ``base`` as a torch op named ``name`` (see the module docstring)."""
    key = (base, name, saves, inputs, forward)
    op = _COPIES.get(key)
    if op is None:
        if base not in OPS and base.startswith("fused_"):
            from ..engine.ops import fused  # noqa: F401  (registers the fused ops)
        op = copy.copy(OPS[base])
        op.__class__ = _TorchOp
        op.holomorphic = base in _HOLOMORPHIC
        op.vjp = op.vjp            # (wrapped now if it is a holomorphic base's own VJP)
        op.torch_name = name
        op.view_kind = _view_meta.KIND.get(name, 0)   # (torch's views: _view_meta)
        op.torch_saves = saves
        op.torch_inputs = inputs
        # the dialect checks versions itself, by torch's rules; the node still keeps the
        # inputs the VJP reads (else a large input was dropped: max_pool2d's backward failed)
        op.reads_inputs = op.saves_inputs or op.reads_inputs
        op.saves_inputs = False
        op.grad_sum_order = "torch"  # broadcast gradients summed as torch's sum_to sums them
        if forward is not None:
            op.forward = forward
        _COPIES[key] = op = _unary_grads.adopt(op)   # torch's formula for the node name
    return op


_CONST_ARRAYS: dict = {}
_CONST_BY_DTYPE: dict = {}   # dtype -> {number (not zero): its array}, as _CONST_ARRAYS
_NONE: dict = {}


def const(value, npdtype):
    """A number (or array) as a constant tensor of ``npdtype``. The arrays of Python numbers are
    made once and kept read-only (``x * 2`` in a loop makes no new array each time)."""
    if type(value) is float or type(value) is int:
        if value:  # (a number not zero: found in its dtype's own table, without a key tuple)
            arr = _CONST_BY_DTYPE.get(npdtype, _NONE).get(value)
            if arr is not None:
                return _wrap(arr, True)
        # (-0.0 == 0.0 and they hash alike: the key keeps the sign, or a cached -0. would
        # answer for 0. and a gradient's +0 would print -0.)
        key = (value, npdtype, type(value) is float and _math.copysign(1.0, value) < 0)
        arr = _CONST_ARRAYS.get(key)
        if arr is None:
            arr = np.asarray(value, dtype=npdtype) if npdtype != _bfloat16.BITS else \
                _bfloat16.from_float(np.float32(value))
            arr.flags.writeable = False
            if len(_CONST_ARRAYS) < 4096:
                _CONST_ARRAYS[key] = arr
                if value:
                    _CONST_BY_DTYPE.setdefault(npdtype, {})[value] = arr
        return _wrap(arr, True)
    if npdtype == _bfloat16.BITS:
        return _wrap(_bfloat16.astype(np.asarray(value), npdtype), True)
    return _wrap(np.asarray(value, dtype=npdtype), True)


def is_tensor(v):
    return isinstance(v, EngineTensor)


def _arr(v):
    return raw(v) if isinstance(v, EngineTensor) else np.asarray(v)


# ------------------------------------------------------------------------------ forwards
def _plain_sum(x, axis, keepdim=False, out_shape=None, dtype=None):
    if dtype is None and x.dtype.kind in "iub":
        dtype = np.int64
    out = _torch_order_sum(x, axis, keepdim, dtype)
    if out is None:
        out = np.sum(x, axis=axis, keepdims=keepdim, dtype=dtype)
    out = _c_order(np.asarray(out))
    if dtype is None and out.dtype != x.dtype:
        out = out.astype(x.dtype)
    return np.reshape(out, out_shape) if out_shape is not None else out


def _c_order(a):
    """A reduction's result as torch allocates it: contiguous (the kernels may hand back a
    transposed view; its layout decides e.g. where dropout's draws land)."""
    return a if a.flags.c_contiguous else np.array(a, order="C")


def _sum_to_torch(x, axes):
    """torch's ``sum_to`` (a broadcast gradient): one ``sum`` over the reduced axes."""
    k = _KERNELS[0] or _lazy(_KERNELS, "_kernels")
    return k.torch_sum(x, tuple(axes)) if axes else None


# Modules the hot paths use, imported on first use and kept: an import statement inside a
# function costs ~10k instructions a call in CPython 3.11 (the import system asks the module's
# spec for ``_initializing`` and formats the AttributeError it gets), a small op's worth.
_GEMM: list = [None]
_KERNELS: list = [None]


def _lazy(slot, name):
    import importlib

    slot[0] = importlib.import_module(f"{__package__}.{name}")
    return slot[0]


_broadcast_ops.ORDERS["torch"] = _sum_to_torch


def _torch_order_sum(x, axis, keepdim, dtype=None):
    """The float sum in torch's order (``_kernels``), with kept axes as asked; None when the
    case is not covered (numpy's sum is used)."""
    if dtype is not None and np.dtype(dtype) != x.dtype:
        return None
    k = _KERNELS[0] or _lazy(_KERNELS, "_kernels")   # (no import statement on this path)
    out = k.torch_sum(x, tuple(axis))
    if out is None:
        return None
    if keepdim:
        out = np.asarray(out).reshape(tuple(1 if i in axis else s for i, s in enumerate(x.shape)))
    return out


def _plain_mean(x, axis, keepdim=False, out_shape=None):
    count = 1
    for a in axis:
        count *= x.shape[a]
    s = _torch_order_sum(x, axis, keepdim)
    if s is None:
        s = np.asarray(np.sum(x, axis=axis, keepdims=keepdim, dtype=x.dtype))
    with _quiet(divide="ignore", invalid="ignore"):   # (nothing to enter in a quiet run)
        out = _c_order(np.asarray((s / np.asarray(count, x.dtype)).astype(x.dtype, copy=False)))
    return out.reshape(out_shape) if out_shape is not None else out


def _torch_pow_scalar(x, factor):
    """torch's pow(Tensor, Scalar) kernel: x*x for 2, x*x*x for 3, sqrt for 0.5, 1/x for -1..."""
    if x.dtype.kind in "iub":
        return np.power(x, int(factor)).astype(x.dtype)
    from ._kernels import torch_pow_scalar

    out = torch_pow_scalar(x, factor)   # float32/float64: torch's kernel
    if out is not None:
        return out
    with np.errstate(all="ignore"):
        if factor == 2:
            return x * x
        if factor == 3:
            return x * x * x
        if factor == 0.5:
            return np.sqrt(x)
        if factor == -0.5:
            return (np.ones((), x.dtype) / np.sqrt(x)).astype(x.dtype)
        if factor == -1:
            return (np.ones((), x.dtype) / x).astype(x.dtype)
        if factor == -2:
            return (np.ones((), x.dtype) / (x * x)).astype(x.dtype)
        if factor == 1:
            return x.copy()
        if factor == 0:
            return np.ones_like(x)
        return np.power(x, np.asarray(factor, x.dtype)).astype(x.dtype)


def _torch_pow(x, y, base=None, **_kw):
    """Tensor ** tensor: float32 operands of one shape take torch's vectorized SLEEF
    ``powf_u10`` in blocks of 16 and glibc's ``powf`` for the rest; broadcast ones the scalar
    loop, ``powf`` throughout (measured on torch 2.13)."""
    with np.errstate(all="ignore"):
        if x.dtype.kind in "iu":
            return EM._elementwise_pow_fwd(x, y)
        if x.dtype == y.dtype and x.dtype in (np.float32, np.float64):
            from ._kernels import torch_pow_tensor

            # pow(Scalar, Tensor) writes a C-contiguous result (pow.Scalar's meta): its loop
            # follows the output's order, not a transposed exponent's
            return torch_pow_tensor(x, y, c_order_out=base is not None)
        if x.dtype == np.float32 and y.dtype == np.float32 and x.size:
            if x.shape == y.shape:  # 16 at a time (two AVX2 vectors), the rest one by one
                fx, fy = x.reshape(-1), y.reshape(-1)
                n16 = fx.size // 16 * 16
                out = np.empty_like(fx)
                out[:n16] = K.sleef_pow(fx[:n16], fy[:n16]) if n16 else out[:0]
                out[n16:] = K.powf(fx[n16:], fy[n16:]) if n16 < fx.size else out[:0]
                return out.reshape(x.shape)
            xb, yb = np.broadcast_arrays(x, y)
            return K.powf(np.ascontiguousarray(xb), np.ascontiguousarray(yb))
        if x.dtype.kind == "c" or y.dtype.kind == "c":   # (std::pow: exp(y * log(x)))
            if y.ndim == 0 and x.dtype.kind == "c" and y.dtype.kind != "c":
                # a 0-dim exponent is pow(Tensor, Scalar) in torch (its special exponents)
                return _torch_pow_scalar(x, y.item()).astype(np.result_type(x, y))
            return EM._complex_pow(x, y).astype(np.result_type(x, y))
        return np.power(x, y).astype(np.result_type(x, y))


def _plain_unary(fn):
    def fwd(x, **_kw):
        with np.errstate(all="ignore"):
            if x.dtype.kind not in "fc":
                x = x.astype(_dtypes.default_float())
            return np.asarray(fn(x)).astype(x.dtype, copy=False)
    return fwd


def _erf64(x):
    import math

    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _libm_fwd(name, np_fn):
    """An elementwise function as torch computes it: MKL's VML where torch uses it (float32 and
    float64), else the C library's ``<name>f`` for float32 (the closest of the available kernels
    to torch's CPU results, measured) and numpy for the other dtypes."""
    import ctypes

    from ..engine.ops import _kernels as K

    from . import _mkl

    mkl = _mkl.function(name)   # torch's own kernel (MKL's VML) where torch uses it
    if mkl is not None:
        fwd = _float_fwd(name, mkl, mkl, np_fn)
        fwd.mkl = mkl   # (_unary's forward calls its kernels itself on small arrays)
        return fwd
    f32 = K.libm(name, np_fn)
    lib = getattr(K, "_LIBM", None)
    one = getattr(lib, name + "f", None) if lib is not None else None
    if one is None:
        return _float_fwd(name, f32, None, np_fn)
    one = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)((name + "f", lib))

    def f32_or_one(x):  # one value: a direct call, without numpy's per-call machinery
        if x.size == 1:
            return np.array(one(x.item()), np.float32).reshape(x.shape)
        return f32(x)
    return _float_fwd(name, f32_or_one, None, np_fn)


def _float_fwd(name, f32, f64, np_fn):
    """The forward of an elementwise float function from its kernels: ``f32`` for float32 (and
    float16 through it), ``f64`` for float64 when given; integers and bools in the default float
    dtype; anything else with numpy's ``np_fn``."""
    def fwd(x, **_kw):
        dt = x.dtype
        if dt == _F32:   # (a dtype against a dtype: 0.2 k instructions, against np.float32 0.7 k)
            return f32(x)
        if dt.kind not in "fc":
            x = x.astype(_dtypes.default_float())
            dt = x.dtype
            if dt == np.float32:
                return f32(x)
        if f64 is not None and dt == np.float64:
            return f64(x)
        if dt == np.float16:
            return f32(x.astype(np.float32)).astype(np.float16)
        with np.errstate(all="ignore"):
            return np.asarray(np_fn(x)).astype(dt)
    fwd.__name__ = name
    return fwd


def _sigmoid_fwd(x, **_kw):
    if x.dtype.kind not in "fc":
        x = x.astype(_dtypes.default_float())
    one = np.ones((), x.dtype)
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            from ._lecture_kernels import sigmoid32   # SLEEF's expf on vector blocks

            return sigmoid32(x)
        if x.dtype == np.float64:
            from ._sigmoid64 import sigmoid   # SLEEF's exp on vector blocks, glibc's on the rest

            return sigmoid(x)
        if x.dtype.kind == "c":   # (c10's division of 1 by 1 + exp(-x))
            from ._complex_c10 import sigmoid

            return sigmoid(x)
        return (one / (one + np.exp(-x))).astype(x.dtype)


def _round_half_even(x, half_even=True):
    return np.rint(x) if x.dtype.kind == "f" else x.copy()


def _reshape_copy(x, shape):
    return np.array(np.reshape(x, shape))


# ------------------------------------------------------------------------------ operands
def _operand(v, dt):
    """A Tensor or Python number as an engine operand of dtype ``dt``: numbers become constants;
    a tensor of another dtype is converted (without a node when it takes no gradient)."""
    if isinstance(v, EngineTensor):
        a = raw(v)
        if a.dtype == dt:
            return v
        if a.dtype == _bfloat16.BITS or dt == _bfloat16.BITS:
            return to_dtype(v, dt)
        if v.stop_gradient or not _STATE.enabled:
            return _wrap(a.astype(dt), True)
        if a.dtype.kind in "fc" and dt.kind in "fc":
            return to_dtype(v, dt)
        return _wrap(a.astype(dt), True)
    if isinstance(v, (list, tuple)):
        v = np.asarray(v)
    return const(v, dt)


def _as_tensor(v):
    if isinstance(v, EngineTensor):
        return v
    from ._creation import tensor

    return tensor(v)


def _check_broadcast(a, b):
    sa, sb = _arr(a).shape, _arr(b).shape
    if sa == sb:  # (the common cases without numpy's general rule: 5 us a call)
        return sa
    if len(sb) <= len(sa):
        for x, y in zip(sa[len(sa) - len(sb):], sb):
            if y != 1 and y != x:
                break
        else:
            return sa
    try:
        return np.broadcast_shapes(sa, sb)
    except ValueError:
        pass
    la, lb = list(sa), list(sb)
    n = _b.max(len(la), len(lb))
    la = [1] * (n - len(la)) + la
    lb = [1] * (n - len(lb)) + lb
    for i in reversed(range(n)):
        if la[i] != lb[i] and la[i] != 1 and lb[i] != 1:
            raise RuntimeError(f"The size of tensor a ({la[i]}) must match the size of tensor b "
                               f"({lb[i]}) at non-singleton dimension {i}")
    raise RuntimeError("shapes cannot be broadcast")


_FLOATS = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _binary_prep(a, b, dt=None, opmath=False):
    if dt is None:
        tb = type(b)
        if (tb is float or tb is int) and type(a) is Tensor:
            ad = raw(a).dtype
            if ad in _FLOATS:  # the commonest case: a float tensor and a Python number
                return a, const(b, ad), ad
        dt = _dtypes.result_type(a, b)
    if isinstance(a, EngineTensor) and isinstance(b, EngineTensor):
        _check_broadcast(a, b)
    if opmath and dt == _bfloat16.BITS and type(b) in (float, int):  # ATen's mul and div
        return _operand(a, dt), const(b, np.dtype(np.float32)), dt  # take a number in float32
    return _operand(a, dt), _operand(b, dt), dt


# ------------------------------------------------------------------------------ arithmetic
ADD = top("add", "AddBackward0", "none")
SUB = top("subtract", "SubBackward0", "none")
RSUB = top("subtract", "RsubBackward1", "none", inputs=(1,))
MUL = top("multiply", "MulBackward0", "cross")
DIV = top("divide", "DivBackward0", "div")
for _binary in (ADD, SUB, MUL, DIV):   # the result laid out as TensorIterator lays it out
    if not hasattr(_binary.forward, "__wrapped__"):
        _binary.forward = _storage.keeping_first_layout(_binary.forward)
del _binary


def _complex_mul_first(fwd):
    """MUL's forward with complex operands as ATen's kernel multiplies them where their layout
    is followed (``_complex_mul``: unfused vectors, fused remainders), else ``fwd``."""
    from . import _complex_mul

    def f(x, y, *args, **kw):
        if getattr(x, "dtype", _F32).kind == "c" or getattr(y, "dtype", _F32).kind == "c":
            r = _complex_mul.multiply(x, y)
            if r is not None:
                return r
        return fwd(x, y, *args, **kw)
    f.__name__ = getattr(fwd, "__name__", "forward")
    f.__wrapped__ = getattr(fwd, "__wrapped__", fwd)
    return f


MUL.forward = _complex_mul_first(MUL.forward)
#: the ufunc ADD's, SUB's and MUL's forward computes when the run is quiet (``FP.on``: the
#: engine's forward calls it as it is) and the first operand is a C-contiguous array (then
#: ``keeping_first_layout`` keeps numpy's result): the operators' fast entries (``x * 2.0``,
#: ``x + y``; ``_methods``, ``_inplace.plain_number``) call it themselves, two frames fewer
#: (``tests/test_issue29_per_op.py`` compares it with the forward on every layout)
UFUNC_OF = {ADD: np.add, SUB: np.subtract, MUL: np.multiply}


def _mul_vjp(n, g):
    """The engine's multiply VJP, without the gradient of an input that takes none (a
    constant such as the 2 of ``x * 2``)."""
    x, y = n.inputs
    e = n.edges   # (needs_grad(n, i) and EM.multiply written out: a node of every product)
    if not _STATE.enabled and _registry_mod._HOOK is None and type(g) is Tensor:
        ga = raw(g)   # (nothing to record: apply's forward and wrap, without its tests)
        if ga.dtype is _F32 or ga.dtype is _F64:
            return (_mul_plain(ga, y) if e[0] is not None else None,
                    _mul_plain(ga, x) if e[2] is not None else None)
    return (_EM_APPLY(_EM_MUL, (g, y)) if e[0] is not None else None,
            _EM_APPLY(_EM_MUL, (g, x)) if e[2] is not None else None)


def _mul_plain(ga, t):
    """``apply(EM.MULTIPLY, (g, t))`` with nothing recorded, g's array ``ga`` float32/float64:
    the op's forward on the arrays (t's read as apply reads it) as a tensor of g's class."""
    out = _EM_MUL.forward(ga, raw(t) if type(t) is Tensor else t.data)
    return Tensor._wrap(out if type(out) is np.ndarray else np.asarray(out), True)


_EM_MUL, _EM_APPLY = EM.MULTIPLY, EM.apply   # (the engine's apply, not a layered one)
_apply_one = _registry_mod.apply_one


def _div_vjp(n, g):
    x, y = n.inputs
    gx = EM.divide(g, y) if needs_grad(n, 0) else None
    # torch's div_tensor_other_backward: -grad * ((self / other) / other)
    gy = EM.multiply(EM.neg(g), EM.divide(n.out(), y)) if needs_grad(n, 1) else None
    return gx, gy


MUL.vjp = _mul_vjp
DIV.vjp = _div_vjp
NEG = top("neg", "NegBackward0", "none")
POW_SCALAR = top("pow", "PowBackward0", "in0",
                 forward=_storage.keeping_layout(_torch_pow_scalar))  # (x.t() ** .5: x.t()'s)


def _torch_pow_scalar_vjp(n, g):
    """torch's pow_backward: ``grad * (exponent * self.pow(exponent - 1))``, its pow torch's."""
    f = n.attrs["factor"]
    dt = n.in_meta[0][1]
    if dt.kind != "f" and dt != _bfloat16.BITS or f == 0:
        return EM._pow_scalar_vjp(n, g)
    fm1 = float(f) - 1.0   # pow_backward: exponent.toDouble() - 1, then cast by the pow kernel
    p = apply(POW_SCALAR, (n.inputs[0],), {"factor": fm1})
    if dt == _bfloat16.BITS:  # (bfloat16: the exponent times it in float, as mul.Scalar)
        return EM.multiply(g, EM.multiply(p, const(float(f), np.dtype(np.float32))))
    return EM.multiply(g, EM.times(p, f))


POW_SCALAR.vjp = _torch_pow_scalar_vjp
POW_TENSOR = top("elementwise_pow", "PowBackward1", "all+out", forward=_torch_pow)
POW_RSCALAR = top("elementwise_pow", "PowBackward2", "all+out", inputs=(1,), forward=_torch_pow)


def _add_alpha_forward(x, y, alpha=1.0):
    """``x + alpha * y`` as ATen's add kernel (ufunc/add.h): ``fmadd(other, alpha, self)``, one
    rounding where torch's build fuses (``_kernels.torch_add_alpha``)."""
    from ._kernels import torch_add_alpha

    out = torch_add_alpha(x, y, alpha)
    return OPS["fused_add_scaled"].forward(x, y, alpha=alpha) if out is None else out


def _float_number_operand(input, other):
    """A real Python number ``other`` with a float32/float64 tensor ``input``: ATen's add kernel
    takes it as a scalar operand of the tensor's dtype (``_kernels.torch_add_alpha``)."""
    return (isinstance(input, EngineTensor) and raw(input).dtype in (np.float32, np.float64)
            and isinstance(other, (int, float)) and not isinstance(other, bool))


def add(input, other, *, alpha=1, out=None):  # noqa: A002 - torch's names
    if alpha != 1:
        if not isinstance(other, EngineTensor):
            if not _float_number_operand(input, other):
                return add(input, other * alpha, out=out)
            other = const(other, raw(input).dtype)
        a, b, _dt = _binary_prep(input, other)
        return _out(apply(top("fused_add_scaled", "AddBackward0", "none",
                              forward=_add_alpha_forward), (a, b), {"alpha": float(alpha)}), out)
    a, b, _dt = _binary_prep(input, other)
    return _out(apply(ADD, (a, b)), out)


def sub(input, other, *, alpha=1, out=None):  # noqa: A002
    if isinstance(input, EngineTensor) and raw(input).dtype.kind == "b" and \
            (not isinstance(other, EngineTensor) or raw(other).dtype.kind == "b"):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if alpha != 1:
        if not isinstance(other, EngineTensor):
            if not _float_number_operand(input, other):
                return sub(input, other * alpha, out=out)
            other = const(other, raw(input).dtype)
        a, b, _dt = _binary_prep(input, other)
        return _out(apply(top("fused_add_scaled", "SubBackward0", "none",
                              forward=_add_alpha_forward), (a, b), {"alpha": -float(alpha)}), out)
    a, b, _dt = _binary_prep(input, other)
    return _out(apply(SUB, (a, b)), out)


subtract = sub


def rsub(input, other, *, alpha=1):  # noqa: A002
    """``other - input`` (``1 - x``): RsubBackward1 for a number, RsubBackward0 for a tensor."""
    if alpha != 1:
        input = mul(input, alpha)
    a, b, _dt = _binary_prep(other, input)
    if isinstance(other, EngineTensor):
        return apply(top("subtract", "RsubBackward0", "none", inputs=(1, 0)), (a, b))
    return apply(RSUB, (a, b))


def mul(input, other, *, out=None):  # noqa: A002
    a, b, _dt = _binary_prep(input, other, opmath=True)
    return _out(apply(MUL, (a, b)), out)


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):  # noqa: A002
    if rounding_mode == "floor":
        return floor_divide(input, other)
    if rounding_mode == "trunc":
        dt = _dtypes.result_type(input, other)
        q = _wrap(np.asarray(np.trunc(_arr(input) / _arr(other))).astype(dt), True)
        return q
    dt = _dtypes.result_type(input, other)
    if dt.kind in "iub" and dt != _bfloat16.BITS:
        dt = _dtypes.default_float()
    a, b, _dt = _binary_prep(input, other, dt, opmath=True)
    if dt.kind == "c":   # (c10's complex division: _complex_c10.divide)
        return _out(apply(_div_complex(), (a, b)), out)
    return _out(apply(DIV, (a, b)), out)


def _div_complex():
    op = top("divide", "DivBackward0", "div", forward=_C10_DIVIDE)
    op.vjp = _div_vjp
    return op


divide = true_divide = div


def rdiv(input, other):  # noqa: A002
    """``other / input`` for a number ``other``: torch computes ``input.reciprocal() * other``."""
    return mul(reciprocal(input), other)


def floor_divide(input, other):  # noqa: A002
    a, b, dt = _binary_prep(input, other)
    with np.errstate(all="ignore"):
        if dt.kind in "iu":
            if (raw(b) == 0).any():
                raise RuntimeError("ZeroDivisionError")
            out = np.floor_divide(raw(a), raw(b))
        else:
            out = np.floor_divide(raw(a), raw(b))
    return _wrap(np.asarray(out).astype(dt), True)


def remainder(input, other):  # noqa: A002
    a, b, dt = _binary_prep(input, other)
    if dt.kind in "iu" and (raw(b) == 0).any():
        raise RuntimeError("ZeroDivisionError")
    return apply(top("remainder", "RemainderBackward0", "in0"), (a, b))


def fmod(input, other):  # noqa: A002
    a, b, dt = _binary_prep(input, other)
    return _wrap(np.asarray(np.fmod(raw(a), raw(b))).astype(dt), True)


def pow(input, exponent):  # noqa: A001 - torch's name
    if not isinstance(input, EngineTensor):
        base = input
        e = exponent
        dt = _dtypes.result_type(base, e)
        b_t = const(base, dt)
        e_t = _operand(e, dt)
        return apply(POW_RSCALAR, (b_t, e_t), {"base": base})  # (the exponent's grad: log(base))
    if not isinstance(exponent, EngineTensor):
        dt = _dtypes.result_type(input, exponent)
        x = _operand(input, dt)
        flt = dt.kind in "fc" or dt == _bfloat16.BITS
        if not flt and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return apply(POW_SCALAR, (x,), {"factor": float(exponent) if flt else int(exponent)})
    a, b, _dt = _binary_prep(input, exponent)
    return apply(POW_TENSOR, (a, b))


def neg(input):  # noqa: A002
    if raw(input).dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return apply(NEG, (input,))


negative = neg


def _out(t, out):
    if out is None:
        return t
    from ._inplace import write_out

    return write_out(out, t)


# ------------------------------------------------------------------------------ unary math
def _small_vml(mkl, general):
    """An MKL-computed forward (``_libm_fwd``) whose small C-contiguous float32/float64 arrays go
    to VML's kernel from here: what ``keeping_layout`` -> ``_float_fwd`` -> ``_mkl.function``
    do for them (a result of the input's shape, computed on this thread), three calls fewer."""
    from . import _mkl

    kernels, small, empty = mkl.small, _mkl._SMALL, np.empty
    if kernels is None:   # (no argtypes-free kernels: numpy's struct not as probed)
        return general
    at, field, mode = _mkl._engine_mkl.POINTER_AT, _mkl._engine_mkl.DATA_FIELD, _mkl._MODE
    ndarray = np.ndarray

    def forward(x, **kw):
        kernel = kernels.get(x.dtype)
        if kernel is not None and x.size <= small and type(x) is ndarray and \
                x.flags.c_contiguous:
            out = empty(x.shape, x.dtype)
            kernel(x.size, at(id(x) + field), at(id(out) + field), mode)
            return out
        return general(x, **kw)

    forward.__name__ = general.__name__
    forward.__wrapped__ = general
    return forward


def _unary(base, name, saves, forward=None, float_only=True, complex_error=None):
    # the result laid out as the input (torch: x.t().exp() has x.t()'s strides);
    # complex_error: (exception type, message) torch raises for a complex input (the check on
    # the slow path only: F.relu / Tensor.relu then need no refusal wrapper, _dense_entry)
    fwd = _storage.keeping_layout(forward if forward is not None else OPS[base].forward)
    mkl = getattr(forward, "mkl", None)
    op = top(base, name, saves, forward=fwd if mkl is None else _small_vml(mkl, fwd))

    one = op.n_outputs == 1

    def f(input, *, out=None):  # noqa: A002
        x = input
        if out is None and one and type(x) is Tensor:   # (a float tensor, nothing watching:
            a = raw(x)                                   # registry.apply_one)
            dt = a.dtype
            if (dt is _F32 or dt is _F64) and apply is _EM_APPLY and _registry_mod._HOOK is None:
                return _apply_one(op, x, a)
        if complex_error is not None and isinstance(x, EngineTensor) and \
                raw(x).dtype.kind == "c":
            raise complex_error[0](complex_error[1])
        if float_only:
            dt = raw(x).dtype
            if dt is not _F32 and dt.kind not in "fc" and dt != _bfloat16.BITS:
                x = _wrap(raw(x).astype(_dtypes.default_float()), True)
        if out is None:
            return apply(op, (x,))
        return _out(apply(op, (x,)), out)

    f.__name__ = name
    f._op = op
    return f


exp = _unary("exp", "ExpBackward0", "out", _libm_fwd("exp", np.exp))
def _expm1_f32(x):
    """torch's float32 expm1: ``vml`` maps SLEEF's ``expm1f`` over every value, the tail as a
    partial vector (measured: no value by the C library's ``expm1f``)."""
    from ._act_kernels import expm1f_u10

    return expm1f_u10(x)


def _expm1_f64(x):
    """torch's float64 expm1: SLEEF's ``Sleef_expm1d8_u10`` over every value (measured: 0 of
    1,000 differ; numpy's 1)."""
    from ._sleef_more import expm1d

    return expm1d(x)


from . import _complex_c10 as _C10  # noqa: E402  (complex kernels as ATen's)

_C10_DIVIDE = _storage.keeping_first_layout(_C10.divide)

expm1 = _unary("expm1", "Expm1Backward0", "out",
               _float_fwd("expm1", _expm1_f32, _expm1_f64, _C10.complex_or(np.expm1, _C10.expm1)))
log = _unary("log", "LogBackward0", "in0", _libm_fwd("log", np.log))
log._op.vjp = lambda n, g: EM.divide(g, n.inputs[0])  # torch: grad.div(self), not g * (1/x)
log2 = _unary("log2", "Log2Backward0", "in0",
              _libm_fwd("log2", _C10.complex_or(np.log2, _C10.log2)))
log10 = _unary("log10", "Log10Backward0", "in0",
               _libm_fwd("log10", _C10.complex_or(np.log10, _C10.log10)))
def _log1p_f32(x):
    """torch's float32 log1p: ``vml`` maps SLEEF's ``log1pf`` over every value (measured)."""
    from ._activation_kernels import log1pf_u10

    return log1pf_u10(x)


def _log1p_f64(x):
    """torch's float64 log1p: SLEEF's ``Sleef_log1pd8_u10`` over every value, as float32
    (measured: 0 of 1,000 values differ; numpy's log1p 22, glibc's 77)."""
    from ._sigmoid64 import vlog1p_full

    with np.errstate(all="ignore"):
        return np.where(np.isnan(x), x, vlog1p_full(x)).astype(np.float64)


log1p = _unary("log1p", "Log1PBackward0", "in0",
               _float_fwd("log1p", _log1p_f32, _log1p_f64, np.log1p))
def _torch_sqrt(x):
    from ._kernels import torch_sqrt   # MKL's VML sqrt, as torch's float kernels

    return torch_sqrt(x)


sqrt = _unary("sqrt", "SqrtBackward0", "out", _float_fwd("sqrt", _torch_sqrt, _torch_sqrt,
                                                          np.sqrt))
rsqrt = _unary("rsqrt", "RsqrtBackward0", "out",   # (complex: c10's division, _complex_c10)
               _plain_unary(lambda x: _C10.rsqrt(x) if x.dtype.kind == "c" else
                            np.ones((), x.dtype) / np.sqrt(x)))
reciprocal = _unary("reciprocal", "ReciprocalBackward0", "out",
                    _plain_unary(lambda x: _C10.reciprocal(x) if x.dtype.kind == "c" else
                                 np.ones((), x.dtype) / x))
tanh = _unary("tanh", "TanhBackward0", "out", _libm_fwd("tanh", np.tanh))


def _tanh_grad_fwd(out, dout):
    """torch's ``tanh_backward``: ``dout * (1 - out * out)``, in float32 with ``1 - out * out``
    one fused multiply-add (as GCC compiles torch's vectorised kernel: 0 of 100,000 random
    gradients differ from torch 2.13; two roundings differed in 56%)."""
    if out.dtype == _F32 and dout.dtype == _F32:
        if out.size == 1 and dout.shape == out.shape:   # (one value: Python doubles, below)
            return _tanh_grad_one32(out, dout)
        if _NATIVE is not None and dout.shape == out.shape and out.flags.c_contiguous \
                and dout.flags.c_contiguous:   # (the same, compiled)
            res = np.empty(out.shape, _F32)
            if not _NATIVE.tanh_grad_f32(out, dout, res):
                return res
        return dout * (1.0 - np.square(out, dtype=np.float64)).astype(np.float32)
    if out.dtype == _F64 and dout.dtype == _F64:  # the same fused 1 - out * out
        from ._sleef64 import fma64

        return dout * fma64(-out, out, 1.0)
    return dout * (1 - out * out)


def _tanh_grad_one32(out, dout, _f32=np.float32):
    """``_tanh_grad_fwd``'s float32 formula on one value with the same roundings: ``o * o`` and
    ``1 - o * o`` in double as numpy's float64 square and subtract, one rounding to float32 as
    ``astype``, and the float32 product as the exact double product of two float32 values
    rounded once (about a third of the four numpy calls' instructions)."""
    o, d = float(_scalar_of(out)), float(_scalar_of(dout))
    if o != o or d != d:   # (a NaN operand: numpy's, whose NaN it keeps)
        return dout * (1.0 - np.square(out, dtype=np.float64)).astype(np.float32)
    return _array_like(dout, _f32(d * float(_f32(1.0 - o * o))))


_TANH_GRAD = top("tanh_grad", "TanhBackwardBackward0", "all", forward=_tanh_grad_fwd)


def _tanh_grad_vjp(n, gg):
    """derivatives.yaml's TanhBackwardBackward0, in its order: ``dout``'s gradient first,
    ``tanh_backward(gg, out)`` (so a Jacobian taken by columns has the same bits as one taken by
    rows), then ``out``'s, ``gg * (-2 * out * dout)`` (the nodes made as torch makes them: a
    backward through them, a PINN's u_xx, sums in torch's order)."""
    out, dout = n.inputs
    d_dout = apply(_TANH_GRAD, (out, gg))
    d_out = None
    if needs_grad(n, 0):
        d_out = EM.multiply(gg, EM.multiply(EM.scale(out, -2.0), dout))
    return d_out, d_dout


_TANH_GRAD.vjp = _tanh_grad_vjp
def _tanh_vjp(n, g):
    """TanhBackward0: ``tanh_backward(g, out)`` as the op ``_TANH_GRAD`` on the saved output.
    Without a graph to record (grad mode off: no create_graph), apply hook or layer, a float32
    or float64 output and a plain tensor ``g``: the op's forward on the arrays, wrapped as
    ``apply`` wraps it, without making the output's tensor and apply's tests."""
    inputs = n.inputs
    if not _STATE.enabled and apply is _EM_APPLY and _registry_mod._HOOK is None and \
            type(g) is Tensor and inputs is not None:
        o = n.out_data[0]
        dt = o.dtype
        if dt is _F32 or dt is _F64:
            r = _tanh_grad_fwd(o, raw(g))
            return inputs[0]._result_type._wrap(r if type(r) is np.ndarray else np.asarray(r),
                                                True)
    return apply(_TANH_GRAD, (n.out(), g))


tanh._op.vjp = _tanh_vjp
sigmoid = _unary("sigmoid", "SigmoidBackward0", "out", _sigmoid_fwd)
sin = _unary("sin", "SinBackward0", "in0", _libm_fwd("sin", np.sin))
cos = _unary("cos", "CosBackward0", "in0", _libm_fwd("cos", np.cos))
tan = _unary("tan", "TanBackward0", "out", _libm_fwd("tan", np.tan))
asin = _unary("asin", "AsinBackward0", "in0", _libm_fwd("asin", np.arcsin))
acos = _unary("acos", "AcosBackward0", "in0",
              _libm_fwd("acos", _C10.complex_or(np.arccos, _C10.acos)))
atan = _unary("atan", "AtanBackward0", "in0", _libm_fwd("atan", np.arctan))
def _sleef_blocks_f32(name):
    """torch's float32 sinh/cosh: SLEEF's u10 function on whole groups of two vectors (the
    AVX-512 build: 32 floats), the C library's on the rest (measured: 0 of 1,200 differ)."""
    def run(x):
        from . import _act_kernels, _sleef_more

        vec = {"sinh": _act_kernels.sinhf_u10, "cosh": _act_kernels.coshf_u10}[name]
        return _sleef_more.blocks(vec, K.libm(name, getattr(np, name)))(x)
    return run


sinh = _unary("sinh", "SinhBackward0", "in0",
              _float_fwd("sinh", _sleef_blocks_f32("sinh"), None, np.sinh))
cosh = _unary("cosh", "CoshBackward0", "in0",
              _float_fwd("cosh", _sleef_blocks_f32("cosh"), None, np.cosh))
erf = _unary("erf", "ErfBackward0", "in0", _libm_fwd("erf", _erf64))
_unary_grads.install(_sys.modules[__name__])  # derivatives.yaml's formulas, torch's kernels
arcsin, arccos, arctan = asin, acos, atan
def _abs_fwd(x):
    """torch's abs: a complex input's magnitude is its hypot (``_complex_abs``), not numpy's."""
    if x.dtype.kind == "c":
        from ._complex_abs import magnitude

        return magnitude(x)
    return OPS["abs"].forward(x)


def _abs_vjp(n, g, engine=None):
    """AbsBackward0: derivatives.yaml's ``grad * self.sgn()``. A real float input: torch's sgn op
    (a SgnBackward0 node under create_graph, so the gradient has a MulBackward0 grad_fn; sgn of
    NaN is 0, so NaN's gradient is 0); complex: torch's sgn (``_complex_abs``); else the engine's."""
    x = n.inputs[0].data
    if x.dtype.kind == "f" and g.data.dtype == x.dtype:
        from ._ops_math import sgn

        return EM.multiply(g, sgn(n.inputs[0]))
    if x.dtype.kind != "c":
        return engine(n, g)
    from ._complex_abs import sgn

    s = sgn(x)
    zeros = np.zeros(g.data.shape, g.data.dtype)
    return EM.multiply(_complex_ops.complex_(g, const(zeros, zeros.dtype)), const(s, s.dtype))


_abs = _unary("abs", "AbsBackward0", "in0", forward=_abs_fwd, float_only=False)
_abs._op.vjp = lambda n, g, engine=_abs._op.vjp: _abs_vjp(n, g, engine)
_relu = _unary("relu", "ReluBackward0", "out", float_only=False,
               complex_error=(NotImplementedError, "clamp is not supported for complex types"))
_floor = _unary("floor", "FloorBackward0", "none", float_only=False)
_ceil = _unary("ceil", "CeilBackward0", "none", float_only=False)
_trunc = _unary("trunc", "TruncBackward0", "none", float_only=False)
_sign = _unary("sign", "SignBackward0", "none", float_only=False)
_round = _unary("round", "RoundBackward0", "none", forward=_round_half_even, float_only=False)


def abs(input, *, out=None):  # noqa: A001,A002
    return _abs(input, out=out)


absolute = abs


def relu(input):  # noqa: A002
    return _relu(input)


def floor(input):  # noqa: A002
    return _floor(input)


def ceil(input):  # noqa: A002
    return _ceil(input)


def trunc(input):  # noqa: A002
    return _trunc(input)


fix = trunc


def sign(input):  # noqa: A002
    return _sign(input)


def round(input, *, decimals=0):  # noqa: A001,A002
    if decimals:
        s = 10.0 ** decimals
        return _wrap((np.rint(raw(input) * s) / s).astype(raw(input).dtype), True)
    return _round(input)


def square(input):  # noqa: A002
    return pow(input, 2)


def frac(input):  # noqa: A002
    return apply(top("assign", "FracBackward0", "none",
                     forward=lambda x: (x - np.trunc(x)).astype(x.dtype)), (input,))


def exp2(input):  # noqa: A002
    x = input if raw(input).dtype.kind in "fc" or raw(input).dtype == _bfloat16.BITS else \
        _wrap(raw(input).astype(_dtypes.default_float()), True)
    two = const(2, raw(x).dtype)
    return apply(top("elementwise_pow", "Exp2Backward0", "out", inputs=(1,), forward=_torch_pow),
                 (two, x))


def sgn(input):  # noqa: A002
    return sign(input)


def clamp(input, min=None, max=None):  # noqa: A001,A002
    """ClampBackward1 (numbers) / ClampBackward0 (tensors): the gradient passes where
    min <= x <= max."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, EngineTensor) or isinstance(max, EngineTensor):
        dt = raw(input).dtype
        lo = _operand(min, dt) if min is not None else const(-np.inf, dt)
        hi = _operand(max, dt) if max is not None else const(np.inf, dt)
        return apply(top("fused_clamp", "ClampBackward0", "all"), (input, lo, hi))
    x = input
    dt = raw(x).dtype
    if dt.kind in "iu" and dt != _bfloat16.BITS and ((min is not None and isinstance(min, float))
                            or (max is not None and isinstance(max, float))):
        dt = _dtypes.default_float()
        x = _wrap(raw(x).astype(dt), True)
    op = top("clip", "ClampBackward1", "in0", forward=_clamp_fwd)
    return apply(op, (x,), {"min": min, "max": max})


def _clamp_fwd(x, min=None, max=None, open_bounds=False):  # noqa: A002
    out = x
    with np.errstate(invalid="ignore"):
        if min is not None:
            out = np.maximum(out, np.asarray(min, x.dtype))
        if max is not None:
            out = np.minimum(out, np.asarray(max, x.dtype))
    return np.asarray(out).astype(x.dtype, copy=False)


clip = clamp


def clamp_min(input, min):  # noqa: A002
    if isinstance(min, EngineTensor):
        return clamp(input, min=min)
    return apply(top("clip", "ClampMinBackward0", "in0", forward=_clamp_fwd), (input,),
                 {"min": min, "max": None})


def clamp_max(input, max):  # noqa: A002
    if isinstance(max, EngineTensor):
        return clamp(input, max=max)
    return apply(top("clip", "ClampMaxBackward0", "in0", forward=_clamp_fwd), (input,),
                 {"min": None, "max": max})


def maximum(input, other):  # noqa: A002
    a, b, _dt = _binary_prep(input, other)
    return apply(top("maximum", "MaximumBackward0", "all", forward=_MAXIMUM_FWD),
                 (a, b), {"ties": "split"})


def minimum(input, other):  # noqa: A002
    a, b, _dt = _binary_prep(input, other)
    return apply(top("minimum", "MinimumBackward0", "all", forward=_MINIMUM_FWD),
                 (a, b), {"ties": "split"})


def _maxmin(fn):
    def fwd(x, y, ties="y", nan="propagate"):
        return fn(x, y)
    return fwd


_MAXIMUM_FWD, _MINIMUM_FWD = _maxmin(np.maximum), _maxmin(np.minimum)  # one op each (top's key)


def lerp(input, end, weight):  # noqa: A002
    dt = _dtypes.result_type(input, end)
    a, b = _operand(input, dt), _operand(end, dt)
    w = _operand(weight, dt) if is_tensor(weight) or dt != _bfloat16.BITS else \
        const(weight, np.dtype(np.float32))  # (bfloat16: a number weight in float32)
    return apply(top("lerp", "LerpBackward0" if not is_tensor(weight) else "LerpBackward1",
                     "all", inputs=(0, 1) if not is_tensor(weight) else None,
                     forward=_lerp_fwd), (a, b, w),
                 None if is_tensor(weight) else {"weight": weight})  # (1 - weight in double)


def _lerp_fwd(x, y, w, **_kw):
    from ._elementwise_more import lerp as torch_lerp   # ATen's fused multiply-add forms

    out = torch_lerp(x, y, w)
    return OPS["lerp"].forward(x, y, w) if out is None else out


def addcmul(input, tensor1, tensor2, *, value=1):  # noqa: A002
    dt = _dtypes.result_type(input, tensor1, tensor2)
    ins = tuple(_operand(t, dt) for t in (input, tensor1, tensor2))
    return apply(top("fused_addcmul", "AddcmulBackward0", "all", forward=_addcmul_forward), ins,
                 {"value": float(value)})


def _addcmul_forward(x, t1, t2, value=1.0):
    """torch's rounding (``_kernels.torch_addcmul``: fused where torch's build fuses)."""
    from ._kernels import torch_addcmul

    out = torch_addcmul(x, t1, t2, value)
    return OPS["fused_addcmul"].forward(x, t1, t2, value=value) if out is None else out


def _addcdiv_forward(x, t1, t2, value=1.0):
    """torch's order: ``x + (value * t1) / t2`` (``_kernels.torch_addcdiv``)."""
    from ._kernels import torch_addcdiv

    out = torch_addcdiv(x, t1, t2, value)
    return OPS["fused_addcdiv"].forward(x, t1, t2, value=value) if out is None else out


def addcdiv(input, tensor1, tensor2, *, value=1):  # noqa: A002
    dt = _dtypes.result_type(input, tensor1, tensor2)
    ins = tuple(_operand(t, dt) for t in (input, tensor1, tensor2))
    return apply(top("fused_addcdiv", "AddcdivBackward0", "all", forward=_addcdiv_forward), ins,
                 {"value": float(value)})


def atan2(input, other):  # noqa: A002
    a, b, dt = _binary_prep(input, other)
    if dt.kind not in "fc" and dt != _bfloat16.BITS:
        dt = _dtypes.default_float()
        a, b = _operand(a, dt), _operand(b, dt)
    if "atan2" in OPS:
        return apply(top("atan2", "Atan2Backward0", "all", forward=lambda y, x:
                         np.asarray(np.arctan2(y, x))), (a, b))
    return _wrap(np.arctan2(raw(a), raw(b)).astype(dt), True)


arctan2 = atan2


def hypot(input, other):  # noqa: A002
    a, b, _dt = _binary_prep(input, other)
    return apply(top("fused_hypot", "HypotBackward0", "all+out"), (a, b))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    return apply(top("fused_nan_to_num", "NanToNumBackward0", "in0"), (input,),
                 {"nan": nan, "posinf": posinf, "neginf": neginf})


# ------------------------------------------------------------------------------ comparisons
def _compare(name):
    def f(input, other):  # noqa: A002
        dt = _dtypes.result_type(input, other)
        if dt == _bfloat16.BITS:  # bfloat16: compared as the float32 values (exact)
            dt = np.dtype(np.float32)
            a, b = (_bfloat16.values(np.asarray(_arr(v))).astype(dt, copy=False)
                    for v in (input, other))
        else:
            a = _arr(input).astype(dt, copy=False)
            b = _arr(other).astype(dt, copy=False)
        if isinstance(other, EngineTensor):
            _check_broadcast(input, other)
        with np.errstate(invalid="ignore"):
            return _wrap(np.asarray(getattr(np, name)(a, b)), True)
    f.__name__ = name
    return f


eq = _compare("equal")
ne = _compare("not_equal")
lt = _compare("less")
le = _compare("less_equal")
gt = _compare("greater")
ge = _compare("greater_equal")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def equal(input, other):  # noqa: A002
    a, b = raw(input), raw(other)
    return bool(a.shape == b.shape and np.array_equal(a, b))


def _close(input, other, rtol, atol, equal_nan):  # noqa: A002
    """isclose's checks as torch's (same dtype, non-negative tolerances), then the values
    (bfloat16's as numbers, not its bits)."""
    if isinstance(input, EngineTensor) and isinstance(other, EngineTensor) \
            and input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.legacy} did not match {other.dtype.legacy}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol:g}")
    return np.isclose(_bfloat16.values(_arr(input)), _bfloat16.values(_arr(other)),
                      rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    return bool(np.all(_close(input, other, rtol, atol, equal_nan)))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    return _wrap(_close(input, other, rtol, atol, equal_nan), True)


def _logic(fn):
    def f(input, other=None):  # noqa: A002
        if other is None:  # (bfloat16's bits: on the values)
            return _wrap(np.asarray(fn(_bfloat16.values(_arr(input)))), True)
        return _wrap(np.asarray(fn(_bfloat16.values(_arr(input)),
                                   _bfloat16.values(_arr(other)))), True)
    return f


logical_and = _logic(np.logical_and)
logical_or = _logic(np.logical_or)
logical_xor = _logic(np.logical_xor)
logical_not = _logic(np.logical_not)
isnan = _logic(np.isnan)
isinf = _logic(np.isinf)
isfinite = _logic(np.isfinite)


def _bitwise(fn, name):
    def f(input, other):  # noqa: A002
        dt = _dtypes.result_type(input, other)
        if dt.kind == "f":
            raise TypeError(f"unsupported operand type(s) for {name}")
        return _wrap(np.asarray(fn(_arr(input).astype(dt), _arr(other).astype(dt))), True)
    return f


bitwise_and = _bitwise(np.bitwise_and, "&")
bitwise_or = _bitwise(np.bitwise_or, "|")
bitwise_xor = _bitwise(np.bitwise_xor, "^")


def bitwise_not(input):  # noqa: A002
    a = raw(input)
    if a.dtype.kind == "f":
        raise RuntimeError("\"bitwise_not_cpu\" not implemented for 'Float'")
    return _wrap(np.invert(a), True)


# ------------------------------------------------------------------------------ reductions
def _dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        return tuple(sorted({_dim(d, ndim) for d in dim}))
    return (_dim(dim, ndim),)


def _out_shape(shape, axes, keepdim):
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001,A002
    x = input
    a = raw(x)
    if dtype is not None:
        x = to_dtype(x, _dtypes.to_np(dtype))
        a = raw(x)
    elif a.dtype.kind in "iub" and a.dtype != _bfloat16.BITS:
        x = _wrap(a.astype(np.int64), True)
        a = raw(x)
    full = dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0)
    axes = _dims(None if full else dim, a.ndim)
    name = "SumBackward0" if dim is None else "SumBackward1"
    op = top("sum", name, "none", forward=_plain_sum)
    return apply(op, (x,), {"axis": axes, "keepdim": bool(keepdim) and not full,
                            "out_shape": _out_shape(a.shape, axes, bool(keepdim) and not full)})


def nansum(input, dim=None, keepdim=False):  # noqa: A002
    a = raw(input)
    return _wrap(np.asarray(np.nansum(a, axis=dim, keepdims=keepdim)).astype(a.dtype), True)


def _need_float(x, fname):
    dt = raw(x).dtype
    if dt.kind not in "fc" and dt != _bfloat16.BITS:
        name = _dtypes.from_np(dt).legacy
        raise RuntimeError(f"{fname}(): could not infer output dtype. Input dtype must be "
                           f"either a floating point or complex dtype. Got: {name}")


def mean(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    x = input
    if dtype is not None:
        x = to_dtype(x, _dtypes.to_np(dtype))
    _need_float(x, "mean")
    a = raw(x)
    full = dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0)
    axes = _dims(None if full else dim, a.ndim)
    name = "MeanBackward0" if dim is None else "MeanBackward1"
    op = top("mean", name, "none", forward=_plain_mean)
    kd = bool(keepdim) and not full
    return apply(op, (x,), {"axis": axes, "keepdim": kd,
                            "out_shape": _out_shape(a.shape, axes, kd)})


def _reduce_extreme(kind, input, dim, keepdim):  # noqa: A002
    from . import return_types

    a = raw(input)
    if dim is None:
        if a.size == 0:
            raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        name = "MaxBackward1" if kind == "max" else "MinBackward1"
        op = top(kind, name, "in0+out")
        axes = tuple(range(a.ndim))
        return apply(op, (input,), {"axis": axes, "keepdim": False, "out_shape": (),
                                    "ties": "split"})
    d = _dim(dim, a.ndim)
    if a.ndim == 0:
        idx = np.zeros((), np.int64)
    else:
        a = _bfloat16.values(a)  # (bfloat16's bits: the values)
        with np.errstate(invalid="ignore"):
            idx = np.argmax(a, axis=d) if kind == "max" else np.argmin(a, axis=d)
        if np.issubdtype(a.dtype, np.floating) and np.isnan(a).any():
            nan_pos = np.argmax(np.isnan(a), axis=d)
            idx = np.where(np.isnan(a).any(axis=d), nan_pos, idx)
    values = _pick_along(input, idx, d, keepdim,
                         "MaxBackward0" if kind == "max" else "MinBackward0")
    indices = _wrap(np.asarray(np.expand_dims(idx, d) if keepdim and a.ndim else idx,
                               np.int64), True)
    cls = return_types.max if kind == "max" else return_types.min
    return cls((values, indices))


def _pick_along(x, idx, d, keepdim, name):
    """x's values at ``idx`` along dim ``d``: one gather node named ``name`` (torch's
    MaxBackward0, SortBackward0, ...). ``idx`` has the reduced axis when ``keepdim``."""
    from ..engine.ops import fused  # noqa: F401  (registers select_along)

    a = raw(x)
    if a.ndim == 0:
        return apply(top("assign", name, "other"), (x,))
    ix = np.asarray(idx, np.int64)
    if not keepdim or ix.ndim < a.ndim:
        ix = np.expand_dims(ix, d)
    op = top("fused_select_along", name, "other", inputs=(0,))
    if op.vjp is not _pick_along_vjp and name not in ("CummaxBackward0", "CumminBackward0"):
        op.vjp = _pick_along_vjp   # (cummax/cummin: torch's scatter_add, the engine's rule)
    return apply(op, (x, _wrap(ix, True)), {"axis": d, "keepdim": bool(keepdim)})


def _pick_along_vjp(n, g):
    """torch's ``value_selecting_reduction_backward``: zeros with the gradient *scattered* (not
    added) at the indices, so a -0. gradient stays -0. (the engine's scatter-add onto zeros gave
    +0.: sort/topk/max(dim) of ``y * 0``-like products)."""
    from ..engine.ops.shape import reshape

    x_shape = n.in_meta[0][0]
    index = n.inputs[1]
    axis = n.attrs["axis"]
    if not n.attrs.get("keepdim", True):
        g = reshape(g, index.data.shape)
    zeros = EM.const(g, np.zeros(x_shape, g.data.dtype))
    scatter = top("put_along_axis", "ScatterBackward0", "none")
    return apply(scatter, (zeros, index, g), {"axis": int(axis)}), None


def max(input, dim=None, keepdim=False, *, out=None):  # noqa: A001,A002
    if isinstance(dim, EngineTensor):
        return maximum(input, dim)
    return _reduce_extreme("max", input, dim, keepdim)


def min(input, dim=None, keepdim=False, *, out=None):  # noqa: A001,A002
    if isinstance(dim, EngineTensor):
        return minimum(input, dim)
    return _reduce_extreme("min", input, dim, keepdim)


def amax(input, dim=(), keepdim=False):  # noqa: A002
    a = raw(input)
    axes = _dims(None if dim in ((), None) else dim, a.ndim)
    return apply(top("amax", "AmaxBackward0", "in0+out"), (input,),
                 {"axis": axes, "keepdim": keepdim,
                  "out_shape": _out_shape(a.shape, axes, keepdim), "ties": "split"})


def amin(input, dim=(), keepdim=False):  # noqa: A002
    a = raw(input)
    axes = _dims(None if dim in ((), None) else dim, a.ndim)
    return apply(top("amin", "AminBackward0", "in0+out"), (input,),
                 {"axis": axes, "keepdim": keepdim,
                  "out_shape": _out_shape(a.shape, axes, keepdim), "ties": "split"})


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    a = _bfloat16.values(raw(input))  # (bfloat16's bits: the values)
    if dim is None:
        return _wrap(np.asarray(np.argmax(a.reshape(-1)), np.int64), True)
    r = np.argmax(a, axis=_dim(dim, a.ndim))
    if keepdim:
        r = np.expand_dims(r, _dim(dim, a.ndim))
    return _wrap(np.asarray(r, np.int64), True)


def argmin(input, dim=None, keepdim=False):  # noqa: A002
    a = _bfloat16.values(raw(input))  # (bfloat16's bits: the values)
    if dim is None:
        return _wrap(np.asarray(np.argmin(a.reshape(-1)), np.int64), True)
    r = np.argmin(a, axis=_dim(dim, a.ndim))
    if keepdim:
        r = np.expand_dims(r, _dim(dim, a.ndim))
    return _wrap(np.asarray(r, np.int64), True)


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    x = input
    a = raw(x)
    if a.dtype.kind in "iub" and a.dtype != _bfloat16.BITS:
        x = _wrap(a.astype(np.int64), True)
        a = raw(x)
    axes = _dims(dim, a.ndim)
    name = "ProdBackward0" if dim is None else "ProdBackward1"
    kd = keepdim and dim is not None
    op = top("prod", name, "in0+out", forward=_plain_prod)
    if not getattr(op, "torch_prod_backward", False):   # torch's prod_backward (_prod_grad)
        from ._prod_grad import prod_vjp

        op.vjp, op.torch_prod_backward = prod_vjp(op.vjp), True
    return apply(op, (x,),
                 {"axis": axes, "keepdim": kd, "out_shape": _out_shape(a.shape, axes, kd)})


def _plain_prod(x, axis, keepdim=False, out_shape=None):
    from ._kernels import torch_prod   # torch's order for float dtypes

    out = torch_prod(x, axis)
    if out is not None:
        return np.reshape(out, out_shape if out_shape is not None
                          else _out_shape(x.shape, tuple(axis), keepdim))
    out = np.asarray(np.prod(x, axis=axis, keepdims=keepdim)).astype(x.dtype)
    return np.reshape(out, out_shape) if out_shape is not None else out


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    a = raw(input)
    axes = _dims(dim, a.ndim)
    return apply(top("logsumexp", "LogsumexpBackward0", "in0+out", forward=_logsumexp_fwd),
                 (input,), {"axis": axes, "keepdim": keepdim,
                            "out_shape": _out_shape(a.shape, axes, keepdim)})


def _logsumexp_fwd(x, axis, keepdim=False, out_shape=None):
    """torch's ``logsumexp_out_impl``: ``sum(exp(x - m)).log() + m`` with ``m = amax`` (an
    infinite max taken as 0), each step by torch's own kernels (its exp, its sum's order, its
    log). The engine's form (Paddle's functor) differed in the last bit: fast.ai's lesson
    compares a hand-written logsumexp with ``pred.logsumexp(-1)`` and prints the difference."""
    if x.dtype.kind != "f" or x.size == 0:
        return OPS["logsumexp"].forward(x, axis, keepdim, out_shape)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isinf(m), np.zeros((), x.dtype), m)
    with np.errstate(all="ignore"):
        e = exp._op.forward(np.subtract(x, m, dtype=x.dtype))
        total = _plain_sum(e, axis, keepdim=True)
        out = np.add(log._op.forward(total), m, dtype=x.dtype)
    if not keepdim:
        out = np.squeeze(out, axis=axis)
    return np.reshape(out, out_shape) if out_shape is not None else out


def var(input, dim=None, *, correction=1, keepdim=False, unbiased=None):  # noqa: A002
    if unbiased is not None:
        correction = 1 if unbiased else 0
    _need_float(input, "var")
    a = raw(input)
    axes = _dims(dim, a.ndim)
    return apply(top("fused_var", "VarBackward0", "in0"), (input,),
                 {"axis": axes, "keepdim": bool(keepdim), "correction": float(correction)})


def std(input, dim=None, *, correction=1, keepdim=False, unbiased=None):  # noqa: A002
    if unbiased is not None:
        correction = 1 if unbiased else 0
    _need_float(input, "std")
    a = raw(input)
    axes = _dims(dim, a.ndim)
    return apply(top("fused_std", "StdBackward0", "in0+out"), (input,),
                 {"axis": axes, "keepdim": bool(keepdim), "correction": float(correction)})


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):  # noqa: A002
    a = raw(input)
    if a.dtype.kind == "c":   # (torch's vector norm of complex values: of their magnitudes)
        return norm(abs(input), p, dim, keepdim, dtype)
    if p == "fro" or p == 2 or p is None:
        porder = 2.0
    elif p in ("inf", float("inf")):
        porder = np.inf
    else:
        porder = float(p)
    axes = _dims(dim, a.ndim)
    if porder == 2.0:
        return apply(top("fused_vector_norm2", "LinalgVectorNormBackward0", "in0+out",
                         forward=_norm2_forward), (input,),
                     {"axis": axes, "keepdim": bool(keepdim)})
    op = top("p_norm", "LinalgVectorNormBackward0", "in0+out", forward=_pnorm_forward)
    if not getattr(op, "torch_norm_backward", False):  # torch's norm_backward (_pnorm_grad)
        from ._pnorm_grad import pnorm_vjp

        op.vjp, op.torch_norm_backward = pnorm_vjp(op.vjp), True
    return apply(op, (input,), {"porder": porder, "axis": axes, "keepdim": bool(keepdim),
                                "out_shape": _out_shape(a.shape, axes, bool(keepdim)),
                                "epsilon": 0.0})


def _norm2_forward(x, axis, keepdim=False):
    """The 2-norm in torch's order (``_kernels.torch_norm``); other dtypes as the engine."""
    from ._kernels import torch_norm

    out = torch_norm(x, 2.0, axis)
    if out is None:
        return OPS["fused_vector_norm2"].forward(x, axis, keepdim)
    return np.reshape(out, _out_shape(x.shape, tuple(axis), keepdim)) if keepdim else out


def _pnorm_forward(x, porder, axis, keepdim=False, out_shape=None, epsilon=0.0, **kw):
    """A p-norm in torch's order (``_kernels.torch_norm``); inf norms/other dtypes: the engine."""
    from ._kernels import torch_norm

    out = torch_norm(x, porder, axis)
    if out is None:
        return OPS["p_norm"].forward(x, porder=porder, axis=axis, keepdim=keepdim,
                                     out_shape=out_shape, epsilon=epsilon, **kw)
    return np.reshape(out, out_shape if out_shape is not None
                      else _out_shape(x.shape, tuple(axis), keepdim))


def dist(input, other, p=2):  # noqa: A002
    a, b, _dt = _binary_prep(input, other)
    return apply(top("fused_dist", "DistBackward0", "all+out", forward=_dist_forward), (a, b),
                 {"p": float(p)})


def _dist_forward(x, y, p=2.0):
    """torch.dist is ``norm(x - y, p)``: the difference in the dtype, then torch's norm."""
    from ._kernels import torch_norm

    if x.dtype == y.dtype and x.dtype in (np.float32, np.float64):
        with np.errstate(all="ignore"):
            d = np.asarray(x - y)
        out = torch_norm(d, p, tuple(range(d.ndim)))
        if out is not None:
            return np.asarray(out, x.dtype)
    if x.dtype.kind == "c" or y.dtype.kind == "c":  # a complex difference's norm is real
        with np.errstate(all="ignore"):
            d = np.abs(np.asarray(x - y))
        return np.asarray(np.linalg.norm(d.ravel(), ord=p) if p != 0 else np.count_nonzero(d),
                          d.dtype)
    return OPS["fused_dist"].forward(x, y, p=p)


def cumsum(input, dim, *, dtype=None):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    x = input if a.dtype.kind in "fc" or a.dtype == _bfloat16.BITS else \
        _wrap(a.astype(np.int64), True)
    return apply(top("cumsum", "CumsumBackward0", "none", forward=_cumsum_forward), (x,),
                 {"axis": d})


def _cumsum_forward(x, axis=0, **kw):
    """torch's running sum in double for float dtypes (``_kernels.torch_cumsum``)."""
    from ._kernels import torch_cumsum

    out = torch_cumsum(x, axis) if not kw.get("reverse") and not kw.get("exclusive") else None
    out = OPS["cumsum"].forward(x, axis=axis, **kw) if out is None else out
    return out if out.flags.c_contiguous else np.ascontiguousarray(out)  # torch's: row-major


def _cumprod_forward(x, dim=0):
    """torch's running product: in double for float32 (``at::acc_type``), each step rounded
    back (real torch 2.13's bits; numpy's float32 product differed)."""
    if x.dtype == np.float32 or x.dtype == np.complex64:   # (complex<float>: complex<double>)
        return np.cumprod(x.astype(np.float64 if x.dtype == np.float32 else np.complex128),
                          axis=dim).astype(x.dtype)
    return np.cumprod(x, axis=dim, dtype=x.dtype)


def _cumprod_vjp(n, g):
    """torch's ``cumprod_backward`` without zeros in the input: the reversed running sum of
    ``output * grad``, divided by the input (linear time; the registry's Paddle loop was cubic
    in the length: 4,000 values never finished). With a zero, the registry's formula."""
    x = n.inputs[0]
    if np.any(raw(x) == 0) or raw(x).size <= 1:
        return OPS["cumprod"].vjp(n, g)
    d = n.attrs["dim"]
    w = EM.multiply(n.out(), g)
    return EM.divide(_reversed_cumsum(w, d), x)


def _reversed_cumsum(w, d):
    from ..engine.ops import shape as _shape_ops

    flipped = _shape_ops.flip(w, [d])
    return _shape_ops.flip(apply(top("cumsum", "CumsumBackward0", "none",
                                     forward=_cumsum_forward), (flipped,), {"axis": d}), [d])


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    d = _dim(dim, raw(input).ndim)
    op = top("cumprod", "CumprodBackward0", "in0+out", forward=_cumprod_forward)
    if getattr(op.vjp, "__wrapped__", op.vjp) is not _cumprod_vjp:
        op.vjp = _cumprod_vjp   # (complex values: engine/ops/complex's rule wraps it)
    return apply(op, (input,), {"dim": d})


def all(input, dim=None, keepdim=False):  # noqa: A001,A002
    a = raw(input)
    return _wrap(np.asarray(np.all(a, axis=dim, keepdims=keepdim)), True)


def any(input, dim=None, keepdim=False):  # noqa: A001,A002
    a = raw(input)
    return _wrap(np.asarray(np.any(a, axis=dim, keepdims=keepdim)), True)


def count_nonzero(input, dim=None):  # noqa: A002
    return _wrap(np.asarray(np.count_nonzero(raw(input), axis=dim), np.int64), True)


# ------------------------------------------------------------------------------ shapes
def _resolve_shape(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size "
                               f"{numel}")
        shape[shape.index(-1)] = numel // known
    total = 1
    for s in shape:
        total *= s
    if total != numel:
        raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")
    return tuple(int(s) for s in shape)


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _shape_args(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(int(s) for s in args[0])
    return tuple(int(s) for s in args)


def _viewable(a, shape):
    if a.flags.c_contiguous or a.size <= 1:
        return True
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        return False
    return True


VIEW = top("reshape", "ViewBackward0", "none")
RESHAPE_ALIAS = top("reshape", "ReshapeAliasBackward0", "none")


def view(input, *shape):  # noqa: A002
    if len(shape) == 1 and isinstance(shape[0], (_dtypes.dtype, type, str)):
        npd = _dtypes.to_np(shape[0])
        return _wrap(raw(input).view(npd), True)
    a = raw(input)
    shape = _resolve_shape(_shape_args(shape), a.size)
    if not _viewable(a, shape):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return apply(VIEW, (input,), {"shape": shape})


def reshape(input, *shape):  # noqa: A002
    a = raw(input)
    shape = _resolve_shape(_shape_args(shape), a.size)
    if _viewable(a, shape):  # ATen: view() of a contiguous input, else _reshape_alias
        return apply(VIEW if a.flags.c_contiguous or a.size <= 1 else RESHAPE_ALIAS,
                     (input,), {"shape": shape})
    c = apply(top("assign", "CloneBackward0", "none", forward=_clone_fwd), (input,))
    return apply(top("reshape", "UnsafeViewBackward0", "none"), (c,), {"shape": shape})


def view_as(input, other):  # noqa: A002
    return view(input, raw(other).shape)


def reshape_as(input, other):  # noqa: A002
    return reshape(input, raw(other).shape)


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    a = raw(input)
    if a.ndim == 0:
        return reshape(input, (1,))
    s, e = _dim(start_dim, a.ndim), _dim(end_dim, a.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    mid = 1
    for k in a.shape[s:e + 1]:
        mid *= k
    return reshape(input, a.shape[:s] + (mid,) + a.shape[e + 1:])


def unflatten(input, dim, sizes):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    sizes = _resolve_shape(sizes, a.shape[d])
    return view(input, a.shape[:d] + tuple(sizes) + a.shape[d + 1:])


def squeeze(input, dim=None):  # noqa: A002
    a = raw(input)
    if dim is None:
        axes = tuple(i for i, s in enumerate(a.shape) if s == 1)
        name = "SqueezeBackward0"
    elif isinstance(dim, (list, tuple)):
        axes = tuple(sorted({_dim(d, a.ndim) for d in dim if a.shape[_dim(d, a.ndim)] == 1}))
        name = "SqueezeBackward2"
    else:
        d = _dim(dim, a.ndim)
        axes = (d,) if a.ndim and a.shape[d] == 1 else ()
        name = "SqueezeBackward1"
    shape = tuple(s for i, s in enumerate(a.shape) if i not in axes)
    return apply(top("squeeze", name, "none"), (input,), {"axis": axes, "shape": shape})


def unsqueeze(input, dim):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim + 1)
    shape = a.shape[:d] + (1,) + a.shape[d:]
    return apply(top("unsqueeze", "UnsqueezeBackward0", "none"), (input,),
                 {"axis": (d,), "shape": shape})


def t(input):  # noqa: A002
    a = raw(input)
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    op = top("transpose", "TBackward0", "none")
    if op.vjp is not _t_vjp:
        op.vjp = _t_vjp
    if a.ndim < 2:
        return apply(op, (input,), {"perm": (0,)[:a.ndim]})
    return apply(op, (input,), {"perm": (1, 0)})


def _t_vjp(n, g):
    """TBackward0's formula ``grad.t()`` (under create_graph a TBackward0 node, as torch's)."""
    return t(g)


def transpose(input, dim0, dim1):  # noqa: A002
    a = raw(input)
    n = a.ndim
    d0, d1 = _dim(dim0, n), _dim(dim1, n)
    perm = list(range(n))
    if n:
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return apply(top("transpose", "TransposeBackward0", "none"), (input,), {"perm": tuple(perm)})


swapaxes = swapdims = transpose


def permute(input, *dims):  # noqa: A002
    a = raw(input)
    dims = _shape_args(dims)
    if len(dims) != a.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {a.ndim} is not equal to len(dims) = {len(dims)}")
    perm = tuple(_dim(d, a.ndim) for d in dims)
    return apply(top("transpose", "PermuteBackward0", "none"), (input,), {"perm": perm})


def movedim(input, source, destination):  # noqa: A002
    a = raw(input)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [_dim(s, a.ndim) for s in src]
    dst = [_dim(d, a.ndim) for d in dst]
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return apply(top("transpose", "PermuteBackward0", "none"), (input,), {"perm": tuple(order)})


moveaxis = movedim


def expand(input, *sizes):  # noqa: A002
    a = raw(input)
    sizes = list(_shape_args(sizes))
    if len(sizes) < a.ndim:
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(a.shape)}}}, size={sizes}): the "
                           "number of sizes provided (%d) must be greater or equal to the number "
                           "of dimensions in the tensor (%d)" % (len(sizes), a.ndim))
    lead = len(sizes) - a.ndim
    for i, s in enumerate(sizes):
        if s == -1:
            if i < lead:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a "
                                   "leading, non-existing dimension 0")
            sizes[i] = a.shape[i - lead]
    for i in range(a.ndim):
        if a.shape[i] != 1 and a.shape[i] != sizes[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({sizes[lead + i]}) must match "
                               f"the existing size ({a.shape[i]}) at non-singleton dimension "
                               f"{lead + i}.  Target sizes: {sizes}.  Tensor sizes: "
                               f"{list(a.shape)}")
    r = apply(top("expand", "ExpandBackward0", "none", forward=_storage.expand_fwd), (input,),
              {"shape": tuple(sizes)})
    r._alias = input  # a view: torch's strides (0 on the expanded dims), memory shared
    return r


def expand_as(input, other):  # noqa: A002
    return expand(input, raw(other).shape)


def broadcast_to(input, size):  # noqa: A002
    return expand(input, tuple(size))


def repeat(input, *sizes):  # noqa: A002
    a = raw(input)
    reps = _shape_args(sizes)
    if len(reps) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    return apply(top("tile", "RepeatBackward0", "none"), (input,), {"repeat_times": reps})


def tile(input, dims):  # noqa: A002
    reps = tuple(dims)
    a = raw(input)
    if len(reps) < a.ndim:
        reps = (1,) * (a.ndim - len(reps)) + reps
    return repeat(input, reps)


def cat(tensors, dim=0, *, out=None):
    ts = [t for t in tensors]
    if not ts:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    ts = [t for t in ts if not (raw(t).ndim == 1 and raw(t).size == 0)] or ts[:1]
    nd = raw(ts[0]).ndim
    if nd == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _dim(dim, nd)
    dt = _dtypes.result_type(*[t for t in ts]) if len(ts) > 1 else raw(ts[0]).dtype
    ts = [_operand(t, dt) for t in ts]
    for i, t in enumerate(ts[1:], 1):
        s0, s1 = raw(ts[0]).shape, raw(t).shape
        if len(s1) != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and "
                               f"{len(s1)}")
        for k in range(nd):
            if k != d and s0[k] != s1[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {s0[k]} but got size {s1[k]} for tensor "
                                   f"number {i} in the list.")
    return _out(apply(top("concat", "CatBackward0", "none", forward=_cat_fwd), tuple(ts),
                      {"axis": d}), out)


def _cat_fwd(*xs, axis):
    """torch's cat and stack allocate a contiguous result (numpy's follows the inputs' layout:
    stacking ``img.permute(2, 0, 1)`` views at dim 3 gave strides a ``view`` refused)."""
    return _storage.cat_layout(xs, np.concatenate(xs, axis=axis))


def _stack_fwd(*xs, axis):
    return _storage.cat_layout(xs, np.stack(xs, axis=axis))


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    ts = list(tensors)
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    s0 = raw(ts[0]).shape
    for i, t in enumerate(ts[1:], 1):
        if raw(t).shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(s0)} at entry 0 and {list(raw(t).shape)} at entry {i}")
    d = _dim(dim, len(s0) + 1)
    dt = _dtypes.result_type(*ts) if len(ts) > 1 else raw(ts[0]).dtype
    ts = [_operand(t, dt) for t in ts]
    return _out(apply(top("stack", "StackBackward0", "none", forward=_stack_fwd), tuple(ts),
                      {"axis": d}), out)


def hstack(tensors):
    return cat(tensors, 0 if raw(tensors[0]).ndim == 1 else 1)


def vstack(tensors):
    ts = [t if raw(t).ndim > 1 else unsqueeze(t, 0) for t in tensors]
    return cat(ts, 0)


def split(tensor, split_size_or_sections, dim=0):
    a = raw(tensor)
    d = _dim(dim, a.ndim)
    n = a.shape[d]
    if isinstance(split_size_or_sections, int):
        k = split_size_or_sections
        sections = [k] * (n // k) + ([n % k] if n % k else [])
        if not sections:
            sections = [0]
        name = "SplitBackward0"
    else:
        sections = list(split_size_or_sections)
        if _b.sum(sections) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={sections}")
        name = "SplitWithSizesBackward0"
    parts = apply(top("split", name, "none", forward=_storage.split_fwd), (tensor,),
                  {"sections": tuple(sections), "axis": d})
    for p in parts:  # views of tensor's memory, as torch's
        p._alias = tensor
    return tuple(parts)


def chunk(input, chunks, dim=0):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    n = a.shape[d]
    size = -(-n // chunks) if chunks else n
    return split(input, _b.max(size, 1), d)


def unbind(input, dim=0):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    parts = apply(top("unbind", "UnbindBackward0", "none", forward=_storage.unbind_fwd),
                  (input,), {"axis": d})
    for p in parts:  # views of input's memory, as torch's
        p._alias = input
    return tuple(parts)


def flip(input, dims):  # noqa: A002
    a = raw(input)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    axes = tuple(_dim(d, a.ndim) for d in dims)
    return apply(top("flip", "FlipBackward0", "none"), (input,), {"axis": axes})


def roll(input, shifts, dims=None):  # noqa: A002
    a = raw(input)
    if dims is None:
        flat = reshape(input, (-1,))
        r = apply(top("roll", "RollBackward0", "none"), (flat,),
                  {"shifts": (shifts,) if isinstance(shifts, int) else tuple(shifts),
                   "axis": (0,)})
        return view(r, a.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return apply(top("roll", "RollBackward0", "none"), (input,),
                 {"shifts": shifts, "axis": tuple(_dim(d, a.ndim) for d in dims)})


def narrow(input, dim, start, length):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    start = int(start) % a.shape[d] if int(start) < 0 else int(start)
    index = (slice(None),) * d + (slice(start, start + int(length)),)
    return apply(top("slice", "SliceBackward0", "none"), (input,), {"index": index})


def tril(input, diagonal=0):  # noqa: A002
    return apply(top("tril", "TrilBackward0", "none"), (input,), {"diagonal": diagonal})


def triu(input, diagonal=0):  # noqa: A002
    return apply(top("triu", "TriuBackward0", "none"), (input,), {"diagonal": diagonal})


def _clone_fwd(x):
    return np.array(x, order="C")


def _clone_keep_fwd(x):
    """torch's clone (``preserve_format``): a dense input's strides kept (``x.t().clone()``
    strides (1, 4)), an expanded one's made contiguous."""
    return np.array(x, order=_storage.copy_order(x))


def _format_fwd(name):
    def fwd(x):
        r = _storage.as_format(x, name)
        return np.array(r, order="K") if r is x else r  # a copy either way (clone)
    fwd.__name__ = f"_{name}_fwd"
    return fwd


_FORMAT_FWD = {n: _format_fwd(n) for n in ("channels_last", "channels_last_3d")}


def clone(input, *, memory_format=None):  # noqa: A002
    """``x.clone()``: torch's ``preserve_format`` keeps a dense input's strides;
    ``contiguous_format`` is row-major; ``channels_last`` NHWC (a wrong rank raises)."""
    name = "preserve_format" if memory_format is None else _storage.format_name(memory_format)
    fwd = _FORMAT_FWD.get(name)
    if fwd is not None:
        _storage.check_rank(raw(input), name)
    else:
        fwd = _clone_keep_fwd if name == "preserve_format" else _clone_fwd
    return apply(top("assign", "CloneBackward0", "none", forward=fwd), (input,))


def contiguous(input, memory_format=None):  # noqa: A002
    """``x.contiguous()``; ``memory_format=torch.channels_last``: laid out NHWC (as torch)."""
    name = None if memory_format is None else _storage.format_name(memory_format)
    fwd = _FORMAT_FWD.get(name)
    if fwd is not None:
        _storage.check_rank(raw(input), name)
        if _storage.is_contiguous_as(raw(input), name):
            return input
        return apply(top("assign", "CloneBackward0", "none", forward=fwd), (input,))
    if raw(input).flags.c_contiguous:
        return input
    return apply(top("assign", "CloneBackward0", "none", forward=_clone_fwd), (input,))


TO_COPY = top("cast", "ToCopyBackward0", "none")


def _discard_imaginary(npdtype):
    """torch's copy of complex values to a real dtype: TORCH_WARN_ONCE (not for bool)."""
    if npdtype.kind != "b":
        from ._ops_shape import _warn_once

        _warn_once("Casting complex values to real discards the imaginary part (Triggered "
                   "internally at /__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)")


def to_dtype(input, npdtype, copy=False):  # noqa: A002
    npdtype = np.dtype(npdtype)
    a = raw(input)
    if a.dtype == npdtype:
        if copy:
            return apply(TO_COPY, (input,), {"dtype": npdtype}) if not input.stop_gradient \
                else _wrap(np.array(a), True)
        return input
    if a.dtype.kind == "c" and npdtype.kind != "c":
        _discard_imaginary(npdtype)
        if npdtype.kind in "iub" or input.stop_gradient or not _STATE.enabled:
            with np.errstate(invalid="ignore", over="ignore"):
                return _wrap(np.array(a.real).astype(npdtype) if npdtype.kind != "b"
                             else a.astype(bool), True)
    if a.dtype == _bfloat16.BITS or npdtype == _bfloat16.BITS:  # bfloat16's bits: converted
        if input.stop_gradient or not _STATE.enabled or npdtype.kind in "iub" and \
                npdtype != _bfloat16.BITS:
            return _wrap(_bfloat16.astype(a, npdtype), True)
        return apply(_bfloat16.STORAGE.cast_op(TO_COPY), (input,), {"dtype": npdtype})
    if input.stop_gradient or not _STATE.enabled or npdtype.kind not in "fc":
        with np.errstate(invalid="ignore", over="ignore"):
            if npdtype == np.uint8 and a.dtype.kind == "f":
                # c10's cast to uint8 goes through int64 (TypeCast.h), so a negative float wraps
                # (-2. -> 254) on every CPU; numpy's direct cast saturates on aarch64 (0)
                return _wrap(a.astype(np.int64).astype(np.uint8), True)
            return _wrap(a.astype(npdtype, order=_storage.copy_order(a)), True)
    return apply(TO_COPY, (input,), {"dtype": npdtype})


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    a = raw(input)
    d1, d2 = _dim(dim1, a.ndim), _dim(dim2, a.ndim)
    if d1 == d2:
        return _gather(input, "DiagonalBackward0",
                       lambda arr: np.array(np.diagonal(arr, offset, dim1, dim2)))
    flat_idx = np.array(np.diagonal(np.arange(a.size).reshape(a.shape), offset, d1, d2))
    idx = tuple(np.unravel_index(flat_idx, a.shape))
    r = apply(top("index_elementwise_get", "DiagonalBackward0", "none",
                  forward=_storage.diagonal_fwd), (input,),
              {"index": idx, "view": (int(offset), d1, d2)})
    r._alias = input  # a view of input's memory, as torch's
    return r


def _gather(x, name, fn):
    """A selection of x's elements described by ``fn`` on an index array: one gather node."""
    a = raw(x)
    flat_idx = fn(np.arange(a.size).reshape(a.shape))
    idx = tuple(np.unravel_index(flat_idx, a.shape))
    return apply(top("index_elementwise_get", name, "none"), (x,), {"index": idx})


def diag(input, diagonal=0):  # noqa: A002
    a = raw(input)
    if a.ndim == 1:
        n = a.shape[0] + _b.abs(diagonal)
        out = np.zeros((n, n), a.dtype)
        idx = np.arange(a.shape[0])
        r, c = (idx, idx + diagonal) if diagonal >= 0 else (idx - diagonal, idx)
        if input.stop_gradient or not _STATE.enabled:
            out[r, c] = a
            return _wrap(out, True)
        z = _wrap(np.zeros((n, n), a.dtype), True)
        return apply(top("set_value_with_tensor", "DiagEmbedBackward0", "none", inputs=(1,)),
                     (z, input), {"index": (r, c)})
    return diagonal_copy(input, diagonal)


def diagonal_copy(input, offset=0):  # noqa: A002
    return _gather(input, "DiagonalBackward0_copy",
                         lambda arr: np.array(np.diagonal(arr, offset)))


def trace(input):  # noqa: A002
    if raw(input).ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim "
                           f"{raw(input).ndim}")
    return apply(top("fused_trace", "TraceBackward0", "none"), (input,))


def where(condition, input=None, other=None):  # noqa: A002
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    cond = raw(condition) if isinstance(condition, EngineTensor) else np.asarray(condition)
    dt = _dtypes.result_type(input, other)
    a, b = _operand(input, dt), _operand(other, dt)
    return apply(top("where", "WhereBackward0", "other", inputs=(1, 2)),
                 (_wrap(np.asarray(cond, bool), True), a, b))


def masked_fill(input, mask, value):  # noqa: A002
    a = raw(input)
    m = raw(mask) if isinstance(mask, EngineTensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_dtypes.from_np(m.dtype)}")
    v = raw(value) if isinstance(value, EngineTensor) else np.asarray(value)
    vt = const(v, a.dtype)
    return apply(top("masked_fill", "MaskedFillBackward0", "other", inputs=(0,),
                     forward=_masked_fill_fwd), (input, _wrap(m, True), vt))


def _masked_fill_fwd(*arrays, **attrs):
    """torch's out-of-place masked_fill: a row-major clone, then filled (numpy's result followed
    a transposed input's layout)."""
    out = OPS["masked_fill"].forward(*arrays, **attrs)
    return out if out.flags.c_contiguous else np.ascontiguousarray(out)


def nonzero(input, *, as_tuple=False):  # noqa: A002
    a = raw(input)
    nz = np.argwhere(a).astype(np.int64)
    if as_tuple:
        if a.ndim == 0:
            return (_wrap(np.nonzero(np.atleast_1d(a))[0].astype(np.int64), True),)
        return tuple(_wrap(np.ascontiguousarray(nz[:, i]), True) for i in range(a.ndim))
    return _wrap(nz.reshape(-1, a.ndim), True)


def gather(input, dim, index):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    idx = raw(index).astype(np.int64)
    if idx.ndim == 0 and a.ndim == 1:   # ATen's ensure_nonempty_dim: one value, a 0-d result
        return apply(top("index_elementwise_get", "GatherBackward0", "other"), (input,),
                     {"index": (idx,)})
    return apply(top("take_along_axis", "GatherBackward0", "other", inputs=(0,)),
                 (input, _wrap(idx, True)), {"axis": d})


def index_select(input, dim, index):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    idx = raw(index).astype(np.int64).reshape(-1)
    index_tuple = (slice(None),) * d + (idx,)
    return apply(top("index_elementwise_get", "IndexSelectBackward0", "other"), (input,),
                 {"index": index_tuple})


def take(input, index):  # noqa: A002
    flat = reshape(input, (-1,))
    idx = raw(index).astype(np.int64)
    return apply(top("index_elementwise_get", "TakeBackward0", "other"), (flat,),
                 {"index": (idx,)})


def sort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    from . import return_types

    a = _bfloat16.values(raw(input))  # (bfloat16's bits: the values)
    d = _dim(dim, a.ndim)
    if a.ndim and a.size:  # torch's CPU sort: std::sort (ties as libstdc++ leaves them)
        from ..engine.ops.search import _rows, _sort_row

        rows, back = _rows(a, d)
        idx = back(np.stack([_sort_row(r, descending, stable) for r in rows]))
    else:
        idx = np.zeros(a.shape, np.int64)
    values = _pick_along(input, idx, d, True, "SortBackward0")
    return return_types.sort((values, _wrap(np.asarray(idx, np.int64), True)))


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    return sort(input, dim, descending, stable)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    from . import return_types

    a = raw(input)
    d = _dim(dim, a.ndim)
    if not 0 <= k <= (a.shape[d] if a.ndim else 1):
        raise RuntimeError("selected index k out of range")
    idx = _selection.topk_indices(_bfloat16.values(a), k, d, largest, sorted)  # libstdc++'s ties
    values = _pick_along(input, idx, d, True, "TopkBackward0")
    return return_types.topk((values, _wrap(np.asarray(idx, np.int64), True)))


def median(input, dim=None, keepdim=False):  # noqa: A002
    from . import return_types

    a = raw(input)
    if dim is None:
        flat = np.sort(a.reshape(-1), kind="stable")
        k = (flat.size - 1) // 2
        pos = int(np.argsort(a.reshape(-1), kind="stable")[k])
        return apply(top("index_elementwise_get", "MedianBackward0", "other"), (input,),
                     {"index": tuple(int(i) for i in np.unravel_index(pos, a.shape))})
    d = _dim(dim, a.ndim)
    order = np.argsort(a, axis=d, kind="stable")
    k = (a.shape[d] - 1) // 2
    idx = np.take(order, k, axis=d)
    values = _pick_along(input, idx, d, keepdim, "MedianBackward1")
    ind = np.expand_dims(idx, d) if keepdim else idx
    return return_types.median((values, _wrap(np.asarray(ind, np.int64), True)))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    a = raw(input)
    u, inv, cnt = np.unique(a, return_inverse=True, return_counts=True)
    out = [_wrap(u, True)]
    if return_inverse:
        out.append(_wrap(inv.reshape(a.shape).astype(np.int64), True))
    if return_counts:
        out.append(_wrap(cnt.astype(np.int64), True))
    return out[0] if len(out) == 1 else tuple(out)


# ------------------------------------------------------------------------------ linear algebra
def _need_same_dtype(a, b, what):
    if raw(a).dtype != raw(b).dtype:
        da, db = _dtypes.from_np(raw(a).dtype), _dtypes.from_np(raw(b).dtype)
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_long_name(da)} != {_long_name(db)}")


def _long_name(d):
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "float16": "c10::Half", "bool": "bool", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}.get(d.name, d.name)


def _mm_op(name):
    """The dialect's matmul op copy for ``name`` (MmBackward0, MvBackward0, BmmBackward0)."""
    return _mm_grad.with_vjp(top("matmul", name, "cross", forward=_np_matmul), _mm_grad.mm_vjp)


def mm(input, mat2):  # noqa: A002
    if _bfloat16.AUTOCAST[0] is not None:
        input, mat2 = _bfloat16.lower(input, mat2)  # noqa: A001
    a, b = raw(input), raw(mat2)
    if a.ndim != 2:
        raise RuntimeError(f"self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]}"
                           f" and {b.shape[0]}x{b.shape[1]})")
    _need_same_dtype(input, mat2, "mm")
    return apply(_mm_op("MmBackward0"), (input, mat2))


def _small_gemm(x, y, init=None):
    """``init + x @ y`` accumulated one k at a time (the products rounded, then the sums), as
    torch's CPU BLAS computes small float32 products of contiguous matrices; None when the
    case is not one measured to match (then numpy's BLAS is used)."""
    if (x.ndim != 2 or y.ndim != 2 or x.dtype != np.float32 or y.dtype != np.float32
            or not x.flags.c_contiguous or not y.flags.c_contiguous):
        return None
    m, k = x.shape
    n = y.shape[1]
    if k > 32 or m * n > 4096 or k == 0:
        return None
    out = np.zeros((m, n), np.float32) if init is None else \
        np.array(np.broadcast_to(init, (m, n)), np.float32)
    for kk in range(k):
        out += x[:, kk:kk + 1] * y[kk:kk + 1, :]
    return out


def _np_matmul(x, y, transpose_x=False, transpose_y=False, out_shape=None):
    if transpose_x:
        x = np.swapaxes(x, -1, -2)
    if transpose_y:
        y = np.swapaxes(y, -1, -2)
    out = _mkl_matmul(x, y)
    if out is None:
        out = _small_gemm(x, y)
    if out is None:
        out = np.asarray(np.matmul(x, y))
    return np.reshape(out, out_shape) if out_shape is not None else out


def _one_by_one_sequential():
    """Whether a bmm of 1x1 results (m*k*n >= 400) sums as torch's own loop: real torch 2.13
    calls MKL's ?gemm_batch for it (MKL_VERBOSE: SGEMM_BATCH), which on MKL's AUTO path (AMD
    EPYC) gave the sequential loop's bits (measured, k 2000); on the AVX512_E1 path (Intel
    Sapphire Rapids) its own (k 700 and 2000: gradrepl's gemm_batch call equal, the loop not)."""
    from ..engine import mkl

    return mkl.branch() == "AUTO"


def _mkl_matmul(x, y):
    """``x @ y`` as torch's MKL BLAS computes it (``_gemm``): matrices and matrix @ vector by
    gemm, a batch one gemm per matrix (small ones by torch's own loop); None without MKL and
    for other dtypes."""
    g = _GEMM[0] or _lazy(_GEMM, "_gemm")   # (an import here costs ~10k instructions a call)
    gemm, gemm_batch, sequential_bmm = g.gemm, g.gemm_batch, g.sequential_bmm

    if x.ndim == 2 and y.ndim == 1:
        if (x.shape[0] == 1 and x.shape[1] > 1 and x.strides[1] == x.itemsize
                and x.strides[0] != x.itemsize):
            out = g.gemv_row(x, y)   # (addmv's gemv('t'): the row is the matrix)
            if out is not None:
                return out
        out = gemm(x, y[:, None])
        return None if out is None else out[:, 0]
    if x.ndim == 2 and y.ndim == 2:
        return gemm(x, y)
    if x.ndim == 3 and y.ndim == 3 and x.shape[0] == y.shape[0]:
        m, k, n = x.shape[1], x.shape[2], y.shape[2]
        if x.dtype == y.dtype and x.dtype in (np.float32, np.float64, np.complex64, np.complex128) and x.shape[0] and (
                m * k * n < 400 or (m == n == 1 and _one_by_one_sequential())):
            return sequential_bmm(x, y)
        if x.shape[0] == 1:  # one matrix: torch 2.13 calls ?gemm (MKL_VERBOSE), not the batch
            out = g.gemm_single(x, y)
            if out is not None:
                return out
        return gemm_batch(x, y)
    return None


def _addmm_fwd(bias, x, w):
    from ._gemm import gemm

    out = gemm(x, w, bias)
    if out is None:
        out = _small_gemm(x, w, bias)
    if out is None:
        out = np.asarray(bias + x @ w)
    return out


def mv(input, vec):  # noqa: A002
    a, b = raw(input), raw(vec)
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"1, {a.ndim}, {b.ndim}")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({b.shape[0]})")
    return apply(_mm_op("MvBackward0"), (input, vec))


def dot(input, other):  # noqa: A002
    a, b = raw(input), raw(other)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    _need_same_dtype(input, other, "dot")
    return apply(top("matmul", "DotBackward0", "cross", forward=_dot_fwd), (input, other))


def _dot_fwd(x, y, transpose_x=False, transpose_y=False, out_shape=None):
    """torch.dot's forward: MKL's ``?dot`` (``_gemm.dot``), without MKL its summation order
    (``_kernels.mkl_dot``)."""
    from ._gemm import dot as blas_dot
    from ._kernels import mkl_dot

    out = None
    if x.ndim == 1 and y.ndim == 1 and x.size:
        out = blas_dot(x, y)
        if out is None:
            out = mkl_dot(x, y)
    return _np_matmul(x, y, transpose_x, transpose_y, out_shape) if out is None else out


def inner(input, other):  # noqa: A002
    """torch.inner: ``dot`` for two vectors; otherwise the sum over both last dims (a scalar
    scales), out shape ``input.shape[:-1] + other.shape[:-1]``."""
    if input.dim() == 1 and other.dim() == 1:
        return dot(input, other)
    if input.dim() == 0 or other.dim() == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def tensordot(a, b, dims):
    from . import _ops_shape

    return _ops_shape.EXPORTS["tensordot"](a, b, dims)


def bmm(input, mat2):  # noqa: A002
    if _bfloat16.AUTOCAST[0] is not None:
        input, mat2 = _bfloat16.lower(input, mat2)  # noqa: A001
    a, b = raw(input), raw(mat2)
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    return apply(_mm_op("BmmBackward0"), (input, mat2))


def matmul(input, other):  # noqa: A002
    if _bfloat16.AUTOCAST[0] is not None:
        input, other = _bfloat16.lower(input, other)  # noqa: A001
    a, b = raw(input), raw(other)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return dot(input, other)
    if a.ndim == 2 and b.ndim == 1:
        return mv(input, other)
    if a.ndim == 1 and b.ndim == 2:
        if a.shape[0] != b.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({b.shape[1]}), mat ({b.shape[1]}x"
                               f"{b.shape[0]}), vec ({a.shape[0]})")
        out = mm(unsqueeze(input, 0), other)
        return apply(top("squeeze", "SqueezeBackward4", "none"), (out,),
                     {"axis": (0,), "shape": raw(out).shape[1:]})
    if a.ndim == 2 and b.ndim == 2:
        return mm(input, other)
    if a.ndim >= 3 and b.ndim <= 2:
        k = a.shape[-1]
        if b.ndim == 2 and b.shape[0] != k:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({int(np.prod(a.shape[:-1]))}x{k} and {b.shape[0]}x{b.shape[1]})")
        folded = reshape(input, (-1, k))
        if b.ndim == 1:
            out = mv(folded, other)
            shape = a.shape[:-1]
        else:
            out = mm(folded, other)
            shape = a.shape[:-1] + (b.shape[1],)
        return apply(top("reshape", "UnsafeViewBackward0", "none"), (out,), {"shape": shape})
    if b.ndim >= 3 and a.ndim <= 2 and _folds_other(input, other):
        return _matmul_folded_other(input, other)
    if b.ndim == 1:
        b2 = unsqueeze(other, 1)
        out = matmul(input, b2)
        return squeeze(out, -1)
    if a.ndim == 1:   # (torch: the vector unsqueezed inside, the result viewed to its shape)
        return _matmul_batched(unsqueeze(input, 0), other, drop_row=True)
    return _matmul_batched(input, other)


def _matmul_batched(input, other, drop_row=False):  # noqa: A002
    a, b = raw(input), raw(other)
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{int(np.prod(a.shape[:-2]))}, {a.shape[-1]}] but got: "
                           f"[{int(np.prod(b.shape[:-2]))}, {b.shape[-2]}].")
    # torch: both operands expanded to the common batch shape, reshaped to 3-D (a copy where
    # no view fits, e.g. Raschka's queries.transpose(1, 2)), one bmm, the result viewed back
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape[-3]}) must match the size of tensor "
                           f"b ({b.shape[-3]}) at non-singleton dimension 0") from None
    n_b = int(np.prod(batch)) if batch else 1
    ea = reshape(expand(input, batch + a.shape[-2:]), (n_b,) + a.shape[-2:])
    eb = reshape(expand(other, batch + b.shape[-2:]), (n_b,) + b.shape[-2:])
    out = bmm(ea, eb)
    shape = batch + ((b.shape[-1],) if drop_row else (a.shape[-2], b.shape[-1]))
    return apply(top("reshape", "UnsafeViewBackward0", "none"), (out,), {"shape": shape})


def _folds_other(input, other):  # noqa: A002
    """ATen's ``should_fold`` for a 1-D/2-D ``input`` times an N-D (N >= 3) ``other``: fold
    other^T into a matrix when input requires grad (no large tensor in the backward), else only
    where other^T views as one (never for a contiguous other) and input is 1-D."""
    a, b = raw(input), raw(other)
    if getattr(input, "requires_grad", False):
        return True
    if a.ndim == 2:
        return False
    if b.size == 0:
        return True
    t = np.swapaxes(b, -1, -2)
    return _b.all(t.strides[i] == t.strides[i + 1] * t.shape[i + 1] for i in range(t.ndim - 1))


def _matmul_folded_other(input, other):  # noqa: A002
    """_matmul_impl's fold with transpose: other^T folded to (prod(batch) * p, k), times input
    (mv for a vector, mm with input^T for a matrix), viewed back; a matrix product transposed
    back and made contiguous (torch's output.mT().contiguous())."""
    a, b = raw(input), raw(other)
    k = b.shape[-2]
    if a.shape[-1] != k:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{int(np.prod(b.shape[:-2]))}, {a.shape[-1]}] but got: "
                           f"[{int(np.prod(b.shape[:-2]))}, {k}].")
    t1 = transpose(other, -1, -2)
    out_shape = b.shape[:-2] + (b.shape[-1],)
    folded = reshape(t1, (int(np.prod(out_shape)), k))
    view = top("reshape", "UnsafeViewBackward0", "none")
    if a.ndim == 1:
        return apply(view, (mv(folded, input),), {"shape": out_shape})
    out = apply(view, (mm(folded, t(input)),), {"shape": out_shape + (a.shape[0],)})
    return contiguous(transpose(out, -1, -2))


def outer(input, vec2):  # noqa: A002
    return mul(view(input, (-1, 1)), vec2)


ger = outer


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    from ..engine.ops import fused  # noqa: F401

    if _bfloat16.AUTOCAST[0] is not None:
        input, mat1, mat2 = _bfloat16.lower(input, mat1, mat2)  # noqa: A001

    scaled = beta != 1 or alpha != 1
    if scaled and not _addmm_scaled_exact(input, mat1, mat2):
        return add(mul(input, beta), mul(mm(mat1, mat2), alpha))
    a, b = raw(mat1), raw(mat2)
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]}"
                           f" and {b.shape[0]}x{b.shape[1]})")
    if scaled:   # (alpha and beta inside MKL's gemm, as torch passes them; their VJP's products
        return apply(_mm_grad.with_vjp(top("fused_addmm", "AddmmBackward0", "cross12",  # scaled)
                                           forward=_addmm_scaled_fwd), _mm_grad.addmm_vjp,
                                       always=True),
                     (input, mat1, mat2), {"alpha": alpha, "beta": beta})
    return apply(_mm_grad.with_vjp(top("fused_addmm", "AddmmBackward0", "cross12",
                                     forward=_addmm_fwd), _mm_grad.addmm_vjp),
                 (input, mat1, mat2))


def _addmm_scaled_exact(input, mat1, mat2):  # noqa: A002
    """Whether addmm with alpha/beta runs as torch's one node (AddmmBackward0): two real float
    matrices of one dtype and a bias of it (else the sum of the scaled parts)."""
    a, b, c = raw(mat1), raw(mat2), raw(input)
    return a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype == c.dtype \
        and a.dtype in (np.float32, np.float64) and c.ndim <= 2


def _addmm_scaled_fwd(bias, x, w, alpha=1, beta=1):
    """torch's one gemm call with alpha and beta inside (MKL's, as torch's x86-64 wheels);
    without MKL (the lean install, aarch64) the same sum by numpy: last bits may differ, the
    node and the signs of zeros do not (beta 0: the bias is not read, as gemm's)."""
    from . import _mkl

    if _mkl.available():
        from ._gemm import gemm

        return gemm(x, w, bias, float(alpha), float(beta))
    out = np.matmul(x, w)
    if alpha != 1:
        out = out * x.dtype.type(alpha)
    if beta != 0:
        out = out + (bias if beta == 1 else bias * x.dtype.type(beta))
    return np.broadcast_to(out, np.broadcast_shapes(out.shape, bias.shape)).astype(x.dtype)


def _sublist_equation(args):
    """``einsum(A, [0, 1], B, [1, 2], [0, 2])`` (torch's sublist form) as ``(equation,
    operands)``: each integer a letter, ``...`` the ellipsis."""
    def letters(sub):
        return "".join("..." if s is Ellipsis else
                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[s] for s in sub)

    out = None
    if len(args) % 2 == 1:  # (operand, sublist) pairs, then the output's sublist
        out, args = args[-1], args[:-1]
    operands, subs = list(args[0::2]), list(args[1::2])
    equation = ",".join(letters(s) for s in subs)
    if out is not None:
        equation += "->" + letters(out)
    return equation, tuple(operands)


def einsum(equation, *operands):
    if not isinstance(equation, str):
        equation, operands = _sublist_equation((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if _b.any(raw(o).dtype == _bfloat16.BITS for o in operands):   # bfloat16: in float,
        return _einsum_graph(equation, operands)                      # rounded (the hook)
    from ._einsum import einsum as aten_einsum

    return aten_einsum(equation, tuple(operands))  # ATen's permutes, sums and bmm


def _einsum_graph(equation, operands):
    from ..engine.ops import fused  # noqa: F401

    return apply(top("fused_einsum", "EinsumBackward0", "all"), tuple(operands),
                 {"equation": equation})


def kron(input, other):  # noqa: A002
    a, b = raw(input), raw(other)
    nd = _b.max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    ea = tuple(x for s_ in sa for x in (s_, 1))
    eb = tuple(x for s_ in sb for x in (1, s_))
    prod_ = mul(reshape(input, ea), reshape(other, eb))
    shape = tuple(p * q for p, q in zip(sa, sb))
    return apply(top("reshape", "UnsafeViewBackward0", "none"), (prod_,), {"shape": shape})


def cross(input, other, dim=None):  # noqa: A002
    a = raw(input)
    d = _dim(-1 if dim is None else dim, a.ndim)
    return apply(top("cross", "LinalgCrossBackward0", "all"), (input, other), {"axis": d})


def inverse(input):  # noqa: A002
    return apply(top("inverse", "LinalgInvExBackward0", "out"), (input,))


def det(input):  # noqa: A002
    return apply(top("determinant", "LinalgDetBackward0", "all+out"), (input,))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):  # noqa: A002
    """Each element repeated: torch's unsqueeze, expand, clone and view (or an index_select
    for a tensor of counts)."""
    if repeats is None:  # repeat_interleave(counts): indices
        counts = raw(input).astype(np.int64)
        return _wrap(np.repeat(np.arange(counts.size), counts).astype(np.int64), True)
    x = input
    if dim is None:
        x = reshape(x, (-1,))
        dim = 0
    a = raw(x)
    d = _dim(dim, a.ndim)
    if isinstance(repeats, EngineTensor) and raw(repeats).size != 1:
        idx = np.repeat(np.arange(a.shape[d]), raw(repeats).astype(np.int64))
        return index_select(x, d, _wrap(idx, True))
    r = int(raw(repeats)) if isinstance(repeats, EngineTensor) else int(repeats)
    u = unsqueeze(x, d + 1)
    shape = list(raw(u).shape)
    shape[d + 1] = r
    e = clone(expand(u, tuple(shape)))
    out = list(a.shape)
    out[d] *= r
    return view(e, tuple(out))


def masked_select(input, mask):  # noqa: A002
    m = raw(mask) if isinstance(mask, EngineTensor) else np.asarray(mask)
    return apply(top("masked_select", "MaskedSelectBackward0", "other", inputs=(0,)),
                 (input, _wrap(np.asarray(m, bool), True)))


def take_along_dim(input, indices, dim=None):  # noqa: A002
    if dim is None:  # torch: self.view(-1).gather(0, indices.view(-1))
        return gather(reshape(input, (-1,)), 0, _wrap(raw(indices).reshape(-1), True))
    a, ix = raw(input), raw(indices).astype(np.int64)
    d = _dim(dim, a.ndim)
    shape = list(np.broadcast_shapes(a.shape[:d] + (1,) + a.shape[d + 1:],
                                     ix.shape[:d] + (1,) + ix.shape[d + 1:]))
    xs = list(shape)
    xs[d] = a.shape[d]
    xi = expand(input, tuple(xs))
    shape[d] = ix.shape[d]
    return gather(xi, d, _wrap(np.broadcast_to(ix, shape).copy(), True))


def tensor_split(input, indices_or_sections, dim=0):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    n = a.shape[d]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        bounds = np.cumsum([0] + sizes)
    else:
        bounds = [0] + [_b.min(int(i), n) for i in _arr(indices_or_sections).reshape(-1)] + [n]
    return tuple(narrow(input, d, int(bounds[i]), int(bounds[i + 1] - bounds[i]))
                 for i in range(len(bounds) - 1))


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    x = input
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, x, append) if t is not None]
        x = cat(parts, dim)
    for _ in range(n):
        a = raw(x)
        d = _dim(dim, a.ndim)
        k = a.shape[d]
        x = sub(narrow(x, d, 1, k - 1), narrow(x, d, 0, k - 1))
    return x


def logaddexp(input, other):  # noqa: A002
    a, b, _dt = _binary_prep(input, other)
    return apply(top("fused_logaddexp", "LogaddexpBackward0", "all+out",
                     forward=_logaddexp_fwd), (a, b))


def _logaddexp_fwd(a, b, **kw):
    from ._elementwise_more import logaddexp as torch_logaddexp   # SLEEF blocks, glibc tail

    out = torch_logaddexp(a, b)
    return OPS["fused_logaddexp"].forward(a, b, **kw) if out is None else out


def argwhere(input):  # noqa: A002
    return nonzero(input)


def aminmax(input, *, dim=None, keepdim=False):  # noqa: A002
    from . import return_types

    return return_types.aminmax((amin(input, () if dim is None else dim, keepdim),
                                 amax(input, () if dim is None else dim, keepdim)))


_unary_grads.install_late(_sys.modules[__name__])  # expand, logsumexp: torch's formulas
