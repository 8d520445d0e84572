"""Intel MKL, loaded from the ``mkl`` wheel with ctypes: the library both frameworks compute with
on x86-64 (torch's wheels link MKL; Paddle's bundle MKL-ML), so that gradrepl's float32 products
and math functions take the same kernels as the framework *on the machine it runs on* (MKL picks
its kernels by the CPU's instruction set). ``load()`` gives the library or False where the wheel
is absent (aarch64, macOS, a lean install): callers then keep their numpy kernels.
``address(a)`` is where an array's values start (for the C calls)."""
from __future__ import annotations

import ctypes

import numpy as np

from . import cpu as _cpu

_LIB = None               # the loaded libmkl_rt, False when there is none


def _address_reader():
    """``address(a)``: where ndarray ``a``'s values start. numpy's ``a.ctypes.data`` makes an
    object to say it (about 1 us here, more than MKL's work on a few values, twice or three
    times a call); the address is the first field of numpy's array struct after the object
    header, read in 0.17 us. Checked on probe arrays once: where the layout is not that (another
    Python build), ``a.ctypes.data`` it is."""
    global DATA_FIELD
    offset = object.__basicsize__
    read = ctypes.c_void_p.from_address
    try:
        probes = (np.arange(3.0), np.arange(6, dtype=np.float32)[2:], np.empty((2, 3)).T)
        if all(read(id(p) + offset).value == p.ctypes.data for p in probes):
            DATA_FIELD = offset
            return lambda a: read(id(a) + offset).value
    except (ValueError, OverflowError, TypeError):  # pragma: no cover - other builds
        pass
    return lambda a: a.ctypes.data  # pragma: no cover


#: where the data pointer sits in an ndarray's struct (``id(a) + DATA_FIELD``), None where the
#: probes did not find it there: ``POINTER_AT(id(a) + DATA_FIELD)`` is a ctypes ``c_void_p``
#: over that field, which a ctypes function without ``argtypes`` passes as the pointer itself
#: (no int made, then converted back by ``argtypes``: see ``_mkl.function``'s small arrays)
DATA_FIELD = None
POINTER_AT = ctypes.c_void_p.from_address
address = _address_reader()


def _library_path():
    from importlib import metadata

    try:
        files = metadata.distribution("mkl").files or ()
    except metadata.PackageNotFoundError:
        return None
    for f in files:
        name = f.name
        if name.startswith("libmkl_rt.so") or name == "mkl_rt.2.dll":
            return str(f.locate())
    return None


THREADS = _cpu.threads()  # torch's at::get_num_threads() (2 on a 2-core machine): MKL's gemm
#              splits some products (e.g. 10x32 @ 32x16) between its threads, which changes
#              their sums' order, so gradrepl runs MKL with as many OpenMP threads as torch


def _gnu_threads(path) -> bool:
    """Whether MKL's GNU OpenMP layer can load (its library beside libmkl_rt, and libgomp)."""
    import os

    if not os.path.exists(os.path.join(os.path.dirname(path), "libmkl_gnu_thread.so.2")):
        return False
    # OpenMP's threads wait passively (libgomp reads this when it loads): by default each thread
    # spins up to 300,000 rounds after a parallel region, and between gradrepl's products (more
    # Python than torch's) the worker spun a core away and the main thread spun waiting for a
    # descheduled worker: 150 char-MLP steps on a loaded 2-core machine took 1.5 s of the
    # worker's CPU and 19-27 ms a step, passive 0.02 s and 4-11 ms. The bits do not change
    # (the thread count, which splits MKL's sums, stays).
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        ctypes.CDLL("libgomp.so.1", mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return False
    return True


def load():
    """The loaded ``libmkl_rt`` (a ctypes library), or False where the ``mkl`` wheel is absent."""
    global _LIB
    if _LIB is None:
        _LIB = False
        path = _library_path()
        if path is not None:
            try:
                lib = ctypes.CDLL(path)
                lib.MKL_Set_Interface_Layer(0)      # LP64
                if _gnu_threads(path):
                    lib.MKL_Set_Threading_Layer(3)  # GNU OpenMP, as torch's MKL runs
                    lib.MKL_Set_Num_Threads(THREADS)
                else:
                    lib.MKL_Set_Threading_Layer(1)  # sequential: no OpenMP runtime needed
                _LIB = lib
            except (OSError, AttributeError):
                _LIB = False
    return _LIB


# The MKL torch 2.13's x86-64 wheels link statically (torch.__config__.show(): "2024.2-Product
# Build 20240605"), which the `exact` extra pins (2024.2.0, .1 and .2 gave the same bits on every
# path measured). MKL 2025.0.1 differs from it in small LAPACK solves (getrs: lu_solve, solve,
# inv), potrf and float32 real FFTs of some odd lengths (35, 49, 63).
TORCH_MKL = (2024, 2)


def version():
    """The loaded MKL's version as (year, release, update), e.g. (2024, 2, 0), or None."""
    import re

    lib = load()
    if not lib:
        return None
    buf = ctypes.create_string_buffer(256)
    lib.mkl_get_version_string(buf, len(buf))
    m = re.search(rb"Version (\d+)\.(\d+)(?:\.(\d+))?", buf.value)
    return tuple(int(g or 0) for g in m.groups()) if m else None


# mkl_service.h's MKL_CBWR_* codes, as mkl_cbwr_get_auto_branch() answers them
_BRANCHES = {2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 6: "SSSE3", 7: "SSE4_1", 8: "SSE4_2",
             9: "AVX", 10: "AVX2", 11: "AVX512_MIC", 12: "AVX512", 13: "AVX512_MIC_E1",
             14: "AVX512_E1"}


def branch():
    """The code path MKL's dispatcher takes on this CPU (``mkl_cbwr_get_auto_branch``), whose
    kernels decide the last bits of its products and math functions: ``AVX2`` on an Intel
    Haswell or Skylake client, ``AVX512``/``AVX512_E1`` on an Intel CPU with AVX-512, ``AUTO``
    where MKL names no Intel path (an AMD CPU: the EPYC Zen 4 and an emulated EPYC-Rome);
    None without MKL."""
    lib = load()
    if not lib:
        return None
    code = lib.mkl_cbwr_get_auto_branch()
    return _BRANCHES.get(code, f"code {code}")


# VML's accuracy modes (mkl_vml_defines.h), with VML_ERRMODE_IGNORE: a NaN or inf argument
# gives its IEEE result without VML's error handler
VML_LA = 0x1 | 0x100
VML_HA = 0x2 | 0x100
_VML: dict = {}


def vml(name: str, mode: int = VML_HA):
    """MKL's VML ``vms<name>`` / ``vmd<name>`` in ``mode`` as a function of a float32 or
    float64 array (a new array of the same shape), or None without MKL (the ``exact`` extra)."""
    key = (name, mode)
    if key not in _VML:
        _VML[key] = None
        lib = load()
        if lib:
            kernels = {np.dtype(np.float32): getattr(lib, "vms" + name, None),
                       np.dtype(np.float64): getattr(lib, "vmd" + name, None)}
            if None not in kernels.values():
                for k in kernels.values():
                    k.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_longlong)
                    k.restype = None

                def f(x):
                    src = np.ascontiguousarray(x)
                    out = np.empty_like(src)
                    for a in range(0, src.size, 1 << 30):       # (VML's n is an int)
                        b = min(src.size, a + (1 << 30))
                        kernels[src.dtype](b - a, src.ctypes.data + a * src.itemsize,
                                           out.ctypes.data + a * src.itemsize, mode)
                    return out
                _VML[key] = f
    return _VML[key]


_SGEMM = []


def sgemm_one_thread(a, b, into=None, overwrite=False):
    """``a @ b`` of two float32 matrices by MKL's ``cblas_sgemm`` on one thread (Paddle runs its
    MKL-ML with one math thread), each operand passed as it is stored (a transposed row-major
    matrix with the transpose flag), or None where the ``mkl`` wheel is absent. ``into``: a
    C-contiguous float32 (m, n) array the product is added to (beta = 1), and returned;
    with ``overwrite`` the product is written there instead (beta = 0)."""
    if not _SGEMM:
        lib = load()
        f = getattr(lib, "cblas_sgemm", None) if lib else None
        if f is not None:
            # (a function of its own without ``argtypes``, alpha and beta held as ctypes
            # values: ctypes converts no argument, where ``from_param`` of 14 cost ~9 k
            # instructions a call; the ints pass as C ints, the addresses as c_void_p)
            f = lib._FuncPtr(("cblas_sgemm", lib))
            f.restype = None
            _SGEMM.extend((f, ctypes.c_float(1.0), ctypes.c_float(0.0),
                           lib.MKL_Set_Num_Threads_Local))
        else:
            _SGEMM.append(None)
    f = _SGEMM[0]
    if f is None:
        return None
    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), np.float32) if into is None else into
    if m == 0 or n == 0 or k == 0:
        return out
    sa, ta, lda = _sgemm_operand(a)
    sb, tb, ldb = _sgemm_operand(b)
    one, zero, local = _SGEMM[1], _SGEMM[2], _SGEMM[3]
    P = ctypes.c_void_p
    prev = local(1)
    try:
        f(101, ta, tb, m, n, k, one, P(address(sa)), lda, P(address(sb)), ldb,
          zero if into is None or overwrite else one, P(address(out)), n)
    finally:
        local(prev)
    return out


def _sgemm_operand(x):
    """(matrix, transpose flag, leading dimension) of an ``sgemm_one_thread`` operand as stored."""
    if x.flags.c_contiguous:
        return x, 111, max(x.shape[1], 1)
    if x.T.flags.c_contiguous:
        return x.T, 112, max(x.shape[0], 1)
    x = np.ascontiguousarray(x)
    return x, 111, max(x.shape[1], 1)


_GEMV = {}


def empty_at_64(shape, dtype):
    """An uninitialised C-contiguous array starting on a 64-byte boundary (as Paddle's allocator
    places a tensor)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    buf = np.empty(nbytes + 64, np.uint8)
    start = (-address(buf)) % 64
    return buf[start:start + nbytes].view(dtype).reshape(shape)


def at_64(x):
    """``x`` C-contiguous and starting on a 64-byte boundary, as Paddle's allocator and torch's
    new storages place a tensor (a copy when it is not so already)."""
    if x.flags.c_contiguous and address(x) % 64 == 0:
        return x
    y = empty_at_64(x.shape, x.dtype)
    y[...] = x
    return y


def gemv_one_thread(a, v, trans=False):
    """``a @ v`` (``a.T @ v`` with ``trans``) of a float32/float64 matrix and vector by MKL's
    ``cblas_?gemv`` on one thread, row-major, every operand and the result C-contiguous from a
    64-byte boundary (Paddle's matmul of a vector calls ``Blas::GEMV`` so, with one math thread);
    None where the ``mkl`` wheel is absent or for another dtype."""
    dtype = a.dtype
    if dtype != v.dtype or dtype not in (np.float32, np.float64) or a.ndim != 2 or v.ndim != 1:
        return None
    f = _GEMV.get(dtype)
    if f is None:
        lib = load()
        f = getattr(lib, "cblas_sgemv" if dtype == np.float32 else "cblas_dgemv", None) \
            if lib else None
        if f is None:
            return None
        scalar = ctypes.c_float if dtype == np.float32 else ctypes.c_double
        P, I = ctypes.c_void_p, ctypes.c_int
        f.argtypes = [I, I, I, I, scalar, P, I, P, I, scalar, P, I]
        f.restype = None
        _GEMV[dtype] = f
    rows, cols = a.shape
    out = at_64(np.zeros(cols if trans else rows, dtype))
    if rows == 0 or cols == 0:
        return out
    a, v = at_64(a), at_64(v)
    local = load().MKL_Set_Num_Threads_Local
    prev = local(1)
    try:
        f(101, 112 if trans else 111, rows, cols, 1.0, address(a), cols, address(v), 1, 0.0,
          address(out), 1)
    finally:
        local(prev)
    return out


_AXPY = {}


def _axpy(name, scalar, itemsize, alpha, x, y):
    """``y += alpha * x`` in place by MKL's ``name`` (``cblas_saxpy``/``cblas_daxpy``; C-contiguous,
    one size): True, or False where the ``mkl`` wheel is absent."""
    if name not in _AXPY:
        lib = load()
        f = getattr(lib, name, None) if lib else None
        if f is not None:
            f.argtypes = [ctypes.c_int, scalar, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                          ctypes.c_int]
            f.restype = None
        _AXPY[name] = f
    f = _AXPY[name]
    if f is None:
        return False
    for a in range(0, y.size, 1 << 30):       # (MKL's n is an int)
        b = min(y.size, a + (1 << 30))
        f(b - a, alpha, address(x) + itemsize * a, 1, address(y) + itemsize * a, 1)
    return True


def daxpy(alpha, x, y):
    """``y += alpha * x`` by MKL's ``cblas_daxpy`` (float64): Paddle's float64 sgd kernel is this
    call (fused on Intel AVX-512, measured against real 3.3.1 and 2.6.2)."""
    return _axpy("cblas_daxpy", ctypes.c_double, 8, alpha, x, y)


def saxpy(alpha, x, y):
    """``y += alpha * x`` by MKL's ``cblas_saxpy`` (float32). MKL fuses the multiply into the add
    on Intel (AVX-512) and rounds the product first on AMD, as Paddle's sgd kernel does there."""
    return _axpy("cblas_saxpy", ctypes.c_float, 4, alpha, x, y)


_GEMMS = {}
_BLAS_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
                np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}


def _gemm_function(name, dtype):
    """MKL's ``cblas_{s,d}{name}`` with its argument types set, or None without MKL."""
    key = (name, np.dtype(dtype))
    if key not in _GEMMS:
        lib = load()
        prefix = "cblas_" + _BLAS_PREFIX[key[1]]
        f = getattr(lib, prefix + name, None) if lib else None
        if f is not None:
            f.restype = None
            if name == "gemm":   # (complex: alpha and beta passed by address)
                scalar = {np.float32: ctypes.c_float, np.float64: ctypes.c_double}.get(
                    key[1].type, ctypes.c_void_p)
                P, I = ctypes.c_void_p, ctypes.c_int
                f.argtypes = [I, I, I, I, I, I, scalar, P, I, P, I, scalar, P, I]
        _GEMMS[key] = f
    return _GEMMS[key]


def gemm_one_thread(a, b, trans_a=False, trans_b=False, c=None):
    """``op(a) @ op(b)`` of two float32/float64 matrices stored C-contiguous (``op``: the
    transpose where the flag is set) by MKL's ``cblas_?gemm`` on one thread, beta 0, every operand
    and the result from a 64-byte boundary, as Paddle's ``Blas::GEMM`` calls it; with ``c`` (an
    (m, n) array) beta 1: ``c + op(a) @ op(b)`` as the GEMM adds it, into a copy of ``c``. None
    where the ``mkl`` wheel is absent or for another dtype."""
    dtype = a.dtype
    if dtype != b.dtype or dtype not in _BLAS_PREFIX or a.ndim != 2 or b.ndim != 2:
        return None
    if c is not None and (c.dtype != dtype or c.ndim != 2):
        return None
    f = _gemm_function("gemm", dtype)
    if f is None:
        return None
    a, b = at_64(a), at_64(b)
    m, k = a.shape[::-1] if trans_a else a.shape
    n = b.shape[0] if trans_b else b.shape[1]
    out = empty_at_64((m, n), dtype)
    if c is not None:
        out[...] = c
    if m == 0 or n == 0 or k == 0:
        if c is None:
            out[...] = 0
        return out
    alpha, beta = 1.0, 0.0 if c is None else 1.0
    if dtype.kind == "c":   # ?gemm of complex values: alpha and beta by address (kept alive)
        scalars = np.array([alpha, beta], dtype)
        alpha, beta = scalars.ctypes.data, scalars.ctypes.data + dtype.itemsize
    local = load().MKL_Set_Num_Threads_Local
    prev = local(1)
    try:
        f(101, 112 if trans_a else 111, 112 if trans_b else 111, m, n, k, alpha, address(a),
          max(a.shape[1], 1), address(b), max(b.shape[1], 1), beta,
          address(out), max(n, 1))
    finally:
        local(prev)
    return out


def gemm_batch_one_thread(a, b, trans_a=False, trans_b=False):
    """``op(a[i]) @ op(b[i])`` for every i of two stacks (B, r, c) of float32/float64 matrices by
    one call of MKL's ``cblas_?gemm_batch`` (one group) on one thread, beta 0, as Paddle's
    ``Blas::BatchedGEMM`` calls it: each matrix stored C-contiguous, the stacks' step any (0: one
    matrix for the whole batch, a broadcast operand), the pointers to each matrix passed, the
    results stacked from a 64-byte boundary. None where the ``mkl`` wheel is absent or for
    another dtype or layout."""
    dtype = a.dtype
    if (dtype != b.dtype or dtype not in _BLAS_PREFIX or a.ndim != 3 or b.ndim != 3
            or a.shape[0] != b.shape[0]):
        return None
    f = _gemm_function("gemm_batch", dtype)
    if f is None:
        return None

    def stored(x):   # every matrix C-contiguous, from a 64-byte boundary (a stack of them)
        if x.strides[0] == 0 and x.shape[0] > 1:
            one = at_64(np.ascontiguousarray(x[0]))
            return np.broadcast_to(one, x.shape)
        return at_64(np.ascontiguousarray(x))

    a, b = stored(a), stored(b)
    count = a.shape[0]
    m, k = a.shape[:0:-1] if trans_a else a.shape[1:]
    n = b.shape[1] if trans_b else b.shape[2]
    out = empty_at_64((count, m, n), dtype)
    if count == 0 or m == 0 or n == 0 or k == 0:
        out[...] = 0
        return out
    P, I = ctypes.c_void_p, ctypes.c_int
    scalar = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    steps = np.arange(count, dtype=np.int64)
    pa = (P * count)(*(address(a) + steps * a.strides[0]).tolist())
    pb = (P * count)(*(address(b) + steps * b.strides[0]).tolist())
    pc = (P * count)(*(address(out) + steps * out.strides[0]).tolist())
    ints = [I(v) for v in (112 if trans_a else 111, 112 if trans_b else 111, m, n, k,
                           max(a.shape[2], 1), max(b.shape[2], 1), max(n, 1), count)]
    ta, tb, mi, ni, ki, lda, ldb, ldc, size = ints
    alpha, beta = scalar(1.0), scalar(0.0)
    if dtype.kind == "c":   # complex: the group's alpha and beta values in the dtype
        alpha, beta = (np.ctypeslib.as_ctypes(np.array([v], dtype).view(
            np.float32 if dtype == np.complex64 else np.float64)) for v in (1.0, 0.0))
    local = load().MKL_Set_Num_Threads_Local
    prev = local(1)
    try:
        f(I(101), ctypes.byref(ta), ctypes.byref(tb), ctypes.byref(mi), ctypes.byref(ni),
          ctypes.byref(ki), ctypes.byref(alpha), pa, ctypes.byref(lda), pb, ctypes.byref(ldb),
          ctypes.byref(beta), pc, ctypes.byref(ldc), I(1), ctypes.byref(size))
    finally:
        local(prev)
    return out
