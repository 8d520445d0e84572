"""The Transformer family of ``torch.nn``: ``MultiheadAttention``, ``TransformerEncoderLayer``,
``TransformerDecoderLayer``, ``TransformerEncoder``, ``TransformerDecoder``, ``Transformer``, and
``F.scaled_dot_product_attention`` / ``F.multi_head_attention_forward``, composed from the
dialect's ops in the order torch's Python code (``torch/nn/functional.py``,
``torch/nn/modules/transformer.py``) calls them, with the same parameter creation and
initialisation order (so the same values after ``torch.manual_seed``).

``scaled_dot_product_attention`` follows the CPU flash kernel's arithmetic for one key block
(``exp(s - max) @ v`` times ``1 / sum``) and names its node as torch does
(``ScaledDotProductFlashAttentionForCpuBackward0``); with dropout it takes torch's math path
(softmax, dropout, matmul)."""
from __future__ import annotations

from .. import _bfloat16 as _bf16  # (torch.autocast's state)

import copy
import inspect
import math
import types
import warnings

import numpy as np

from ...engine.registry import apply
from .. import _ops
from .._base import EngineTensor, raw
from .._tensor import Tensor
from . import _flash_attention as _flash
from . import functional as F
from . import init
from ._layers import LayerNorm
from .modules import GELU, Dropout, Linear, Module, ModuleList, ReLU
from .parameter import Parameter

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]


def _np_dt(dtype):
    from .. import _dtypes

    return _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()


def _ndim(t):
    return raw(t).ndim


def _shape(t):
    return tuple(raw(t).shape)


def _size(t):
    from .._base import Size

    return Size(_shape(t))


# ------------------------------------------------------------------------------ sdpa
def _named(t, name):
    """``t`` through a copy node named ``name`` (the name torch's fused kernel gives)."""
    if t.grad_node is None:
        return t
    return apply(_ops.top("assign", name, "none", forward=_ops._clone_fwd), (t,))


def _fast_matmul_fwd(x, y, transpose_x=False, transpose_y=False, out_shape=None):
    if transpose_x:
        x = np.swapaxes(x, -1, -2)
    if transpose_y:
        y = np.swapaxes(y, -1, -2)
    out = np.matmul(x, y)
    return np.reshape(out, out_shape) if out_shape is not None else out


_FAST_BMM = None
_MKL_BATCH_LIMIT = 64  # more matrices than this: one numpy matmul (speed over the last bit)


def _matmul(a, b):
    """``a @ b`` for the attention products: torch's MKL gemm per matrix (its bits) for up to
    ``_MKL_BATCH_LIMIT`` matrices, beyond that one numpy product (the per-matrix calls of a
    32-batch, 16-head model cost seconds)."""
    global _FAST_BMM
    sa, sb = _shape(a), _shape(b)
    batch = sa[:-2]
    n = int(np.prod(batch)) if batch else 1
    if n <= _MKL_BATCH_LIMIT or sa[:-2] != sb[:-2]:
        return _ops.matmul(a, b)
    if _FAST_BMM is None:
        from .. import _mm_grad

        _FAST_BMM = _mm_grad.with_vjp(_ops.top("matmul", "BmmBackward0", "cross",
                                               forward=_fast_matmul_fwd), _mm_grad.mm_vjp)
    a3 = _ops.reshape(a, (n,) + sa[-2:])
    b3 = _ops.reshape(_ops.contiguous(b), (n,) + sb[-2:])
    out = apply(_FAST_BMM, (a3, b3))
    return _ops.reshape(out, batch + (sa[-2], sb[-1]))


def _flash_shapes(q, k, v):
    """Whether torch's CPU backend choice (``select_sdp_backend_cpp``) can take the flash
    kernel for these shapes: 4-D inputs of one head dim, equal batch and head counts; else it
    runs the math path."""
    sq, sk, sv = _shape(q), _shape(k), _shape(v)
    if not len(sq) == len(sk) == len(sv) == 4:
        return False
    return sq[-1] == sk[-1] == sv[-1] and sq[:2] == sk[:2] == sv[:2]


def _bool_to_float_mask(mask, dtype):
    a = raw(mask)
    return Tensor._wrap(np.where(a, np.asarray(0, dtype), np.asarray(-np.inf, dtype)), True)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """Attention ``softmax(q k^T * scale + mask) v`` over the last two dims."""
    if _bf16.AUTOCAST[0] is not None:
        query, key, value, attn_mask = _bf16.lower(query, key, value, attn_mask)
    q, k, v = query, key, value
    dt = raw(q).dtype
    L, S = _shape(q)[-2], _shape(k)[-2]
    E = _shape(q)[-1]
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if enable_gqa:
        hq, hk = _shape(q)[-3], _shape(k)[-3]
        if hq != hk:
            k = _ops.repeat_interleave(k, hq // hk, dim=-3)
            v = _ops.repeat_interleave(v, hq // raw(v).shape[-3], dim=-3)
    scale_f = 1.0 / math.sqrt(E) if scale is None else float(scale)
    fmask = attn_mask
    if fmask is not None and raw(fmask).dtype == np.bool_:
        fmask = _bool_to_float_mask(fmask, dt)
    if dt == _bf16.BITS and dropout_p == 0.0:  # bfloat16: the flash kernel's roundings
        return _bf16.sdpa(q, k, v, attn_mask, is_causal, scale_f)
    if _flash.usable(q, k, v, fmask, dropout_p):  # torch's CPU flash kernel, fwd and bwd
        return _flash.sdpa(q, k, v, fmask, is_causal, scale_f)
    mask = None
    if is_causal:
        tri = np.tril(np.ones((L, S), bool))
        mask = _bool_to_float_mask(Tensor._wrap(tri, True), dt)
    elif attn_mask is not None:
        mask = (_bool_to_float_mask(attn_mask, dt) if raw(attn_mask).dtype == np.bool_
                else attn_mask)
    if dropout_p > 0.0 or not _flash_shapes(q, k, v):
        # torch's math path (dropout, or inputs the flash kernel refuses): the scale on q and
        # k (its square root on each), softmax, dropout
        sq = math.sqrt(scale_f)
        s = _matmul(_ops.mul(q, sq), _ops.mul(_ops.transpose(k, -2, -1), sq))
        if mask is not None:
            s = _ops.add(s, mask)
        attn = F.softmax(s, -1)
        if dropout_p > 0.0:
            attn = F.dropout(attn, dropout_p, True)
        return _matmul(attn, v)
    s = _ops.mul(_matmul(q, _ops.transpose(k, -2, -1)), scale_f)
    if mask is not None:
        s = _ops.add(s, mask)
    m = _ops.amax(s, -1, keepdim=True)
    with_inf = np.isneginf(raw(m))
    if with_inf.any():  # fully masked rows give zeros, as the kernel's sum of 0 does not
        m = Tensor._wrap(np.where(with_inf, 0, raw(m)).astype(dt), True)
    else:
        m = m.detach()
    e = _ops.exp(_ops.sub(s, m))
    total = _ops.sum(e, -1, keepdim=True)
    out = _ops.mul(_matmul(e, v), _ops.reciprocal(total))
    return _named(out, "ScaledDotProductFlashAttentionForCpuBackward0")


# ------------------------------------------------------------------------------ MHA functional
_MASK_SITES = {"MultiheadAttention.forward": "mha_canonical_mask",
               "TransformerEncoder.forward": "encoder_canonical_mask",
               "TransformerEncoderLayer.forward": "encoder_layer_canonical_mask",
               "multi_head_attention_forward": "mha_forward_canonical_mask"}


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    if mask is None:
        return None
    a = raw(mask)
    is_float = a.dtype.kind == "f"
    if a.dtype != np.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and a.dtype != other_type:
        from .. import libwarn   # (stacklevel=2 in torch: the calling line of torch's twin)

        libwarn.warn_from_caller(f"Support for mismatched {mask_name} and {other_name} is "
                                 "deprecated. Use same type for both instead.", _MASK_SITES)
    if not is_float:
        return Tensor._wrap(np.where(a, np.asarray(-np.inf, target_type),
                                     np.asarray(0, target_type)), True)
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    qd, kd, vd = _ndim(query), _ndim(key), _ndim(value)
    if qd == 3:
        if kd != 3 or vd != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be "
                                 f"3-D but found {kd}-D and {vd}-D tensors respectively")
        if key_padding_mask is not None and _ndim(key_padding_mask) != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {_ndim(key_padding_mask)}-D tensor "
                                 "instead")
        if attn_mask is not None and _ndim(attn_mask) not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {_ndim(attn_mask)}-D tensor instead")
        return True
    if qd == 2:
        if kd != 2 or vd != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {kd}-D and {vd}-D tensors respectively")
        if key_padding_mask is not None and _ndim(key_padding_mask) != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to "
                                 f"be `None` or 1-D but found {_ndim(key_padding_mask)}-D "
                                 "tensor instead")
        if attn_mask is not None:
            if _ndim(attn_mask) not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {_ndim(attn_mask)}-D "
                                     "tensor instead")
            if _ndim(attn_mask) == 3:
                exp = (num_heads, _shape(query)[0], _shape(key)[0])
                if _shape(attn_mask) != exp:
                    raise AssertionError(f"Expected `attn_mask` shape to be {exp} but got "
                                         f"{_size(attn_mask)}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{qd}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    E = _shape(q)[-1]
    if k is v:
        if q is k:
            proj = F.linear(q, w, b)
            proj = _ops.contiguous(_ops.squeeze(_ops.transpose(_ops.unsqueeze(
                _ops.unflatten(proj, -1, (3, E)), 0), 0, -2), -2))
            return proj[0], proj[1], proj[2]
        w_q, w_kv = _ops.split(w, [E, E * 2])
        b_q, b_kv = (None, None) if b is None else _ops.split(b, [E, E * 2])
        q_proj = F.linear(q, w_q, b_q)
        kv = F.linear(k, w_kv, b_kv)
        kv = _ops.contiguous(_ops.squeeze(_ops.transpose(_ops.unsqueeze(
            _ops.unflatten(kv, -1, (2, E)), 0), 0, -2), -2))
        return q_proj, kv[0], kv[1]
    w_q, w_k, w_v = _ops.chunk(w, 3)
    b_q, b_k, b_v = (None, None, None) if b is None else _ops.chunk(b, 3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _pad_last(t):
    return F.pad(t, (0, 1))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """torch's ``F.multi_head_attention_forward`` (sequence-first ``(L, N, E)`` tensors)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = (_ops.unsqueeze(query, 1), _ops.unsqueeze(key, 1),
                             _ops.unsqueeze(value, 1)) if not (key is value and query is key) \
            else (_ops.unsqueeze(query, 1),) * 3
        if key_padding_mask is not None:
            key_padding_mask = _ops.unsqueeze(key_padding_mask, 0)
    tgt_len, bsz, embed_dim = _shape(query)
    src_len = _shape(key)[0]
    qdt = raw(query).dtype
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else raw(attn_mask).dtype,
                                       "attn_mask", qdt)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", qdt, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if _shape(key)[:2] != _shape(value)[:2]:
            raise AssertionError(f"key's sequence and batch dims {_size(key)[:2]} do not match "
                                 f"value's {_size(value)[:2]}")
    elif _shape(key) != _shape(value):
        raise AssertionError(f"key shape {_size(key)} does not match value shape "
                             f"{_size(value)}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for nm, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {nm}_proj_weight "
                                     "is None")
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = _ops.chunk(in_proj_bias, 3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)
    if attn_mask is not None:
        if _ndim(attn_mask) == 2:
            if _shape(attn_mask) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {_size(attn_mask)}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = _ops.unsqueeze(attn_mask, 0)
        elif _ndim(attn_mask) == 3:
            exp = (bsz * num_heads, tgt_len, src_len)
            if _shape(attn_mask) != exp:
                raise RuntimeError(f"The shape of the 3D attn_mask is {_size(attn_mask)}, but "
                                   f"should be {exp}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {_ndim(attn_mask)} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _ops.cat([k, _ops.repeat(bias_k, 1, bsz, 1)])
        v = _ops.cat([v, _ops.repeat(bias_v, 1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    else:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")
    q = _ops.transpose(_ops.view(q, (tgt_len, bsz * num_heads, head_dim)), 0, 1)
    if static_k is None:
        k = _ops.transpose(_ops.view(k, (_shape(k)[0], bsz * num_heads, head_dim)), 0, 1)
    else:
        if _shape(static_k)[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got "
                                 f"{_shape(static_k)[0]}")
        if _shape(static_k)[2] != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got "
                                 f"{_shape(static_k)[2]}")
        k = static_k
    if static_v is None:
        v = _ops.transpose(_ops.view(v, (_shape(v)[0], bsz * num_heads, head_dim)), 0, 1)
    else:
        if _shape(static_v)[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got "
                                 f"{_shape(static_v)[0]}")
        if _shape(static_v)[2] != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got "
                                 f"{_shape(static_v)[2]}")
        v = static_v
    if add_zero_attn:
        z = Tensor._wrap(np.zeros((bsz * num_heads, 1, head_dim), raw(k).dtype))
        k = _ops.cat([k, z], dim=1)
        v = _ops.cat([v, Tensor._wrap(np.zeros((bsz * num_heads, 1, head_dim),
                                               raw(v).dtype))], dim=1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = _shape(k)[1]
    if key_padding_mask is not None:
        kp = _shape(key_padding_mask)
        if kp[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{kp[0]}")
        if kp[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{kp[1]}")
        key_padding_mask = _ops.reshape(_ops.expand(
            _ops.view(key_padding_mask, (bsz, 1, 1, src_len)), -1, num_heads, -1, -1),
            (bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else _ops.add(attn_mask,
                                                                        key_padding_mask)
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = _shape(q)[-1]
        q_scaled = _ops.mul(q, math.sqrt(1.0 / float(E)))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        w = _ops.bmm(q_scaled, _ops.transpose(k, -2, -1))
        if attn_mask is not None:
            w = _ops.add(attn_mask, w)
        w = F.softmax(w, -1)
        if dropout_p > 0.0:
            w = F.dropout(w, dropout_p)
        out = _ops.bmm(w, v)
        out = _ops.reshape(_ops.transpose(out, 0, 1), (tgt_len * bsz, embed_dim))
        out = F.linear(out, out_proj_weight, out_proj_bias)
        out = _ops.view(out, (tgt_len, bsz, _shape(out)[1]))
        w = _ops.view(w, (bsz, num_heads, tgt_len, src_len))
        if average_attn_weights:
            w = _ops.mean(w, 1)
        if not is_batched:
            out = _ops.squeeze(out, 1)
            w = _ops.squeeze(w, 0)
        return out, w
    if attn_mask is not None:
        if _shape(attn_mask)[0] == 1 and _ndim(attn_mask) == 3:
            attn_mask = _ops.unsqueeze(attn_mask, 0)
        else:
            attn_mask = _ops.view(attn_mask, (bsz, num_heads, -1, src_len))
    q = _ops.view(q, (bsz, num_heads, tgt_len, head_dim))
    k = _ops.view(k, (bsz, num_heads, src_len, head_dim))
    v = _ops.view(v, (bsz, num_heads, src_len, head_dim))
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = _ops.reshape(_ops.permute(out, 2, 0, 1, 3), (bsz * tgt_len, embed_dim))
    out = F.linear(out, out_proj_weight, out_proj_bias)
    out = _ops.view(out, (tgt_len, bsz, _shape(out)[1]))
    if not is_batched:
        out = _ops.squeeze(out, 1)
    return out, None


FUNCTIONAL = {"scaled_dot_product_attention": scaled_dot_product_attention,
              "multi_head_attention_forward": multi_head_attention_forward,
              "_canonical_mask": _canonical_mask, "_mha_shape_check": _mha_shape_check,
              "_in_projection_packed": _in_projection_packed, "_in_projection": _in_projection}


# ------------------------------------------------------------------------------ modules
class NonDynamicallyQuantizableLinear(Linear):
    pass


def _empty(shape, dt):
    return Parameter(Tensor._wrap(np.zeros(shape, dt)))


def _masked_softmax_lastdim(scores, masked):
    """ATen's masked softmax over the last axis (host_softmax<float, false, true>): the max of
    the kept scores, each kept one's expf of its float difference (correctly rounded, as
    glibc's), their sum in double in order, each value times the sum's reciprocal in double.
    A row with every key masked gives NaN, as torch's does."""
    masked = np.broadcast_to(masked, scores.shape)
    kept = np.where(masked, -np.inf, scores)
    top = kept.max(axis=-1, keepdims=True)
    diff = (scores - np.where(np.isfinite(top), top, scores[..., :1])).astype(scores.dtype)
    z = np.where(masked, 0, np.exp(diff.astype(np.float64))).astype(scores.dtype)
    total = np.zeros(scores.shape[:-1], np.float64)
    for j in range(scores.shape[-1]):
        total += z[..., j]
    with np.errstate(divide="ignore", invalid="ignore"):
        return (z * (1.0 / total)[..., None]).astype(scores.dtype)


class MultiheadAttention(Module):
    """Multi-head attention (``in_proj_weight`` packs the query, key and value projections when
    their sizes agree)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        dt = _np_dt(dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _empty((embed_dim, embed_dim), dt)
            self.k_proj_weight = _empty((embed_dim, self.kdim), dt)
            self.v_proj_weight = _empty((embed_dim, self.vdim), dt)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = _empty((3 * embed_dim, embed_dim), dt)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = _empty((3 * embed_dim,), dt)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = _empty((1, 1, embed_dim), dt)
            self.bias_v = _empty((1, 1, embed_dim), dt)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        is_batched = _ndim(query) == 3
        bool_kpm = key_padding_mask is not None and raw(key_padding_mask).dtype == np.bool_
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                           None if attn_mask is None
                                           else raw(attn_mask).dtype,
                                           "attn_mask", raw(query).dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", raw(query).dtype, False)
        if not need_weights and self._native_path(query, key, value, attn_mask,
                                                  key_padding_mask, is_causal):
            # torch's _native_multi_head_attention without masks computes the attention
            # weights' route whatever need_weights (q scaled after its bias, bmm, softmax,
            # bmm, addmm): the slow path's need_weights=True values, weights not returned
            return self.forward(query, key, value, need_weights=True,
                                average_attn_weights=average_attn_weights)[0], None
        if bool_kpm and self._native_path(query, key, value, attn_mask, None, is_causal):
            return self._native_key_padding(query, raw(key_padding_mask) != 0, need_weights,
                                            average_attn_weights)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = _ops.transpose(query, 1, 0)
                else:
                    query, key = (_ops.transpose(x, 1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (_ops.transpose(x, 1, 0) for x in (query, key, value))
        if not self._qkv_same_embed_dim:
            out, w = multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
                self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
                self.out_proj.weight, self.out_proj.bias, training=self.training,
                key_padding_mask=key_padding_mask, need_weights=need_weights,
                attn_mask=attn_mask, use_separate_proj_weight=True,
                q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
                v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
                is_causal=is_causal)
        else:
            out, w = multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
                self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
                self.out_proj.weight, self.out_proj.bias, training=self.training,
                key_padding_mask=key_padding_mask, need_weights=need_weights,
                attn_mask=attn_mask, average_attn_weights=average_attn_weights,
                is_causal=is_causal)
        if self.batch_first and is_batched:
            return _ops.transpose(out, 1, 0), w
        return out, w

    def _native_path(self, query, key, value, attn_mask, key_padding_mask, is_causal):
        """torch 2.13's fast-path conditions (MultiheadAttention.forward), for self-attention
        without masks: eval mode, batch_first, packed projections with biases, an even head
        count, matching dtypes, nothing to record."""
        from ...engine import grad_mode

        if (attn_mask is not None or key_padding_mask is not None or is_causal
                or _ndim(query) != 3 or query is not key or key is not value
                or self.in_proj_weight is None or self.in_proj_bias is None
                or raw(query).dtype != raw(self.in_proj_weight).dtype
                or raw(query).dtype != raw(self.in_proj_bias).dtype or self.training
                or self.num_heads % 2 or not self.batch_first or self.bias_k is not None
                or self.bias_v is not None or self.add_zero_attn
                or not self._qkv_same_embed_dim):
            return False
        args = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight,
                self.out_proj.bias)
        return not (grad_mode.is_grad_enabled()
                    and any(getattr(a, "requires_grad", False) for a in args))

    def _native_key_padding(self, x, masked, need_weights, average_attn_weights):
        """torch's _native_multi_head_attention with a boolean key padding mask: the packed
        projection, q scaled after its bias, q k^T, ATen's masked softmax (host_softmax: each
        kept score's expf, their sum in double, times its reciprocal), the context, addmm."""
        import gradrepl.torch as T

        B, L, E = _shape(x)
        H = self.num_heads
        qkv = _ops.add(T.matmul(x, self.in_proj_weight.t()), self.in_proj_bias)
        q, k, v = (_ops.transpose(c.view(B, L, H, E // H), 1, 2) for c in qkv.chunk(3, -1))
        q = _ops.mul(q, T.tensor(1.0 / math.sqrt(E // H), dtype=q.dtype))
        scores = raw(T.matmul(q, _ops.transpose(k, -1, -2)))
        p = Tensor(_masked_softmax_lastdim(scores, masked[:, None, None, :]))
        ctx = _ops.transpose(T.matmul(p, v), 1, 2).reshape(B * L, E)
        out = T.addmm(self.out_proj.bias, ctx, self.out_proj.weight.t()).view(B, L, E)
        if not need_weights:
            return out, None
        return out, (_ops.div(p.sum(1), H) if average_attn_weights else p)

    def merge_masks(self, attn_mask, key_padding_mask, query):
        mask_type = None
        merged = None
        if key_padding_mask is not None:
            mask_type = 1
            merged = key_padding_mask
        if attn_mask is not None:
            bsz, seq_len, _ = _shape(query)
            mask_type = 2
            if _ndim(attn_mask) == 3:
                am = _ops.view(attn_mask, (bsz, -1, seq_len, seq_len))
            else:
                am = _ops.expand(_ops.view(attn_mask, (1, 1, seq_len, seq_len)),
                                 bsz, self.num_heads, -1, -1)
            merged = am
            if key_padding_mask is not None:
                kp = _ops.expand(_ops.view(key_padding_mask, (bsz, 1, 1, seq_len)),
                                 -1, self.num_heads, -1, -1)
                merged = _ops.add(am, kp)
        return merged, mask_type


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _activation_fn(activation):
    """The layer's activation: a name's function, and F.relu/F.gelu as nn.functional has them
    now (the signature's default was bound before the namespace's wrappers were installed:
    ``layer.activation is F.relu`` holds as in torch)."""
    if isinstance(activation, str):
        return _get_activation_fn(activation)
    for fn in (F.relu, F.gelu):
        if isinstance(activation, types.FunctionType) and _unwrapped(activation) is _unwrapped(fn):
            return fn
    return activation


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _unwrapped(fn):
    """A function without the wrappers installed over nn.functional (the complex refusals keep
    the function they wrap as ``__wrapped__``): F.relu is the same function before and after."""
    return inspect.unwrap(fn) if isinstance(fn, types.FunctionType) else fn


def _activation_relu_or_gelu(activation):
    """torch's flag: 1 for F.relu or an nn.ReLU, 2 for F.gelu or an nn.GELU, else 0."""
    fn = _unwrapped(activation)
    if fn is _unwrapped(F.relu) or isinstance(activation, ReLU):
        return 1
    if fn is _unwrapped(F.gelu) or isinstance(activation, GELU):
        return 2
    return 0


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block, each with a residual and a LayerNorm."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        activation = _activation_fn(activation)
        self.activation_relu_or_gelu = _activation_relu_or_gelu(activation)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        given = src_key_padding_mask
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               None if src_mask is None
                                               else raw(src_mask).dtype,
                                               "src_mask", raw(src).dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", raw(src).dtype, False)
        if (src_mask is None and given is not None and raw(given).dtype == np.bool_
                and self._native_path(src)):
            src_key_padding_mask = given   # torch's fused layer hands its attention the mask
        x = src
        if self.norm_first:
            x = _ops.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask,
                                           is_causal))
            x = _ops.add(x, self._ff_block(self.norm2(x)))
        else:
            x = self.norm1(_ops.add(x, self._sa_block(x, src_mask, src_key_padding_mask,
                                                      is_causal)))
            x = self.norm2(_ops.add(x, self._ff_block(x)))
        return x

    def _packed_forward(self, x, keep):
        """This (post-norm) layer over the packed kept rows ``x`` of a batch (``keep``: batch x
        sequence), as torch's fused layer runs a nested tensor: the projections over the packed
        rows, the attention over the zero-padded batch with the padded keys at -inf and the
        plain softmax, the rest over the packed rows again."""
        import gradrepl.torch as T

        attn = self.self_attn
        B, L = keep.shape
        E = _shape(x)[-1]
        H = attn.num_heads
        rows = np.flatnonzero(keep.reshape(-1))
        qkv_packed = raw(_ops.add(T.mm(x, attn.in_proj_weight.t()), attn.in_proj_bias))
        qkv = np.zeros((B * L, 3 * E), qkv_packed.dtype)
        qkv[rows] = qkv_packed
        q, k, v = (_ops.transpose(c.view(B, L, H, E // H), 1, 2)
                   for c in Tensor(qkv.reshape(B, L, 3 * E)).chunk(3, -1))
        q = _ops.mul(q, T.tensor(1.0 / math.sqrt(E // H), dtype=x.dtype))
        scores = T.matmul(q, _ops.transpose(k, -1, -2))
        scores = scores.masked_fill(T.from_numpy(~keep[:, None, None, :]), float("-inf"))
        ctx = _ops.transpose(T.matmul(T.softmax(scores, -1), v), 1, 2).reshape(B * L, E)
        ctx = Tensor(raw(ctx)[rows])
        sa = T.addmm(attn.out_proj.bias, ctx, attn.out_proj.weight.t())
        h = self.norm1(_ops.add(x, sa))
        return self.norm2(_ops.add(h, self.linear2(self.activation(self.linear1(h)))))

    def _native_path(self, src):
        """torch 2.13's fast-path conditions (TransformerEncoderLayer.forward): there it runs
        _transformer_encoder_layer_fwd, whose attention is the native one (given the boolean
        key padding mask) followed by the layer's usual operations."""
        from ...engine import grad_mode

        attn = self.self_attn
        if (_ndim(src) != 3 or self.training or not attn.batch_first
                or attn.in_proj_bias is None or not attn._qkv_same_embed_dim
                or not self.activation_relu_or_gelu or self.norm1.eps != self.norm2.eps
                or attn.num_heads % 2 == 1
                or any(len(getattr(m, "_forward_hooks", {}))
                       + len(getattr(m, "_forward_pre_hooks", {})) for m in self.modules())):
            return False
        args = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                attn.out_proj.bias, self.norm1.weight, self.norm1.bias, self.norm2.weight,
                self.norm2.bias, self.linear1.weight, self.linear1.bias, self.linear2.weight,
                self.linear2.bias)
        return not (grad_mode.is_grad_enabled()
                    and any(getattr(a, "requires_grad", False) for a in args))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory, and a feed-forward block."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias,
                                                 dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation_fn(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = _ops.add(x, self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                           tgt_is_causal))
            x = _ops.add(x, self._mha_block(self.norm2(x), memory, memory_mask,
                                            memory_key_padding_mask, memory_is_causal))
            x = _ops.add(x, self._ff_block(self.norm3(x)))
        else:
            x = self.norm1(_ops.add(x, self._sa_block(x, tgt_mask, tgt_key_padding_mask,
                                                      tgt_is_causal)))
            x = self.norm2(_ops.add(x, self._mha_block(x, memory, memory_mask,
                                                       memory_key_padding_mask,
                                                       memory_is_causal)))
            x = self.norm3(_ops.add(x, self._ff_block(x)))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else _shape(mask)[-2]
        causal = np.triu(np.full((sz, sz), -np.inf, raw(mask).dtype), 1)
        if _shape(mask) == causal.shape:
            make_causal = bool(np.array_equal(raw(mask), causal))
        else:
            make_causal = False
    return make_causal


class TransformerEncoder(Module):
    """A stack of ``num_layers`` copies of an encoder layer (and an optional final norm)."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = ""
        # torch 2.13's texts (transformer.py), the batch_first one without a space before "("
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            why_not = "encoder_layer was not TransformerEncoderLayer"
        elif encoder_layer.norm_first:
            why_not = "encoder_layer.norm_first was True"
        elif not encoder_layer.self_attn.batch_first:
            why_not = ("encoder_layer.self_attn.batch_first was not True(use "
                       "batch_first for better inference performance)")
        elif not encoder_layer.self_attn._qkv_same_embed_dim:
            why_not = "encoder_layer.self_attn._qkv_same_embed_dim was not True"
        elif encoder_layer.self_attn.in_proj_bias is None:
            why_not = "encoder_layer.self_attn was passed bias=False"
        elif not encoder_layer.activation_relu_or_gelu:
            why_not = "encoder_layer.activation_relu_or_gelu was not True"
        elif encoder_layer.norm1.eps != encoder_layer.norm2.eps:
            why_not = "encoder_layer.norm1.eps was not equal to encoder_layer.norm2.eps"
        elif encoder_layer.self_attn.num_heads % 2 == 1:
            why_not = "encoder_layer.self_attn.num_heads is odd"
        if enable_nested_tensor and why_not:   # (stacklevel=2: nn.Transformer's line in torch)
            from .. import libwarn

            libwarn.warn_from_caller(f"enable_nested_tensor is True, but self.use_nested_tensor "
                                     f"is False because {why_not}",
                                     {"Transformer.__init__": "transformer_encoder"})
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               None if mask is None else raw(mask).dtype,
                                               "mask", raw(src).dtype)
        mask = _canonical_mask(mask, "mask", None, "", raw(src).dtype, False)
        output = src
        first = self.layers[0]
        batch_first = first.self_attn.batch_first
        seq_len = _shape(src)[1 if batch_first else 0] if _ndim(src) == 3 else None
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        keep = self._nested_rows(src, mask, src_key_padding_mask)
        if keep is not None:
            output = self._nested_forward(src, keep)
        else:
            for mod in self.layers:
                output = mod(output, src_mask=mask, is_causal=is_causal,
                             src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_forward(self, src, keep):
        """The layers over torch's nested tensor (the kept rows packed; _packed_forward), then
        padded with zeros (to_padded_tensor(0.0))."""
        shape = raw(src).shape
        rows = np.flatnonzero(keep.reshape(-1))
        packed = Tensor(raw(src).reshape(-1, shape[-1])[rows])
        for mod in self.layers:
            packed = mod._packed_forward(packed, keep)
        out = np.zeros((shape[0] * shape[1], shape[2]), raw(src).dtype)
        out[rows] = raw(packed)
        return Tensor(out.reshape(shape))

    def _nested_rows(self, src, mask, src_key_padding_mask):
        """torch's sparsity fast path (TransformerEncoder.forward): in eval mode with no
        gradient to record, a left-aligned padding mask turns the batch into a nested tensor
        (the prototype-stage warning, once a process) and the padded rows come back as zeros.
        Returns the rows kept (bool, batch x sequence), or None off the fast path. The layers'
        native kernels are not replayed: the kept rows are computed as the slow path does."""
        from ...engine import grad_mode

        first = self.layers[0]   # (torch's autocast test asks CUDA's state: never on here)
        if (not getattr(self, "use_nested_tensor", False) or first.training or _ndim(src) != 3
                or src_key_padding_mask is None or mask is not None):
            return None
        keep = raw(src_key_padding_mask) == 0   # (the canonical float mask: 0 where kept)
        if getattr(self, "mask_check", True):
            lengths = keep.sum(axis=1)
            if not (keep == (np.arange(keep.shape[1]) < lengths[:, None])).all():
                return None       # not left aligned
        attn = first.self_attn
        args = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                attn.out_proj.bias, first.norm1.weight, first.norm1.bias, first.norm2.weight,
                first.norm2.bias, first.linear1.weight, first.linear1.bias,
                first.linear2.weight, first.linear2.bias)
        if grad_mode.is_grad_enabled() and any(getattr(a, "requires_grad", False) for a in args):
            return None
        from .._ops_shape import _warn_once

        _warn_once("The PyTorch API of nested tensors is in prototype stage and will change in "
                   "the near future. We recommend specifying layout=torch.jagged when "
                   "constructing a nested tensor, as this layout receives active development, "
                   "has better operator coverage, and works with torch.compile. (Triggered "
                   "internally at /__w/pytorch/pytorch/aten/src/ATen/NestedTensorImpl.cpp:177.)",
                   site="encoder_nested_from_mask")
        return keep


class TransformerDecoder(Module):
    """A stack of ``num_layers`` copies of a decoder layer (and an optional final norm)."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        first = self.layers[0]
        batch_first = first.self_attn.batch_first
        seq_len = _shape(tgt)[1 if batch_first else 0] if _ndim(tgt) == 3 else None
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """The encoder-decoder Transformer of "Attention Is All You Need"."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, layer_norm_eps, batch_first,
                                            norm_first, bias, dtype=dtype)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, layer_norm_eps, batch_first,
                                            norm_first, bias, dtype=dtype)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        is_batched = _ndim(src) == 3
        if not self.batch_first and _shape(src)[1] != _shape(tgt)[1] and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and _shape(src)[0] != _shape(tgt)[0] and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if _shape(src)[-1] != self.d_model or _shape(tgt)[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A square causal mask: ``-inf`` above the diagonal, ``0.0`` elsewhere."""
        from .. import _creation

        if dtype is None:
            from .. import _dtypes

            dtype = _dtypes.float32
        return _ops.triu(_creation.full((sz, sz), float("-inf"), dtype=dtype), diagonal=1)

    def _reset_parameters(self):
        for p in self.parameters():
            if _ndim(p) > 1:
                init.xavier_uniform_(p)


NonDynamicallyQuantizableLinear.__module__ = "torch.nn.modules.linear"
MultiheadAttention.__module__ = "torch.nn.modules.activation"
for _c in (TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder,
           TransformerDecoder, Transformer):
    _c.__module__ = "torch.nn.modules.transformer"
del _c
