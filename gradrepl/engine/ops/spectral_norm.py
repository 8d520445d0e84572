"""Paddle's ``spectral_norm`` op (``nn.SpectralNorm``'s forward), its CPU kernel step by step.

* Forward ``spectral_norm(weight, u, v)``: the weight as an (h, w) matrix (axis ``dim`` first),
  ``power_iters`` rounds of v = W^T u, v /= (||v|| + eps), u = W v, u /= (||u|| + eps) on copies
  of the buffers (they are not written back); then sigma = sum(u * (W v)) and out = W / sigma.
  The products are the BLAS GEMMs Paddle's matmul calls (a column of one: ``linalg._matmul_fwd``
  with the transpose flag), the sums Eigen's full reductions (``reduce._packet_reduce``), the
  norm an exact sqrt, eps the float attribute in T (float64: the float's value).
* VJP: Paddle's ``spectral_norm_grad`` kernel, which is not the derivative of the forward: with
  W_n = W / sigma (the kernel normalises its copy in place first) and S = sum(W_n),
  dW = dout * (1 - (u v^T) * S) / sigma. Written with Tensor ops on dout (the factor and sigma
  constants), so create_graph works; not gradient-checked (``check=False``), as it is not a
  gradient. Measured against real Paddle 3.3.1 and 2.6.2 (tests/test_paddle_spectral_norm.py).
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from ._util import const, quiet


def _matrix(x, dim):
    perm = [dim] + [i for i in range(x.ndim) if i != dim]
    return np.ascontiguousarray(np.transpose(x, perm)).reshape(x.shape[dim], -1), perm


def _full_sum(a):
    from .reduce import _packet_reduce

    return _packet_reduce(np.ascontiguousarray(a).reshape(-1), np.add, True)


def _normalized(a, eps):
    return a / (a.dtype.type(np.sqrt(_full_sum(a * a))) + eps)


def _sigma_uv(mat, u, v, power_iters, eps):
    """sigma (a scalar of mat's dtype) and the iterated u (h, 1), v (w, 1)."""
    from .linalg import _matmul_fwd

    e = mat.dtype.type(np.float32(eps))
    u = np.array(u, mat.dtype).reshape(-1, 1)
    v = np.array(v, mat.dtype).reshape(-1, 1)
    for _ in range(power_iters):
        v = _normalized(_matmul_fwd(mat, u, True, False), e)
        u = _normalized(_matmul_fwd(mat, v), e)
    wv = _matmul_fwd(mat, v)
    return _full_sum(u * wv), u, v


def _back(mat, x_shape, perm):
    shaped = mat.reshape([x_shape[i] for i in perm])
    return np.ascontiguousarray(np.transpose(shaped, np.argsort(perm)))


def _spectral_norm_fwd(x, u, v, dim=0, power_iters=1, eps=1e-12):
    mat, perm = _matrix(x, dim)
    with quiet(all="ignore"):
        sigma, _, _ = _sigma_uv(mat, u, v, power_iters, eps)
        return _back(mat / sigma, x.shape, perm)


def _spectral_norm_vjp(n, g):
    from .math import divide, multiply
    from .shape import reshape, transpose

    x = n.input_tensor(0).data
    a = n.attrs
    dim = a["dim"]
    mat, perm = _matrix(x, dim)
    with quiet(all="ignore"):
        sigma, u, v = _sigma_uv(mat, n.input_tensor(1).data, n.input_tensor(2).data,
                                a["power_iters"], a["eps"])
        s = _full_sum(mat / sigma)
        one = mat.dtype.type(1)
        factor = one - (u * v.reshape(1, -1)) * s      # (u v^T: products of one term)
    g_mat = g if dim == 0 else transpose(g, perm)
    h, w = mat.shape
    out = divide(multiply(reshape(g_mat, [h, w]), const(g, factor)), const(g, sigma))
    out = reshape(out, [x.shape[i] for i in perm])
    if dim != 0:
        out = transpose(out, [int(i) for i in np.argsort(perm)])
    return out, None, None


SPECTRAL_NORM = register(
    "spectral_norm", _spectral_norm_fwd, _spectral_norm_vjp, diff_inputs=(0,),
    saves_output=False, legacy_name="SpectralNormBackward", check=False,
    examples=[([(4, 3), (4,), (3,)], {"dim": 0, "power_iters": 1, "eps": 1e-12}),
              ([(3, 4, 2), (4,), (6,)], {"dim": 1, "power_iters": 2, "eps": 1e-12})])


def spectral_norm(x, u, v, dim=0, power_iters=1, eps=1e-12):
    return apply(SPECTRAL_NORM, (x, u, v), {"dim": int(dim), "power_iters": int(power_iters),
                                            "eps": float(eps)})
