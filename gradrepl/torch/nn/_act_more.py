"""torch.nn activations beyond ``modules``: CELU, GLU, Threshold, Tanhshrink, Softshrink,
Hardshrink, PReLU, RReLU, Softmax2d, and their functional forms (``celu``, ``glu``,
``threshold``, ``rrelu`` with torch's draws, ``gumbel_softmax`` ...)."""
from __future__ import annotations

import numpy as np

from ...engine.ops import _kernels as K
from ...engine.ops.nn_more import zeroing_hardshrink
from .. import _activation_kernels, _dtypes, _ops, _random
from .._base import raw
from .._inplace import inplace as _inplace
from .._ops import top
from .._tensor import Tensor
from . import _more_common as C
from .modules import Module
from .parameter import Parameter

_wrap = Tensor._wrap


# ------------------------------------------------------------------------------ celu
def _celu_fwd(x, alpha=1.0):
    """torch's elu kernel with input_scale 1/alpha: ``x > 0 ? x : expm1(x * (1/alpha)) * alpha``
    (the coefficients as float32)."""
    if x.dtype.kind not in "fc":
        x = x.astype(_dtypes.default_float())
    dt = x.dtype
    inv = np.asarray(1.0 / alpha, dt)
    a = np.asarray(alpha, dt)
    if dt == np.float32:   # SLEEF / C library by TensorIterator's blocks of x's own layout
        from .. import _tensor_iter

        def k(expm1):
            return lambda v: np.where(v > 0, v, (expm1((v * inv).astype(dt)) * a).astype(dt))
        with np.errstate(all="ignore"):
            return _tensor_iter.run(k(C.sleef_expm1f), k(K.libm("expm1", np.expm1)),
                                    x).astype(dt)
    if dt == np.float64:   # torch's double kernel (_sigmoid64.elu)
        from .. import _sigmoid64

        return _sigmoid64.elu(x, float(alpha), 1.0, 1.0 / alpha)
    with np.errstate(all="ignore"):
        neg = C.expm1_32(x * inv) * a
    return np.where(x > 0, x, neg).astype(dt)


def _celu_grad_fwd(x, g, alpha=1.0):
    """torch's ``elu_backward`` (input form) for celu: ``g * (1/alpha) * alpha *
    exp(x * (1/alpha))`` where x <= 0, ``g`` elsewhere, the coefficients as the dtype."""
    dt = x.dtype
    inv, a = np.asarray(1.0 / alpha, dt), np.asarray(alpha, dt)
    if dt == np.float32 and np.result_type(g) == np.float32:
        from .. import _tensor_iter

        def k(exp):
            return lambda gv, v: np.where(v > 0, gv, ((gv * inv).astype(dt) * a).astype(dt)
                                          * exp((v * inv).astype(dt))).astype(dt)
        with np.errstate(all="ignore"):
            return _tensor_iter.run(k(C.sleef_expf), k(K.libm("exp", np.exp)), g, x).astype(dt)
    if dt == np.float64 and np.result_type(g) == np.float64:   # torch's double kernel
        from .. import _sigmoid64

        # derivatives.yaml: input_scale 1.0 / alpha.toFloat() (alpha through float)
        return _sigmoid64.elu_backward(g, x, float(alpha), 1.0,
                                       1.0 / float(np.float32(alpha)))
    with np.errstate(all="ignore"):
        neg = ((g * inv).astype(dt) * a).astype(dt) * C.vec_exp32((x * inv).astype(dt))
    return np.where(x > 0, g, neg).astype(dt)


def _celu_grad_vjp(n, gg):
    x, g = n.inputs
    alpha = n.attrs.get("alpha", 1.0)
    d_g = C.run(_CELU_GRAD, (x, gg), {"alpha": alpha}) if not g.stop_gradient else None
    d_x = None
    if not x.stop_gradient:
        e = _ops.exp(_ops.mul(x, 1.0 / alpha))
        d_x = C.keep_where(_ops.mul(_ops.mul(gg, g), _ops.mul(e, 1.0 / alpha)), raw(x) <= 0)
    return d_x, d_g


_CELU_GRAD = C.op("EluBackwardBackward0", _celu_grad_fwd, _celu_grad_vjp)


def _celu_vjp(n, g):
    return C.run(_CELU_GRAD, (n.inputs[0], g), {"alpha": n.attrs.get("alpha", 1.0)})


_CELU0 = C.op("CeluBackward0", _celu_fwd, _celu_vjp, "in0")
_CELU1 = C.op("CeluBackward1", _celu_fwd, _celu_vjp, "out")


def celu(input, alpha=1.0, inplace=False):  # noqa: A002
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    if inplace:
        return celu_(input, alpha)
    return C.run(_CELU0, (C.float_of(input),), {"alpha": float(alpha)})


def celu_(input, alpha=1.0):  # noqa: A002
    return _inplace(input, lambda s: C.run(_CELU1, (s,), {"alpha": float(alpha)}))


# ------------------------------------------------------------------------------ elu_ & co
def _F():
    from . import functional as F

    return F


def _op1(base, name):
    return top(base, name, "out")


def elu_(input, alpha=1.0):  # noqa: A002
    return _inplace(input, lambda s: C.run(_op1("elu", "EluBackward1"), (s,),
                                           {"alpha": float(alpha)}))


def selu_(input):  # noqa: A002
    return _inplace(input, lambda s: C.run(_op1("selu", "EluBackward1"), (s,)))


def leaky_relu_(input, negative_slope=0.01):  # noqa: A002
    return _inplace(input, lambda s: C.run(_op1("leaky_relu", "LeakyReluBackward1"), (s,),
                                           {"negative_slope": float(negative_slope)}))


def hardtanh_(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    return _inplace(input, lambda s: _F().hardtanh(s, min_val, max_val))


# ------------------------------------------------------------------------------ glu
def _glu_fwd(x, dim=-1):
    """``a * (1 / (1 + exp(-b)))`` as torch's kernel: the halves iterate in rows of
    ``h * prod(shape[dim+1:])`` elements (the dims before ``dim`` do not coalesce), each row
    with SLEEF's exp on whole blocks of two AVX-512 vectors and the C library's on the rest."""
    h = x.shape[dim] // 2
    a = np.take(x, np.arange(h), axis=dim)
    b = np.take(x, np.arange(h, 2 * h), axis=dim)
    one = np.ones((), x.dtype)
    rows = int(np.prod(x.shape[:dim], dtype=np.int64))
    nb = (-b).reshape(rows, -1) if b.size else (-b)
    with np.errstate(all="ignore"):
        if x.dtype == np.float32 and b.size:
            L = nb.shape[1]
            cut = L // 32 * 32
            e = np.empty_like(nb)
            e[:, :cut] = C.sleef_expf(nb[:, :cut])
            e[:, cut:] = C.exp32(np.ascontiguousarray(nb[:, cut:]))
            e = e.reshape(b.shape)
        else:
            e = C.exp32(-b)
        return (a * (one / (one + e))).astype(x.dtype)


def _glu_vjp(n, g):
    x = n.inputs[0]
    dim = n.attrs["dim"]
    h = raw(x).shape[dim] // 2
    a = _ops.narrow(x, dim, 0, h)
    b = _ops.narrow(x, dim, h, h)
    s = _ops.sigmoid(b)
    ga = _ops.mul(g, s)
    # glu_backward_cpu_out: (1 - s) * s * a * grad, in that order (Activation.cpp)
    gb = _ops.mul(_ops.mul(_ops.mul(_ops.rsub(s, 1), s), a), g)
    return _ops.cat([ga, gb], dim)


_GLU = C.op("GluBackward0", _glu_fwd, _glu_vjp, "in0")


def glu(input, dim=-1):  # noqa: A002
    a = raw(input)
    if a.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % a.ndim
    if a.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{a.shape[d]}")
    return C.run(_GLU, (input,), {"dim": d})


# ------------------------------------------------------------------------------ threshold
def _threshold_fwd(x, threshold=0.0, value=0.0):
    t = np.asarray(threshold).astype(x.dtype)
    v = np.asarray(value).astype(x.dtype)
    return np.where(x <= t, v, x).astype(x.dtype)


def _masked_backward(torch_name, keep):
    """torch's ``x_backward(grad, self, ...)`` of a piecewise-linear activation as an op of its
    own (node ``torch_name``, e.g. ThresholdBackwardBackward0): grad where ``keep(x, attrs)``,
    +0 elsewhere; its gradient is itself for grad and zeros for self (derivatives.yaml). So
    create_graph gradients and forward-AD tangents carry torch's node and follow self."""
    def fwd(g, x, **attrs):
        return np.where(keep(x, attrs), g, np.zeros((), g.dtype)).astype(g.dtype, copy=False)

    def vjp(n, G):
        x = n.inputs[1]
        return C.run(op, (G, x), dict(n.attrs)), _ops.const(np.zeros_like(raw(x)), raw(x).dtype)
    op = C.op(torch_name, fwd, vjp, "all")
    return op


def _threshold_keep(x, attrs):
    return x > np.asarray(attrs["threshold"]).astype(x.dtype)


_THR_GRAD = _masked_backward("ThresholdBackwardBackward0", _threshold_keep)


def _threshold_vjp(n, g):
    return C.run(_THR_GRAD, (g, n.inputs[0]), {"threshold": n.attrs["threshold"]})


_THR0 = C.op("ThresholdBackward0", _threshold_fwd, _threshold_vjp, "in0")
_THR1 = C.op("ThresholdBackward1", _threshold_fwd, _threshold_vjp, "out")


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    if inplace:
        return threshold_(input, threshold, value)
    return C.run(_THR0, (input,), {"threshold": threshold, "value": value})


def threshold_(input, threshold, value):  # noqa: A002
    return _inplace(input, lambda s: C.run(_THR1, (s,), {"threshold": threshold,
                                                         "value": value}))


# ------------------------------------------------------------------------------ shrinks
def tanhshrink(input):  # noqa: A002
    return _ops.sub(input, _ops.tanh(input))


def _lambd_check(lambd):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")


def _shrink_keep(x, attrs):
    t = np.asarray(attrs["threshold"], x.dtype)
    return (x > t) | (x < -t)


_SHRINK_GRADS = {name: _masked_backward(name, _shrink_keep) for name in
                 ("SoftshrinkBackwardBackward0", "HardshrinkBackwardBackward0")}


def _shrink_vjp(n, g):
    name = getattr(n.op, "torch_name", "SoftshrinkBackward0").replace("Backward0",
                                                                        "BackwardBackward0")
    grad = _SHRINK_GRADS.get(name)
    if grad is None:  # (another op sharing this VJP: the plain masked gradient)
        x = raw(n.inputs[0])
        return C.keep_where(g, _shrink_keep(x, n.attrs))
    return C.run(grad, (g, n.inputs[0]), {"threshold": n.attrs["threshold"]})


def _shrink_op(base, name):
    from ...engine.registry import OPS

    return C.op(name, OPS[base].forward, _shrink_vjp, "in0")


_SOFTSHRINK = _shrink_op("softshrink", "SoftshrinkBackward0")
_activation_kernels.wire_softshrink(_SOFTSHRINK)  # torch's float32 forward kernel
# +0. inside the band (the registry's hardshrink is Paddle's x * mask: -0. for a negative x)
_HARDSHRINK = C.op("HardshrinkBackward0", zeroing_hardshrink, _shrink_vjp, "in0")


def softshrink(input, lambd=0.5):  # noqa: A002
    _lambd_check(lambd)
    return C.run(_SOFTSHRINK, (C.float_of(input),), {"threshold": float(lambd)})


def hardshrink(input, lambd=0.5):  # noqa: A002
    return C.run(_HARDSHRINK, (C.float_of(input),), {"threshold": float(lambd)})


# ------------------------------------------------------------------------------ prelu
def _prelu_vjp(n, g):
    """``_prelu_kernel_backward``: grad where x > 0 else weight * grad; the weight's gradient
    x * grad where x <= 0 (+0 elsewhere) over the input's shape, then at::sum_to's one sum
    over the broadcast dims (torch's sum order: the engine's sum_to summed another way, the
    last bits differed)."""
    from ...engine.ops import nn_more as NM

    x, w = n.inputs
    mode, fmt = n.attrs.get("mode", "all"), n.attrs.get("data_format", "NCHW")
    dx, _dw = NM._prelu_vjp(n, g)
    xa = raw(x)
    neg = _ops.const((xa <= 0).astype(xa.dtype), xa.dtype)
    gw = _ops.where(_ops.const(xa > 0, np.bool_), _ops.const(0.0, xa.dtype),
                    _ops.mul(_ops.mul(x, g), neg))
    bshape = NM._prelu_shape(xa.shape, raw(w).size, mode, fmt)
    axes = [i for i, s in enumerate(bshape) if s == 1 and xa.shape[i] != 1] \
        if len(bshape) == xa.ndim else list(range(xa.ndim))
    if axes:
        gw = _ops.sum(gw, axes, keepdim=True)
    return dx, _ops.reshape(gw, raw(w).shape)


def _prelu_op():
    op = top("prelu", "PreluKernelBackward0", "all")
    if not getattr(op, "torch_prelu", False):
        op.vjp, op.torch_prelu = _prelu_vjp, True
    return op


def prelu(input, weight):  # noqa: A002
    a, w = raw(input), raw(weight)
    if w.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {w.ndim}")
    if w.size != 1:
        ch = a.shape[1] if a.ndim >= 2 else (a.shape[0] if a.ndim == 1 else 1)
        if a.ndim == 0 or w.size != ch:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {w.size} and channel size = {ch}.")
    mode = "all" if w.size == 1 else "channel"
    if mode == "channel" and a.ndim == 1:
        x2 = _ops.unsqueeze(input, 0)
        out = C.run(_prelu_op(), (x2, weight),
                    {"mode": mode, "data_format": "NCHW"})
        return _ops.squeeze(out, 0)
    return C.run(_prelu_op(), (input, weight),
                 {"mode": mode, "data_format": "NCHW"})


# ------------------------------------------------------------------------------ rrelu
def _rrelu_fwd(x, noise=None):
    return (x * noise).astype(x.dtype)


def _rrelu_vjp(n, g):
    return _ops.mul(g, _wrap(n.attrs["noise"], True))


_RRELU0 = C.op("RreluWithNoiseBackward0", _rrelu_fwd, _rrelu_vjp, "in0")
_RRELU1 = C.op("RreluWithNoiseBackward1", _rrelu_fwd, _rrelu_vjp, "out")


def _rrelu_noise(a, lower, upper, training, generator=None):
    """torch's ``rrelu_with_noise`` noise: training, one uniform double in [lower, upper) per
    element <= 0, in order (bounds first as float32); else the mean slope."""
    dt = a.dtype
    if not training:
        slope = np.asarray((float(lower) + float(upper)) / 2, dt)
        return np.where(a > 0, np.ones((), dt), slope).astype(dt)
    lo = float(np.float32(lower)) if dt == np.float32 else float(lower)
    hi = float(np.float32(upper)) if dt == np.float32 else float(upper)
    noise = np.ones(a.shape, dt)
    flat = a.reshape(-1)
    neg = np.nonzero(flat <= 0)[0]
    if neg.size:
        u = _random.uniform((neg.size,), np.dtype(np.float64), lo, hi, generator)
        nf = noise.reshape(-1)
        nf[neg] = u.astype(dt)
    return noise


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):  # noqa: A002
    if inplace:
        return rrelu_(input, lower, upper, training)
    x = C.float_of(input)
    noise = _rrelu_noise(raw(x), lower, upper, training)
    return C.run(_RRELU0, (x,), {"noise": noise})


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):  # noqa: A002
    noise = _rrelu_noise(raw(input), lower, upper, training)
    return _inplace(input, lambda s: C.run(_RRELU1, (s,), {"noise": noise}))


# ------------------------------------------------------------------------------ gumbel
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    import warnings

    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    from .. import _creation

    e = _creation.empty_like(logits)
    e.exponential_()
    gumbels = _ops.neg(_ops.log(e))
    gumbels = _ops.div(_ops.add(logits, gumbels), tau)
    y_soft = _F().softmax(gumbels, dim)
    if hard:
        index = _ops.max(y_soft, dim, keepdim=True)[1]
        y_hard = _creation.zeros_like(logits)
        y_hard.scatter_(dim, index, 1.0)
        return _ops.add(_ops.sub(y_hard, y_soft.detach()), y_soft)
    return y_soft


# ------------------------------------------------------------------------------ modules
def _inpl(s):
    return ", inplace=True" if s.inplace else ""


class CELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + _inpl(self)


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return globals()["threshold"](input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + _inpl(self)


class Tanhshrink(Module):
    def forward(self, input):  # noqa: A002
        return tanhshrink(input)


class Softshrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):  # noqa: A002
        return softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):  # noqa: A002
        return hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        dt = _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()
        self.weight = Parameter(_wrap(np.full(num_parameters, init, dt)))

    def reset_parameters(self):
        raw(self.weight)[...] = self.init

    def forward(self, input):  # noqa: A002
        return prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + _inpl(self)


class Softmax2d(Module):
    def forward(self, input):  # noqa: A002
        nd = raw(input).ndim
        if nd not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {nd}D instead")
        return _F().softmax(input, -3)


__all__ = ["CELU", "GLU", "Threshold", "Tanhshrink", "Softshrink", "Hardshrink", "PReLU",
           "RReLU", "Softmax2d"]
C.name_classes("torch.nn.modules.activation", [globals()[n] for n in __all__])

FUNCTIONAL = {
    "celu": celu, "celu_": celu_, "glu": glu, "threshold": threshold, "threshold_": threshold_,
    "tanhshrink": tanhshrink, "softshrink": softshrink, "hardshrink": hardshrink,
    "prelu": prelu, "rrelu": rrelu, "rrelu_": rrelu_, "gumbel_softmax": gumbel_softmax,
    "elu_": elu_, "selu_": selu_, "leaky_relu_": leaky_relu_, "hardtanh_": hardtanh_,
}
