"""Paddle's fused ``rnn`` op (``nn.LSTM``, ``nn.GRU``, ``nn.SimpleRNN`` on the CPU), in the
order of operations of its CPU kernels (``phi/kernels/cpu/rnn_kernel.cc``,
``rnn_grad_kernel.cc``, ``funcs/detail/lstm_cpu_kernel.h``, ``gru_cpu_kernel.h``,
``gru_compute.cc``), so that its outputs and gradients have Paddle's last bits.

Forward, per layer and direction:

- the input projection of every time step at once: ``X (T*B, I) @ W_ih^T`` (one GEMM), then
  ``+ b_ih`` and ``+ b_hh`` as two rounded additions (GRU: ``b_hh`` with its candidate part
  zeroed, added later inside the cell);
- per step the hidden product is accumulated onto that projection (a GEMM with beta = 1),
  then the cell's Eigen functors run on each batch row: sigmoid ``1 / (1 + exp(-x))`` whose exp
  takes Eigen's 8-wide packet code from the start of each row of ``hidden`` values and the C
  library's ``expf`` on the row's tail; tanh is Eigen's fast tanh everywhere;
- LSTM: ``c = cand * i; c = c + c_prev * f; h = o * tanh(c)``; GRU (Paddle's V2 cell):
  ``ro = (h_prev @ W_hc^T + b_hc) * r; cand = tanh(x_c + ro); h = (1 - z) * cand + z * h_prev``;
- with ``sequence_length``: ``h = out * m + h_prev * (1 - m)``, ``out = out * m`` on the steps
  where some sequence has ended.

Backward (``rnn_grad``) steps back through time per layer (last first) and direction (forward
first), each cell's gradient in its kernel's expressions, the hidden-state and weight gradients
as GEMMs (the weight's accumulated over the steps, beta = 1), then ``dW_ih = G^T X`` as one GEMM,
``dX += G W_ih`` and the bias gradients as column sums over all steps in order.

On AMD every product takes MKL's generic-kernel order (``_mkl_generic``, as the convolutions
and ``matmul``): ``X @ W_ih^T`` and ``h @ W_hh^T`` with W passed transposed (beta 1: each of the
kernel's parts added into the gates in turn), ``G @ W`` plain, the weight gradients ``G^T X``
with G transposed, and the backward's beta-1 products (the hidden weights' gradient summed over
the steps, ``dX += G W_ih``, the GRU cell's products: ``sgemm_acc``, C the first term), each
with its operands where Paddle's kernel keeps them (``_h_offsets``, ``_weight_offsets``): 280
random configurations (LSTM, GRU, SimpleRNN tanh/relu, 1-2 layers, either direction,
sequence_length, batch 1-16, hidden 3-32) equal to real 3.3.1 and 2.6.2 in every output and
gradient (43 before). Otherwise matrix products follow
the engine's rule for Paddle's float32 products on this CPU class
(``linalg.chained_matmul``: one fused chain per element on Intel, the rounded products added in
order on AMD); a GEMM with beta = 1 adds its product to the accumulator after the sum (MKL-ML's
``cblas_sgemm``, measured). Measured on an AMD EPYC against Paddle 3.3.1 and 2.6.2 with the
products taken from Paddle's own MKL-ML (``libmklml_intel.so`` called with ctypes in a separate
process): random configurations (LSTM, GRU, SimpleRNN tanh and relu, 1-2 layers,
bidirectional, initial states, sequence_length, time-major) with sizes multiples of 8: 40 of 40
with every output and gradient equal; of any size: 46 of 60 (in the others MKL's sums depend on
where its operands lie: placed at Paddle's 16-byte offsets, the two checked became equal). With
the engine's product rule instead (what runs): 25 of those 40 equal (the rest have batch 4,
where MKL on AMD sums differently), 2 of the 60.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from . import _kernels as K
from ._util import quiet
from .linalg import chained_matmul

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ------------------------------------------------------------------------------ pieces
def _mm(a, b):
    """``a @ b`` (2-D) as Paddle's BLAS sums it on this CPU class."""
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    if a.dtype != np.float32:
        return np.matmul(a, b)
    return chained_matmul(a, b)


def _mm_acc(c, a, b):
    """``c + a @ b``: a GEMM with beta = 1 (the product summed, then added to ``c``)."""
    return c + _mm(a, b)


def _intel_gemm(a, b, trans_a=False, trans_b=False, c=None):
    """On Intel (MKL, this process computing as the CPU it runs on): the product as Paddle's
    rnn kernels call it, MKL's ``cblas_sgemm`` on one thread with each operand as stored and
    the kernel's own transpose flags (beta 1 with ``c``); MKL_VERBOSE under real 3.3.1 here:
    X @ W_ih^T and h @ W_hh^T (N,T), G @ W (N,N), G^T @ X and the hidden weights' G^T @ h with
    beta 1 (T,N). None elsewhere (AMD's and the other classes' rules below)."""
    from .. import cpu, mkl
    from .nn import _mkl_is_this_cpu

    arrays = (a, b) if c is None else (a, b, c)
    if (cpu.cpu_class() == "amd" or not all(x.dtype == np.float32 for x in arrays)
            or not _mkl_is_this_cpu() or not mkl.load()):
        return None
    return mkl.gemm_one_thread(np.ascontiguousarray(a), np.ascontiguousarray(b), trans_a,
                               trans_b, None if c is None else np.asarray(c))


def _amd_f32(*arrays):
    from .. import cpu
    return cpu.cpu_class() == "amd" and all(a.dtype == np.float32 for a in arrays)


def _mm_bt(a, w, a_offset=0, b_offset=0):
    """``a @ w^T`` with ``w`` passed to sgemm transposed (the input projection ``X @ W_ih^T``):
    on AMD the MKL generic kernels' order for a transposed B (``_mkl_generic``), else ``_mm``;
    ``a_offset``, ``b_offset``: where A and W lie (floats from a 64-byte boundary)."""
    out = _intel_gemm(a, w, False, True)
    if out is not None:
        return out
    if _amd_f32(a, w) and a.shape[0] * a.shape[1] * w.shape[0] <= _generic_limit():
        return _mm_bt_acc(np.zeros((a.shape[0], w.shape[0]), a.dtype), a, w, a_offset,
                          b_offset)
    return _mm(a, w.T)


def _mm_bt_acc(c, a, w, a_offset=0, b_offset=0):
    """``c + a @ w^T``, ``w`` transposed and beta = 1 (the hidden product onto the gates): on
    AMD each of the generic kernels' parts added into C in turn (C = part + C); the kernels read
    A's rows from their first 16-byte boundary, so ``a_offset`` (where A lies) counts, and in
    the remaining rows ``b_offset`` (where W lies: Paddle's RNN layers keep all their weights in
    one buffer, ``flatten_parameters``)."""
    out = _intel_gemm(a, w, False, True, c)
    if out is not None:
        return out
    if not (_amd_f32(c, a, w) and a.shape[0] * a.shape[1] * w.shape[0] <= _generic_limit()):
        return c + _mm(a, np.ascontiguousarray(w.T))
    from . import _mkl_generic as G

    c = np.array(c, np.float32)
    offs = np.array(a_offset % 16, np.int64) if a_offset else None
    b_offs = np.array(b_offset % 16, np.int64) if b_offset else None
    for (rows, cols), parts in G.sgemm_bt_partials(np.ascontiguousarray(a),
                                                   np.ascontiguousarray(w), offs, b_offs):
        for part in parts:
            c[rows, cols] = part + c[rows, cols]
    return c


def _generic_limit():
    from .linalg import _GENERIC_LIMIT
    return _GENERIC_LIMIT


def _mm_ta(a, b):
    """``a^T @ b`` with ``a`` passed to sgemm transposed (the weight gradients ``G^T X``): on AMD
    the generic kernels' order (``linalg._generic_gemm``), else ``_mm``."""
    from .linalg import _generic_gemm

    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    out = _intel_gemm(a, b, True, False)
    if out is not None:
        return out
    out = _generic_gemm(a, b, True, False) if a.dtype == np.float32 else None
    return _mm(a.T, b) if out is None else out


def _mm_plain(a, b, c_offset=0):
    """``a @ b`` where Paddle's kernel passes neither operand transposed (the backward's
    ``dh = G @ W_hh`` and ``dX = G @ W_ih``): on AMD the MKL generic kernels' order
    (``linalg._generic_gemm``: K in blocks of 112, rows off a 16-byte boundary in the scalar
    order), measured against real 3.3.1 and 2.6.2 on the seq2seq practice's LSTMs (the chain
    left 529 of 768 input-gradient values different); elsewhere as ``_mm``. ``c_offset``:
    where C lies (floats from a 64-byte boundary)."""
    from .linalg import _generic_gemm

    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    out = _intel_gemm(a, b)
    if out is not None:
        return out
    if (c_offset % 4 and _amd_f32(a, b) and b.shape[1] > 1 and a.shape[1] > 0
            and a.shape[0] * a.shape[1] * b.shape[1] <= _generic_limit()):
        from . import _mkl_generic as G
        return G.sgemm(a, b, np.array(c_offset % 16))
    out = _generic_gemm(a, b, False, False) if a.dtype == np.float32 else None
    return _mm(a, b) if out is None else out


def _acc_generic(c, a, b, trans_a, c_offset):
    """``c + op(a) @ b`` as one GEMM with beta = 1 on AMD (``_mkl_generic.sgemm_acc``: C is the
    first term of MKL's sums), or None where that rule is not known (other classes, dtypes, a
    single column, past the size limit)."""
    m, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
    n = b.shape[1]
    if not (_amd_f32(c, a, b) and n > 1 and (m > 1 or not trans_a)
            and m * n * k <= _generic_limit()):
        return None
    from . import _mkl_generic as G

    a = np.ascontiguousarray(a.T if trans_a else a)
    return G.sgemm_acc(c, a, np.ascontiguousarray(b), trans_a, c_offset)


def _mm_ta_acc(c, a, b, c_offset=0):
    """``c + a^T @ b``, ``a`` passed transposed and beta = 1 (the hidden weights' gradient summed
    over the steps): on AMD C is the first term of the sums; elsewhere ``c + _mm_ta(a, b)``."""
    out = _intel_gemm(a, b, True, False, c)
    if out is not None:
        return out
    out = _acc_generic(c, a, b, True, c_offset)
    return c + _mm_ta(a, b) if out is None else out


def _mm_plain_acc(c, a, b, c_offset=0):
    """``c + a @ b`` with beta = 1 (``dX += G W_ih``, the GRU cell's products into the previous
    hidden state's gradient): on AMD C is the first term of the sums; elsewhere
    ``c + _mm_plain(a, b)``."""
    out = _intel_gemm(a, b, False, False, c)
    if out is not None:
        return out
    out = _acc_generic(c, a, b, False, c_offset)
    return c + _mm_plain(a, b) if out is None else out


_EXPF = None


def _scalar_exp(x):
    global _EXPF
    if x.dtype == np.float32:
        if _EXPF is None:
            _EXPF = K.libm("exp", np.exp)
        return _EXPF(x)
    return K.libm64("exp", np.exp)(x)


def _sigmoid_rows(x):
    """Paddle's ``SigmoidFunctor`` run by Eigen on each row of ``x`` (B, H) separately: exp's
    packet code on each row's leading multiple of the packet width, the C library on the rest."""
    width = K.PACKET if x.dtype == np.float32 else 4
    h = x.shape[-1]
    n = h // width * width
    one = np.ones((), x.dtype)
    out = np.empty_like(x)
    packet = K.packet_exp if x.dtype == np.float32 else K.packet_exp64
    with quiet(all="ignore"):
        if n:
            out[:, :n] = one / (one + packet(-x[:, :n]))
        if n < h:
            out[:, n:] = one / (one + _scalar_exp(-x[:, n:]))
    return out


def _tanh(x):
    """Paddle's ``TanhFunctor``: Eigen's fast tanh on every element."""
    return K.tanh(x)


def _sig_grad(out, dout):
    """``dout * out * (1 - out)`` (Paddle's SigmoidGradFunctor), left to right."""
    return (dout * out) * (1 - out)


def _tanh_grad(out, dout):
    return dout * (1 - out * out)


def _colsum(a):
    """Paddle's CPU ``ColwiseSum``: row 0, then the other rows added in order (an accumulation:
    numpy's reduce would start from +0 and turn a column of -0 into +0)."""
    if a.shape[0] == 0:
        return np.zeros(a.shape[1:], a.dtype)
    return np.add.accumulate(a, axis=0)[-1]


def _mask_matrix(seq_len, steps, batch, dtype):
    """(T, B): 1 where step t of sequence b is inside its length."""
    lens = np.asarray(seq_len).reshape(-1)
    return (np.arange(steps)[:, None] < lens[None, :]).astype(dtype), int(lens.min())


# ------------------------------------------------------------------------------ forward
def _h_offsets(steps, step_size, out_base, last_h_off, min_len, reverse):
    """Where the previous hidden state that each step's product reads lies (floats from a
    64-byte boundary), following the forward kernel's holders (``Layer::RunIter``): a fresh copy
    of h0 first, then the output written the step before, or the ``last_h`` output where steps
    are past a sequence's end (its pointer swaps). ``out_base``: where this direction's output
    (T, B, H) starts; ``step_size``: B * H."""
    mml = min_len - steps + 1 if reverse else min_len
    flag = -1 if reverse else 1

    def out(j):
        return ("out", out_base + (steps - 1 - j if reverse else j) * step_size)
    last_h = ("last", last_h_off)
    init = ("tmp", 0)
    use_last = not 0 < mml
    last = last_h if use_last else out(0)
    offsets = []
    for i in range(steps):
        offsets.append(init[1])
        if i + 1 < steps:
            if flag * (i + 1) >= mml:
                if not use_last:
                    init = last_h
            else:
                init = out(i + 1)
            init, last = last, init
    return offsets


def _direction_forward(mode, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, mask, min_len,
                       x_offset=0, h_offsets=None, w_offsets=(0, 0)):
    """One layer, one direction. Returns (out (T, B, H), last h, last c, saved dict).
    ``x_offset``, ``h_offsets``, ``w_offsets`` (W_ih's, W_hh's): where the input, each step's
    previous hidden state and the weights lie in Paddle's buffers (``_h_offsets``,
    ``_weight_offsets``; MKL's sums on AMD depend on them)."""
    steps, batch = x.shape[0], x.shape[1]
    hid = w_hh.shape[1]
    g = GATES[mode] * hid
    dt = x.dtype
    if h_offsets is None:
        h_offsets = [0] * steps
    pre = _mm_bt(np.ascontiguousarray(x.reshape(steps * batch, -1)), w_ih, x_offset,
                 w_offsets[0])
    pre = pre + b_ih
    if mode == "GRU":
        pre = pre + np.concatenate([b_hh[:2 * hid], np.zeros(hid, dt)])
    else:
        pre = pre + b_hh
    pre = pre.reshape(steps, batch, g)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    out = np.empty((steps, batch, hid), dt)
    gates = np.empty((steps, batch, g), dt)
    cells = np.empty((steps, batch, hid), dt) if mode in ("LSTM", "GRU") else None
    acts = np.empty((steps, batch, hid), dt) if mode == "LSTM" else None
    h = h0
    c = c0
    if mode == "GRU":
        # (the gates' product takes all of W_hh with the candidate rows zeroed, as the kernel)
        w_rz = np.concatenate([w_hh[:2 * hid], np.zeros((hid, hid), dt)])
        w_c = np.ascontiguousarray(w_hh[2 * hid:])
    for i, t in enumerate(order):
        gt = pre[t]
        h_off = h_offsets[i]
        if mode == "LSTM":
            gt = _mm_bt_acc(gt, h, w_hh, h_off, w_offsets[1])
            ig = _sigmoid_rows(gt[:, :hid])
            fg = _sigmoid_rows(gt[:, hid:2 * hid])
            cand = _tanh(gt[:, 2 * hid:3 * hid])
            og = _sigmoid_rows(gt[:, 3 * hid:])
            state = cand * ig
            state = state + c * fg
            act = _tanh(state)
            o = og * act
            gates[i] = np.concatenate([ig, fg, cand, og], axis=1)
            acts[i] = act
        elif mode == "GRU":
            gt = _mm_bt_acc(gt, h, w_rz, h_off)    # (W_hh's zeroed copy: a buffer of its own)
            ro = _mm_bt(h, w_c, h_off, w_offsets[1] + 2 * hid * hid)
            r = _sigmoid_rows(gt[:, :hid])
            z = _sigmoid_rows(gt[:, hid:2 * hid])
            ro = (ro + b_hh[2 * hid:]) * r
            cand = _tanh(gt[:, 2 * hid:] + ro)
            o = (1 - z) * cand
            o = o + z * h
            gates[i] = np.concatenate([r, z, cand], axis=1)
            state = ro
        else:
            gt = _mm_bt_acc(gt, h, w_hh, h_off, w_offsets[1])
            o = _tanh(gt) if mode == "RNN_TANH" else np.maximum(gt, np.zeros((), dt))
            gates[i] = gt
            state = None
        in_mask = mask is not None and (i <= steps - 1 - min_len if reverse else i >= min_len)
        if in_mask:
            m = mask[t][:, None]
            new_h = o * m + h * (1 - m)
            o = o * m
            if mode == "LSTM":
                state = state * m + c * (1 - m)
        else:
            new_h = o
        out[t] = o
        if mode == "LSTM":
            cells[i] = state
            c = state
        elif mode == "GRU":
            cells[i] = state
        h = new_h
    return out, h, c, {"gates": gates, "cells": cells, "acts": acts}


def _weight_offsets(ws):
    """Where each layer and direction's (W_ih, W_hh) lies in the one buffer Paddle's RNN layers
    copy their parameters into (``RNNBase.flatten_parameters``: every weight, in order, then
    the biases; no alignment), in floats from its start."""
    offs, pos = [], 0
    for k in range(len(ws) // 4):
        w_ih, w_hh = ws[4 * k], ws[4 * k + 1]
        offs.append((pos, pos + w_ih.size))
        pos += w_ih.size + w_hh.size
    return offs


def _apply_dropout(x, mask, p):
    """``x * mask / (1 - p)`` (Paddle's DropoutHelper; p == 1: ``0 * x``)."""
    if p == 1.0:
        return np.zeros((), x.dtype) * x
    return (x * mask.reshape(x.shape)) / x.dtype.type(np.float32(1.0) - np.float32(p))


def rnn_forward(*arrays, mode, num_layers, bidirect=False, dropout=0.0, seq_len=None,
                is_test=False):
    """Returns (out (T, B, D*H), h_n, [c_n], reserve) from arrays (x, h0, [c0], weights...,
    [drop]): ``drop`` is the dropout mask (1 keep, 0 drop) of the layers after the first, drawn
    by the caller (Paddle draws it once from its global generator, T*B*D*H uniform floats, and
    uses it for every such layer)."""
    dirs = 2 if bidirect else 1
    first_w = 3 if mode == "LSTM" else 2
    n_w = 4 * num_layers * dirs
    x, h0 = arrays[0], arrays[1]
    c0 = arrays[2] if mode == "LSTM" else None
    ws = arrays[first_w:first_w + n_w]
    drop = arrays[first_w + n_w] if len(arrays) > first_w + n_w else None
    steps, batch = x.shape[0], x.shape[1]
    hid = h0.shape[-1]
    mask, min_len = (None, steps) if seq_len is None else \
        _mask_matrix(seq_len, steps, batch, x.dtype)
    saved = []
    w_offs = _weight_offsets(ws)
    hn = np.empty_like(h0)
    cn = np.empty_like(c0) if c0 is not None else None
    layer_in = x
    hiddens = []
    for layer in range(num_layers):
        if layer > 0:
            hiddens.append(layer_in)
            if drop is not None:
                layer_in = _apply_dropout(layer_in, drop, dropout)
        outs = []
        # where Paddle's buffers put this layer's input and outputs (``RnnFunc``): layers
        # but the last write their output into the reserve, after the gates and cells
        block = dirs * steps * batch * hid
        hidden_start = {"LSTM": 6, "GRU": 4}.get(mode, 1) * num_layers
        x_off = 0 if layer == 0 or drop is not None else (hidden_start + layer - 1) * block
        out_base = (hidden_start + layer) * block if dirs == 1 and layer < num_layers - 1 else 0
        for d in range(dirs):
            k = layer * dirs + d
            w_ih, w_hh, b_ih, b_hh = ws[4 * k:4 * k + 4]
            h_offs = _h_offsets(steps, batch * hid, out_base, k * batch * hid, min_len, d == 1)
            o, h, c, sv = _direction_forward(mode, layer_in, w_ih, w_hh, b_ih, b_hh, h0[k],
                                             c0[k] if c0 is not None else None, d == 1, mask,
                                             min_len, x_off, h_offs, w_offs[k])
            hn[k] = h
            if cn is not None:
                cn[k] = c
            outs.append(o)
            saved.append(sv)
        layer_in = outs[0] if dirs == 1 else np.concatenate(outs, axis=-1)
    out = layer_in
    parts = []
    for sv in saved:
        parts += [sv["gates"]] + ([sv["cells"]] if sv["cells"] is not None else []) + \
            ([sv["acts"]] if sv["acts"] is not None else [])
    parts += hiddens
    reserve = np.concatenate([p.reshape(-1) for p in parts]) if parts else np.zeros(0, x.dtype)
    # (GRU and SimpleRNN: an empty third output keeps the op's four outputs)
    return out, hn, cn if mode == "LSTM" else np.zeros(0, x.dtype), reserve


def _unpack(reserve, mode, num_layers, dirs, steps, batch, hid):
    g = GATES[mode] * hid
    pos = 0

    def take(shape):
        nonlocal pos
        n = int(np.prod(shape))
        a = reserve[pos:pos + n].reshape(shape)
        pos += n
        return a
    saved = []
    for _ in range(num_layers * dirs):
        sv = {"gates": take((steps, batch, g))}
        sv["cells"] = take((steps, batch, hid)) if mode in ("LSTM", "GRU") else None
        sv["acts"] = take((steps, batch, hid)) if mode == "LSTM" else None
        saved.append(sv)
    hiddens = [take((steps, batch, dirs * hid)) for _ in range(num_layers - 1)]
    return saved, hiddens


# ------------------------------------------------------------------------------ backward
def _direction_backward(mode, x, out, w_ih, w_hh, h0, c0, sv, dout, dh_last, dc_last,
                        reverse, mask, dx, h0_grad_off=None):
    """One layer, one direction, back through time. ``dx`` (T*B, I) is accumulated into
    (beta = 1). Returns (dx, dW_ih, dW_hh, db_ih, db_hh, dh0, dc0). ``h0_grad_off``: where this
    direction's slice of h0's gradient lies when Paddle computes one (None: it does not): the
    kernel's previous-hidden gradient alternates between that slice and a buffer of its own
    (``run_rnn_grad_function``'s pointer swap), and the product's sums depend on where C is."""
    steps, batch = x.shape[0], x.shape[1]
    hid = w_hh.shape[1]
    g = GATES[mode] * hid
    dt = x.dtype
    order = list(range(steps - 1, -1, -1)) if reverse else list(range(steps))
    gg = np.zeros((steps, batch, g), dt)
    dw_hh = np.zeros_like(w_hh)
    db_hh = np.zeros(g, dt) if mode == "GRU" else None
    lh = dh_last.copy()
    lc = dc_last.copy() if mode == "LSTM" else None
    gates, cells, acts = sv["gates"], sv["cells"], sv["acts"]
    for i in range(steps - 1, -1, -1):
        t = order[i]
        c_off = h0_grad_off if h0_grad_off is not None and (steps - 1 - i) % 2 == 0 else 0
        if mask is not None:
            m = mask[t][:, None]
            lh = lh + dout[t] * m
            pre_h_bak = (1 - m) * lh
            lh = m * lh
            if mode == "LSTM":
                pre_c_bak = (1 - m) * lc
                lc = m * lc
        else:
            lh = lh + dout[t]
        hidden = out[t]
        if i == 0:
            prev_h = h0
            prev_c = c0
        else:
            # Paddle takes the previous step's *output* here, which is zero where that step was
            # past a sequence's end, not the state carried over it: in a reverse direction with
            # sequence_length the first step inside a shorter sequence then sees 0 for h_prev
            # where its forward used h0 (measured: Paddle 3.3.1's gradients are these)
            prev_h = out[order[i - 1]]
            prev_c = cells[i - 1] if mode == "LSTM" else None
        if mode == "LSTM":
            gt = gates[i]
            ig, fg, cand, og = gt[:, :hid], gt[:, hid:2 * hid], gt[:, 2 * hid:3 * hid], \
                gt[:, 3 * hid:]
            act = acts[i]
            g_o = _sig_grad(og, lh * act)
            lc = lc + (lh * og) * (1 - act * act)
            g_c = _tanh_grad(cand, lc * ig)
            g_i = _sig_grad(ig, lc * cand)
            g_f = _sig_grad(fg, lc * prev_c)
            pre_c = lc * fg
            gs = np.concatenate([g_i, g_f, g_c, g_o], axis=1)
            gg[t] = gs
            pre_h = _mm_plain(gs, w_hh, c_off)
            if mask is not None:
                pre_h = (1 - m) * pre_h_bak + pre_h * m
                pre_c = (1 - m) * pre_c_bak + pre_c * m
            dw_hh = _mm_ta_acc(dw_hh, gs, prev_h)
            lc = pre_c
        elif mode == "GRU":
            gt = gates[i]
            r, z, cand = gt[:, :hid], gt[:, hid:2 * hid], gt[:, 2 * hid:]
            ro = cells[i]
            g_z = _sig_grad(z, (prev_h - cand) * lh)
            pre_h = np.zeros((), dt) + lh * z
            g_c = _tanh_grad(cand, lh * (1 - z))
            g_r = _sig_grad(r, (ro / r) * g_c)
            ro_grad = r * g_c
            gg[t] = np.concatenate([g_r, g_z, g_c], axis=1)
            pre_h = _mm_plain_acc(pre_h, g_r, w_hh[:hid], c_off)
            pre_h = _mm_plain_acc(pre_h, g_z, w_hh[hid:2 * hid], c_off)
            pre_h = _mm_plain_acc(pre_h, ro_grad, w_hh[2 * hid:], c_off)
            # (the three blocks of one gradient buffer: C at 0, H*H and 2*H*H floats)
            dw_hh[:hid] = _mm_ta_acc(dw_hh[:hid], g_r, prev_h)
            dw_hh[hid:2 * hid] = _mm_ta_acc(dw_hh[hid:2 * hid], g_z, prev_h, hid * hid)
            dw_hh[2 * hid:] = _mm_ta_acc(dw_hh[2 * hid:], ro_grad, prev_h, 2 * hid * hid)
            rows = np.concatenate([db_hh[None, :], np.concatenate([gg[t][:, :2 * hid], ro_grad],
                                                                   axis=1)])
            db_hh = _colsum(rows)
            if mask is not None:
                pre_h = (1 - m) * pre_h_bak + pre_h * m
        else:
            if mode == "RNN_TANH":
                dz = _tanh_grad(hidden, lh)
            else:
                dz = lh * (hidden > 0).astype(dt)
            gg[t] = dz
            pre_h = _mm_plain(dz, w_hh, c_off)
            if mask is not None:
                pre_h = (1 - m) * pre_h_bak + pre_h * m
            dw_hh = _mm_ta_acc(dw_hh, dz, prev_h)
        lh = pre_h
    flat = gg.reshape(steps * batch, g)
    xf = x.reshape(steps * batch, -1)
    dw_ih = _mm_ta(flat, xf)
    dx = _mm_plain_acc(dx, flat, w_ih)
    db_ih = _colsum(flat)
    if mode != "GRU":
        db_hh = _colsum(flat)
    return dx, dw_ih, dw_hh, db_ih, db_hh, lh, lc


def rnn_backward(*arrays, mode, num_layers, bidirect=False, dropout=0.0, seq_len=None,
                 is_test=False, h0_grad=False):
    """From (x, h0, [c0], weights..., [drop], out, reserve, d_out, d_hn, [d_cn]): the
    gradients of (x, h0, [c0], weights...). ``h0_grad``: h0 takes a gradient (Paddle's kernel
    then writes into its slices, which moves some products' C)."""
    dirs = 2 if bidirect else 1
    lstm = mode == "LSTM"
    first_w = 3 if lstm else 2
    n_w = 4 * num_layers * dirs
    x, h0 = arrays[0], arrays[1]
    c0 = arrays[2] if lstm else None
    ws = arrays[first_w:first_w + n_w]
    rest = arrays[first_w + n_w:]
    drop = None
    if len(rest) == (6 if lstm else 5):
        drop, rest = rest[0], rest[1:]
    out, reserve, d_out, d_hn = rest[:4]
    d_cn = rest[4] if lstm else None
    steps, batch = x.shape[0], x.shape[1]
    hid = h0.shape[-1]
    dt = x.dtype
    mask = None if seq_len is None else _mask_matrix(seq_len, steps, batch, dt)[0]
    saved, hiddens = _unpack(reserve, mode, num_layers, dirs, steps, batch, hid)
    dws = [None] * n_w
    dh0 = np.zeros_like(h0)
    dc0 = np.zeros_like(c0) if lstm else None
    layer_dout = d_out
    dx = None
    for layer in range(num_layers - 1, -1, -1):
        if layer > 0:
            layer_in = hiddens[layer - 1]
            if drop is not None:
                layer_in = _apply_dropout(layer_in, drop, dropout)
        else:
            layer_in = x
        layer_out = out if layer == num_layers - 1 else hiddens[layer]
        dx = np.zeros((steps * batch, layer_in.shape[-1]), dt)
        for d in range(dirs):
            k = layer * dirs + d
            w_ih, w_hh = ws[4 * k], ws[4 * k + 1]
            sl = slice(d * hid, (d + 1) * hid)
            dx, dw_ih, dw_hh, db_ih, db_hh, gh0, gc0 = _direction_backward(
                mode, layer_in, np.ascontiguousarray(layer_out[..., sl]), w_ih, w_hh, h0[k],
                c0[k] if lstm else None, saved[k], np.ascontiguousarray(layer_dout[..., sl]),
                d_hn[k], d_cn[k] if lstm else None, d == 1, mask, dx,
                k * batch * hid if h0_grad else None)
            dws[4 * k:4 * k + 4] = [dw_ih, dw_hh, db_ih, db_hh]
            dh0[k] = gh0
            if lstm:
                dc0[k] = gc0
        dx = dx.reshape(layer_in.shape)
        if layer > 0 and drop is not None:
            dx = _apply_dropout(dx, drop, dropout)
        layer_dout = dx
    return (dx, dh0) + ((dc0,) if lstm else ()) + tuple(dws)


# ------------------------------------------------------------------------------ the ops
def _rnn_vjp(n, *grads):
    """The gradients of (x, h0, [c0], weights..., [drop]) by ``rnn_grad`` (Paddle's kernel).
    After a forward in eval mode (``is_test``) Paddle's kernel kept nothing to go back with."""
    if n.attrs.get("is_test"):
        raise RuntimeError(
            "(PreconditionNotMet) Tensor holds no memory. Call Tensor::mutable_data firstly.\n"
            "  [Hint: holder_ should not be null.] (at "
            "/paddle/paddle/phi/core/dense_tensor_impl.cc:38)\n")
    k = 3 if n.attrs["mode"] == "LSTM" else 2
    inputs = tuple(n.inputs)
    out = n.out(0)
    reserve = out._wrap(n.out_data[3], True)
    args = inputs + (out, reserve) + tuple(grads[:k])
    attrs = n.attrs if inputs[1].stop_gradient else dict(n.attrs, h0_grad=True)
    res = apply(RNN_GRAD, args, attrs)
    res = tuple(res)
    return res + (None,) * (len(inputs) - len(res))


def _rnn_grad_fwd(*arrays, **attrs):
    return rnn_backward(*arrays, **attrs)


def _cell_shapes(g, i, h):
    return [(g * h, i), (g * h, h), (g * h,), (g * h,)]


RNN = register(
    "rnn", rnn_forward, _rnn_vjp, n_outputs=4, legacy_name="RnnBackward",
    diff_outputs=(0, 1, 2), second_order=False,
    examples=[([(3, 2, 4), (1, 2, 3), (1, 2, 3)] + _cell_shapes(4, 4, 3),
               {"mode": "LSTM", "num_layers": 1}),
              ([(3, 2, 4), (1, 2, 3), (1, 2, 3)] + _cell_shapes(4, 4, 3),
               {"mode": "LSTM", "num_layers": 1, "seq_len": (3, 2)}),
              ([(3, 2, 4), (1, 2, 3)] + _cell_shapes(3, 4, 3), {"mode": "GRU", "num_layers": 1}),
              ([(2, 2, 4), (4, 2, 3)] + _cell_shapes(1, 4, 3) * 2 + _cell_shapes(1, 6, 3) * 2,
               {"mode": "RNN_TANH", "num_layers": 2, "bidirect": True}),
              ([(3, 1, 2), (2, 1, 3)] + _cell_shapes(3, 2, 3) * 2,
               {"mode": "GRU", "num_layers": 1, "bidirect": True})])
# (no example of a reverse direction with sequence_length: there Paddle's gradient is not the
# derivative, see ``_direction_backward``, and this op gives Paddle's)
# (its outputs: one gradient per input of rnn; no double grad, as in Paddle)
RNN_GRAD = register("rnn_grad", _rnn_grad_fwd, None, n_outputs=2, check=False)


def rnn(x, h0, c0, weights, *, mode, num_layers, bidirect=False, dropout=0.0, training=True,
        seq_len=None, drop_mask=None):
    """Paddle's fused rnn op on time-major ``x`` (T, B, I): ``(out, h_n, c_n)`` (``c_n`` None but
    for LSTM). ``weights``: per layer and direction ``w_ih, w_hh, b_ih, b_hh``; ``drop_mask``:
    the dropout mask of the layers after the first (a tensor of T*B*D*H ones and zeros)."""
    attrs = {"mode": mode, "num_layers": num_layers}
    if bidirect:
        attrs["bidirect"] = True
    if drop_mask is not None:
        attrs["dropout"] = float(dropout)
    if seq_len is not None:
        attrs["seq_len"] = tuple(int(v) for v in np.asarray(seq_len).reshape(-1))
    if not training:
        attrs["is_test"] = True
    inputs = (x, h0) + ((c0,) if mode == "LSTM" else ()) + tuple(weights) + \
        ((drop_mask,) if drop_mask is not None else ())
    res = apply(RNN, inputs, attrs)
    if mode == "LSTM":
        return res[0], res[1], res[2]
    return res[0], res[1], None
