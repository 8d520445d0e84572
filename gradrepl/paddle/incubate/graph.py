"""paddle.incubate's graph and loss helpers that older PGL / GNN tutorials call: ``segment_sum``
/ ``segment_mean`` / ``segment_min`` / ``segment_max`` and ``graph_send_recv`` (deprecated since
2.4 for ``paddle.geometric``'s, whose kernels they run: under 3.x each call warns as Paddle's
decorator does, 2.6.2 does not warn), and ``identity_loss``."""
from __future__ import annotations

from .. import geometric, profiles
from ..utils import deprecated_api


def _segment(pool):
    def segment(data, segment_ids, name=None):
        return getattr(geometric, f"segment_{pool}")(data, segment_ids)

    # (the decorator reads the function's name: named before it is applied)
    segment.__name__ = segment.__qualname__ = f"segment_{pool}"
    return deprecated_api("paddle.incubate.tensor.math", since="2.4.0",
                          update_to=f"paddle.geometric.segment_{pool}",
                          reason=f"paddle.incubate.segment_{pool} will be removed in future",
                          level=1)(segment)


segment_sum = _segment("sum")
segment_mean = _segment("mean")
segment_min = _segment("min")
segment_max = _segment("max")


@deprecated_api("paddle.incubate.operators.graph_send_recv", since="2.4.0",
                update_to="paddle.geometric.send_u_recv",
                reason="graph_send_recv in paddle.incubate will be removed in future", level=1)
def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    if pool_type not in ("sum", "mean", "max", "min"):
        raise ValueError(f"pool_type should be `sum`, `mean`, `max` or `min`, but received "
                         f"{pool_type}")
    return geometric.send_u_recv(x, src_index, dst_index, reduce_op=pool_type,
                                 out_size=out_size)


def identity_loss(x, reduction="none"):
    """The loss itself (``none``/2), its sum (0) or its mean (1), as Paddle's kernel."""
    import gradrepl.paddle as paddle

    if isinstance(reduction, str):
        reduction = {"sum": 0, "mean": 1, "none": 2}.get(reduction.lower())
        if reduction is None:
            # (3.x raises TypeError, 2.x a plain Exception)
            raise (TypeError if profiles.current().api3 else Exception)(
                "Unsupported reduction type.")
    if reduction == 0:
        return paddle.sum(x)
    if reduction == 1:
        return paddle.mean(x)
    return x
