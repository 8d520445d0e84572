"""torch's CPU random generator: an mt19937 stream and torch's transformations of it, so that
``torch.manual_seed(10); torch.rand(3)`` gives torch's numbers.

- ``random()`` is the next 32-bit output, ``random64()`` two of them (the first one high);
- uniform float32: ``(r & (2**24 - 1)) * 2**-24 * (to - from) + from`` in float32 (float64: 53
  bits of ``random64()``);
- normal, fewer than 16 values (or not float): per value the double Box-Muller of two uniform
  doubles, ``sqrt(-2 log(1 - u2)) * cos(2 pi u1)``, the sine kept for the next value;
  16 or more: all uniforms first, then Box-Muller on blocks of 16 (the last block recomputed
  from fresh uniforms when the size is not a multiple of 16); float32 blocks with torch's AVX2
  log and sincos (``_avx_mathfun``);
- integers in [low, high): ``random() % range + low`` (``random64()`` past 2**32).

A fresh process starts from torch's default seed 67280421310721.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from . import _avx_mathfun, _bfloat16, _capability

DEFAULT_SEED = 67280421310721


class Generator:
    """``torch.Generator``: one mt19937 stream (``manual_seed``, ``initial_seed``, ``seed``)."""

    def __init__(self, device="cpu"):
        self.device = device
        self.manual_seed(DEFAULT_SEED)

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"

    def manual_seed(self, seed):
        seed = int(seed)
        if seed < 0:
            seed &= 0xFFFFFFFFFFFFFFFF
        self._seed = seed
        self._bg = np.random.MT19937()
        self._bg._legacy_seeding(seed & 0xFFFFFFFF)
        self._next_normal = None
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        import random

        s = random.getrandbits(63)
        self.manual_seed(s)
        return s

    def get_state(self):
        from ._tensor import Tensor

        st = self._bg.state
        arr = np.concatenate([np.asarray(st["state"]["key"], np.uint32).view(np.uint8),
                              np.asarray([st["state"]["pos"]], np.uint32).view(np.uint8)])
        t = Tensor._wrap(arr, True)
        t._name = ("gradrepl-rng", self._seed, self._next_normal)
        return t

    def set_state(self, state):
        from ._base import raw

        arr = raw(state)
        key = arr[:624 * 4].view(np.uint32)
        pos = int(arr[624 * 4:624 * 4 + 4].view(np.uint32)[0])
        self._bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        info = getattr(state, "_name", None)
        if isinstance(info, tuple) and info and info[0] == "gradrepl-rng":
            self._seed, self._next_normal = info[1], info[2]
        return self

    # -- raw draws ----------------------------------------------------------------------
    def random(self, n):
        return self._bg.random_raw(n).astype(np.uint64, copy=False)   # (a new uint64 array)

    def random64(self, n):
        r = self._bg.random_raw(2 * n).astype(np.uint64).reshape(n, 2)
        return (r[:, 0] << np.uint64(32)) | r[:, 1]


DEFAULT = Generator()


def manual_seed(seed):
    DEFAULT.manual_seed(seed)
    return DEFAULT


def initial_seed():
    return DEFAULT.initial_seed()


def seed():
    return DEFAULT.seed()


def get_rng_state():
    return DEFAULT.get_state()


def set_rng_state(state):
    DEFAULT.set_state(state)


def _gen(g):
    return DEFAULT if g is None else g


def _uniform01(g, n, dtype):
    """n uniform [0, 1) values as torch's uniform_real_distribution makes them."""
    if dtype == np.float64:
        r = g.random64(n) & np.uint64((1 << 53) - 1)
        return r.astype(np.float64) * (1.0 / (1 << 53))
    digits = 11 if dtype == np.float16 else 8 if dtype == np.uint16 else 24  # (bfloat16: 8)
    r = g.random(n) & np.uint64((1 << digits) - 1)
    return (r.astype(np.float32) * np.float32(1.0 / (1 << digits))).astype(np.float32)


def _complex_parts(dtype):
    """A complex dtype's real part dtype, or None: torch fills a complex tensor through its
    real view (``view_as_real``: real and imaginary parts interleaved, twice the values)."""
    return {np.complex64: np.dtype(np.float32),
            np.complex128: np.dtype(np.float64)}.get(np.dtype(dtype).type)


def _as_complex(parts, dtype):
    return np.ascontiguousarray(parts).view(dtype)[..., 0]


def _count(shape):
    """The number of values of ``shape`` (1 for ``()``); a tuple by ``math.prod`` (numpy's prod
    costs ~10k instructions, a third of a small ``randint``)."""
    if type(shape) is tuple:
        return int(math.prod(shape))
    return int(np.prod(shape)) if shape else 1


def uniform(shape, dtype, low=0.0, high=1.0, generator=None):
    real = _complex_parts(dtype)
    if real is not None:
        shape = tuple(shape)
        return _as_complex(uniform(shape + (2,), real, low, high, generator), dtype)
    g = _gen(generator)
    n = _count(shape)
    dtype = np.dtype(dtype)
    x = _uniform01(g, n, dtype)
    if dtype == np.float64:   # x * (to - from) + from: fused in the FMA builds too
        if _capability.fused():
            from ._sleef64 import fma64

            out = fma64(x, np.full_like(x, high - low), np.full_like(x, low))
        else:
            out = x * (high - low) + low
    else:  # x * (to - from) + from, one fused multiply-add in torch's compiled kernel
        f = np.float32
        span = np.float64(f(f(high) - f(low)))
        out = (x.astype(np.float64) * span + np.float64(f(low))).astype(np.float32)
    return _bfloat16.astype(np.asarray(out), dtype).reshape(shape)


def _normal_fill(g, n, dtype, mean, std):
    work = np.float64 if dtype == np.float64 else np.float32
    data = _uniform01(g, n, np.dtype(work)).astype(work)

    def fill16(block):  # block: (m, 16), each row one block of 16 (rows independent)
        u1 = work(1) - block[:, :8]
        u2 = block[:, 8:]
        theta = work(2.0 * np.pi) * u2
        out = np.empty(block.shape, work)
        if work is np.float64:   # torch's scalar loop: glibc's log, cos and sin
            radius = np.sqrt(work(-2) * _libm(math.log, u1))
            out[:, :8] = _scale(radius * _libm(math.cos, theta), std, mean)
            out[:, 8:] = _scale(radius * _libm(math.sin, theta), std, mean)
            return out
        # float32: torch's AVX2 kernel (avx_mathfun's log and sincos, then one FMA each)
        radius = np.sqrt(work(-2) * _avx_mathfun.log(u1))
        sin, cos = _avx_mathfun.sincos(theta)
        out[:, :8] = _avx_mathfun.fma(radius * cos, work(std), work(mean))
        out[:, 8:] = _avx_mathfun.fma(radius * sin, work(std), work(mean))
        return out

    full = n // 16 * 16
    step = 16 * 65536  # the blocks in slices of 1M values (bounded temporaries)
    for i in range(0, full, step):
        j = min(i + step, full)
        data[i:j] = fill16(data[i:j].reshape(-1, 16)).reshape(-1)
    if n % 16:
        tail = _uniform01(g, 16, np.dtype(work)).astype(work)
        data[n - 16:] = fill16(tail.reshape(1, 16)).reshape(-1)
    return data


def _libm(fn, a):
    """``fn`` of each value through Python's math module, i.e. glibc's libm as torch's scalar
    kernels call it: numpy's own SIMD log/sin/cos differ in the last bit (29 of 26,660 float64
    normals, measured against torch 2.13 here)."""
    return np.fromiter(map(fn, a.ravel().tolist()), np.float64, a.size).reshape(a.shape)


def _scale(z, std, mean):
    """``z * std + mean`` as the kernel's compiled expression rounds it (fused where built with
    FMA), float64."""
    if std == 1.0 and mean == 0.0:
        return z
    if not _capability.fused():
        return z * np.float64(std) + np.float64(mean)
    return np.fromiter((_fma(v, float(std), float(mean)) for v in z.ravel().tolist()),
                       np.float64, z.size).reshape(z.shape)


def _normal_serial(g, n, mean, std):
    out = np.empty(n, np.float64)
    for i in range(n):
        if g._next_normal is not None:
            z = g._next_normal
            g._next_normal = None
        else:
            u1 = float(_uniform01(g, 1, np.float64)[0])
            u2 = float(_uniform01(g, 1, np.float64)[0])
            # glibc's libm as torch's kernel calls it (numpy's own SIMD sin/cos/log1p differ
            # in the last bit: 173 of 4,500 values, measured against torch 2.13 here)
            r = math.sqrt(-2.0 * math.log1p(-u2))
            theta = 2.0 * math.pi * u1
            g._next_normal = r * math.sin(theta)
            z = r * math.cos(theta)
        out[i] = _fma(z, std, mean)
    return out


def _fma(a, b, c):
    """a * b + c rounded once: torch's ``transformation::normal`` is contracted to an FMA in its
    AVX2/AVX-512 kernels (fewer than 16 values are drawn one at a time, so this is exact and
    cheap); a Fraction's float() rounds correctly."""
    if b == 1.0 and c == 0.0:
        return a
    if not _capability.fused():                # the DEFAULT build rounds the product first
        return a * b + c
    fma = getattr(math, "fma", None)          # Python 3.13+
    if fma is not None:
        return fma(a, b, c)
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def memory_order(a):
    """The dims of ``a`` from outermost to innermost in memory when ``a`` is dense and
    non-overlapping but not C-contiguous (a transposed or permuted tensor), else None. torch
    fills such a tensor, or ``empty_like`` of it (dropout's noise), in memory order; a strided
    slice is not dense and is filled in its logical order."""
    if a.ndim < 2 or a.flags.c_contiguous or a.size <= 1:
        return None
    perm = sorted(range(a.ndim), key=lambda d: (-abs(a.strides[d]) if a.shape[d] > 1 else 0, d))
    step = a.itemsize
    for d in reversed(perm):
        if a.shape[d] > 1 and a.strides[d] != step:
            return None
        step *= a.shape[d]
    return perm


def uniform_like(a, generator=None):
    """U(0, 1) doubles, one for each element of ``a``, drawn in ``a``'s memory order."""
    perm = memory_order(a)
    if perm is None:
        return uniform(a.shape, np.dtype(np.float64), 0.0, 1.0, generator)
    u = uniform(tuple(a.shape[d] for d in perm), np.dtype(np.float64), 0.0, 1.0, generator)
    return u.transpose(np.argsort(perm))


def normal(shape, dtype, mean=0.0, std=1.0, generator=None, contiguous=True):
    """``contiguous=False``: torch's ``normal_`` into a non-contiguous tensor takes the serial
    path (one Box-Muller draw an element) whatever its size."""
    real = _complex_parts(dtype)
    if real is not None:   # each part with std / sqrt(2) (computed in double), as torch does
        shape = tuple(shape)
        return _as_complex(normal(shape + (2,), real, mean, std / np.sqrt(2.0), generator),
                           dtype)
    g = _gen(generator)
    n = _count(shape)
    dtype = np.dtype(dtype)
    if n >= 16 and contiguous:
        vals = _normal_fill(g, n, dtype, mean, std)
    else:
        vals = _normal_serial(g, n, mean, std)
    return _bfloat16.astype(np.asarray(vals), dtype).reshape(shape)


def randint(low, high, shape, dtype, generator=None):
    g = _gen(generator)
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    n = _count(shape)
    rng = high - low
    r = g.random64(n) if rng >= (1 << 32) else g.random(n)
    vals = (r % np.uint64(rng)).astype(np.int64) + low
    return vals.astype(dtype, copy=False).reshape(shape)


def randperm(n, generator=None):
    g = _gen(generator)
    out = np.arange(n, dtype=np.int64)
    for i in range(n - 1):
        z = int(g.random(1)[0]) % (n - i)
        out[i], out[z + i] = out[z + i], out[i]
    return out
