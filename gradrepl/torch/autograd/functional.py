"""``torch.autograd.functional``: ``jacobian``, ``hessian``, ``vjp``, ``jvp`` (row by row with
``grad``, as torch's reference implementation does)."""
from __future__ import annotations

import numpy as np

from .._base import EngineTensor, raw


def _tuple(x):
    return (x,) if isinstance(x, EngineTensor) else tuple(x)


def _prepare(inputs, create_graph):
    from .._tensor import Tensor

    out = []
    for x in _tuple(inputs):
        t = Tensor._wrap(raw(x), True) if not create_graph or x.stop_gradient else x
        if t.stop_gradient:
            t = Tensor._wrap(raw(x), True)
            t.stop_gradient = False
        out.append(t)
    return tuple(out)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    from .. import _ops
    from .._tensor import Tensor
    from ._engine import grad

    single_in = isinstance(inputs, EngineTensor)
    xs = _prepare(inputs, create_graph)
    out = func(*xs)
    single_out = isinstance(out, EngineTensor)
    outs = _tuple(out)
    rows = []
    for o in outs:
        per_input = []
        n = raw(o).size
        cols = [[] for _ in xs]
        for k in range(n):
            seed = np.zeros(n, raw(o).dtype)
            seed[k] = 1
            if o.stop_gradient:
                gs = [None] * len(xs)
            else:
                gs = grad(o, xs, Tensor._wrap(seed.reshape(raw(o).shape)), retain_graph=True,
                          create_graph=create_graph, allow_unused=True)
            for j, (x, g) in enumerate(zip(xs, gs)):
                cols[j].append(g if g is not None else Tensor._wrap(np.zeros_like(raw(x))))
        for j, x in enumerate(xs):
            stacked = _ops.stack(cols[j]) if cols[j] else Tensor._wrap(
                np.zeros((0,) + raw(x).shape, raw(x).dtype))
            per_input.append(_ops.reshape(stacked, raw(o).shape + raw(x).shape))
        rows.append(tuple(per_input))
    if single_out and single_in:
        return rows[0][0]
    if single_out:
        return rows[0]
    if single_in:
        return tuple(r[0] for r in rows)
    return tuple(rows)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    single_in = isinstance(inputs, EngineTensor)

    def jac(*xs):
        j = jacobian(func, xs[0] if single_in else xs, create_graph=True)
        return j

    return jacobian(jac, inputs, create_graph=create_graph)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    from ._engine import grad

    xs = _prepare(inputs, create_graph)
    out = func(*xs)
    gs = grad(out, xs, v, create_graph=create_graph, allow_unused=True,
              materialize_grads=True)
    res = gs[0] if isinstance(inputs, EngineTensor) else gs
    return out.detach() if not create_graph else out, res


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    j = jacobian(func, inputs, create_graph=create_graph)
    from .. import _ops

    out = func(*_tuple(inputs))
    if isinstance(inputs, EngineTensor):
        vv = v if v is not None else _ops.const(np.ones(raw(inputs).shape), raw(inputs).dtype)
        flat = _ops.reshape(j, (raw(out).size, raw(inputs).size))
        return out.detach(), _ops.reshape(_ops.mv(flat, _ops.reshape(vv, (-1,))), raw(out).shape)
    raise NotImplementedError("jvp with several inputs")
