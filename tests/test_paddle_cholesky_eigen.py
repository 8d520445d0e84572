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
from gradrepl.paddle import profiles


@pytest.fixture(params=["3", "2.6"])
def version(request):
    before = profiles.current()
    profiles.set_profile(request.param)
    yield request.param
    profiles.set_profile(before)


def _digest(t):
    a = t.numpy()
    return int(np.frombuffer(a.tobytes(), np.uint32).sum() % 1000003)


REAL = [('float32', 3, 532684, 532684), ('float32', 6, 659712, 659712),
        ('float32', 9, 293910, 293909), ('float32', 13, 714325, 714338),
        ('float32', 20, 971377, 971378), ('float32', 31, 836907, 837198),
        ('float64', 3, 964622, 964622), ('float64', 6, 802612, 802612),
        ('float64', 9, 517895, 517906), ('float64', 13, 203842, 203821),
        ('float64', 20, 88365, 88411), ('float64', 31, 912849, 923715)]


def test_factors_equal_real_paddle(version):
    rng = np.random.RandomState(21)
    got = []
    for dt in ["float32", "float64"]:
        for n in [3, 6, 9, 13, 20, 31]:
            a = rng.randn(2, n, n).astype(dt)
            s = (a @ a.transpose(0, 2, 1) + n * np.eye(n, dtype=dt)).astype(dt)
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
