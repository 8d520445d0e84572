"""First-order gradients do not depend on ``create_graph`` (issue 28, exactness).

Real torch and Paddle run the same backward kernels with and without ``create_graph`` (the
double-backward formulas are attached to them), so a WGAN-GP penalty's or a PINN's first-order
gradient has the bits a plain backward gives. gradrepl's VJPs marked
``registry.exact_first_order`` compute exact values (oneDNN convolution gradients, torch's
normalisation and softmax kernels, Paddle's batch_norm/layer_norm grad kernels) only with grad
mode off; under ``create_graph`` the engine (``backward.exact_values``) runs them both ways and
gives the recorded gradients the exact values. Here:

- every marked VJP (found through the op objects) is reached by a case below, and each case's
  first-order gradients are bit-equal with and without ``create_graph`` (gradrepl against
  itself: holds on any CPU);
- the second-order results are the recorded formula's: equal (to float32 rounding) to what
  the same graph gives without the exact values, and to central differences (float64);
- a strided Conv2d critic's WGAN-GP input gradient and a tanh MLP PINN's u_x against real
  torch 2.13 (recorded in this session on the AVX-512 Zen 4 machine; the convolution's oneDNN
  gradient bits are the AVX-512 kernels', so those compare only there).
"""
from __future__ import annotations

import gc

import numpy as np
import pytest

import gradrepl.paddle as paddle
import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F
from gradrepl.engine import backward as B
from gradrepl.engine.registry import OpDef


def grid(shape, seed, scale=1.0):
    """Inputs from a fixed integer formula (rebuilt the same way under real torch)."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    v = ((i * 7919 + seed * 104729) % 1000 - 500) / 1000.0
    return (v * scale).astype(np.float32).reshape(shape)


def tt(shape, seed, scale=1.0, grad=True):
    return torch.tensor(grid(shape, seed, scale), requires_grad=grad)


def _conv_bias():
    x, w, b = tt((2, 3, 9, 9), 1), tt((4, 3, 4, 4), 2, 0.3), tt((4,), 3)
    return F.conv2d(x, w, b, stride=2), (x, w, b)


def _conv_nobias():
    x, w = tt((2, 3, 8, 8), 4), tt((5, 3, 3, 3), 5, 0.3)
    return F.conv2d(x, w, padding=1), (x, w)


def _conv1d():
    x, w, b = tt((2, 3, 17), 6), tt((4, 3, 3), 7, 0.3), tt((4,), 8)
    return F.conv1d(x, w, b, stride=2), (x, w, b)


def _conv_transpose():
    x, w, b = tt((2, 4, 5, 5), 9), tt((4, 3, 4, 4), 10, 0.3), tt((3,), 11)
    return F.conv_transpose2d(x, w, b, stride=2), (x, w, b)


def _batch_norm():
    x, w, b = tt((4, 3, 5, 5), 12), tt((3,), 13), tt((3,), 14)
    return F.batch_norm(x, None, None, w, b, training=True), (x, w, b)


def _layer_norm():
    x, w, b = tt((4, 6, 10), 15), tt((10,), 16), tt((10,), 17)
    return F.layer_norm(x, (10,), w, b), (x, w, b)


def _group_norm():
    x, w, b = tt((3, 6, 4, 4), 18), tt((6,), 19), tt((6,), 20)
    return F.group_norm(x, 3, w, b), (x, w, b)


def _instance_norm():
    x, w, b = tt((3, 4, 5, 5), 21), tt((4,), 22), tt((4,), 23)
    return F.instance_norm(x, weight=w, bias=b), (x, w, b)


def _softmax():
    x = tt((5, 37), 24, 4.0)
    return F.softmax(x, dim=1), (x,)


def _log_softmax_nll():
    x = tt((6, 11), 25, 4.0)
    target = torch.tensor([0, 3, 10, 2, 2, 7])
    return F.nll_loss(F.log_softmax(x, dim=1), target), (x,)


def _weight_norm():
    v, g = tt((6, 20), 26), tt((6, 1), 27)
    return torch._weight_norm(v, g, 0), (v, g)


def _paddle_batch_norm():
    x = paddle.to_tensor(grid((4, 3, 5, 5), 28), stop_gradient=False)
    bn = paddle.nn.BatchNorm2D(3)
    return bn(x), (x, bn.weight, bn.bias)


def _paddle_layer_norm():
    x = paddle.to_tensor(grid((4, 6, 10), 29), stop_gradient=False)
    ln = paddle.nn.LayerNorm(10)
    return ln(x), (x, ln.weight, ln.bias)


def _paddle_hsigmoid_loss():
    """F.hsigmoid_loss (default tree, with a bias): its kernel's gradients, exact_first_order."""
    x = paddle.to_tensor(grid((4, 5), 30), stop_gradient=False)
    w = paddle.to_tensor(grid((5, 5), 31, 0.5), stop_gradient=False)
    b = paddle.to_tensor(grid((5, 1), 32, 0.5), stop_gradient=False)
    label = paddle.to_tensor(np.array([0, 3, 2, 5], np.int64))
    out = paddle.nn.functional.hsigmoid_loss(x, label, 6, w, b)
    return out, (x, w, b)


def _paddle_instance_norm_grad():
    """The first-order gradient of an instance norm (one instance_norm_grad node): its own
    gradient is Paddle's instance_norm_double_grad kernel, exact_first_order."""
    x = paddle.to_tensor(grid((2, 3, 4, 4), 33), stop_gradient=False)
    inn = paddle.nn.InstanceNorm2D(3)
    y = inn(x)
    gx = paddle.grad((y * y).sum(), x, create_graph=True)[0]
    return gx, (x, inn.scale)


# (not _group_norm: real torch 2.13 itself computes group norm's first-order gradients under
# create_graph with its differentiable composite, other bits: test_torch_double_backward_conv_bn)
TORCH_CASES = {f.__name__[1:]: f for f in (
    _conv_bias, _conv_nobias, _conv1d, _conv_transpose, _batch_norm, _layer_norm,
    _instance_norm, _softmax, _log_softmax_nll, _weight_norm)}
PADDLE_CASES = {f.__name__[1:]: f for f in (_paddle_batch_norm, _paddle_layer_norm,
                                             _paddle_hsigmoid_loss, _paddle_instance_norm_grad)}


def _seed_like(out, seed=99):
    return grid(tuple(out.shape), seed, 1.0) if out.ndim else np.float32(1.0)


def _torch_grads(case, create_graph):
    out, ins = case()
    seed = torch.tensor(_seed_like(out))
    return torch.autograd.grad(out, ins, seed, create_graph=create_graph), ins


def _paddle_grads(case, create_graph):
    out, ins = case()
    seed = paddle.to_tensor(_seed_like(out))
    return paddle.grad(out, list(ins), seed, create_graph=create_graph), ins


def _array(t):
    return np.array(t.detach().numpy() if hasattr(t, "detach") else t.numpy())


def _bits_equal(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.fixture
def seen(monkeypatch):
    """The VJPs the engine re-ran for exact values (by function identity)."""
    ran = []
    real = B.exact_values

    def spy(node, buf, in_grads, start):
        ran.append(node.op.vjp)
        return real(node, buf, in_grads, start)

    monkeypatch.setattr(B, "exact_values", spy)
    return ran


@pytest.mark.parametrize("name", sorted(TORCH_CASES))
def test_torch_first_order_is_the_same_with_create_graph(name, seen):
    plain, _ = _torch_grads(TORCH_CASES[name], False)
    recorded, _ = _torch_grads(TORCH_CASES[name], True)
    assert seen, "no exact_first_order VJP ran"
    assert any(g.requires_grad for g in recorded)
    for a, b in zip(plain, recorded):
        assert _bits_equal(_array(a), _array(b)), name


@pytest.mark.parametrize("name", sorted(PADDLE_CASES))
def test_paddle_first_order_is_the_same_with_create_graph(name, seen):
    plain, _ = _paddle_grads(PADDLE_CASES[name], False)
    recorded, _ = _paddle_grads(PADDLE_CASES[name], True)
    assert seen, "no exact_first_order VJP ran"
    for a, b in zip(plain, recorded):
        assert _bits_equal(_array(a), _array(b)), name
        assert not b.stop_gradient


def _marked_vjps():
    return {id(o.vjp): o.vjp for o in gc.get_objects()
            if isinstance(o, OpDef) and getattr(o.vjp, "exact_first_order", False)}


def test_every_marked_vjp_is_covered(seen):
    for case in TORCH_CASES.values():
        _torch_grads(case, True)
    for case in PADDLE_CASES.values():
        _paddle_grads(case, True)
    marked = _marked_vjps()
    assert len(marked) >= 12
    missing = [getattr(f, "__qualname__", f) for k, f in marked.items()
               if k not in {id(v) for v in seen}]
    assert not missing, f"marked VJPs no case reaches: {missing}"


def _second_order(case, monkeypatch=None):
    """d/d(inputs) of sum(first-order grads * fixed weights), through the recorded graph."""
    grads, ins = _torch_grads(case, True)
    total = None
    for k, g in enumerate(grads):
        term = (g * torch.tensor(grid(tuple(g.shape), 50 + k))).sum()
        total = term if total is None else total + term
    return [_array(h) if h is not None else None
            for h in torch.autograd.grad(total, ins, allow_unused=True)]


@pytest.mark.parametrize("name", sorted(TORCH_CASES))
def test_second_order_is_the_recorded_formula(name, monkeypatch):
    with_exact = _second_order(TORCH_CASES[name])
    monkeypatch.setattr(B, "exact_values", lambda node, buf, in_grads, start: in_grads)
    formula = _second_order(TORCH_CASES[name])
    for a, b in zip(with_exact, formula):
        assert (a is None) == (b is None)
        if a is not None:
            scale = max(float(np.abs(b).max()), 1.0)
            np.testing.assert_allclose(a, b, rtol=0, atol=2e-5 * scale)


def test_second_order_of_a_strided_conv_against_central_differences():
    """float64 (no exact kernel): the input gradient's norm, differentiated w.r.t. the weight."""
    x = torch.tensor(grid((2, 1, 9, 9), 31).astype(np.float64), requires_grad=True)
    w0 = grid((3, 1, 4, 4), 32, 0.5).astype(np.float64)

    def penalty(wv, create):
        w = torch.tensor(wv, requires_grad=True)
        y = torch.tanh(F.conv2d(x, w, stride=2))
        gx, = torch.autograd.grad(y.sum(), x, create_graph=create)
        return ((gx ** 2).sum()), w

    p, w = penalty(w0, True)
    gw, = torch.autograd.grad(p, w)
    eps = 1e-6
    fd = np.zeros_like(w0)
    for i in np.ndindex(w0.shape):
        d = np.zeros_like(w0)
        d[i] = eps
        fd[i] = (penalty(w0 + d, False)[0].item() - penalty(w0 - d, False)[0].item()) / (2 * eps)
    np.testing.assert_allclose(_array(gw), fd, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------ against real torch 2.13
def _sha(t):
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(_array(t)).tobytes()).hexdigest()[:16]


def _load(module, seed):
    with torch.no_grad():
        for k, (_name, p) in enumerate(module.named_parameters()):
            p.copy_(torch.tensor(grid(tuple(p.shape), seed + k, 0.4)))


def test_wgan_gp_penalty_of_a_strided_conv_critic_is_real_torchs():
    from conftest import skip_unless_mkl_branch, skip_without_avx512
    from gradrepl.engine import mkl

    skip_without_avx512("WGAN-GP critic input gradient (oneDNN convolution backward)")
    if not mkl.load():   # (a lean install without the exact extra: other bits, measured 71ed4a...)
        pytest.skip("MKL backend is not installed: the critic's batch norm and products are not "
                    "MKL's, bytes not compared")
    e1 = mkl.branch() == "AVX512_E1"   # (real torch 2.13 on an Intel Sapphire Rapids Xeon)
    if not e1:
        skip_unless_mkl_branch("WGAN-GP critic (MKL kernels)", approximations=False)
    nn = torch.nn
    crit = nn.Sequential(nn.Conv2d(1, 4, 4, 2), nn.BatchNorm2d(4), nn.LeakyReLU(0.2),
                         nn.Conv2d(4, 8, 4, 2), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 2, 1))
    _load(crit, 40)
    real = torch.tensor(grid((4, 1, 14, 14), 60))
    fake = torch.tanh(torch.tensor(grid((4, 1, 14, 14), 61, 3.0)))
    eps = torch.tensor(grid((4, 1, 1, 1), 62)) + 0.5
    mixed = (real * eps + fake * (1 - eps)).requires_grad_()
    scores = crit(mixed)
    plain = torch.autograd.grad(scores, mixed, torch.ones_like(scores), retain_graph=True)[0]
    g = torch.autograd.grad(scores, mixed, torch.ones_like(scores), create_graph=True)[0]
    gp = ((g.view(4, -1).norm(2, dim=1) - 1) ** 2).mean()
    # real torch 2.13 (this session, Zen 4): the same bits with and without create_graph
    assert _sha(plain) == _sha(g) == ("415a33800e4828e5" if e1 else "0cf607d50aa105cd")
    assert [float(v).hex() for v in g.detach().reshape(-1)[100:103]] == [
        "-0x1.2c97260000000p-13", "-0x1.c8db1c0000000p-12", "-0x1.4332d20000000p-10"]
    assert gp.item().hex() == "0x1.fa19f40000000p-1"
    gp.backward()   # second order runs (its last bits are the recorded formula's, not torch's)
    assert crit[0].weight.grad is not None and crit[3].weight.grad is not None


def test_pinn_u_x_u_xx_and_parameter_gradients_are_real_torchs():
    from conftest import skip_unless_mkl_branch, skip_without_avx512
    from gradrepl.engine import mkl

    skip_without_avx512("PINN gradients (GEMM, tanh kernels)")
    if not mkl.load():
        pytest.skip("MKL backend is not installed: the products are not MKL's gemm, "
                    "bytes not compared")
    e1 = mkl.branch() == "AVX512_E1"   # (real torch 2.13 on an Intel Sapphire Rapids Xeon)
    if not e1:
        skip_unless_mkl_branch("PINN gradients (MKL gemm)", approximations=False)
    nn = torch.nn
    net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                        nn.Linear(16, 1))
    _load(net, 70)
    xt = torch.tensor(grid((32, 2), 80)).requires_grad_()
    u = net(xt)
    du = torch.autograd.grad(u, xt, torch.ones_like(u), create_graph=True)[0]
    u_x = du[:, :1]
    u_xx = torch.autograd.grad(u_x, xt, torch.ones_like(u_x), create_graph=True)[0][:, :1]
    loss = ((u_xx + u) ** 2).mean() + (u_x ** 2).mean()
    loss.backward()
    # real torch 2.13 (this session, Zen 4, MKL branch AUTO)
    if e1:
        assert (_sha(du), _sha(u_xx), loss.item().hex()) == (
            "00dc2daa2a268b4a", "321bf9bdc0d4e0d8", "0x1.437e540000000p-10")
        assert [_sha(p.grad) for p in net.parameters()] == [
            "b921fb499bf6f12e", "f354275a1739dca7", "bdaf49a12b9a7a99", "93c037c54ad02290",
            "68f16869be23eb0d", "f2968fbb498d9513"]
        return
    assert (_sha(du), _sha(u_xx), loss.item().hex()) == (
        "772bb24b61931eba", "42a5e9f1d29235b5", "0x1.437e520000000p-10")
    assert [_sha(p.grad) for p in net.parameters()] == [
        "b0027a99e284c171", "a3c66d040648ed0a", "8d59abd9bc017c6b", "60e39202b200c15d",
        "83f9ddd5b631a149", "8ef03a975b49a408"]


def test_paddle_batch_norm_grads_under_create_graph_are_real_paddles():
    from conftest import skip_without_avx512

    skip_without_avx512("Paddle batch_norm_grad kernel values")
    # real Paddle 3.3.1 (this session): paddle.grad(create_graph=True) of a BatchNorm2D(3),
    # the same bits as with create_graph=False
    import hashlib

    bn = paddle.nn.BatchNorm2D(3)
    x = paddle.to_tensor(grid((4, 3, 5, 5), 28), stop_gradient=False)
    gs = paddle.grad(bn(x), [x, bn.weight, bn.bias], paddle.to_tensor(grid((4, 3, 5, 5), 99)),
                     create_graph=True)
    assert [hashlib.sha256(_array(g).tobytes()).hexdigest()[:12] for g in gs] == [
        "afef71bf227d", "2bb189517427", "b13e4c987057"]


# unmarked VJPs (Tensor ops either way, or their own create_graph path as torch records it:
# matmul's transposes) give the same first-order bits too. Not listed: nn.LSTM, where real
# torch 2.13 itself gives other first-order bits under create_graph (measured this session).
UNMARKED = {
    "linear": lambda: (lambda x, w, b: (F.linear(x, w, b), (x, w, b)))(
        tt((7, 30), 1), tt((20, 30), 2, 0.2), tt((20,), 3)),
    "mm_column_major": lambda: (lambda a, b: (a @ b.t(), (a, b)))(tt((6, 9), 4), tt((5, 9), 5)),
    "bmm": lambda: (lambda a, b: (torch.bmm(a, b), (a, b)))(tt((3, 5, 7), 6), tt((3, 7, 4), 7)),
    "max_pool2d": lambda: (lambda x: (F.max_pool2d(x, 2), (x,)))(tt((2, 3, 8, 8), 8)),
    "avg_pool2d": lambda: (lambda x: (F.avg_pool2d(x, 3, 2), (x,)))(tt((2, 3, 9, 9), 9)),
    "interpolate": lambda: (lambda x: (F.interpolate(x, scale_factor=2, mode="bilinear"), (x,)))(
        tt((2, 3, 5, 5), 10)),
    "gelu": lambda: (lambda x: (F.gelu(x), (x,)))(tt((5, 40), 11, 4.0)),
    "cross_entropy": lambda: (lambda x: (F.cross_entropy(x, torch.tensor([1, 2, 3, 4, 0])), (x,)))(
        tt((5, 7), 12, 3.0)),
    "norm": lambda: (lambda x: (x.norm(2, dim=1), (x,)))(tt((5, 40), 13)),
    "sdpa": lambda: (lambda q, k, v: (F.scaled_dot_product_attention(q, k, v), (q, k, v)))(
        tt((2, 3, 5, 8), 14), tt((2, 3, 5, 8), 15), tt((2, 3, 5, 8), 16)),
}


@pytest.mark.parametrize("name", sorted(UNMARKED))
def test_unmarked_first_order_is_the_same_with_create_graph(name):
    plain, _ = _torch_grads(UNMARKED[name], False)
    recorded, _ = _torch_grads(UNMARKED[name], True)
    for a, b in zip(plain, recorded):
        assert _bits_equal(_array(a), _array(b)), name
