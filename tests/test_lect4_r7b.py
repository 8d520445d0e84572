"""Lecture round seven B (torch): what the unseen scientific-ML / probabilistic-ML / RL / CS236
lecture scripts found (measured in /tmp/r7_b, outside the repository).

Literals are recorded from real torch 2.13.0+cpu and real Paddle 3.3.1 in this session
(2026-12-06) on the AMD EPYC Zen 4 machine; the cases use only elementwise float arithmetic
(no GEMM, no SIMD transcendental), so they hold on any x86-64 or aarch64 CPU.
"""
from __future__ import annotations

import math

import pytest

import gradrepl.torch as torch
from gradrepl.paddle import profiles


def _hex(t):
    return [float(v).hex() for v in t.detach().reshape(-1).tolist()]


# the MKL-dependent records below as real torch 2.13 printed them on MKL's AVX512_E1 path (an
# Intel Sapphire Rapids Xeon); the literals in the tests are the AMD EPYC's (MKL's AUTO path)
def _load_e1():
    import json
    import pathlib

    return json.loads((pathlib.Path(__file__).parent / "data" /
                       "lect4_r7b_AVX512_E1.json").read_text())


_E1 = _load_e1()


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
    if dtype == "float32":
        # the line search's cubic step takes a float32 tensor's sqrt: real torch's is MKL's
        # vsSqrt (its last bits follow MKL's code path); without MKL, under Haswell emulation
        # and on aarch64 the second loss was 3.1747049433761276e-11 (tests/test_cpu_classes.py)
        from conftest import skip_unless_mkl_branch
        from gradrepl.engine import mkl

        if not mkl.load():
            pytest.skip("MKL backend is not installed: float32 sqrt is not MKL's vsSqrt, "
                        "bytes not compared")
        if mkl.branch() == "AVX512_E1":   # real torch 2.13 on the Sapphire Rapids Xeon
            expected = tuple(_E1["lbfgs_float32"])
        else:
            skip_unless_mkl_branch("float32 LBFGS strong-Wolfe (vsSqrt)")
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


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_paddle_lbfgs_strong_wolfe_shares_the_line_search(version):
    # real Paddle 3.3.1 and 2.6.2 on the same Rosenbrock start, the same values (3.x's dot is
    # (x * y).sum(-1); 2.6's Tensor.dot, paddle.abs and a tensor first step: it raised
    # "bad operand type for abs(): 'Tensor'" here)
    import gradrepl.paddle as paddle
    profiles.set_profile(version)
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


# ------------------------------------------------ 0-d inputs stay 0-d (Gamma.log_prob gave [1])
_A, _B = 0.7, 1.3


def _zero_d_cases():
    a, b = torch.tensor(_A), torch.tensor(_B)
    F = torch.nn.functional
    return {
        "xlogy": (lambda: torch.xlogy(a, b), _A * math.log(_B)),
        "xlog1py": (lambda: torch.special.xlog1py(a, b), _A * math.log1p(_B)),
        "logaddexp2": (lambda: torch.logaddexp2(a, b), math.log2(2 ** _A + 2 ** _B)),
        "vector_norm": (lambda: torch.linalg.vector_norm(a), _A),
        "Tensor.norm": (lambda: a.norm(), _A),
        "dist p=1": (lambda: torch.dist(a, b, p=1), _B - _A),
        "dist p=0": (lambda: torch.dist(a, b, p=0), 1.0),
        "kl_div none": (lambda: F.kl_div(a, b, reduction="none"), _B * (math.log(_B) - _A)),
        "polar": (lambda: torch.polar(a, b), complex(_A * math.cos(_B), _A * math.sin(_B))),
    }


@pytest.mark.parametrize("name", list(_zero_d_cases()))
def test_zero_d_inputs_give_zero_d_results(name):
    # real torch 2.13: every one of these is 0-d (gradrepl gave shape [1]: np.ascontiguousarray)
    fn, expected = _zero_d_cases()[name]
    out = fn()
    assert tuple(out.shape) == ()
    assert abs(complex(out.item()) - expected) <= 1e-6 * max(1.0, abs(expected))


# real torch 2.13 (2026-12-06): log_prob of 0-d parameters is 0-d, these values
@pytest.mark.parametrize("name, make, value, expected", [
    ("Gamma", lambda D: D.Gamma(torch.tensor(2.0), torch.tensor(3.0)), 0.5, 0.004077434539794922),
    ("Chi2", lambda D: D.Chi2(torch.tensor(3.0)), 0.5, -1.5155121088027954),
    ("InverseGamma", lambda D: D.InverseGamma(torch.tensor(2.0), torch.tensor(3.0)), 0.5,
     -1.7233338356018066),
    ("Poisson", lambda D: D.Poisson(torch.tensor(2.0)), 3.0, -1.712317943572998),
])
def test_distributions_log_prob_of_zero_d_parameters(name, make, value, expected):
    out = make(torch.distributions).log_prob(torch.tensor(value))
    assert tuple(out.shape) == ()
    assert out.item() == pytest.approx(expected, rel=1e-6)


def test_zero_d_bool_tensor_index():
    # real torch 2.13: a 0-d bool tensor indexes as the bool it holds
    m = torch.tensor(3.0)
    assert tuple(m[m > 2].shape) == (1,) and tuple(m[m < 2].shape) == (0,)
    z = torch.arange(6.).reshape(2, 3)
    assert tuple(z[torch.tensor(True)].shape) == (1, 2, 3)
    assert tuple(z[0, torch.tensor(False)].shape) == (0, 3)
    assert z[torch.tensor(True), 1].tolist() == [[3.0, 4.0, 5.0]]
    x = torch.tensor(2.0, requires_grad=True)
    y = x[x > 1] * 3
    assert y.grad_fn.name() == "MulBackward0" and y.tolist() == [6.0]
    y.sum().backward()
    assert x.grad.item() == 3.0
    m[m > 2] = torch.tensor(3.0)[torch.tensor(True)].pow(2) * 2
    m[torch.tensor(False)] = 5.0
    assert m.item() == 18.0


def test_student_t_variance_of_zero_d_df():
    # real torch 2.13: tensor(3.) tensor(inf) tensor([nan, 2.])
    D = torch.distributions
    assert D.StudentT(torch.tensor(3.0)).variance.item() == 3.0
    assert D.StudentT(torch.tensor(1.5)).variance.item() == math.inf
    v = D.StudentT(torch.tensor([1.0, 4.0])).variance.tolist()
    assert math.isnan(v[0]) and v[1] == 2.0


# ------------------------------------- torch.func over a function closing over a parameter
def test_func_transforms_stay_differentiable_wrt_closed_over_parameters():
    # real torch 2.13 (the neural-ODE lecture's jacrev of its dynamics): the Jacobian of a
    # function that closes over a parameter has a grad_fn, and backward reaches the parameter
    from gradrepl.torch.func import grad_and_value, hessian, jacfwd, jacrev

    w = torch.nn.Parameter(torch.tensor([0.5, -1.5, 2.0]))
    v = torch.tensor([0.3, 0.2, -0.4])

    def f(x):
        return torch.tanh(x * w)

    for transform in (jacrev, jacfwd):
        J = transform(f)(v)
        assert J.requires_grad and J.grad_fn.name() == "ViewBackward0"
    assert hessian(lambda x: (torch.tanh(x * w) ** 2).sum())(v).grad_fn.name() == "ViewBackward0"
    g, val = grad_and_value(lambda x: torch.tanh(x * w).sum())(v)
    assert g.requires_grad and val.grad_fn.name() == "SumBackward0"
    J = jacrev(f)(v)
    J.sum().backward()
    # d/dw_i of w_i (1 - tanh(v_i w_i)^2), independently
    expected = []
    for wi, vi in zip([0.5, -1.5, 2.0], [0.3, 0.2, -0.4]):
        t = math.tanh(vi * wi)
        expected.append((1 - t * t) - 2 * wi * vi * t * (1 - t * t))
    assert w.grad.tolist() == pytest.approx(expected, rel=1e-5)
    # no closed-over parameter in the Jacobian's history, or no grad mode: no history
    assert not jacrev(lambda x: x + w)(v).requires_grad
    assert not jacrev(torch.tanh)(v).requires_grad
    with torch.no_grad():
        assert not jacrev(f)(v).requires_grad


# ----------------------- a create_graph backward differentiated again (the PINN lecture's u_x)
# real torch 2.13 (2026-12-06, AMD EPYC, MKL): the weight gradients of sum(u_x * c) for a
# three-layer linear chain; MKL's GEMM order, so compared where MKL runs the recorded path
_PINN_W1 = [
    '-0x1.28f4400000000p+5', '0x1.c45b340000000p+2', '0x1.a3dbc80000000p+5',
    '-0x1.b627240000000p+3', '0x1.a1fb100000000p+4', '0x1.0d835a0000000p+5',
    '-0x1.36e7720000000p+3', '-0x1.42fad80000000p+4', '-0x1.04c11c0000000p+4',
    '0x1.8d36620000000p+1', '0x1.70ad220000000p+4', '-0x1.80bd900000000p+2',
    '0x1.6f07040000000p+3', '0x1.d951240000000p+3', '-0x1.1100f40000000p+2',
    '-0x1.1b9b800000000p+3', '0x1.04ff8c0000000p+5', '-0x1.8d95800000000p+2',
    '-0x1.71056a0000000p+5', '0x1.8119b20000000p+3', '-0x1.6f5ee60000000p+4',
    '-0x1.d9c27c0000000p+4', '0x1.1142560000000p+3', '0x1.1bdf6a0000000p+4',
    '0x1.d486680000000p-1', '-0x1.64db5e0000000p-3', '-0x1.4b38500000000p+0',
    '0x1.59a6f00000000p-2', '-0x1.49bd140000000p-1', '-0x1.a93ac00000000p-1',
    '0x1.ea88ec0000000p-3', '0x1.fd96740000000p-2', '-0x1.c194c80000000p+2',
    '0x1.566d9c0000000p+0', '0x1.3dd3ea0000000p+3', '-0x1.4bad280000000p+1',
    '0x1.3c68040000000p+2', '0x1.9809460000000p+2', '-0x1.d6b37e0000000p+0',
    '-0x1.e8fbcc0000000p+1', '-0x1.a523060000000p+1', '0x1.40c3620000000p-1',
    '0x1.29b8200000000p+2', '-0x1.36b1120000000p+0', '0x1.2863420000000p+1',
    '0x1.7e38680000000p+1', '-0x1.b8eba80000000p-1', '-0x1.ca0bd80000000p+0',
    '0x1.755f320000000p+5', '-0x1.1c61ee0000000p+3', '-0x1.07f3c20000000p+6',
    '0x1.13740c0000000p+4', '-0x1.06c58c0000000p+5', '-0x1.52de860000000p+5',
    '0x1.86e9660000000p+3', '0x1.9618560000000p+4', '0x1.32d2a40000000p+6',
    '-0x1.d363bc0000000p+3', '-0x1.b1cfd60000000p+6', '0x1.c4b6d00000000p+4',
    '-0x1.afdf220000000p+5', '-0x1.16784c0000000p+6', '0x1.413c860000000p+4',
    '0x1.4db6ac0000000p+5']
_PINN_W2 = [
    '0x1.0406880000000p+2', '-0x1.5c0cce0000000p+6', '-0x1.6729a80000000p+5',
    '0x1.6093780000000p+4', '-0x1.2ecc5e0000000p+6', '-0x1.5f29e80000000p+4',
    '0x1.d8efc00000000p+4', '0x1.862cc80000000p+6']


def test_double_backward_of_linear_layers_sums_as_torch():
    from conftest import skip_unless_mkl_branch
    from gradrepl.engine import mkl

    if not mkl.load():
        pytest.skip("MKL backend is not installed: the products are not MKL's, bytes not compared")
    from conftest import record_for_mkl_branch

    want_w1, want_w2 = record_for_mkl_branch("double backward of linear layers", {
        "AUTO": (_PINN_W1, _PINN_W2), "AVX512_E1": (_E1["pinn_w1"], _E1["pinn_w2"])})
    if mkl.branch() == "AUTO":
        skip_unless_mkl_branch("double backward of linear layers", approximations=False)
    torch.manual_seed(0)
    H = 8
    W0 = torch.randn(H, 1, requires_grad=True)
    b0 = torch.randn(H, requires_grad=True)
    W1 = torch.randn(H, H, requires_grad=True)
    b1 = torch.randn(H, requires_grad=True)
    W2 = torch.randn(1, H, requires_grad=True)
    x = torch.linspace(0, 1, 32).view(-1, 1).requires_grad_(True)
    F = torch.nn.functional
    u = F.linear(F.linear(F.linear(x, W0, b0), W1, b1), W2)
    ux = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    c = torch.linspace(-1, 2, 32).view(-1, 1)
    g1, g2 = torch.autograd.grad((ux * c).sum(), [W1, W2])
    assert _hex(g1) == want_w1
    assert _hex(g2) == want_w2


# real torch 2.13 (as above): the PINN's u_xx (two create_graph backwards) through two tanh
# layers, then backward: W0, b0, W1's gradients (torch's node order: the transposes of the
# products' VJPs and TanhBackwardBackward0's muls are nodes of their own, summed in its order)
_PINN_UXX = [[
    '0x1.c07f880000000p+4', '-0x1.5d04720000000p+4', '-0x1.aee8b60000000p+3',
    '0x1.ab9a4c0000000p-2', '0x1.b0adee0000000p+1', '0x1.e6aff00000000p+6',
    '0x1.d5c8000000000p-8', '-0x1.0557c00000000p+5'], [
    '0x1.2c27180000000p+3', '0x1.c37fc40000000p+2', '-0x1.66e5bc0000000p+5',
    '0x1.61d9cc0000000p-1', '-0x1.15de8c0000000p+3', '0x1.1f55040000000p+7',
    '-0x1.13eef80000000p+3', '0x1.38fc740000000p+1'], [
    '0x1.6feb460000000p+1', '-0x1.3532ee0000000p-1', '-0x1.ebff800000000p-4',
    '0x1.2f1b680000000p-1', '-0x1.43c2b80000000p+0', '0x1.3152260000000p+0',
    '-0x1.9013140000000p+0', '0x1.0c229a0000000p+0', '0x1.b0eb1a0000000p+5',
    '-0x1.5d62860000000p+4', '-0x1.0cbca80000000p+5', '0x1.b210980000000p+4',
    '-0x1.126e340000000p+5', '-0x1.78b58a0000000p+4', '-0x1.12f5920000000p+4',
    '0x1.1791da0000000p+5', '-0x1.474e3e0000000p+5', '-0x1.263f980000000p+2',
    '-0x1.c46a100000000p+4', '0x1.61a6d00000000p+0', '-0x1.46419e0000000p+3',
    '0x1.da899a0000000p+3', '-0x1.5ddee40000000p+2', '-0x1.ecee880000000p+0',
    '0x1.63f6a00000000p-2', '-0x1.c10bb20000000p-3', '-0x1.d57e880000000p-3',
    '0x1.43dbc00000000p-2', '-0x1.4b38e00000000p-3', '-0x1.0e26020000000p+0',
    '0x1.81f6d00000000p-3', '0x1.3441980000000p-2', '-0x1.46eba00000000p+2',
    '0x1.6d7c820000000p+1', '0x1.a464720000000p+1', '-0x1.c94f040000000p+1',
    '0x1.b4613c0000000p+1', '0x1.c9981e0000000p+2', '0x1.0d67780000000p-1',
    '-0x1.f283260000000p+1', '-0x1.f144f80000000p-5', '0x1.e213a20000000p-6',
    '0x1.0ea7e80000000p-5', '-0x1.41f92c0000000p-5', '0x1.094e000000000p-5',
    '0x1.760ee80000000p-4', '-0x1.0fcce00000000p-9', '-0x1.5ed0ea0000000p-5',
    '-0x1.43bb860000000p+6', '0x1.41863e0000000p+1', '-0x1.8c9af40000000p+3',
    '-0x1.3fbdc20000000p+3', '0x1.26ca9e0000000p+2', '0x1.06ea440000000p+4',
    '0x1.799be80000000p+1', '-0x1.4849f00000000p+4', '-0x1.c467300000000p+6',
    '0x1.93a0ec0000000p+2', '0x1.753bfc0000000p+4', '-0x1.44fafc0000000p+4',
    '0x1.39b4740000000p+4', '0x1.b563900000000p+2', '0x1.b761f80000000p+2',
    '-0x1.432f080000000p+5']]


def test_third_order_through_tanh_layers_sums_as_torch():
    from conftest import skip_unless_mkl_branch
    from gradrepl.engine import mkl

    if not mkl.load():
        pytest.skip("MKL backend is not installed: the products are not MKL's, bytes not compared")
    from conftest import record_for_mkl_branch

    want = record_for_mkl_branch("third-order gradients of tanh layers", {
        "AUTO": _PINN_UXX, "AVX512_E1": _E1["pinn_uxx"]})
    if mkl.branch() == "AUTO":
        skip_unless_mkl_branch("third-order gradients of tanh layers", approximations=False)
    torch.manual_seed(0)
    H = 8
    W0 = torch.randn(H, 1, requires_grad=True)
    b0 = torch.randn(H, requires_grad=True)
    W1 = (torch.randn(H, H) * 0.3).requires_grad_(True)
    b1 = torch.randn(H, requires_grad=True)
    W2 = torch.randn(1, H, requires_grad=True)
    x = torch.linspace(0, 1, 32).view(-1, 1).requires_grad_(True)
    F = torch.nn.functional
    u = F.linear(torch.tanh(F.linear(torch.tanh(F.linear(x, W0, b0)), W1, b1)), W2)
    ux = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    uxx = torch.autograd.grad(ux, x, torch.ones_like(ux), create_graph=True)[0]
    c = torch.linspace(-1, 2, 32).view(-1, 1)
    got = torch.autograd.grad((uxx * c).sum(), [W0, b0, W1])
    assert [_hex(t) for t in got] == want
