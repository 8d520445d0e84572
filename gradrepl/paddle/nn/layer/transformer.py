"""MultiHeadAttention and the Transformer (encoder and decoder layers and stacks), written as
Paddle's Python layers are: Linear projections, scaled dot-product attention with an additive
(float) or boolean mask, dropout, residual connections and LayerNorm (post- or pre-norm)."""
from __future__ import annotations

import collections
import copy

import numpy as np

from .layers import Layer

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _paddle():
    from .... import paddle as _p

    return _p


def _convert_attention_mask(attn_mask, dtype):
    """A boolean mask (True: attend) becomes 0 / -1e9; a float mask is added as it is."""
    paddle = _paddle()
    if attn_mask is None:
        return None
    if attn_mask.dtype == paddle.bool or attn_mask.dtype.name.startswith("int"):
        m = paddle.cast(attn_mask, dtype)
        return (m - 1.0) * 1e9
    return paddle.cast(attn_mask, dtype) if attn_mask.dtype != dtype else attn_mask


class MultiHeadAttention(Layer):
    """Attention of ``num_heads`` heads over query, key and value (key and value default to
    the query)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        paddle = _paddle()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"Expected embed_dim > 0 and num_heads > 0, received embed_dim="
                             f"{embed_dim}, num_heads={num_heads}")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.num_heads, self.dropout, self.need_weights = num_heads, dropout, need_weights
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        Linear = paddle.nn.Linear
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    # incremental decoding: a Cache's k/v grow by each step's keys and values (decoder
    # self-attention); a StaticCache's are computed once from the memory (cross-attention)
    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])
    Cache.__module__ = StaticCache.__module__ = "paddle.nn.layer.transformer"

    def _heads(self, t):
        paddle = _paddle()
        t = t.reshape([t.shape[0], t.shape[1], self.num_heads, self.head_dim])
        return paddle.transpose(t, [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """The projected keys and values split into heads: [batch, heads, length, head_dim]."""
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002  (Paddle's argument name)
        """A ``StaticCache`` of ``compute_kv(key, value)``; a ``Cache`` of empty keys and values
        ([batch of key, heads, 0, head_dim]) when ``value`` is None, else of key and value."""
        paddle = _paddle()
        if type == MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is None:
            shape = [key.shape[0], self.num_heads, 0, self.head_dim]
            return self.Cache(paddle.full(shape, 0, key.dtype), paddle.full(shape, 0, key.dtype))
        return self.Cache(key, value)

    def _prepare_qkv(self, query, key, value, cache=None):
        paddle = _paddle()
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v   # (key and value are not used)
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = paddle.concat([cache.k, k], axis=2)
            v = paddle.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        return q, k, v, cache

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        paddle = _paddle()
        F = paddle.nn.functional
        key = query if key is None else key
        value = query if value is None else value
        q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        product = paddle.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = F.softmax(product)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training,
                                mode="upscale_in_train")
        out = paddle.matmul(weights, v)
        out = paddle.transpose(out, [0, 2, 1, 3])
        out = out.reshape([out.shape[0], out.shape[1], out.shape[2] * out.shape[3]])
        out = self.out_proj(out)
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


class _ResidualBlocks(Layer):
    """What the encoder and decoder layers share: attention and a feed-forward net, each in a
    residual block with a LayerNorm before it (``normalize_before``) or after it."""

    def _build(self, d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
               act_dropout, normalize_before, weight_attr, bias_attr, layer_norm_eps,
               attentions):
        """Sublayers in Paddle's order (the order of their parameters and initialisation):
        the attentions, the feed-forward net, then norm1..n and dropout1..n."""
        nn = _paddle().nn
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        for name in attentions:
            setattr(self, name, MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                                   weight_attr=weight_attr,
                                                   bias_attr=bias_attr))
        self.linear1 = nn.Linear(d_model, dim_feedforward, weight_attr, bias_attr=bias_attr)
        self.dropout = nn.Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = nn.Linear(dim_feedforward, d_model, weight_attr, bias_attr=bias_attr)
        blocks = len(attentions) + 1
        for i in range(1, blocks + 1):
            setattr(self, f"norm{i}", nn.LayerNorm(d_model, layer_norm_eps))
        for i in range(1, blocks + 1):
            setattr(self, f"dropout{i}", nn.Dropout(dropout, mode="upscale_in_train"))
        self.activation = getattr(_paddle().nn.functional, activation)

    def _residual(self, x, i, body):
        """Block i: ``x + dropout_i(body(x))`` with norm_i before or after."""
        norm, dropout = getattr(self, f"norm{i}"), getattr(self, f"dropout{i}")
        residual = x
        if self.normalize_before:
            x = norm(x)
        x = residual + dropout(body(x))
        if not self.normalize_before:
            x = norm(x)
        return x

    def _feed_forward(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class TransformerEncoderLayer(_ResidualBlocks):
    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        self._build(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                    act_dropout, normalize_before, weight_attr, bias_attr, layer_norm_eps,
                    ("self_attn",))

    def forward(self, src, src_mask=None, cache=None):
        """With ``cache`` (a ``MultiHeadAttention.Cache``): ``(output, the grown cache)``."""
        new = []

        def attend(x):
            if cache is None:
                return self.self_attn(x, x, x, src_mask)
            x, c = self.self_attn(x, x, x, src_mask, cache)
            new.append(c)
            return x
        src = self._residual(src, 1, attend)
        src = self._residual(src, 2, self._feed_forward)
        return src if cache is None else (src, new[0])

    def gen_cache(self, src):
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


def _stacked(layer, num_layers):
    """``layer`` and ``num_layers - 1`` new layers built with its arguments (freshly
    initialised, as Paddle does; a layer without recorded arguments is deep-copied)."""
    from .container import LayerList

    def another():
        config = getattr(layer, "_config", None)
        return type(layer)(**config) if config is not None else copy.deepcopy(layer)

    return LayerList([layer if i == 0 else another() for i in range(num_layers)])


class TransformerEncoder(Layer):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_recompute=False):
        super().__init__()
        self.layers = _stacked(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        out = src
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, src_mask)
            else:
                out, c = layer(out, src_mask, cache[i])
                new_caches.append(c)
        out = out if self.norm is None else self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(_ResidualBlocks):
    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        self._build(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                    act_dropout, normalize_before, weight_attr, bias_attr, layer_norm_eps,
                    ("self_attn", "cross_attn"))

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """With ``cache`` (``(Cache, StaticCache)``, see ``gen_cache``): ``(output, (the grown
        Cache, the StaticCache))``."""
        new = []

        def attend(attn, x, kv, mask, c):
            if cache is None:
                return attn(x, kv, kv, mask)
            x, c = attn(x, kv, kv, mask, c)
            new.append(c)
            return x
        tgt = self._residual(tgt, 1, lambda x: attend(self.self_attn, x, x, tgt_mask,
                                                      None if cache is None else cache[0]))
        tgt = self._residual(tgt, 2, lambda x: attend(self.cross_attn, x, memory, memory_mask,
                                                      None if cache is None else cache[1]))
        tgt = self._residual(tgt, 3, self._feed_forward)
        return tgt if cache is None else (tgt, tuple(new))

    def gen_cache(self, memory):
        """(an empty ``Cache`` for the self-attention, the cross-attention's ``StaticCache`` of
        the memory)."""
        return (self.self_attn.gen_cache(memory, type=self.self_attn.Cache),
                self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache))


class TransformerDecoder(Layer):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _stacked(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        out = tgt
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, memory, tgt_mask, memory_mask)
            else:
                out, c = layer(out, memory, tgt_mask, memory_mask, cache[i])
                new_caches.append(c)
        out = out if self.norm is None else self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, memory, do_zip=False):
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


class Transformer(Layer):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        paddle = _paddle()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            attn_dropout, act_dropout, normalize_before,
                                            weight_attr, bias_attr)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              paddle.nn.LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            attn_dropout, act_dropout, normalize_before,
                                            weight_attr, bias_attr)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              paddle.nn.LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask)

    def generate_square_subsequent_mask(self, length):
        """0 on and below the diagonal, -inf above (a causal additive mask)."""
        paddle = _paddle()
        return paddle.tensor.triu(paddle.full([length, length], -np.inf, "float32"), 1)
