"""``torch.autograd.functional``: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``vhp``, ``hvp`` (row
by row with ``grad``, as torch's reference implementation does)."""
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
    """J v: the Jacobian of each output against each input, applied to ``v`` and summed over
    the inputs."""
    from .. import _ops

    single_in = isinstance(inputs, EngineTensor)
    xs = _tuple(inputs)
    vs = (v,) if single_in and v is not None else (tuple(v) if v is not None else None)
    if vs is None:
        if _b_any(raw(x).size != 1 for x in xs):
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        vs = tuple(_ops.const(np.ones(raw(x).shape), raw(x).dtype) for x in xs)
    for x, vv in zip(xs, vs):
        if tuple(raw(vv).shape) != tuple(raw(x).shape):
            from .._base import Size

            raise RuntimeError(f"v has invalid size: should be {Size(raw(x).shape)!r} but got "
                               f"{Size(raw(vv).shape)!r}.")
    j = jacobian(func, inputs, create_graph=create_graph)
    out = func(*(_prepare(inputs, True) if create_graph else xs))
    single_out = isinstance(out, EngineTensor)
    outs = _tuple(out)
    rows = (j,) if single_out else tuple(j)
    res = []
    for o, row in zip(outs, rows):
        row = (row,) if single_in else tuple(row)
        acc = None
        for jj, x, vv in zip(row, xs, vs):
            flat = _ops.reshape(jj, (raw(o).size, raw(x).size))
            term = _ops.mv(flat, _ops.reshape(vv, (-1,))) if raw(x).size else None
            if term is not None:
                acc = term if acc is None else _ops.add(acc, term)
        if acc is None:
            acc = _ops.const(np.zeros(raw(o).size), raw(o).dtype)
        res.append(_ops.reshape(acc, raw(o).shape))
    if create_graph:
        outd = out
    else:
        outd = out.detach() if single_out else tuple(t.detach() for t in outs)
    return outd, (res[0] if single_out else tuple(res))


def _b_any(it):
    for x in it:
        if x:
            return True
    return False


def _second(func, inputs, v, create_graph, strict, name):
    """vhp/hvp: the gradient of the scalar output, then its gradient along ``v`` (the Hessian
    of a scalar function is symmetric: both give the same vector)."""
    from .._tensor import Tensor
    from ._engine import grad

    single_in = isinstance(inputs, EngineTensor)
    xs = _prepare(inputs, True)
    out = func(*xs)
    if not isinstance(out, EngineTensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if raw(out).size != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element")
    vs = (v,) if single_in else tuple(v) if v is not None else None
    if vs is None:
        if _b_any(raw(x).size != 1 for x in xs):
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        vs = tuple(Tensor._wrap(np.ones_like(raw(x))) for x in xs)
    jac = grad(out, xs, create_graph=True, allow_unused=True, materialize_grads=True)
    live = [(i, g) for i, g in enumerate(jac) if not g.stop_gradient]
    res = [Tensor._wrap(np.zeros_like(raw(x))) for x in xs]
    if live:
        gs = grad([g for _, g in live], xs, [vs[i] for i, _ in live],
                  create_graph=create_graph, allow_unused=True, materialize_grads=True)
        res = [g if create_graph else g.detach() for g in gs]
    outd = out if create_graph else out.detach()
    return outd, (res[0] if single_in else tuple(res))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    return _second(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    return _second(func, inputs, v, create_graph, strict, "hvp")
