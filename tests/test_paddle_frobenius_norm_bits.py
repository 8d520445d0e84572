"""Paddle's frobenius_norm over two axes (paddle.norm(x, p='fro', axis=[i, j])): Eigen's
x.square().sum(dims).sqrt(), whose square roots over the flat output are the vectorised
assignment's: float32 packets of the fast rsqrt-based psqrt, the tail exact (was np.sqrt: 43 of
128 values 1 ulp off, and the gradients through them; found by a PM16A ConvNeXt-V2 GRN
investigation). Digests printed by real Paddle 3.3.1 and 2.6.2 here (the same; 2.6.2 has no
paddle.linalg.matrix_norm). The packet rule follows the CPU's rsqrt approximation: skipped
without AVX-512 (where Eigen's packets are other sizes).
"""
import pytest

from helpers import run_source

SCRIPT = "import hashlib\nimport numpy as np\nimport paddle\n\n\ndef h(t):\n    return hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()[:12]\n\n\nrng = np.random.RandomState(21)\nfor dt in ['float32', 'float64']:\n    x = paddle.to_tensor(rng.randn(3, 5, 4, 13).astype(dt), stop_gradient=False)\n    for axis, keepdim in [([1, 2], False), ([0, 1], True), ([2, 3], False), ([1, 3], False),\n                          ([0, 3], True), ([-1, -2], False)]:\n        n = paddle.norm(x, p='fro', axis=axis, keepdim=keepdim)\n        g = paddle.grad((n * paddle.arange(n.size, dtype=dt).reshape(n.shape)).sum(), x)[0]\n        print(dt, axis, keepdim, n.grad_fn.name(), list(n.shape), h(n), h(g))\n    if hasattr(paddle.linalg, 'matrix_norm'):\n        print(dt, 'matrix_norm fro', h(paddle.linalg.matrix_norm(x, p='fro', axis=[-2, -1])))\n"

EXPECTED = {"3": 'float32 [1, 2] False FrobeniusNormGradNode [3, 13] 33154d78efbd 32971796a9b2\nfloat32 [0, 1] True FrobeniusNormGradNode [1, 1, 4, 13] 00e8ad9a4a8e eeecf0881556\nfloat32 [2, 3] False FrobeniusNormGradNode [3, 5] 5614bfbdcf49 7c0e691a5a3d\nfloat32 [1, 3] False FrobeniusNormGradNode [3, 4] b2fe866f0c6f fddffc610ca8\nfloat32 [0, 3] True FrobeniusNormGradNode [1, 5, 4, 1] b6efc81a60c8 e079bb41e25f\nfloat32 [-1, -2] False FrobeniusNormGradNode [3, 5] 5614bfbdcf49 7c0e691a5a3d\nfloat32 matrix_norm fro 5614bfbdcf49\nfloat64 [1, 2] False FrobeniusNormGradNode [3, 13] 56a9321b51fc 9eb8f7db08a9\nfloat64 [0, 1] True FrobeniusNormGradNode [1, 1, 4, 13] fc04db2b7b97 e0b2977b97c7\nfloat64 [2, 3] False FrobeniusNormGradNode [3, 5] b7a44accf3b1 b21154ec472f\nfloat64 [1, 3] False FrobeniusNormGradNode [3, 4] 0f6ed4c32813 8a46be61ab5c\nfloat64 [0, 3] True FrobeniusNormGradNode [1, 5, 4, 1] 9ef6c0416a0e 42ad95cd265d\nfloat64 [-1, -2] False FrobeniusNormGradNode [3, 5] b7a44accf3b1 b21154ec472f\nfloat64 matrix_norm fro b7a44accf3b1\n',
            "2.6": 'float32 [1, 2] False FrobeniusNormGradNode [3, 13] 33154d78efbd 32971796a9b2\nfloat32 [0, 1] True FrobeniusNormGradNode [1, 1, 4, 13] 00e8ad9a4a8e eeecf0881556\nfloat32 [2, 3] False FrobeniusNormGradNode [3, 5] 5614bfbdcf49 7c0e691a5a3d\nfloat32 [1, 3] False FrobeniusNormGradNode [3, 4] b2fe866f0c6f fddffc610ca8\nfloat32 [0, 3] True FrobeniusNormGradNode [1, 5, 4, 1] b6efc81a60c8 e079bb41e25f\nfloat32 [-1, -2] False FrobeniusNormGradNode [3, 5] 5614bfbdcf49 7c0e691a5a3d\nfloat64 [1, 2] False FrobeniusNormGradNode [3, 13] 56a9321b51fc 9eb8f7db08a9\nfloat64 [0, 1] True FrobeniusNormGradNode [1, 1, 4, 13] fc04db2b7b97 e0b2977b97c7\nfloat64 [2, 3] False FrobeniusNormGradNode [3, 5] b7a44accf3b1 b21154ec472f\nfloat64 [1, 3] False FrobeniusNormGradNode [3, 4] 0f6ed4c32813 8a46be61ab5c\nfloat64 [0, 3] True FrobeniusNormGradNode [1, 5, 4, 1] 9ef6c0416a0e 42ad95cd265d\nfloat64 [-1, -2] False FrobeniusNormGradNode [3, 5] b7a44accf3b1 b21154ec472f\n'}


@pytest.mark.parametrize("profile", ["3", "2.6"])
def test_frobenius_norm_as_real_paddle(profile, tmp_path):
    from conftest import skip_without_avx512

    skip_without_avx512("frobenius_norm digests (Eigen's packet sqrt)")
    assert run_source(SCRIPT, profile, tmp_path) == EXPECTED[profile]
