"""paddle.abs of complex values: forward hypot(re, im); gradient as each version's abs_grad kernel
(profile field complex_abs_grad): 3.3.1 dout * (x * (1 / |x|)), 2.6.2 dout * (x / complex(|x|, 0))
by the naive quotient (NaN where |x|^2 underflows), +0 where x == 0. Found by PM15A's Paddle
Quantum classifier (|psi|^2 measurement probabilities; numpy's sign(x) rounded x / |x| otherwise)."""
from __future__ import annotations

import hashlib

import numpy as np

# md5 (first 10 hex) of x.grad (complex64, complex128) printed by real Paddle here, and of the
# forward |x| (same in both): for each dtype v = standard_normal(3000) + 1j * standard_normal(3000)
# from default_rng(2) with v[:4] = [0, 1e-30j, -3, 2j]; g = standard_normal(3000) after it;
# paddle.abs(x).backward(g)
REAL_GRAD = {"3": ["fda59318e1", "e18f79116b"], "2.6": ["f2528de1d5", "6e805dc026"]}
REAL_ABS = ["db8bba1cf6", "b513c79337"]


def test_complex_abs_and_its_gradient(version):
    import gradrepl.paddle as paddle
    from conftest import skip_unless_x86_64

    # (|x| is the C library's hypot: aarch64's glibc gave other bits for complex128, qemu arm64)
    skip_unless_x86_64("complex abs: hypot of x86-64's glibc, as real Paddle's x86-64 wheel")

    rng = np.random.default_rng(2)
    grads, outs = [], []
    for dt in ("complex64", "complex128"):
        v = rng.standard_normal(3000) + 1j * rng.standard_normal(3000)
        v[:4] = [0, 1e-30j, -3.0, 2j]
        x = paddle.to_tensor(v, dtype=dt, stop_gradient=False)
        a = paddle.abs(x)
        a.backward(paddle.to_tensor(rng.standard_normal(3000), dtype=a.dtype))
        grads.append(hashlib.md5(x.grad.numpy().tobytes()).hexdigest()[:10])
        outs.append(hashlib.md5(a.numpy().tobytes()).hexdigest()[:10])
    assert outs == REAL_ABS
    assert grads == REAL_GRAD[version]
