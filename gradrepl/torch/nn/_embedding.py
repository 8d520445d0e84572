"""``torch.nn.functional.embedding`` as ATen computes it (``aten/src/ATen/native/Embedding.cpp``):

- the forward is ``weight.index_select(0, ids)``: the ``padding_idx`` row is read like any other
  (only its gradient is left out), ids out of range raise ``IndexError: index out of range in
  self``;
- ``max_norm`` first rescales, in place and without history, each looked-up row whose
  ``norm_type`` norm exceeds it (``embedding_renorm_``: ``row *= max_norm / (norm + 1e-7)``,
  the scale taken in the weight's dtype; one version bump of the weight);
- the gradient (``embedding_dense_backward_cpu``) adds each position's gradient row into its
  id's row in the ids' order, ``grad_weight[k].add_(grad[i], alpha=scale)`` with ``scale`` 1, or
  ``1 / count(k)`` under ``scale_grad_by_freq`` (ATen's add kernel: ``fmadd``, one rounding where
  torch's build fuses); its node is ``EmbeddingDenseBackwardBackward0`` when differentiated
  again, and the double backward (``embedding_dense_double_backward``) does not scale.
"""
from __future__ import annotations

import numpy as np

from ...engine import grad_mode
from ...engine.registry import apply
from .. import _bfloat16 as _bf16
from .. import _inplace
from .._base import raw
from .._ops import top
from .._tensor import Tensor

_wrap = Tensor._wrap


def _lookup_fwd(ids, weight, padding_idx=-1, scale_grad_by_freq=False):
    """``index_select``: the padding row is returned as stored."""
    return np.ascontiguousarray(weight[ids.astype(np.int64)])


def _rounds(idx):
    """The positions of ``idx`` in rounds: round r holds the r-th occurrence of each id, so the
    rows of one round are distinct and a round's additions can be done at once, while each row
    still receives its additions in the ids' order."""
    order = np.argsort(idx, kind="stable")
    sorted_ids = idx[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_ids)) + 1]
    counts = np.diff(np.r_[starts, idx.size])
    rank = np.arange(idx.size) - np.repeat(starts, counts)
    occurrence = np.empty(idx.size, np.int64)
    occurrence[order] = rank
    return [np.flatnonzero(occurrence == r) for r in range(int(counts.max()) if idx.size else 0)]


def _dense_backward_fwd(ids, g, rows=1, padding_idx=-1, scale_grad_by_freq=False):
    """``embedding_dense_backward_cpu``: ``grad_weight[k].add_(grad[i], scale)`` for each position
    i (id k, not the padding id) in order; scale ``1 / count(k)`` under ``scale_grad_by_freq``."""
    from .._kernels import torch_add_alpha

    idx = ids.astype(np.int64).reshape(-1)
    gg = g.reshape(idx.size, -1)
    out = np.zeros((int(rows), gg.shape[1]), g.dtype)
    keep = idx != padding_idx
    pos_all = np.flatnonzero(keep)
    if not pos_all.size:
        return out
    scale = None
    if scale_grad_by_freq:
        counts = np.bincount(idx[keep], minlength=int(rows))
        # (ATen counts every position, the padding id's too; its rows are skipped anyway)
        scale = 1.0 / counts[idx[pos_all]].astype(np.float64)
    for r in _rounds(idx[pos_all]):
        pos = pos_all[r]
        k = idx[pos]
        if scale is None:
            out[k] = out[k] + gg[pos]
            continue
        for s in np.unique(scale[r]):   # one alpha at a time (the kernel's scalar)
            sel = scale[r] == s
            kk, pp = k[sel], pos[sel]
            fused = torch_add_alpha(out[kk], gg[pp], float(s))
            out[kk] = (out[kk] + gg[pp] * g.dtype.type(s)) if fused is None else fused
    return out


def _ops():
    return (top("embedding", "EmbeddingBackward0", "other", inputs=(1,), forward=_lookup_fwd),
            top("embedding_grad", "EmbeddingDenseBackwardBackward0", "other",
                forward=_dense_backward_fwd))


def _lookup_vjp(n, g):
    _, grad_op = _ops()
    return None, apply(grad_op, (n.inputs[0], g),
                       {"rows": int(n.in_meta[1][0][0]),
                        "padding_idx": int(n.attrs.get("padding_idx", -1)),
                        "scale_grad_by_freq": bool(n.attrs.get("scale_grad_by_freq", False))})


def _lookup_op():
    op, _ = _ops()
    if getattr(op, "_r9b_vjp", None) is not _lookup_vjp:
        op.vjp = _lookup_vjp
        op._r9b_vjp = _lookup_vjp
    return op


def renorm_rows_(weight, ids, max_norm, norm_type=2.0):
    """ATen's ``embedding_renorm_``: each distinct id's row whose ``norm_type`` norm (torch's norm
    of the row, in its dtype) exceeds ``max_norm`` is multiplied by ``max_norm / (norm + 1e-7)``
    (a double, taken in the weight's dtype by the mul kernel). No history; one version bump."""
    from .. import linalg

    w = raw(weight)
    uniq = np.unique(raw(ids).astype(np.int64).reshape(-1))
    if uniq.size == 0:
        _inplace.bump(weight)
        return weight
    sub = _wrap(np.ascontiguousarray(w[uniq]), True)
    norms = raw(linalg.vector_norm(sub, float(norm_type), dim=-1)).astype(np.float64)
    for row, nrm in zip(uniq.tolist(), norms.tolist()):
        if nrm > max_norm:
            scale = max_norm / (nrm + 1e-7)
            w[row] = w[row] * w.dtype.type(scale)
    _inplace.bump(weight)
    return weight


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False, sparse=False):
    ids = raw(input)
    if ids.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got torch.FloatTensor instead "
                           "(while checking arguments for embedding)")
    rows = raw(weight).shape[0]
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < rows, "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -rows, "Padding_idx must be within num_embeddings"
            padding_idx = rows + padding_idx
    if ids.size and (ids.min() < 0 or ids.max() >= rows):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        with grad_mode.no_grad():
            renorm_rows_(weight, input, max_norm, norm_type)
    attrs = {"padding_idx": -1 if padding_idx is None else int(padding_idx)}
    if scale_grad_by_freq:
        attrs["scale_grad_by_freq"] = True
    if raw(weight).dtype == _bf16.BITS:  # (bfloat16: ATen's rounding of the row sums)
        return apply(_bf16.embedding_op(_lookup_op()),
                     (_wrap(np.ascontiguousarray(ids, np.int64), True), weight),
                     attrs)
    # (the indices' own array when contiguous int64: vmap's trace follows them by identity)
    return apply(_lookup_op(), (_wrap(np.ascontiguousarray(ids, np.int64), True), weight), attrs)
