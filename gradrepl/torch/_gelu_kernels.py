"""``F.gelu`` (exact form, float32) and its gradient as torch 2.13 computes them on x86-64.

torch sends a contiguous float32 tensor to oneDNN's eltwise primitive (``gelu_erf``), anything
else to ATen's ``GeluKernel``; the two round differently, so gradrepl follows the same split:

* oneDNN, AVX-512 (``avx512_core``): GELU = x * (1 + sign(x) P_i(|x|)) * 0.5 with a degree-5
  minimax polynomial P_i chosen by |x|'s exponent and top two mantissa bits (25 pieces).
* oneDNN, AVX2: erf by Abramowitz and Stegun 7.1.26 with oneDNN's own exp (2^n by the exponent
  bits, a degree-5 polynomial), GELU = S + S erf with S = x / 2, fused.
* oneDNN backward (both ISAs): the same erf, plus x/sqrt(2) exp(-x^2/2) / sqrt(pi).
* ATen (a strided view): the same A&S erf with SLEEF's expf on whole pairs of vectors, glibc's
  ``erff`` on the rest; ``x * 0.5 * (1 + erf(x / sqrt 2))``.

Measured against real torch 2.13 here (tests/test_torch_gelu_bits.py): every value of the forward
and backward on random inputs of 1 to 4,096 values. The polynomial tables are oneDNN's published
constants, written as the float32 bit patterns they are.
"""
from __future__ import annotations

import math

import numpy as np

from ..engine.ops import _kernels as K
from . import _capability
from ._lecture_kernels import expf_u10

F32 = np.float32


def _f(*bits):
    return np.array(bits, np.uint32).view(F32)


# minimax pieces: row d holds the degree-d coefficient of the 25 polynomials
_PIECES = _f(
    0xa6f2cb94, 0x32827792, 0x3381cc0c, 0x34523d4a, 0x351ac44d, 0x35f36d88, 0x36ee8229,
    0x37b8a3bb, 0x3867a213, 0x3940033b, 0x3a2a5a1d, 0x3ae35863, 0x3b7828f2, 0x3c08b14b,
    0x3c515ed3, 0xbb503236, 0xbd8d8e5e, 0xbe8abcd9, 0xbf0c19a2, 0xbeccb328, 0x3e176ced,
    0x3f470d99, 0x3f7abb28, 0x3f800000, 0x00000000,
    0x3f4c422a, 0x3f4c421f, 0x3f4c4207, 0x3f4c41cb, 0x3f4c413b, 0x3f4c3fad, 0x3f4c3a2f,
    0x3f4c2d40, 0x3f4c146a, 0x3f4bc341, 0x3f4ad08c, 0x3f48f8cf, 0x3f45fac7, 0x3f404e07,
    0x3f3b980f, 0x3f48dff3, 0x3f78b21b, 0x3fbb0704, 0x40019c32, 0x3fe536d6, 0x3f81331e,
    0x3e6c8684, 0x3c98f936, 0x00000000, 0x3f800000,
    0xb62173f4, 0x3735e4cf, 0x37f2ff89, 0x388c23be, 0x3917535c, 0x39ab2ab0, 0x3a60fadb,
    0x3af9b960, 0x3b6e5491, 0x3c0a4ec5, 0x3ca5aa8c, 0x3d2138d9, 0x3d8737d4, 0x3ddfb660,
    0x3e0f27ab, 0x3d94004b, 0xbe0efdeb, 0xbf1d96c3, 0xbf89db58, 0xbf6d9897, 0xbef69fb8,
    0xbdc4f8a8, 0xbbde6422, 0x00000000, 0x00000000,
    0xbe081a19, 0xbe084570, 0xbe08639b, 0xbe089837, 0xbe08f409, 0xbe09ab95, 0xbe0b66d0,
    0xbe0e400a, 0xbe124df8, 0xbe1bde02, 0xbe2f19c9, 0xbe4931bf, 0xbe685fbc, 0xbe89c95f,
    0xbe96cbca, 0xbe8044aa, 0xbe0550f2, 0x3dcfd6a1, 0x3e94c826, 0x3e79345f, 0x3decec91,
    0x3ca46568, 0x3aa1e00a, 0x00000000, 0x00000000,
    0xba3d61db, 0x39f097a3, 0x3a5845dc, 0x3ab1fa35, 0x3b0cefb8, 0x3b653ab6, 0x3bcae527,
    0x3c221712, 0x3c6c5840, 0x3cc0a703, 0x3d1dcc19, 0x3d63656d, 0x3d955907, 0x3dbf9910,
    0x3dd53f69, 0x3db7dcef, 0x3d639ebe, 0xba6ede48, 0xbd22be69, 0xbd041cf1, 0xbc64f5ab,
    0xbb097a32, 0xb8ebf380, 0x00000000, 0x00000000,
    0x3cb7d80c, 0x3c9b6050, 0x3c978d11, 0x3c92e850, 0x3c8d058b, 0x3c848454, 0x3c6cd623,
    0x3c4c824b, 0x3c2a7935, 0x3be0b390, 0x3b0651ac, 0xbb232f53, 0xbbd42fa0, 0xbc2c5366,
    0xbc492c9e, 0xbc2a7aa6, 0xbbd55d04, 0xba823a76, 0x3b102aa8, 0x3ae25a7e, 0x3a31f792,
    0x38b84375, 0x3689bb5a, 0x00000000, 0x00000000).reshape(6, 25)
_PIECE_BIAS = np.int64(np.uint32(0xc21fffff).view(np.int32))
_PIECE_RBOUND = _f(0x40b15cee)[0]
# Abramowitz-Stegun erf: p, then the polynomial's a1..a5
_AS_P = _f(0x3ea7ba05)[0]
_AS_POL = _f(0x3e827906, 0xbe91a98e, 0x3fb5f0e3, 0xbfba00e3, 0x3f87dc22)
_SQRT1_2, _SQRT1_PI = _f(0x3f3504f3, 0x3f106eba)
# oneDNN's exp: log2(e), ln 2, the clamps, the polynomial p5..p1, 1
_LOG2E, _LN2, _LN_MIN, _LN_MAX = _f(0x3fb8aa3b, 0x3f317218, 0xc2aeac50, 0x42b17218)
_EXP_POL = _f(0x3c07cfce, 0x3d2b9d0d, 0x3e2aad40, 0x3efffee3, 0x3f7ffffb, 0x3f800000)


def onednn_exp(x):
    """oneDNN's ``exp_compute_vector_fwd``: 2 * 2^(n-1) * p(r), r = x - n ln 2 (fused)."""
    x = np.asarray(x, F32)
    zero = x < _LN_MIN
    x = np.maximum(np.minimum(x, _LN_MAX), _LN_MIN)
    n = np.floor((x * _LOG2E).astype(F32) + F32(0.5)).astype(F32)
    r = K._fma(-n, _LN2, x)
    scale = ((np.rint(n - F32(1)).astype(np.int32) + 127) << 23)
    scale = np.where(zero, 0, scale).astype(np.int32).view(F32)
    p = _EXP_POL[0]
    for c in _EXP_POL[1:]:
        p = K._fma(p, r, c)
    return ((p * scale).astype(F32) * F32(2)).astype(F32)


def _as_erf_parts(u, exp):
    """(sign-less 1 - r t e^(-u^2), negative mask) of A&S's erf at ``u``, ``exp`` the library's."""
    t = (F32(1) / K._fma(_AS_P, np.abs(u), F32(1))).astype(F32)
    e = exp(-(u * u).astype(F32))
    r = _AS_POL[4]
    for c in _AS_POL[3::-1]:
        r = K._fma(r, t, c)
    return K._fma((-e * t).astype(F32), r, F32(1)), np.signbit(u)


def _signed(v, negative):
    return np.where(negative, -v, v).astype(F32)


def _forward_avx512(x):
    pos = np.abs(x)
    idx = (pos.view(np.int32).astype(np.int64) + _PIECE_BIAS)
    idx = (((idx + (1 << 31)) % (1 << 32)) - (1 << 31)).astype(np.int32) >> 21
    idx = np.where(_PIECE_RBOUND < pos, 23, np.clip(idx, 1, 24))
    pol = _PIECES[5][idx]
    for d in range(4, -1, -1):
        pol = K._fma(pol, pos, _PIECES[d][idx])
    pol = (_signed(pol, np.signbit(x)) + F32(1)).astype(F32)
    return ((x * pol).astype(F32) * F32(0.5)).astype(F32)


def _forward_avx2(x):
    erf, neg = _as_erf_parts((x * _SQRT1_2).astype(F32), onednn_exp)
    half = (x * F32(0.5)).astype(F32)
    return K._fma(_signed(erf, neg), half, half)


def _onednn_forward(x):
    return _forward_avx512(x) if _capability.capability() == "AVX512" else _forward_avx2(x)


def _onednn_backward(x, dout):
    u = (x * _SQRT1_2).astype(F32)
    q = onednn_exp(-(u * u).astype(F32))
    t = ((u * _SQRT1_PI).astype(F32) * q).astype(F32)
    erf, neg = _as_erf_parts(u, onednn_exp)
    d = K._fma(_signed(erf, neg), F32(0.5), (t + F32(0.5)).astype(F32))
    return (d * np.asarray(dout, F32)).astype(F32)


_ERFF = K.libm("erf", np.vectorize(math.erf, otypes=[np.float64]))


def _aten_vec(x):
    erf, neg = _as_erf_parts((x * F32(math.sqrt(0.5))).astype(F32), expf_u10)
    return ((x * F32(0.5)).astype(F32) * (F32(1) + _signed(erf, neg))).astype(F32)


def _aten_scalar(x):
    erf = np.asarray(_ERFF((x * F32(math.sqrt(0.5))).astype(F32)), F32)
    return ((x * F32(0.5)).astype(F32) * (F32(1) + erf)).astype(F32)


def _aten_forward(x):
    """TensorIterator's loop over a view: whole pairs of vectors of each contiguous inner row by
    the vector code, the rest (and every value of a row with a stride) by the scalar code."""
    if x.flags.f_contiguous and not x.flags.c_contiguous:
        return _aten_forward(x.T).T          # (the iterator walks memory order)
    if x.ndim and x.strides[-1] != x.itemsize and x.shape[-1] > 1:
        return _aten_scalar(np.ascontiguousarray(x))
    step = 2 * _capability.lanes(x.dtype, avx512_kernel=True)   # an AVX-512 kernel too
    from ._sleef_more import _by_rows, _inner_rows

    rows = _inner_rows(x)
    if rows is not None:
        return _by_rows(_aten_vec, _aten_scalar, x, rows, step)
    flat = np.ascontiguousarray(x).reshape(-1)
    n = flat.size // step * step
    out = np.empty_like(flat)
    out[:n] = _aten_vec(flat[:n])
    out[n:] = _aten_scalar(flat[n:])
    return out.reshape(x.shape)


def applies(x, approximate) -> bool:
    """Whether these kernels are torch's for ``x``: float32, the exact form, an x86-64 build
    with AVX2 or AVX-512 (elsewhere the engine's GELU answers)."""
    return (not approximate and x.dtype == F32
            and _capability.capability() in ("AVX512", "AVX2"))


def forward(x):
    with np.errstate(all="ignore"):
        if x.flags.c_contiguous:
            return _onednn_forward(x)
        return _aten_forward(x)


def backward(x, dout):
    """The gradient for a contiguous input (oneDNN's), else None (the caller's formula)."""
    if not x.flags.c_contiguous:
        return None
    with np.errstate(all="ignore"):
        return _onednn_backward(x, np.ascontiguousarray(np.broadcast_to(dout, x.shape)))
