"""torch 2.13's float32 nn.LSTM forward on oneDNN (ATen's mkldnn_rnn, avx512_core), value for value.

torch hands a float32 LSTM without projections to oneDNN's RNN primitive (``_onednn_lstm`` in
_recurrent.py says when). Per layer and direction oneDNN computes, measured bit for bit against
real torch 2.13 here (AMD Zen 4, avx512_core; input sizes 1 to 300, hidden 1 to 256):

* gates = (x W_ih^T) + (h W_hh^T), each product one fused multiply-add chain over k from zero,
  the two added; or one chain over [x, h] (``merged`` in ``layer``: measured rule), then
  ``+ (b_ih + b_hh)``;
* oneDNN's JIT sigmoid (exp by 2^n times a degree-5 polynomial, on -|x|, mirrored) and tanh (a
  degree-6 polynomial per half binade from a 32-entry table; x below 0x39ddb3d7, 1 from
  0x41102cb3 on);
* c = fma(i, g, f * c_prev), h = o * tanh(c).

The polynomial tables are oneDNN's published constants (jit_uni_eltwise_injector), written as
the float32 bit patterns they are. The backward (``layer_backward``: oneDNN's ref_rnn with the
JIT cell postgemm) is measured the same way; a 1-wide input or hidden size (a gemv) is not yet
bit for bit. Under create_graph torch's differentiable composite runs instead (``_composite_vjp``)."""
from __future__ import annotations

import numpy as np

from .. import _capability
from ._interp_kernels import fma as _fma

F32 = np.float32


def _f(*bits):
    return np.array(bits, np.uint32).view(F32)


_LOG2E, _LN2, _MAXF, _MINF = _f(0x3fb8aa3b, 0x3f317218, 0x42b17218, 0xc2aeac50)
_EXP_POL = _f(0x3f7ffffb, 0x3efffee3, 0x3e2aad40, 0x3d2b9d0d, 0x3c07cfce)
_TANH_TABLE = np.array([
    # degree 0
    (
     0x00000000, 0x39bfffff, 0x39ffffff, 0x3a3ffffe, 0x3a7ffffb, 0x3abffff7,
     0x3affffeb, 0x3b3fffdc, 0x3b7fffab, 0x3bbfff70, 0x3bfffeab, 0x3c3ffdc0,
     0x3c7ffaab, 0x3cbff701, 0x3cffeaad, 0x3d3fdc08, 0x3d7faacd, 0x3dbf7081,
     0x3dfeacc9, 0x3e3dc7fd, 0x3e7acbf5, 0x3eb77a9f, 0x3eec9a9f, 0x3f22991f,
     0x3f42f7d6, 0x3f67b7cc, 0x3f76ca83, 0x3f7ebbe9, 0x3f7fd40c, 0x3f7fff32,
     0x3f7ffffc, 0x3f800000,
    ),
    # degree 1
    (
     0x3f800000, 0x3f800018, 0x3f7fffe8, 0x3f7fffda, 0x3f7fffdc, 0x3f7fffdc,
     0x3f7fffac, 0x3f7fff70, 0x3f7ffeec, 0x3f7ffdc0, 0x3f7ffbed, 0x3f7ff704,
     0x3f7feff5, 0x3f7fdbca, 0x3f7fbfff, 0x3f7f7041, 0x3f7f009b, 0x3f7dc36c,
     0x3f7c0aa8, 0x3f7734b8, 0x3f70a4de, 0x3f5f1fd8, 0x3f495493, 0x3f18b9ec,
     0x3ed706cb, 0x3e390b06, 0x3d90b11f, 0x3c21a053, 0x3aaf7fdb, 0x37ccc1a3,
     0x355c6733, 0x00000000,
    ),
    # degree 2
    (
     0x00000000, 0xbe4e0ff1, 0x3d25b1b1, 0x3d6b6dab, 0x3c9fb1d5, 0xbabff06f,
     0x3c07b3f6, 0xbb3fc1bc, 0x3a9f5921, 0xbbbf06f2, 0xbbb0f402, 0xbc47db9e,
     0xbc73d5e7, 0xbca25bda, 0xbcfca780, 0xbd40e07c, 0xbd7dab03, 0xbdbe4a0f,
     0xbdfb14a5, 0xbe36cc8d, 0xbe6bd102, 0xbe9fe7c5, 0xbeba0f10, 0xbec206a8,
     0xbea3c388, 0xbe277d62, 0xbd8b7960, 0xbc209f49, 0xbaad44ca, 0xb7c6eeac,
     0xb663aa41, 0x00000000,
    ),
    # degree 3
    (
     0x00000000, 0x45b3ae96, 0xc414eb20, 0xc450e02e, 0xc3152b4e, 0xbead2f56,
     0xc2162e02, 0xbeb4bd5a, 0xc11a59a4, 0xbed2f507, 0xc020d32c, 0x3dd0f506,
     0xbf2a75e2, 0xbff950e3, 0xbed47334, 0xbe809b8c, 0xbeb64532, 0xbe961a5b,
     0xbe9b63ac, 0xbea0d4b2, 0xbe828a77, 0xbe378612, 0xbdc20908, 0x3d2d3957,
     0x3dd46e89, 0x3db3f629, 0x3d2c5e7b, 0x3bd20403, 0x3a59dfae, 0x3770af45,
     0x372cc014, 0x00000000,
    ),
    # degree 4
    (
     0x00000000, 0xcc981a1b, 0x4a7edd3d, 0x4ab1007c, 0x48fedd9c, 0x41a557b5,
     0x477ee32a, 0x422557f5, 0x45ff3ce4, 0x42a55641, 0x446e0867, 0xc33dc19a,
     0x42915214, 0x43af4fad, 0x4110fe88, 0xc1099b75, 0x3fc8a8dc, 0xbfbeaef5,
     0xbe365aad, 0x3f4d9652, 0x3ddfa08f, 0x3e34e9b8, 0x3e2d07a6, 0x3dc63567,
     0x3cdaeb78, 0xbcd17537, 0xbc92829c, 0xbb43ab99, 0xb9b471dd, 0xb6baad5a,
     0xb78bafc7, 0x00000000,
    ),
    # degree 5
    (
     0x00000000, 0x52f688d5, 0xd0505c72, 0xd08f98e3, 0xce505cc9, 0xc7162b8a,
     0xcc5061d6, 0xc7162bdf, 0xca50b37f, 0xc7162a3a, 0xc8422086, 0x471a714e,
     0xc5ece1f1, 0xc70e3d90, 0xc3eba94a, 0x43e0c424, 0xc21f4552, 0x42217cc8,
     0x405e7dc4, 0xc10dd401, 0x3e96b602, 0xbd1a6d2f, 0xbd393883, 0xbd674682,
     0xbd310016, 0xb961e269, 0x3ba32495, 0x3a7680d5, 0x38b3173c, 0x35a9deea,
     0x375c3f2a, 0x00000000,
    ),
    # degree 6
    (
     0x00000000, 0xd8995ed1, 0x558285ea, 0x55b2cd69, 0x53028625, 0x4bc9991f,
     0x5082898a, 0x4b4999b3, 0x4e02c07c, 0x4ac99764, 0x4b72c822, 0xca40c0e1,
     0x489413e4, 0x49b12224, 0x46134c4e, 0xc60c2d57, 0x43c83910, 0xc3c872d1,
     0xc186bc9e, 0x42325bc3, 0xbf2ffa4a, 0x3d9a203c, 0xbc545a43, 0xbae08fee,
     0x3c80225d, 0x3b1fd1df, 0xba36b9d1, 0xb91de544, 0xb71f100f, 0xb408e2ed,
     0xb685fec8, 0x00000000,
    ),
], np.uint32).view(F32)  # (7 degrees, 32 intervals)


def _fmaf(a, b, c):
    return _fma(a, b, c, F32)


def _exp(x):
    """oneDNN's exp_compute_vector_fwd."""
    x = np.maximum(np.minimum(x, _MAXF), _MINF)
    n = np.floor(_fmaf(x, _LOG2E, F32(0.5)))
    r = _fmaf(-n, _LN2, x)
    two = (((n - F32(1)).astype(np.int32) + 127) << 23).view(F32)
    p = _EXP_POL[4]
    for c in _EXP_POL[3::-1]:
        p = _fmaf(p, r, c)
    p = _fmaf(p, r, F32(1))
    y = (p * two).astype(F32)
    return (y + y).astype(F32)


def sigmoid(x):
    """oneDNN's logistic: e = exp(-|x|), e / (e + 1), mirrored for x > 0."""
    e = _exp(-np.abs(x))
    y = (e / (e + F32(1))).astype(F32)
    return np.where(x > 0, (F32(1) - y).astype(F32), y)


def tanh(x):
    """oneDNN's tanh: |x| split at its exponent and first mantissa bit, the interval's
    polynomial in the remainder (fused Horner), x itself near 0, 1 far out; the sign back."""
    x = np.asarray(x, F32)
    bits = x.view(np.uint32)
    sb = bits & np.uint32(0x7fffffff)
    s = sb.view(F32)
    idx = (((sb - np.uint32(0x39800000)) & np.uint32(0xffc00000)) >> np.uint32(22)) \
        & np.uint32(31)
    r = (s - (sb & np.uint32(0xffc00000)).view(F32)).astype(F32)
    pol = _TANH_TABLE[6][idx]
    for d in range(5, -1, -1):
        pol = _fmaf(pol, r, _TANH_TABLE[d][idx])
    y = np.where(_f(0x41102cb3)[0] > s, pol, F32(1))
    y = np.where(_f(0x39ddb3d7)[0] > s, s, y).astype(F32)
    return (y.view(np.uint32) ^ (bits & np.uint32(0x80000000))).view(F32)


def _chain(a, w, acc=None):
    """a (M, K) times w^T (N, K): one fused multiply-add chain over k per output, from 0 (or
    from ``acc``)."""
    acc = np.zeros((a.shape[0], w.shape[0]), F32) if acc is None else acc
    for k in range(a.shape[1]):
        acc = _fmaf(a[:, k:k + 1], w[None, :, k], acc)
    return acc


def applies() -> bool:
    """The measured build: oneDNN's avx512_core kernels (another ISA is not emulated)."""
    return _capability.capability() == "AVX512"


def layer(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=False, training=False, keep=None):
    """One layer and direction: x (T, B, I), h0/c0 (B, H) -> outputs (T, B, H), h_T, c_T;
    ``training``: autograd records it (oneDNN's forward_training primitive); ``keep``: a list
    given the workspace per step in processing order (gates i, f, g, o; c_prev, c; h_prev)."""
    T = x.shape[0]
    H = w_hh.shape[1]
    gx = _chain(x.reshape(T * x.shape[1], -1), w_ih).reshape(T, x.shape[1], 4 * H)
    bias = (b_ih + b_hh).astype(F32) if b_ih is not None else np.zeros(4 * H, F32)
    h, c = h0.astype(F32), c0.astype(F32)
    B = x.shape[1]
    # measured: oneDNN chains the recurrent product on from the input's (one gemm over
    # [x, h]) for a batch of one under autograd, and at inference when the input and hidden
    # sizes are equal (a batch of one then only for a single step); else the two are added
    merged = (B == 1) if training else (x.shape[2] == H and (B > 1 or T == 1))
    outs = [None] * T
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        if merged:
            g = _chain(h, w_hh, gx[t])
        else:
            g = (gx[t] + _chain(h, w_hh)).astype(F32)
        g = (g + bias).astype(F32)
        i, f = sigmoid(g[:, :H]), sigmoid(g[:, H:2 * H])
        gg, o = tanh(g[:, 2 * H:3 * H]), sigmoid(g[:, 3 * H:])
        c_prev, h_prev = c, h
        c = _fmaf(i, gg, (f * c).astype(F32))
        h = (o * tanh(c)).astype(F32)
        outs[t] = h
        if keep is not None:
            keep.append((i, f, gg, o, c_prev, c, h_prev))
    return np.stack(outs), h, c


def _mm(a, b):
    """a (M, K) @ b (K, N): one fused multiply-add chain over k per output, from 0 (oneDNN's
    sgemm, measured)."""
    return _chain(a, np.ascontiguousarray(b.T))


#: oneDNN's sgemm splits a weight gradient's reduction (K = steps x batch rows) longer than this
#: into ceil(K / 384) equal blocks (the last shorter), each a chain from zero, added in order
#: (measured on this Intel avx512_core machine against real torch 2.13: K of 400, 416, 448, 600,
#: 700 and 767 equal, K <= 384 one chain as before; K of 780 and 800 (3 blocks) still differ).
_WGRAD_K_BLOCK = 384


def _mm_wgrad(a, b):
    """A weight gradient's product a (M, K) @ b (K, N) as oneDNN's sgemm blocks K
    (``_WGRAD_K_BLOCK``)."""
    K = a.shape[1]
    if K <= _WGRAD_K_BLOCK:
        return _mm(a, b)
    nb = -(-K // _WGRAD_K_BLOCK)
    kb = -(-K // nb)
    acc = None
    for s in range(0, K, kb):
        part = _mm(a[:, s:s + kb], b[s:s + kb])
        acc = part if acc is None else (acc + part).astype(F32)
    return acc


def layer_backward(x, w_ih, w_hh, keep, d_out, d_h, d_c, reverse=False):
    """oneDNN's LSTM backward (ref_rnn with the JIT cell postgemm, avx512_core), measured bit for
    bit against real torch 2.13: per step from the last processed, dH = dy + dh_next;
    dC = dc_next + ((1 - tanh(c)^2, fused) * dH) * o; the gate gradients from the saved
    (approximated) activations: do = (o - o*o fused) * dH * tanh(c), di = (i - i*i) * dC * g,
    df = (f - f*f) * dC * c_prev, dg = (1 - g*g) * (i * dC); dc_prev = dC * f; dh_prev and dx
    as fused chains of the gate gradients times W_hh, W_ih. dW_ih one chain over every (step,
    batch) row in memory order; dW_hh the chain over the steps after the first processed plus
    the first one's own; the bias gradient a running sum over steps (last processed first) and
    batch rows. Returns dx, dW_ih, dW_hh, db, dh0, dc0."""
    T, B = x.shape[0], x.shape[1]
    H = w_hh.shape[1]
    one = F32(1)
    order = list(range(T - 1, -1, -1)) if reverse else list(range(T))
    dh, dc = d_h.astype(F32), d_c.astype(F32)
    db = np.zeros(4 * H, F32)
    dx = np.zeros(x.shape, F32)
    dG = [None] * T
    for s in range(T - 1, -1, -1):
        t = order[s]
        i, f, g, o, c_prev, c, _h = keep[s]
        tc = tanh(c)
        dH = (d_out[t] + dh).astype(F32)
        dC = (dc + ((_fmaf(-tc, tc, one) * dH).astype(F32) * o).astype(F32)).astype(F32)
        d3 = ((_fmaf(-o, o, o) * dH).astype(F32) * tc).astype(F32)
        d0 = ((_fmaf(-i, i, i) * dC).astype(F32) * g).astype(F32)
        d1 = ((_fmaf(-f, f, f) * dC).astype(F32) * c_prev).astype(F32)
        d2 = (_fmaf(-g, g, one) * (i * dC).astype(F32)).astype(F32)
        dc = (dC * f).astype(F32)
        dG[t] = np.concatenate([d0, d1, d2, d3], 1)
        dh = _mm(dG[t], w_hh)
        dx[t] = _mm(dG[t], w_ih)
        for b in range(B):
            db = (db + dG[t][b]).astype(F32)
    G = np.stack([dG[t] for t in order])        # processing order (reverse: t descending)
    d_wih = _mm_wgrad(G.reshape(T * B, -1).T, x[order].reshape(T * B, -1))
    hp = np.stack([k[6] for k in keep])
    if reverse:   # measured: one chain over every step
        d_whh = _mm_wgrad(G.reshape(-1, 4 * H).T, hp.reshape(-1, H))
    else:
        d_whh = _mm(G[0].T, hp[0])
        if T > 1:
            d_whh = (_mm_wgrad(G[1:].reshape(-1, 4 * H).T, hp[1:].reshape(-1, H))
                     + d_whh).astype(F32)
    return dx, d_wih, d_whh, db, dh, dc


# --------------------------------------------------------------------- the autograd node
def _node_forward(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=False, training=False,
                  keep=None):
    return layer(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, training, keep)


def _node_vjp(node, g_out, g_h, g_c):
    """MkldnnRnnLayerBackward0: oneDNN's arithmetic (``layer_backward``) for a first-order
    backward; under create_graph torch differentiates a composite of ordinary ops
    (mkldnn_rnn_layer_differentiable_backward), written here with Tensor ops."""
    from ...engine.grad_mode import is_grad_enabled

    a = node.attrs
    if not is_grad_enabled():
        x, w_ih, w_hh = (t.data for t in node.inputs[:3])
        dx, dwi, dwh, db, dh, dc = layer_backward(x, w_ih, w_hh, a["keep"], g_out.data,
                                                  g_h.data, g_c.data, a.get("reverse", False))
        w = type(node.inputs[0])._wrap
        return (w(dx, True), w(dwi, True), w(dwh, True), w(db, True), w(db.copy(), True),
                w(dh, True), w(dc, True))
    return _composite_vjp(node, g_out, g_h, g_c)


def _composite_vjp(node, g_out, g_h, g_c):
    from .. import _ops

    x, w_ih, w_hh, b_ih, b_hh, h0, c0 = node.inputs
    T, H = x.data.shape[0], w_hh.data.shape[1]
    order = list(range(T - 1, -1, -1)) if node.attrs.get("reverse", False) else list(range(T))
    xs, gos = _ops.unbind(x, 0), _ops.unbind(g_out, 0)
    wi_t, wh_t = _ops.t(w_ih), _ops.t(w_hh)
    bias = b_ih + b_hh
    h, c, saved = h0, c0, []
    for t in order:
        g = xs[t] @ wi_t + h @ wh_t + bias
        i, f = _ops.sigmoid(g[:, :H]), _ops.sigmoid(g[:, H:2 * H])
        gg, o = _ops.tanh(g[:, 2 * H:3 * H]), _ops.sigmoid(g[:, 3 * H:])
        c_new = f * c + i * gg
        saved.append((i, f, gg, o, c, c_new, h))
        h, c = o * _ops.tanh(c_new), c_new
    dh, dc = g_h, g_c
    dx, dwi, dwh, db = [None] * T, None, None, None
    for s in range(T - 1, -1, -1):
        t = order[s]
        i, f, gg, o, c_prev, c_t, h_prev = saved[s]
        tc = _ops.tanh(c_t)
        dH = gos[t] + dh
        dC = dc + dH * o * (1 - tc * tc)
        dG = _ops.cat([dC * gg * i * (1 - i), dC * c_prev * f * (1 - f),
                       dC * i * (1 - gg * gg), dH * tc * o * (1 - o)], 1)
        dc = dC * f
        dh = dG @ w_hh
        dx[t] = _ops.unsqueeze(dG @ w_ih, 0)
        gwi, gwh, gb = _ops.t(dG) @ xs[t], _ops.t(dG) @ h_prev, _ops.sum(dG, 0)
        dwi = gwi if dwi is None else dwi + gwi
        dwh = gwh if dwh is None else dwh + gwh
        db = gb if db is None else db + gb
    return _ops.cat(dx, 0), dwi, dwh, db, db, dh, dc   # (torch: CatBackward0 of unsqueezes)


def _register():
    from ...engine.registry import OPS, register

    if "mkldnn_rnn_layer" not in OPS:
        # float32 only, oneDNN's kernels emulated: checked against real torch's records in
        # tests/test_torch_lstm_grad_bits.py, not by finite differences (check=False)
        register("mkldnn_rnn_layer", _node_forward, _node_vjp, n_outputs=3, check=False)
    return OPS["mkldnn_rnn_layer"]
