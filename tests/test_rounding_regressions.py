"""Last-digit regressions found by tools/compare_with_paddle.py, one test per fixed op.

Inputs come from a seeded numpy generator; the expected values were printed by real Paddle
(3.3.1 and 2.6.2 agree on all of them) with the same inputs.
"""
from __future__ import annotations

import numpy as np

import gradrepl.paddle as paddle


def leaf(a):
    return paddle.to_tensor(a, stop_gradient=False)


def test_broadcast_gradients_add_row_major_but_expand_first_axis_fastest():
    """Elementwise grads sum the broadcast elements one by one, last reduced axis fastest;
    expand / broadcast_to grads one by one, first reduced axis fastest."""
    rng = np.random.default_rng(123)
    g = rng.standard_normal((7, 300, 5)).astype("float32")
    x = leaf(np.zeros((7, 300, 5), "float32"))
    y = leaf(np.zeros((1, 300, 1), "float32"))
    (x + y).backward(paddle.to_tensor(g))
    assert y.grad.numpy().ravel()[:6].tolist() == [
        -5.913759231567383, -4.82102108001709, 5.220630645751953, 1.3018591403961182,
        10.654430389404297, -5.462024688720703]
    z = leaf(np.zeros((1, 300, 1), "float32"))
    paddle.expand(z, [7, 300, 5]).backward(paddle.to_tensor(g))
    assert z.grad.numpy().ravel()[:6].tolist() == [
        -5.913759708404541, -4.821021556854248, 5.2206315994262695, 1.3018591403961182,
        10.654430389404297, -5.462027072906494]
    g2 = rng.standard_normal((3, 2000)).astype("float32")
    w = leaf(np.zeros((1,), "float32"))
    (paddle.to_tensor(np.zeros((3, 2000), "float32")) + w).backward(paddle.to_tensor(g2))
    assert w.grad.numpy().tolist() == [102.25865936279297]


def test_float64_transcendentals_use_glibc_and_eigen_pexp_double():
    """float64 tanh/sinh/cosh/expm1 call glibc; exp runs Eigen's pexp_double on 4-wide packets
    and glibc on the tail: numpy differs in the last bit for several of these values."""
    x = paddle.to_tensor(np.random.default_rng(5).standard_normal(7) * 2)
    expected = {
        "exp": [0.20111812630105835, 0.07074184661741968, 0.6085213723338506, 2.31843056493629,
                9.6996816460828, 1.2453452474259923, 0.3311133082877783],
        "tanh": [-0.9222479523040468, -0.9900410210767036, -0.45953626121012947,
                 0.6862804291105908, 0.978965928008361, 0.21595831707649346, -0.8023928195188735],
        "sinh": [-2.385542061576232, -7.0325814119485175, -0.5174031414852727, 0.9435521491563479,
                 4.79829273948116, 0.2211775354766606, -1.3445004395608384],
        "cosh": [2.586660187877291, 7.103323258565937, 1.1259245138191232, 1.374878415779942,
                 4.90138890660164, 1.0241677119493318, 1.6756137478486166],
        "expm1": [-0.7988818736989416, -0.9292581533825803, -0.3914786276661494, 1.31843056493629,
                  8.6996816460828, 0.2453452474259924, -0.6688866917122217],
    }
    for name, values in expected.items():
        assert getattr(paddle, name)(x).numpy().tolist() == values, name


def test_lerp_grad_is_dout_times_one_minus_weight():
    """Paddle's lerp_grad: dx = dout * (1 - w) (not dout - dout * w), dy = dout * w, no grad
    for the weight; forward x + w * (y - x). (Engine op; the API should call it.)"""
    from gradrepl.engine.ops.math import lerp

    x = leaf(np.array([2.040919065475464, -2.5556650161743164, 0.4180988371372223,
                       -0.5677695870399475], "float32"))
    y = leaf(np.array([-1.0294182300567627, 0.815044641494751, -0.8672524094581604,
                       -1.0034019947052002], "float32"))
    g = np.array([-0.578971803188324, -0.22136518359184265, -0.15436728298664093,
                  -1.1877418756484985], "float32")
    w = paddle.to_tensor(np.float32(0.7), stop_gradient=False)
    out = lerp(x, y, w)
    out.backward(paddle.to_tensor(g))
    assert out.numpy().tolist() == [-0.10831689834594727, -0.1961681842803955,
                                    -0.4816470444202423, -0.872712254524231]
    assert x.grad.numpy().tolist() == [-0.1736915409564972, -0.06640955805778503,
                                       -0.0463101863861084, -0.35632258653640747]
    assert w.grad is None


def test_backward_kernels_multiply_so_zero_gradients_keep_their_sign():
    """square/sqrt/rsqrt/reciprocal/erf grads multiply dout by the constant (dout * 2 * x,
    0.5 * dout / out, -0.5 * dout * out^3, -dout * out * out, ...): a -0. dout stays -0.
    (scale's ``c * dout + 0`` would give +0.)."""
    xs = np.array([0.5, 0.5, -0.5, -0.5, 1.5, 1.5, 0.0, -0.0, 0.0, -0.0, -1.5, -1.5])
    gs = np.array([0.0, -0.0] * 6)
    expected = {
        "sqrt": [0.0, -0.0, "nan", "nan", 0.0, -0.0] + ["nan"] * 6,
        "rsqrt": [-0.0, 0.0, "nan", "nan", -0.0, 0.0] + ["nan"] * 6,
        "square": [0.0, -0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 0.0, -0.0, 0.0],
        "reciprocal": [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, "nan", "nan", "nan", "nan", -0.0, 0.0],
        "erf": [0.0, -0.0] * 6,
    }
    for dt in ("float32", "float64"):
        for name, values in expected.items():
            x = leaf(xs.astype(dt))
            getattr(paddle, name)(x).backward(paddle.to_tensor(gs.astype(dt)))
            got = ["nan" if np.isnan(v) else repr(float(v)) for v in x.grad.numpy()]
            assert got == [v if v == "nan" else repr(v) for v in values], (dt, name)


def test_where_grad_selects_in_3x_and_multiplies_by_the_mask_in_2x():
    """3.x where_grad: cond ? dout : 0 (+0. where not chosen); 2.6: dout * (cond ? 1 : 0)."""
    from gradrepl.engine.ops.search import where

    cond = paddle.to_tensor(np.array([True, False, True, False, True, False]))
    g = np.array([-1.0, -1.0, -0.0, -0.0, 0.0, -0.0], "float32")
    expected = {
        "select": ([-1.0, 0.0, -0.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, -0.0, 0.0, -0.0]),
        "mask": ([-1.0, -0.0, -0.0, -0.0, 0.0, -0.0], [-0.0, -1.0, -0.0, -0.0, 0.0, -0.0]),
    }
    for kind, (dx, dy) in expected.items():
        x, y = leaf(np.ones(6, "float32")), leaf(np.ones(6, "float32"))
        where(cond, x, y, grad=kind).backward(paddle.to_tensor(g))
        assert [repr(v) for v in x.grad.numpy().tolist()] == [repr(v) for v in dx], kind
        assert [repr(v) for v in y.grad.numpy().tolist()] == [repr(v) for v in dy], kind


def test_matmul_grad_folds_the_batch_when_an_operand_is_a_matrix():
    """(6,7,3,4) @ (4,5): Paddle's matmul_grad (no batch broadcasting: an operand has <= 2 dims)
    folds the batch, dY = reshape(X, (-1, 4))^T @ reshape(G, (-1, 5)), one product summed in one
    chain over the 126 rows, not 42 products added up afterwards; likewise with transpose_y."""
    rng = np.random.default_rng(7)
    x = leaf(rng.standard_normal((6, 7, 3, 4)).astype("float32"))
    y = leaf(rng.standard_normal((4, 5)).astype("float32"))
    g = paddle.to_tensor(rng.standard_normal((6, 7, 3, 5)).astype("float32"))
    paddle.matmul(x, y).backward(g)
    expected = [
        -2.433046579360962, 16.811927795410156, 2.668482542037964, 10.492161750793457,
        -7.788732051849365, 1.1830432415008545, 1.8678492307662964, -21.829437255859375,
        2.528681993484497, 1.634023904800415, 8.646095275878906, 13.995813369750977,
        10.716064453125, 0.28729045391082764, 13.180505752563477, 8.47713565826416,
        8.45181941986084, -6.441904544830322, -2.6847543716430664, -7.907989501953125]
    assert y.grad.numpy().ravel().tolist() == expected
    y2 = leaf(rng.standard_normal((5, 4)).astype("float32"))
    paddle.matmul(x, y2, transpose_y=True).backward(g)
    assert y2.grad.numpy().T.ravel().tolist() == expected
