"""paddle.linalg.cholesky as Paddle's CPU kernel computes it: Eigen's unblocked LLT over the
row-major matrix (upper: over its transposed view), in the summation orders of Eigen's 32-byte
packets (engine/ops/_eigen_llt.py); was LAPACK's potrf through numpy (last bits off, e.g. one
element of a 4x4 factor in PM14B's round-14 linalg script). Errors as Paddle's kernel raises
them, naming the failing matrix of the batch. Expected values printed by real Paddle 3.3.1
(/work/vpaddle) and 2.6.2 (/work/vpaddle26) on this machine (the same); the emulation is plain
float arithmetic, so it holds on any CPU."""
import numpy as np
import pytest

import gradrepl.paddle as paddle


def _digest(t):
    a = t.numpy()
    return int(np.frombuffer(a.tobytes(), np.uint32).sum() % 1000003)


def _spd(a, n):
    """a @ a^T + n I by elementwise numpy steps (sequential over k): the same bits on any CPU
    (numpy's matmul goes to the BLAS, whose sums differ by CPU: on aarch64's OpenBLAS the
    float64 13x13 and larger inputs, and under qemu the first float32 product of a process)."""
    s = np.zeros_like(a)
    for k in range(n):
        s = s + a[:, :, k, None] * a[:, None, :, k]
    return s + np.eye(n, dtype=a.dtype) * a.dtype.type(n)


# real Paddle 3.3.1 and 2.6.2 here (equal) on the _spd inputs, recorded in stop 43
REAL = [('float32', 3, 532684, 532684), ('float32', 6, 659714, 659714),
        ('float32', 9, 293872, 293872), ('float32', 13, 714112, 714122),
        ('float32', 20, 973418, 973449), ('float32', 31, 835779, 836034),
        ('float64', 3, 964622, 964622), ('float64', 6, 802609, 802609),
        ('float64', 9, 517865, 517881), ('float64', 13, 203834, 203873),
        ('float64', 20, 88382, 88342), ('float64', 31, 917997, 917941)]


def test_factors_equal_real_paddle(version):
    rng = np.random.RandomState(21)
    got = []
    for dt in ["float32", "float64"]:
        for n in [3, 6, 9, 13, 20, 31]:
            a = rng.randn(2, n, n).astype(dt)
            s = _spd(a, n)
            got.append((dt, n, _digest(paddle.linalg.cholesky(paddle.to_tensor(s))),
                        _digest(paddle.linalg.cholesky(paddle.to_tensor(s), upper=True))))
    assert got == REAL


@pytest.mark.parametrize("upper", [False, True])
def test_not_positive_definite_names_the_matrix(version, upper):
    line = {("3", False): 71, ("3", True): 58, ("2.6", False): 72, ("2.6", True): 59}
    s = np.stack([np.eye(2), -np.eye(2), np.eye(2)]).astype("float32")
    with pytest.raises(ValueError) as e:
        paddle.linalg.cholesky(paddle.to_tensor(s), upper=upper)
    assert str(e.value) == (
        "(InvalidArgument) Cholesky decomposition was not successful. The 1-th input matrice "
        "might not be not be positive definite.\n  [Hint: Expected llt_decomposition.info() == "
        "Eigen::Success, but received llt_decomposition.info():1 != Eigen::Success:0.] (at "
        f"/paddle/paddle/phi/kernels/cpu/cholesky_kernel.cc:{line[version, upper]})\n")
