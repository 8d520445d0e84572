"""Gradients of ``sparse=True`` embeddings: Paddle's SelectedRows.

Real Paddle gives a sparse embedding's weight a SelectedRows gradient: the looked-up ids (its
"rows") with one gradient row each. The values here stay a dense gradient (the same sums), and
this module remembers, per parameter, the ids each backward pass reached it through. What
differs from a dense gradient:

- the padding row (``padding_idx``) gets its gradient like any other row (the lookup still
  reads it as zeros);

- ``clear_grad`` / ``clear_gradient`` leave such a gradient ``None`` (real 3.3.1 and 2.6.2 print
  ``None`` after ``opt.clear_grad()``, with ``set_to_zero`` either way);
- Adam takes Paddle's sparse-gradient kernel (``optimizer/sparse_adam.py``), which
  treats rows with and without a gradient differently, and refuses a ``weight_decay``;
- SGD subtracts each looked-up row's gradient in lookup order (``optimizer/sgd.py``), unmerged.
A weight decay (regularizer) makes the gradient dense again before the update (Paddle sums the
SelectedRows with the dense decay term), so the dense kernels run then.
"""
from __future__ import annotations

import weakref

import numpy as np

# id(parameter) -> (weak reference to it, [ids of each backward pass]); keyed by id because a
# Tensor's == is elementwise (a WeakKeyDictionary would compare tensors)
_ROWS: dict = {}


def _parts(param):
    entry = _ROWS.get(id(param))
    if entry is None or entry[0]() is not param:
        return None
    return entry[1]


def _record(weight, ids, g, seq):
    parts = _parts(weight)
    if parts is None:
        key = id(weight)
        parts = []
        _ROWS[key] = (weakref.ref(weight, lambda _r: _ROWS.pop(key, None)), parts)
    flat = np.array(ids, dtype=np.int64).reshape(-1)
    parts.append((flat, np.array(g, dtype=weight.data.dtype).reshape(flat.size, -1), seq))


def _sparse_embedding_op():
    """The engine's embedding op whose backward also records the ids as rows of the weight's
    gradient (a copy: the shared op and the torch dialect are unchanged)."""
    import copy

    from ..engine.ops import nn as N

    op = copy.copy(N.EMBEDDING)

    def vjp(n, g):
        ids, weight = n.inputs[0], n.inputs[1]
        if not weight.stop_gradient:
            _record(weight, ids.data, g.data, n.uid)
        # every looked-up row gets its gradient, the padding row's too (the forward still
        # reads it as zeros): real 3.3.1 and 2.6.2
        return None, N.embedding_grad(ids, g, n.in_meta[1][0][0], -1)
    op.vjp = vjp
    return op


_OP = []


def embedding(ids, weight, padding_idx=-1):
    """``F.embedding(..., sparse=True)``: the lookup, with Paddle's SelectedRows gradient."""
    from ..engine.registry import apply

    if not _OP:
        _OP.append(_sparse_embedding_op())
    return apply(_OP[0], (ids, weight), {"padding_idx": int(padding_idx)})


def rows_of(param):
    """The sorted distinct rows of ``param``'s SelectedRows gradient, or None if its gradient
    is dense."""
    parts = _parts(param)
    if not parts:
        return None
    return np.unique(np.concatenate([p[0] for p in parts]))


def lookups(param):
    """The SelectedRows gradient as Paddle holds it: (ids, one gradient row per id), or None if
    ``param``'s gradient is dense. From one lookup, unmerged in lookup order; from several
    (one weight looked up twice), merged: Paddle adds the SelectedRows by concatenating them,
    the lookup made last first (whatever the order of the terms in the loss), and summing
    repeated ids in that order (real 3.3.1), its rows sorted."""
    parts = _parts(param)
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0][:2]
    parts = sorted(parts, key=lambda p: -p[2])  # the lookup made last first
    ids = np.concatenate([p[0] for p in parts])
    rows = np.concatenate([p[1] for p in parts])
    uniq = np.unique(ids)
    out = np.zeros((uniq.size, rows.shape[1]), rows.dtype)
    np.add.at(out, np.searchsorted(uniq, ids), rows)  # sequential, in concatenation order
    return uniq, out


def merged_grad(param):
    """The dense gradient Paddle's sparse optimizer kernels see after merging repeated ids (in
    the order of ``lookups``), or None if ``param``'s gradient is dense."""
    found = lookups(param)
    if found is None:
        return None
    ids, rows = found
    out = np.zeros(param.data.shape, param.data.dtype)
    np.add.at(out, ids, rows.reshape((ids.size,) + param.data.shape[1:]))
    return out


def is_sparse_grad(param):
    return bool(_parts(param))


def forget(param):
    """The gradient was cleared: a SelectedRows gradient becomes None. True if it was one."""
    if _parts(param) is None:
        return False
    del _ROWS[id(param)]
    return True
