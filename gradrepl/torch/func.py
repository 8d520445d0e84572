"""``torch.func``: function transforms (``grad``, ``grad_and_value``, ``vjp``, ``jvp``,
``jacrev``, ``jacfwd``, ``hessian``, ``vmap``, ``functional_call``) on the engine's reverse
mode, composable (``jacfwd(jacrev(f))``, ``vmap(grad(f))``, ``jvp(grad(f), ...)``).

How they are built here (the values are torch's; the cost is a loop where torch vectorises):

- every transform runs ``f`` on *tracked* copies of the differentiated inputs: a fresh leaf,
  or, when the input is itself being differentiated by an enclosing transform (it requires
  grad), an identity node on it, so the inner derivative stays differentiable for the outer
  one (gradients are taken with ``create_graph=True``); the outermost transform returns its
  results without history;
- ``vjp``: ``autograd.grad`` with the cotangents; ``jacrev``: one ``vjp`` per output element;
- ``jvp`` (and ``jacfwd``): the VJP taken twice: ``g(u) = J^T u`` is recorded for a cotangent
  ``u``, then ``d<g(u), t>/du = J t``; ``jacfwd`` differentiates ``g`` once per input element;
- ``vmap``: ``f`` traced on one sample (every sample where the trace may depend on the
  sample), then its ops run once on the whole batch with torch's batched numerics
  (``_vmap``); a loop over the samples, the outputs stacked at ``out_dims``, where that cannot
  be (inside another transform, ``f`` reading sample values outside the ops, too large a
  trace); arguments that require grad loop too, keeping their graphs, with the batched values.
"""
from __future__ import annotations

import contextlib
import functools
import io

import numpy as np

from ..engine import grad_mode
from ..engine.registry import OPS
from . import _indexing, _ops, _vmap, _vmap_checks
from ._base import EngineTensor, raw, set_raw
from ._tensor import Tensor
from .autograd import _engine

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "linearize"]

_DEPTH = [0]  # how many transforms are running (the outermost detaches its results)


# ------------------------------------------------------------------------------ pytrees
_OPENED = (tuple, list, dict)


def tree_flatten(tree):
    """(leaves, spec): tuples, lists and dicts opened, everything else a leaf."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for v in tree:
            if isinstance(v, _OPENED):
                lv, sp = tree_flatten(v)
                leaves += lv
                specs.append(sp)
            else:   # (a leaf: no call)
                leaves.append(v)
                specs.append(None)
        kind = type(tree) if not hasattr(tree, "_fields") else ("namedtuple", type(tree))
        return leaves, (kind, specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k, v in tree.items():
            if isinstance(v, _OPENED):
                lv, sp = tree_flatten(v)
                leaves += lv
                specs.append((k, sp))
            else:
                leaves.append(v)
                specs.append((k, None))
        return leaves, (type(tree), specs)
    return [tree], None


def tree_unflatten(leaves, spec):
    it = iter(leaves)
    return _build(it, spec)


def _build(it, spec):
    if spec is None:
        return next(it)
    kind, specs = spec
    if isinstance(kind, tuple):  # a namedtuple
        return kind[1](*[_build(it, s) for s in specs])
    if issubclass(kind, dict):
        return kind((k, _build(it, s)) for k, s in specs)
    return kind(_build(it, s) for s in specs)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(v) for v in leaves], spec)


# ------------------------------------------------------------------------------ tracking
def _track(x):
    """x as an input to differentiate: an identity node when an enclosing transform (or the
    user) differentiates x, a fresh leaf otherwise."""
    if not isinstance(x, EngineTensor):
        return x
    if raw(x).dtype.kind not in "fc":
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if not x.stop_gradient and grad_mode.STATE.enabled:
        with grad_mode.enable_grad():
            return _ops.apply(_ops.top("assign", "AliasBackward0", "none"), (x,))
    out = Tensor._wrap(raw(x), False)
    if _vmap_checks._SCOPES:  # (a sample of a running vmap stays batched)
        _vmap_checks.propagate((x,), out)
    return out


def _needs_history(trees):
    """Whether the results must stay differentiable: inside another transform, or an input
    requires grad (the user differentiates through the transform)."""
    if _DEPTH[0] > 1:
        return True
    if not grad_mode.STATE.enabled:
        return False
    for tree in trees:
        for v in tree_flatten(tree)[0]:
            if isinstance(v, EngineTensor) and not v.stop_gradient:
                return True
    return False


def _reaches_leaf(outs, foreign):
    """Whether ``outs``' history (grad mode on) reaches a tensor that requires grad for which
    ``foreign(leaf)`` holds: a leaf output itself, or one behind an AccumulateNode."""
    if not grad_mode.STATE.enabled:
        return False
    from ..engine.node import AccumulateNode

    stack = []
    for o in outs:
        if not isinstance(o, EngineTensor) or o.stop_gradient:
            continue
        if o.grad_node is None:
            if foreign(o):
                return True
        else:
            stack.append(o.grad_node)
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateNode):
            leaf = node.leaf_ref()
            if leaf is not None and foreign(leaf):
                return True
            continue
        stack += node.edges[::2]   # (the edges' nodes; None ones skipped when popped)
    return False


def _closes_over(outs, inputs):
    """Whether ``outs``' history reaches a tensor that requires grad other than the tracked
    ``inputs`` (a module parameter the function closes over): torch's transforms then return
    results differentiable w.r.t. it (``jacrev(lambda y: net(y))(y)`` has a grad_fn)."""
    mine = {id(x) for x in inputs if isinstance(x, EngineTensor)}
    return _reaches_leaf(outs, lambda leaf: id(leaf) not in mine)


def _reaches_older_leaf(outs, first_uid):
    """Whether ``outs``' history reaches a leaf that requires grad made before the tensor
    numbered ``first_uid`` (vmap's function closes over a parameter; the leaves a transform
    inside it makes are newer)."""
    return _reaches_leaf(outs, lambda leaf: leaf._uid < first_uid)


def _finish(tree, keep):
    if keep:
        return tree
    return tree_map(lambda v: Tensor._wrap(raw(v), True) if isinstance(v, EngineTensor)
                    else v, tree)


class _Level:
    def __enter__(self):
        _DEPTH[0] += 1
        return self

    def __exit__(self, *exc):
        _DEPTH[0] -= 1
        return False


def _argnums_tuple(argnums, n, name):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if isinstance(argnums, (list,)):
        raise RuntimeError(f"{name}: argnums must be int or Tuple[int, ...], got: "
                           f"{type(argnums)}")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"{name}: argnums must be int or Tuple[int, ...], got: "
                               f"{type(a)}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    return tuple(a % n for a in nums)


def _grads(outputs, inputs, cotangents, create=True):
    """Gradients of ``outputs`` w.r.t. ``inputs`` (zeros where unused), recorded unless
    ``create`` is False (the last derivative of the outermost transform)."""
    live = [(o, c) for o, c in zip(outputs, cotangents) if not o.stop_gradient]
    if not live or not inputs:
        return [_zeros_like(x) for x in inputs]
    gs = _engine.grad([o for o, _ in live], list(inputs), [c for _, c in live],
                      retain_graph=True, create_graph=create, allow_unused=True)
    return [g if g is not None else _zeros_like(x) for g, x in zip(gs, inputs)]


def _zeros_like(x):
    return Tensor._wrap(_vmap.safe(np.zeros_like(raw(x))), True)


def _check_tensor_leaves(leaves, api):
    for v in leaves:
        if not isinstance(v, EngineTensor):
            raise RuntimeError(f"{api}: Expected f(*args) to return only tensors, got "
                               f"unsupported type {type(v)}")


# ------------------------------------------------------------------------------ grad
def _call_tracked(func, args, kwargs, argnums, where):
    """Call func with the arguments at ``argnums`` tracked (gradients on): (the argnums, the
    arguments as called, each tracked argument's flattened leaves and spec, func's output)."""
    nums = _argnums_tuple(argnums, len(args), where)
    args = list(args)
    tracked = {}
    for a in nums:
        args[a] = tree_map(_track, args[a])
        tracked[a] = tree_flatten(args[a])
    with grad_mode.enable_grad():
        out = func(*args, **kwargs)
    return nums, args, tracked, out


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient of func's scalar output w.r.t. args[argnums], value)``."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _Level():
            keep = _needs_history([args, kwargs])
            nums, args, tracked, out = _call_tracked(func, args, kwargs, argnums,
                                                     "grad_and_value(f)(*args)")
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should "
                                       "be a tuple: (output, aux) if has_aux is True")
                out, aux = out
            if not isinstance(out, EngineTensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(out)}")
            if raw(out).ndim != 0:
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {raw(out).ndim} dims. Maybe you wanted to use the vjp or "
                    "jacrev APIs instead?")
            flat = [v for a in nums for v in tracked[a][0] if isinstance(v, EngineTensor)]
            keep = keep or _closes_over([out], flat)
            gs = iter(_grads([out], flat, [Tensor._wrap(_vmap.safe(np.ones_like(raw(out))),
                                                        True)]))
            results = []
            for a in nums:
                leaves, spec = tracked[a]
                results.append(tree_unflatten([next(gs) if isinstance(v, EngineTensor) else v
                                               for v in leaves], spec))
            g = results[0] if not isinstance(argnums, tuple) else tuple(results)
            value = (out, aux) if has_aux else out
            return _finish((g, value), keep)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of ``func`` (a scalar function) w.r.t. ``args[argnums]``."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


# ------------------------------------------------------------------------------ vjp
def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` gives the cotangents of the
    primals (a tuple, one per primal)."""
    with _Level():
        keep = _needs_history([primals])
        tracked = [tree_map(_track, p) for p in primals]
        with grad_mode.enable_grad():
            out = func(*tracked)
        aux = None
        if has_aux:
            out, aux = out
        out_leaves, out_spec = tree_flatten(out)
        _check_tensor_leaves(out_leaves, "vjp(f, *primals)")
        in_flat = [tree_flatten(p) for p in tracked]
        keep = keep or _closes_over(out_leaves, [v for leaves, _ in in_flat for v in leaves])

    def vjp_fn(*cotangents, retain_graph=True, create_graph=None):
        with _Level():
            keep_inner = keep or _needs_history([cotangents])
            tree = cotangents[0] if len(cotangents) == 1 else cotangents
            ct_leaves = tree_flatten(tree)[0]
            if len(ct_leaves) != len(out_leaves):
                raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                                   "pytree structure of outputs to the function.")
            for c, o in zip(ct_leaves, out_leaves):
                if raw(c).shape != raw(o).shape:
                    raise RuntimeError(
                        f"Mismatch in shape: grad_output[0] has a shape of "
                        f"{Size(raw(c).shape)} and output[0] has a shape of "
                        f"{Size(raw(o).shape)}.")
            flat = [v for leaves, _ in in_flat for v in leaves if isinstance(v, EngineTensor)]
            gs = iter(_grads(out_leaves, flat, list(ct_leaves)))
            res = tuple(tree_unflatten([next(gs) if isinstance(v, EngineTensor) else v
                                        for v in leaves], spec) for leaves, spec in in_flat)
            return _finish(res, keep_inner)

    result = _finish(out, keep)
    return (result, vjp_fn, _finish(aux, keep)) if has_aux else (result, vjp_fn)


from ._base import Size  # noqa: E402


# ------------------------------------------------------------------------------ jvp
def _jvp_core(out_leaves, in_leaves, tangents):
    """J t for the recorded outputs, by the VJP twice."""
    us = [Tensor._wrap(_vmap.safe(np.zeros_like(raw(o))), False) for o in out_leaves]
    gs = _grads(out_leaves, in_leaves, us)
    total = None
    for g, t in zip(gs, tangents):
        if g.stop_gradient and g.grad_node is None:
            continue
        term = _ops.sum(_ops.mul(g, t))
        total = term if total is None else _ops.add(total, term)
    if total is None:
        return [_zeros_like(o) for o in out_leaves]
    return _grads([total], us, [Tensor._wrap(_vmap.safe(np.ones((), raw(total).dtype)), True)])


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "
                           "should be valid to call f(*primals).")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have "
                           "the same python structure. For example, if primals is a tuple of "
                           "3 tensors, tangents also must be. Got primals with structure "
                           f"{tree_flatten(primals)[1]} and tangents with structure "
                           f"{tree_flatten(tangents)[1]}")
    if _DEPTH[0] == 0 and _needs_history([primals, tangents]):
        dual = _jvp_by_duals(func, primals, tangents, has_aux)
        if dual is not None:
            return dual
    with _Level():
        keep = _needs_history([primals, tangents])
        tracked = tuple(tree_map(_track, p) for p in primals)
        in_leaves = [v for v in tree_flatten(tracked)[0]]
        t_leaves = tree_flatten(tangents)[0]
        for p, t in zip(in_leaves, t_leaves):
            if raw(p).shape != raw(t).shape:
                raise RuntimeError(
                    f"jvp(f, primals, tangents): Expected primals and tangents to have the same "
                    f"shape. Got primal with shape {list(raw(p).shape)} and tangent with "
                    f"shape {list(raw(t).shape)}")
        with grad_mode.enable_grad():
            out = func(*tracked)
        aux = None
        if has_aux:
            out, aux = out
        out_leaves, out_spec = tree_flatten(out)
        _check_tensor_leaves(out_leaves, "jvp(f, primals, tangents)")
        keep = keep or _closes_over(out_leaves, in_leaves)
        js = _jvp_core(out_leaves, in_leaves, t_leaves)
        res = (out, tree_unflatten(js, out_spec))
        if has_aux:
            res = res + (aux,)
        return _finish(res, keep)


def _jvp_by_duals(func, primals, tangents, has_aux):
    """``jvp`` of inputs that require grad, outside other transforms: forward-mode dual
    tensors (``autograd.forward_ad``), whose per-op rules record the tangent as torch's
    formulas do (a linear layer's tangent requires grad through its weight, an addition's
    does not). None when a forward-AD level is already open or shapes do not pair up."""
    from .autograd import forward_ad

    if forward_ad._LEVELS:
        return None
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves = tree_flatten(tangents)[0]
    if len(p_leaves) != len(t_leaves) or any(
            not isinstance(p, EngineTensor) or not isinstance(t, EngineTensor)
            or raw(p).shape != raw(t).shape for p, t in zip(p_leaves, t_leaves)):
        return None
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(p_leaves, t_leaves)]
        out = func(*tree_unflatten(duals, p_spec))
        aux = None
        if has_aux:
            out, aux = out
        o_leaves, o_spec = tree_flatten(out)
        _check_tensor_leaves(o_leaves, "jvp(f, primals, tangents)")
        parts = [forward_ad.unpack_dual(o) for o in o_leaves]
        # (the outputs leave the transform as torch's functorch unwraps them: an alias)
        alias = _ops.top("assign", "AliasBackward0", "none")
        prim = [_ops.apply(alias, (p.primal,)) if not p.primal.stop_gradient else p.primal
                for p in parts]
        tans = [p.tangent if p.tangent is not None else _zeros_like(p.primal) for p in parts]
        if has_aux:
            aux = tree_map(lambda v: _ops.apply(alias, (v,)) if isinstance(v, EngineTensor)
                           and not v.stop_gradient else v, aux)
    res = (tree_unflatten(prim, o_spec), tree_unflatten(tans, o_spec))
    return res + (aux,) if has_aux else res


_CONST_FOLD_WARNING = (
    "Attempted to insert a get_attr Node with no underlying reference in the owning "
    "GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
    "GraphModule.add_parameter to add the necessary Parameter, or nn.Module.register_buffer to "
    "add the necessary buffer")


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)`` with ``jvp_fn(*tangents)`` the JVP at primals. torch
    traces the JVP with make_fx and folds its constants, whose const_fold.py warns (once per
    process, from torch's file; measured on torch 2.13 for every function tried)."""
    from .. import _libsite

    _libsite.warn_at("torch", "fx/experimental/const_fold.py", 366,
                     "            new_node = root_const_gm.graph.get_attr(in_node.target)",
                     _CONST_FOLD_WARNING)
    out = func(*primals)

    def jvp_fn(*tangents):
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn


# ------------------------------------------------------------------------------ jacobians
def _jac_wrapper(func, argnums, has_aux, api, columns):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _Level():
            keep = _needs_history([args, kwargs])
            nums, args, specs, out = _call_tracked(func, args, kwargs, argnums,
                                                   f"{api}(f, ...)(*args)")
            aux = None
            if has_aux:
                out, aux = out
            out_leaves, out_spec = tree_flatten(out)
            _check_tensor_leaves(out_leaves, f"{api}(f, ...)(*args)")
            in_leaves = [v for a in nums for v in specs[a][0]]
            keep = keep or _closes_over(out_leaves, in_leaves)
            # rows (one VJP per output element) or columns (one per input element): the
            # same Jacobian; the fewer passes are taken
            n_out = sum(raw(o).size for o in out_leaves)
            n_in = sum(raw(x).size for x in in_leaves)
            by_columns = n_in < n_out or (n_in == n_out and columns)
            blocks = (_jac_columns if by_columns else _jac_rows)(out_leaves, in_leaves, keep)
            # blocks[i][j]: d out_i / d in_j, shape out_i.shape + in_j.shape
            per_out = []
            for i in range(len(out_leaves)):
                it = iter(blocks[i])
                per_arg = [tree_unflatten([next(it) for _ in specs[a][0]], specs[a][1])
                           for a in nums]
                per_out.append(per_arg[0] if not isinstance(argnums, tuple)
                               else tuple(per_arg))
            res = tree_unflatten(per_out, out_spec)
            if has_aux:
                res = (res, aux)
            return _finish(res, keep)

    return wrapper


def _jac_rows(out_leaves, in_leaves, keep=True):
    """Reverse mode: one VJP per output element."""
    blocks = []
    for o in out_leaves:
        oa = raw(o)
        rows = [[] for _ in in_leaves]
        for k in range(oa.size):
            e = np.zeros(oa.size, oa.dtype)
            e[k] = 1
            gs = _grads([o], in_leaves, [Tensor._wrap(_vmap.basis(e.reshape(oa.shape)), True)],
                        keep)
            for j, g in enumerate(gs):
                rows[j].append(g)
        blocks.append([_assemble(rows[j], oa.shape, raw(x).shape, raw(x).dtype)
                       for j, x in enumerate(in_leaves)])
    return blocks


def _assemble(parts, first_shape, second_shape, dtype):
    if not parts:
        return Tensor._wrap(_vmap.safe(np.zeros(tuple(first_shape) + tuple(second_shape), dtype)),
                            True)
    return _ops.reshape(_ops.stack(parts), tuple(first_shape) + tuple(second_shape))


def _jac_columns(out_leaves, in_leaves, keep=True):
    """Forward mode: g(u) = J^T u recorded once, then one VJP of g per input element (the
    columns J[:, j])."""
    us = [Tensor._wrap(_vmap.safe(np.zeros_like(raw(o))), False) for o in out_leaves]
    gs = _grads(out_leaves, in_leaves, us)
    blocks = [[None] * len(in_leaves) for _ in out_leaves]
    for j, (g, x) in enumerate(zip(gs, in_leaves)):
        xa = raw(x)
        cols = [[] for _ in out_leaves]
        gflat = _ops.reshape(g, (-1,)) if xa.size else g
        for k in range(xa.size):
            one = Tensor._wrap(_vmap.safe(np.ones((), xa.dtype)), True)
            cs = _grads([gflat[k]], us, [one], keep)
            for i, c in enumerate(cs):
                cols[i].append(c)
        for i, o in enumerate(out_leaves):
            oa = raw(o)
            if not cols[i]:
                blocks[i][j] = Tensor._wrap(_vmap.safe(np.zeros(oa.shape + xa.shape, oa.dtype)),
                                             True)
                continue
            stacked = _ops.stack(cols[i], -1)  # out.shape + (in.size,)
            blocks[i][j] = _ops.reshape(stacked, oa.shape + xa.shape)
    return blocks


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` w.r.t. ``args[argnums]`` by reverse mode (rows)."""
    return _jac_wrapper(func, argnums, has_aux, "jacrev", columns=False)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` w.r.t. ``args[argnums]`` by forward mode (columns)."""
    return _jac_wrapper(func, argnums, has_aux, "jacfwd", columns=True)


def hessian(func, argnums=0):
    """``jacfwd(jacrev(func, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------------------------ vmap
def _fname(func):
    return getattr(func, "__name__", type(func).__name__)


def _treespec(tree):
    """torch's ``TreeSpec`` repr of a flat tuple (``TreeSpec(tuple, None, [*, *])``)."""
    if isinstance(tree, tuple):
        kids = ",\n  ".join(_treespec(v) if isinstance(v, (tuple, list, dict)) else "*"
                            for v in tree)
        return f"TreeSpec(tuple, None, [{kids}])"
    return "*"


def _head(func, in_dims):
    """The start of vmap's argument errors (made only for an error)."""
    return f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>)"


def _batch_size(func, args, dims, in_dims):
    sizes = []
    for a, d in zip(args, dims):
        leaves, _ = tree_flatten(a)
        dl = d if isinstance(d, (tuple, list, dict)) else None
        dleaves = tree_flatten(d)[0] if dl is not None else [d] * len(leaves)
        for v, dd in zip(leaves, dleaves):
            if dd is None:
                continue
            if not isinstance(v, EngineTensor):
                head = _head(func, in_dims)
                raise ValueError(f"{head}: Got in_dim={dd} for an input but the input is of type "
                                 f"{type(v)}. We cannot vmap over non-Tensor arguments, please "
                                 "use None as the respective in_dim")
            nd = raw(v).ndim
            if not -nd <= dd < max(nd, 1) or nd == 0:
                head = _head(func, in_dims)
                raise ValueError(f"{head}: Got in_dim={dd} for some input, but that input is a "
                                 f"Tensor of dimensionality {nd} so expected in_dim to satisfy "
                                 f"-{nd} <= in_dim < {nd}.")
            sizes.append(raw(v).shape[dd])
    return sizes


def _slice(a, d, b):
    leaves, spec = tree_flatten(a)
    dleaves = tree_flatten(d)[0] if isinstance(d, (tuple, list, dict)) else [d] * len(leaves)
    return tree_unflatten([v if dd is None else _vmap_checks.mark(_indexing.select(v, dd, b))
                           for v, dd in zip(leaves, dleaves)], spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over dim ``in_dims`` of its inputs, outputs stacked at ``out_dims``."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        out = mapped(*args, **kwargs)
        if not _vmap_checks._SCOPES:  # (the results are plain tensors again)
            _vmap_checks.plain(tree_flatten(out)[0])
        return out

    def mapped(*args, **kwargs):
        if not isinstance(in_dims, (int, tuple)):
            head = _head(func, in_dims)
            raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) "
                             "tuple matching the structure of inputs, got: "
                             f"{type(in_dims)}.")
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if isinstance(in_dims, tuple) and len(in_dims) != len(args):
            head = _head(func, in_dims)
            raise ValueError(
                f"{head}: in_dims is not compatible with the structure of `inputs`. in_dims has "
                f"structure {_treespec(in_dims)} but inputs has structure {_treespec(args)}.")
        sizes = _batch_size(func, args, dims, in_dims)
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if len(set(sizes)) != 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        n = sizes[0]
        # (what torch's vmap refuses, a batched tensor's value read into Python, is refused)
        with _vmap_checks.scope(_DEPTH[0], n) as checks:
            call = _prints_once(func, checks)
            batched = _batched_call(call, args, dims, kwargs, n, checks)
            if batched is not None:
                return _place(batched, out_dims, func)
            values = _batched_values(call, args, dims, kwargs, n, checks)
            outs = []
            checks.depth = _DEPTH[0]
            checks.loop_hook()
            for b in range(n):
                sliced = [a if d is None else _slice(a, d, b) for a, d in zip(args, dims)]
                outs.append(call(*sliced, **kwargs))
        leaves0, spec = tree_flatten(outs[0])
        odims = _odims(out_dims, leaves0, spec)
        flat = [tree_flatten(o)[0] for o in outs]
        stacked = []
        for i, leaf in enumerate(leaves0):
            if not isinstance(leaf, EngineTensor):
                raise ValueError(f"vmap({_fname(func)}, ...): `{_fname(func)}` must only "
                                 f"return Tensors, "
                                 f"got type {type(leaf)}. Did you mean to set out_dims= to "
                                 "None for output?")
            od = odims[i]
            if od is None:
                stacked.append(leaf)
            else:
                t = _ops.stack([f[i] for f in flat], od)
                if values is not None and i < len(values[0]):
                    # the batched values (torch's numerics) on the samples' stacked graph
                    # (stack's backward does not read its result)
                    arr = np.moveaxis(values[0][i], 0, od % raw(t).ndim)
                    if arr.shape == raw(t).shape and _vmap.close(arr, raw(t)):
                        set_raw(t, np.ascontiguousarray(arr, raw(t).dtype))
                stacked.append(t)
        return tree_unflatten(stacked, spec)

    return wrapper


def _prints_once(func, checks):
    """``func`` writing to stdout on its first call only: torch's vmap calls it once, on the
    batch; here it runs on samples (traced, or looped), and its prints (a batched tensor's as
    ``_vmap_checks.batched_text``) are the first run's. (Made every vmap call: only
    ``__wrapped__`` set, which ``_code_key`` follows; nothing reads its other attributes.)"""

    def once(*args, **kwargs):
        checks.runs += 1
        if checks.runs == 1:
            return func(*args, **kwargs)
        with contextlib.redirect_stdout(io.StringIO()):
            return func(*args, **kwargs)
    once.__wrapped__ = func
    once._prints_once = True
    return once


def _batched_values(func, args, dims, kwargs, n, checks=None):
    """Where the arguments require grad (model ensembling: ``vmap`` over stacked parameters)
    the samples run one by one, keeping their graphs: the batched values of the same call on
    detached arguments, (arrays, spec), for the results; None where there are none."""
    if _DEPTH[0] > 0 or not grad_mode.STATE.enabled or not _needs_history([args, kwargs]):
        return None
    detached = [tree_map(lambda v: Tensor._wrap(raw(v), True) if isinstance(v, EngineTensor)
                         else v, a) for a in args]
    kw = tree_map(lambda v: Tensor._wrap(raw(v), True) if isinstance(v, EngineTensor) else v,
                  kwargs)
    with grad_mode.no_grad():
        got = _batched_call(func, detached, dims, kw, n, checks)
    return None if got is None or got[3] is not None else (got[0], got[1])


def _odims(out_dims, leaves0, spec):
    odims = out_dims if isinstance(out_dims, tuple) and len(leaves0) > 1 or \
        isinstance(out_dims, tuple) and spec is not None else (out_dims,) * len(leaves0)
    if isinstance(out_dims, tuple) and spec is not None:
        odims = tree_flatten(out_dims)[0]
        if len(odims) == 1:
            odims = odims * len(leaves0)
    return odims


_UNBATCHED = set()  # the functions (code keys) whose batched run was given up: looped
#: the functions (code keys) whose first and last samples ran the same program once: traced on
#: one sample from then on (torch's vmap runs f once, on the batch)
_CHECKED = set()


def _code_key(func):
    """The code objects along ``func``'s ``__wrapped__`` chain (``jacrev(f)`` and ``f`` differ;
    each new closure of one ``def`` is the same)."""
    key = []
    if getattr(func, "_prints_once", False):    # (vmap's own wrapper: the user's function's key)
        func = func.__wrapped__
    while func is not None and len(key) < 16:
        key.append(getattr(func, "__code__", None) or type(func))
        func = getattr(func, "__wrapped__", None)
    return tuple(key)


def _batched_call(func, args, dims, kwargs, n, checks=None):
    """``func`` over the batch with the batched numerics (``_vmap``): (output arrays with the
    batch dim first, their spec, sample 0's outputs), or None where the caller loops over
    the samples itself (inside another transform, inputs that require grad, outputs that are
    not tensors, errors).

    ``f`` is traced on sample 0 and its ops replayed on the batch. The first time a function
    is seen, its second sample is traced too: another program (``f`` reads sample values
    outside the ops: a branch, an ``.item()``, a random draw, a constant made from a sample's
    values) and the function is looped over every sample, now and from then on. Where a
    batched result does not agree with a traced sample's own, or ``f`` closes over a tensor
    that requires grad (the outputs keep each sample's graph), every sample is traced."""
    key = _code_key(func)
    if n < 2 or _DEPTH[0] > 0 or key in _UNBATCHED or _needs_history([args, kwargs]):
        return None
    moved, where, in_dims = [], [], []  # the vmapped leaves with their mapped dim first
    for i, (a, d) in enumerate(zip(args, dims)):
        if d is None:
            continue
        leaves, _ = tree_flatten(a)
        dleaves = tree_flatten(d)[0] if isinstance(d, (tuple, list, dict)) else [d] * len(leaves)
        for j, (v, dd) in enumerate(zip(leaves, dleaves)):
            if dd is not None:
                arr = raw(v)
                moved.append(np.ascontiguousarray(arr if dd == 0 or dd == -arr.ndim
                                                  else np.moveaxis(arr, dd, 0)))
                where.append((i, j))
                in_dims.append(dd)
    if checks is not None:   # (a batched tensor printed during the trace: its batch's values)
        checks.batch = (moved, n, in_dims)

    first = []  # the first sample tensor's creation number: anything older is the caller's

    def sample(b):
        samples = [_vmap_checks.mark(Tensor._wrap(m[b], True)) for m in moved]
        if not first:
            first.append(samples[0]._uid)
        call_args = list(args)
        for i in {i for i, _ in where}:
            leaves, spec = tree_flatten(args[i])
            for (ii, j), t in zip(where, samples):
                if ii == i:
                    leaves[j] = t
            call_args[i] = tree_unflatten(leaves, spec)
        box = []

        def call():
            with _Level():
                if checks is not None:
                    checks.depth = _DEPTH[0]
                out = func(*call_args, **kwargs)
            leaves, spec = tree_flatten(out)
            if not all(isinstance(v, EngineTensor) for v in leaves):
                raise _vmap._Fallback
            box.append(([raw(v) for v in leaves], spec, leaves))
            return box[0][0]

        prog = _vmap.trace(call, [raw(t) for t in samples], budget, first[0], known)
        return prog, box[0]

    budget = _vmap._Budget()
    traces = {}
    known = {id(raw(v)) for v in tree_flatten([args, kwargs])[0] if isinstance(v, EngineTensor)}

    def traced(picks):
        for b in picks:
            if b not in traces:
                traces[b] = sample(b)
        return [traces[b] for b in picks]

    def everyone():
        """Every sample traced: (their outputs stacked, the samples' graphs or None)."""
        ts = traced(range(n))
        outs = [np.stack([t[1][0][i] for t in ts]) for i in range(len(outs0))]
        hist = None
        if _reaches_older_leaf([v for t in ts for v in t[1][2]], first[0]):
            hist = [[t[1][2][i] for t in ts] for i in range(len(outs0))]
        return outs, hist

    try:
        picks = [0] if key in _CHECKED else [0, 1]  # (samples traced in order: graphs too)
        prog0, (outs0, spec, leaves0) = traced(picks)[0]
        # f closes over a tensor that requires grad (a module's parameter): the outputs keep
        # the samples' graphs, stacked (``_place``), with the batched values
        closes = _reaches_older_leaf(list(leaves0), first[0])
        # f closes over a tensor that requires grad, or made constants during the trace
        # outside the ops (a comparison's result): every sample is traced and compared
        if closes or prog0[2]:
            per_sample, history = everyone()
        # every traced sample ran the same ops on the same constants (else f reads sample
        # values outside the ops): the ops run once on the whole batch
        if not all(_vmap.same_program(prog0, traces[b][0]) for b in traces if b):
            _UNBATCHED.add(key)
            outs, hist = everyone()
            return outs, spec, outs0, hist
    except _vmap._Fallback:  # too large to keep: this function is looped from now on
        _UNBATCHED.add(key)
        return None
    except RuntimeError as e:
        if _vmap_checks.refused(e):  # (torch's refusal: f is not run again)
            raise
        return None
    except Exception:  # noqa: BLE001  (the loop runs f as the user wrote it, errors included)
        return None
    _CHECKED.add(key)

    def samples_own():
        try:
            outs, hist = everyone()
        except _vmap._Fallback:
            _UNBATCHED.add(key)
            return None
        return outs, spec, outs0, hist

    try:
        results = _vmap.replay(prog0[0], prog0[1], moved, n, prog0[3])
    except Exception:  # noqa: BLE001  (a batching rule that does not fit: the samples' results)
        return samples_own()
    arrays = []
    for i, (arr, batched) in enumerate(results):
        if not batched:
            arr = np.broadcast_to(arr, (n,) + arr.shape)
        if not all(_vmap.close(arr[b], traces[b][1][0][i]) for b in traces):
            return samples_own()
        arrays.append(np.array(arr))
    return arrays, spec, outs0, (history if closes else None)


def _place(batched, out_dims, func):
    arrays, spec, leaves0, history = batched
    odims = _odims(out_dims, leaves0, spec)
    out = []
    for i, arr in enumerate(arrays):
        od = odims[i]
        samples = history[i] if history is not None else None
        if samples is not None and any(not v.stop_gradient for v in samples):
            # the samples' graphs stacked (gradients reach what f closed over), the values the
            # batched ones (stack's backward does not read its result)
            t = _ops.stack(samples, 0)
            set_raw(t, np.ascontiguousarray(arr, raw(t).dtype))
            out.append(t if od is None or od % arr.ndim == 0 else _ops.movedim(t, 0, od))
        elif od is None:
            out.append(Tensor._wrap(np.array(arr[0]), True))
        else:
            od %= arr.ndim
            out.append(Tensor._wrap(np.ascontiguousarray(
                arr if od == 0 else np.moveaxis(arr, 0, od)), True))
    return tree_unflatten(out, spec)


# ------------------------------------------------------------------------------ modules
def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by the tensors of
    the dict(s) (names as ``named_parameters`` gives them), put back afterwards."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        merged = dict(dicts)
    else:
        merged = {}
        for d in dicts:
            dup = set(merged) & set(d)
            if dup:
                raise ValueError(f"{sorted(dup)[0]} appeared in multiple dictionaries; behavior "
                                 "of functional call is ambiguous")
            merged.update(d)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    saved = []
    try:
        for name, value in merged.items():
            owner, _, attr = name.rpartition(".")
            mod = module.get_submodule(owner)
            for store in ("_parameters", "_buffers"):
                s = mod.__dict__[store]
                if attr in s:
                    saved.append((s, attr, s[attr]))
                    s[attr] = value
                    break
            else:
                if strict:
                    raise RuntimeError(f"Unexpected key(s): '{name}'.")
                saved.append((mod.__dict__, attr, mod.__dict__.get(attr, _MISSING)))
                mod.__dict__[attr] = value
        return module(*args, **(kwargs or {}))
    finally:
        for store, attr, old in reversed(saved):
            if old is _MISSING:
                store.pop(attr, None)
            else:
                store[attr] = old


_MISSING = object()


def stack_module_state(models):
    """``(params, buffers)``: each name's tensors of the models stacked on a new dim 0."""
    params = {k: _ops.stack([dict(m.named_parameters())[k].detach() for m in models])
              for k, _ in models[0].named_parameters()}
    buffers = {k: _ops.stack([dict(m.named_buffers())[k] for m in models])
               for k, _ in models[0].named_buffers()}
    for v in params.values():
        v.requires_grad_(True)
    return params, buffers


del OPS
