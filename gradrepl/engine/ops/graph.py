"""Graph message passing: rows of a tensor reduced into segments (Paddle's ``segment_pool`` and
the reduction of ``graph_send_recv``).

``segment_reduce(x, ids, pool, rows)``: output row ``r`` is the sum / mean / max / min of the
rows ``x[i]`` with ``ids[i] == r`` (``rows`` output rows; a row no id names is 0). Sums add in
index order in x's dtype as Paddle's CPU kernels loop (``np.add.at``); a mean divides the sum by
the count. The gradient of a row goes to every input row of its segment: divided by the count
for a mean, and for max / min to every input equal to the result (ties all get it, as Paddle's
grad kernels compare ``x == out``).
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from ._util import const
from .index import gather

POOLS = ("SUM", "MEAN", "MAX", "MIN")


def _counts(ids, rows):
    return np.bincount(ids.astype(np.int64).reshape(-1), minlength=rows)[:rows]


def _segment_fwd(x, ids, pool="SUM", rows=0):
    ids = ids.astype(np.int64).reshape(-1)
    shape = (rows,) + x.shape[1:]
    if pool in ("SUM", "MEAN"):
        out = np.zeros(shape, x.dtype)
        np.add.at(out, ids, x)
        if pool == "MEAN":
            cnt = np.maximum(_counts(ids, rows), 1).astype(x.dtype)
            out = (out / cnt.reshape((rows,) + (1,) * (x.ndim - 1))).astype(x.dtype)
        return out
    if x.dtype.kind == "f":
        lo, hi = -np.inf, np.inf
    else:
        info = np.iinfo(x.dtype)
        lo, hi = info.min, info.max
    out = np.full(shape, lo if pool == "MAX" else hi, x.dtype)
    (np.maximum if pool == "MAX" else np.minimum).at(out, ids, x)
    out[_counts(ids, rows) == 0] = 0
    return out


def _segment_vjp(n, g):
    from .math import divide, multiply

    ids, pool = n.inputs[1], n.attrs["pool"]
    if pool == "SUM":
        return gather(g, ids, 0), None
    if pool == "MEAN":
        rows = n.attrs["rows"]
        cnt = np.maximum(_counts(ids.data, rows), 1).reshape((rows,) + (1,) * (g.data.ndim - 1))
        return gather(divide(g, const(g, cnt)), ids, 0), None
    picked = n.out_data[0][ids.data.astype(np.int64).reshape(-1)]
    return multiply(gather(g, ids, 0), const(g, n.inputs[0].data == picked)), None


SEGMENT_REDUCE = register(
    "segment_reduce", _segment_fwd, _segment_vjp, diff_inputs=(0,),
    legacy_name="SegmentPoolBackward",
    examples=[([(5, 3), np.array([0, 0, 2, 1, 2])], {"pool": p, "rows": 4}) for p in POOLS[:2]])
# max / min: the same kernel, checked on distinct values (a tie has no derivative)
SEGMENT_EXTREME = register(
    "segment_extreme", _segment_fwd, _segment_vjp, diff_inputs=(0,),
    legacy_name="SegmentPoolBackward", domain="distinct",
    examples=[([(5, 3), np.array([0, 0, 2, 1, 2])], {"pool": p, "rows": 4}) for p in POOLS[2:]])


def segment_reduce(x, ids, pool, rows):
    """Rows of ``x`` reduced per ``ids`` into ``rows`` output rows (``pool`` one of POOLS)."""
    op = SEGMENT_REDUCE if pool in ("SUM", "MEAN") else SEGMENT_EXTREME
    return apply(op, (x, ids), {"pool": pool, "rows": int(rows)})
