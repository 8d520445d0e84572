"""Double backward through conv2d, batch norm and (leaky) ReLU as torch 2.13 records it
(issue 28, the WGAN-GP gradient penalty): ``torch.autograd.grad(..., create_graph=True)``
makes one ``ConvolutionBackwardBackward0`` / ``NativeBatchNormBackwardBackward0`` /
``LeakyReluBackwardBackward0`` / ``ThresholdBackwardBackward0`` node per first-order node
(``torch/nn/_double_backward.py``), with torch's formulas (``_convolution_double_backward``,
``batchnorm_double_backward``, ``leaky_relu_backward`` / ``threshold_backward`` with
``zeros_like`` for self).

- node names and next_functions, and the zero (not None) gradients a penalty-only backward
  leaves (any CPU);
- the formulas against central differences in float64 (strides, padding, dilation, groups,
  penalties on the input and the weight gradients; batch norm in training and eval);
- bit-equal to real torch 2.13 (recorded in this session on the AVX-512 Zen 4 machine, by
  running the ``cases`` section below under real torch): the convolutions are oneDNN's
  avx512_core kernels (emulated), so these compare only there.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F
from gradrepl.torch import nn

# --- cases (run by real torch 2.13 to record: exec'd with torch, F, nn, np bound) ---


def grid(shape, seed, scale=1.0, dtype=np.float32):
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    v = ((i * 7919 + seed * 104729) % 1000 - 500) / 1000.0
    return (v * scale).astype(dtype).reshape(shape)


def sha(t):
    if t is None:
        return None
    a = np.ascontiguousarray(t.detach().numpy())
    return hashlib.sha256(a.tobytes()).hexdigest()[:12]


def load(module, seed, scale=0.4):
    with torch.no_grad():
        for k, (_n, p) in enumerate(module.named_parameters()):
            p.copy_(torch.tensor(grid(tuple(p.shape), seed + k, scale)))


def critic(act, bn=True):
    layers = [nn.Conv2d(1, 4, 4, 2)] + ([nn.BatchNorm2d(4)] if bn else []) + [act(),
              nn.Conv2d(4, 8, 4, 2), nn.BatchNorm2d(8), act(), nn.Conv2d(8, 1, 4, 2)]
    return nn.Sequential(*layers)


def case_critic(kind):
    """The WGAN-GP penalty of a DCGAN critic, then its backward alone."""
    acts = {"leaky_": lambda: nn.LeakyReLU(0.2, inplace=True), "leaky": lambda: nn.LeakyReLU(0.2),
            "relu": lambda: nn.ReLU(), "relu_": lambda: nn.ReLU(inplace=True)}
    crit = critic(acts[kind])
    load(crit, 40)
    real = torch.tensor(grid((4, 1, 28, 28), 60))
    fake = torch.tanh(torch.tensor(grid((4, 1, 28, 28), 61, 3.0)))
    eps = torch.tensor(grid((4, 1, 1, 1), 62)) + 0.5
    mixed = real * eps + fake * (1 - eps)
    mixed.requires_grad_()
    scores = crit(mixed).view(4, -1)
    g = torch.autograd.grad(inputs=mixed, outputs=scores, grad_outputs=torch.ones_like(scores),
                            create_graph=True, retain_graph=True)[0]
    gp = ((g.view(4, -1).norm(2, dim=1) - 1) ** 2).mean()
    gp.backward()
    return [sha(g), gp.item().hex()] + [sha(p.grad) for p in crit.parameters()]


CONV_GEOMETRIES = [(1, 1, True, 3), (1, 0, False, 2), (2, 2, True, 5), (3, 1, True, 2)]


def case_conv(k):
    """tanh(conv2d) with penalties on the input and the weight gradients (ggI and ggW)."""
    stride, pad, bias, n = CONV_GEOMETRIES[k]
    x = torch.tensor(grid((n, 6, 11, 11), 10 + k), requires_grad=True)
    w = torch.tensor(grid((6, 6, 3, 3), 20 + k, 0.3), requires_grad=True)
    b = torch.tensor(grid((6,), 30 + k), requires_grad=True) if bias else None
    y = torch.tanh(F.conv2d(x, w, b, stride=stride, padding=pad))
    gx, gw = torch.autograd.grad(y.sum(), (x, w), create_graph=True)
    loss = (gx ** 2).sum() + (gw ** 2).sum()
    ins = [t for t in (x, w, b) if t is not None]
    return [sha(t) for t in torch.autograd.grad(loss, ins)]


BN_MODES = [(True, True), (False, True), (True, False)]


def case_bn(k):
    """tanh(batch_norm) with penalties on every first-order gradient (ggI, ggG, ggB)."""
    training, affine = BN_MODES[k]
    x = torch.tensor(grid((4, 3, 5, 5), 40 + k), requires_grad=True)
    bn = nn.BatchNorm2d(3, affine=affine)
    with torch.no_grad():
        if affine:
            bn.weight.copy_(torch.tensor(grid((3,), 50 + k)) + 1)
            bn.bias.copy_(torch.tensor(grid((3,), 60 + k)))
        bn.running_mean.copy_(torch.tensor(grid((3,), 70)))
        bn.running_var.copy_(torch.tensor(grid((3,), 71)) + 1)
    bn.train(training)
    y = torch.tanh(bn(x))
    ins = [x] + list(bn.parameters())
    gs = torch.autograd.grad((y * torch.tensor(grid((4, 3, 5, 5), 80))).sum(), ins,
                             create_graph=True)
    loss = sum((g ** 2).sum() for g in gs)
    return [sha(t) for t in torch.autograd.grad(loss, ins)] + [sha(g) for g in gs]


MORE_CONVS = [   # (function, input shape, weight shape, keywords)
    ("conv1d", (3, 4, 19), (6, 4, 3), dict(stride=2, padding=1)),
    ("conv3d", (2, 3, 6, 6, 6), (4, 3, 3, 3, 3), dict(stride=1, padding=1)),
    ("conv_transpose2d", (2, 4, 5, 5), (4, 3, 4, 4), dict(stride=2, padding=1)),
    ("conv_transpose2d", (3, 4, 6, 6), (4, 3, 3, 3), dict(stride=1, padding=1)),
    ("conv_transpose1d", (2, 3, 9), (3, 5, 4), dict(stride=3)),
]


def case_more_conv(k, dtype=np.float32):
    """tanh(conv) of 1-d, 3-d and transposed convolutions (bias), penalties on all three
    first-order gradients (ggI, ggW and ggb)."""
    fn, xs, ws, kw = MORE_CONVS[k]
    x = torch.tensor(grid(xs, 10 + k, dtype=dtype), requires_grad=True)
    w = torch.tensor(grid(ws, 20 + k, 0.3, dtype=dtype), requires_grad=True)
    nb = ws[1] * kw.get("groups", 1) if "transpose" in fn else ws[0]
    b = torch.tensor(grid((nb,), 30 + k, dtype=dtype), requires_grad=True)
    y = torch.tanh(getattr(F, fn)(x, w, b, **kw))
    gx, gw, gb = torch.autograd.grad(y.sum(), (x, w, b), create_graph=True)
    names = [gx.grad_fn.name(), gw.grad_fn.name(), gb.grad_fn.name()]
    loss = (gx ** 2).sum() + (gw ** 2).sum() + (gb ** 2).sum()
    return names, torch.autograd.grad(loss, (x, w, b))


def case_norm_critic(kind):
    """A WGAN-GP critic with LayerNorm (as the WGAN-GP paper advises) or InstanceNorm2d
    (affine) instead of batch norm: the penalty, then its backward alone."""
    norm = {"layer": lambda c, hw: nn.LayerNorm([c, hw, hw]),
            "instance": lambda c, hw: nn.InstanceNorm2d(c, affine=True)}[kind]
    crit = nn.Sequential(nn.Conv2d(1, 4, 4, 2, 1), norm(4, 14), nn.LeakyReLU(0.2),
                         nn.Conv2d(4, 8, 4, 2, 1), norm(8, 7), nn.LeakyReLU(0.2),
                         nn.Conv2d(8, 1, 7))
    load(crit, 40)
    x = torch.tensor(grid((4, 1, 28, 28), 60), requires_grad=True)
    s = crit(x).view(4, -1)
    g, = torch.autograd.grad(s, x, torch.ones_like(s), create_graph=True)
    ((g.view(4, -1).norm(2, dim=1) - 1) ** 2).mean().backward()
    return [sha(g)] + [sha(p.grad) for p in crit.parameters()]


def case_group_norm():
    """GroupNorm under create_graph: torch's differentiable composite (its first-order values
    differ from a plain backward's), then a penalty on all three gradients."""
    gn = nn.GroupNorm(2, 8)
    with torch.no_grad():
        gn.weight.copy_(torch.tensor(grid((8,), 90)) + 1)
        gn.bias.copy_(torch.tensor(grid((8,), 91)))
    x = torch.tensor(grid((4, 8, 5, 5), 92), requires_grad=True)
    s = torch.tensor(grid((4, 8, 5, 5), 93))
    ins = [x, gn.weight, gn.bias]
    plain = torch.autograd.grad((gn(x) * s).sum(), ins)
    gs = torch.autograd.grad((gn(x) * s).sum(), ins, create_graph=True)
    names = [g.grad_fn.name() if g.grad_fn is not None else None for g in gs]
    r = torch.autograd.grad(sum((g ** 2).sum() for g in gs), ins, allow_unused=True)
    return names, [sha(t) for t in plain], [sha(t) for t in gs], [sha(t) for t in r]


# --- end cases ---

RECORDED = {   # real torch 2.13, this session (Zen 4, oneDNN avx512_core, MKL branch AUTO)
    'critic_leaky_': ['c5d0550aaa9a', '0x1.8a82e40000000p-1', 'ef3a653c8eb3', '2504c7672920', 'b97d0bb7e7ad', '911f94dab269', '4b3ed36e8032', '6e971ef4931e', '8b3cd275b5a1', '66687aadf862', '2ecbfeeb445c', None],
    'critic_leaky': ['c5d0550aaa9a', '0x1.8a82e40000000p-1', 'ef3a653c8eb3', '2504c7672920', 'b97d0bb7e7ad', '911f94dab269', '4b3ed36e8032', '6e971ef4931e', '8b3cd275b5a1', '66687aadf862', '2ecbfeeb445c', None],
    'critic_relu': ['01bff7ecbe1a', '0x1.5ab95e0000000p-1', 'a4f6145cbfa1', 'd4c9a1d003c1', 'ef9d215618b5', 'c9fc7c4c6d68', '605bc8cec148', '3df0f7781a4d', 'aeb16aca6ae0', '66687aadf862', '0312e6643113', None],
    'critic_relu_': ['01bff7ecbe1a', '0x1.5ab95e0000000p-1', 'a4f6145cbfa1', 'd4c9a1d003c1', 'ef9d215618b5', 'c9fc7c4c6d68', '605bc8cec148', '3df0f7781a4d', 'aeb16aca6ae0', '66687aadf862', '0312e6643113', None],
    'conv_0': ['cf0d98b781cf', '2f2dd891c929', '0adcef38f0ab'],
    'conv_1': ['dcc21afa86c7', 'ff2682f27537'],
    'conv_2': ['70cf5ea261c4', 'cf849b74be80', '59bcb6b6cd01'],
    'conv_3': ['032ded9f817f', 'd114f1cb725a', '4bb8a200e1cd'],
    'bn_0': ['f3546e1b724e', '4fd99bec996b', '6f41ba01c4cc', 'cfa3374c92c8', '418a6d58cf4c', 'e7ce5bd23f73'],
    'bn_1': ['cf45b230b160', '29bf982e76ee', 'a574a756b34d', '5a621ce81240', 'b055011b04ad', 'bcfc851bc9f8'],
    'bn_2': ['a79681bbe3d9', 'd5bf2f2f504a'],
}


def _names(fn, depth):
    out = []

    def walk(f, d):
        if f is None or d > depth:
            return
        out.append(f.name())
        for g, _ in f.next_functions:
            walk(g, d + 1)
    walk(fn, 0)
    return out


# ------------------------------------------------------------------ structure (any CPU)
def _critic_gradient(act):
    crit = critic(act)
    load(crit, 40)
    x = torch.tensor(grid((4, 1, 28, 28), 60), requires_grad=True)
    s = crit(x).view(4, -1)
    g, = torch.autograd.grad(s, x, torch.ones_like(s), create_graph=True)
    return crit, g


def test_second_order_nodes_and_their_inputs_are_torchs():
    crit, g = _critic_gradient(lambda: nn.LeakyReLU(0.2, inplace=True))
    fn = g.grad_fn
    # real torch 2.13: the same names, next_functions as printed there
    assert fn.name() == "ConvolutionBackwardBackward0"
    assert [f.name() if f else None for f, _ in fn.next_functions] == [
        "NativeBatchNormBackwardBackward0", "torch::autograd::AccumulateGrad",
        "torch::autograd::AccumulateGrad"]
    bn = fn.next_functions[0][0]
    assert [f.name() if f else None for f, _ in bn.next_functions] == [
        "LeakyReluBackwardBackward0", "ConvolutionBackward0", "torch::autograd::AccumulateGrad",
        None, None]
    lr = bn.next_functions[0][0]
    assert [f.name() for f, _ in lr.next_functions] == [
        "ConvolutionBackwardBackward0", "LeakyReluBackward1"]
    ACC = "torch::autograd::AccumulateGrad"
    # real torch 2.13's walk of the same graph (depth 6)
    assert _names(fn, 6) == [
        "ConvolutionBackwardBackward0", "NativeBatchNormBackwardBackward0",
        "LeakyReluBackwardBackward0", "ConvolutionBackwardBackward0",
        "NativeBatchNormBackwardBackward0", "LeakyReluBackwardBackward0",
        "ConvolutionBackwardBackward0", "LeakyReluBackward1", "ConvolutionBackward0",
        "LeakyReluBackward1", ACC, ACC, ACC, "LeakyReluBackward1", "NativeBatchNormBackward0",
        "ConvolutionBackward0", ACC, ACC, ACC, "LeakyReluBackward1", "NativeBatchNormBackward0",
        "ConvolutionBackward0", ACC, ACC, ACC, ACC, ACC, "ConvolutionBackward0", ACC, ACC, ACC,
        ACC, ACC, ACC]


def test_relu_double_backward_is_a_threshold_backward_node():
    _crit, g = _critic_gradient(nn.ReLU)
    bn = g.grad_fn.next_functions[0][0]
    thr = bn.next_functions[0][0]
    assert thr.name() == "ThresholdBackwardBackward0"
    assert [f.name() for f, _ in thr.next_functions] == [
        "ConvolutionBackwardBackward0", "ReluBackward0"]


@pytest.mark.parametrize("act", ["leaky", "relu"])
def test_a_penalty_only_backward_leaves_zeros_not_none(act):
    """self's zeros_like of the activation's double backward reach the batch norm below it:
    its bias gradient is a zero tensor (real torch 2.13: tensor([0., 0., ...])); the last
    convolution's bias takes no part (None, as in torch)."""
    make = {"leaky": lambda: nn.LeakyReLU(0.2, inplace=True), "relu": nn.ReLU}[act]
    crit, g = _critic_gradient(make)
    ((g.view(4, -1).norm(2, dim=1) - 1) ** 2).mean().backward()
    assert crit[4].bias.grad is not None
    assert np.array_equal(crit[4].bias.grad.numpy(), np.zeros(8, np.float32))
    assert crit[6].bias.grad is None
    assert all(p.grad is not None for p in list(crit.parameters())[:-1])


def test_plain_leaky_relu_gradient_at_zero_is_torchs():
    """leaky_relu_backward: ``self > 0 ? grad : grad * negval``: at 0 the slope (torch 2.13
    gives 0.1 at x = 0 here), both with and without create_graph."""
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    for create in (False, True):
        g, = torch.autograd.grad(F.leaky_relu(x, 0.1).sum(), x, create_graph=create)
        assert g.detach().numpy().tolist() == [np.float32(0.1), np.float32(0.1), 1.0]


# ------------------------------------------------------------------ formulas (float64)
def _fd_check(build, inputs, eps=1e-6, rtol=1e-5):
    """d penalty / d inputs through the recorded second-order graph, against central
    differences of the penalty computed without create_graph."""
    ts = [torch.tensor(a, requires_grad=True) for a in inputs]
    p = build(ts, True)
    got = torch.autograd.grad(p, ts, allow_unused=True)
    for k, a in enumerate(inputs):
        fd = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            d = np.zeros_like(a)
            d[i] = eps
            up = [torch.tensor(b + d if j == k else b, requires_grad=True)
                  for j, b in enumerate(inputs)]
            dn = [torch.tensor(b - d if j == k else b, requires_grad=True)
                  for j, b in enumerate(inputs)]
            fd[i] = (build(up, False).item() - build(dn, False).item()) / (2 * eps)
        g = np.zeros_like(a) if got[k] is None else got[k].numpy()
        np.testing.assert_allclose(g, fd, rtol=rtol, atol=1e-7 * max(1.0, np.abs(fd).max()))


@pytest.mark.parametrize("stride,padding,dilation,groups,bias", [
    (1, 1, 1, 1, True), (2, 0, 1, 2, True), (1, 1, 2, 1, False), (2, 1, 1, 3, False)])
def test_conv_double_backward_against_central_differences(stride, padding, dilation, groups,
                                                          bias):
    x0 = grid((2, 6, 7, 7), 1, dtype=np.float64)
    w0 = grid((6, 6 // groups, 3, 3), 2, 0.5, dtype=np.float64)
    b0 = grid((6,), 3, dtype=np.float64)

    def build(ts, create):
        x, w = ts[0], ts[1]
        y = torch.tanh(F.conv2d(x, w, ts[2] if bias else None, stride=stride, padding=padding,
                                dilation=dilation, groups=groups))
        gx, gw = torch.autograd.grad(y.sum(), (x, w), create_graph=create)
        return (gx ** 2).sum() + (gw ** 3).sum()

    _fd_check(build, [x0, w0, b0] if bias else [x0, w0])


@pytest.mark.parametrize("training,affine", BN_MODES)
def test_batch_norm_double_backward_against_central_differences(training, affine):
    x0 = grid((3, 2, 3, 3), 4, dtype=np.float64)
    extra = [grid((2,), 5, dtype=np.float64) + 1, grid((2,), 6, dtype=np.float64)] \
        if affine else []
    seed = torch.tensor(grid((3, 2, 3, 3), 7, dtype=np.float64))

    def build(ts, create):
        w, b = (ts[1], ts[2]) if affine else (None, None)
        rm = torch.tensor(grid((2,), 8, dtype=np.float64))
        rv = torch.tensor(grid((2,), 9, dtype=np.float64) + 1)
        y = torch.tanh(F.batch_norm(ts[0], rm, rv, w, b, training=training))
        gs = torch.autograd.grad((y * seed).sum(), ts, create_graph=create)
        return sum((g ** 2).sum() for g in gs)

    _fd_check(build, [x0] + extra)


# ------------------------------------------------------------------ against real torch 2.13
def _skip_unless_recorded_here(what, conv=True):
    from conftest import skip_unless_mkl_branch, skip_unless_onednn_avx512_core
    from conftest import skip_without_avx512
    from gradrepl.engine import mkl

    if conv:
        skip_unless_onednn_avx512_core(what)
    else:   # (torch's vectorised batch-norm, tanh and sum kernels: AVX-512's bits)
        skip_without_avx512(what)
    if not mkl.load():
        pytest.skip("MKL backend is not installed: the products around the convolutions are "
                    "not MKL's, bytes not compared")
    if mkl.branch() == "AVX512_E1":
        return True     # (the records of _E1)
    skip_unless_mkl_branch(what, approximations=False)
    return False


def _e1():
    """The same cases by real torch 2.13 on MKL's AVX512_E1 path (an Intel Sapphire Rapids Xeon,
    oneDNN avx512_core for float32), recorded by running the cases section the same way."""
    import json
    import pathlib

    return json.loads((pathlib.Path(__file__).parent / "data" /
                       "double_backward_conv_bn_AVX512_E1.json").read_text())


@pytest.mark.parametrize("kind", ["leaky_", "leaky", "relu", "relu_"])
def test_wgan_gp_critic_gradients_are_real_torchs(kind):
    e1 = _skip_unless_recorded_here("WGAN-GP critic penalty gradients")
    assert case_critic(kind) == (_e1() if e1 else RECORDED)[f"critic_{kind}"]


@pytest.mark.parametrize("k", range(len(CONV_GEOMETRIES)))
def test_conv_double_backward_is_real_torchs(k):
    e1 = _skip_unless_recorded_here("conv2d double backward")
    assert case_conv(k) == (_e1() if e1 else RECORDED)[f"conv_{k}"]


@pytest.mark.parametrize("k", range(len(BN_MODES)))
def test_batch_norm_double_backward_is_real_torchs(k):
    e1 = _skip_unless_recorded_here("batch norm double backward", conv=False)
    assert case_bn(k) == (_e1() if e1 else RECORDED)[f"bn_{k}"]


def test_one_row_mv_is_addmvs_gemv():
    """spectral_norm's sigma (``dot(u, mv(W.view(1, -1), v))`` of a one-output-channel conv):
    torch's addmv calls MKL's gemv with the row as the matrix (mm's 1 x 1 product takes the
    column: other bits; m06's SN-GAN gradient differed by that). Real torch 2.13 here:"""
    from conftest import skip_unless_mkl_branch
    from gradrepl.engine import mkl

    if not mkl.load():
        pytest.skip("MKL backend is not installed: mv is numpy's product, bytes not compared")
    e1 = mkl.branch() == "AVX512_E1"
    if not e1:
        skip_unless_mkl_branch("one-row mv (MKL gemv)", approximations=False)
    rs = np.random.RandomState(3)
    got = []
    for k in (5, 64, 300):
        col = torch.tensor(rs.randn(k, 1).astype(np.float32))
        v = torch.tensor(rs.randn(k).astype(np.float32))
        row = torch.tensor(rs.randn(1, k).astype(np.float32))
        got.append([torch.mv(col.t(), v).item().hex(), torch.mv(row, v).item().hex(),
                    (row @ v).item().hex()])
    assert got == (_e1()["mv"] if e1 else RECORDED_MV)


RECORDED_MV = [   # real torch 2.13, this session
    ["-0x1.08c4780000000p-1", "-0x1.08aaca0000000p-2", "-0x1.08aaca0000000p-2"],
    ["-0x1.4bb3680000000p+1", "0x1.cbd9d00000000p+2", "0x1.cbd9d00000000p+2"],
    ["-0x1.327b8c0000000p+3", "0x1.705f700000000p+3", "0x1.705f700000000p+3"],
]


@pytest.mark.parametrize("k", [0, 4])
def test_more_conv_double_backward_against_central_differences(k):
    """1-d (strided, padded) and transposed 1-d (stride 3) convolutions in float64."""
    fn, xs, ws, kw = MORE_CONVS[k]
    nb = ws[1] if "transpose" in fn else ws[0]
    x0, w0 = grid(xs, 1, dtype=np.float64), grid(ws, 2, 0.5, dtype=np.float64)
    b0 = grid((nb,), 3, dtype=np.float64)

    def build(ts, create):
        y = torch.tanh(getattr(F, fn)(ts[0], ts[1], ts[2], **kw))
        gs = torch.autograd.grad(y.sum(), ts, create_graph=create)
        return (gs[0] ** 2).sum() + (gs[1] ** 3).sum() + (gs[2] ** 2).sum()

    _fd_check(build, [x0, w0, b0])


@pytest.mark.parametrize("k", range(len(MORE_CONVS)))
def test_more_conv_double_backward_is_real_torchs(k):
    e1 = _skip_unless_recorded_here("1-d, 3-d and transposed conv double backward")
    names, grads = case_more_conv(k)
    assert names == ["ConvolutionBackwardBackward0"] * 3   # (the bias gradient too, as torch)
    assert [sha(t) for t in grads] == (_e1()["more"] if e1 else RECORDED_MORE)[k]


RECORDED_MORE = [   # real torch 2.13, this session (Zen 4)
    ['d01c4375ed36', '50b608b6c0b2', '24e8811d7de3'],
    ['8383a398ab90', 'f88b721b6969', '34c74c177b20'],
    ['72c273d01f15', '52c6c3c6b1a2', '5e152c0ccb3b'],
    ['154450529c6b', 'b4c6b53becbb', 'e316c12794ac'],
    ['0f162f68e1e7', 'f0cd069b0907', '7001b390c4a8'],
]


def test_first_order_kernels_run_once_under_create_graph(monkeypatch):
    """The node carries the exact first-order values (op.carries_exact): the engine's
    exact_values does not run the convolution's backward kernels a second time."""
    from gradrepl.torch.nn import _onednn_conv

    calls = []
    real = _onednn_conv.try_backward
    monkeypatch.setattr(_onednn_conv, "try_backward",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    x = torch.tensor(grid((2, 3, 9, 9), 1), requires_grad=True)
    w = torch.tensor(grid((4, 3, 3, 3), 2, 0.3), requires_grad=True)
    y = F.conv2d(x, w, torch.tensor(grid((4,), 3), requires_grad=True))
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    assert g.grad_fn.name() == "ConvolutionBackwardBackward0"
    assert len(calls) == 1


def test_layer_norm_double_backward_node_and_inputs():
    """NativeLayerNormBackwardBackward0's next_functions as real torch 2.13 prints them:
    grad_out, input, mean, rstd, weight, bias (no weight/bias: None there)."""
    x = torch.tensor(grid((3, 6), 1), requires_grad=True)
    for affine in (True, False):
        ln = nn.LayerNorm(6, elementwise_affine=affine)
        g, = torch.autograd.grad(torch.tanh(ln(x)).sum(), x, create_graph=True)
        assert g.grad_fn.name() == "NativeLayerNormBackwardBackward0"
        nxt = [f.name() if f else None for f, _ in g.grad_fn.next_functions]
        acc = "torch::autograd::AccumulateGrad"
        assert nxt == ["TanhBackwardBackward0", acc, None, None] + (
            [acc, acc] if affine else [None, None])


@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_double_backward_against_central_differences(affine):
    x0 = grid((3, 2, 4), 4, dtype=np.float64)
    extra = [grid((2, 4), 5, dtype=np.float64) + 1, grid((2, 4), 6, dtype=np.float64)] \
        if affine else []
    seed = torch.tensor(grid((3, 2, 4), 7, dtype=np.float64))

    def build(ts, create):
        w, b = (ts[1], ts[2]) if affine else (None, None)
        y = torch.tanh(F.layer_norm(ts[0], (2, 4), w, b))
        gs = torch.autograd.grad((y * seed).sum(), ts, create_graph=create)
        return sum((g ** 2).sum() for g in gs)

    _fd_check(build, [x0] + extra)


@pytest.mark.parametrize("kind", ["layer", "instance"])
def test_layer_and_instance_norm_critics_are_real_torchs(kind):
    e1 = _skip_unless_recorded_here(f"{kind}-norm WGAN-GP critic")
    assert case_norm_critic(kind) == (_e1()["norm_critic"] if e1 else RECORDED_NORM_CRITIC)[kind]


RECORDED_NORM_CRITIC = {   # real torch 2.13, this session (Zen 4)
    'layer': ['d5793c72fe34', '52a82fd3503c', '8b8dfaa1ae27', '26e3e7f27be8', '9a34f39657ea', '528c67bb15b2', 'deb53aea0414', 'e96da3d7ba71', '7fbcfcd86bdf', 'f908d9f1e8ae', None],
    'instance': ['e5703b0faf7e', '118263df7f90', '2971cd1cc134', '299c9027e102', '67630031e9f3', '62a09a3374c8', 'ff6896e29cfa', '1ef3de2c121b', '66687aadf862', '1da09453c9bc', None],
}


def test_group_norm_create_graph_is_torchs_composite():
    """Names, and the composite's values differing from the plain kernel's (any CPU: the
    structure; the bits below where recorded)."""
    names, plain, first, _second = case_group_norm()
    assert names == ["ViewBackward0", "ViewBackward0", None]   # (real torch 2.13)
    assert plain != first


def test_group_norm_create_graph_is_real_torchs():
    e1 = _skip_unless_recorded_here("group norm create_graph composite", conv=False)
    got = [list(x) if isinstance(x, (list, tuple)) else x for x in case_group_norm()]
    assert got == (_e1()["group_norm"] if e1 else [
        list(x) if isinstance(x, (list, tuple)) else x for x in RECORDED_GROUP_NORM])


RECORDED_GROUP_NORM = [   # real torch 2.13, this session (Zen 4)
    ['ViewBackward0', 'ViewBackward0', None],
    ['eeb3c9fb0e53', '719ab2887115', 'aecd35138eac'],
    ['77621c0890cd', 'a6a86713c249', 'e778cbf60694'],
    ['48bb3bdaa375', '512361b004df', None],
]
