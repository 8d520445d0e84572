"""Paddle's softmax along an axis followed only by axes of size 1 (gradrepl/engine/ops/nn.py
``_trailing_ones``): the kernel views x as [n, d] rows with d = prod(shape[axis:]), so its
remain d / axis_dim is 1 and it takes the AVX path of the last axis (vec_exp, vec_sum, a scale
by 1 / sum; the gradient's vec_mul_reduce), not the Eigen one. Before, gradrepl took the Eigen
path for any axis but the last: an attention's F.softmax(energies, axis=1) over [N, Tx, 1]
(Ng C5W3 date translation, PM17B s11) printed alphas 1 ulp off; a sweep of 20 such cases
(float32/float64) had 17 off, now 20 equal.

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel Sapphire Rapids
machine, 2026-12-07: x and the weights w from ``np.random.RandomState(sum(shape) + axis).randn``,
x * 3; y = F.softmax(x, axis), (y * w).sum().backward(); sha256 of y and x.grad, first 16 hex
digits. Rows of 128 float32 values and more, and float64 rows, take MKL's vsExp/vdExp: those
cases are compared only where MKL takes the recorded code path.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from conftest import skip_unless_mkl_path

_CASES = [("float32", (64, 20, 1), 1, ("e9cbf5304cf41357", "d4558bf1d9c4455c"), False),
          ("float32", (3, 7, 1, 1), 1, ("f00f1b9b587010f6", "32edec9dbf76600b"), False),
          ("float32", (2, 3, 17, 1), 2, ("641ab1a9a10287a8", "41d4d245ae44c6c6"), False),
          ("float32", (10, 1, 1), 0, ("dc6daab6245704a2", "1ef7c5cf209dd3ee"), False),
          ("float32", (5, 9, 1), -2, ("254ded4be727b435", "71e56d3e55d95068"), False),
          ("float32", (1, 300, 1, 1), 1, ("fdac768dd6d913b4", "6feb2092804cc09a"), True),
          ("float64", (8, 12, 1), 1, ("9f995cceee08e4e4", "05e19d0a81443ea5"), True)]


def _digest(t):
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("dtype, shape, axis, want, mkl", _CASES)
def test_softmax_before_trailing_ones_as_paddle(version, dtype, shape, axis, want, mkl):
    if mkl:
        skip_unless_mkl_path(f"Paddle softmax {dtype} {shape} (MKL's vector exp)")
    from gradrepl.paddle import state

    state.reset(version)
    import gradrepl.paddle as paddle

    try:
        rs = np.random.RandomState(sum(shape) + axis)
        x = paddle.to_tensor((rs.randn(*shape) * 3).astype(dtype), stop_gradient=False)
        y = paddle.nn.functional.softmax(x, axis=axis)
        w = paddle.to_tensor(rs.randn(*shape).astype(dtype))
        (y * w).sum().backward()
        got = (_digest(y), _digest(x.grad))
    finally:
        state.reset()
    assert got == want
