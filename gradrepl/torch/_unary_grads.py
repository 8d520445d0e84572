"""Backward formulas of torch's elementwise functions, as ``tools/autograd/derivatives.yaml``
writes them, each step one of the dialect's own ops (so ``cos`` in ``sin``'s backward is torch's
cos kernel, not the engine's).

The engine's VJPs compute the same mathematics with its own kernels and in other orders
(``g * (1 / (1 + x))`` for ``grad / (self + 1)``): the last bits of ``x.grad`` differed from torch
for sin, cos, sinh, cosh, erf, log1p, rsqrt, expm1, reciprocal and atan.
"""
from __future__ import annotations

import math

import numpy as np


def _real(dt):
    """A real floating dtype: numpy's, or uint16 (the dialect's bfloat16 bits)."""
    return dt.kind == "f" or dt == np.uint16


def _formulas(O):
    """name -> vjp(node, grad), with ``O`` the dialect's ``_ops`` module."""
    from ..engine.ops import math as EM

    def x(n):
        return n.inputs[0]

    def c(g, v):  # a Python double as the scalar operand of a float op: torch casts it
        return O.const(v, g.data.dtype)

    def cm(g, v):  # the same as the second operand of a mul (bfloat16: kept in float, opmath)
        return O.const(v, np.dtype(np.float32) if g.data.dtype == np.uint16 else g.data.dtype)

    def mul1(t, v):
        return _mul1(O, t, v)

    return {
        # self: grad * self.cos().conj()
        "sin": lambda n, g: EM.multiply(g, O.cos(x(n))),
        # self: grad * -self.sin().conj()
        "cos": lambda n, g: EM.multiply(g, EM.neg(O.sin(x(n)))),
        "sinh": lambda n, g: EM.multiply(g, O.cosh(x(n))),
        "cosh": lambda n, g: EM.multiply(g, O.sinh(x(n))),
        # self: 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
        "erf": lambda n, g: EM.multiply(
            EM.multiply(O.exp(EM.neg(EM.multiply(x(n), x(n)))),
                        cm(g, 2.0 / math.sqrt(math.pi))), g),
        # log1p_backward: grad / (self + 1)
        "log1p": lambda n, g: EM.divide(g, EM.add(x(n), c(g, 1.0))),
        # self: -0.5 * grad * result.pow(3).conj()
        "rsqrt": lambda n, g: EM.multiply(
            EM.multiply(c(g, -0.5), g),
            EM.multiply(EM.multiply(n.out(), n.out()), n.out())),
        # self: grad * (result.conj() + 1)
        "expm1": lambda n, g: EM.multiply(g, EM.add(n.out(), c(g, 1.0))),
        # self: -grad * (result * result).conj()
        "reciprocal": lambda n, g: EM.multiply(EM.neg(g), EM.multiply(n.out(), n.out())),
        # self: grad / (self * self + 1).conj()
        "atan": lambda n, g: EM.divide(g, EM.add(EM.multiply(x(n), x(n)), c(g, 1.0))),
        # self: grad / (self.conj() * 0.6931471805599453) (the engine's divided by float32's
        # ln 2: float64 gradients off by 1e-8, relatively)
        # (bfloat16: None, the engine's VJP, which gave torch's bits there)
        "log2": lambda n, g: None if g.data.dtype == np.uint16 else EM.divide(
            g, mul1(x(n), c(g, 0.6931471805599453))),
        # self: grad / (self.conj() * 2.3025850929940456)
        "log10": lambda n, g: None if g.data.dtype == np.uint16 else EM.divide(
            g, mul1(x(n), c(g, 2.3025850929940456))),
    }


def _zero_where(mask, d):
    """``at::where(mask, zeros({}), d)``: +0 where ``mask`` holds (d untouched elsewhere)."""
    from ..engine.ops._util import const
    from ..engine.ops.search import where

    mask = np.broadcast_to(mask, d.data.shape)
    if not mask.any():
        return d
    return where(const(d, mask, np.bool_), const(d, np.zeros(d.data.shape, d.data.dtype)), d)


def _pow_formulas(O):
    """pow(Tensor, Tensor) and pow(Scalar, Tensor) (FunctionsManual's pow_backward_self and
    pow_backward_exponent, with torch's own pow and log kernels)."""
    from ..engine.ops import math as EM

    def self_grad(g, x, y):     # where(exponent == 0, 0, grad * (exponent * self.pow(exponent - 1)))
        d = EM.multiply(g, EM.multiply(y, O.pow(x, EM.subtract(y, O.const(1.0, y.data.dtype)))))
        return _zero_where(y.data == 0, d)

    def exp_grad(g, x, y, out):  # grad * where(self == 0 & exponent >= 0, 0, result * self.log())
        d = _zero_where((x.data == 0) & (y.data >= 0), EM.multiply(out, O.log(x)))
        return EM.multiply(g, d)

    def tensor_tensor(n, g):
        x, y = n.inputs
        return self_grad(g, x, y), exp_grad(g, x, y, n.out())

    def scalar_tensor(n, g):    # grad * (result * (float) log(base)); 0 where base == 0, e >= 0
        x, y = n.inputs
        base = n.attrs.get("base", float(np.asarray(x.data).reshape(-1)[0]))
        if base == 0:
            return None, exp_grad(g, x, y, n.out())
        return None, EM.multiply(g, EM.multiply(n.out(), O.const(float(np.log(np.float64(base))), g.data.dtype)))

    return {O.POW_TENSOR: tensor_tensor, O.POW_RSCALAR: scalar_tensor}


def install(O):
    """Set each function's op's VJP to torch's formula for real floating dtypes (complex and
    other inputs keep the engine's)."""
    for name, vjp in _formulas(O).items():
        op = getattr(O, name)._op
        engine = op.vjp

        def run(n, g, vjp=vjp, engine=engine):
            if not _real(np.asarray(g.data).dtype) or not _real(np.dtype(n.in_meta[0][1])):
                return engine(n, g)
            out = vjp(n, g)
            return engine(n, g) if out is None else out
        op.vjp = run
    for op, vjp in _pow_formulas(O).items():
        engine = op.vjp

        def run(n, g, vjp=vjp, engine=engine):
            if not _real(np.asarray(g.data).dtype) or any(
                    not _real(t.data.dtype) for t in n.inputs) or \
                    n.inputs[0].data.dtype != n.inputs[1].data.dtype:
                return engine(n, g)
            return vjp(n, g)
        op.vjp = run


def zeros_like(g):
    """``zeros_like(grad)``: +0 everywhere (``g * 0`` gave -0 where g < 0: torch prints 0.)."""
    from ..engine.ops._util import const

    return const(g, np.zeros(g.data.shape, g.data.dtype))


def zero_grads(n, g):
    """Every input's gradient ``zeros_like(grad)`` (round, floor, sign, ...)."""
    return tuple(zeros_like(g) for _ in n.inputs)


def fmaxmin_vjp(name):
    """fmax: self ``grad.masked_fill(~((self >= other) | other.isnan()), 0)``, other
    ``grad.masked_fill((self >= other) | other.isnan(), 0)``; fmin with <= (derivatives.yaml)."""
    cmp = np.greater_equal if name == "fmax" else np.less_equal

    def vjp(n, g):
        x, y = (np.broadcast_to(t.data, g.data.shape) for t in n.inputs)
        with np.errstate(invalid="ignore"):
            keep = cmp(x, y) | np.isnan(y)
        return _zero_where(~keep, g), _zero_where(keep, g)
    return vjp


def _maxmin_vjp(name):
    """maximum: ``where(self == other, grad / 2, grad).masked_fill_(self < other, 0)`` (other:
    self > other); minimum with the comparisons turned (derivatives.yaml)."""
    def vjp(n, g):
        from ..engine.ops import math as EM
        from ..engine.ops._util import const
        from ..engine.ops.search import where

        x, y = (np.broadcast_to(t.data, g.data.shape) for t in n.inputs)
        tie = x == y
        h = g
        if tie.any():
            h = where(const(g, tie, np.bool_), EM.divide(g, const(g, 2)), g)
        lo, hi = (x < y, x > y) if name == "maximum" else (x > y, x < y)
        return _zero_where(lo, h), _zero_where(hi, h)
    return vjp


_DOUBLE = None   # (nn._double_backward, imported on first use: not on every call)


def _double():
    global _DOUBLE
    if _DOUBLE is None:
        from .nn import _double_backward as _DOUBLE
    return _DOUBLE


def _relu_vjp(n, g):
    """threshold_backward(grad, result, 0): 0 where result <= 0 (+0, a blend), else grad (a
    ThresholdBackwardBackward0 node under create_graph)."""
    return _double().relu_vjp(n, g)


def _evenly_vjp(n, g):
    """evenly_distribute_backward (max()/min() of all values): zeros, with grad / count where
    the input equals the result (is NaN, for a NaN result) -- +0 elsewhere."""
    from ..engine.ops import math as EM
    from ..engine.ops._util import const
    from ..engine.ops.broadcast import broadcast_to
    from ..engine.ops.search import where
    from ..engine.ops.shape import reshape

    x = n.inputs[0].data
    v = np.asarray(n.out_data[0])
    mask = np.isnan(x) if np.isnan(v).any() else x == v
    share = EM.divide(g, const(g, np.asarray(mask.sum(), g.data.dtype)))
    share = broadcast_to(reshape(share, (1,) * x.ndim) if x.ndim else share, x.shape)
    return where(const(g, mask, np.bool_), share, const(g, np.zeros(x.shape, g.data.dtype)))


def _sum_to(O, g, shape):
    """torch's ``at::sum_to``: one ``sum`` over the broadcast dims (the engine's ``expand``
    backward adds them one at a time, the first reduced axis fastest, as Paddle)."""
    from ..engine.ops.broadcast import sum_to
    return sum_to(g, shape, order="torch")


def _late_formulas(O):
    """(op, vjp) of the ops made by ``top`` with a forward of the dialect's own (defined after
    ``install`` runs)."""
    from ..engine.ops import math as EM
    from ..engine.ops.reduce import _expand_back, _out_back

    def expand_vjp(n, g):                       # self: at::sum_to(grad, self.sym_sizes())
        return _sum_to(O, g, n.in_meta[0][0])

    def logsumexp_vjp(n, g):                    # logsumexp_backward: grad * (self - result).exp()
        return EM.multiply(_expand_back(n, g), O.exp(EM.subtract(n.inputs[0], _out_back(n))))

    return [
        (O._round._op, zero_grads), (O._floor._op, zero_grads), (O._ceil._op, zero_grads),
        (O._trunc._op, zero_grads), (O._sign._op, zero_grads), (O._relu._op, _relu_vjp),
        (O.top("maximum", "MaximumBackward0", "all", forward=O._MAXIMUM_FWD),
         _maxmin_vjp("maximum")),
        (O.top("minimum", "MinimumBackward0", "all", forward=O._MINIMUM_FWD),
         _maxmin_vjp("minimum")),
        (O.top("max", "MaxBackward1", "in0+out"), _evenly_vjp),
        (O.top("min", "MinBackward1", "in0+out"), _evenly_vjp),
        (O.top("expand", "ExpandBackward0", "none", forward=O._storage.expand_fwd), expand_vjp),
        (O.top("logsumexp", "LogsumexpBackward0", "in0+out", forward=O._logsumexp_fwd),
         logsumexp_vjp),
    ]


def install_late(O):
    """Torch's formulas for the ops of ``_late_formulas`` (call once ``_ops`` is complete)."""
    for op, vjp in _late_formulas(O):
        engine = op.vjp

        def run(n, g, vjp=vjp, engine=engine):
            if not _real(np.asarray(g.data).dtype) or not _real(np.dtype(n.in_meta[0][1])):
                return engine(n, g)
            return vjp(n, g)
        op.vjp = run


# ---------------------------------------------------------------- by torch's node name
# derivatives.yaml's formulas, each step a torch op in torch's order (``x * M_PI``: the double
# constant rounded to float, as a tensor-scalar mul); applied by ``adopt`` to every op ``top``
# makes with that node name.
def _c(g, v):
    from ..engine.ops._util import const

    return const(g, np.asarray(v, g.data.dtype) if g.data.dtype != np.uint16 else v)


def _tan(n, g, O, EM):              # grad * (1 + result.pow(2))
    r = n.out()
    return EM.multiply(g, EM.add(EM.multiply(r, r), _c(g, 1.0)))


def _asin_root(x, g, O, EM):        # (-self * self + 1).rsqrt()
    return O.rsqrt(EM.add(EM.multiply(EM.neg(x), x), _c(g, 1.0)))


def _asin(n, g, O, EM):
    return EM.multiply(g, _asin_root(n.inputs[0], g, O, EM))


def _acos(n, g, O, EM):             # grad * -((-self * self + 1).rsqrt())
    return EM.multiply(g, EM.neg(_asin_root(n.inputs[0], g, O, EM)))


def _mul1(O, t, v):
    """``t * v`` for a number ``v`` (a constant tensor) multiplied in a derivatives.yaml formula:
    mul.Scalar, a MulBackward1 node whose own gradient is ``grad * v`` again."""
    from ..engine.registry import apply

    op = O.top("multiply", "MulBackward1", "none", inputs=(0,))
    op.vjp = lambda n, gg: (_mul1(O, gg, n.inputs[1]), None)
    return apply(op, (t, v))


def _exp2(n, g, O, EM):             # grad * result * M_LN2 (exp2 by pow(2, x): the exponent's)
    mul = EM.multiply if g.data.dtype == np.uint16 else lambda a, b: _mul1(O, a, b)
    d = mul(EM.multiply(g, n.out()), _c(g, math.log(2.0)))
    return d if len(n.inputs) == 1 else (None, d)


def _erfinv(n, g, O, EM):           # 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad
    r = n.out()
    return EM.multiply(EM.multiply(O.exp(EM.multiply(r, r)), _c(g, 0.5 * math.sqrt(math.pi))), g)


def _sinc(n, g, O, EM):             # FunctionsManual sinc_backward
    x = n.inputs[0]
    xp = EM.multiply(x, _c(g, math.pi))
    xxp = EM.multiply(EM.multiply(x, x), _c(g, math.pi))
    out = EM.multiply(g, EM.divide(EM.subtract(EM.multiply(xp, O.cos(xp)), O.sin(xp)), xxp))
    return _zero_where(xxp.data == 0, out)


def _entr(n, g, O, EM):             # grad * (-(1 + self.log()))
    return EM.multiply(g, EM.neg(EM.add(O.log(n.inputs[0]), _c(g, 1.0))))


def _ndtri(n, g, O, EM):            # grad * std::sqrt(2 * M_PI) * (result.square() / 2).exp()
    r = n.out()
    return EM.multiply(EM.multiply(g, _c(g, math.sqrt(2 * math.pi))),
                       O.exp(EM.divide(EM.multiply(r, r), _c(g, 2.0))))


def _log_ndtr(n, g, O, EM):         # grad / std::sqrt(2 * M_PI) * (result + self.pow(2) / 2).neg().exp()
    x, r = n.inputs[0], n.out()
    e = O.exp(EM.neg(EM.add(r, EM.divide(EM.multiply(x, x), _c(g, 2.0)))))
    return EM.multiply(EM.divide(g, _c(g, math.sqrt(2 * math.pi))), e)


def _erfcx(n, g, O, EM):            # (2.0 * self * result - 2.0 / sqrt(M_PI)) * grad
    x, r = n.inputs[0], n.out()
    return EM.multiply(EM.subtract(EM.multiply(EM.multiply(x, _c(g, 2.0)), r),
                                   _c(g, 2.0 / math.sqrt(math.pi))), g)


def _i1(n, g, O, EM):               # FunctionsManual i1_backward
    from ..engine.ops._util import const
    from ..engine.ops.search import where
    from . import special

    x, r = n.inputs[0], n.out()
    eps = np.finfo(x.data.dtype).eps
    big = np.abs(x.data) > eps
    safe = where(const(g, big, np.bool_), x, _c(g, np.full(x.data.shape, eps)))
    gx = EM.subtract(special.i0(safe), EM.multiply(r, O.reciprocal(safe)))
    return EM.multiply(g, where(const(g, big, np.bool_), gx, _c(g, np.full(x.data.shape, 0.5))))


def _atan2(n, g, O, EM):            # atan2_backward: recip = (self^2 + other^2).reciprocal()
    y, x = n.inputs
    recip = O.reciprocal(EM.add(EM.multiply(y, y), EM.multiply(x, x)))
    return (EM.multiply(EM.multiply(g, x), recip),
            EM.multiply(EM.multiply(g, EM.neg(y)), recip))


def _logaddexp(n, g, O, EM):        # grad / (1 + exp(other - self)), and turned
    a, b = n.inputs
    one = _c(g, 1.0)
    return (EM.divide(g, EM.add(O.exp(EM.subtract(b, a)), one)),
            EM.divide(g, EM.add(O.exp(EM.subtract(a, b)), one)))


def _logaddexp2(n, g, O, EM):       # grad / (1 + pow(2, other - self)), and turned
    a, b = n.inputs
    one = _c(g, 1.0)
    return (EM.divide(g, EM.add(O.pow(2.0, EM.subtract(b, a)), one)),
            EM.divide(g, EM.add(O.pow(2.0, EM.subtract(a, b)), one)))


def _addcdiv(n, g, O, EM):          # grad; grad * (value / t2); -grad * (value * t1 / (t2 * t2))
    _x, t1, t2 = n.inputs
    v = n.attrs.get("value", 1.0)
    vt = _c(g, np.full(t2.data.shape, v))
    return (g, EM.multiply(g, EM.divide(vt, t2)),
            EM.multiply(EM.neg(g), EM.divide(EM.multiply(t1, _c(g, v)), EM.multiply(t2, t2))))


def _lerp_scalar(n, g, O, EM):      # self: grad * (1 - weight.toDouble()), end: grad * weight
    w = n.attrs.get("weight", float(np.asarray(n.inputs[2].data)))
    return (EM.multiply(g, _c(g, 1.0 - float(w))), EM.multiply(g, _c(g, float(w))), None)


def _lerp_tensor(n, g, O, EM):      # grad * (1 - weight), grad * weight, grad * (end - self)
    x, y, w = n.inputs
    return (EM.multiply(g, EM.subtract(_c(g, 1.0), w)), EM.multiply(g, w),
            EM.multiply(g, EM.subtract(y, x)))


def _huberish(n, g, O, EM):         # smooth_l1_loss_backward / huber_loss_backward kernels
    from ..engine.ops._util import const
    from ._elementwise_more import huberish_grad

    x, y = n.inputs
    a = n.attrs
    shape = np.broadcast_shapes(x.data.shape, y.data.shape)
    red = a.get("reduction", "mean")
    norm = 1.0 / max(int(np.prod(shape, dtype=np.int64)), 1) if red == "mean" else 1.0
    go = np.asarray(g.data)
    smooth = bool(a.get("smooth_l1"))
    dx = huberish_grad(x.data, y.data, go, a.get("delta", 1.0), norm, smooth)
    dy = huberish_grad(y.data, x.data, go, a.get("delta", 1.0), norm, smooth)  # (swapped)
    return const(g, dx), const(g, dy)


def _cumsum(n, g, O, EM):           # cumsum_backward: grad.flip(dim).cumsum(dim).flip(dim)
    if n.attrs.get("reverse") or n.attrs.get("exclusive"):
        return None
    d = n.attrs.get("axis", 0)
    shape = n.in_meta[0][0]
    if int(np.prod(shape, dtype=np.int64)) <= 1 or (len(shape) and shape[d] == 1):
        return g
    return O._reversed_cumsum(g, d)     # torch's cumsum kernel: a running sum in double


def _addcmul(n, g, O, EM):          # grad; grad * (tensor2 * value); grad * (tensor1 * value)
    _x, t1, t2 = n.inputs
    v = _c(g, n.attrs.get("value", 1.0))
    return g, EM.multiply(g, EM.multiply(t2, v)), EM.multiply(g, EM.multiply(t1, v))


def _leaky(n, g, O, EM, result=False):  # leaky_relu_backward(grad, self or result, slope)
    return _double().leaky_relu_vjp(n, g, result)


def _logit(n, g, O, EM):
    """logit's gradient as torch 2.13 (derivatives.yaml: under grad mode
    infinitely_differentiable_logit_backward, else the logit_backward kernel, the same values):
    ``where(lo <= self <= hi, grad / (self * (1 - self)), 0)`` with eps, NaN outside [0, 1]
    without (the engine's VJP gave finite values there); WhereBackward0 under create_graph."""
    from ..engine.ops._util import const
    from ..engine.ops.search import where

    x = n.inputs[0]
    eps = n.attrs.get("eps")
    d = EM.divide(g, EM.multiply(x, EM.scale(x, -1.0, 1.0)))
    dt = d.data.dtype
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    keep = (x.data >= np.asarray(lo, dt)) & (x.data <= np.asarray(hi, dt))
    fill = np.full(d.data.shape, np.nan if eps is None else 0.0, dt)
    return where(const(d, np.broadcast_to(keep, d.data.shape), np.bool_), d, const(d, fill))


BY_NAME = {
    "LogitBackward0": _logit,
    "LeakyReluBackward0": _leaky,
    "LeakyReluBackward1": lambda n, g, O, EM: _leaky(n, g, O, EM, True),
    "AddcmulBackward0": _addcmul,
    "CumsumBackward0": _cumsum,
    "SmoothL1LossBackward0": _huberish, "HuberLossBackward0": _huberish,
    "LerpBackward0": _lerp_scalar, "LerpBackward1": _lerp_tensor,
    "TanBackward0": _tan, "AsinBackward0": _asin, "AcosBackward0": _acos,
    "Exp2Backward0": _exp2, "ErfinvBackward0": _erfinv, "SincBackward0": _sinc,
    "SpecialEntrBackward0": _entr, "SpecialNdtriBackward0": _ndtri,
    "SpecialLogNdtrBackward0": _log_ndtr, "SpecialErfcxBackward0": _erfcx,
    "SpecialI1Backward0": _i1, "Atan2Backward0": _atan2, "LogaddexpBackward0": _logaddexp,
    "Logaddexp2Backward0": _logaddexp2, "AddcdivBackward0": _addcdiv,
}


def adopt(op):
    """Give ``op`` (a torch op copy made by ``_ops.top``) torch's formula for its node name, for
    real floating inputs of one dtype (other inputs keep the engine's VJP)."""
    formula = BY_NAME.get(getattr(op, "torch_name", None))
    if formula is None:
        return op
    engine = op.vjp

    def run(n, g, formula=formula, engine=engine):
        dts = {np.dtype(m[1]) for m in n.in_meta}
        if not _real(np.asarray(g.data).dtype) or len(dts) != 1 or not _real(dts.pop()):
            return engine(n, g)
        from . import _ops as O
        from ..engine.ops import math as EM

        out = formula(n, g, O, EM)
        return engine(n, g) if out is None else out
    op.vjp = run
    return op
