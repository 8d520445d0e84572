"""``F.scaled_dot_product_attention`` as torch 2.13 computes it on the CPU: the flash kernel
(aten/src/ATen/native/cpu/FlashAttentionKernel.cpp), forward and backward, for 4-D float32
q, k, v without dropout.

Forward, per (batch, head) and block of ``qSplitSize`` queries (32; 64 from 192 queries, 256
from 768), the keys in one block (up to 512): ``qk = q @ k^T`` by MKL's gemm as torch calls it
(column-major, torch's leading dimensions), the causal columns -inf, then ``qk * scale`` and the
row max (or ``qk * scale + mask``), ``exp_u20(qk - max)`` on whole vectors summed lane-wise and
folded (``vec_reduce_all``), ``std::exp`` on the tail added in order, ``dst = qk @ v`` (gemm),
``out = dst * (1 / sum)`` and ``lse = max + log(sum)``.

Backward (``cpu_flash_attention_backward``): ``dsum = rowsum(grad_out * out)``
(``map2_reduce_all``), per block ``attn = exp(scale * q @ k^T (+ mask) - lse)`` (SLEEF's u10
exp), the causal columns 0, ``grad_v += attn^T @ grad_out``, ``grad_attn = grad_out @ v^T``,
``grad_attn = attn * (grad_attn - dsum)``, ``grad_q += scale * grad_attn @ k``,
``grad_k += scale * grad_attn^T @ q``: every product MKL's gemm with torch's alpha and beta
(one thread: torch calls it inside its parallel loop).

Without MKL (or another dtype, more than 512 keys) ``usable`` says no and the caller keeps its
composed form.
"""
from __future__ import annotations

import ctypes
import math

import numpy as np

from ...engine.registry import OPS, apply, register
from .. import _mkl, _no_derivative
from .._base import raw
from .._gemm import _kernel
from .._lecture_kernels import expf_u10
from .._softmax_kernels import _lanes
from .._tensor import Tensor
from ...engine.ops import _kernels as K

F32 = np.float32
_COL, _NO, _TR = 102, 111, 112
_KV_SPLIT = 512


def _q_split(q_len):
    return 256 if q_len >= 768 else 64 if q_len >= 192 else 32


def usable(q, k, v, mask, dropout_p):
    if dropout_p > 0.0:
        return False
    arrs = [raw(t) for t in (q, k, v)]
    if any(a.ndim != 4 or a.dtype != F32 for a in arrs):
        return False
    if not (arrs[0].shape[-1] == arrs[1].shape[-1] == arrs[2].shape[-1]):
        return False
    if arrs[0].shape[:2] != arrs[1].shape[:2] or arrs[1].shape != arrs[2].shape:
        return False
    if arrs[1].shape[2] > _KV_SPLIT or arrs[0].shape[2] == 0 or arrs[1].shape[2] == 0:
        return False
    if mask is not None and raw(mask).dtype != F32:
        return False
    return _kernel(np.dtype(F32)) is not None


# ------------------------------------------------------------------------------ pieces
def _blhe(a):
    """``a`` (B, H, L, E) seen as torch's kernel sees it, (B, L, H, E), with its strides: the
    array the kernel reads and the row stride (in elements) of one head's matrix."""
    t = a.transpose(0, 2, 1, 3)
    st = t.strides
    if st[3] != a.itemsize or any(s < 0 for s in st) or any(s % a.itemsize for s in st):
        t = np.ascontiguousarray(a).transpose(0, 2, 1, 3)   # (B, H, L, E) memory
        st = t.strides
    return t, st[1] // a.itemsize


def _gemm(ta, tb, m, n, kk, alpha, a, lda, b, ldb, beta, c, ldc):
    """torch's ``cpublas::gemm`` (column-major, sgemm) on numpy views: a, b, c are arrays whose
    first element is the operand's first element (c written in place)."""
    if n == 1:                                 # internal::normalize_last_dims
        ldc = m
    if ta != _NO:
        if m == 1:
            lda = kk
    elif kk == 1:
        lda = m
    if tb != _NO:
        if kk == 1:
            ldb = n
    elif n == 1:
        ldb = kk
    f = _kernel(np.dtype(F32))[0]
    lib = _mkl._load()
    prev = lib.MKL_Set_Num_Threads_Local(1)
    try:
        f(_COL, ta, tb, m, n, kk, alpha, _mkl.address(a), lda, _mkl.address(b), ldb, beta,
          _mkl.address(c), ldc)
    finally:
        lib.MKL_Set_Num_Threads_Local(prev)


_LOG2E, _LN2, _LN_MIN, _LN_MAX = np.array([0x3fb8aa3b, 0x3f317218, 0xc2aeac50, 0x42b17218],
                                          np.uint32).view(F32)
_FACT = [F32(v) for v in (0.00828929059, 0.0418978221, 0.166676521, 0.499991506, 0.999999701)]


def exp_u20(x):
    """``Vectorized<float>::exp_u20`` (AVX2/AVX512): 2 * 2^(n-1) * p(r), fused steps."""
    x = np.asarray(x, F32)
    with np.errstate(all="ignore"):
        low = x < _LN_MIN
        src = np.maximum(np.minimum(x, _LN_MAX), _LN_MIN)
        fx = np.floor(K._fma(src, _LOG2E, F32(0.5))).astype(F32)
        r = K._fma(-fx, _LN2, src)
        res = K._fma(r, _FACT[0], _FACT[1])
        for c in _FACT[2:]:
            res = K._fma(r, res, c)
        res = K._fma(r, res, F32(1))
        e = np.rint(fx - F32(1)).astype(np.int32)
        two = ((e + 127) << 23).astype(np.int32).view(F32)
        two = np.where(low, F32(0), two).astype(F32)
        return ((res * two).astype(F32) * F32(2)).astype(F32)


def _fold(acc):
    """``vec_reduce_all`` with + of (rows, L) lane vectors (shuffle tree, halves folded)."""
    w = acc.shape[1]
    while w > 1:
        w //= 2
        acc = (acc[:, :w] + acc[:, w:2 * w]).astype(F32)
    return acc[:, 0]


def _exp_reduce_sum(qk, mx):
    """``_exp_reduce_sum_fusion_kernel`` on rows ``qk`` (R, n) with row maxima ``mx``: the
    exponentials and their sums."""
    lanes = _lanes()
    r, n = qk.shape
    full = lanes * (n // lanes)
    out = np.empty_like(qk)
    d = (qk - mx[:, None]).astype(F32)
    if full:
        e = exp_u20(d[:, :full])
        out[:, :full] = e
        acc = np.zeros((r, lanes), F32)
        for i in range(0, full, lanes):
            acc = (acc + e[:, i:i + lanes]).astype(F32)
        s = _fold(acc)
    else:
        s = np.zeros(r, F32)
    if n > full:
        tail = np.exp(d[:, full:].astype(np.float64)).astype(F32)  # (the double exp)
        out[:, full:] = tail
        for j in range(n - full):
            s = (s + tail[:, j]).astype(F32)
    return out, s


def _rowdot(a, b):
    """``map2_reduce_all`` (x * y, +) over each row of a and b (R, n)."""
    lanes = _lanes()
    p = (a * b).astype(F32)
    r, n = p.shape
    if n < lanes:
        acc = p[:, 0].copy()
        for j in range(1, n):
            acc = (acc + p[:, j]).astype(F32)
        return acc
    acc = p[:, :lanes].copy()
    m = n - n % lanes
    for i in range(lanes, m, lanes):
        acc = (acc + p[:, i:i + lanes]).astype(F32)
    if n > m:
        acc[:, :n - m] = acc[:, :n - m] + p[:, m:]
    return _fold(acc)


def _mask_rows(mask, b, h, m, rows, S):
    if mask is None:
        return None
    return mask[b, h, m:m + rows, :S]


# ------------------------------------------------------------------------------ forward
def forward(q, k, v, mask, causal, scale):
    """(out (B, H, L, E) float32, lse (B, H, L) float32) as torch's flash kernel computes them."""
    B, H, L, E = q.shape
    S = k.shape[2]
    qt, ldq = _blhe(q)
    kt, ldk = _blhe(k)
    vt, ldv = _blhe(v)
    out = np.empty((B, L, H, E), F32)          # torch's output buffer (B, L, H, E)
    lse = np.empty((B, H, L), F32)
    qs = min(_q_split(L), L)
    sc = F32(scale)
    for b in range(B):
        for h in range(H):
            for m in range(0, L, qs):
                rows = min(qs, L - m)
                n_keys = min(m + rows, S) if causal else S
                if n_keys <= 0:
                    out[b, m:m + rows, h] = 0
                    lse[b, h, m:m + rows] = 0
                    continue
                kv = S                          # one key block (S <= 512)
                qk = np.empty((rows, kv), F32)
                _gemm(_TR, _NO, kv, rows, E, 1.0, kt[b, 0, h], ldk, qt[b, m, h], ldq,
                      0.0, qk, kv)
                if causal:
                    cols = np.arange(kv)[None, :]
                    qk[cols > (m + np.arange(rows))[:, None]] = -np.inf
                mrow = _mask_rows(mask, b, h, m, rows, kv)
                with np.errstate(all="ignore"):
                    if mrow is not None:   # a * scale + mask: GCC contracts it to an FMA
                        qk = K._fma(qk, sc, mrow)
                    else:
                        qk = (qk * sc).astype(F32)
                    mx = qk.max(axis=1)
                    dead = mx == -np.inf
                    e, s = _exp_reduce_sum(qk, np.where(dead, F32(0), mx).astype(F32))
                e[dead] = 0
                s[dead] = 0
                dst = np.empty((rows, E), F32)
                _gemm(_NO, _NO, E, rows, kv, 1.0, vt[b, 0, h], ldv, np.ascontiguousarray(e),
                      kv, 0.0, dst, E)
                mx = np.where(dead, F32(0), mx).astype(F32)
                s = np.where(s == 0, F32(1), s).astype(F32)
                recip = (F32(1) / s).astype(F32)
                out[b, m:m + rows, h] = (dst * recip[:, None]).astype(F32)
                lse[b, h, m:m + rows] = (mx + K.libm("log", np.log)(s)).astype(F32)
    # (torch 2.13 returns the output contiguous in (B, H, L, E): its stride() says so)
    return np.ascontiguousarray(out.transpose(0, 2, 1, 3)), lse


# ------------------------------------------------------------------------------ backward
def backward(go, q, k, v, out, lse, mask, causal, scale):
    B, H, L, E = q.shape
    S = k.shape[2]
    qt, ldq = _blhe(q)
    kt, ldk = _blhe(k)
    vt, ldv = _blhe(v)
    got = np.ascontiguousarray(go.transpose(0, 2, 1, 3))   # grad_out.transpose(1,2).contiguous()
    ot, ldo = _blhe(out)
    ldg = H * E
    # the gradients laid out as torch's zeros_like(q.transpose(1, 2)) lays them: q's strides
    gq, gk, gv = (np.zeros_like(t) for t in (qt, kt, vt))
    ldgq, ldgk, ldgv = (t.strides[1] // t.itemsize for t in (gq, gk, gv))
    qs = min(_q_split(L), L)
    sc = float(F32(scale))
    for b in range(B):
        for h in range(H):
            for m in range(0, L, qs):
                rows = min(qs, L - m)
                dsum = _rowdot(got[b, m:m + rows, h], ot[b, m:m + rows, h])
                n_keys = min(m + rows, S) if causal else S
                if n_keys <= 0:
                    continue
                kv = S
                attn = np.empty((rows, kv), F32)
                _gemm(_TR, _NO, kv, rows, E, sc, kt[b, 0, h], ldk, qt[b, m, h], ldq, 0.0,
                      attn, kv)
                mrow = _mask_rows(mask, b, h, m, rows, kv)
                with np.errstate(all="ignore"):
                    if mrow is not None:
                        attn = ((attn * F32(1)).astype(F32) + mrow).astype(F32)
                    attn = expf_u10((attn - lse[b, h, m:m + rows][:, None]).astype(F32))
                if causal:
                    cols = np.arange(kv)[None, :]
                    attn[cols > (m + np.arange(rows))[:, None]] = 0
                attn = np.ascontiguousarray(attn)
                _gemm(_NO, _TR, E, kv, rows, 1.0, got[b, m, h], ldg, attn, kv, 1.0,
                      gv[b, 0, h], ldgv)
                ga = np.empty((rows, kv), F32)
                _gemm(_TR, _NO, kv, rows, E, 1.0, vt[b, 0, h], ldv, got[b, m, h], ldg, 0.0,
                      ga, kv)
                ga = np.ascontiguousarray((attn * (ga - dsum[:, None]).astype(F32)).astype(F32))
                _gemm(_NO, _NO, E, rows, kv, sc, kt[b, 0, h], ldk, ga, kv, 1.0,
                      gq[b, m, h], ldgq)
                _gemm(_NO, _TR, E, kv, rows, sc, qt[b, m, h], ldq, ga, kv, 1.0,
                      gk[b, 0, h], ldgk)
    t = (0, 2, 1, 3)
    return gq.transpose(t), gk.transpose(t), gv.transpose(t)


# ------------------------------------------------------------------------------ the op
def _fwd(*arrays, causal=False, scale=1.0, box=None):
    a = box["inputs"]     # (q, k, v[, the mask broadcast to (B, H, L, S)]) with their strides
    out, lse = forward(a[0], a[1], a[2], a[3] if len(a) > 3 else None, causal, scale)
    box["lse"] = lse
    box["out"] = out
    return out


def _vjp(n, g):
    a = n.attrs
    box = a["box"]
    arrs = box["inputs"]
    grads = backward(raw(g), *arrs[:3], box["out"], box["lse"], arrs[3] if len(arrs) > 3
                     else None, a["causal"], a["scale"])
    res = [Tensor._wrap(x, True) for x in grads]
    # create_graph: torch has no derivative of this backward (grad_fn=<NotImplemented>)
    res = list(_no_derivative.attach("_scaled_dot_product_flash_attention_for_cpu_backward",
                                     (g,) + tuple(n.inputs[:3]), res))
    return tuple(res) + ((None,) if len(arrs) > 3 else ())


def _op():
    from .._ops import top

    if "torch_flash_attention" not in OPS:
        register("torch_flash_attention", _fwd, _vjp, check=False, second_order=False,
                 saves_inputs=False, reads_inputs=True,
                 legacy_name="ScaledDotProductFlashAttentionForCpuBackward")
    return top("torch_flash_attention", "ScaledDotProductFlashAttentionForCpuBackward0", "none")


def sdpa(q, k, v, mask, causal, scale):
    """The attention output as a Tensor (one node ``ScaledDotProductFlashAttentionForCpu``)."""
    arrs = [raw(q), raw(k), raw(v)]
    ins = [q, k, v]
    if mask is not None:
        B, H, L, _ = arrs[0].shape
        S = arrs[1].shape[2]
        marr = np.broadcast_to(raw(mask), (B, H, L, S))
        arrs.append(marr)
        ins.append(Tensor._wrap(np.asarray(raw(mask)), True))
    box = {"inputs": arrs}
    return apply(_op(), tuple(ins), {"causal": bool(causal), "scale": float(scale), "box": box})
