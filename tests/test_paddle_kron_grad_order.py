"""paddle.kron as its kernels: out = x[i] * y[k] (complex: the C++ product), and kron_grad's one
loop over dout, dx[i] += dout * conj(y[k]) and dy[k] += dout * conj(x[i]) from zero, each
gradient adding its terms in the other operand's flat order. Found by PM15A's Paddle Quantum VQE
(kron of rotation gates: one parameter's gradient 1 ulp off, the optimisation drifting)."""
from __future__ import annotations

import hashlib

import numpy as np

CASES = [("float32", (3, 4), (5, 6)), ("complex64", (2, 2), (2, 2)), ("complex64", (3, 4), (4, 3)),
         ("float32", (4,), (2, 3)), ("complex128", (2, 3, 2), (3, 2, 2))]
# md5 (first 10 hex) of out, x.grad, y.grad in real 3.3.1 and 2.6.2 here (identical): x, y, dout
# drawn in this order from default_rng(7) as standard_normal(shape) (+ 1j * standard_normal(shape)
# for complex), out.backward(dout)
REAL = [("3a40c99c6d", "acf96cc5bb", "ab4f060b2f"), ("379cd94f45", "b7a746310c", "907808b312"),
        ("76f3bddfc6", "fc5778df96", "2853028f3e"), ("5c30fe4253", "a9680a6ba9", "489b731aa9"),
        ("20cfac17f6", "4e7c4526d0", "9fce27d696")]


def test_kron_and_its_gradient_order(version):
    import gradrepl.paddle as paddle

    rng = np.random.default_rng(7)
    got = []
    for dt, xs, ys in CASES:
        cplx = dt.startswith("c")

        def draw(s):
            return rng.standard_normal(s) + (1j * rng.standard_normal(s) if cplx else 0)

        x, y = draw(xs), draw(ys)
        tx = paddle.to_tensor(x, dtype=dt, stop_gradient=False)
        ty = paddle.to_tensor(y, dtype=dt, stop_gradient=False)
        out = paddle.kron(tx, ty)
        out.backward(paddle.to_tensor(draw(out.shape), dtype=dt))
        got.append(tuple(hashlib.md5(t.numpy().tobytes()).hexdigest()[:10]
                         for t in (out, tx.grad, ty.grad)))
    assert got == REAL
