"""Complex tensors (complex64 / complex128): the ops that cross between real and complex, and
the one rule that makes the other ops' gradients right for complex values.

The convention is Paddle's (and PyTorch's): the gradient of a real loss L with respect to a
complex z is ``dL/dRe(z) + i dL/dIm(z)``. For a holomorphic op y = f(z) this makes the VJP
``dz = dy * conj(f'(z))``, where the real VJPs of ``math.py`` compute ``dy * f'(z)``. So the VJPs
of the holomorphic ops are wrapped once, here: on complex values they run on the node with its
saved inputs and outputs conjugated (``dy * f'(conj z)``, which is ``dy * conj(f'(z))`` for every
one of them); on real values they run unchanged (one dtype test). Linear ops with real coefficients (add, subtract, scale, sum,
reshape, concat ...) need nothing. The ops that are not holomorphic (real, imag, conj, angle,
abs, as_real, as_complex, complex) have their own VJPs below.
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..registry import OPS, apply, register
from . import _kernels as K
from ._util import const, quiet

_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


def real_dtype(dt):
    return _REAL_OF.get(np.dtype(dt), np.dtype(dt))


def complex_dtype(dt):
    dt = np.dtype(dt)
    return dt if dt.kind == "c" else _COMPLEX_OF.get(dt, np.dtype(np.complex64))


# ============================================================== real / imag / conj
def _real_vjp(n, g):
    """dz = complex(dout, 0)."""
    return complex_(g, const(g, np.zeros(g.data.shape, g.data.dtype)))


def _imag_vjp(n, g):
    """dz = complex(0, dout)."""
    return complex_(const(g, np.zeros(g.data.shape, g.data.dtype)), g)


def _complex_in(shape):
    """An example input: a complex array (the gradient check perturbs float inputs only, so
    complex examples document the op without being checked)."""
    rng = np.random.default_rng(0)
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(np.complex128)


REAL = register("real", lambda x: np.array(np.real(x)), _real_vjp, legacy_name="RealBackward",
                saves_inputs=False, check=False, examples=[([_complex_in((2, 3))], {})])
IMAG = register("imag", lambda x: np.array(np.imag(x)), _imag_vjp, legacy_name="ImagBackward",
                saves_inputs=False, check=False, examples=[([_complex_in((2, 3))], {})])
CONJ = register("conj", lambda x: np.conj(x), lambda n, g: conj(g), legacy_name="ConjBackward",
                saves_inputs=False, examples=[([(2, 3)], {})])


def real(x):
    return apply(REAL, (x,))


def imag(x):
    return apply(IMAG, (x,))


def conj(x):
    if x.data.dtype.kind != "c":
        return x if x.stop_gradient else apply(CONJ, (x,))
    return apply(CONJ, (x,))


# ============================================================== complex(re, im), as_complex, as_real
def _complex_fwd(re, im):
    dt = complex_dtype(np.result_type(re, im))
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), dt)
    out.real = re
    out.imag = im
    return out


COMPLEX = register("complex", _complex_fwd, lambda n, g: (real(g), imag(g)), broadcast=True,
                   legacy_name="ComplexBackward", saves_inputs=False,
                   examples=[([(2, 3), (2, 3)], {}), ([(2, 3), (3,)], {})])


def complex_(re, im):
    return apply(COMPLEX, (re, im))


def _as_complex_fwd(x):
    return np.ascontiguousarray(x).view(complex_dtype(x.dtype))[..., 0]


def _as_real_fwd(x):
    return np.stack([np.real(x), np.imag(x)], axis=-1)


AS_COMPLEX = register("as_complex", _as_complex_fwd, lambda n, g: as_real(g),
                      legacy_name="AsComplexBackward", saves_inputs=False,
                      examples=[([(2, 3, 2)], {})])
AS_REAL = register("as_real", _as_real_fwd, lambda n, g: as_complex(g),
                   legacy_name="AsRealBackward", saves_inputs=False, check=False,
                   examples=[([_complex_in((2, 3))], {})])


def as_complex(x):
    return apply(AS_COMPLEX, (x,))


def as_real(x):
    return apply(AS_REAL, (x,))


# ============================================================== angle
_ATAN2F = K._libm2("atan2f", np.arctan2)
_ATAN2 = K._libm2("atan2", np.arctan2, ctypes.c_double, np.float64)


def atan2_kernel(y, x):
    """The C library's atan2f / atan2 elementwise (what Paddle's kernels call)."""
    y, x = np.broadcast_arrays(y, x)
    if y.dtype == np.float32:
        return _ATAN2F(np.array(y), np.array(x))
    return _ATAN2(np.array(y, np.float64), np.array(x, np.float64))


def _angle_fwd(x):
    if x.dtype.kind == "c":
        return atan2_kernel(np.imag(x), np.real(x)).astype(real_dtype(x.dtype))
    if x.dtype.kind in "iub":
        x = x.astype(np.float32)
    return np.where(x < 0, np.asarray(np.pi, x.dtype), np.asarray(0, x.dtype)).astype(x.dtype)


def _angle_vjp(n, g):
    """Real x: 0. Complex z: dz = complex(dout * -Im(z) / |z|^2, dout * Re(z) / |z|^2), 0 where
    z == 0 (component by component, as Paddle's angle_grad: a -0. stays -0.)."""
    x = n.inputs[0]
    if x.data.dtype.kind != "c":
        return const(g, np.zeros(g.data.shape, g.data.dtype))
    z = x.data
    rdt = real_dtype(z.dtype)
    mag2 = (z.real * z.real + z.imag * z.imag).astype(rdt)
    zero = mag2 == 0
    with quiet(divide="ignore", invalid="ignore"):
        wr = np.where(zero, 0, -z.imag / mag2).astype(rdt)
        wi = np.where(zero, 0, z.real / mag2).astype(rdt)
    from .math import multiply

    return complex_(multiply(g, const(g, wr)), multiply(g, const(g, wi)))


ANGLE = register("angle", _angle_fwd, _angle_vjp, legacy_name="AngleBackward", check=False,
                 examples=[([(2, 3)], {})])


def angle(x):
    return apply(ANGLE, (x,))


# ============================================================== the holomorphic ops
HOLOMORPHIC = ("multiply", "divide", "elementwise_pow", "pow", "exp", "expm1", "log", "log2",
               "log10", "log1p", "sqrt", "rsqrt", "square", "reciprocal", "sin", "cos", "tan",
               "asin", "acos", "atan", "sinh", "cosh", "matmul", "bmm", "dot", "tanh",
               "cumprod", "asinh", "acosh", "atanh", "determinant", "inverse", "solve")
# (prod and matrix_power: Paddle 3.3.1's complex gradients are not conjugated; the torch
# dialect conjugates prod, torch/_ops._HOLOMORPHIC)


class _ConjugatedNode:
    """A node as a holomorphic op's VJP sees it on complex values: its saved inputs and outputs
    conjugated, everything else the node's own. The real VJP computes ``dy * f'(z)`` from them,
    which is ``dy * f'(conj z) = dy * conj(f'(z))`` (f has real coefficients): the frameworks'
    own formulas (torch's ``grad * other.conj()``, ``grad * result.conj()``; Paddle's
    ``dout * conj(y)``), operation for operation, so their signed zeros too (conjugating ``dy``
    and the result instead made ``3-0j`` where they make ``3+0j``)."""

    __slots__ = ("_node", "inputs", "in_data", "out_data")

    def __init__(self, node):
        self._node = node
        ins = node.inputs
        if ins is not None:
            seen = {}   # (one conjugate per saved tensor: x * x keeps its inputs identical)
            for t in ins:
                if id(t) not in seen:
                    seen[id(t)] = conj(t) if t.data.dtype.kind == "c" else t
            ins = tuple(seen[id(t)] for t in ins)
        self.inputs = ins
        self.in_data = _conj_arrays(node.in_data)
        self.out_data = _conj_arrays(node.out_data)

    def __getattr__(self, name):
        return getattr(self._node, name)

    def out(self, k=0):
        return conj(self._node.out(k))

    def input_tensor(self, i):
        t = self._node.input_tensor(i)
        return t if t is None or t.data.dtype.kind != "c" else conj(t)


def _conj_arrays(arrays):
    if arrays is None:
        return None
    out = [np.conj(a) if getattr(a, "dtype", None) is not None and a.dtype.kind == "c" else a
           for a in arrays]
    return tuple(out) if isinstance(arrays, tuple) else out


def _conjugated(vjp):
    def run(node, *grads):
        out = node.out_data   # (the saved output's dtype: no metadata tuple made per node)
        if (out[0].dtype if out is not None else node.out_meta[0][1]).kind != "c" \
                or type(node) is _ConjugatedNode:   # (a wrapper around a wrapped VJP: once)
            return vjp(node, *grads)
        return vjp(_ConjugatedNode(node), *grads)

    run.__name__ = getattr(vjp, "__name__", "vjp")
    run.__dict__.update(getattr(vjp, "__dict__", {}))  # (its marks: exact_first_order)
    run.__wrapped__ = vjp
    return run


for _name in HOLOMORPHIC:
    _op = OPS.get(_name)
    if _op is not None and _op.vjp is not None and not hasattr(_op.vjp, "__wrapped__"):
        _op.vjp = _conjugated(_op.vjp)
del _name, _op
