"""torch's CPU math functions, as torch computes them: Intel MKL's vector math library (VML).

torch 2.13's x86 wheels route ``sin``, ``exp``, ``tanh`` and others over float32 and float64
tensors to MKL's VML (``aten/src/ATen/cpu/vml.h``: ``vms<Name>``/``vmd<Name>`` in high-accuracy
mode). MKL is closed and not correctly rounded (a few values in a hundred differ from the C
library by one ulp), so only MKL itself gives torch's last bits. gradrepl loads ``libmkl_rt``
from the ``mkl`` wheel (a dependency on x86-64 Linux and Windows) with ctypes; where it is
absent, ``vml`` returns None and the caller keeps the C library's result.

``FUNCS`` lists the functions whose every value equalled real torch 2.13 in float32 and float64
(100,000 random values each over its domain, measured); ``log1p``, ``sinh`` and ``cosh`` take
other paths in torch and are not listed.
"""
from __future__ import annotations

import ctypes

import numpy as np

# torch name -> VML name (vms<Name> float32, vmd<Name> float64)
FUNCS = {"exp": "Exp", "log": "Ln", "log2": "Log2", "log10": "Log10", "tanh": "Tanh",
         "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos",
         "atan": "Atan", "erf": "Erf"}
# torch's mode: VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE
_MODE = ctypes.c_longlong(0x2 | 0x140000 | 0x100)
_CHUNK = 1 << 30          # MKL_INT is 32-bit (LP64)
_LIB = None               # the loaded libmkl_rt, False when there is none
_VOID_P, _INT, _LONGLONG = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong


def _address_reader():
    """``address(a)``: where ndarray ``a``'s values start. numpy's ``a.ctypes.data`` makes an
    object to say it (about 1 us here, more than MKL's work on a few values, twice or three
    times a call); the address is the first field of numpy's array struct after the object
    header, read in 0.17 us. Checked on probe arrays once: where the layout is not that (another
    Python build), ``a.ctypes.data`` it is."""
    offset = object.__basicsize__
    read = ctypes.c_void_p.from_address
    try:
        probes = (np.arange(3.0), np.arange(6, dtype=np.float32)[2:], np.empty((2, 3)).T)
        if all(read(id(p) + offset).value == p.ctypes.data for p in probes):
            return lambda a: read(id(a) + offset).value
    except (ValueError, OverflowError, TypeError):  # pragma: no cover - other builds
        pass
    return lambda a: a.ctypes.data  # pragma: no cover


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


THREADS = 2  # torch's at::get_num_threads() on the reference 2-core machine: MKL's gemm
#              splits some products (e.g. 10x32 @ 32x16) between its threads, which changes
#              their sums' order, so gradrepl runs MKL with as many OpenMP threads as torch


def _gnu_threads(path) -> bool:
    """Whether MKL's GNU OpenMP layer can load (its library beside libmkl_rt, and libgomp)."""
    import os

    if not os.path.exists(os.path.join(os.path.dirname(path), "libmkl_gnu_thread.so.2")):
        return False
    try:
        ctypes.CDLL("libgomp.so.1", mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return False
    return True


def _load():
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


def available() -> bool:
    return bool(_load())


def function(name):
    """``f(x) -> y`` computing torch's ``name`` over a float32/float64 array with MKL, or None
    when MKL is absent or torch does not use it for ``name``."""
    vml = FUNCS.get(name)
    lib = _load() if vml is not None else None
    if not lib:
        return None
    kernels = {np.dtype(np.float32): getattr(lib, "vms" + vml),
               np.dtype(np.float64): getattr(lib, "vmd" + vml)}
    for k in kernels.values():
        k.argtypes, k.restype = (_INT, _VOID_P, _VOID_P, _LONGLONG), None
    mode = _MODE.value

    def f(x):
        kernel = kernels.get(x.dtype)
        if kernel is None:
            raise TypeError(f"MKL {name}: float32 or float64, not {x.dtype}")
        if x.size < _CHUNK:  # (the common case: one call)
            src = np.ascontiguousarray(x)
            out = np.empty_like(src)
            kernel(src.size, address(src), address(out), mode)
            return out.reshape(x.shape)
        src = np.ascontiguousarray(x)     # (1-D for a 0-D x: shaped back at the end)
        out = np.empty_like(src)
        flat_in, flat_out = src.reshape(-1), out.reshape(-1)
        for i in range(0, flat_in.size, _CHUNK):
            a, y = flat_in[i:i + _CHUNK], flat_out[i:i + _CHUNK]
            kernel(a.size, address(a), address(y), mode)
        return out.reshape(x.shape)

    f.__name__ = name
    return f
