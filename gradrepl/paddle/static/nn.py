"""``paddle.static.nn``: layers as functions that create their parameters in the program."""
from __future__ import annotations

import numpy as np

from . import program as P


@P.static_only
def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """A fully connected layer: ``x`` flattened after ``num_flatten_dims`` dims, times a new
    weight ``fc_<n>.w_0`` (Xavier-uniform), plus a new bias ``fc_<n>.b_0`` (zeros) unless
    ``bias_attr`` is False, then ``activation`` (a ``paddle.nn.functional`` name) if given."""
    import gradrepl.paddle as paddle
    from .. import glog
    from ..nn.layer.layers import unique_name

    glog.executor("static_fc")

    owner = name if name is not None else unique_name("fc")
    saved = dict(P._LEGACY_COUNTS)  # Paddle 2.x's fc is one op: its results are <owner>.tmp_k
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    outs = []
    for xi in xs:
        dims = list(xi.shape)
        if num_flatten_dims < 0:
            num_flatten_dims += len(dims)
        features = int(np.prod(dims[num_flatten_dims:]))
        if len(dims) != num_flatten_dims + 1:
            xi = paddle.reshape(xi, [0] * num_flatten_dims + [features])
        w = P.make_static_parameter([features, size], xi._ph.dtype, weight_attr, False,
                                    owner_name=owner)
        outs.append(paddle.matmul(xi, w))
    out = outs[0] if len(outs) == 1 else paddle.add_n(outs)
    if bias_attr is not False:
        b = P.make_static_parameter([size], out._ph.dtype, bias_attr, True, owner_name=owner)
        out = paddle.add(out, b)
    if activation is not None:
        out = getattr(paddle.nn.functional, activation)(out)
    P._LEGACY_COUNTS.clear()
    P._LEGACY_COUNTS.update(saved)
    out._legacy = f"{owner}.tmp_{1 if bias_attr is not False else 0}"
    return out
