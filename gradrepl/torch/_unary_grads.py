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


def install(O):
    """Set each function's op's VJP to torch's formula for real floating dtypes (complex and
    other inputs keep the engine's)."""
    for name, vjp in _formulas(O).items():
        op = getattr(O, name)._op
        engine = op.vjp

        def run(n, g, vjp=vjp, engine=engine):
            if np.asarray(g.data).dtype.kind != "f" or n.inputs[0].data.dtype.kind != "f":
                return engine(n, g)
            return vjp(n, g)
        op.vjp = run
