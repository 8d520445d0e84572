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
