"""In-place, cache-blocked update kernels for the Adam family (the arithmetic of ``adam.py``).

Paddle's CPU Adam kernel rounds each fused multiply-add once; numpy has no fma, so a float32
``a*b + c`` is computed in float64 (the product of two float32 values is exact there) and rounded
back. Done on whole arrays that costs a float64 copy of every operand: over vgg11's 133M
parameters, 4.1 s a step of ``astype`` alone (measured here). This module walks the flat
parameter, gradient and moments in blocks of ``BLOCK`` elements, with one float64 and one working
buffer that stay in cache through all of Adam's arithmetic, and writes the moments and the
parameter back in place: the same bits as the whole-array formulas (tests compare them), at
0.5-0.6 s for those 133M parameters (see ``benchmarks/vgg11_step.py``).
"""
from __future__ import annotations

import os

import numpy as np

from gradrepl.engine import cpu

from .fma import axpy, blas_saxpy, one_blas_thread

BLOCK = 1 << 16  # elements: 512 KiB of float64 buffer, 256 KiB of float32 (L2-resident)


def as_param_array(g, p):
    """The gradient as a C-contiguous array of the parameter's dtype and shape (what the
    kernels read)."""
    return np.ascontiguousarray(g, dtype=p.dtype).reshape(p.shape)


class AdamConstants:
    """One step's scalars, each already rounded to the parameter's dtype (see ``adam.py``)."""

    __slots__ = ("b1", "b2", "one_minus_b1", "one_minus_b2", "neg_lr", "eps_t", "neg_decay")

    def __init__(self, dt, beta1, beta2, neg_lr, eps_t, decay=None):
        one = np.asarray(1, dt)
        self.b1 = np.asarray(beta1, dt)
        self.b2 = np.asarray(beta2, dt)
        self.one_minus_b1 = (one - self.b1).astype(dt)
        self.one_minus_b2 = (one - self.b2).astype(dt)
        self.neg_lr = np.asarray(neg_lr, dt)
        self.eps_t = np.asarray(eps_t, dt)
        self.neg_decay = None if decay is None else -np.asarray(decay, dt)


def adam_update(p, g, m, v, c: AdamConstants, vmax=None):
    """Update ``p``, ``m``, ``v`` (and ``vmax`` for AMSGrad) in place; all C-contiguous, one
    dtype, one shape.

    With ``c.neg_decay`` (AdamW) the parameter is first decayed, ``p = fma(-decay, p, p)``. Then
    ``m = fma(b1, m, (1-b1)*g)``, ``v = fma(b2, v, (1-b2)*(g*g))``, ``vmax = max(vmax, v)``,
    ``p = fma(m / (sqrt(v or vmax) + eps_t), -lr_t, p)``.
    """
    if p.dtype.itemsize >= 8:
        _adam_wide(p, g, m, v, c, vmax)
        return
    if p.dtype == np.float32 and not cpu.avx512f():
        _adam_refer(p, g, m, v, c, vmax)
        return
    fp, fg, fm, fv = p.reshape(-1), g.reshape(-1), m.reshape(-1), v.reshape(-1)
    fvmax = None if vmax is None else vmax.reshape(-1)
    n = fp.size
    parts = _parts(n)
    if len(parts) == 1:
        _adam_blocks(fp, fg, fm, fv, fvmax, c, 0, n)
        return
    # the blocks' saxpy calls run on one BLAS thread: the blocks are already split over the
    # cores, and BLAS threads on top contend for them (0.45 s against 0.22 s for vgg11's Adam)
    with one_blas_thread():
        futures = [_pool().submit(_adam_blocks, fp, fg, fm, fv, fvmax, c, s, e)
                   for s, e in parts]
        for f in futures:
            f.result()


_POOL = None


def _pool():
    """Threads for the block loops: numpy releases the GIL inside each block's ufuncs."""
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=_workers(), thread_name_prefix="gradrepl-opt")
    return _POOL


def _workers():
    try:
        return max(1, min(8, len(os.sched_getaffinity(0))))
    except (AttributeError, OSError):
        return max(1, min(8, os.cpu_count() or 1))


def _parts(n):
    """Contiguous ranges, one a worker, when there are at least 4 blocks a worker; else one."""
    k = _workers()
    if k == 1 or n < 4 * BLOCK * k:
        return [(0, n)]
    step = -(-n // k)
    return [(s, min(s + step, n)) for s in range(0, n, step)]


def _adam_blocks(fp, fg, fm, fv, fvmax, c, start, stop):
    if fp.dtype == np.float32 and blas_saxpy() is not None:
        _adam_blocks_fused(fp, fg, fm, fv, fvmax, c, start, stop)
    else:
        _adam_blocks_wide(fp, fg, fm, fv, fvmax, c, start, stop)


def _adam_blocks_fused(fp, fg, fm, fv, fvmax, c, start, stop):
    """float32 with the BLAS's fused ``saxpy`` (see ``fma.py``): every pass stays float32."""
    saxpy = blas_saxpy()
    size = min(BLOCK, stop - start)
    work_buf = np.empty(size, np.float32)
    work_ptr = work_buf.ctypes.data
    p_ptr, m_ptr, v_ptr = fp.ctypes.data, fm.ctypes.data, fv.ctypes.data
    b1, b2, neg_lr = c.b1.item(), c.b2.item(), c.neg_lr.item()  # (betas may be shape [1])
    c1, c2, eps_t = c.one_minus_b1, c.one_minus_b2, c.eps_t
    neg_decay = None if c.neg_decay is None else c.neg_decay.item()
    multiply, copyto = np.multiply, np.copyto
    for s in range(start, stop, size):
        e = min(s + size, stop)
        n = e - s
        work = work_buf if n == size else work_buf[:n]
        gb, mb, vb = fg[s:e], fm[s:e], fv[s:e]
        at = 4 * s
        if neg_decay is not None:
            saxpy(n, neg_decay, p_ptr + at, 1, p_ptr + at, 1)      # p = fma(-decay, p, p)
        multiply(gb, c1, out=work)                                  # (1-b1)*g, rounded
        saxpy(n, b1, m_ptr + at, 1, work_ptr, 1)                    # fma(b1, m, .)
        copyto(mb, work)
        multiply(gb, gb, out=work)
        multiply(work, c2, out=work)                                # (1-b2)*(g*g), rounded twice
        saxpy(n, b2, v_ptr + at, 1, work_ptr, 1)                    # fma(b2, v, .)
        copyto(vb, work)
        _step_into(work, mb, vb, fvmax, s, e, eps_t)
        saxpy(n, neg_lr, work_ptr, 1, p_ptr + at, 1)                # p = fma(., -lr_t, p)


def _step_into(work, mb, vb, fvmax, s, e, eps_t):
    """``work = m / (sqrt(v) + eps_t)`` for one block, rounded; with AMSGrad ``vmax`` is first
    raised to ``v`` in place and used instead of it."""
    if fvmax is not None:
        xb = fvmax[s:e]
        np.maximum(xb, vb, out=xb)
        vb = xb
    np.sqrt(vb, out=work)
    np.add(work, eps_t, out=work)
    np.divide(mb, work, out=work)


def _adam_blocks_wide(fp, fg, fm, fv, fvmax, c, start, stop):
    """The portable form: each fused multiply-add in float64, rounded back to the dtype."""
    dt = fp.dtype
    size = min(BLOCK, stop - start)
    wide_buf = np.empty(size, np.float64)
    work_buf = np.empty(size, dt)
    b1, b2 = np.float64(c.b1), np.float64(c.b2)
    c1, c2 = c.one_minus_b1, c.one_minus_b2
    neg_lr, eps_t = np.float64(c.neg_lr), c.eps_t
    neg_decay = None if c.neg_decay is None else np.float64(c.neg_decay)
    multiply, add, copyto = np.multiply, np.add, np.copyto
    for s in range(start, stop, size):
        e = min(s + size, stop)
        if e - s != size:
            wide, work = wide_buf[:e - s], work_buf[:e - s]
        else:
            wide, work = wide_buf, work_buf
        pb, gb, mb, vb = fp[s:e], fg[s:e], fm[s:e], fv[s:e]
        if neg_decay is not None:
            multiply(pb, neg_decay, out=wide)
            add(wide, pb, out=wide)
            copyto(pb, wide, casting="same_kind")
        multiply(gb, c1, out=work)                      # (1-b1)*g, rounded
        multiply(mb, b1, out=wide)                      # b1*m, exact
        add(wide, work, out=wide)
        copyto(mb, wide, casting="same_kind")           # m, rounded once
        multiply(gb, gb, out=work)
        multiply(work, c2, out=work)                    # (1-b2)*(g*g), rounded twice
        multiply(vb, b2, out=wide)
        add(wide, work, out=wide)
        copyto(vb, wide, casting="same_kind")           # v, rounded once
        _step_into(work, mb, vb, fvmax, s, e, eps_t)
        multiply(work, neg_lr, out=wide)                # exact
        add(wide, pb, out=wide)
        copyto(pb, wide, casting="same_kind")           # p, rounded once


def _adam_refer(p, g, m, v, c, vmax):
    """float32 on a CPU without AVX-512 (``cpu.avx512f()``): Paddle's reference kernel
    (``jit/refer/refer.h`` Adam/AdamW, compiled without FMA; read from the disassembly of 3.3.1's
    libphi_core.so and 2.6.2's libpaddle.so, and checked against that function called directly):
    ``p = p - (decay * p)`` (AdamW), ``m = b1*m + (1-b1)*g`` and ``v = b2*v + ((1-b2)*g)*g``
    with each operation rounded to float32, ``vmax = max(vmax, v)``, then in double
    ``p = p + (-lr_t) * (m / (sqrt(v) + eps_t))`` rounded once."""
    f64 = np.float64
    if c.neg_decay is not None:
        p += c.neg_decay * p                       # p - (decay * p): the product rounded
    m *= c.b1
    m += c.one_minus_b1 * g
    v *= c.b2
    v += (c.one_minus_b2 * g) * g
    if vmax is not None:
        np.maximum(vmax, v, out=vmax)
        v = vmax
    step = m.astype(f64) / (np.sqrt(v.astype(f64)) + f64(c.eps_t))
    step *= f64(c.neg_lr)
    step += p
    np.copyto(p, step, casting="same_kind")


def sgd_update(p, g, lr, width=None):
    """``p = p - lr*g`` in place; ``p`` and ``g`` C-contiguous of one dtype and shape, ``lr`` in
    that dtype. float32 is MKL's saxpy where the ``exact`` extra has MKL (measured on AMD EPYC
    Zen 4: equal to real Paddle 3.3.1 and 2.6.2 on 0 of 21,000 values differing; there the
    product is rounded first), else the CPU class's rule: one fused multiply-add on Intel (the
    first records), the rounded product subtracted on AMD.

    A float32 parameter whose element count is a multiple of 8 takes Paddle's JIT code instead
    (``jit/gen/sgd``, chosen before MKL's where AVX is there and the width is whole 8-float
    blocks): the rounded product ``lr*g`` subtracted, on Intel too (measured on Intel AVX-512,
    real 3.3.1 and 2.6.2: 8, 16, 40, 64, 1000, 1024, 4096 elements rounded, 7, 20, 60, 4100
    fused as MKL's saxpy). ``width``: the row width Paddle's kernel is chosen by when ``p`` holds
    rows of a SelectedRows update (the JIT code takes whole 8-float rows), else the size."""
    from ...engine import mkl
    from ...engine.ops.nn import _mkl_is_this_cpu

    if p.dtype == np.float64 and _mkl_is_this_cpu() and mkl.daxpy(float(-lr), g.reshape(-1),
                                                                   p.reshape(-1)):
        return  # (float64: MKL's daxpy at every width; no JIT code for double)
    if p.dtype.itemsize >= 8:
        p -= lr * g
        return
    if (p.size if width is None else width) % 8 == 0 and p.dtype == np.float32 and \
            cpu.cpu_class() != "other":
        p -= lr * g  # (float32 lr times float32 g: the product rounded, then the difference)
        return
    if _mkl_is_this_cpu() and mkl.saxpy(-lr, g.reshape(-1), p.reshape(-1)):
        return
    if not cpu.fused_products():
        p -= (lr * g).astype(p.dtype)
        return
    axpy(-lr, g.reshape(-1), p.reshape(-1))


def _adam_wide(p, g, m, v, c, vmax):
    """float64 parameters: plain arithmetic, same order, in place."""
    if c.neg_decay is not None:
        p += c.neg_decay * p
    m *= c.b1
    m += c.one_minus_b1 * g
    v *= c.b2
    v += c.one_minus_b2 * (g * g)
    if vmax is not None:
        np.maximum(vmax, v, out=vmax)
        v = vmax
    step = m / (np.sqrt(v) + c.eps_t)
    step *= c.neg_lr
    p += step
