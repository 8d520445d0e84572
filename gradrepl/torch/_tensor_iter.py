"""Which values of an elementwise op torch's ``cpu_kernel_vec`` hands to its vector lambda and
which to its scalar one, from the operands' shapes and strides (``TensorIterator``'s layout
rules, ``aten/src/ATen/TensorIterator.cpp`` and ``native/cpu/Loops.h``).

TensorIterator broadcasts the operands, orders the dims by the inputs' strides (smallest
first; a broadcast dim, stride 0, takes no part in the comparison; the output, allocated by
TensorIterator, follows that order), merges neighbouring dims that are one block for every
operand, and runs the inner (first) dim as one loop per row: ``vectorized_loop`` takes the
row's leading multiple of two ``Vectorized`` (32 floats under AVX512, 16 under AVX2) and the
scalar lambda the rest -- provided every operand's inner stride is its item size, or exactly
one input has stride 0 there and the others are contiguous (``unroll_contiguous_scalar_checks``);
otherwise the whole row is the scalar ``basic_loop``. From ``GRAIN`` (32,768) values the range
is split between torch's threads (``at::parallel_for``), each piece with blocks of its own.

So ``x.t().sin()`` runs its vector blocks in ``x``'s memory order, ``x[:, ::2].sin()`` is all
scalar, and ``a ** b`` with ``b`` of shape (n,) broadcast over rows of ``a`` is vectorised row
by row (the rows' tails scalar).
"""
from __future__ import annotations

import numpy as np

from . import _capability

GRAIN = 32768


def _perm(shape, strides):
    """TensorIterator's ``reorder_dimensions``: the dims fastest first (``strides``: one tuple
    of byte strides per input)."""
    nd = len(shape)

    def should_swap(d0, d1):
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _coalesce(shape, strides):
    """TensorIterator's ``coalesce_dimensions`` on dims already fastest first."""
    shape = list(shape)
    strides = [list(s) for s in strides]
    if len(shape) <= 1:
        return shape, strides
    prev = 0
    for dim in range(1, len(shape)):
        s0, s1 = shape[prev], shape[dim]
        ok = s0 == 1 or s1 == 1 or all(s0 * st[prev] == st[dim] for st in strides)
        if ok:
            if s0 == 1:
                for st in strides:
                    st[prev] = st[dim]
            shape[prev] *= shape[dim]
        else:
            prev += 1
            if prev != dim:
                for st in strides:
                    st[prev] = st[dim]
                shape[prev] = shape[dim]
    return shape[:prev + 1], [st[:prev + 1] for st in strides]


def _chunks(n, grain=None):
    from ._kernels import _parallel_chunks

    return _parallel_chunks(n, GRAIN if grain is None else grain)


def gelu_grain(n):
    """GeluKernel's own grain (Activation.cpp): numel / threads above 16,384 elements (its
    GELU_MIN_ELEMENTS_FOR_MULTI_THREADING), else at::internal::GRAIN_SIZE."""
    return max(n // max(_capability.threads(), 1), 1) if n > 16384 else GRAIN


def layout(arrays, out_strides=None):
    """(shape, perm, inner length, whether the rows are vectorised) of an elementwise op on the
    numpy ``arrays`` (its inputs, before broadcasting); ``out_strides``: the byte strides of
    an output given to the op (``out=``, in-place), else TensorIterator allocates it."""
    arrays = [np.asarray(a) for a in arrays]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    views = [np.broadcast_to(a, shape) for a in arrays]
    strides = [tuple(s if n != 1 else 0 for s, n in zip(v.strides, shape)) for v in views]
    item = max(a.itemsize for a in arrays) if arrays else 4
    if out_strides is not None:
        strides = [tuple(out_strides)] + strides
    perm = _perm(shape, strides)          # the output (if given) takes part first, as in torch
    pshape = [shape[d] for d in perm]
    pst = [[st[d] for d in perm] for st in strides]
    if out_strides is None:              # TensorIterator's own output: dense in perm order
        acc, ost = item, []
        for n in pshape:
            ost.append(acc)
            acc *= max(n, 1)
        pst = [ost] + pst
    cshape, cst = _coalesce(pshape, pst)
    inner = cshape[0] if cshape else 1
    inner_st = [st[0] for st in cst] if cshape else [item] * len(cst)
    out_st, in_st = inner_st[0], inner_st[1:]
    contiguous = out_st == item and all(s == item for s in in_st)
    one_scalar = (out_st == item and sum(s == 0 for s in in_st) == 1
                  and all(s in (0, item) for s in in_st))
    return shape, perm, inner, contiguous or one_scalar


def vector_mask(arrays, step=None, out_strides=None, grain=None):
    """Boolean array of the broadcast shape: True where torch's ``cpu_kernel_vec`` computes the
    value with its vector lambda. ``step``: values per vector-loop step (default two AVX-512
    vectors of the dtype under torch's AVX512 capability, two AVX2 ones else)."""
    arrays = [np.asarray(a) for a in arrays]
    if step is None:
        step = 2 * _capability.lanes(arrays[0].dtype, avx512_kernel=True)
    shape, perm, inner, vectorised = layout(arrays, out_strides)
    n = int(np.prod(shape, dtype=np.int64))
    if not vectorised or n == 0:
        return np.zeros(shape, bool)
    it = np.zeros(n, bool)               # in iteration order
    inner = max(int(inner), 1)
    for b, e in _chunks(n, grain(n) if callable(grain) else grain):
        pos = b
        while pos < e:
            row_end = min(e, (pos // inner + 1) * inner)
            k = (row_end - pos) // step * step
            it[pos:pos + k] = True
            pos = row_end
    if list(perm) == list(range(len(shape) - 1, -1, -1)):
        return it.reshape(shape)
    order = np.transpose(np.arange(n).reshape(shape), perm[::-1]).reshape(-1)
    mask = np.empty(n, bool)
    mask[order] = it
    return mask.reshape(shape)


def run(vec, scalar, *arrays, step=None, out_strides=None, grain=None):
    """``vec`` on the values torch's vector loop takes, ``scalar`` on the others (both
    elementwise functions of the broadcast operands); the result in the broadcast shape."""
    arrays = [np.asarray(a) for a in arrays]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    flat = [np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1) for a in arrays]
    if vec is None:
        return np.asarray(scalar(*flat)).reshape(shape)
    mask = vector_mask(arrays, step, out_strides, grain).reshape(-1)
    if mask.all():
        return np.asarray(vec(*flat)).reshape(shape)
    if not mask.any():
        return np.asarray(scalar(*flat)).reshape(shape)
    out = np.empty(flat[0].shape, np.result_type(*arrays))
    with np.errstate(all="ignore"):
        out[mask] = vec(*(f[mask] for f in flat))
        out[~mask] = scalar(*(f[~mask] for f in flat))
    return out.reshape(shape)
