"""paddle.linalg.slogdet as Paddle computes it: the determinant by its det kernel (float32 LU,
pivots multiplied in float32), then the log of its absolute value; the gradient of the log|det|
part times inverse(x)^T (NaN everywhere when a matrix of the batch is singular); node
SlogdetGradNode. Found by PM14B's round-14 linalg script (stop_gradient was True, no gradient;
log|det| one float32 step off). Expected values printed by real Paddle 3.3.1 (/work/vpaddle)
and 2.6.2 (/work/vpaddle26) on this machine; the kernels are plain float32 arithmetic."""
import numpy as np
import pytest

import gradrepl.paddle as paddle


def _digest(t):
    a = t.numpy()
    return int(np.frombuffer(a.tobytes(), np.uint32).sum() % 1000003)


def test_values_and_gradients_equal_real_paddle(version):
    rng = np.random.RandomState(5)
    got = []
    for n in [2, 3, 4, 5, 7]:
        a = rng.randn(3, n, n).astype("float32")
        a[0] = a[0] @ a[0].T + np.eye(n, dtype="float32")
        x = paddle.to_tensor(a, stop_gradient=False)
        r = paddle.linalg.slogdet(x)
        assert r.stop_gradient is False and r.grad_fn.name() == "SlogdetGradNode"
        (r * paddle.to_tensor(rng.randn(2, 3).astype("float32"))).sum().backward()
        got.append((n, _digest(r), _digest(x.grad)))
    # real 3.3.1 and 2.6.2 (the same)
    assert got == [(2, 450521, 320217), (3, 715243, 153866), (4, 674386, 851948),
                   (5, 153126, 312698), (7, 673977, 575285)]


def test_float64_value_equals_real_paddle(version):
    # float64's determinant is Eigen's unblocked LU in double up to 16 rows (plain arithmetic;
    # it was numpy's LAPACK, whose kernels follow the CPU: aarch64 gave ...078 in stop 43)
    rng = np.random.RandomState(5)
    for n in [2, 3, 4, 5, 7]:   # the draws of the test above
        rng.randn(3, n, n), rng.randn(2, 3)
    x = paddle.to_tensor(rng.randn(5, 5), stop_gradient=False)
    assert paddle.linalg.slogdet(x).numpy().tolist() == [-1.0, 0.7839483881528075]


def test_singular_matrices(version):
    rows = []
    for a in [np.zeros((2, 2)), [[1., 2.], [2., 4.]], [[0., 1., 2.], [0., 3., 1.], [0., 2., 5.]]]:
        x = paddle.to_tensor(np.array(a, "float32"), stop_gradient=False)
        d = paddle.linalg.det(x)
        s = paddle.linalg.slogdet(x)
        s[1].backward()
        rows.append((str(d.numpy()), s.numpy().tolist(), bool(np.isnan(x.grad.numpy()).all())))
    # real: 0.0 [0, -inf] all NaN / -0.0 ... / 0.0 ...
    assert rows == [("0.0", [0.0, -np.inf], True), ("-0.0", [0.0, -np.inf], True),
                    ("0.0", [0.0, -np.inf], True)]
    assert paddle.linalg.det(x).grad_fn.name() == "DetGradNode"


ERRORS = {
    "3": ("float64, complex128, float32, complex64", 157),
    "2.6": ("float64, float32", 91),
}


def test_errors(version):
    with pytest.raises(RuntimeError) as e:
        paddle.linalg.slogdet(paddle.to_tensor(np.eye(3, dtype="int32")))
    assert str(e.value).startswith(
        "(NotFound) The kernel with key (CPU, Undefined(AnyLayout), int32) of kernel `slogdet` "
        "is not registered. Selected wrong DataType `int32`. Paddle support following "
        f"DataTypes: {ERRORS[version][0]}.\n")
    with pytest.raises(ValueError) as e:
        paddle.linalg.slogdet(paddle.ones([2, 3]))
    assert str(e.value) == (
        "(InvalidArgument) the input matrix should be square matrix.\n  [Hint: Expected "
        "input_dim[input_dim_size - 1] == input_dim[input_dim_size - 2], but received "
        "input_dim[input_dim_size - 1]:3 != input_dim[input_dim_size - 2]:2.] (at "
        "/paddle/paddle/phi/kernels/impl/slogdeterminant_kernel_impl.h:"
        f"{ERRORS[version][1]})\n")
