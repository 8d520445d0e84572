"""``paddle.geometric``: message passing on a graph given as edge lists (``send_u_recv``,
``send_ue_recv``, ``send_uv``) and the segment reductions (``segment_sum`` / ``mean`` / ``max``
/ ``min``), as Paddle 2.6 and 3.x define them: messages are rows of ``x`` gathered at
``src_index`` (combined with the edge features ``y`` or with ``y``'s rows at ``dst_index``),
reduced into the rows named by ``dst_index`` (engine op ``segment_reduce``, gradients included).
``sub`` and ``div`` messages are ``add`` of ``-y`` and ``mul`` of ``1 / (y + 1e-12)``, as
Paddle's Python wrapper rewrites them. The output has ``out_size`` rows when it is given and
positive, else as many as ``x``.
"""
from __future__ import annotations

import numpy as np

from ...engine.ops import graph as G
from ...engine.ops import index as I
from .. import profiles

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean",
           "segment_min", "segment_max"]

_REDUCE = ("sum", "mean", "max", "min")
_MESSAGE = ("add", "sub", "mul", "div")


def _check_reduce(reduce_op):
    if reduce_op not in _REDUCE:
        raise ValueError("reduce_op should be `sum`, `mean`, `max` or `min`, but received "
                         f"{reduce_op}")


def _check_message(message_op):
    if message_op not in _MESSAGE:
        raise ValueError("message_op should be `add`, `sub`, `mul`, `div`, but received "
                         f"{message_op}")


def _rows(x, dst_index, out_size):
    if out_size is not None and not isinstance(out_size, (int, np.integer)):
        out_size = int(np.asarray(getattr(out_size, "data", out_size)).reshape(-1)[0])
    rows = int(out_size) if out_size is not None and int(out_size) > 0 else x.data.shape[0]
    ids = dst_index.data
    end = int(ids.max()) + 1 if ids.size else 0
    if end > rows:   # Paddle slices its output at each destination row
        line = 310 if profiles.current().api3 else 301
        raise IndexError(
            "(OutOfRange) The end row index is out of bound.\n  [Hint: Expected end_idx <= "
            f"meta_.dims[0], but received end_idx:{end} > meta_.dims[0]:{rows}.] (at "
            f"/paddle/paddle/phi/core/dense_tensor_impl.cc:{line})")
    return rows


def _lhs_rhs(x, y):
    """Paddle's reshape_lhs_rhs: a 1-D x or y becomes a column."""
    from ..tensor.manipulation import reshape

    if x.data.ndim == 1:
        x = reshape(x, [-1, 1])
    if y.data.ndim == 1:
        y = reshape(y, [-1, 1])
    return x, y


def _message(a, b, message_op):
    if message_op == "sub":
        message_op, b = "add", -b
    elif message_op == "div":
        message_op, b = "mul", 1.0 / (b + 1e-12)
    return a + b if message_op == "add" else a * b


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    _check_reduce(reduce_op)
    rows = _rows(x, dst_index, out_size)
    return G.segment_reduce(I.gather(x, src_index, 0), dst_index, reduce_op.upper(), rows)


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None,
                 name=None):
    _check_message(message_op)
    _check_reduce(reduce_op)
    x, y = _lhs_rhs(x, y)
    rows = _rows(x, dst_index, out_size)
    msg = _message(I.gather(x, src_index, 0), y, message_op)
    return G.segment_reduce(msg, dst_index, reduce_op.upper(), rows)


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    _check_message(message_op)
    x, y = _lhs_rhs(x, y)
    return _message(I.gather(x, src_index, 0), I.gather(y, dst_index, 0), message_op)


def _segment(data, segment_ids, pool):
    ids = segment_ids.data
    rows = int(ids.max()) + 1 if ids.size else 0
    return G.segment_reduce(data, segment_ids, pool, rows)


def segment_sum(data, segment_ids, name=None):
    return _segment(data, segment_ids, "SUM")


def segment_mean(data, segment_ids, name=None):
    return _segment(data, segment_ids, "MEAN")


def segment_min(data, segment_ids, name=None):
    return _segment(data, segment_ids, "MIN")


def segment_max(data, segment_ids, name=None):
    return _segment(data, segment_ids, "MAX")


def __getattr__(name):
    from .. import not_emulated

    raise not_emulated.error("paddle.geometric", name)

from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
