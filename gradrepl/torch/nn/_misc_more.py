"""torch.nn dropouts, distances and ``EmbeddingBag`` beyond ``modules``: Dropout1d, Dropout3d,
AlphaDropout, FeatureAlphaDropout (torch's ``_dropout_impl``: a Bernoulli(1 - p) noise drawn
as ``bernoulli_`` draws it, over (N, C, 1, ...) for the feature forms), CosineSimilarity,
PairwiseDistance (``norm(x1 - x2 + eps)``: NormBackward1), ``pdist``, EmbeddingBag."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtypes, _ops, _random
from .._base import raw
from .._ops import top
from .._tensor import Tensor
from . import _more_common as C
from . import init
from .modules import Module
from .parameter import Parameter

_wrap = Tensor._wrap


# ------------------------------------------------------------------------------ dropouts
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _mul(x, noise, inplace):
    n = _wrap(noise, True)
    if inplace:
        return x.mul_(n)
    return _ops.mul(x, n)


def _dropout_impl(input, p, train, feature, alpha, inplace):  # noqa: A002
    """torch's ``_dropout_impl<feature_dropout, alpha_dropout, inplace>``."""
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    a = raw(input)
    if p == 0 or not train or a.size == 0:
        return input
    dt = a.dtype
    if p == 1:
        return _mul(input, np.zeros((), dt), inplace)
    if feature:
        if a.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = a.shape[:2] + (1,) * (a.ndim - 2)
    else:
        shape = a.shape
    u = (_random.uniform(shape, np.dtype(np.float64), 0.0, 1.0) if feature
         else _random.uniform_like(a))  # torch's empty_like(input) noise: the input's memory order
    noise = (u < 1 - p).astype(dt)
    if alpha:
        al = 1.7580993408473766
        k = 1.0 / math.sqrt((al * al * p + 1) * (1 - p))
        b = (((noise - np.ones((), dt)).astype(dt) * np.asarray(al * k, dt)).astype(dt)
             + np.asarray(al * k * p, dt)).astype(dt)
        noise = (noise * np.asarray(k, dt)).astype(dt)
        out = _mul(input, noise, inplace)
        return out.add_(_wrap(b, True))
    noise = (noise / np.asarray(1 - p, dt)).astype(dt)
    return _mul(input, noise, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    _check_p(p)
    return _dropout_impl(input, p, training, False, True, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    _check_p(p)
    return _dropout_impl(input, p, training, True, True, inplace)


def _feature_nd(input, p, training, inplace, batched):  # noqa: A002
    x = input
    if not batched:
        x = x.unsqueeze_(0) if inplace else _ops.unsqueeze(x, 0)
    r = _dropout_impl(x, p, training, True, False, inplace)
    if not batched:
        r = r.squeeze_(0) if inplace else _ops.squeeze(r, 0)
    return r


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    _check_p(p)
    nd = raw(input).ndim
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs "
                           "with 1 spatial dimension, a channel dimension, and an optional batch "
                           "dimension (i.e. 2D or 3D inputs).")
    return _feature_nd(input, p, training, inplace, nd == 3)


def dropout3d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    _check_p(p)
    nd = raw(input).ndim
    if nd not in (4, 5):
        from .. import libwarn   # (stacklevel=2: Dropout3d.forward's line in torch)

        libwarn.warn_from_caller(
            f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 4D or 5D inputs).",
            {"Dropout3d.forward": "dropout3d_forward"})
    return _feature_nd(input, p, training, inplace, nd == 5)


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    def forward(self, input):  # noqa: A002
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    def forward(self, input):  # noqa: A002
        return dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    def forward(self, input):  # noqa: A002
        return alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    def forward(self, input):  # noqa: A002
        return feature_alpha_dropout(input, self.p, self.training)


# ------------------------------------------------------------------------------ distances
def _norm1(x, p, dim, keepdim):
    """``at::norm(x, p, dim, keepdim)``: linalg_vector_norm's values, node NormBackward1."""
    a = raw(x)
    p = float(p)
    axes = (dim % a.ndim,) if a.ndim else ()
    from .._ops import _norm2_forward, _out_shape, _pnorm_forward   # torch's reduction order

    if p == 2.0:
        return C.run(top("fused_vector_norm2", "NormBackward1", "in0+out",
                         forward=_norm2_forward), (x,),
                     {"axis": axes, "keepdim": bool(keepdim)})
    op = top("p_norm", "NormBackward1", "in0+out", forward=_pnorm_forward)
    if not getattr(op, "torch_norm_backward", False):  # torch's norm_backward (_pnorm_grad)
        from .._pnorm_grad import pnorm_vjp

        op.vjp, op.torch_norm_backward = pnorm_vjp(op.vjp), True
    return C.run(op, (x,),
                 {"porder": p, "axis": axes, "keepdim": bool(keepdim),
                  "out_shape": _out_shape(a.shape, axes, bool(keepdim)), "epsilon": 0.0})


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    out_dim = max(raw(x1).ndim, raw(x2).ndim)
    return _norm1(_ops.add(_ops.sub(x1, x2), eps), p, out_dim - 1, keepdim)


def _pdist_pairs(n):
    i, j = np.triu_indices(n, 1)
    return i, j


def _pdist_fwd(x, p=2.0):
    n, m = x.shape
    i, j = _pdist_pairs(n)
    d = np.abs(x[i] - x[j]).astype(x.dtype)
    dt = x.dtype
    if p == 0:
        return (d != 0).sum(1).astype(dt)
    if p == np.inf:
        return d.max(1, initial=0).astype(dt) if d.size else np.zeros(len(i), dt)
    acc = np.zeros(len(i), dt)
    if p == 1:
        for c in range(m):
            acc = (acc + d[:, c]).astype(dt)
        return acc
    if p == 2:
        for c in range(m):
            acc = (acc + d[:, c] * d[:, c]).astype(dt)
        return np.sqrt(acc).astype(dt)
    pw = np.power(d, np.asarray(p, dt)).astype(dt)
    for c in range(m):
        acc = (acc + pw[:, c]).astype(dt)
    return np.power(acc, np.asarray(1.0 / p, dt)).astype(dt)


def _pdist_vjp(n, g):
    x = n.inputs[0]
    p = n.attrs.get("p", 2.0)
    a = raw(x)
    i, j = _pdist_pairs(a.shape[0])
    out = raw(n.out())
    diff = (a[i] - a[j]).astype(np.float64)
    o = out.astype(np.float64)[:, None]
    with np.errstate(all="ignore"):
        if p == 0:
            coef = np.zeros_like(diff)
        elif p == 1:
            coef = np.sign(diff)
        elif p == 2:
            coef = np.where(o == 0, 0.0, diff / o)
        elif p == np.inf:
            coef = np.sign(diff) * (np.abs(diff) == o)
        else:
            coef = np.where(o == 0, 0.0, diff * np.abs(diff) ** (p - 2) / o ** (p - 1))
    coef = _wrap(coef.astype(a.dtype), True)
    gp = _ops.mul(coef, _ops.reshape(g, (-1, 1)))
    sel = np.zeros((a.shape[0], len(i)), a.dtype)
    sel[i, np.arange(len(i))] = 1
    sel[j, np.arange(len(i))] = -1
    return _ops.matmul(_wrap(sel, True), gp)


_PDIST = C.op("PdistBackward0", _pdist_fwd, _pdist_vjp, "in0+out")


def pdist(input, p=2):  # noqa: A002
    a = raw(input)
    if a.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {a.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return C.run(_PDIST, (input,), {"p": float(p)})


class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        from . import functional as F

        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


# ------------------------------------------------------------------------------ embedding bag
def _bags(n_idx, offsets, include_last):
    off = [int(v) for v in offsets]
    if include_last:
        bounds = off
    else:
        bounds = off + [n_idx]
    return [(bounds[k], bounds[k + 1]) for k in range(len(bounds) - 1)]


def _eb_fwd(weight, idx, offsets=None, mode=1, include_last=False, padding_idx=-1,
            psw=None):
    dt = weight.dtype
    bags = _bags(idx.shape[0], offsets, include_last)
    out = np.zeros((len(bags), weight.shape[1]), dt)
    for k, (s, e) in enumerate(bags):
        rows = [r for r in range(s, e) if idx[r] != padding_idx]
        if not rows:
            continue
        if mode == 2:
            out[k] = weight[idx[rows]].max(0)
            continue
        acc = np.zeros(weight.shape[1], dt)
        for r in rows:
            v = weight[idx[r]]
            if psw is not None and dt == np.float32:   # fbgemm's kernel: one FMA (measured)
                acc = (acc.astype(np.float64) + v.astype(np.float64) * np.float64(psw[r])
                       ).astype(dt)
                continue
            if psw is not None:
                v = (v * psw[r]).astype(dt)
            acc = (acc + v).astype(dt)
        if mode == 1:   # the bag's sum divided by its size (measured on real torch 2.13)
            acc = (acc / np.asarray(len(rows), dt)).astype(dt)
        out[k] = acc
    return out


def _eb_vjp(n, g):
    w = raw(n.inputs[0])
    idx = raw(n.inputs[1])
    a = n.attrs
    bags = _bags(idx.shape[0], a["offsets"], a["include_last"])
    coef = np.zeros((len(bags), idx.shape[0]), w.dtype)
    for k, (s, e) in enumerate(bags):
        rows = [r for r in range(s, e) if idx[r] != a["padding_idx"]]
        if not rows:
            continue
        if a["mode"] == 2:
            continue
        for r in rows:
            c = 1.0 / len(rows) if a["mode"] == 1 else 1.0
            if a["psw"] is not None:
                c *= float(a["psw"][r])
            coef[k, r] = c
    if a["mode"] == 2:
        gw = np.zeros(w.shape, w.dtype)
        gd = raw(g)
        for k, (s, e) in enumerate(bags):
            rows = [r for r in range(s, e) if idx[r] != a["padding_idx"]]
            if not rows:
                continue
            vals = w[idx[rows]]
            arg = vals.argmax(0)
            for col in range(w.shape[1]):
                gw[idx[rows[arg[col]]], col] += gd[k, col]
        return _wrap(gw, True), None
    from ...engine import grad_mode

    if not grad_mode.STATE.enabled and w.dtype in (np.float32, np.float64):
        return _wrap(_eb_dense_backward(w, idx, bags, coef, raw(g)), True), None
    per_index = _ops.matmul(_ops.t(_wrap(coef, True)), g)
    sel = np.zeros((w.shape[0], idx.shape[0]), w.dtype)
    sel[idx, np.arange(idx.shape[0])] = 1
    return _ops.matmul(_wrap(sel, True), per_index), None


def _eb_dense_backward(w, idx, bags, coef, gd):
    """``_embedding_bag_dense_backward_cpu_sum_mean``: the positions in torch.sort's order of
    the indices (its own order among equal ones), each adding ``(scalar_t) scale`` times its
    bag's gradient row to its index's row by BLAS axpy (one FMA an element); the scale is 1.0
    (a per-sample weight) divided by the bag's size in double (mean)."""
    from .. import _ops as O

    gd = np.ascontiguousarray(gd, w.dtype)
    gw = np.zeros(w.shape, w.dtype)
    order = raw(O.sort(_wrap(idx.astype(np.int64), True))[1])
    bag_of = np.zeros(idx.shape[0], np.int64)
    for k, (s, e) in enumerate(bags):
        bag_of[s:e] = k
    if w.dtype == np.float32:
        def axpy(a, x, y):
            return (np.float64(a) * x.astype(np.float64) + y.astype(np.float64)).astype(w.dtype)
    else:
        from .._sleef64 import fma64

        def axpy(a, x, y):
            return fma64(np.full(x.shape, a), x, y)
    for j in order:
        k = bag_of[j]
        c = coef[k, j]
        if c == 0:
            continue
        gw[idx[j]] = axpy(c, gd[k], gw[idx[j]])
    return gw


_EMB_BAG = C.op("EmbeddingBagBackward0", _eb_fwd, _eb_vjp, diff_inputs=(0,))


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,  # noqa: A002
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    idx = raw(input)
    if raw(weight).dtype.kind in "iu" and idx.dtype.kind == "f":
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        input, weight = weight, input  # noqa: A001
        idx = raw(input)
    if per_sample_weights is not None and raw(per_sample_weights).shape != idx.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({_sz(per_sample_weights)}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({_sz(input)})")
    if raw(weight).ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{raw(weight).ndim}")
    psw = None if per_sample_weights is None else raw(per_sample_weights)
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        off = np.arange(0, idx.size, idx.shape[1], dtype=np.int64)
        include_last_offset = False
        idx = idx.reshape(-1)
        if psw is not None:
            psw = psw.reshape(-1)
    elif idx.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        off = raw(offsets) if isinstance(offsets, Tensor) else np.asarray(offsets)
        if off.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{idx.ndim}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if max_norm is not None:
        w = raw(weight)
        for r in np.unique(idx):
            nrm = float(np.linalg.norm(w[r].astype(np.float64), ord=norm_type))
            if nrm > max_norm:
                w[r] = (w[r] * (max_norm / (nrm + 1e-7))).astype(w.dtype)
    if psw is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    pad = -1 if padding_idx is None else int(padding_idx) % raw(weight).shape[0]
    return C.run(_EMB_BAG, (weight, _wrap(idx.astype(np.int64), True)),
                 {"offsets": np.asarray(off, np.int64), "mode": modes[mode],
                  "include_last": bool(include_last_offset), "padding_idx": pad, "psw": psw})


def _sz(t):
    from .._base import Size

    return Size(raw(t).shape)


class EmbeddingBag(Module):
    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, \
                    "padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, \
                    "padding_idx must be within num_embeddings"
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            dt = _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()
            self.weight = Parameter(_wrap(np.zeros((num_embeddings, embedding_dim), dt)))
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            raw(self.weight)[self.padding_idx] = 0

    def forward(self, input, offsets=None, per_sample_weights=None):  # noqa: A002
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse,
                             per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        rows, cols = raw(embeddings).shape
        bag = cls(rows, cols, _weight=embeddings, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag


__all__ = ["Dropout1d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
           "CosineSimilarity", "PairwiseDistance", "EmbeddingBag"]
C.name_classes("torch.nn.modules.dropout", [Dropout1d, Dropout3d, AlphaDropout,
                                            FeatureAlphaDropout])
C.name_classes("torch.nn.modules.distance", [CosineSimilarity, PairwiseDistance])
C.name_classes("torch.nn.modules.sparse", [EmbeddingBag])

FUNCTIONAL = {
    "alpha_dropout": alpha_dropout, "feature_alpha_dropout": feature_alpha_dropout,
    "dropout1d": dropout1d, "dropout3d": dropout3d, "pairwise_distance": pairwise_distance,
    "pdist": pdist, "embedding_bag": embedding_bag,
}
