"""torch 2.13's CPU FFTs are MKL's DFTI (SpectralOps.cpp's ``_exec_fft``): this calls the same
routine the same way through ctypes, so ``torch.fft`` and ``stft`` carry MKL's last bits.

One plan per call as torch makes it: the batch dimensions first (by decreasing stride), the
transformed ones after in the order asked, the batch collapsed into one; a descriptor of the
signal sizes, out of place, ``NUMBER_OF_TRANSFORMS`` the batch, the input/output distances and
strides (in elements) of the arrays actually passed, CCE storage for the real transforms, the
normalisation as the forward or backward scale (a double: 1/n or 1/sqrt(n)). ``available()``
is False without the mkl wheel; ``gradrepl.torch.fft`` then keeps numpy's pocketfft.

``norm`` is torch's fft_norm_mode: 0 none, 1 by 1/sqrt(n), 2 by 1/n."""
from __future__ import annotations

import ctypes

import numpy as np

from ..engine import mkl as _engine_mkl

_FORWARD_SCALE, _BACKWARD_SCALE, _NUMBER_OF_TRANSFORMS = 4, 5, 7
_CONJUGATE_EVEN_STORAGE, _PLACEMENT, _INPUT_STRIDES, _OUTPUT_STRIDES = 10, 11, 12, 13
_INPUT_DISTANCE, _OUTPUT_DISTANCE = 14, 15
_COMPLEX, _REAL, _SINGLE, _DOUBLE = 32, 33, 35, 36
_COMPLEX_COMPLEX, _NOT_INPLACE = 39, 44

_L = ctypes.c_long
_P = ctypes.c_void_p


def _lib():
    return _engine_mkl.load()


def available():
    return bool(_lib())


def _check(status, what):
    if status != 0:
        raise RuntimeError(f"MKL FFT error: {what} returned {status}")


def _exec(inp, out, signal, norm, forward):
    """Run one planned transform: ``inp``/``out`` are arrays shaped (batch, *dims) (any
    strides), ``signal`` the full signal sizes (the larger of input/output per dim)."""
    lib = _lib()
    nd = len(signal)
    real = inp.dtype.kind == "f" or out.dtype.kind == "f"
    prec = _SINGLE if inp.dtype in (np.float32, np.complex64) else _DOUBLE
    handle = _P()
    lib.DftiCreateDescriptor.restype = _L
    if nd == 1:
        st = lib.DftiCreateDescriptor(ctypes.byref(handle), _L(prec),
                                      _L(_REAL if real else _COMPLEX), _L(1), _L(signal[0]))
    else:
        lengths = (_L * nd)(*signal)
        st = lib.DftiCreateDescriptor(ctypes.byref(handle), _L(prec),
                                      _L(_REAL if real else _COMPLEX), _L(nd), lengths)
    _check(st, "DftiCreateDescriptor")
    try:
        lib.DftiSetValue.restype = _L
        _check(lib.DftiSetValue(handle, _L(_PLACEMENT), _L(_NOT_INPLACE)), "PLACEMENT")
        _check(lib.DftiSetValue(handle, _L(_NUMBER_OF_TRANSFORMS), _L(inp.shape[0])),
               "NUMBER_OF_TRANSFORMS")
        isz, osz = inp.itemsize, out.itemsize
        _check(lib.DftiSetValue(handle, _L(_INPUT_DISTANCE), _L(inp.strides[0] // isz)),
               "INPUT_DISTANCE")
        _check(lib.DftiSetValue(handle, _L(_OUTPUT_DISTANCE), _L(out.strides[0] // osz)),
               "OUTPUT_DISTANCE")
        istr = (_L * (nd + 1))(0, *[s // isz for s in inp.strides[1:]])
        ostr = (_L * (nd + 1))(0, *[s // osz for s in out.strides[1:]])
        _check(lib.DftiSetValue(handle, _L(_INPUT_STRIDES), istr), "INPUT_STRIDES")
        _check(lib.DftiSetValue(handle, _L(_OUTPUT_STRIDES), ostr), "OUTPUT_STRIDES")
        if real:
            _check(lib.DftiSetValue(handle, _L(_CONJUGATE_EVEN_STORAGE), _L(_COMPLEX_COMPLEX)),
                   "CONJUGATE_EVEN_STORAGE")
        if norm:
            n = float(np.prod(signal))
            scale = 1.0 / np.sqrt(n) if norm == 1 else 1.0 / n
            _check(lib.DftiSetValue(handle, _L(_FORWARD_SCALE if forward else _BACKWARD_SCALE),
                                    ctypes.c_double(scale)), "SCALE")
        lib.DftiCommitDescriptor.restype = _L
        _check(lib.DftiCommitDescriptor(handle), "DftiCommitDescriptor")
        fn = lib.DftiComputeForward if forward else lib.DftiComputeBackward
        fn.restype = _L
        _check(fn(handle, _P(inp.ctypes.data), _P(out.ctypes.data)), "DftiCompute")
    finally:
        lib.DftiFreeDescriptor(ctypes.byref(handle))


def _planned(a, dims, out_sizes, out_dtype, norm, forward):
    """torch's ``_exec_fft``: permute batch dims first (by decreasing stride) then ``dims``,
    collapse the batch, transform, and put the dimensions back."""
    nd = a.ndim
    dims = [d % nd for d in dims] if nd else []
    batch = [d for d in range(nd) if d not in dims]
    batch.sort(key=lambda d: -a.strides[d])
    perm = batch + list(dims)
    x = np.transpose(a, perm)
    x = x.reshape((-1,) + x.shape[len(batch):])
    bsize = x.shape[0]
    signal = [max(x.shape[i + 1], out_sizes[d]) for i, d in enumerate(dims)]
    out = np.empty((bsize,) + tuple(out_sizes[d] for d in dims), out_dtype)
    if out.size and x.size:
        _exec(x, out, signal, norm, forward)
    shaped = out.reshape(tuple(a.shape[d] if d in batch else out_sizes[d] for d in perm))
    inverse = np.argsort(perm)
    return np.ascontiguousarray(np.transpose(shaped, inverse))


def _sort_dims(a, dims, exclude_last=False):
    """torch's ``_sort_dims``: the dims by decreasing stride (the last kept last if asked)."""
    dims = [d % a.ndim for d in dims]
    head = dims[:-1] if exclude_last else dims
    head = sorted(head, key=lambda d: -a.strides[d])
    return head + (dims[-1:] if exclude_last else [])


def c2c(a, dims, norm, forward):
    if not dims:
        return a.copy()
    dims = _sort_dims(a, dims)
    return _planned(a, dims, a.shape, a.dtype, norm, forward)


def r2c(a, dims, norm, onesided):
    """The real-to-complex transform over ``dims`` (halved along the last); the full spectrum
    (``onesided=False``) filled by conjugate symmetry, as torch does."""
    cdt = np.complex64 if a.dtype == np.float32 else np.complex128
    dims = _sort_dims(a, dims, exclude_last=True)
    last = dims[-1]
    sizes = list(a.shape)
    sizes[last] = a.shape[last] // 2 + 1
    half = _planned(a, dims, sizes, cdt, norm, True)
    if onesided:
        return half
    full_n = a.shape[last]
    full = np.empty(a.shape, cdt)
    idx = [slice(None)] * a.ndim
    idx[last] = slice(0, sizes[last])
    full[tuple(idx)] = half
    if full_n > sizes[last]:
        # X[k] = conj(X[(-k) mod n]) over all transformed dims
        src = half
        for d in dims[:-1]:
            src = np.roll(np.flip(src, d), 1, d)
        k = np.arange(sizes[last], full_n)
        take = [slice(None)] * a.ndim
        take[last] = full_n - k
        full_idx = [slice(None)] * a.ndim
        full_idx[last] = k
        full[tuple(full_idx)] = np.conj(src[tuple(take)])
    return full


def c2r(a, dims, norm, last_size):
    """The complex-to-real (backward) transform; the leading dims by a backward c2c first."""
    dims = [d % a.ndim for d in dims]
    x = a
    if len(dims) > 1:
        x = c2c(a, dims[:-1], norm, False)
        dims = dims[-1:]
    x = np.array(x, copy=True)   # MKL's c2r may overwrite its input
    rdt = np.float32 if a.dtype == np.complex64 else np.float64
    sizes = list(x.shape)
    sizes[dims[-1]] = last_size
    return _planned(x, dims, sizes, rdt, norm, False)
