"""Round seven of unseen Paddle lectures (helper P7FIX): what the measure-only round found.

* a Python ``range`` as a tensor index, read and written (Paddle's parse_index turns it into a
  list), as in d2l's ``bilinear_kernel`` (``weight[range(c), range(c), :, :] = filt``);

Literals were printed by real Paddle 3.3.1 (/work/vpaddle) and 2.6.2 (/work/vpaddle26) in this
session; no real Paddle is imported here.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from gradrepl.paddle import glog


# ================================================================ range as an index
def test_range_index_reads(profile):
    import gradrepl.paddle as paddle

    x = paddle.arange(24, dtype="float32").reshape([2, 3, 4])
    # recorded from real 3.3.1 and 2.6.2 (same on both)
    assert x[:, range(0, 3, 2), range(1, 3)].numpy().tolist() == [[1.0, 10.0], [13.0, 22.0]]
    assert list(x[range(1, -1, -1)].shape) == [2, 3, 4]
    assert list(x[range(0)].shape) == [0, 3, 4]
    assert x[..., range(3, 0, -1)].numpy()[1].tolist() == [[15.0, 14.0, 13.0],
                                                           [19.0, 18.0, 17.0],
                                                           [23.0, 22.0, 21.0]]
    np.testing.assert_array_equal(x[range(1, 2)].numpy(), x.numpy()[[1]])


def test_range_index_writes_and_gradients(profile):
    import gradrepl.paddle as paddle

    w = paddle.zeros([3, 3, 2, 2])
    w[range(3), range(3), :, :] = paddle.to_tensor([[1., 2.], [3., 4.]])
    assert w.sum().item() == 30.0
    assert w[1, 1].numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert w[0, 1].numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    a = paddle.to_tensor([1., 2., 3., 4.], stop_gradient=False)
    y = a * 1.0
    y[range(1, 3)] = 0.0
    (y * paddle.to_tensor([1., 2., 3., 4.])).sum().backward()
    assert y.numpy().tolist() == [1.0, 0.0, 0.0, 4.0]
    assert a.grad.numpy().tolist() == [1.0, 0.0, 0.0, 4.0]
    b = paddle.to_tensor([1., 2., 3., 4.], stop_gradient=False)
    (b[range(3)] * b[range(1, 4)]).sum().backward()
    assert b.grad.numpy().tolist() == [2.0, 4.0, 6.0, 3.0]


# ================================================================ gradient clipping sums
def _clipped(paddle, clip, shapes):
    """SGD(lr=1) on zero parameters with loss sum(p * c): the parameters become minus the
    clipped gradients c (the c drawn as the real-Paddle script drew them)."""
    rng = np.random.RandomState(4)
    out = []
    for shape in shapes:
        p = paddle.create_parameter(list(shape), "float32",
                                    default_initializer=paddle.nn.initializer.Constant(0.0))
        c = paddle.to_tensor(rng.randn(*shape).astype("float32") * 0.7)
        opt = paddle.optimizer.SGD(learning_rate=1.0, parameters=[p], grad_clip=clip)
        (p * c).sum().backward()
        opt.step()
        out.append(p.numpy())
    return out


@pytest.mark.parametrize("clip", ["ClipGradByNorm", "ClipGradByGlobalNorm"])
def test_clip_norm_sums_squares_in_eigen_order(profile, clip):
    import gradrepl.paddle as paddle

    p32, _, p7, _, p33 = _clipped(paddle, getattr(paddle.nn, clip)(clip_norm=1.0),
                                  [(32,), (2, 32), (7,), (64,), (33,)])
    # recorded from real 3.3.1 and 2.6.2 (the same for both clips and both versions); np.sum's
    # order gave -0.009397205, -0.092919044, 0.18509582 and 0.2610035, -0.009506567, 0.24814387
    assert p32[:3].tolist() == np.float32([-0.009397207, -0.09291905, 0.18509585]).tolist()
    assert p33[:3].tolist() == np.float32([0.26100352, -0.009506568, 0.2481439]).tolist()
    assert np.linalg.norm(p7.astype(np.float64)) == pytest.approx(1.0, rel=1e-6)


def test_clip_by_norm_scale_is_max_over_norm(profile):
    """Independent check: the clipped gradient is c * (1 / ||c||) with ||c|| from the float64
    sum (within float32 rounding), and an unclipped gradient is left as it is."""
    import gradrepl.paddle as paddle

    rng = np.random.RandomState(4)
    c = rng.randn(100).astype("float32") * 0.7
    (p,) = _clipped(paddle, paddle.nn.ClipGradByNorm(clip_norm=1.0), [(100,)])
    np.testing.assert_allclose(-p, c / np.linalg.norm(c.astype(np.float64)), rtol=2e-7, atol=0)
    (q,) = _clipped(paddle, paddle.nn.ClipGradByNorm(clip_norm=100.0), [(100,)])
    assert np.array_equal(-q, c)


def test_global_norm_mixed_float32_float64(profile):
    """Paddle sums the float32 squares, casts that sum to float64 and adds the float64 ones."""
    import gradrepl.paddle as paddle

    rng = np.random.RandomState(5)
    cs = [rng.randn(40).astype("float32"), rng.randn(30).astype("float64")]
    ps = [paddle.create_parameter([len(c)], str(c.dtype),
                                  default_initializer=paddle.nn.initializer.Constant(0.0))
          for c in cs]
    opt = paddle.optimizer.SGD(learning_rate=1.0, parameters=ps,
                               grad_clip=paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0))
    ((ps[0] * paddle.to_tensor(cs[0])).sum()
     + (ps[1] * paddle.to_tensor(cs[1])).sum().astype("float32")).backward()
    opt.step()
    norm = np.sqrt(sum(np.sum(c.astype(np.float64) ** 2) for c in cs))
    assert ps[1].numpy().dtype == np.float64
    np.testing.assert_allclose(-ps[1].numpy(), cs[1] / norm, rtol=1e-7)
    np.testing.assert_allclose(-ps[0].numpy(), cs[0] / norm, rtol=2e-7)
    # recorded from real 3.3.1 and 2.6.2
    assert ps[0].numpy()[:3].tolist() == [-0.05686384066939354, 0.042641375213861465,
                                          -0.31326916813850403]
    assert ps[1].numpy()[:3].tolist() == [0.03941725563939529, 0.06156833543771584,
                                          -0.012982781479727465]


# ================================================================ integer division glog line
_GLOG = re.compile(r"^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ([\w.]+:\d+)\] (.*)$")
_PROMO = ("dygraph_functions.cc:123772", "Got different data type, run type promotion "
          "automatically, this may cause data type been changed.")
_AUTO_SQRT = ("dygraph_functions.cc:104469", "math operation got integer input data type, run "
              "type autocast, this may cause data type been changed.")


def _logged(err):
    return [_GLOG.match(line).groups() for line in err.splitlines() if _GLOG.match(line)]


# (statement, what real 3.3.1 logged in a fresh process; real 2.6.2 logged nothing for each)
_INT_DIV = [
    ("c / c", [_PROMO]), ("paddle.divide(c, c)", [_PROMO]), ("c / paddle.to_tensor(2)", [_PROMO]),
    ("c.astype('uint8') / c.astype('uint8')", [_PROMO]), ("c / 2", []), ("t / t", []),
    ("c // c", []), ("x.std()", [_PROMO]), ("paddle.var(x, 1)", [_PROMO]),
    ("x.astype('float64').std(0)", [_PROMO]), ("c.var()", [_PROMO]),
    ("c.std()", [_PROMO, _AUTO_SQRT]),
]


@pytest.mark.parametrize("stmt,want", _INT_DIV)
def test_integer_true_division_logs_promotion(profile, monkeypatch, capsys, stmt, want):
    import gradrepl.paddle as paddle

    if profile == "2.6" and stmt in ("c.var()", "c.std()"):
        pytest.skip("2.6.2 raises for an integer var")
    monkeypatch.setattr(glog, "_promoted", set())
    c = paddle.to_tensor([3, 4])
    t = paddle.to_tensor([True])
    x = paddle.to_tensor([[1.0, 2.0, 4.0], [0.5, 3.0, 1.0]])
    out = eval(stmt, {"paddle": paddle, "c": c, "t": t, "x": x})
    assert _logged(capsys.readouterr().err) == (want if profile == "3" else [])
    eval(stmt, {"paddle": paddle, "c": c, "t": t, "x": x})       # once a process
    assert _logged(capsys.readouterr().err) == []
    if stmt == "c / c":
        assert out.dtype == paddle.float32 and out.numpy().tolist() == [1.0, 1.0]
    if stmt == "c.std()":  # real 3.3.1: float32 1.0 (the int64 mean 3, then sum 1 / 1)
        assert out.dtype == paddle.float32 and out.item() == 1.0


# ================================================================ conv3d filter gradient (AMD)
@pytest.mark.parametrize("n,want", [
    # recorded from real 3.3.1 (2.6.2 the same) on the AMD EPYC: dW.flat[:4]; the one-product
    # BLAS order gave -11.331468, -20.253706, -7.493421, -35.409985 (n=1)
    (1, [-11.33146, -20.253717, -7.493416, -35.409996]),
    (4, [-35.32366, -61.460655, -72.250374, -39.81495])])
def test_conv3d_filter_grad_per_sample_on_amd(profile, monkeypatch, n, want):
    import gradrepl.paddle as paddle
    import gradrepl.paddle.nn.functional as F

    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    rng = np.random.RandomState(0)
    if n == 4:  # the real script drew the n=1 case first
        rng.rand(1, 1, 8, 16, 16), rng.randn(4, 1, 3, 3, 3), rng.randn(1, 4, 8, 16, 16)
    x = paddle.to_tensor(rng.rand(n, 1, 8, 16, 16).astype("float32"))
    w = paddle.to_tensor(rng.randn(4, 1, 3, 3, 3).astype("float32"), stop_gradient=False)
    dy = rng.randn(n, 4, 8, 16, 16).astype("float32")
    (F.conv3d(x, w, padding=1) * paddle.to_tensor(dy)).sum().backward()
    got = w.grad.numpy()
    assert got.reshape(-1)[:4].tolist() == np.float32(want).tolist()
    # independent: the float64 correlation of dy with the padded input's windows
    xp = np.pad(x.numpy().astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)))
    ref = np.zeros((4, 1, 3, 3, 3))
    for a in range(3):
        for b in range(3):
            for c in range(3):
                win = xp[:, :, a:a + 8, b:b + 16, c:c + 16]
                ref[:, 0, a, b, c] = np.einsum("ndhw,nmdhw->m", win[:, 0], dy)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4)
