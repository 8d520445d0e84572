"""Fast forms of kernels against their plain forms, bit for bit: ``avx_sum`` (Paddle's
vec_sum<float, avx>, used by the last-axis softmax) against a replay of its eight lane
accumulators; relu's forward against numpy's maximum with a scalar."""
from __future__ import annotations

import numpy as np
import pytest

from gradrepl.engine.ops.nn import avx_sum


def _reference(row):
    """One row, as the AVX code adds it: lanes, the hadd/permute/hadd fold, then the tail."""
    f = np.float32
    n = row.size
    if n < 8:
        s = row[0]
        for v in row[1:]:
            s = f(s + v)
        return s
    end = n - n % 8
    lanes = [f(f(0) + row[j]) for j in range(8)]
    for i in range(8, end, 8):
        lanes = [f(lanes[j] + row[i + j]) for j in range(8)]
    h = [f(lanes[2 * j] + lanes[2 * j + 1]) for j in range(4)]
    s = f(f(h[0] + h[2]) + f(h[1] + h[3]))
    for v in row[end:]:
        s = f(s + v)
    return s


@pytest.mark.parametrize("shape", [(5,), (8,), (13,), (4, 3), (4, 8), (6, 10), (3, 17), (5, 32),
                                   (4, 33), (3, 100), (2, 3, 24), (2, 2, 41), (1, 1000)])
def test_avx_sum_equals_the_lane_replay(shape):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape)).astype(np.float32)
    x.reshape(-1)[:2] = -0.0
    got = avx_sum(x)
    rows = x.reshape(-1, shape[-1])
    want = np.array([_reference(r) for r in rows], np.float32).reshape(shape[:-1] + (1,))
    assert got.shape == want.shape and got.dtype == np.float32
    assert (got.view(np.uint32) == want.view(np.uint32)).all()


def test_avx_sum_does_not_write_its_input():
    x = np.arange(40, dtype=np.float32).reshape(2, 20)
    before = x.copy()
    avx_sum(x)
    assert (x == before).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(3, 16), (2, 3, 40), (300,), (5,), (4, 7)])
def test_relu_forward_matches_maximum_with_a_scalar(shape, dtype):
    """relu's forward (a row of zeros broadcast, for speed) gives the bits of np.maximum(x, 0),
    signed zeros, infinities and nan payloads included."""
    from gradrepl.engine.ops.math import _relu_fwd
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    special = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf], dtype)
    flat[: min(flat.size, 6)] = special[: min(flat.size, 6)]
    got, want = _relu_fwd(x), np.maximum(x, 0).astype(dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


# ---------------------------------------------------------------- the training loss's lean path
def _plain_softmax_ce(x, label):
    from gradrepl.engine.ops import nn

    sm = nn.softmax_kernel(x, 1)
    return sm, nn.cross_entropy_kernel(sm, label, False, -100, 1)


@pytest.mark.parametrize("classes", [2, 3, 7, 8, 10, 15, 16, 17, 24, 31, 32])
def test_lean_softmax_cross_entropy_equals_the_plain_kernels(classes):
    """``_ce_rows`` (numexpr, classes-first) gives the plain kernels' bits: logits of every
    magnitude, shifts below -64, NaN, +-inf, -0 and huge values included."""
    from gradrepl.engine.ops import nn

    pytest.importorskip("numexpr")
    if nn._lean_programs(classes) is None:
        pytest.skip("numexpr's exp/log are not the C library's here")
    rng = np.random.default_rng(classes)
    for trial in range(12):
        rows = int(rng.integers(16, 300))
        scale = [0.01, 1.0, 5.0, 40.0, 300.0][trial % 5]
        x = (rng.standard_normal((rows, classes)) * scale).astype(np.float32)
        if trial % 3 == 0:
            x.reshape(-1)[rng.integers(0, x.size, 4)] = [np.nan, np.inf, -np.inf, -0.0]
        if trial % 4 == 1:
            x[:, 0] = 3e38
        label = rng.integers(0, classes, (rows, 1))
        got = nn._ce_rows(x, label, -100)
        want = _plain_softmax_ce(x, label)
        assert got is not None
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype and g.flags.c_contiguous
            assert g.tobytes() == w.tobytes(), (rows, classes, trial)


def test_lean_cross_entropy_leaves_unusual_labels_to_the_plain_path():
    """An ignored label, a label out of range (Paddle's error) or a soft label take the
    general path; the op's outputs are the same either way."""
    from gradrepl.engine.ops import nn

    rng = np.random.default_rng(3)
    x = rng.standard_normal((20, 10)).astype(np.float32)
    label = rng.integers(0, 10, (20, 1))
    label[3] = -100
    assert nn._ce_rows(x, label, -100) is None
    assert nn._ce_rows(x, label.clip(0), 4) is None or not (label.clip(0) == 4).any()
    sm, loss = nn._ce_softmax_fwd(x, label)
    assert loss[3, 0] == 0 and sm.tobytes() == nn.softmax_kernel(x, 1).tobytes()
    label[3] = 10
    with pytest.raises(IndexError, match="less than the shape of axis dimension"):
        nn._ce_softmax_fwd(x, label)
    label[3] = -1
    with pytest.raises(IndexError, match="should >= 0"):
        nn._ce_softmax_fwd(x, label)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1,), (7,), (8,), (9,), (5, 3), (256, 1), (1, 257), (64, 64),
                                   (300, 301)])
def test_mean_over_every_axis_equals_paddles_packet_order(shape, dtype):
    """The mean op's short form over every axis gives ``paddle_reduce``'s bits: -0,
    magnitudes from 1e-3 to 1e3 and a tail past the last packet included."""
    from gradrepl.engine.ops import reduce as R

    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(dtype)
    x.reshape(-1)[:1] = -0.0
    axes = tuple(range(len(shape)))
    got = R.MEAN.forward(x, axes, False, ())
    want = R.paddle_reduce(x, axes, False, np.add, mean=True)
    assert got.shape == () and got.dtype == want.dtype and got.tobytes() == want.tobytes()
    kept = R.MEAN.forward(x, axes, True)
    assert kept.shape == (1,) * len(shape) and kept.tobytes() == want.tobytes()


def test_a_training_loss_takes_the_lean_path(monkeypatch):
    """F.cross_entropy on a (batch, classes) float32 batch with class-index labels runs
    ``_ce_rows``, not the general kernels (when numexpr's exp/log are the C library's)."""
    import gradrepl.paddle as paddle
    from gradrepl.engine.ops import nn

    if nn._lean_programs(10) is None:
        pytest.skip("numexpr's exp/log are not the C library's here")

    def general(*a, **k):
        raise AssertionError("the general softmax ran")

    monkeypatch.setattr(nn, "softmax_kernel", general)
    rng = np.random.default_rng(5)
    logits = paddle.to_tensor(rng.standard_normal((64, 10)).astype(np.float32),
                              stop_gradient=False)
    label = paddle.to_tensor(rng.integers(0, 10, (64, 1)))
    loss = paddle.nn.functional.cross_entropy(logits, label)
    loss.backward()
    assert logits.grad.shape == [64, 10]
