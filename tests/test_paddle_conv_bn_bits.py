"""Paddle's convolutions on AMD (issue 28): the summation order of the MKL Paddle bundles
(``engine/ops/_mkl_generic.py``), chosen by the CPU class ``amd`` on any machine (the rule is
numpy float32 arithmetic, the same bits everywhere), against digests real Paddle printed."""
import hashlib

import numpy as np
import pytest

import gradrepl.paddle as paddle
import gradrepl.paddle.nn.functional as F
from gradrepl.engine.ops import _mkl_generic as G


def _sha(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def _conv(xs, ws, pad, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) * 0.2).astype(np.float32)
    xt = paddle.to_tensor(x, stop_gradient=False)
    wt = paddle.to_tensor(w, stop_gradient=False)
    y = F.conv2d(xt, wt, padding=pad, groups=xs[1] // ws[1])
    dy = rng.standard_normal(y.shape).astype(np.float32)
    y.backward(paddle.to_tensor(dy))
    return y.numpy(), xt.grad.numpy(), wt.grad.numpy()


# Recorded this session from real Paddle 3.3.1 and 2.6.2 (the same digests) on an AMD EPYC
# Zen 4: the first 16 hex digits of sha256 over the float32 bytes of conv2d's output and input
# gradient, inputs as in _conv (numpy default_rng(seed): x, w * 0.2, then dy). Before this rule
# the first and third outputs and the third input gradient differed (the unfused chain over
# all of K; MKL's generic kernel cuts K > 112 in blocks and has its own order for the first
# elements of a row off a 16-byte boundary).
CASES = [
    ((8, 6, 14, 14), (8, 6, 5, 5), 2, 1, "6844b5c5b03fd250", "697ba6e1907fc429"),  # p02's conv2
    ((3, 5, 7, 7), (12, 5, 3, 3), 1, 2, "3b43f04b1f2bbc91", "e51aec8b0705b57c"),
    ((2, 16, 9, 9), (8, 16, 3, 3), 1, 3, "83aec7794b7aa8b2", "cfcdebed0b2e00ac"),
    ((4, 3, 13, 13), (16, 3, 3, 3), 0, 4, "d34efafc7a852dbc", "cbb75b1ad4108e00"),
    ((2, 4, 6, 6), (10, 2, 3, 3), 1, 5, "a63b9e19522c32db", "e1ae160aa63826d1"),   # groups 2
]


@pytest.mark.parametrize("xs,ws,pad,seed,y_sha,dx_sha", CASES)
def test_conv2d_forward_and_input_grad_on_amd(xs, ws, pad, seed, y_sha, dx_sha, monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    y, dx, _ = _conv(xs, ws, pad, seed)
    assert (_sha(y), _sha(dx)) == (y_sha, dx_sha)


def _chain(a, b, ks, acc=None):
    for k in ks:
        p = (a[:, k:k + 1] * b[k:k + 1, :]).astype(np.float32)
        acc = p if acc is None else (acc + p).astype(np.float32)
    return acc


def test_blocked_product_cuts_k_at_112_last_block_first():
    # an independent computation of the rule for the main part (8 x 8 here): the block
    # 112..149 summed on its own, then the block 0..111 summed on its own and added to it
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 150)).astype(np.float32)
    b = rng.standard_normal((150, 8)).astype(np.float32)
    want = (_chain(a, b, range(112)) + _chain(a, b, range(112, 150))).astype(np.float32)
    got = G.sgemm(a, b)
    assert got.tobytes() == want.tobytes()
    assert got.tobytes() != _chain(a, b, range(150)).tobytes()   # (the plain chain differs)


def test_small_products_are_the_plain_chain_and_rows_off_alignment_take_the_scalar_order():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 20)).astype(np.float32)
    b = rng.standard_normal((20, 7)).astype(np.float32)
    got = G.sgemm(a, b)
    chain = _chain(a, b, range(20))
    # row 1 starts 7 floats in: its first element is summed as 0..3, + (4..7), 8..11, + (12..15),
    # then 16..19 one by one; every other element is the plain chain
    head = _chain(a[1:], b[:, :1], range(4))
    head = (head + _chain(a[1:], b[:, :1], range(4, 8))).astype(np.float32)
    head = _chain(a[1:], b[:, :1], range(8, 12), head)
    head = (head + _chain(a[1:], b[:, :1], range(12, 16))).astype(np.float32)
    head = _chain(a[1:], b[:, :1], range(16, 20), head)
    want = chain.copy()
    want[1, 0] = head[0, 0]
    assert got.tobytes() == want.tobytes()
    # C at an offset of 1 float: now row 0 has 3 such elements and row 1 none
    got1 = G.sgemm(a, b, offsets=np.array(1))
    assert got1[1].tobytes() == chain[1].tobytes()


def test_intel_class_keeps_its_chain(monkeypatch):
    # the rule is AMD's; the records' Intel class keeps the plain chain over K
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "intel-avx512")
    y, _, _ = _conv((8, 6, 14, 14), (8, 6, 5, 5), 2, 1)
    assert _sha(y) != CASES[0][4]


# The filter gradients of CASES (real Paddle 3.3.1 and 2.6.2 here, the same digests): per sample
# and group dW += dy @ cols^T with cols passed transposed (MKL's dot kernels: dy's rows read from
# their first 16-byte boundary, 4 or 8 lanes folded in halves); all five differed before.
DW_SHA = ["6445af8687a65948", "30705d29b160fc40", "d24c906fda95df7f", "890c1e0a4d8bafb7",
          "dc6938b2c58b7ddc"]


@pytest.mark.parametrize("case,dw_sha", list(zip(CASES, DW_SHA)))
def test_conv2d_filter_grad_on_amd(case, dw_sha, monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    xs, ws, pad, seed = case[:4]
    _, _, dw = _conv(xs, ws, pad, seed)
    assert _sha(dw) == dw_sha


# paddle.matmul(x, w) and its two gradients (dx = g @ w^T with w passed transposed, dw = x^T @ g
# with x passed transposed), numpy default_rng(seed): x (m, k), w (k, n), then g (m, n); digests
# from real Paddle 3.3.1 and 2.6.2 here (the same). Before: 2 outputs, 3 dx and 1 dw differed.
MATMUL_CASES = [
    ((8, 392, 10), 1, "6fe5739c53ffce6f", "1605371bc84e080f", "f460b9ba865ab249"),  # p02's fc
    ((13, 150, 21), 2, "5b548d06b736a2c1", "9b8421130f5eb7a1", "d7774ccca944b729"),
    ((33, 47, 9), 3, "1397c5d0394763ff", "d3ad4243803738d5", "51bd8716402595a3"),
    ((6, 300, 12), 4, "23c3561874126f08", "18227b60c0d161bc", "1d39fa6412a91750"),
]


@pytest.mark.parametrize("shape,seed,y_sha,dx_sha,dw_sha", MATMUL_CASES)
def test_matmul_and_grads_on_amd(shape, seed, y_sha, dx_sha, dw_sha, monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    m, k, n = shape
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((k, n)).astype(np.float32)
    xt = paddle.to_tensor(x, stop_gradient=False)
    wt = paddle.to_tensor(w, stop_gradient=False)
    y = paddle.matmul(xt, wt)
    y.backward(paddle.to_tensor(rng.standard_normal((m, n)).astype(np.float32)))
    assert (_sha(y.numpy()), _sha(xt.grad.numpy()), _sha(wt.grad.numpy())) == \
        (y_sha, dx_sha, dw_sha)


def test_dot_lanes_rule():
    # an independent computation of one transposed-B element: a row of A starting 1 float past a
    # 16-byte boundary: 3 products apart (into lane 0), 4 lanes over 4 whole vectors, folded as
    # (l0 + l2) + (l1 + l3), the 2 products after them one by one
    rng = np.random.default_rng(3)
    p = rng.standard_normal(21).astype(np.float32)
    lanes = [np.float32(np.float32(p[0] + p[1]) + p[2]), None, None, None]   # lane 0 holds the peel
    for t in range(4):
        for r in range(4):
            v = p[3 + 4 * t + r]
            lanes[r] = v if lanes[r] is None else np.float32(lanes[r] + v)
    total = np.float32(np.float32(lanes[0] + lanes[2]) + np.float32(lanes[1] + lanes[3]))
    total = np.float32(np.float32(total + p[19]) + p[20])
    assert G._dot_lanes(p[None, :], 3, 4)[0] == total


# BatchNorm2D in training, forward and backward (y, dx, dscale, dbias), inputs numpy
# default_rng(seed): x * 2 + 0.5, dy, the weight + 1; digests from real Paddle 3.3.1 and 2.6.2
# on this AMD machine (the same). The batch variance is Eigen's squaredNorm of the expression
# x - mean (summed from its start, no aligned head) and the backward is batch_norm_grad's Eigen
# arithmetic (dy's plane sums from its 32-byte boundary, dy * N * S rounded twice, ...); before,
# dx, dscale and dbias differed in all four (y in 11 of 30 random shapes measured, not in these).
# The class is chosen: the per-channel sqrt is the CPU's fast rsqrt (AMD's table here).
BN_CASES = [
    ((2, 3, 12, 7), 1, "3efeac512c278daf", "d73bafb845e18fb0", "cc38236d5e53f86c",
     "9c46017faf6f707a"),
    ((3, 7, 4, 3), 2, "75a6768bb47c1041", "082b709b9293f9d8", "c6735820a646b276",
     "8f5231bee5e0907c"),
    ((8, 6, 13, 9), 3, "67fc7df12e581c70", "64753b337b28362d", "a977d39624e5479b",
     "7d7f0bf403b51537"),
    ((4, 8, 8, 8), 4, "814e39dd8502fb6b", "e97770b66e85d121", "355a876cc77110dc",
     "fd70310d81536643"),
]


@pytest.mark.parametrize("shape,seed,y_sha,dx_sha,dw_sha,db_sha", BN_CASES)
def test_batch_norm_train_forward_and_grads_on_amd(shape, seed, y_sha, dx_sha, dw_sha, db_sha,
                                                   monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 2 + 0.5).astype("float32")
    dy = rng.standard_normal(shape).astype("float32")
    w = (rng.standard_normal(shape[1]) + 1).astype("float32")
    bn = paddle.nn.BatchNorm2D(shape[1])
    bn.weight.set_value(w)
    xt = paddle.to_tensor(x, stop_gradient=False)
    y = bn(xt)
    y.backward(paddle.to_tensor(dy))
    got = (_sha(y.numpy()), _sha(xt.grad.numpy()), _sha(bn.weight.grad.numpy()),
           _sha(bn.bias.grad.numpy()))
    assert got == (y_sha, dx_sha, dw_sha, db_sha)


def test_batch_norm_grad_of_grad_still_differentiates():
    # under create_graph the VJP stays the Tensor-op formula: a second derivative exists
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 2, 3, 3)).astype("float32"),
                         stop_gradient=False)
    bn = paddle.nn.BatchNorm2D(2)
    y = bn(x)
    (gx,) = paddle.grad([(y * y * y).sum()], [x], create_graph=True)
    (ggx,) = paddle.grad([gx.sum()], [x])
    assert ggx.shape == [2, 2, 3, 3] and np.isfinite(ggx.numpy()).all()
