"""matmul in every rank pairing, bmm, dot, outer, cross, inverse, det: values, gradients, errors.

Gradients are compared with numpy formulas (float64); the float32 rounding of matmul is compared
with values captured from Paddle 3.3.1 (MKL sums each output as one FMA chain over k).
"""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import profiles


@pytest.fixture(params=["2.2", "2.6", "3"])
def profile(request):
    profiles.set_profile(request.param)
    return request.param


def leaf(a, dtype=np.float64):
    return paddle.to_tensor(np.asarray(a, dtype=dtype), stop_gradient=False)


PAIRS = [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (3,)),
         ((3,), (2, 3, 2)), ((2, 2, 3), (3, 2)), ((2, 3), (2, 3, 2)), ((2, 1, 2, 3), (3, 3, 2))]


def _t(a, flag):
    return np.swapaxes(a, -1, -2) if flag and a.ndim >= 2 else a


@pytest.mark.parametrize("xs, ys", PAIRS)
@pytest.mark.parametrize("tx", [False, True])
@pytest.mark.parametrize("ty", [False, True])
def test_matmul_values_and_gradients(xs, ys, tx, ty):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(xs)
    b = rng.standard_normal(ys)
    x, y = leaf(_t(a, tx)), leaf(_t(b, ty))  # stored transposed, flags undo it
    out = paddle.matmul(x, y, transpose_x=tx, transpose_y=ty)
    ref = np.matmul(a, b)
    np.testing.assert_allclose(out.numpy().reshape(ref.shape), ref, rtol=1e-12)
    w = rng.standard_normal(out.shape)
    (out * paddle.to_tensor(w)).sum().backward()
    # numerical gradient of sum(w * (a @ b)) by central differences (exact for a bilinear map)
    for arr, t, flag in ((a, x, tx), (b, y, ty)):
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            e = np.zeros_like(arr)
            e[i] = 1.0
            num[i] = (np.sum(w.reshape(ref.shape) * np.matmul(*((arr + e, b) if arr is a else (a, arr + e))))
                      - np.sum(w.reshape(ref.shape) * np.matmul(*((arr - e, b) if arr is a else (a, arr - e))))) / 2
        np.testing.assert_allclose(t.grad.numpy(), _t(num, flag), rtol=1e-10, atol=1e-12)


def test_matmul_1d_1d_shape_per_profile(profile):
    c = paddle.matmul(paddle.to_tensor([1.0, 2.0, 3.0]), paddle.to_tensor([4.0, 5.0, 6.0]))
    assert list(c.shape) == ([] if profile != "2.2" else [1])
    d = paddle.dot(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3.0, 4.0]))
    assert list(d.shape) == ([] if profile != "2.2" else [1])


PADDLE_3x40_40x4 = [  # paddle.matmul of the matrices below, printed by Paddle 3.3.1 and 2.6.2
    [-1.351138710975647, -1.1699013710021973, 2.9927566051483154, -4.457434177398682],
    [-1.2425334453582764, -7.469512939453125, 8.925339698791504, 3.399078130722046],
    [-10.053545951843262, -4.860795974731445, 2.502250909805298, -0.979844331741333]]


def test_matmul_float32_rounding_matches_paddle():
    # numpy's OpenBLAS differs from Paddle in 9 of these 12 outputs; Paddle's MKL sums each
    # output as one fused multiply-add chain over k, which the engine reproduces
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 40)).astype(np.float32)
    b = rng.standard_normal((40, 4)).astype(np.float32)
    out = paddle.matmul(paddle.to_tensor(a), paddle.to_tensor(b)).numpy()
    assert out.tolist() == PADDLE_3x40_40x4


@pytest.mark.parametrize("wording", ["3", "2.6"])
def test_matmul_inner_dimension_errors(wording):
    profiles.set_profile(wording)
    with pytest.raises(ValueError) as info:
        paddle.matmul(paddle.ones([2, 3]), paddle.ones([2, 3]))
    msg = str(info.value)
    if wording == "3":
        assert "In operator matmul, the [1] dimension of Input(X) must be equal to the [0]" in msg
    else:
        assert "Input(Y) has error dim. Y'dims[0] must be equal to 3" in msg
    with pytest.raises(ValueError, match="X_broadcast's shape"):
        paddle.matmul(paddle.ones([2, 3, 4]), paddle.ones([3, 4, 5]))
    with pytest.raises(ValueError, match="does not match the type of data"):
        paddle.matmul(paddle.ones([2, 2]), paddle.ones([2, 2], dtype="float64"))


def test_bmm_and_errors():
    x = leaf([[[1.0, 2.0]], [[3.0, 4.0]]], np.float32)
    y = leaf([[[1.0], [1.0]], [[2.0], [-1.0]]], np.float32)
    z = paddle.bmm(x, y)
    assert z.numpy().reshape(-1).tolist() == [3.0, 2.0]
    z.sum().backward()
    assert x.grad.numpy().tolist() == [[[1.0, 1.0]], [[2.0, -1.0]]]
    assert y.grad.numpy().tolist() == [[[1.0], [2.0]], [[3.0], [4.0]]]
    with pytest.raises(ValueError, match="must be 3-dimensional"):
        paddle.bmm(paddle.ones([2, 2]), paddle.ones([2, 2]))
    with pytest.raises(ValueError, match="width must be equal"):
        paddle.bmm(paddle.ones([2, 2, 3]), paddle.ones([2, 2, 3]))
    with pytest.raises(ValueError, match="same batch size"):
        paddle.bmm(paddle.ones([2, 2, 3]), paddle.ones([3, 3, 3]))


def test_dot_outer_cross():
    a = leaf([[1.0, 2.0], [3.0, 4.0]], np.float32)
    b = leaf([[1.0, -2.0], [0.5, 4.0]], np.float32)
    d = paddle.dot(a, b)
    assert d.numpy().tolist() == [-3.0, 17.5]
    d.sum().backward()
    assert a.grad.numpy().tolist() == [[1.0, -2.0], [0.5, 4.0]]
    assert paddle.outer(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1.0, -2.0])).numpy().tolist() \
        == [[1.0, -2.0], [2.0, -4.0]]
    with pytest.raises(RuntimeError, match="should be exactly the same"):
        paddle.dot(paddle.ones([3]), paddle.ones([4]))
    x = leaf([[1.0, 2.0, 3.0]])
    y = leaf([[0.5, 2.5, 1.5]])
    c = paddle.cross(x, y)
    assert c.numpy().tolist() == np.cross([[1.0, 2.0, 3.0]], [[0.5, 2.5, 1.5]]).tolist()
    w = np.array([[1.0, -1.0, 2.0]])
    (c * paddle.to_tensor(w)).sum().backward()
    assert x.grad.numpy().tolist() == np.cross([[0.5, 2.5, 1.5]], w).tolist()
    with pytest.raises(ValueError, match="equal to 3"):
        paddle.cross(paddle.ones([2, 2]), paddle.ones([2, 2]))


def test_inverse_and_det_gradients():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = leaf(a)
    inv = paddle.inverse(x)
    np.testing.assert_allclose(inv.numpy(), np.linalg.inv(a))
    inv.sum().backward()
    ai = np.linalg.inv(a)
    np.testing.assert_allclose(x.grad.numpy(), -(ai.T @ np.ones((2, 2)) @ ai.T))
    y = leaf(a)
    paddle.linalg.det(y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), np.linalg.det(a) * ai.T)


def test_inverse_and_det_float32_rounding_match_paddle():
    # Paddle 2.6.2 and 3.3.1 print these (an LU with partial pivoting in float32)
    a = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert paddle.inverse(a).numpy().tolist() == np.array(
        [[-2.00000024, 1.00000012], [1.50000012, -0.50000006]], np.float32).tolist()
    assert paddle.linalg.det(a).numpy().reshape(-1).tolist() == [np.float32(-1.99999988)]
    assert paddle.linalg.inv(a).numpy().tolist() == paddle.inverse(a).numpy().tolist()


def test_matrix_power_and_multi_dot():
    a = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert paddle.linalg.matrix_power(a, 3).numpy().tolist() == [[37.0, 54.0], [81.0, 118.0]]
    assert paddle.linalg.matrix_power(a, 0).numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
    m = paddle.linalg.multi_dot([paddle.ones([2, 3]), paddle.ones([3, 2]), paddle.ones([2, 2])])
    assert m.numpy().tolist() == [[6.0, 6.0], [6.0, 6.0]]


def test_vector_products_round_as_paddle_dot_kernel():
    # values printed by Paddle 3.3.1 and 2.6.2; a left-to-right float32 sum gives 0.37999994
    # and -4.1400003
    a = paddle.to_tensor([1.5, 1.6, -0.3])
    b = paddle.to_tensor([1.0, -0.4, 1.6])
    assert paddle.matmul(a, b).item() == 0.37999987602233887
    m = paddle.to_tensor([[1.7, 1.9, 0.2], [0.9, 1.8, 1.5]])
    v = paddle.to_tensor([-0.8, -1.6, 1.3])
    assert paddle.matmul(m, v).numpy().tolist() == [-4.139999866485596, -1.6499998569488525]


@pytest.mark.parametrize("xs, ys", PAIRS)
@pytest.mark.parametrize("tx", [False, True])
@pytest.mark.parametrize("ty", [False, True])
def test_matmul_float32_paths_agree_with_float64(xs, ys, tx, ty):
    # float32 takes Paddle's kernel-specific summation orders (dot kernel, FMA chain) in the
    # forward and in every product of the VJP; they must still be the same products
    rng = np.random.default_rng(1)
    a = rng.standard_normal(xs)
    b = rng.standard_normal(ys)
    grads = []
    for dt in (np.float32, np.float64):
        x, y = leaf(_t(a, tx), dt), leaf(_t(b, ty), dt)
        out = paddle.matmul(x, y, transpose_x=tx, transpose_y=ty)
        (out * out).sum().backward()
        grads.append((out.numpy(), x.grad.numpy(), y.grad.numpy()))
    for g32, g64 in zip(*grads):
        np.testing.assert_allclose(g32, g64, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("profile,expected", [
    ("3", {None: ([0], "int32", []), "gels": ([3], "int64", [0]), "gelsy": ([0], "int32", []),
           "gelsd": ([3], "int32", []), "gelss": ([3], "int32", [])}),
    ("2.6", {None: ([3], "int32", []), "gels": ([3], "int32", [0]), "gelsy": ([3], "int32", []),
             "gelsd": ([3], "int32", []), "gelss": ([3], "int32", [])}),
])
def test_lstsq_outputs_dtypes_and_shapes_per_version(profile, expected):
    """Recorded on Paddle 3.3.1 and 2.6.2: residual shape, rank dtype and shape per driver."""
    import gradrepl.paddle as paddle

    paddle.profiles.set_profile(profile)
    try:
        x = paddle.to_tensor([[1, 3], [3, 2], [5, 6.]])
        y = paddle.to_tensor([[3, 4, 6], [5, 3, 4], [1, 2, 1.]])
        for driver, (resid_shape, rank_dtype, rank_shape) in expected.items():
            sol, resid, rank, _sv = paddle.linalg.lstsq(x, y, driver=driver)
            assert list(resid.shape) == resid_shape, driver
            assert rank.numpy().dtype == np.dtype(rank_dtype), driver
            assert list(rank.shape) == rank_shape, driver
    finally:
        paddle.profiles.set_profile("2.2")
