"""Linear algebra: matmul for every rank pairing, with Paddle's transpose_x/transpose_y."""
from __future__ import annotations

import numpy as np

from ..registry import apply, needs_grad, register
from .broadcast import sum_to
from ._util import const, quiet
from .shape import reshape, swap_last, transpose
from .. import cpu
from .. import mkl
from ..tuning import empty_huge


# Past these sizes the exact summation orders below cost more than they show, and BLAS is used.
# Measured here (numpy 2.4, OpenBLAS, one busy 2-core machine), exact order vs BLAS:
#   chained_matmul  64x64x64 (262K multiply-adds) 0.66 ms vs 0.016 ms; 256x256x10 2.0 ms;
#                   128^3 2.5 ms vs 0.11 ms; its cost is ~3 ufunc calls per step of K.
#   row_dots        (1000, 1000) 7 ms vs 0.12 ms; (1, 1M) 5 ms vs 0.3 ms; (25088, 4096) ~0.5 s.
# The conformance suites and the docstring examples (the products a learner prints and reads
# digit by digit) reach 18,000 multiply-adds (K <= 1024) and 300-element dot kernels, so these
# limits keep every printed example exact while a training step (the MLP's 256x256x10, vgg11's
# 25088x4096 Linear) runs at BLAS speed; a sum of thousands of float32 terms differs from the
# exact order only in its last bits.
_CHAIN_LIMIT = 1 << 16   # multiply-adds (about 0.5 ms at the limit)
# An unfused chain (the rounded products added in order: Paddle's convolutions everywhere, its
# matrix products on AMD) is one multiply and one reduction over the leading K axis, which numpy
# adds in order row after row (``unfused_chain``): 0.1 ms for 4x400 @ 400x120 where the loop took
# 1.4 ms, so it stays exact 8 times further (a LeNet's first convolution on 4 images: 470K).
_UNFUSED_LIMIT = 1 << 19


def unfused_chain(a, b):
    """``a @ b`` in float32 (numpy's broadcasting of the batch axes), each output the rounded
    products ``a[..., i, k] * b[..., k, j]`` added in order k = 0, 1, ...: the products laid out
    as a (K, ..., M, N) array and reduced over its leading axis, which numpy does as a running
    sum (the same bits as a loop of K additions; pairwise summation applies only along a
    contiguous inner axis, which K becomes when there is one output: then an accumulation)."""
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    # C order: K the outermost axis in memory, whatever the operands' strides (a transposed
    # operand, as the backward's G @ W^T, made numpy lay K innermost and sum it pairwise)
    prods = np.multiply(np.moveaxis(a, -1, 0)[..., :, None], np.moveaxis(b, -2, 0)[..., None, :],
                        dtype=np.float32, order="C")
    if prods.shape[0] == 0:
        return np.zeros(prods.shape[1:], np.float32)
    if prods[0].size == 1:   # K would be the contiguous axis, which numpy sums pairwise
        return np.add.accumulate(prods, axis=0)[-1]
    return np.add.reduce(prods, axis=0)
_DOT_LIMIT = 1 << 20     # elements of the (..., K) operand (about 5 ms at the limit)


def chained_matmul(x, y):
    """``x @ y`` (numpy's rank rules) summed the way Paddle's CPU kernels (MKL sgemm) sum.

    For float32 each output element is one fused multiply-add chain over k = 0, 1, ..., K-1,
    rounded to float32 after every step; measured on Paddle 2.6/3.3 this reproduces its matmul
    bit for bit for matrices (numpy's OpenBLAS groups the sums differently once K passes ~30).
    A product of two float32 values is exact in float64, so ``float32(acc + a*b)`` computed in
    float64 is the fused step. Other dtypes, and products past ``_CHAIN_LIMIT`` multiply-adds
    (see there for the measurements), use numpy's BLAS directly.
    """
    if x.dtype != np.float32 or y.dtype != np.float32:
        return np.matmul(x, y)
    vx, vy = x.ndim == 1, y.ndim == 1
    X = x[None, :] if vx else x
    Y = y[:, None] if vy else y
    k = X.shape[-1]
    batch = () if X.ndim == 2 and Y.ndim == 2 else np.broadcast_shapes(X.shape[:-2], Y.shape[:-2])
    m, n = X.shape[-2], Y.shape[-1]
    if k == 1 and not (vx and vy):
        # an outer product: one rounded product per element in every order; numpy's matmul
        # takes 150 ms for vgg11's (25088, 1) @ (1, 4096) weight gradient, a multiply 45 ms
        shape = np.broadcast_shapes(X.shape, Y.shape)
        out = np.multiply(X, Y, out=empty_huge(shape, np.float32))
        return out[..., 0, :] if vx else out[..., 0] if vy else out
    count = m * n * k
    for b in batch:
        count *= b
    fused = cpu.fused_products()
    if k == 0 or count > (_CHAIN_LIMIT if fused else _UNFUSED_LIMIT):
        return np.matmul(x, y)
    if not fused:  # AMD: each product rounded to float32, then added in order
        acc = unfused_chain(X, Y)
        if vx:
            acc = acc[..., 0, :]
        return acc[..., 0] if vy else acc
    if X.ndim == 2 and Y.ndim == 2:  # (the common case, without numpy's moveaxis)
        xk = np.ascontiguousarray(X.T, dtype=np.float64)[..., None]                  # k, m, 1
        yk = np.ascontiguousarray(Y, dtype=np.float64)[:, None, :]                   # k, 1, n
    else:
        xk = np.ascontiguousarray(np.moveaxis(X, -1, 0), dtype=np.float64)[..., None]     # k, .., m, 1
        yk = np.ascontiguousarray(np.moveaxis(Y, -2, 0), dtype=np.float64)[..., None, :]  # k, .., 1, n
    if xk.ndim != yk.ndim:  # batch axes of different ranks: align them after the k axis
        nd = max(xk.ndim, yk.ndim)
        xk = xk.reshape(xk.shape[:1] + (1,) * (nd - xk.ndim) + xk.shape[1:])
        yk = yk.reshape(yk.shape[:1] + (1,) * (nd - yk.ndim) + yk.shape[1:])
    prods = xk * yk          # k, .., m, n: every product, exact in float64 (at most 512 KiB)
    acc = prods[0].astype(np.float32)
    add = np.add
    for j in range(1, k):
        add(prods[j], acc, out=acc, casting="unsafe")  # the sum in float64, rounded to float32
    if vx:
        acc = acc[..., 0, :]
    if vy:
        acc = acc[..., 0]
    return acc


def row_dots(rows, v):
    """Dot products of each row of ``rows`` (..., K) with ``v`` (K,), summed as MKL's dot kernel.

    Measured on Paddle 2.6/3.3 (1-D @ 1-D, matrix @ vector, vector @ matrix^T; exact for every
    K <= 8 tried, and closer than any other order above): the products are rounded to float32,
    element 0 is set aside, elements 1.. are added into 4 lanes (lane = (k-1) % 4), the lanes are
    combined as (l0 + l2) + (l1 + l3), and element 0 is added last. The lanes are summed by one
    reduction over the leading axis of a (K//4, ..., 4) view, which numpy adds in order. Past
    ``_DOT_LIMIT`` elements numpy's BLAS is used (see there).
    """
    if rows.size > _DOT_LIMIT:
        return np.matmul(rows, v)
    prods = np.multiply(rows, v, dtype=np.float32)
    k = prods.shape[-1]
    if k == 0:
        return np.zeros(prods.shape[:-1], np.float32)
    q, r = divmod(k - 1, 4)
    if q:
        body = prods[..., 1:1 + 4 * q].reshape(prods.shape[:-1] + (q, 4))
        lanes = np.add.reduce(np.moveaxis(body, -2, 0), axis=0, initial=np.float32(0))
    else:
        lanes = np.zeros(prods.shape[:-1] + (4,), np.float32)
    if r:
        lanes[..., :r] = lanes[..., :r] + prods[..., 1 + 4 * q:]
    total = (lanes[..., 0] + lanes[..., 2]) + (lanes[..., 1] + lanes[..., 3])
    return (total + prods[..., 0]).astype(np.float32)


def _dot_kernel(x, y, transpose_x, transpose_y):
    """The dot-kernel form of ``x @ y`` if Paddle computes it with MKL's dot kernel, else None.

    Measured cases: 1-D @ 1-D, matrix @ vector, vector @ matrix^T, (m, k) @ (k, 1) and
    (1, k) @ (n, k)^T. ``y`` with ``transpose_y`` is stored (n, k): its rows are contiguous.
    """
    out = _mkl_gemv(x, y, transpose_x, transpose_y) if x.ndim == 1 or y.ndim == 1 else \
        _mkl_gemm(x, y, transpose_x, transpose_y)   # (on Intel the one-row and one-column
    if out is not None:                             # products are sgemm's too: the x gradient
        return out                                  # of vector @ matrix was 21 of 70)
    if x.dtype != np.float32 or y.dtype != np.float32 or transpose_x:
        return None
    if x.ndim == 2 and (y.ndim == 1 or (y.ndim == 2 and not transpose_y and y.shape[1] == 1)):
        col = _mkl_column(x, y)
        if col is not None:
            return col
    if y.ndim == 1 and x.ndim in (1, 2):
        return row_dots(x, y)
    if y.ndim != 2:
        return None
    if transpose_y and cpu.cpu_class() == "amd":
        # AMD (Paddle's MKL on its generic kernels), measured against real Paddle 3.3.1 / its
        # library on random shapes: one transposed row of B is a column in memory, MKL's column
        # product (6,641 of 6,641 values); one row of A (or a vector) is the transposed-B dot
        # kernels' one-row form (1,774 of 1,805 values, where the dot rule below gave 614;
        # 571 of 590 for a vector)
        if x.ndim == 2 and y.shape[0] == 1:
            col = _mkl_column(x, y.reshape(-1, 1))
            if col is not None:
                return col
        if (x.ndim == 1 or x.shape[0] == 1) and x.size * y.shape[0] <= _GENERIC_LIMIT:
            out = _bt_product(x.reshape(1, -1), y)
            return out[0] if x.ndim == 1 else out
    if x.ndim == 1 and transpose_y:
        return row_dots(y, x)
    if x.ndim == 2 and not transpose_y and y.shape[1] == 1:
        return row_dots(x, y[:, 0])[:, None]
    if x.ndim == 2 and transpose_y and x.shape[0] == 1:
        return row_dots(y, x[0])[None, :]
    return None


def _mkl_intel():
    """Whether Paddle's products take MKL's Intel paths here: the CPU class is not AMD, and MKL's
    CPU-dependent results stand for it (``nn._mkl_is_this_cpu``: not a class chosen to stand for
    another machine). The class read once (each read looks at the environment: three Python
    calls), no import statement (~10 k instructions each) on a product's path."""
    cls = cpu.cpu_class()
    return cls != "amd" and cls == cpu.detected()


def _mkl_gemv(x, y, transpose_x, transpose_y):
    """A product with a vector as Paddle's ``MatMulFunction`` computes it on Intel: one
    ``Blas::GEMV`` (MKL's ``cblas_?gemv``, one thread; ``mkl.gemv_one_thread``): vector @ matrix
    and matrix^T @ vector with the matrix transposed, matrix @ vector, vector @ matrix^T and
    vector @ vector (its one row) without, a batch of matrices times a vector folded into one
    matrix. Measured on Intel Sapphire Rapids against real 3.3.1 and 2.6.2 (k 1-2000 x n 1-129,
    70 shapes each): float32 every form 70 of 70 (vector @ matrix and its x gradient were 50 and
    21 of 70 before); float64 the transposed forms 70 of 70. float64 without the transpose is
    not MKL 2024's order here (Paddle's own older MKL-ML gives it; 19 of 70): None there, as on
    AMD (``_dot_kernel``'s measured rules), without MKL, or where this process stands for
    another CPU class."""
    if x.dtype != y.dtype or x.dtype not in (np.float32, np.float64) or (
            x.ndim != 1 and y.ndim != 1) or not _mkl_intel():
        return None
    single = x.dtype == np.float32
    if x.ndim == 1 and y.ndim == 1:
        form = (y[None, :], x, False) if single else None
    elif x.ndim == 1:
        form = None if y.ndim != 2 else (y, x, False) if transpose_y and single else \
            (y, x, True) if not transpose_y else None
    elif transpose_x:
        form = (x, y, True) if x.ndim == 2 else None
    else:
        form = (x.reshape(-1, x.shape[-1]), y, False) if single else None
    if form is None:
        return None
    out = mkl.gemv_one_thread(*form)
    if out is None:
        return None
    if x.ndim == 1 and y.ndim == 1:
        return out.reshape(())
    return out.reshape(x.shape[:-1]) if x.ndim > 2 else out


def _mkl_column(x, y):
    """A matrix times one column (``Linear(k, 1)``, a matrix times a vector) as Paddle computes
    it: MKL's sgemm on one thread, which the ``exact`` extra's MKL gives bit for bit (measured
    here, AMD EPYC Zen 4: 135 of 135 shapes, m 1-100 x k 1-300, equal to real Paddle 3.3.1 and
    2.6.2, where the dot-kernel rule below matched 24). None without MKL, or where this process
    stands for another CPU class (MKL's kernels follow the CPU it runs on)."""
    if cpu.cpu_class() != cpu.detected():   # (nn._mkl_is_this_cpu)
        return None
    out = mkl.sgemm_one_thread(x, y if y.ndim == 2 else y[:, None])
    if out is None:
        return None
    return out if y.ndim == 2 else out[:, 0]


def _generic_gemm(x, y, transpose_x, transpose_y):
    """A float32 matrix product as Paddle's MKL computes it on AMD (its generic kernels,
    ``_mkl_generic``; each operand passed with its flag, C a tensor of its own), or None: other
    classes, ranks, dtypes, both flags, one column, or past ``_GENERIC_LIMIT`` multiply-adds."""
    from . import _mkl_generic as G

    if (x.ndim != 2 or y.ndim != 2 or x.dtype != np.float32 or y.dtype != np.float32
            or (transpose_x and transpose_y) or cpu.cpu_class() != "amd"):
        return None
    a = x.T if transpose_x else x
    m, k = a.shape
    n = y.shape[0] if transpose_y else y.shape[1]
    if n == 1 or k == 0 or m * n * k > _GENERIC_LIMIT:
        return None
    if not transpose_y:
        return G.sgemm(a, y, None, trans_a=transpose_x)
    return _bt_product(a, y)


def _batched_generic_gemm(x, y, transpose_x, transpose_y):
    """A batch of float32 matrix products on AMD as Paddle's MKL computes them: one GEMM per
    batch, its C at ``i * M * N`` floats in the output (its alignment picks the scalar-order
    heads, ``_mkl_generic``); measured on real 3.3.1/2.6.2 ([2,4,17,17] @ [2,4,17,6]: every batch
    equal; B transposed, the gradient's dOut @ Y^T: ``_bt_product``'s partial sums, each A at
    ``i * M * K`` floats). None: other classes, both flags, past ``_GENERIC_LIMIT`` in all."""
    from . import _mkl_generic as G

    if (x.ndim < 2 or y.ndim < 2 or max(x.ndim, y.ndim) < 3 or (transpose_x and transpose_y)
            or x.dtype != np.float32 or y.dtype != np.float32 or cpu.cpu_class() != "amd"):
        return None
    a = np.swapaxes(x, -1, -2) if transpose_x else x
    batch = np.broadcast_shapes(a.shape[:-2], y.shape[:-2])
    m, k = a.shape[-2:]
    n = y.shape[-2] if transpose_y else y.shape[-1]
    if n == 1 or k == 0 or m * n * k * int(np.prod(batch)) > _GENERIC_LIMIT:
        return None
    index = np.arange(int(np.prod(batch)), dtype=np.int64).reshape(batch)
    if not transpose_y:
        return G.sgemm(a, y, index * (m * n) % 16, trans_a=transpose_x)
    out = np.empty(batch + (m, n), np.float32)
    for (rows, cols), parts in G.sgemm_bt_partials(a, y, index * (m * k) % 16):
        acc = parts[0]
        for part in parts[1:]:
            acc = np.add(part, acc, dtype=np.float32)
        out[..., rows, cols] = acc
    return out


def _bt_product(a, bt):
    """``a @ bt.T`` (float32 matrices, B passed transposed) as ``_mkl_generic``'s partial sums
    for B transposed add up from C = 0."""
    from . import _mkl_generic as G

    out = np.empty((a.shape[0], bt.shape[0]), np.float32)
    for (rows, cols), parts in G.sgemm_bt_partials(a, bt):
        acc = parts[0]
        for part in parts[1:]:
            acc = np.add(part, acc, dtype=np.float32)
        out[rows, cols] = acc
    return out


_GENERIC_LIMIT = 1 << 23   # (multiply-adds; as the convolutions' in conv.py)


def _matmul_fwd(x, y, transpose_x=False, transpose_y=False, out_shape=None):
    if x.ndim >= 3 and y.ndim == 2 and not transpose_x:
        # Paddle's MatMulFunction: a batch of x times one matrix is one GEMM, the batch folded
        # into x's rows (nn.Linear on [B, T, F]: the same bits as on [B*T, F])
        out = _matmul_fwd(x.reshape(int(np.prod(x.shape[:-1])), x.shape[-1]), y, False,
                          transpose_y)
        out = out.reshape(x.shape[:-1] + out.shape[-1:])
        return np.reshape(out, out_shape) if out_shape is not None else out
    out = _dot_kernel(x, y, transpose_x, transpose_y)
    if out is None:
        out = _generic_gemm(x, y, transpose_x, transpose_y)
    if out is None:
        out = _mkl_gemm(x, y, transpose_x, transpose_y)
    if out is None:
        out = _mkl_batched_gemm(x, y, transpose_x, transpose_y)
    if out is None:
        out = _batched_generic_gemm(x, y, transpose_x, transpose_y)
    if out is not None:
        return np.reshape(out, out_shape) if out_shape is not None else out
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    out = chained_matmul(x, y)
    return np.reshape(out, out_shape) if out_shape is not None else out


_MKL_GEMM_DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


def _mkl_gemm(x, y, transpose_x, transpose_y):
    """A float32 matrix times a matrix as Paddle computes it on Intel: MKL's ``cblas_sgemm`` on
    one thread, each operand passed as stored with its transpose flag (``mkl.sgemm_one_thread``
    on the transposed views), or None: AMD (``_generic_gemm``), other ranks or dtypes, no MKL,
    or a process standing for another CPU class. Measured on Intel AVX-512 (Sapphire Rapids)
    against real 3.3.1: 120 of 120 random products (m < 70, k < 600, n < 130, either flag)
    equal, where the fused chain (and numpy's BLAS past ``_CHAIN_LIMIT``) gave 73; a LeNet-style
    (16, 512) @ (512, 64) Linear differed in 922 of 1,024 values before."""
    if (x.ndim != 2 or y.ndim != 2 or x.dtype != y.dtype
            or x.dtype not in _MKL_GEMM_DTYPES or not _mkl_intel()):
        return None
    # each tensor as Paddle stores it: contiguous (its transpose, .t(), slicing copy), so only
    # the op's own flags pass an operand transposed, never a view's layout here
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    if x.dtype != np.float32:
        # float64: MKL's cblas_dgemm, as Paddle's Blas::GEMM (sweep against real 3.3.1 here);
        # complex64/complex128: cblas_cgemm/zgemm (real 3.3.1 and 2.6.2: 18 of 18 random
        # products equal, 2-D and batched, rows/columns of one; numpy's BLAS gave 3)
        return mkl.gemm_one_thread(x, y, transpose_x, transpose_y)
    out = mklml_small_nt(x, y) if transpose_y and not transpose_x else None
    if out is not None:
        return out
    return mkl.sgemm_one_thread(x.T if transpose_x else x, y.T if transpose_y else y)


def _in_small_nt(m, k, n):
    return (n in (2, 3) and m >= 2 and m * n < 32 and 2 <= k <= min(23 * m, 300)
            and not (m == 2 and n == 3 and k < 4))


def mklml_small_nt(x, y):
    """x @ y^T of float32 matrices stored as given where Paddle's MKL sums it otherwise than
    the MKL loaded here, else None. (Intel paths only: callers check.)"""
    m, k, n = x.shape[0], x.shape[1], y.shape[0]
    if x.dtype == np.float32 and _in_small_nt(m, k, n):
        # x @ y^T with 2 or 3 rows of y: Paddle's MKL (the wheel's libmklml) sums each element
        # as one fused chain over k up to k ~ 23.5 m (and some 300..600); the MKL here does so
        # only from 32 outputs (m * n) on. Sweep against real 3.3.1 and 2.6.2 here (m 1..300,
        # n 1..8, k 1..600, 2,057 products): MKL's differed in 500, the chain here fixes 493
        # and breaks none; the 7 left are just past the bounds (m = 6, k = 140; m = 11..13,
        # k = 255..300: not emulated)
        return chained_matmul(x, y.T)
    return None


def _mkl_batched_gemm(x, y, transpose_x, transpose_y):
    """A batch of float32/float64 matrix products as Paddle's ``MatMulFunction`` computes it on
    Intel: one ``Blas::BatchedGEMM``, MKL's ``cblas_?gemm_batch`` on one thread, each operand's
    matrices passed as stored with the op's own transpose flags (a broadcast operand's one
    matrix for every product); a batch of one is one GEMM (``_mkl_gemm``). MKL_VERBOSE under
    real 3.3.1 here: SGEMM_BATCH / DGEMM_BATCH, and SGEMM for a batch of one. Sweep of random
    3-D/4-D products (either flag, broadcast batches, rows or columns of one) against real
    3.3.1: 42 of 42 forward equal with the flags passed as the op's (a (1, k) operand read as
    contiguous without its flag gave 38). None: AMD (``_batched_generic_gemm``), a vector
    operand, other dtypes, no MKL or a process standing for another CPU class."""
    if (x.ndim < 2 or y.ndim < 2 or max(x.ndim, y.ndim) < 3 or x.dtype != y.dtype
            or x.dtype not in _MKL_GEMM_DTYPES or not _mkl_intel() or not mkl.load()):
        return None
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    count = int(np.prod(batch, dtype=np.int64))
    if count == 1:
        out = _mkl_gemm(x.reshape(x.shape[-2:]), y.reshape(y.shape[-2:]), transpose_x,
                        transpose_y)
        return None if out is None else out.reshape(batch + out.shape)

    def stack(t):
        if t.shape[:-2] == batch:
            return np.ascontiguousarray(t).reshape((count,) + t.shape[-2:])
        if all(s == 1 for s in t.shape[:-2]):     # one matrix for every product
            return np.broadcast_to(np.ascontiguousarray(t).reshape(t.shape[-2:]),
                                   (count,) + t.shape[-2:])
        return np.ascontiguousarray(np.broadcast_to(t, batch + t.shape[-2:])).reshape(
            (count,) + t.shape[-2:])

    if (x.dtype == np.float32 and transpose_y and not transpose_x
            and _in_small_nt(x.shape[-2], x.shape[-1], y.shape[-2])):
        # the batch's products as the 2-D ones (``mklml_small_nt``): Paddle's batched sgemm
        # sums each as one chain too (real 3.3.1/2.6.2: 150 batches of 2 or 3 products, m
        # 2..9, k 2..60, n 2..4: all equal; MKL's batch here gave 90 of the 92 in the region
        # other bits)
        xs_, ys_ = stack(x), stack(y)
        out = np.stack([chained_matmul(xs_[i], np.ascontiguousarray(ys_[i].T))
                        for i in range(count)])
        return out.reshape(batch + out.shape[1:])
    out = mkl.gemm_batch_one_thread(stack(x), stack(y), transpose_x, transpose_y)
    return None if out is None else out.reshape(batch + out.shape[1:])


def _fold_init_dims(t):
    """Paddle's ``FoldInitDims``: (B, h, w) -> (B*h, w); a matrix is left as it is."""
    shape = t.data.shape
    return t if len(shape) != 3 else reshape(t, (shape[0] * shape[1], shape[2]))


def _fold_head_and_last_dims(t):
    """Paddle's ``FoldHeadAndLastDims``: (B, h, w) -> (h, B, w) -> (h, B*w)."""
    shape = t.data.shape
    if len(shape) != 3:
        return t
    return reshape(transpose(t, (1, 0, 2)), (shape[1], shape[0] * shape[2]))


def _calc_input_grad(a, trans_a, fold_a, b, trans_b, fold_b, out_is_matrix):
    """Paddle's ``CalcInputGrad``: a batched product, unless the gradient is one matrix while an
    operand holds the batch; then the batch is folded into the summed axis and the gradient is
    one matrix product (so it is summed in one chain, not per batch and then added up)."""
    if out_is_matrix and (a.data.ndim == 3 or b.data.ndim == 3):
        a = _fold_init_dims(a) if fold_a else _fold_head_and_last_dims(a)
        b = _fold_init_dims(b) if fold_b else _fold_head_and_last_dims(b)
    return matmul(a, b, transpose_x=trans_a, transpose_y=trans_b)


def _as_matrix_sequence(shape):
    """``ReshapeTensorIntoMatrixSequence``: the stored (B, h, w) or (h, w) of an operand."""
    if len(shape) <= 2:
        return tuple(shape)
    return (int(np.prod(shape[:-2], dtype=np.int64)),) + tuple(shape[-2:])


def _folded_matmul_grads(n, g):
    """Paddle's matmul_grad when an operand has at most 2 dims (no batch broadcasting): the
    operands are viewed as (B, h, w) / (h, w) and each gradient is one ``CalcInputGrad``."""
    x, y = n.inputs
    tx, ty = n.attrs.get("transpose_x", False), n.attrs.get("transpose_y", False)
    xs, ys = n.in_meta[0][0], n.in_meta[1][0]
    tx, ty = tx and len(xs) > 1, ty and len(ys) > 1  # a vector's flag is ignored
    xh = _as_matrix_sequence(xs if len(xs) > 1 else (1, xs[0]))
    yh = _as_matrix_sequence(ys if len(ys) > 1 else (ys[0], 1))
    X, Y = reshape(x, xh), reshape(y, yh)
    m = xh[-1] if tx else xh[-2]
    nn = yh[-2] if ty else yh[-1]
    batch = xh[:1] if len(xh) == 3 else yh[:1] if len(yh) == 3 else ()
    G = reshape(g, batch + (m, nn))
    xm, ym = len(xh) == 2, len(yh) == 2
    if tx and ty:
        dx_args = (Y, True, True, G, True, False, xm)
        dy_args = (G, True, True, X, True, False, ym)
    elif tx:
        dx_args = (Y, False, False, G, True, False, xm)
        dy_args = (X, False, False, G, False, True, ym)
    elif ty:
        dx_args = (G, False, False, Y, False, True, xm)
        dy_args = (G, True, True, X, False, True, ym)
    else:
        dx_args = (G, False, False, Y, True, False, xm)
        dy_args = (X, True, True, G, False, True, ym)
    dX = reshape(_calc_input_grad(*dx_args), xs) if needs_grad(n, 0) else None
    dY = reshape(_calc_input_grad(*dy_args), ys) if needs_grad(n, 1) else None
    return dX, dY


def _broadcast_matmul_grads(n, g, tx, ty):
    """Paddle's matmul_grad for batches that broadcast: dx and dy as its MatMulFunction calls
    (operands and flags by the op's flags), each summed to its input's shape."""
    x, y = n.inputs
    xs, ys = n.in_meta[0][0], n.in_meta[1][0]
    forms = {(True, True): ((y, g, True, True), (g, x, True, True)),
             (True, False): ((y, g, False, True), (x, g, False, False)),
             (False, True): ((g, y, False, False), (g, x, True, False)),
             (False, False): ((g, y, False, True), (x, g, True, False))}[(bool(tx), bool(ty))]
    dX = reshape(sum_to(matmul(*forms[0]), xs), xs) if needs_grad(n, 0) else None
    dY = reshape(sum_to(matmul(*forms[1]), ys), ys) if needs_grad(n, 1) else None
    return dX, dY


def _matmul_vjp(n, g):
    x, y = n.inputs
    tx, ty = n.attrs.get("transpose_x", False), n.attrs.get("transpose_y", False)
    xs, ys = n.in_meta[0][0], n.in_meta[1][0]
    if (len(xs) <= 2 or len(ys) <= 2) and not (len(xs) == 1 and len(ys) == 1):
        return _folded_matmul_grads(n, g)
    if len(xs) > 2 and len(ys) > 2 and cpu.cpu_class() != "amd":
        # Paddle's MatmulGradKernel: equal batch dims are matrix sequences (CalcInputGrad),
        # else each gradient one product of the forms below, summed over the broadcast dims.
        # On Intel the operand order and flags pick MKL's kernels: the x gradient of
        # x^T @ y as swap(G @ Y^T) gave other bits than Paddle's Y @ G^T (sweep here)
        if xs[:-2] == ys[:-2]:
            return _folded_matmul_grads(n, g)
        return _broadcast_matmul_grads(n, g, tx, ty)
    X = x if len(xs) > 1 else reshape(x, (1, xs[0]))
    Y = y if len(ys) > 1 else reshape(y, (ys[0], 1))
    if len(xs) == 1:
        tx = False
    if len(ys) == 1:
        ty = False
    Xe = swap_last(X) if tx else X  # the matrices actually multiplied
    Ye = swap_last(Y) if ty else Y
    full = np.broadcast_shapes(Xe.data.shape[:-2], Ye.data.shape[:-2]) + (
        Xe.data.shape[-2], Ye.data.shape[-1])
    G = reshape(g, full)
    dX = dY = None
    if needs_grad(n, 0):
        dXe = matmul(G, Ye, transpose_y=True)
        dX = swap_last(dXe) if tx else dXe
        dX = reshape(sum_to(dX, X.data.shape), xs)
    if needs_grad(n, 1):
        dYe = matmul(Xe, G, transpose_x=True)
        dY = swap_last(dYe) if ty else dYe
        dY = reshape(sum_to(dY, Y.data.shape), ys)
    return dX, dY


MATMUL = register(
    "matmul", _matmul_fwd, _matmul_vjp, legacy_name="MatmulBackward", double_grad_zeros=False,
    saves_output=False,
    examples=[([(2, 3), (3, 4)], {}), ([(3,), (3,)], {}), ([(3,), (3, 2)], {}),
              ([(2, 2, 3), (3,)], {}), ([(2, 3, 4), (4, 2)], {}), ([(1, 2, 3), (4, 3, 2)], {}),
              ([(3, 2), (4, 3)], {"transpose_x": True, "transpose_y": True})])


def matmul(x, y, transpose_x=False, transpose_y=False, out_shape=None):
    """``x @ y`` (numpy's rank rules) after the optional swap of each operand's last two axes.

    ``out_shape`` lets the dialect shape a 1-D @ 1-D result (Paddle 2.2: ``[1]``, later ``[]``).
    """
    attrs = {}
    if transpose_x:
        attrs["transpose_x"] = True
    if transpose_y:
        attrs["transpose_y"] = True
    if out_shape is not None:
        attrs["out_shape"] = tuple(out_shape)
    return apply(MATMUL, (x, y), attrs)


# ---------------------------------------------------------------- bmm, dot, cross
def _bmm_vjp(n, g):
    # Paddle's bmm_grad: CalcInputGrad(dOut, false, Y, true) and (X, true, dOut, false), the
    # same batched GEMMs as matmul with its transpose flags (MKL's transposed-operand kernels)
    x, y = n.inputs
    return matmul(g, y, transpose_y=True), matmul(x, g, transpose_x=True)


def _bmm_fwd(x, y):
    """Paddle's bmm kernel: blas.MatMul of the two batches, matmul's batched GEMM."""
    return _matmul_fwd(x, y)


BMM = register("bmm", _bmm_fwd, _bmm_vjp, legacy_name="BmmBackward",
               examples=[([(2, 1, 2), (2, 2, 3)], {})])


def bmm(x, y):
    """Batched matrix product of two 3-D tensors with equal batch sizes."""
    return apply(BMM, (x, y))


def _dot_fwd(x, y, out_shape=None):
    if x.dtype == y.dtype and x.dtype in (np.float32, np.float64):
        # Paddle's CPU dot kernel, a plain loop: each product rounded, added in order (not
        # fused) on every class: AMD 30 of 30 random float32; Intel Sapphire Rapids against
        # real 3.3.1, n 2-1000, 1-D and rows: float32 33 of 33, float64 33 of 33 (numpy's
        # pairwise sum 14 and 13; a PaddleGAN script's spectral_norm hook, sigma = dot(u, Wv))
        prods = np.multiply(x, y, dtype=x.dtype)
        out = np.cumsum(prods, axis=-1, dtype=x.dtype)[..., -1] if prods.shape[-1] \
            else np.zeros(prods.shape[:-1], x.dtype)  # (cumsum adds in order; sum pairs)
        return np.reshape(out, out_shape) if out_shape is not None else out
    out = np.sum(x * y, axis=-1)
    return np.reshape(out, out_shape) if out_shape is not None else out


def _dot_vjp(n, g):
    """d(sum x*y)/dx = g * y, with g broadcast over the summed last axis."""
    from .math import multiply

    x, y = n.inputs
    lead = n.in_meta[0][0][:-1]
    gk = reshape(g, lead + (1,))
    return multiply(gk, y), multiply(gk, x)


DOT = register("dot", _dot_fwd, _dot_vjp, legacy_name="DotBackward",
               examples=[([(3,), (3,)], {}), ([(2, 3), (2, 3)], {})])


def dot(x, y, out_shape=None):
    """Inner product over the last axis (1-D, or a batch of rows for 2-D)."""
    attrs = {} if out_shape is None else {"out_shape": tuple(out_shape)}
    return apply(DOT, (x, y), attrs)


CROSS = register(
    "cross", lambda x, y, axis: np.cross(x, y, axis=axis),
    lambda n, g: (cross(n.inputs[1], g, n.attrs["axis"]), cross(g, n.inputs[0], n.attrs["axis"])),
    legacy_name="CrossBackward",
    examples=[([(3,), (3,)], {"axis": 0}), ([(2, 3), (2, 3)], {"axis": 1})])


def cross(x, y, axis):
    """The vector product along ``axis`` (of size 3)."""
    return apply(CROSS, (x, y), {"axis": int(axis)})


# ---------------------------------------------------------------- inverse, det
def _inverse_vjp(n, g):
    """d(A^-1) = -A^-1 dA A^-1, so dA = -(A^-T (g A^-T)), grouped as Paddle's kernel does."""
    from .math import neg

    inv = n.out()
    return neg(matmul(inv, matmul(g, inv, transpose_y=True), transpose_x=True))


def _lu_f32(a):
    """Partial-pivot LU of one float32 or float64 matrix (float32 unless float64 is given),
    rounded step by step as Eigen's unblocked PartialPivLU (matrices up to 16 rows).

    Returns (lu, perm, sign): L (unit diagonal, below) and U packed in ``lu``, the row order and
    the permutation's sign. Plain multiply then subtract, no fused steps (measured on Paddle).
    """
    dt = np.float64 if np.asarray(a).dtype == np.float64 else np.float32
    lu = np.array(a, dtype=dt)
    n = lu.shape[0]
    perm = list(range(n))
    sign = 1.0
    for k in range(n):
        p = k + int(np.argmax(np.abs(lu[k:, k])))
        if p != k:
            lu[[k, p]] = lu[[p, k]]
            perm[k], perm[p] = perm[p], perm[k]
            sign = -sign
        if lu[k, k] != 0:  # (Eigen's LU leaves a zero pivot's column undivided)
            lu[k + 1:, k] = lu[k + 1:, k] / lu[k, k]
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:]).astype(dt)
    return lu, perm, sign


def _inv_f32(a):
    """Inverse by LU solves of the identity's columns: forward with L, backward with U (row by
    row, k ascending, dividing by multiplying with 1/U[i, i]) -- Paddle's float32 results, and
    its float64 ones (same Eigen kernel) up to 16 rows."""
    lu, perm, _ = _lu_f32(a)
    dt = lu.dtype.type
    n = len(perm)
    x = np.zeros((n, n), dt)
    x[np.arange(n), perm] = 1
    for i in range(n):
        for j in range(i):
            x[i] -= (lu[i, j] * x[j]).astype(dt)
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            x[i] -= (lu[i, j] * x[j]).astype(dt)
        x[i] *= dt(1) / lu[i, i]
    return x


def _det_f32(a):
    lu, _perm, sign = _lu_f32(a)
    dt = lu.dtype.type
    out = dt(1)
    for v in np.diag(lu):
        out = dt(out * v)
    return dt(out * dt(sign))


def _batched(fn, x, tail):
    """Apply a one-matrix function over the leading (batch) axes of ``x``."""
    out = np.empty(x.shape[:-2] + tail, x.dtype)
    for idx in np.ndindex(x.shape[:-2]):
        out[idx] = fn(x[idx])
    return out


def _eigen_lu_f64(x):
    """float64 matrices Paddle's Eigen factors unblocked (up to 16 rows: ``_lu_f32``'s steps in
    double; measured against real 3.3.1 and 2.6.2 here). Larger ones are Eigen's blocked LU
    (its GEMM updates, not emulated): numpy's LAPACK."""
    return x.dtype == np.float64 and x.shape[-1] <= 16


def _inverse_fwd(x):
    if x.dtype == np.float32 or _eigen_lu_f64(x):
        return _batched(_inv_f32, x, x.shape[-2:])
    return np.linalg.inv(x)


def _det_fwd(x):
    if x.dtype == np.float32 or _eigen_lu_f64(x):
        return _batched(_det_f32, x, ())
    return np.asarray(np.linalg.det(x), x.dtype)


INVERSE = register("inverse", _inverse_fwd, _inverse_vjp,
                   legacy_name="InverseBackward", domain="real",
                   examples=[([np.array([[2.0, 0.5], [0.3, 1.5]])], {})])


def inverse(x):
    return apply(INVERSE, (x,))


def _det_vjp(n, g):
    """d det(A) / dA = det(A) * A^-T (batched)."""
    from .math import multiply

    x = n.inputs[0]
    k = reshape(multiply(g, n.out()), n.out_data[0].shape + (1, 1))
    return multiply(k, swap_last(inverse(x)))


DET = register("determinant", _det_fwd, _det_vjp,
               legacy_name="DeterminantBackward", node_name="DetGradNode",
               examples=[([np.array([[2.0, 0.5], [0.3, 1.5]])], {})])


def det(x):
    return apply(DET, (x,))


def _slogdet_fwd(x):
    """Paddle's slogdet: [sign, log|det|] stacked on a new first axis; the determinant as its
    det kernel computes it (float32: the LU above, the pivots multiplied in float32), then the
    log of its absolute value (float32: the double log rounded, as glibc's logf). Real 3.3.1
    and 2.6.2 equal on 22 matrices of 2..7 rows and a batch (measured here)."""
    det = _det_fwd(x)
    with quiet(all="ignore"):
        logabs = np.log(np.abs(det).astype(np.float64)).astype(x.dtype)
    return np.stack([np.sign(det).astype(x.dtype), logabs])


def _slogdet_vjp(n, g):
    """Paddle's slogdet_grad: the log|det| part's gradient times inverse(x)^T; the sign part
    takes none. A singular matrix anywhere in the batch (a sign of 0) makes every element NaN."""
    from .broadcast import broadcast_to
    from .index import getitem
    from .math import multiply

    x = n.inputs[0]
    if not n.out().data[0].all():
        return broadcast_to(const(g, np.nan), list(n.in_meta[0][0]))
    k = reshape(getitem(g, (1,)), tuple(n.in_meta[0][0][:-2]) + (1, 1))
    return multiply(k, swap_last(inverse(x)))


SLOGDET = register("slogdet", _slogdet_fwd, _slogdet_vjp,
                   legacy_name="SlogDeterminantBackward",
                   examples=[([np.array([[2.0, 0.5], [0.3, 1.5]])], {}),
                             ([np.array([[[1.0, 2.0], [3.0, 1.0]], [[2.0, 0.1], [0.4, 3.0]]])],
                              {})])


def slogdet(x):
    return apply(SLOGDET, (x,))


# ---------------------------------------------------------------- matrix_power (Paddle's kernel)
def _matrix_power_fwd(x, n):
    """Paddle's matrix_power kernel: n = 0 the identity; n < 0 the inverse's power; 1 a copy;
    2, 3, 4 as X X, (X X) X and (X X)(X X); past 4 by squaring (Z squared each bit, Out times
    Z where the bit is set, from the lowest bit). Each product Paddle's (``_matmul_fwd``)."""
    if n == 0:
        return np.array(np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape))
    base = _inverse_fwd(x) if n < 0 else x
    k = abs(n)
    if k == 1:
        return np.array(base)
    if k == 2:
        return _matmul_fwd(base, base)
    if k == 3:
        return _matmul_fwd(_matmul_fwd(base, base), base)
    if k == 4:
        sq = _matmul_fwd(base, base)
        return _matmul_fwd(sq, sq)
    z = out = None
    while k > 0:
        bit, k = k & 1, k >> 1
        z = base if z is None else _matmul_fwd(z, z)
        if bit:
            out = z if out is None else _matmul_fwd(out, z)
    return out


def _matrix_power_vjp(n, g):
    """Paddle's matrix_power_grad: for X^k (k = |n|, X the inverse for n < 0) the powers
    X^1 .. X^(k-1) as left-to-right products, then dX = (X^(k-1))^T g + g (X^(k-1))^T plus,
    for i = 0 .. k-3, ((X^(i+1))^T g) (X^(k-2-i))^T, each product with the transpose flag and
    added in that order; n < 0 then -(X^T dX) X^T (n = -1: -(Out^T g) Out^T)."""
    from .math import add, neg

    p = n.attrs["n"]
    x = n.inputs[0]
    if p == 0:
        return const(g, np.zeros(n.in_meta[0][0], g.data.dtype))
    if p == 1:
        return g
    if p == -1:
        out = n.out()
        return matmul(neg(matmul(out, g, True, False)), out, False, True)
    base = inverse(x) if p < 0 else x
    k = abs(p)
    powers = [base]
    while len(powers) < k - 1:
        powers.append(matmul(powers[-1], base))
    dx = add(matmul(g, powers[k - 2], False, True), matmul(powers[k - 2], g, True, False))
    for start in range(k - 2):
        a_da = matmul(powers[start], g, True, False)
        dx = add(matmul(a_da, powers[k - 3 - start], False, True), dx)
    if p > 0:
        return dx
    return matmul(neg(matmul(base, dx, True, False)), base, False, True)


_MP_EXAMPLE = np.array([[1.2, 0.3, -0.2], [0.1, 0.9, 0.4], [-0.3, 0.2, 1.1]])
MATRIX_POWER = register("matrix_power", _matrix_power_fwd, _matrix_power_vjp,
                        legacy_name="MatrixPowerBackward",
                        examples=[([(3, 3)], {"n": 3}), ([(2, 2, 2)], {"n": 2}),
                                  ([_MP_EXAMPLE], {"n": 5}), ([_MP_EXAMPLE], {"n": -2}),
                                  ([_MP_EXAMPLE], {"n": -1}), ([(3, 3)], {"n": 1})])


def matrix_power(x, n):
    return apply(MATRIX_POWER, (x,), {"n": int(n)})


# ---------------------------------------------------------------- trace (Paddle's kernel)
def _trace_fwd(x, offset=0, axis1=0, axis2=1):
    """Paddle's trace kernel: the ``offset`` diagonal over (axis1, axis2), its elements added
    one after another (real 3.3.1 / 2.6.2: 8- and 17-element diagonals, float32 and float64)."""
    d = np.diagonal(x, offset, axis1, axis2)
    if d.shape[-1] == 0:
        return np.zeros(d.shape[:-1], x.dtype)
    return np.array(np.cumsum(d, axis=-1, dtype=x.dtype)[..., -1])


def _diag_positions(shape, offset, axis1, axis2):
    n1, n2 = shape[axis1], shape[axis2]
    start1, start2 = (0, offset) if offset >= 0 else (-offset, 0)
    count = max(0, min(n1 - start1, n2 - start2))
    k = np.arange(count)
    return start1 + k, start2 + k


def _trace_grad_fwd(g, shape=(), offset=0, axis1=0, axis2=1):
    """trace_grad: zeros (+0) of the input's shape with dout on the diagonal."""
    out = np.zeros(shape, g.dtype)
    rows, cols = _diag_positions(shape, offset, axis1, axis2)
    if rows.size:
        view = np.moveaxis(out, (axis1, axis2), (-2, -1))
        view[..., rows, cols] = np.asarray(g)[..., None]
    return out


def _trace_attrs(n):
    return {k: n.attrs.get(k, d) for k, d in (("offset", 0), ("axis1", 0), ("axis2", 1))}


TRACE_P = register("trace", _trace_fwd,
                   lambda n, g: apply(TRACE_GRAD, (g,), dict(_trace_attrs(n),
                                                             shape=tuple(n.in_meta[0][0]))),
                   legacy_name="TraceBackward", saves_inputs=False,
                   examples=[([(3, 4)], {"offset": 0, "axis1": 0, "axis2": 1}),
                             ([(2, 3, 3)], {"offset": 1, "axis1": 1, "axis2": 2}),
                             ([(4, 3)], {"offset": -1, "axis1": 0, "axis2": 1})])
TRACE_GRAD = register("trace_grad", _trace_grad_fwd,
                      lambda n, gg: apply(TRACE_P, (gg,), _trace_attrs(n)),
                      legacy_name="TraceGradBackward", saves_inputs=False,
                      examples=[([()], {"shape": (3, 4), "offset": 0, "axis1": 0, "axis2": 1}),
                                ([(2,)], {"shape": (2, 3, 3), "offset": 1, "axis1": 1,
                                          "axis2": 2})])


def trace(x, offset=0, axis1=0, axis2=1):
    """Paddle's trace op (axes already normalised to non-negative, distinct)."""
    return apply(TRACE_P, (x,), {"offset": int(offset), "axis1": int(axis1),
                                 "axis2": int(axis2)})
