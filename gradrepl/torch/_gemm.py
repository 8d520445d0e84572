"""torch's CPU matrix products, as torch computes them: Intel MKL's BLAS.

torch 2.13's x86 wheels send float32/float64 ``mm``, ``addmm``, ``bmm`` and ``mv`` to MKL
(``cblas_?gemm``/``?gemv``), whose blocking sums each output element in an order of its own; only
MKL itself gives torch's last bits. gradrepl loads ``libmkl_rt`` through ``_mkl._load()``; where it
is absent every function here returns None and the caller keeps its numpy product.

An operand is passed as torch passes it: a row-major matrix as it is, the transpose of a row-major
matrix (``W.t()`` in ``linear``) as that matrix with the transpose flag, anything else copied.
"""
from __future__ import annotations

import ctypes

import numpy as np

from . import _mkl
from ..engine.mkl import at_64 as aligned   # (torch's new storages start 64-byte aligned)

_ROW, _NO, _TR = 101, 111, 112
_KERNELS = {}     # (routine, dtype) -> (cblas function, ctypes scalar type)
_P, _I = ctypes.c_void_p, ctypes.c_int
_ARGS = {"gemm": lambda s: [_I, _I, _I, _I, _I, _I, s, _P, _I, _P, _I, s, _P, _I],
         "gemv": lambda s: [_I, _I, _I, _I, s, _P, _I, _P, _I, s, _P, _I]}
_TYPES = {np.dtype(np.float32): ("s", ctypes.c_float), np.dtype(np.float64): ("d", ctypes.c_double),
          np.dtype(np.complex64): ("c", _P), np.dtype(np.complex128): ("z", _P)}
_SCALARS = {}     # (dtype, value) -> the one-value array a complex routine's alpha/beta points to


def _scalar(dtype, value):
    """alpha or beta as the routine takes it: a real number, or a complex routine's pointer."""
    if dtype.kind != "c":
        return value
    held = _SCALARS.get((dtype, value))
    if held is None:
        held = _SCALARS[(dtype, value)] = np.array([value], dtype)
    return _mkl.address(held)


def _kernel(dtype, routine="gemm"):
    k = _KERNELS.get((routine, dtype))
    if k is None:
        lib = _mkl._load()
        if not lib or dtype not in _TYPES:
            return None
        letter, scalar = _TYPES[dtype]
        f = getattr(lib, f"cblas_{letter}{routine}")
        f.argtypes = _ARGS[routine](scalar)
        f.restype = None
        k = _KERNELS[(routine, dtype)] = (f, scalar)
    return k


def _strides(a):
    """``a``'s strides in elements as torch would hold them, or None where torch could not
    (negative or partial-element strides: such an operand is copied first). numpy's new axis has
    stride 0 where torch's ``unsqueeze`` gives the next dimension's extent (a row) or 1."""
    item = a.itemsize
    s0, s1 = a.strides
    if s0 < 0 or s1 < 0 or s0 % item or s1 % item:
        return None
    s0, s1 = s0 // item, s1 // item
    if a.shape[1] == 1 and s1 == 0:
        s1 = 1
    if a.shape[0] == 1 and s0 == 0:
        s0 = a.shape[1] * s1
    return s0, s1


def _blas_operand(x, rows, cols, tc):
    """(array, transposed, leading dimension) of one operand as ATen's ``addmm_impl_cpu_`` hands it
    to BLAS (column-major): ``rows x cols`` is its extent in that product; used in place where its
    strides allow (either orientation), else copied contiguous."""
    st = _strides(x)
    i0, i1 = (1, 0) if tc else (0, 1)
    if st is not None:
        if st[i0] == 1 and st[i1] >= max(1, rows):
            return x, False, st[i1]
        if st[i1] == 1 and st[i0] >= max(1, cols):
            return x, True, st[i0]
    x = np.ascontiguousarray(x)
    return x, not tc, max(x.shape[1], 1)


def torch_layout(a, b):
    """The BLAS call ATen's ``addmm_impl_cpu_`` and ``cpublas::gemm`` make for ``a @ b`` into a
    fresh contiguous result: (A, B, transa, transb, m, n, k, lda, ldb, ldc), column-major, the
    result transposed (the operands swapped) unless it has one column; ``normalize_last_dims``
    applied to the leading dimensions (MKL's path, hence the bits, follows them: a transposed row
    times a column reaches a strided dot)."""
    big_m, k = a.shape
    big_n = b.shape[1]
    tc = big_n != 1
    m1, m2, m, n = (b, a, big_n, big_m) if tc else (a, b, big_m, big_n)
    sa, ta, lda = _blas_operand(m1, m, k, tc)
    sb, tb, ldb = _blas_operand(m2, k, n, tc)
    ldc = big_n if tc else 1
    if n == 1:
        ldc = m
    if ta:
        if m == 1:
            lda = k
    elif k == 1:
        lda = m
    if tb:
        if k == 1:
            ldb = n
    elif n == 1:
        ldb = k
    return sa, sb, _TR if ta else _NO, _TR if tb else _NO, m, n, k, lda, ldb, ldc


_COL = 102


def placed(x):
    """``x`` where torch would hold it, modulo 64 bytes: torch's storages start 64-byte aligned, so
    a view lies at its offset in its storage (numpy's root array); MKL's dot and gemv kernels
    start their vectors at an aligned element, so their sums' order (bits) follows the address
    (measured: a transposed row times a column, k = 271, 274, 290 differed when the two operands
    were misaligned to each other). ``x`` itself when it already lies so, else a copy placed so
    (its strides kept; they are non-negative here)."""
    address = _mkl.address
    root = x
    while isinstance(root.base, np.ndarray):
        root = root.base
    at = address(x)
    offset = (at - address(root)) % 64
    if (at - offset) % 64 == 0:
        return x
    span = sum((d - 1) * st for d, st in zip(x.shape, x.strides)) + x.itemsize
    buf = np.empty(span + 128, np.uint8)
    y = np.ndarray(x.shape, x.dtype, buf, (-address(buf)) % 64 + offset, x.strides)
    y[...] = x
    return y


def dot(x, y):
    """torch.dot of two real float32/float64 vectors as ATen's ``dot_impl`` calls MKL: ``?dot``
    with the tensors' strides (a column of a matrix reads with its row length), the operands
    where torch holds them (``placed``); None without MKL, for other dtypes and for strides torch
    has not (negative, partial elements)."""
    if x.dtype != y.dtype or x.dtype.kind != "f" or x.dtype not in _TYPES:
        return None
    f = _DOTS.get(x.dtype)
    if f is None:
        lib = _mkl._load()
        if not lib:
            return None
        letter, scalar = _TYPES[x.dtype]
        f = getattr(lib, f"{letter}dot_")     # (the Fortran routine torch calls)
        pi = ctypes.POINTER(ctypes.c_int)
        f.argtypes = [pi, _P, pi, _P, pi]
        f.restype = scalar
        _DOTS[x.dtype] = f
    item = x.itemsize
    if any(st < 0 or st % item for st in (x.strides[0], y.strides[0])):
        return None
    n = x.shape[0]
    incx, incy = (x.strides[0] // item, y.strides[0] // item) if n > 1 else (1, 1)
    address = _mkl.address
    c = ctypes.c_int
    x, y = placed(x), placed(y)     # (held: a copy must live through the call)
    return np.asarray(f(c(n), address(x), c(incx), address(y), c(incy)), x.dtype)


_DOTS = {}


def gemm(a, b, c=None, alpha=1.0, beta=1.0):
    """``alpha * a @ b`` of two matrices (plus ``beta * c``, ``c`` broadcast to the product and
    passed as the pre-filled result, as ATen's ``addmm_impl_cpu_`` copies ``self`` into it; not
    read when beta is 0) by MKL's gemm with the arguments torch passes it (``torch_layout``),
    alpha and beta inside the call as torch passes them, or None when MKL or the dtype is not
    there."""
    if c is None and alpha == 1.0:     # (a layout met before: one lookup, the call)
        known = _LAYOUTS.get((a.shape, b.shape, a.strides, b.strides, a.dtype, b.dtype))
        if known is not None:
            g, swap, ta, tb, bm, bn, bk, lda, ldb, ldc, one, shape, c_one, c_zero, nat = known
            out = np.empty(shape, a.dtype)
            if swap:
                a, b = b, a
            if nat is not None:   # (the compiled call: the thread count set and put back in it)
                _NATIVE_GEMM(nat[0], nat[1], nat[2], ta, tb, bm, bn, bk, a, lda, b, ldb, out, ldc,
                             nat[3])
                return out
            _call(one, g, _COL, ta, tb, bm, bn, bk, c_one, _P(_address(a)), lda,
                  _P(_address(b)), ldb, c_zero, _P(_address(out)), ldc)
            return out
    if a.dtype != b.dtype or a.ndim != 2 or b.ndim != 2:
        return None
    k = _kernel(a.dtype)
    if k is None:
        return None
    f = k[0]
    m, kk = a.shape
    n = b.shape[1]
    if c is None or beta == 0:
        if m == 0 or n == 0 or kk == 0:
            return np.zeros((m, n), a.dtype)
        # (BLAS does not read C when beta is 0: torch's mm also passes an uninitialised
        # result; zeroing it cost as much as a small product's Python)
        out = np.empty((m, n), a.dtype)
        beta = 0.0
    else:
        out = np.array(np.broadcast_to(c, (m, n)), a.dtype, order="C")
    if m == 0 or n == 0:
        return out
    if kk == 0:     # (ATen: self times beta, the product not called)
        return out if beta == 1 else out * out.dtype.type(beta)
    sa, sb, ta, tb, bm, bn, bk, lda, ldb, ldc = torch_layout(a, b)
    address = _mkl.address
    where = None
    if bm == 1 or bn == 1:   # (a product MKL reduces to a dot or gemv: its bits follow alignment,
        sa, sb = placed(sa), placed(sb)     # the result's too: torch's is a new 64-byte aligned
        out = aligned(out)                  # storage; numpy's 16: vecmat (400,) @ (400, 50)
        where = (address(sa) % 64, address(sb) % 64)   # differed with the heap's state)
    key = (a.dtype, bm, bk, bn, ta, tb, lda, ldb, ldc, beta, where, alpha)
    one = _ONE_THREAD.get(key)
    if one is None:
        one = _ONE_THREAD[key] = _probe_one_thread(f, key)
    plain = _PLAIN.get(a.dtype)
    if plain is None:
        plain = _plain_kernel(a.dtype)
    if plain:   # (a real dtype: the call without ctypes' conversion of 14 arguments, below)
        g, c_one, c_zero = plain
        c_alpha = c_one if alpha == 1 else type(c_one)(alpha)
        c_beta = c_zero if beta == 0 else c_one if beta == 1 else type(c_one)(beta)
        if c is None and alpha == 1.0 and where is None and sa is (b if n != 1 else a) \
                and sb is (a if n != 1 else b):   # (no operand copied or placed: cached)
            if len(_LAYOUTS) >= _LAYOUTS_MAX:   # (shapes that never repeat: bounded)
                _LAYOUTS.clear()
            _LAYOUTS[(a.shape, b.shape, a.strides, b.strides, a.dtype, b.dtype)] = (
                g, n != 1, ta, tb, bm, bn, bk, lda, ldb, ldc, one, (m, n), c_one, c_zero,
                _native_call(g, one, a.dtype))
        _call(one, g, _COL, ta, tb, bm, bn, bk, c_alpha, _P(address(sa)), lda, _P(address(sb)),
              ldb, c_beta, _P(address(out)), ldc)
        return out
    _call(one, f, _COL, ta, tb, bm, bn, bk, _scalar(a.dtype, alpha), address(sa), lda,
          address(sb), ldb, _scalar(a.dtype, beta), address(out), ldc)
    return out


def _call(one, kernel, *args):
    """``kernel(*args)`` (a ?gemm), on one MKL thread where the probe said torch's product runs
    on one (``one``), the caller's thread count put back after."""
    if not one:
        kernel(*args)
        return
    local = _mkl._load().MKL_Set_Num_Threads_Local
    prev = local(1)
    try:
        kernel(*args)
    finally:
        local(prev)


#: (a.shape, b.shape, a.strides, b.strides, a.dtype, b.dtype) -> the call ``gemm`` made for
#: ``a @ b`` (c None, alpha 1) where it multiplied the operands in place: the plain kernel,
#: whether the operands swap (the result transposed), the arguments of ``torch_layout``, the
#: one-thread probe's answer, the result's shape, ctypes' 1 and 0: all functions of the key (the
#: layout reads shapes and strides; a copied or aligned operand is not cached), so a layout met
#: again skips ``torch_layout``, the probe's key and the dtype tests. Cleared with the probes.
_LAYOUTS = {}
_LAYOUTS_MAX = 4096
_address = _mkl.address


def _native_call(g, one, dtype):
    """What ``_cnative.blas_gemm`` needs to make a cached layout's call (the gemm's address,
    MKL_Set_Num_Threads_Local's or 0, float64 or not, the array struct's data field), or None
    where the compiled module or the data field is not there (the ctypes call then)."""
    from ..engine import _native
    from ..engine import mkl as engine_mkl

    global _NATIVE_GEMM
    fn = getattr(_native.lib, "blas_gemm", None)
    field = engine_mkl.DATA_FIELD
    if fn is None or field is None:
        return None
    _NATIVE_GEMM = fn
    cast = ctypes.cast
    local = cast(_mkl._load().MKL_Set_Num_Threads_Local, ctypes.c_void_p).value if one else 0
    return cast(g, ctypes.c_void_p).value, local, int(dtype == np.float64), field


_NATIVE_GEMM = None


def forget_layouts():
    """Forget the probed thread counts and the cached layouts (tests that re-probe)."""
    _ONE_THREAD.clear()
    _LAYOUTS.clear()


# A real dtype's ?gemm as a second ctypes function without ``argtypes``, with alpha and beta held
# as ctypes values: ctypes then converts no argument (``argtypes`` asks each type's
# ``from_param``: ~9 k of the ~28 k instructions a call of a small product cost; Python ints
# pass as C ints, the addresses as c_void_p). dtype -> (function, one, zero), or False.
_PLAIN = {}


def _plain_kernel(dtype):
    lib = _mkl._load()
    entry = False
    if lib and dtype.kind == "f" and dtype in _TYPES:
        letter, scalar = _TYPES[dtype]
        g = lib._FuncPtr((f"cblas_{letter}gemm", lib))
        g.restype = None
        entry = (g, scalar(1.0), scalar(0.0))
    _PLAIN[dtype] = entry
    return entry


# Small products on one thread, where that gives the threaded product's bits. torch runs MKL
# with its thread count (2 here) and MKL splits some products between the threads, which changes
# the bits (measured: m of 5-7 and 9-11 rows split, each part by another row kernel); most small
# products it does not split, yet each call wakes the OpenMP worker (on a loaded 2-core machine
# 20-60 us, up to ms, for a 5 us product). So each new product layout (shape, transposes,
# leading dimensions, beta; for a one-row or one-column product the operands' alignments) is
# probed once on wide-ranged random values: the one-thread result
# equal to the threaded one on every element of two probes -> that layout runs on one thread.
_ONE_THREAD = {}
_PROBE_MAX = 1 << 21      # m*k*n above this keeps the threads (they speed a large product)


def _probe_one_thread(f, key):
    dtype, m, kk, n, ta, tb, lda, ldb, ldc, beta, where, alpha = key
    if m * kk * n > _PROBE_MAX:
        return False
    local = _mkl._load().MKL_Set_Num_Threads_Local
    rng = np.random.default_rng(29)
    address = _mkl.address

    def wide(size):
        v = rng.standard_normal(size) * (np.exp2(rng.integers(-8, 9, size)) if probe % 2 else 1)
        if np.dtype(dtype).kind == "c":
            v = v + 1j * rng.standard_normal(size) * np.exp2(rng.integers(-8, 9, size))
        return v.astype(dtype)

    def span(trans, rows, cols, ld):    # column-major storage a (rows x cols) operand reads
        if trans == _TR:
            rows, cols = cols, rows
        return ld * (cols - 1) + rows

    def at(v, offset):      # v at ``offset`` bytes past a 64-byte boundary (MKL splits a
        if offset is None:  # threaded dot by the vectors' alignment)
            return v
        buf = np.empty(v.nbytes + 128, np.uint8)
        start = (-address(buf)) % 64 + offset
        y = buf[start:start + v.nbytes].view(v.dtype)
        y[...] = v
        return y

    # A dot MKL splits between its threads differs from the one-thread sum only in how a few
    # partial sums are added: more probes, plain normals among them (k = 271 float64: two wide
    # probes were equal, a lecture's values not)
    for probe in range(2 if where is None else 8):
        sa = at(wide(span(ta, m, kk, lda)), where and where[0])
        sb = at(wide(span(tb, kk, n, ldb)), where and where[1])
        c = wide(ldc * (n - 1) + m)
        outs = []
        for threads in (0, 1):     # 0: MKL's (torch's) thread count
            out = c.copy()
            prev = local(threads)
            f(_COL, ta, tb, m, n, kk, _scalar(dtype, alpha), address(sa), lda, address(sb), ldb,
              _scalar(dtype, beta), address(out), ldc)
            local(prev)
            outs.append(out)
        if not np.array_equal(outs[0], outs[1]):
            return False
    return True


def gemv_row(a, v):
    """A one-row matrix ``a`` (1, k), its row contiguous, times ``v`` (k,) as torch's mv calls
    MKL there (addmv: ``gemv('t', k, 1, a, lda)``, row-major no-transpose with the row as the
    matrix; mm's (1, k) @ (k, 1) takes the column as the matrix, other bits: measured on
    spectral_norm's sigma of a one-output-channel conv, 1x64/256/1000 random rows 60 of 60
    equal); None without MKL or for other dtypes."""
    if a.dtype != v.dtype or a.dtype.kind != "f" or _kernel(a.dtype, "gemv") is None:
        return None
    f = _kernel(a.dtype, "gemv")[0]
    row, vec = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(v)
    out = np.empty(1, a.dtype)
    address = _mkl.address
    f(_ROW, _NO, 1, row.size, 1.0, address(row), row.size, address(vec), 1, 0.0,
      address(out), 1)
    return out


def gemv(a, v, c, alpha, beta):
    """``alpha * a @ v + beta * c`` (real float32/float64) by MKL's gemv as ATen's
    ``addmv_impl_cpu`` calls it (column-major): ``a`` as 'N' where its stride 0 is 1, else as
    'T' where its stride 1 is 1 (leading dimensions allowing), else a contiguous copy as 'T';
    ``cpublas::gemv``'s lda = m for one column; the result pre-filled with ``c`` (not read when
    beta is 0); the operands where torch holds them (``placed``). None without MKL."""
    k = _kernel(a.dtype, "gemv") if a.dtype.kind == "f" else None
    if k is None or v.dtype != a.dtype:
        return None
    rows, cols = a.shape
    item = a.itemsize
    s0, s1 = (st // item if st > 0 and st % item == 0 else -1 for st in a.strides)

    def lda_cond(m, n, lda):
        return n == 1 or lda >= max(1, m)

    if s0 == 1 and s1 >= 0 and lda_cond(rows, cols, s1):
        trans, m, n, lda = _NO, rows, cols, s1
    elif s1 == 1 and s0 >= 0 and lda_cond(cols, rows, s0):
        trans, m, n, lda = _TR, cols, rows, s0
    else:
        a = np.ascontiguousarray(a)
        trans, m, n, lda = _TR, cols, rows, cols
    if n == 1:
        lda = m
    if v.strides[0] <= 0 or v.strides[0] % item:
        v = np.ascontiguousarray(v)
    incx = v.strides[0] // item if v.shape[0] > 1 else 1
    out = aligned(np.array(np.broadcast_to(c, (rows,)), a.dtype) if beta != 0
                  else np.zeros(rows, a.dtype))
    if rows == 0:
        return out
    if cols == 0:
        return out * a.dtype.type(beta) if beta not in (0, 1) else out
    a, v = placed(a), placed(v)
    address = _mkl.address
    k[0](_COL, trans, m, n, alpha, address(a), max(lda, 1), address(v), incx, beta,
         address(out), 1)
    return out


def _batch_operand(a):
    """(array, transpose flag, leading dimension, batch stride) of a batch of matrices as torch's
    ``baddbmm_with_gemm_`` passes it (each matrix row-major or transposed, any batch stride),
    copied when its matrices are neither."""
    size = a.itemsize
    s0, s1, s2 = (st // size for st in a.strides)
    if all(st % size == 0 and st >= 0 for st in a.strides):
        if s2 == 1 and s1 >= max(a.shape[2], 1):
            return a, _NO, s1, s0
        if s1 == 1 and s2 >= max(a.shape[1], 1):
            return a, _TR, s2, s0
    a = np.ascontiguousarray(a)
    return a, _NO, max(a.shape[2], 1), a.shape[1] * a.shape[2]


def gemm_batch(a, b, c=None, alpha=1.0, beta=0.0):
    """``a @ b`` of two batches of matrices (same batch size) as torch's bmm computes those it does
    not run by its own loop: one ``cblas_?gemm_batch_strided`` (measured equal to real torch on
    float32, float64, complex64 and complex128 batches where one gemm per matrix was not), or None
    without MKL or for another dtype. ``c``, ``alpha``, ``beta``: baddbmm's (the result
    pre-filled with ``c`` broadcast, alpha and beta inside the call)."""
    if a.dtype != b.dtype or a.ndim != 3 or b.ndim != 3 or a.dtype not in _TYPES:
        return None
    lib = _mkl._load()
    if not lib:
        return None
    key = ("gemm_batch_strided", a.dtype)
    f = _KERNELS.get(key)
    if f is None:
        f = getattr(lib, f"cblas_{_TYPES[a.dtype][0]}gemm_batch_strided")
        s, ll = _TYPES[a.dtype][1], ctypes.c_longlong
        f.argtypes = [_I, _I, _I, ll, ll, ll, s, _P, ll, ll, _P, ll, ll, s, _P, ll, ll, ll]
        f.restype = None
        _KERNELS[key] = (f, s)
    else:
        f = f[0]
    batch, m, kk = a.shape
    n = b.shape[2]
    out = np.zeros((batch, m, n), a.dtype) if c is None or beta == 0 else \
        np.array(np.broadcast_to(c, (batch, m, n)), a.dtype, order="C")
    if not out.size or kk == 0:
        return out if beta in (0, 1) or c is None else out * a.dtype.type(beta)
    # torch's result is a new storage, 64-byte aligned; MKL's threaded product of a one-matrix
    # batch follows where it starts ((1, 1, 400) @ (1, 400, 50) float32: 4 results at 0, 16, 32
    # and 48 bytes past a boundary, torch's the first), as gemm's one-row products do
    out = aligned(out)
    sa, ta, lda, stride_a = _batch_operand(a)
    sb, tb, ldb, stride_b = _batch_operand(b)
    address = _mkl.address
    f(_ROW, ta, tb, m, n, kk, _scalar(a.dtype, alpha), address(sa), lda, stride_a, address(sb),
      ldb, stride_b, _scalar(a.dtype, beta), address(out), max(n, 1), m * n, batch)
    return out


def gemm_single(a, b, c=None, alpha=1.0, beta=0.0):
    """``a @ b`` of two one-matrix batches as torch 2.13's bmm computes it: one ``?gemm`` (not
    ``?gemm_batch``: MKL_VERBOSE shows SGEMM), with the batch kernel's arguments (the result
    row-major, so column-major ``(N, N, n, m, k, b, ldb, a, lda)`` for plain matrices, where
    ``mm`` of the same matrices passes ``(T, T, m, n, k, a, ...)``: other bits for a 1x1
    result), operands where torch holds them and the result 64-byte aligned; None without MKL
    or for another dtype."""
    if a.dtype != b.dtype or a.ndim != 3 or b.ndim != 3 or a.shape[0] != 1:
        return None
    k = _kernel(a.dtype)
    if k is None:
        return None
    _, m, kk = a.shape
    n = b.shape[2]
    out = np.zeros((1, m, n), a.dtype) if c is None or beta == 0 else \
        np.array(np.broadcast_to(c, (1, m, n)), a.dtype, order="C")
    if not out.size or kk == 0:
        return out if beta in (0, 1) or c is None else out * a.dtype.type(beta)
    out = aligned(out)
    sa, ta, lda, _ = _batch_operand(a)
    sb, tb, ldb, _ = _batch_operand(b)
    sa, sb = placed(sa), placed(sb)
    address = _mkl.address
    k[0](_ROW, ta, tb, m, n, kk, _scalar(a.dtype, alpha), address(sa), lda, address(sb), ldb,
         _scalar(a.dtype, beta), address(out), max(n, 1))
    return out


def sequential_bmm(a, b):
    """torch's own batched kernel (bmm of small matrices: m*k*n < 400, or 1x1 results): each
    product rounded, then added in the order of k."""
    if a.dtype.kind == "c":
        return _sequential_bmm_complex(a, b)
    out = np.zeros((a.shape[0], a.shape[1], b.shape[2]), a.dtype)
    for kk in range(a.shape[2]):
        out += a[:, :, kk:kk + 1] * b[:, kk:kk + 1, :]
    return out


def _sequential_bmm_complex(a, b):
    """The same loop in c10::complex: each product (ar*br - ai*bi, ar*bi + ai*br) rounded part
    by part, unfused (the file is built without FMA), then added to the sum in the order of k."""
    real = np.zeros((a.shape[0], a.shape[1], b.shape[2]), a.real.dtype)
    imag = np.zeros_like(real)
    for kk in range(a.shape[2]):
        ar, ai = a.real[:, :, kk:kk + 1], a.imag[:, :, kk:kk + 1]
        br, bi = b.real[:, kk:kk + 1, :], b.imag[:, kk:kk + 1, :]
        real += ar * br - ai * bi
        imag += ar * bi + ai * br
    out = np.empty(real.shape, a.dtype)
    out.real, out.imag = real, imag
    return out
