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


def _formulas(O):
    """name -> vjp(node, grad), with ``O`` the dialect's ``_ops`` module."""
    from ..engine.ops import math as EM

    def x(n):
        return n.inputs[0]

    def c(g, v):  # a Python double as the scalar operand of a float op: torch casts it
        return O.const(v, g.data.dtype)

    return {
        # self: grad * self.cos().conj()
        "sin": lambda n, g: EM.multiply(g, O.cos(x(n))),
        # self: grad * -self.sin().conj()
        "cos": lambda n, g: EM.multiply(g, EM.neg(O.sin(x(n)))),
        "sinh": lambda n, g: EM.multiply(g, O.cosh(x(n))),
        "cosh": lambda n, g: EM.multiply(g, O.sinh(x(n))),
        # self: 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
        "erf": lambda n, g: EM.multiply(
            EM.multiply(c(g, 2.0 / math.sqrt(math.pi)),
                        O.exp(EM.neg(EM.multiply(x(n), x(n))))), g),
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
            if np.asarray(g.data).dtype.kind != "f" or np.dtype(n.in_meta[0][1]).kind != "f":
                return engine(n, g)
            return vjp(n, g)
        op.vjp = run
    for op, vjp in _pow_formulas(O).items():
        engine = op.vjp

        def run(n, g, vjp=vjp, engine=engine):
            if np.asarray(g.data).dtype.kind != "f" or any(
                    t.data.dtype.kind != "f" for t in n.inputs) or \
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


def _relu_vjp(n, g):
    """threshold_backward(grad, result, 0): 0 where result <= 0 (+0, a blend), else grad."""
    return _zero_where(n.out_data[0] <= 0, g)


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
            if np.asarray(g.data).dtype.kind != "f" or np.dtype(n.in_meta[0][1]).kind != "f":
                return engine(n, g)
            return vjp(n, g)
        op.vjp = run
