"""Training in static graph mode: ``optimizer.minimize(loss)`` on a recorded loss.

``minimize`` appends one ``minimize`` op to the loss's Program (Paddle appends the backward ops
and the optimizer's update ops). When the Executor reaches it, the ops before it are run again
on engine Tensors, the parameters (read from the scope) as leaves, so that ``loss.backward()``
gives each parameter its gradient; the optimizer's dynamic ``step`` then updates them and the
new values go back into the scope. As in Paddle, a fetched parameter is its updated value and
every other fetched value is the one computed before the update.
"""
from __future__ import annotations

import numpy as np

from . import program as P


def record_minimize(optimizer, loss, parameters=None, no_grad_set=None):
    """Record ``optimizer.minimize(loss)`` into ``loss``'s Program; returns Paddle's pair
    (optimize ops, params_grads), both empty here (the gradients exist only when it runs)."""
    from .. import libwarn, profiles

    if profiles.current().key in libwarn.SITES["pir_place"]:
        libwarn.warn("pir_place", "Tensor do not have 'place' interface for pir graph mode, try "
                     "not to use it. None will be returned.")
    prog = loss._prog
    skip = {getattr(p, "name", p) for p in (no_grad_set or ())}
    names = None if parameters is None else [getattr(p, "name", p) for p in parameters]
    prog.ops.append(P.OpRec("minimize", "minimize", None, (("v", loss._vid),),
                            {"optimizer": optimizer, "program": prog, "names": names,
                             "skip": skip}, ()))
    return [], []


def _leaf(optimizer, name, arr):
    """The optimizer's Parameter standing for scope variable ``name`` (kept across runs, so
    the optimizer's accumulators follow it), holding the scope's current array."""
    from ..nn.layer.layers import new_parameter

    store = optimizer.__dict__.setdefault("_static_leaves", {})
    p = store.get(name)
    if p is None:
        p = store[name] = new_parameter(np.array(arr), name)
    else:
        p.data = np.array(arr)
    p.clear_gradient()
    return p


def run_minimize(op, env, scope, feed):
    """The Executor's runner of a ``minimize`` op (see the module's docstring)."""
    from ...engine import registry
    from ...engine.registry import OPS
    from .. import glog
    from ..core import Tensor

    glog.executor("static_train")

    opt, prog = op.attrs["optimizer"], op.attrs["program"]
    names, skip = op.attrs["names"], op.attrs["skip"]
    tens: dict = {}
    leaves: dict = {}
    reads: dict = {}  # parameter name -> the value ids reading it
    for o in prog.ops:
        if o is op:
            break
        if o.kind == "param" and o.target not in skip and (names is None or o.target in names):
            p = leaves.get(o.target) or _leaf(opt, o.target, scope.vars[o.target])
            leaves[o.target] = p
            tens[o.outs[0]] = p
            reads.setdefault(o.target, []).append(o.outs[0])
        elif o.kind == "op":
            ins = [tens[r] if k == "v" else Tensor(np.array(r)) for k, r in o.ins]
            res = registry.apply(OPS[o.target], ins, o.attrs)
            for vid, t in zip(o.outs, res if isinstance(res, tuple) else (res,)):
                tens[vid] = t
        else:  # feeds, creation calls, set_value: the values the forward pass computed
            for vid in o.outs:
                if vid in env:
                    tens[vid] = Tensor(np.array(env[vid]))
    loss = tens[op.ins[0][1]]
    loss.backward()
    params = list(leaves.values())
    opt._parameter_list = opt._param_groups = params
    opt.step()
    for name, p in leaves.items():  # updated in place: a fetched parameter is the new value
        scope.vars[name] = np.array(p.data)
        for vid in reads[name]:
            env[vid] = scope.vars[name]
    opt.clear_grad()
