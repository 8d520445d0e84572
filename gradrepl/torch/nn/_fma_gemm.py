"""Fused multiply-add chains in order, computed by numpy's BLAS where it is checked to sum so.

oneDNN's direct convolution kernels sum each output (and each filter gradient) as one fused
multiply-add chain from zero, in a known order (``_onednn_conv``, ``_onednn_conv_bwd_w``). numpy
has no fused multiply-add, so the chain was replayed a numpy call per step: ``float32(acc + a *
b)`` in float64 (the product exact, the sum rounded once up to a double rounding within 2^-29 of a
float32 midpoint). A lecture CNN's step took some 10,000 such calls.

The same chain is what a BLAS ``sgemm`` micro-kernel computes for each element of ``C = A @ B``
on a CPU with FMA: a register from zero, ``vfmadd`` over k = 0, 1, ... in order, then stored.
Whether numpy's BLAS does that for a given shape (OpenBLAS here: its edge tiles, small-matrix
kernels and K blocks sum otherwise, e.g. (16, K, 72) from K = 32 on, any shape from K ~ 500) is
not assumed: :func:`chains` uses ``np.matmul`` only for a shape (and BLAS thread count) on which
it reproduced the replayed chain bit for bit on random values once in the process, trying the
product and its transpose with the free dimension padded to 16; otherwise it returns None and
the caller replays.

A long chain goes in pieces of ``PIECE`` steps, each piece's product continuing the last: the
piece's matrix has the identity in front of its own columns and the running sums in front of its
own rows, so the chain first adds ``1 * c`` to zero (exact: c; a chain from +0 never holds -0)
and zero products elsewhere (exact), then the piece's terms. Non-finite values go to the replay
(``0 * inf``).
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import glob
import os

import numpy as np

#: Steps of a chain per BLAS call, the identity in front (the first that passes the check):
#: OpenBLAS on SkylakeX kept one chain up to K 448 on every shape tried, some to 2048.
PIECES = (384, 256, 128)
#: Chains up to this long (plus the smaller dimension) go in one product.
PIECE = 256
#: Lanes: the free dimension is padded to a multiple of this (AVX-512's 16 floats; OpenBLAS's
#: narrower edge tiles sum in another order).
LANES = 16

_VERIFIED: dict = {}


@functools.lru_cache(maxsize=None)
def _openblas():
    """(get, set) of numpy's bundled OpenBLAS's thread count (``openblas_get_num_threads``,
    ``openblas_set_num_threads_local``: the previous count), or None."""
    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs, "libscipy_openblas*.so*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        get = next((getattr(lib, name) for name in ("scipy_openblas_get_num_threads64_",
                                                     "scipy_openblas_get_num_threads",
                                                     "openblas_get_num_threads")
                    if hasattr(lib, name)), None)
        put = getattr(lib, "openblas_set_num_threads_local", None)
        if get is not None and put is not None:
            get.restype = put.restype = ctypes.c_int
            put.argtypes = [ctypes.c_int]
            return get, put
    return None


@contextlib.contextmanager
def one_thread():
    """numpy's BLAS on one thread inside (these products are small: its second thread only
    waits, and on a busy machine it waited for a core 5-20 ms a product)."""
    calls = _openblas()
    if calls is None:
        yield None
        return
    get, put = calls
    previous = put(1)
    try:
        yield get()
    finally:
        put(previous)


def replay(a, b):
    """The chains replayed: ``a`` (P, M, K), ``b`` (P, K, N) float32 -> (P, M, N) float32,
    ``float32(acc + a[:, :, k] * b[:, k, :])`` in float64 for k = 0, 1, ..."""
    acc = np.zeros((a.shape[0], a.shape[1], b.shape[2]), np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    tmp = np.empty(acc.shape)
    for k in range(a.shape[2]):
        np.multiply(a64[:, :, k, None], b64[:, None, k, :], out=tmp)
        np.add(acc, tmp, out=acc, casting="unsafe")
    return acc


def _pad(x, axis, to):
    extra = (-x.shape[axis]) % to
    if not extra:
        return x
    width = [(0, 0)] * x.ndim
    width[axis] = (0, extra)
    return np.pad(x, width)


def _product(a, b, way):
    """``a @ b`` (P, M, K) @ (P, K, N) by numpy's BLAS in one of the checked layouts."""
    transposed, pad_m = way
    if transposed:
        a, b = np.swapaxes(b, 1, 2), np.swapaxes(a, 1, 2)
    m, n = a.shape[1], b.shape[2]
    a = np.ascontiguousarray(_pad(a, 1, LANES) if pad_m else a)
    b = np.ascontiguousarray(_pad(b, 2, LANES))
    out = np.matmul(a, b)[:, :m, :n]
    return np.swapaxes(out, 1, 2) if transposed else out


WAYS = ((False, False), (True, False), (False, True), (True, True))


def _way(p, m, k, n, threads):
    """The first layout in ``WAYS`` whose BLAS product equals the replay on random values for
    this shape, or None; checked once per shape and BLAS thread count."""
    key = (p, m, k, n, threads)
    if key in _VERIFIED:
        return _VERIFIED[key]
    rng = np.random.default_rng(20261207)
    a = rng.standard_normal((p, m, k)).astype(np.float32)
    b = rng.standard_normal((p, k, n)).astype(np.float32)
    want = replay(a, b).view(np.uint32)
    found = None
    for way in WAYS:
        if np.array_equal(_product(a, b, way).view(np.uint32), want):
            found = way
            break
    _VERIFIED[key] = found
    return found


def chains(a, b, finite=False):
    """``a`` (P, M, L), ``b`` (P, L, N) float32 (or float64 holding float32 values): the
    (P, M, N) float32 fused multiply-add chains from zero over l = 0, 1, ... in order, by
    numpy's BLAS on checked shapes (module docstring), else None. ``finite``: the caller saw
    that every value is finite."""
    if os.environ.get("GRADREPL_NO_BLAS_CHAINS") == "1":
        return None
    p, m, length = a.shape
    n = b.shape[2]
    if min(p, m, n, length) < 1:
        return None
    if not finite and not (np.isfinite(a).all() and np.isfinite(b).all()):
        return None
    a = a.astype(np.float32, copy=False)
    b = b.astype(np.float32, copy=False)
    with one_thread() as threads:
        return _chains(a, b, threads)


def _chains(a, b, threads):
    p, m, length = a.shape
    n = b.shape[2]
    if length <= PIECE + min(m, n):
        way = _way(p, m, length, n, threads)
        return None if way is None else _product(a, b, way)
    # pieces: [I | a_piece] @ [acc; b_piece] from acc = 0, every piece PIECE steps (the last
    # padded with zero terms: exact), in the checked layout, on two buffers made once
    piece = next((k for k in PIECES if _way(p, m, m + k, n, threads) is not None), None)
    if piece is None:
        return None
    transposed, pad_m = _way(p, m, m + piece, n, threads)
    if transposed:
        a, b = np.swapaxes(b, 1, 2), np.swapaxes(a, 1, 2)
    rows, cols = a.shape[1], b.shape[2]
    mp, np_ = rows + ((-rows) % LANES if pad_m else 0), cols + (-cols) % LANES
    wa = np.zeros((p, mp, mp + piece), np.float32)
    wa[:, :, :mp] = np.eye(mp, dtype=np.float32)
    wb = np.zeros((p, mp + piece, np_), np.float32)
    acc = np.zeros((p, mp, np_), np.float32)
    for start in range(0, length, piece):
        stop = min(length, start + piece)
        wa[:, :rows, mp:mp + stop - start] = a[:, :, start:stop]
        wb[:, mp:mp + stop - start, :cols] = b[:, start:stop]
        if stop - start < piece:
            wa[:, :, mp + stop - start:] = 0
            wb[:, mp + stop - start:] = 0
        wb[:, :mp] = acc
        np.matmul(wa, wb, out=acc)
    acc = acc[:, :rows, :cols]
    return np.ascontiguousarray(np.swapaxes(acc, 1, 2) if transposed else acc)
