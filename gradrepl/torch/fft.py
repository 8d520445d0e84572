"""``torch.fft``: the discrete Fourier transforms as torch 2.13 computes them on the CPU, with
MKL's DFTI composed as SpectralOps.cpp composes it (``_dfti``: r2c, c2c, c2r plans; 99.7% of
6,050 float32 values over 16 lengths bit-equal to real torch, length 10's real transforms
excepted); without the mkl wheel numpy's pocketfft in the input's precision (float32 and
complex64 stay single precision, as torch's CPU transforms), ``fftfreq``,
``rfftfreq``, ``fftshift``, ``ifftshift``. Integer inputs are transformed in the default float
dtype. The transforms that keep their input's size take torch's gradients (see the end)."""
from __future__ import annotations

import numpy as np

from . import _dfti, _dtypes, _ops
from ._base import EngineTensor, raw
from ._tensor import Tensor

_wrap = Tensor._wrap

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_NORMS = (None, "backward", "ortho", "forward")
_SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _arr(x, real=False):
    a = raw(x) if isinstance(x, EngineTensor) else np.asarray(x)
    if a.dtype.kind not in "fc":
        a = a.astype(_dtypes.default_float())
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    if real and a.dtype.kind == "c":
        raise RuntimeError("rfft expects a real input tensor, but got " +
                           _dtypes.from_np(a.dtype).__repr__().replace("torch.", ""))
    return a


def _cdt(a):
    return np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128


def _rdt(a):
    return np.float32 if a.dtype in (np.float32, np.complex64) else np.float64


def _check_norm(norm):
    if norm not in _NORMS:
        raise RuntimeError(f"Invalid normalization mode: {norm}")


def _done(out, dt, out_t=None):
    res = _wrap(np.ascontiguousarray(np.asarray(out).astype(dt)), True)
    if out_t is not None:
        return _ops._out(res, out_t)
    return res


def _dims(a, s, dim, default_last=None):
    if isinstance(dim, int):
        dim = (dim,)
    if dim is None:
        if s is not None:
            dim = tuple(range(a.ndim - len(s), a.ndim))
        elif default_last is not None:
            dim = tuple(range(a.ndim - default_last, a.ndim))
        else:
            dim = tuple(range(a.ndim))
    dim = tuple(d % a.ndim if a.ndim else 0 for d in dim)
    if s is not None:
        s = tuple(int(v) for v in s)
        s = tuple(a.shape[d] if v == -1 else v for v, d in zip(s, dim))
    return s, dim


# ------------------------------------------------------------------ MKL's DFTI, as torch
def _mode(norm, forward):
    """torch's norm_from_string: 0 none, 1 by 1/sqrt(n), 2 by 1/n."""
    if norm == "ortho":
        return 1
    if forward:
        return 2 if norm == "forward" else 0
    return 0 if norm == "forward" else 2


def _resize(a, dims, sizes):
    """torch's resize_fft_input: slice or zero-pad each transformed dim to its size."""
    for d, n in zip(dims, sizes):
        if a.shape[d] > n:
            idx = [slice(None)] * a.ndim
            idx[d] = slice(0, n)
            a = a[tuple(idx)]
        elif a.shape[d] < n:
            pad = [(0, 0)] * a.ndim
            pad[d] = (0, n - a.shape[d])
            a = np.pad(a, pad)
    return a


def _mkl_fft(kind, a, s, dims, norm):
    """The transforms as SpectralOps.cpp composes them from MKL's r2c/c2c/c2r."""
    D = _dfti
    dims = [d % a.ndim for d in dims]
    real = a.dtype.kind == "f"
    if kind in ("fft", "ifft"):
        fwd = kind == "fft"
        x = _resize(a, dims, s)
        if real:
            r = D.r2c(x, dims, _mode(norm, fwd), False)
            return r if fwd else np.conj(r)
        return D.c2c(x, dims, _mode(norm, fwd), fwd)
    if kind in ("fftn", "ifftn"):
        fwd = kind == "fftn"
        x = _resize(a.astype(_cdt(a)), dims, s)
        return D.c2c(x, dims, _mode(norm, fwd), fwd)
    if kind in ("rfft", "rfftn"):
        return D.r2c(_resize(a, dims, s), dims, _mode(norm, True), True)
    if kind == "ihfft":
        return np.conj(D.r2c(_resize(a, dims, s), dims, _mode(norm, False), True))
    if kind == "ihfftn":
        x = _resize(a, dims, s)
        tmp = np.conj(D.r2c(x, dims[-1:], _mode(norm, False), True))
        return D.c2c(tmp, dims[:-1], _mode(norm, False), False) if len(dims) > 1 else tmp
    last = s[-1]
    half = list(s[:-1]) + [last // 2 + 1]
    x = _resize(a.astype(_cdt(a)), dims, half)
    if kind in ("irfft", "irfftn"):
        return D.c2r(x, dims, _mode(norm, False), last)
    # hfft / hfftn: the leading dims forward, the conjugate, then c2r along the last
    if len(dims) > 1:
        x = D.c2c(x, dims[:-1], _mode(norm, True), True)
    return D.c2r(np.conj(x), dims[-1:], _mode(norm, True), last)


def _one(kind, a, n, dim):
    d = dim % a.ndim if a.ndim else 0
    if n is None:
        n = 2 * (a.shape[d] - 1) if kind in ("irfft", "hfft") else a.shape[d]
    return [int(n)], [d]


# ------------------------------------------------------------------ one dimension
def fft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    _check_norm(norm)
    a = _arr(input)
    if _dfti.available() and a.ndim:
        return _done(_mkl_fft("fft", a, *_one("fft", a, n, dim), norm), _cdt(a), out)
    return _done(np.fft.fft(a.astype(_cdt(a)), n, dim, norm), _cdt(a), out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    _check_norm(norm)
    a = _arr(input)
    if _dfti.available() and a.ndim:
        return _done(_mkl_fft("ifft", a, *_one("ifft", a, n, dim), norm), _cdt(a), out)
    if a.dtype.kind == "f":  # torch: the conjugate of the forward real transform (-0j at 0)
        return _done(np.conj(np.fft.fft(a, n, dim, _SWAP[norm])), _cdt(a), out)
    return _done(np.fft.ifft(a.astype(_cdt(a)), n, dim, norm), _cdt(a), out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    _check_norm(norm)
    a = _arr(input, real=True)
    if _dfti.available() and a.ndim:
        return _done(_mkl_fft("rfft", a, *_one("rfft", a, n, dim), norm), _cdt(a), out)
    return _done(np.fft.rfft(a, n, dim, norm), _cdt(a), out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    _check_norm(norm)
    a = _arr(input)
    if _dfti.available() and a.ndim:
        return _done(_mkl_fft("irfft", a, *_one("irfft", a, n, dim), norm), _rdt(a), out)
    return _done(np.fft.irfft(a.astype(_cdt(a)), n, dim, norm), _rdt(a), out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    _check_norm(norm)
    a = _arr(input)
    if _dfti.available() and a.ndim:
        return _done(_mkl_fft("hfft", a, *_one("hfft", a, n, dim), norm), _rdt(a), out)
    return _done(np.fft.hfft(a.astype(_cdt(a)), n, dim, norm), _rdt(a), out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):  # noqa: A002
    _check_norm(norm)
    a = _arr(input, real=True)
    if _dfti.available() and a.ndim:
        return _done(_mkl_fft("ihfft", a, *_one("ihfft", a, n, dim), norm), _cdt(a), out)
    return _done(np.conj(np.fft.rfft(a, n, dim, _SWAP[norm])), _cdt(a), out)


# ------------------------------------------------------------------ n dimensions
def _nd(kind, input, s, dim, norm, out, default_last=None):  # noqa: A002
    _check_norm(norm)
    a = _arr(input, real=kind in ("rfftn", "ihfftn"))
    s_given = s
    s, dim = _dims(a, s, dim, default_last)
    if _dfti.available() and a.ndim and dim:
        sizes = list(s) if s is not None else [a.shape[d] for d in dim]
        if s_given is None and kind in ("irfftn", "hfftn"):
            sizes[-1] = 2 * (a.shape[dim[-1]] - 1)
        dt = _rdt(a) if kind in ("irfftn", "hfftn") else _cdt(a)
        return _done(_mkl_fft(kind, a, sizes, list(dim), norm), dt, out)
    if kind == "fftn":
        return _done(np.fft.fftn(a.astype(_cdt(a)), s, dim, norm), _cdt(a), out)
    if kind == "ifftn":
        if a.dtype.kind == "f":
            return _done(np.conj(np.fft.fftn(a, s, dim, _SWAP[norm])), _cdt(a), out)
        return _done(np.fft.ifftn(a.astype(_cdt(a)), s, dim, norm), _cdt(a), out)
    if kind == "rfftn":
        return _done(np.fft.rfftn(a, s, dim, norm), _cdt(a), out)
    if kind == "irfftn":
        return _done(np.fft.irfftn(a.astype(_cdt(a)), s, dim, norm), _rdt(a), out)
    if kind == "ihfftn":
        return _done(np.conj(np.fft.rfftn(a, s, dim, _SWAP[norm])), _cdt(a), out)
    # hfftn: the inverse of ihfftn
    return _done(np.fft.irfftn(np.conj(a.astype(_cdt(a))), s, dim, _SWAP[norm]), _rdt(a), out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    return _nd("fftn", input, s, dim, norm, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    return _nd("ifftn", input, s, dim, norm, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    return _nd("rfftn", input, s, dim, norm, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    return _nd("irfftn", input, s, dim, norm, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    return _nd("hfftn", input, s, dim, norm, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):  # noqa: A002
    return _nd("ihfftn", input, s, dim, norm, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    return _nd("fftn", input, s, dim, norm, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    return _nd("ifftn", input, s, dim, norm, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    return _nd("rfftn", input, s, dim, norm, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    return _nd("irfftn", input, s, dim, norm, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    return _nd("hfftn", input, s, dim, norm, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):  # noqa: A002
    return _nd("ihfftn", input, s, dim, norm, out)


# ------------------------------------------------------------------ helpers
def _freq_dtype(dtype):
    return _dtypes.to_np(dtype) if dtype is not None else np.dtype(_dtypes.default_float())


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None,
            requires_grad=False):
    """torch's fftfreq: arange(n) in the dtype, the upper half moved below zero, then
    multiplied by 1 / (n d) in the dtype."""
    dt = _freq_dtype(dtype)
    k = np.arange(n, dtype=np.int64)
    k[(n + 1) // 2:] -= n
    res = k.astype(dt) * np.asarray(1.0 / (n * d), dt)
    t = _wrap(res.astype(dt), True)
    if requires_grad:
        t.requires_grad_(True)
    return _ops._out(t, out) if out is not None else t


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    dt = _freq_dtype(dtype)
    res = np.arange(n // 2 + 1).astype(dt) * np.asarray(1.0 / (n * d), dt)
    t = _wrap(res.astype(dt), True)
    if requires_grad:
        t.requires_grad_(True)
    return _ops._out(t, out) if out is not None else t


def _shift(input, dim, sign):  # noqa: A002
    nd = raw(input).ndim
    if dim is None:
        dim = tuple(range(nd))
    elif isinstance(dim, int):
        dim = (dim,)
    shape = raw(input).shape
    shifts = tuple(sign * (shape[d] // 2) if sign > 0 else -(shape[d] // 2) for d in dim)
    return _ops.roll(input, shifts, tuple(dim))


def fftshift(input, dim=None):  # noqa: A002
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):  # noqa: A002
    return _shift(input, dim, -1)


# ------------------------------------------------------------------ gradients
# torch's backward formulas (FunctionsManual: fft_r2c_backward, fft_c2r_backward, and
# _fft_c2c's own): the transform of the opposite direction under the same normalization (a
# public call with the swapped ``norm``), each step one of the dialect's ops so create_graph
# differentiates it again. Transforms that resize their input (n / s other than its size) keep
# no gradient, as before.
_C2C = {"fft": "ifftn", "ifft": "fftn", "fftn": "ifftn", "ifftn": "fftn"}


def _grad_params(kind, a, args, kw, one):
    """(dims, sizes) of the call, or None where the transform resizes its input."""
    names = ("n", "dim", "norm") if one else ("s", "dim", "norm")
    p = dict(zip(names, args))
    p.update(kw)
    norm = p.get("norm")
    if one:
        d = p.get("dim", -1) % a.ndim
        dims, sizes = [d], None if p.get("n") is None else [int(p["n"])]
    else:
        default_last = 2 if kind.endswith("2") else None
        dim = p.get("dim", (-2, -1) if kind.endswith("2") else None)
        sizes, dims = _dims(a, p.get("s"), dim, default_last)
        dims = list(dims)
    if kind.startswith("irfft"):
        last = a.shape[dims[-1]]
        n_last = sizes[-1] if sizes is not None else 2 * (last - 1)
        if n_last // 2 + 1 != last or (sizes is not None and any(
                s != a.shape[d] for s, d in zip(sizes[:-1], dims[:-1]))):
            return None
        return dims, n_last, norm
    if sizes is not None and any(s != a.shape[d] for s, d in zip(sizes, dims)):
        return None
    return dims, None, norm


def _fft_vjp(kind, dims, n_last, norm, real_in):
    import gradrepl.torch as T

    base = kind.rstrip("2").rstrip("n") if kind not in ("fftn", "ifftn") else kind

    def vjp(n, g):
        if real_in and base in ("ifft", "ifftn"):   # (torch: conj of the forward r2c)
            return T.real(ifftn(T.conj(g), None, dims, norm))
        if base in ("fft", "ifft", "fftn", "ifftn"):
            inv = _C2C[base if base in _C2C else kind]
            gi = (ifftn if inv == "ifftn" else fftn)(g, None, dims, _SWAP[norm])
            return T.real(gi) if real_in else gi
        if base == "rfft":
            m = g.shape[dims[-1]]
            full = raw(n.inputs[0]).shape[dims[-1]]
            if full > m:
                shape = list(g.shape)
                shape[dims[-1]] = full - m
                g = T.cat([g, T.zeros(shape, dtype=g.dtype)], dims[-1])
            return T.real(ifftn(g, None, dims, _SWAP[norm]))
        # irfft: the one-sided forward transform, its bins 1 .. n - m doubled
        gi = rfftn(g, None, dims, _SWAP[norm])
        m = gi.shape[dims[-1]]
        double = n_last - m
        if double > 0:
            w = np.ones(m, _rdt(raw(gi)))
            w[1:1 + double] = 2
            shape = [1] * gi.ndim
            shape[dims[-1]] = m
            gi = T.mul(gi, T.tensor(w.reshape(shape)))
        return gi
    return vjp


def _differentiable(kind, one):
    def deco(fn):
        def run(input, *args, out=None, **kw):  # noqa: A002
            from .linalg import _grad_wanted, _mkop
            from ..engine.registry import apply

            if out is not None or not _grad_wanted(input):
                return fn(input, *args, out=out, **kw)
            a = raw(input)
            params = _grad_params(kind, a, args, kw, one) if a.ndim else None
            if params is None:
                return fn(input, *args, out=out, **kw)
            real_in = a.dtype.kind == "f"
            name = ("FftC2RBackward0" if kind.startswith("irfft") else
                    "FftR2CBackward0" if real_in or kind.startswith("rfft") else
                    "FftC2CBackward0")
            op = _mkop(name, lambda x, **_k: raw(fn(_wrap(x, True), *args, **kw)),
                       _fft_vjp(kind, *params, real_in))
            return apply(op, (input,))
        run.__name__ = run.__qualname__ = fn.__name__
        run.__doc__ = fn.__doc__
        return run
    return deco


for _kind, _is_1d in (("fft", True), ("ifft", True), ("rfft", True), ("irfft", True),
                      ("fftn", False), ("ifftn", False), ("rfftn", False), ("irfftn", False),
                      ("fft2", False), ("ifft2", False), ("rfft2", False), ("irfft2", False)):
    globals()[_kind] = _differentiable(_kind, _is_1d)(globals()[_kind])
del _kind, _is_1d
