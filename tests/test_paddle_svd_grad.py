"""paddle.linalg.svd's gradient as Paddle's svd_grad kernel computes it, in the input's dtype
with its products and elementwise steps (engine/ops/linalg_more.py ``_paddle_svd_grad``); was
Townsend's formula in float64, rounded once (last bits off: PM14B's round-14 linalg script,
the gradient of svd(P)[1].sum()). Digests (int32 view summed mod 100003) printed by real Paddle
3.3.1 and 2.6.2 (the same) on this machine. The forward is the reference LAPACK backend's
(``_ref_lapack``; skipped without it)."""
import numpy as np
import pytest

import gradrepl.paddle as paddle

REAL = [((3, 3), 41388, 26503, 53930, 3153, 95332),
        ((4, 3), 21198, 17498, 33740, 65977, 92942),
        ((3, 5), 43046, 12635, 25723, 28638, 87387),
        ((6, 6), 91387, 75533, 37124, 22096, 11246)]


def _d(t):
    return int(t.numpy().view("int32").sum() % 100003)


def test_svd_gradients_equal_real_paddle(version):
    from gradrepl.paddle import _ref_lapack

    if not _ref_lapack.available():
        pytest.skip("the reference LAPACK backend (exact extra) is absent: svd's last bits differ")
    rng = np.random.RandomState(12)
    got = []
    for shape in [(3, 3), (4, 3), (3, 5), (6, 6)]:
        P = paddle.to_tensor(rng.randn(*shape).astype("float32"), stop_gradient=False)
        U, s, Vh = paddle.linalg.svd(P)
        row = [shape, _d(U), _d(s), _d(Vh)]
        s.sum().backward()
        row.append(_d(P.grad))
        P.clear_grad()
        U, s, Vh = paddle.linalg.svd(P)
        (U.sum() + (s * s).sum()).backward()
        row.append(_d(P.grad))
        got.append(tuple(row))
    assert got == REAL


def test_batched_svd_gradients_equal_real_paddle(version):
    from gradrepl.paddle import _ref_lapack

    if not _ref_lapack.available():
        pytest.skip("the reference LAPACK backend (exact extra) is absent: svd's last bits differ")
    rng = np.random.RandomState(30)
    got = []
    for shape in [(2, 4, 3), (3, 3, 5)]:
        P0 = rng.randn(*shape).astype("float32")
        for mode in ["u", "v", "s"]:
            P = paddle.to_tensor(P0, stop_gradient=False)
            U, s, Vh = paddle.linalg.svd(P)
            loss = {"u": lambda: U.sum(), "v": lambda: (Vh * Vh[..., 0:1, :]).sum(),
                    "s": lambda: (s * s).sum()}[mode]()
            loss.backward()
            got.append(_d(P.grad))
    # real 3.3.1 and 2.6.2 (the Vh terms were off before the batched x @ y^T chain)
    assert got == [13280, 15273, 8495, 63294, 94728, 73728]
