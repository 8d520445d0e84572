"""Lecture round seven B (torch): what the unseen scientific-ML / probabilistic-ML / RL / CS236
lecture scripts found (measured in /tmp/r7_b, outside the repository).

Literals are recorded from real torch 2.13.0+cpu and real Paddle 3.3.1 in this session
(2026-12-06) on the AMD EPYC Zen 4 machine; the cases use only elementwise float arithmetic
(no GEMM, no SIMD transcendental), so they hold on any x86-64 or aarch64 CPU.
"""
from __future__ import annotations

import pytest

import gradrepl.torch as torch
from gradrepl.paddle import profiles


def _hex(t):
    return [float(v).hex() for v in t.detach().reshape(-1).tolist()]


def _rosenbrock_lbfgs(dtype):
    x = torch.tensor([-1.5, 2.0], dtype=dtype, requires_grad=True)
    opt = torch.optim.LBFGS([x], lr=1, max_iter=50, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    first = opt.step(closure).item()
    second = opt.step(closure).item()
    st = opt.state[x]
    return first, second, _hex(x), st["func_evals"], st["n_iter"], st["t"], len(st["old_dirs"])


# real torch 2.13: the PINN lecture's LBFGS(line_search_fn="strong_wolfe") on Rosenbrock
@pytest.mark.parametrize("dtype, expected", [
    ("float32", (12.5, 3.3097080631705467e-11, ['0x1.0000360000000p+0', '0x1.0000640000000p+0'],
                 49, 41, 1, 39)),
    ("float64", (12.5, 1.8769270132829514e-10, ['0x1.ffffbcb3563eap-1', '0x1.ffffa6e035194p-1'],
                 52, 42, 1, 40)),
])
def test_lbfgs_strong_wolfe_rosenbrock(dtype, expected):
    assert _rosenbrock_lbfgs(getattr(torch, dtype)) == expected


def test_lbfgs_strong_wolfe_step_is_a_tensor_on_the_first_iteration():
    # torch: t = min(1, 1 / |g|_1) * lr is a 0-d tensor while |g|_1 > 1; the line search keeps it
    x = torch.tensor([3.0, -4.0], requires_grad=True)
    opt = torch.optim.LBFGS([x], max_iter=1, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = (x ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    t = opt.state[x]["t"]
    assert isinstance(t, torch.Tensor)
    # real torch 2.13: x after one strong-Wolfe iteration, and the evaluations it took
    assert (_hex(x), opt.state[x]["func_evals"]) == (['0x1.4924920000000p+1', '-0x1.b6db6e0000000p+1'], 2)


def test_lbfgs_other_line_search_is_torchs_error():
    x = torch.tensor([1.0], requires_grad=True)
    opt = torch.optim.LBFGS([x], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (x ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="^only 'strong_wolfe' is supported$"):
        opt.step(closure)


def test_paddle_lbfgs_strong_wolfe_shares_the_line_search():
    # real Paddle 3.3.1 on the same Rosenbrock start (its dot is (x * y).sum(-1))
    import gradrepl.paddle as paddle
    profiles.set_profile("3")
    x = paddle.to_tensor([-1.5, 2.0], stop_gradient=False)
    opt = paddle.optimizer.LBFGS(learning_rate=1, max_iter=30, line_search_fn="strong_wolfe",
                                 parameters=[x])

    def closure():
        opt.clear_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    got = []
    for _ in range(2):
        loss = opt.step(closure)
        got.append((float(loss), [float(v).hex() for v in x.numpy()]))
    assert got == [(12.5, ['0x1.93e1f80000000p-1', '0x1.3952d80000000p-1']),
                   (0.0551961287856102, ['0x1.fffd1e0000000p-1', '0x1.fffa380000000p-1'])]
