"""Paddle's float32 products on AMD (issue 28): the GEMMs with beta = 1 of the recurrent
backward, the recurrent forward's operand positions, and convolutions past the old 8M limit.

Real Paddle 3.3.1 and 2.6.2 compute with the MKL-ML they bundle (``paddle/libs/
libmklml_intel.so``, "2019.0.5"), which on an AMD CPU takes its generic kernels. gradrepl
emulates their summation order in numpy (``engine/ops/_mkl_generic.py``); the emulation itself
does not depend on the CPU it runs on, so these records run on any machine with the CPU class
forced to ``amd`` (as tests/test_paddle_rnn_bits.py does). What they were recorded from:

* ``GEMM_ACC``: sha256 prefixes of ``cblas_sgemm(..., beta=1)`` results of Paddle's own
  ``libmklml_intel.so`` (called with ctypes in a process of its own, no Paddle import) on this
  project's AMD EPYC Zen 4, inputs from numpy's seeded generator;
* ``RNN``, ``CONV``: sha256 prefixes (and a few values) of what real Paddle 3.3.1 and 2.6.2
  (the same bits from both) gave on that machine for the same inputs and weights.

Before this work 43 of 280 random LSTM/GRU/SimpleRNN configurations (1-2 layers, either
direction, sequence_length, batch 1-16, hidden 3-32) were equal to real Paddle there in all of
their outputs and gradients (81% of the values); after it 280 of 280, in 3.3.1 and 2.6.2; with
initial states taking gradients, dropout, time_major and 2-3 layers: 8 of 60 before, 140 of 140
after.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.engine.ops import _mkl_generic as G
from gradrepl.engine.ops import paddle_rnn as R


def _digest(arrays):
    data = b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)
    return hashlib.sha256(data).hexdigest()[:16]


@pytest.fixture
def amd(monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")


# ----------------------------------------------------------------- C += op(A) @ B, beta = 1
# (M, N, K, trans_a, C's offset in floats, extra leading dimension of A, seed) -> Paddle's
# libmklml_intel.so on AMD Zen 4
GEMM_ACC = {
    (64, 16, 4, True, 0, 0, 1): "2757e33adba02c5c",     # LSTM weight_hh at batch 4 (K < 8)
    (48, 12, 5, True, 0, 0, 2): "a490dfc7982b4478",
    (12, 12, 8, True, 144, 24, 3): "6e0b1832033d99ad",  # GRU update-gate block of dW_hh
    (36, 29, 130, True, 7, 0, 4): "41782a1afe811a62",   # blocked, 2 blocks of K, C unaligned
    (8, 12, 12, False, 0, 24, 5): "285b7dd4f0655bab",   # GRU: dh_prev += G_r W_r
    (42, 19, 40, False, 3, 0, 6): "244afd59a590a75b",   # dX += G W_ih
    (7, 7, 30, False, 5, 0, 7): "e715f7b9cd2ca93a",     # not blocked, unaligned row heads
    (13, 9, 250, True, 2, 0, 8): "8a180f06c76336f1",
}


def _operands(m, n, k, seed):
    r = np.random.default_rng(seed)
    a = r.standard_normal((m, k)).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    c = r.standard_normal((m, n)).astype(np.float32)
    return a, b, c


@pytest.mark.parametrize("case", sorted(GEMM_ACC), ids=str)
def test_sgemm_beta_one_is_paddles_mkl(case):
    m, n, k, trans_a, c_off, _lda_extra, seed = case   # (the leading dimension does not count)
    a, b, c = _operands(m, n, k, seed)
    assert _digest([G.sgemm_acc(c, a, b, trans_a, c_off)]) == GEMM_ACC[case]


def test_sgemm_beta_one_is_not_c_plus_product():
    # the rule the backward used before (the product summed, then added to C) gave other bits:
    # 46% of this product's elements differ from Paddle's library
    a, b, c = _operands(64, 16, 4, 1)
    assert _digest([c + G.sgemm(a, b, trans_a=True)]) != GEMM_ACC[(64, 16, 4, True, 0, 0, 1)]


def test_sgemm_beta_one_small_k_is_one_running_sum_from_c():
    # K < 8: C first, then every product added in order (independent computation)
    a, b, c = _operands(9, 10, 5, 11)
    want = c.copy()
    for i in range(5):
        want = want + np.multiply(a[:, i, None], b[None, i, :], dtype=np.float32)
    got = G.sgemm_acc(c, a, b, False)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_sums_of_negative_zero_products_are_positive_zero():
    # Paddle's kernels start their sums from +0 (measured): a row of zeros times negative values
    a = np.zeros((9, 20), np.float32)
    b = -np.ones((20, 19), np.float32)
    out = G.sgemm(a, b)
    assert not np.signbit(out).any()
    acc = G.sgemm_acc(np.full((9, 19), -0.0, np.float32), a, b)   # blocked: C + (+0 blocks)
    assert not np.signbit(acc[:8, :16]).any()


# ----------------------------------------------------------------- where h lies, step by step
def test_h_offsets_follow_the_kernels_holders():
    # forward direction, no sequence_length: h0's copy, then the previous step's output
    assert R._h_offsets(4, 30, 0, 0, 4, False) == [0, 0, 30, 60]
    # reverse: outputs are walked from the last time step
    assert R._h_offsets(3, 25, 0, 0, 3, True) == [0, 50, 25]
    # forward with a shorter sequence (min length 2): past it the holders swap with last_h
    offs = R._h_offsets(5, 10, 100, 7, 2, False)
    assert offs[:3] == [0, 100, 110] and offs[3] == 7


def test_weight_offsets_follow_flatten_parameters():
    # Paddle's RNNBase.flatten_parameters: every (W_ih, W_hh) in order, then the biases
    ws = [np.zeros(s, np.float32) for s in [(15, 8), (15, 5), (15,), (15,)] * 2]
    assert R._weight_offsets(ws) == [(0, 120), (195, 315)]


# ----------------------------------------------------------------- recurrent layers end to end
def _rnn_case(mode, i, h, t, b, layers, bidirect, lens, seed, act="tanh"):
    rng = np.random.default_rng(seed)
    kw = dict(num_layers=layers, direction="bidirect" if bidirect else "forward")
    if mode == "LSTM":
        m = paddle.nn.LSTM(i, h, **kw)
    elif mode == "GRU":
        m = paddle.nn.GRU(i, h, **kw)
    else:
        m = paddle.nn.SimpleRNN(i, h, activation=act, **kw)
    for p in m.parameters():
        p.set_value((rng.standard_normal(p.shape) * 0.4).astype("float32"))
    x = paddle.to_tensor(rng.standard_normal((b, t, i)).astype("float32"), stop_gradient=False)
    w = paddle.to_tensor(rng.standard_normal((b, t, h * (2 if bidirect else 1))).astype("float32"))
    if lens is not None:
        out, st = m(x, sequence_length=paddle.to_tensor(np.array(lens, "int64")))
    else:
        out, st = m(x)
    hn = st[0] if mode == "LSTM" else st
    ((out * w).sum() + hn.sum() * 0.5).backward()
    arrays = [out.numpy(), x.grad.numpy()] + [p.grad.numpy() for p in m.parameters()]
    return (_digest(arrays), float(out.numpy().reshape(-1)[-1]),
            float(m.parameters()[1].grad.numpy().reshape(-1)[-1]))


# name -> (args, (digest of out, x.grad and every parameter's grad, out[-1], weight_hh.grad[-1]))
# from real Paddle 3.3.1 and 2.6.2 on AMD Zen 4
RNN = {
    "lstm_crnn_b4": (("LSTM", 64, 16, 6, 4, 1, True, None, 1),
                     ("46ef344332cac2ec", 0.0346284881234169, 0.1411159485578537)),
    "lstm_b5_h12_2layers": (("LSTM", 3, 12, 6, 5, 2, False, None, 2),
                            ("22a2e0096ba1e03e", 0.03615620359778404, 0.03200225904583931)),
    "gru_b8_h12_len": (("GRU", 8, 12, 6, 8, 1, False, [5, 4, 4, 4, 5, 3, 4, 5], 3),
                       ("ef91457c593d2aa0", -0.0, 0.6397995352745056)),
    "rnn_tanh_b6_h5": (("RNN", 18, 5, 7, 6, 1, False, None, 5),
                       ("100c606bdf33cf0d", -0.22524189949035645, -1.8781660795211792)),
    "rnn_relu_b4_h32_bi": (("RNN", 19, 32, 5, 4, 2, True, None, 6, "relu"),
                           ("01746c6846ebc529", 22.77876091003418, 127.1634750366211)),
    "gru_b1_h16_2layers": (("GRU", 16, 16, 5, 1, 2, False, None, 7),
                           ("7254f07c19ca76e5", 0.12518206238746643, -0.12973354756832123)),
    # the reverse direction's W_ih lies at 195 floats in the layer's one weight buffer: the
    # input projection's remaining rows depend on it
    "gru_h5_bi_2layers_len": (("GRU", 7, 5, 3, 9, 2, True, [3, 1, 2, 3, 3, 2, 1, 3, 2], 4),
                              ("e101c70fef828995", -0.0, -0.2552587687969208)),
}


@pytest.mark.usefixtures("profile", "amd")
@pytest.mark.parametrize("name", sorted(RNN))
def test_rnn_outputs_and_gradients_as_paddle_amd(name):
    args, want = RNN[name]
    assert _rnn_case(*args) == want


# ----------------------------------------------------------------- convolution past 8M
@pytest.mark.usefixtures("profile", "amd")
def test_lenet_conv2_batch8_as_paddle_amd():
    # /tmp/p6 s02's second convolution (28 -> 32 channels, 3x3, batch 8 of 15x15 maps: 10.9M
    # multiply-adds, past the former 8M limit where BLAS took over): forward, input gradient,
    # filter and bias gradients as real Paddle 3.3.1 / 2.6.2 on AMD Zen 4
    rng = np.random.default_rng(8)
    conv = paddle.nn.Conv2D(28, 32, 3)
    conv.weight.set_value((rng.standard_normal(conv.weight.shape) * 0.2).astype("float32"))
    conv.bias.set_value(rng.standard_normal(conv.bias.shape).astype("float32"))
    x = paddle.to_tensor(rng.standard_normal((8, 28, 15, 15)).astype("float32"),
                         stop_gradient=False)
    y = conv(x)
    (y * paddle.to_tensor(rng.standard_normal(y.shape).astype("float32"))).sum().backward()
    assert _digest([y.numpy()]) == "3aae8ccf53e749e0"
    assert _digest([x.grad.numpy()]) == "218b40312d69bdfd"
    assert _digest([conv.weight.grad.numpy(), conv.bias.grad.numpy()]) == "2b84e27cc8fe8fb1"


def test_bt_partials_main_part_is_a_running_sum_per_block():
    # independent computation of the blocked main part: per block of K (the last first), the
    # rounded products summed in order from the first
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 12, 130)).astype(np.float32)
    bt = rng.standard_normal((2, 16, 130)).astype(np.float32)
    (region, parts), = [r for r in G.sgemm_bt_partials(a, bt) if r[0] == (slice(0, 12),
                                                                           slice(0, 16))]
    for part, blk in zip(parts, [range(112, 130), range(0, 112)]):
        want = None
        for k in blk:
            p = np.multiply(a[..., :, k, None], bt[..., None, :, k], dtype=np.float32)
            want = p if want is None else want + p
        np.testing.assert_array_equal(part.view(np.int32), want.view(np.int32))


# ----------------------------------------------------------------- B transposed: last columns
# (M, N, K, A's offset in floats, beta, seed) -> Paddle's libmklml_intel.so on AMD Zen 4: the
# remaining rows' last N % 4 columns of a blocked product (read from the row's first 16-byte
# boundary; the second of them 4 lanes two vectors a round), a one-row product
BT = {
    (9, 10, 29, 3, 0, 1): "a48010ac581dafd3",
    (43, 14, 39, 7, 1, 2): "082c838c5985ceea",
    (19, 47, 34, 9, 0, 3): "07dd547033430703",
    (63, 15, 8, 0, 0, 4): "9cab43b2cc2918dd",     # a GRU's input projection (T*B 63, 3H 15)
    (1, 47, 27, 14, 1, 5): "6b42e716125aa9a5",
}


@pytest.mark.parametrize("case", sorted(BT), ids=str)
def test_sgemm_b_transposed_is_paddles_mkl(case):
    m, n, k, a_off, beta, seed = case
    r = np.random.default_rng(seed)
    a = r.standard_normal((m, k)).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    c = r.standard_normal((m, n)).astype(np.float32) if beta else np.zeros((m, n), np.float32)
    c = c.copy()
    for (rows, cols), parts in G.sgemm_bt_partials(a, np.ascontiguousarray(b.T),
                                                   np.array(a_off)):
        for part in parts:
            c[rows, cols] = part + c[rows, cols]
    assert _digest([c]) == BT[case]


# (N, C, M, k, H, W, stride, padding, seed) -> (out, x.grad, weight.grad) from real Paddle 3.3.1
# and 2.6.2 on AMD Zen 4: filter gradients whose rows (M % 4) and columns (C*k*k % 4) do not
# fill the kernel's blocks
CONV = {
    (11, 10, 39, 5, 16, 19, 2, 2, 1): ("e3bdf02156eadf0c", "ac6b0aa3dfce533e",
                                       "8f747cb9d6196113"),
    (4, 27, 19, 5, 15, 17, 1, 2, 2): ("dd424e40c8c2cf5e", "11054e4ddc95c3d7",
                                      "d64dab9ff433d3d8"),
}


@pytest.mark.usefixtures("profile", "amd")
@pytest.mark.parametrize("case", sorted(CONV), ids=str)
def test_conv_filter_gradient_remaining_rows_as_paddle_amd(case):
    n, c, m, k, h, w, s, p, seed = case
    rng = np.random.default_rng(seed)
    conv = paddle.nn.Conv2D(c, m, k, stride=s, padding=p)
    conv.weight.set_value((rng.standard_normal(conv.weight.shape) * 0.2).astype("float32"))
    conv.bias.set_value(rng.standard_normal(conv.bias.shape).astype("float32"))
    x = paddle.to_tensor(rng.standard_normal((n, c, h, w)).astype("float32"),
                         stop_gradient=False)
    y = conv(x)
    (y * paddle.to_tensor(rng.standard_normal(y.shape).astype("float32"))).sum().backward()
    assert (_digest([y.numpy()]), _digest([x.grad.numpy()]),
            _digest([conv.weight.grad.numpy()])) == CONV[case]


# (M, N, K, A's offset, B's offset, beta, seed) -> Paddle's libmklml_intel.so on AMD Zen 4: in
# the remaining rows the 4-lane columns read 1-4 products apart so that the vectors end where
# B's row ends, so B's position counts there (ignoring it: 4-8% of these elements differ)
BT_B_OFFSET = {
    (55, 35, 70, 13, 3, 0, 6): "a1b54173d609b5ad",
    (14, 12, 53, 10, 15, 1, 7): "477eb29680258392",
    (18, 15, 8, 0, 3, 0, 8): "30de2424ca00a4b6",    # a GRU's reverse W_ih (at 195 floats)
}


@pytest.mark.parametrize("case", sorted(BT_B_OFFSET), ids=str)
def test_sgemm_b_transposed_b_offset_is_paddles_mkl(case):
    m, n, k, a_off, b_off, beta, seed = case
    r = np.random.default_rng(seed)
    a = r.standard_normal((m, k)).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    c = r.standard_normal((m, n)).astype(np.float32) if beta else np.zeros((m, n), np.float32)
    c = c.copy()
    for (rows, cols), parts in G.sgemm_bt_partials(a, np.ascontiguousarray(b.T),
                                                   np.array(a_off), np.array(b_off)):
        for part in parts:
            c[rows, cols] = part + c[rows, cols]
    assert _digest([c]) == BT_B_OFFSET[case]


# ----------------------------------------------------------------- h0 taking a gradient
# With h0 needing a gradient Paddle's backward writes the previous hidden state's gradient
# alternately into h0's gradient (layer k's slice at k*B*H floats) and a buffer of its own, and
# G @ W_hh's sums depend on where that C lies. Digest of h0.grad, x.grad and every parameter's
# gradient from real Paddle 3.3.1 and 2.6.2 on AMD Zen 4.
H0_GRAD = {
    ("LSTM", 2, 5, 3, 9, 3, False, 11): "0bd0cc13b7c9f67e",
    ("GRU", 6, 7, 4, 5, 2, True, 12): "6bf0084c2f619b59",
    ("RNN", 4, 6, 5, 3, 2, False, 13): "2cd5c13f80713aef",
}


@pytest.mark.usefixtures("profile", "amd")
@pytest.mark.parametrize("case", sorted(H0_GRAD), ids=str)
def test_rnn_with_h0_gradient_as_paddle_amd(case):
    mode, i, h, t, b, layers, bidirect, seed = case
    rng = np.random.default_rng(seed)
    kw = dict(num_layers=layers, direction="bidirect" if bidirect else "forward")
    m = {"LSTM": paddle.nn.LSTM, "GRU": paddle.nn.GRU, "RNN": paddle.nn.SimpleRNN}[mode](i, h,
                                                                                        **kw)
    for p in m.parameters():
        p.set_value((rng.standard_normal(p.shape) * 0.4).astype("float32"))
    d = 2 if bidirect else 1
    x = paddle.to_tensor(rng.standard_normal((b, t, i)).astype("float32"), stop_gradient=False)
    h0 = paddle.to_tensor(rng.standard_normal((layers * d, b, h)).astype("float32"),
                          stop_gradient=False)
    init = (h0, paddle.to_tensor(rng.standard_normal((layers * d, b, h)).astype("float32"))) \
        if mode == "LSTM" else h0
    w = paddle.to_tensor(rng.standard_normal((b, t, h * d)).astype("float32"))
    out, st = m(x, init)
    hn = st[0] if mode == "LSTM" else st
    ((out * w).sum() + hn.sum() * 0.5).backward()
    got = _digest([h0.grad.numpy(), x.grad.numpy()] + [p.grad.numpy() for p in m.parameters()])
    assert got == H0_GRAD[case]
