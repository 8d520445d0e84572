"""torch's CPU variance and standard deviation (``torch.var/std/var_mean/std_mean``), so that
their float64 results carry torch's last bits.

What torch 2.13 does (``aten/src/ATen/native/ReduceOps.cpp`` ``std_var_out`` /
``std_var_mean_out``, ``cpu/ReduceOpsKernel.cpp`` ``std_var_kernel_impl``, ``WelfordOps`` in
``SharedReduceOps.h``; checked bit for bit against torch 2.13 on this machine: shapes (200, 3),
(50, 7, 9), (1000, 5), (5, 1000), (64, 33), (3, 4, 5), (40000,), (70000,), transposed views,
corrections 0 and 1, every function):

- ``var``/``std`` with ONE output value (no ``dim``, or dims that leave one value): two passes.
  The mean is torch's own ``self.mean()`` (its sum order, in the input's dtype), taken to
  double; then ``(double(x) - mean) ** 2`` added one by one in double, in memory order; from
  GRAIN (32768) values on, each thread's range is added separately and the partial sums added
  (``at::parallel_reduce``). ``sum / max(0, n - correction)``, ``sqrt`` for std, in double,
  rounded once to the dtype.
- every other case (``var``/``std`` over some dims, ``var_mean``/``std_mean`` always): Welford
  in double, value by value over each output's reduced values in memory order (``delta = x -
  mean; mean += delta / n; m2 += delta * (x - mean)``, not fused), ``m2 / (n - correction)``
  (0 when ``n <= correction``), ``sqrt`` for std; the mean of ``var_mean`` is that running mean.
  One output from GRAIN values on: each thread's range gets its own Welford, then they are
  combined (``WelfordOps::combine``, in thread order).

float32: the one-output two-pass path is the same arithmetic (float mean, double squares) and
cheap, so it is used; over dims, a double two-pass rounds to the same float32 as torch's double
Welford but for a last-bit tie (the double results differ in their last bits only), so the
caller keeps its vectorised two-pass there (``welford_dims`` is for float64). Not modelled: the
per-2-D-slab partial sums of a full reduction of a non-contiguous tensor of 3+ uncoalescable
dims (added as one run here)."""
from __future__ import annotations

import math

import numpy as np

from ..engine._native import lib as _NATIVE   # (None: numpy alone)
from . import _kernels

GRAIN = 32768
_f64 = np.float64


def _kept(shape, axis):
    return [k for k in range(len(shape)) if k not in axis]


def one_output(shape, axis) -> bool:
    """Whether the reduction leaves one value (torch's ``result.numel() == 1``)."""
    return math.prod(shape[k] for k in _kept(shape, axis)) == 1


def two_pass(x, correction, root):
    """``std_var_all_cpu``: the whole of ``x`` (float32/float64, not empty) -> a 0-d array."""
    mean = _kernels.torch_sum(x, tuple(range(x.ndim)))
    mean = _f64(np.asarray(mean, x.dtype).reshape(()) / x.dtype.type(x.size))
    flat = np.ravel(x, order="K").astype(_f64)
    with np.errstate(all="ignore"):
        sq = (flat - mean) * (flat - mean)
        total = 0.0
        for b, e in _kernels._parallel_chunks(flat.size, GRAIN):
            total = total + float(np.add.accumulate(sq[b:e])[-1])
        dof = max(0.0, x.size - float(correction))
        var = np.divide(_f64(total), _f64(dof))
        out = np.sqrt(var) if root else var
    return np.asarray(out, x.dtype)


def _rows(x, axis):
    """(K, M) view of x: each column one output's reduced values in memory order (the reduced
    axes by falling stride), the outputs in the kept axes' order."""
    red = sorted(axis, key=lambda k: -abs(x.strides[k]))
    kept = _kept(x.shape, axis)
    k = math.prod(x.shape[a] for a in red)
    m = math.prod(x.shape[a] for a in kept)
    return np.transpose(x, red + kept).reshape(k, m), [x.shape[a] for a in kept]


def _welford_columns(rows):
    """Welford over axis 0 of rows (K, M), each column its own run: (mean, m2, n) in double."""
    k, m = rows.shape
    if m <= 16:   # (few outputs: Python floats, the same IEEE double arithmetic, faster)
        means, m2s = [], []
        for j in range(m):
            mean = m2 = 0.0
            n = 0
            for v in rows[:, j].astype(_f64).tolist():
                n += 1
                delta = v - mean
                mean = mean + delta / n
                m2 = m2 + delta * (v - mean)
            means.append(mean)
            m2s.append(m2)
        return np.array(means, _f64), np.array(m2s, _f64), float(k)
    mean = np.zeros(m, _f64)
    m2 = np.zeros(m, _f64)
    with np.errstate(all="ignore"):
        for i in range(k):
            v = rows[i].astype(_f64)
            delta = v - mean
            mean = mean + delta / _f64(i + 1)
            m2 = m2 + delta * (v - mean)
    return mean, m2, float(k)


def _combine(a, b):
    """WelfordOps::combine (a's count 0: b; b's count 0: a)."""
    if a[2] == 0:
        return b
    if b[2] == 0:
        return a
    delta = b[0] - a[0]
    n = a[2] + b[2]
    nb_over_n = b[2] / n
    return a[0] + delta * nb_over_n, a[1] + b[1] + delta * delta * a[2] * nb_over_n, n


def welford(x, axis, correction, root):
    """(var or std, mean) of x over the tuple ``axis`` as torch's Welford kernel, in x's dtype,
    shaped as the kept axes."""
    rows, shape = _rows(x, axis)
    with np.errstate(all="ignore"):
        if rows.shape[1] == 1 and x.size >= GRAIN:
            acc = (np.zeros(1, _f64), np.zeros(1, _f64), 0.0)
            for b, e in _kernels._parallel_chunks(rows.shape[0], GRAIN):
                acc = _combine(acc, _welford_columns(rows[b:e]))
        else:
            acc = _welford_columns(rows)
        mean, m2, n = acc
        divisor = n - float(correction) if n > correction else 0.0
        var = np.divide(m2, _f64(divisor))
        if root:
            var = np.sqrt(var)
    return (np.asarray(var, x.dtype).reshape(shape), np.asarray(mean, x.dtype).reshape(shape))


def _columns_f32(x, axis, correction, root):
    """float32 var/std over dim 0 of a C-contiguous matrix: the caller's double two-pass
    (``_ops_shape._moments_fwd``), compiled (``_cnative.var_columns_f32``, the same double
    operations in numpy's order), or None (no native module, another case, a value not
    finite: the caller's numpy)."""
    native = getattr(_NATIVE, "var_columns_f32", None)
    if native is None or axis != (0,) or x.ndim != 2 or x.shape[1] < 2 or \
            not x.flags.c_contiguous:
        return None
    out = np.empty(x.shape[1], np.float32)
    return None if native(x, out, float(correction), bool(root)) else out


def moments(x, axis, correction, root, with_mean=False):
    """torch's var/std (``with_mean``: var_mean/std_mean, a pair) of a float32/float64 array
    over the tuple ``axis``, shaped as the kept axes; None where this module leaves the values
    to the caller (empty input, other dtypes, float32 over dims)."""
    if x.dtype not in (np.float32, np.float64) or x.size == 0:
        return None
    if not with_mean and one_output(x.shape, axis):
        return two_pass(x, correction, root).reshape([x.shape[k] for k in _kept(x.shape, axis)])
    if x.dtype != np.float64:
        return None if with_mean else _columns_f32(x, axis, correction, root)
    out = welford(x, axis, correction, root)
    return out if with_mean else out[0]
