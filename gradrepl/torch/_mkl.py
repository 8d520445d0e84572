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
# Below this many values VML runs on the calling thread: each value is computed alone (measured:
# 12 functions, f32/f64, 1 to 300,001 values, one thread's bits equal two threads'), and waking
# OpenMP's worker costs more than it saves there (a 6,400-value tanh 120 -> 75 us on a loaded
# 2-core machine, ms when the worker is descheduled).
_ONE_THREAD = 1 << 16
# Up to this many values VML computes on the calling thread whatever its thread count, so the two
# calls that set and restore the thread's count (2,000 instructions each, more than MKL's tanh of
# one value) are left out there. Measured on this machine (2 threads): MKL's OpenMP worker first
# starts at 1,024 values (vmdTan), 2,048 (vmdLog2), 4,096 (vmsTanh); for none of ``FUNCS``,
# float32 or float64, at 512.
_SMALL = 256
_VOID_P, _INT, _LONGLONG = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong

from ..engine import mkl as _engine_mkl  # noqa: E402
from ..engine.mkl import THREADS, address  # noqa: E402,F401  (the loader is shared)
from ..engine.mkl import load as _load  # noqa: E402




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
    local = lib.MKL_Set_Num_Threads_Local
    small = _small_kernels(lib, vml)
    at, field = _engine_mkl.POINTER_AT, _engine_mkl.DATA_FIELD

    def f(x):
        kernel = kernels.get(x.dtype)
        if kernel is None:
            raise TypeError(f"MKL {name}: float32 or float64, not {x.dtype}")
        n = x.size
        if n <= _SMALL:  # (the commonest case: VML runs it on this thread as it is)
            src = np.ascontiguousarray(x)
            out = np.empty_like(src)
            if small is None:
                kernel(n, address(src), address(out), mode)
            else:
                small[x.dtype](n, at(id(src) + field), at(id(out) + field), _MODE)
            return out if src is x else out.reshape(x.shape)
        if n < _ONE_THREAD:  # (the common case: one call, on this thread)
            src = np.ascontiguousarray(x)
            out = np.empty_like(src)
            prev = local(1)
            kernel(src.size, address(src), address(out), mode)
            local(prev)
            return out.reshape(x.shape)
        src = np.ascontiguousarray(x)     # (1-D for a 0-D x: shaped back at the end)
        out = np.empty_like(src)
        flat_in, flat_out = src.reshape(-1), out.reshape(-1)
        for i in range(0, flat_in.size, _CHUNK):
            a, y = flat_in[i:i + _CHUNK], flat_out[i:i + _CHUNK]
            kernel(a.size, address(a), address(y), mode)
        return out.reshape(x.shape)

    f.__name__ = name
    f.kernels, f.mode = kernels, mode   # (for a caller's own small-array path: _ops._unary)
    f.small = small
    return f


def _small_kernels(lib, vml):
    """``vms<vml>``/``vmd<vml>`` for arrays of at most ``_SMALL`` values: called without
    ``argtypes`` (the count a Python int, the addresses ``POINTER_AT``'s ``c_void_p`` over each
    array's data field, the mode ``_MODE``: no conversion of four arguments) and without releasing
    the GIL (a ``PyDLL`` function: VML computes that many values on this thread in well under a
    microsecond, less than dropping and taking the GIL back). The same C function and arguments
    as the ``argtypes`` kernel, so the same bits; about 0.5 us less a call (a one-value tanh on
    this machine: 1.49 -> 0.91 us with its output array). None where the data field of numpy's
    array struct was not found (``engine.mkl.DATA_FIELD``)."""
    if _engine_mkl.DATA_FIELD is None:
        return None  # pragma: no cover - another numpy/Python layout
    direct = ctypes.PyDLL(lib._name, handle=lib._handle)
    kernels = {np.dtype(np.float32): direct["vms" + vml], np.dtype(np.float64): direct["vmd" + vml]}
    for k in kernels.values():
        k.restype = None
    return kernels
