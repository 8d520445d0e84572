"""``y = fma(alpha, x, y)`` on float32 arrays, in place: one rounding, as Paddle's kernels do.

numpy has no fused multiply-add. The portable way is float64: the product of two float32 values
is exact there, the sum is rounded to double and then to float32 (a double rounding that can
change the float32 result only for a sum within 2^-29 relative of a float32 midpoint). That costs
three passes with float64 temporaries: 190 us for 200K parameters measured here.

The BLAS that numpy ships with (OpenBLAS) has ``saxpy``, ``y += alpha * x``, and its kernels for
every CPU with FMA instructions (Haswell and later, Zen) compute each element with one
``vfmadd``: the same single rounding, 14 us for those 200K parameters. Whether the BLAS found here
fuses is not assumed: :func:`axpy` is used only after it reproduced the float64 formula bit for bit
on values chosen so that the two roundings of ``y + f32(alpha*x)`` differ from one (and on every
length up to 67, the kernels' unrolled tails). Otherwise, or when numpy's BLAS is not found, the
float64 formula runs.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import glob
import os

import numpy as np

_F32 = np.dtype(np.float32)


_BLOCK = 1 << 16  # elements: the float64 temporary of the formula stays 512 KiB


def axpy_reference(alpha, x, y):
    """The float64 formula: ``y = f32(f64(alpha) * x + y)``; float32 ``x`` and ``y`` (past
    ``_BLOCK`` elements both C-contiguous, done a block at a time)."""
    alpha = np.float64(alpha)
    if y.size <= _BLOCK:
        wide = np.multiply(x, alpha)                    # exact
        np.add(wide, y, out=wide)
        np.copyto(y, wide, casting="same_kind")         # rounded (once, up to double rounding)
        return
    xf, yf = x.reshape(-1), y.reshape(-1)
    for s in range(0, yf.size, _BLOCK):
        axpy_reference(alpha, xf[s:s + _BLOCK], yf[s:s + _BLOCK])


@functools.lru_cache(maxsize=None)
def _numpy_openblas_lib():
    """numpy's bundled OpenBLAS (the wheels ship it in ``numpy.libs``), or None."""
    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs, "libscipy_openblas*.so*"))):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def _numpy_openblas():
    """numpy's bundled OpenBLAS ``saxpy`` as a ctypes function, or None."""
    lib = _numpy_openblas_lib()
    for name, int_t in (("scipy_cblas_saxpy64_", ctypes.c_int64),
                        ("scipy_cblas_saxpy", ctypes.c_int)):
        fn = getattr(lib, name, None) if lib is not None else None
        if fn is not None:
            fn.restype = None
            fn.argtypes = [int_t, ctypes.c_float, ctypes.c_void_p, int_t, ctypes.c_void_p, int_t]
            return fn
    return None


def _blas_set_threads():
    """OpenBLAS's ``openblas_set_num_threads_local`` (returns the previous count), or None.
    Despite its name it sets the count for the whole process in this build (measured: a GEMM
    in the main thread ran on one thread after a worker thread called it), so every caller
    restores the previous count (``one_blas_thread``)."""
    lib = _numpy_openblas_lib()
    fn = getattr(lib, "openblas_set_num_threads_local", None) if lib is not None else None
    if fn is not None:
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_int]
    return fn


@contextlib.contextmanager
def one_blas_thread():
    """BLAS calls inside run on one thread (the process-wide count is restored on exit)."""
    set_threads = _SET_THREADS if blas_saxpy() is not None else None
    if set_threads is None:
        yield
        return
    previous = set_threads(1)
    try:
        yield
    finally:
        set_threads(previous)


def _probe_values():
    """(alpha, x, y) where fused and unfused results differ in many elements."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(4099).astype(np.float32)
    y = rng.standard_normal(4099).astype(np.float32)
    return np.float32(-0.1), x, y


def _fuses(saxpy):
    """Whether ``saxpy`` gives the float64 formula's bits, on a probe where fusing matters."""
    alpha, x, y = _probe_values()
    unfused = y - np.float32(alpha * x)
    for n in list(range(1, 68)) + [len(x)]:
        want = y[:n].copy()
        axpy_reference(alpha, x[:n], want)
        got = y[:n].copy()
        saxpy(n, float(alpha), x.ctypes.data, 1, got.ctypes.data, 1)
        if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
            return False
    return not np.array_equal(unfused, want)  # the probe did test fusing


_SAXPY = False  # not looked for yet


def blas_saxpy():
    """The checked BLAS ``saxpy``, or None (looked for once)."""
    global _SAXPY, _SET_THREADS
    if _SAXPY is False:
        fn = None
        if os.environ.get("GRADREPL_NO_BLAS_FMA") != "1":
            try:
                fn = _numpy_openblas()
                if fn is not None and not _fuses(fn):
                    fn = None
            except (OSError, AttributeError, ValueError):
                fn = None
        _SAXPY = fn
        _SET_THREADS = _blas_set_threads() if fn is not None else None
    return _SAXPY


_SET_THREADS = None


def axpy(alpha, x, y):
    """``y = fma(alpha, x, y)`` in place. ``x``, ``y``: C-contiguous float32 of one size
    (``x`` may be ``y``); ``alpha`` is rounded to float32 first."""
    alpha = np.float32(alpha)
    saxpy = blas_saxpy()
    if saxpy is None or y.dtype != _F32 or x.dtype != _F32:
        axpy_reference(alpha, x, y)
        return
    n = y.size
    if x.size != n or not (x.flags.c_contiguous and y.flags.c_contiguous):
        raise ValueError(f"axpy: x {x.shape} and y {y.shape} must be contiguous of one size")
    if not y.flags.writeable:
        raise ValueError("axpy: y is read-only")
    # on OpenBLAS's own threads past 10,000 elements: in a training step they are awake from
    # the matmuls, and changing the thread count around each call (``one_blas_thread``) made
    # the whole MLP step 1.3x slower (the next products waited for the threads)
    saxpy(n, float(alpha), x.ctypes.data, 1, y.ctypes.data, 1)
