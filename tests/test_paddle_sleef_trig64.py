"""Paddle 3.3.1's float64 sin / cos are SLEEF's 1-ulp scalar functions (``Sleef_sind1_u10`` /
``Sleef_cosd1_u10``, FMA build; ``engine/ops/_sleef_trig64``), 2.6.2's glibc's. Expectations
are digests of what real Paddle printed on this machine for the same inputs (PSWEEP3)."""
import hashlib

import numpy as np

import gradrepl.paddle as paddle

REAL = {   # [sin, its x.grad, cos, its x.grad, tan, its x.grad]
    "3": ['1947b018dcad5ff5', 'a411553693610394', '802e2c8dea310150', 'f4d101f24a1aa9f0',
          'd673be19d547024f', 'ef71f41b1a391140'],
    "2.6": ['07b69f01436a8b80', '2983d013e383b111', '8f7c7627f285366b', '881967cb91942926',
            'd673be19d547024f', 'e36ff1447735399a'],
}


def _h(t):
    return hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()[:16]


def test_float64_sin_cos_tan_and_gradients(version):
    # (tan's forward is glibc's in both; its gradient divides by cos^2: SLEEF's cos in 3.x)
    rng = np.random.default_rng(71)
    a = np.concatenate([rng.standard_normal(500) * 3, rng.standard_normal(500) * 50,
                        [0.0, -0.0, 15.0, -14.99]])
    out = []
    for f in [paddle.sin, paddle.cos, paddle.tan]:
        x = paddle.to_tensor(a, stop_gradient=False)
        y = f(x)
        (y * paddle.to_tensor(rng.standard_normal(a.shape))).sum().backward()
        out += [_h(y), _h(x.grad)]
    assert out == REAL[version]


def test_sleef_trig64_keeps_zero_signs_and_branch_edges():
    from gradrepl.engine.ops import _sleef_trig64 as T

    x = np.array([0.0, -0.0, 14.999999, 15.0, -15.0, 1e13])
    s = T.sind_u10(x)
    assert np.signbit(s[1]) and not np.signbit(s[0])
    assert np.allclose(s, np.sin(x), rtol=1e-15, atol=0)
    assert np.allclose(T.cosd_u10(x), np.cos(x), rtol=1e-14, atol=0)


POW_REAL = {   # [specials grid, x ** y, its x.grad, y.grad, 2.0 ** y, broadcast x ** y[0]]
    "3": ['541d4b5b2e68b96b', '2aabd84bbe0e8249', '4acc9806afd9dd8f', '08028bb970e9cda2',
          'c0919c88d3e7af72', 'a311d7dc2b007601'],
    "2.6": ['712e51246ca836a0', 'bb352ed60d13bb70', 'b4fc9d49ade7f0cf', '5a0c73574d95282f',
            'ab258c8629728c81', 'a311d7dc2b007601'],
}


def test_float64_tensor_pow(version):
    # Paddle 3's same-shape float64 x ** y is SLEEF's Sleef_powd1_u10 (IEEE special cases, NaN
    # results with every bit set); a broadcast one, and every 2.6 one, glibc's pow
    from conftest import skip_unless_x86_64

    skip_unless_x86_64("float64 pow: 2.6's and the broadcast x ** y are glibc's pow, recorded "
                       "with x86-64's glibc")
    rng = np.random.default_rng(81)
    sp = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, np.inf, -np.inf,
                   np.nan, 1e-310, 2.5, 710.0])
    X, Y = np.meshgrid(sp, sp)
    out = [_h(paddle.pow(paddle.to_tensor(X.ravel()), paddle.to_tensor(Y.ravel())))]
    a = np.exp(rng.standard_normal((40, 30)))
    b = rng.standard_normal((40, 30)) * 3
    # the bases built exactly (numpy's exp above, kept for the draws' order, follows numpy's
    # SIMD path: its last bits differ between AVX-512 and AVX2); records from real 3.3.1 and
    # 2.6.2 here for these inputs
    a = np.ldexp(rng.random((40, 30)) + 1.0, rng.integers(-4, 4, (40, 30)))
    x = paddle.to_tensor(a, stop_gradient=False)
    y = paddle.to_tensor(b, stop_gradient=False)
    z = paddle.pow(x, y)
    (z * paddle.to_tensor(rng.standard_normal(a.shape))).sum().backward()
    out += [_h(z), _h(x.grad), _h(y.grad)]
    out.append(_h(2.0 ** paddle.to_tensor(b)))
    out.append(_h(paddle.pow(paddle.to_tensor(a), paddle.to_tensor(b[0]))))
    assert out == POW_REAL[version]
