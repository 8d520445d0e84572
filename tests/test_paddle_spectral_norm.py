"""paddle.nn.SpectralNorm: Paddle's spectral_norm kernel (engine/ops/spectral_norm.py), its
gradient kernel's own formula and InferMeta's errors, against real Paddle 3.3.1 and 2.6.2 (the
same bytes from both), printed on the Intel Sapphire Rapids machine of this stop (/tmp scripts,
not committed). Before: numpy's products and sums gave sigma other last bits (a PaddleGAN-style
lecture script differed in 9.49725914 vs 9.49726105) and the mathematical gradient, which is
not Paddle's."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from conftest import skip_unless_mkl_path


@pytest.fixture
def paddle(profile):  # conftest's profile: Paddle 3 and 2.6
    import gradrepl.paddle as p

    return p


# 16 random float32 cases (rank 2-4, dim 0/1, power_iters 0-3, some rows of 20-200 values):
# sha256 of the output's and the weight gradient's bytes, first 16 hex digits
SWEEP = ['f12be84cf4827f48', '94bc37f67c72ee36', '960e1a51187bdb8b', '300345fbed295bc9',
         '4c8be91a319a78ba', '6635099f1c30c86d', 'b2655409c6820ad0', 'c0b0b27b065d1ee5',
         'd15ea3134e0a3b5e', '8a2b8a8048594ac4', 'e57ba130a45b4a2f', 'e5746df73428d290',
         'cddaa8e80a87e77a', 'c9712715060dbf98', '9bc09d800a1096cf', '925d99d14a3b4692']


def test_spectral_norm_bits_and_gradient_sweep(paddle):
    # sigma's products are MKL's sgemm on Intel (Paddle's Blas): bits of that code path
    skip_unless_mkl_path("SpectralNorm sweep")
    nn = paddle.nn
    rng = np.random.RandomState(0)
    got = []
    for case in range(16):
        nd = rng.randint(2, 5)
        shape = [int(s) for s in rng.randint(1, 9, nd)]
        if case % 4 == 0:
            shape[-1] = int(rng.randint(20, 200))
        dim = int(rng.randint(0, 2))
        it = int(rng.randint(0, 4))
        paddle.seed(case)
        sn = nn.SpectralNorm(shape, dim=dim, power_iters=it)
        w = paddle.to_tensor(rng.randn(*shape).astype("float32"), stop_gradient=False)
        g = paddle.to_tensor(rng.randn(*shape).astype("float32"))
        o = sn(w)
        (o * g).sum().backward()
        got.append(hashlib.sha256(o.numpy().tobytes() + w.grad.numpy().tobytes())
                   .hexdigest()[:16])
    assert got == SWEEP


def test_spectral_norm_gradient_is_paddles_kernel_formula(paddle):
    # dW = dout * (1 - u v^T * sum(W / sigma)) / sigma, not the derivative of W / sigma (whose
    # values differ in the first digit here); buffers u, v are not updated
    paddle.seed(3)
    sn = paddle.nn.SpectralNorm([2, 3], dim=1, power_iters=2)
    u0, v0 = sn.weight_u.numpy().copy(), sn.weight_v.numpy().copy()
    w = paddle.to_tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], stop_gradient=False)
    o = sn(w)
    (o * paddle.to_tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])).sum().backward()
    np.testing.assert_allclose(o.numpy(), [[0.21484863758087158, -0.42969727516174316,
                                            0.8593945503234863],
                                           [0.6445459127426147, 0.10742431879043579,
                                            -0.3222729563713074]], rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), [[0.35919561982154846, 1.261862874031067,
                                                 0.0677872896194458],
                                                [-0.43634313344955444, 0.20536398887634277,
                                                 0.0]], rtol=1e-5, atol=1e-7)
    assert np.array_equal(sn.weight_u.numpy(), u0) and np.array_equal(sn.weight_v.numpy(), v0)


ERRORS = [  # (shape, dim, power_iters, message, line in 3.3.1, line in 2.6.2)
    ([1, 1, 1, 1, 1, 2], 0, 1,
     "The rank of Input(Weights) should be less equal than 5, but received Weight rank(6)\n"
     "  [Hint: Expected rank_weight <= 5, but received rank_weight:6 > 5:5.]", 2871, 1314),
    ([4], 0, 1,
     "The rank of Input(Weights) should be greater equal than 2, but received Weight rank(1)\n"
     "  [Hint: Expected rank_weight >= 2, but received rank_weight:1 < 2:2.]", 2865, 1308),
    ([4, 3], 0, -1,
     "Attr(power_iters) should be greater equal then 0, but received -1\n"
     "  [Hint: Expected power_iters >= 0, but received power_iters:-1 < 0:0.]", 2883, 1326),
    ([2, 3, 4], 2, 1,
     "Attr(dim) can only be 0 or 1, but received 2\n"
     "  [Hint: Expected dim_valid == true, but received dim_valid:0 != true:1.]", 2879, 1320),
]


@pytest.mark.parametrize("case", ERRORS, ids=["rank6", "rank1", "power_iters", "dim"])
def test_spectral_norm_infermeta_errors(paddle, profile, case):
    shape, dim, it, message, line3, line26 = case
    sn = paddle.nn.SpectralNorm(shape, dim=dim, power_iters=it)
    with pytest.raises(ValueError) as e:
        sn(paddle.ones(shape))
    line = line3 if profile == "3" else line26
    assert str(e.value) == (f"(InvalidArgument) {message} (at /paddle/paddle/phi/infermeta/"
                            f"ternary.cc:{line})\n")
