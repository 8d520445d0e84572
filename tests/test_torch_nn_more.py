"""torch.nn activations, losses, norms, dropouts, distances and EmbeddingBag beyond the basic
set (``gradrepl/torch/nn/_layers_more.py`` and its families). Literal values were printed by
real torch 2.13 (CPU) for the same code in this session; others are checked against numpy or
finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import state as torch_state

nn = torch.nn
F = torch.nn.functional


@pytest.fixture(autouse=True)
def _fresh():
    torch_state.reset()
    yield
    torch_state.reset()


def f32(v):
    return np.asarray(v, np.float32)


def _x():
    torch.manual_seed(0)
    return torch.randn(6)


# recorded from torch 2.13: torch.manual_seed(0); x = torch.randn(6)
X0 = [1.5409960746765137, -0.293428897857666, -2.1787893772125244, 0.5684312582015991,
      -1.0845223665237427, -1.3985954523086548]


def test_randn_is_the_recorded_input():
    assert _x().tolist() == X0


# ------------------------------------------------------------------------------ activations
def test_celu_values_and_node():
    x = _x().requires_grad_()
    y = F.celu(x, 0.5)
    np.testing.assert_allclose(y.tolist(), [1.5409960746765137, -0.22196409106254578,
                                            -0.49359533190727234, 0.5684312582015991,
                                            -0.44285663962364197, -0.46950942277908325],
                               rtol=0, atol=1e-7)
    assert type(y.grad_fn).__name__ == "CeluBackward0"
    y.sum().backward()
    xs = np.array(X0)
    np.testing.assert_allclose(x.grad.numpy(), np.where(xs > 0, 1, np.exp(xs / 0.5)), rtol=1e-6)


def test_rrelu_training_draws_as_torch():
    x = _x()
    torch.manual_seed(0)
    x = torch.tensor(X0)
    torch.manual_seed(0)
    torch.randn(6)  # the same state as the recorded run: seed, randn(6), then rrelu
    y = F.rrelu(x, training=True)
    assert y.tolist() == [1.5409960746765137, -0.04759698733687401, -0.4317215085029602,
                          0.5684312582015991, -0.2669147253036499, -0.2588088810443878]
    assert type(y.grad_fn).__name__ == "RreluWithNoiseBackward0" if y.grad_fn else True
    # eval: the mean slope
    e = F.rrelu(torch.tensor([-1.0, 2.0]))
    np.testing.assert_allclose(e.tolist(), [-(1 / 8 + 1 / 3) / 2, 2.0], rtol=1e-6)


def test_glu_threshold_shrinks():
    x = torch.tensor([[1.0, -2.0, 0.5, 3.0]], requires_grad=True)
    g = F.glu(x)
    np.testing.assert_allclose(g.tolist(), [[1 / (1 + np.exp(-0.5)), -2 / (1 + np.exp(-3))]],
                               rtol=1e-6)
    assert type(g.grad_fn).__name__ == "GluBackward0"
    g.sum().backward()
    s = 1 / (1 + np.exp(-np.array([0.5, 3.0])))
    np.testing.assert_allclose(x.grad.numpy()[0], [s[0], s[1], 1 * s[0] * (1 - s[0]),
                                                   -2 * s[1] * (1 - s[1])], rtol=1e-5)
    t = nn.Threshold(0, 0.5)(torch.arange(-3, 3))
    assert t.tolist() == [0, 0, 0, 0, 1, 2]
    y = F.softshrink(torch.tensor([-1.0, 0.2, 0.7]))
    np.testing.assert_allclose(y.tolist(), [-0.5, 0.0, 0.2], rtol=1e-6)
    assert F.hardshrink(torch.tensor([-1.0, 0.2, 0.7])).tolist() == [-1.0, 0.0,
                                                                    float(f32(0.7))]
    z = torch.tensor([-1.0, 0.2], requires_grad=True)
    F.threshold(z, 0.1, 20.0).sum().backward()
    assert [str(v) for v in z.grad.tolist()] == ["0.0", "1.0"]  # +0, not -0
    assert type(F.tanhshrink(z).grad_fn).__name__ == "SubBackward0"


def test_prelu_module():
    m = nn.PReLU(3)
    assert repr(m) == "PReLU(num_parameters=3)"
    x = torch.tensor([[-1.0, 2.0, -4.0]], requires_grad=True)
    y = m(x)
    assert type(y.grad_fn).__name__ == "PreluKernelBackward0"
    assert y.tolist() == [[-0.25, 2.0, -1.0]]
    y.sum().backward()
    assert m.weight.grad.tolist() == [-1.0, 0.0, -4.0]


def test_inplace_activations():
    x = torch.tensor([-1.0, 1.0], requires_grad=True)
    y = x.clone()
    r = F.celu(y, inplace=True)
    assert r is y and type(y.grad_fn).__name__ == "CeluBackward1"
    y = x.clone()
    F.threshold(y, 0.0, 5.0, inplace=True)
    assert y.tolist() == [5.0, 1.0] and type(y.grad_fn).__name__ == "ThresholdBackward1"


def test_gumbel_softmax_draws_as_torch():
    torch.manual_seed(3)
    y = F.gumbel_softmax(torch.zeros(2, 3), tau=0.5)
    np.testing.assert_allclose(y.tolist(), [[0.9890263676643372, 0.010431635193526745,
                                             0.000542006513569504],
                                            [0.9427294135093689, 0.017581695690751076,
                                             0.039688847959041595]], rtol=1e-6)
    torch.manual_seed(3)
    h = F.gumbel_softmax(torch.zeros(2, 3, requires_grad=True), tau=0.5, hard=True)
    assert h.tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]


def test_activation_reprs_and_names():
    assert repr(nn.CELU(2.0, True)) == "CELU(alpha=2.0, inplace=True)"
    assert repr(nn.GLU()) == "GLU(dim=-1)"
    assert repr(nn.Threshold(0.1, 20)) == "Threshold(threshold=0.1, value=20)"
    assert repr(nn.Softshrink()) == "Softshrink(0.5)"
    assert repr(nn.Hardshrink(1)) == "Hardshrink(1)"
    assert repr(nn.RReLU()) == "RReLU(lower=0.125, upper=0.3333333333333333)"
    assert repr(nn.Softmax2d()) == "Softmax2d()"
    assert str(type(nn.CELU())) == "<class 'torch.nn.modules.activation.CELU'>"


# ------------------------------------------------------------------------------ losses
A = [[0.1, 0.2, 0.4, 0.8], [0.3, -0.2, 0.5, 0.1]]


def test_margin_losses_recorded():
    a = torch.tensor(A, requires_grad=True)
    mm = F.multi_margin_loss(a, torch.tensor([3, 0]))
    assert mm.item() == 0.4749999940395355
    assert type(mm.grad_fn).__name__ == "MultiMarginLossBackward0"
    mlm = F.multilabel_margin_loss(a, torch.tensor([[3, 0, -1, 1], [1, 2, -1, 0]]))
    assert mlm.item() == 0.9500000476837158
    sm = F.soft_margin_loss(a, torch.tensor([[1.0, -1, 1, -1], [-1, 1, 1, 1]]))
    assert sm.item() == 0.7372024059295654
    assert type(sm.grad_fn).__name__ == "SoftMarginLossBackward0"
    p = F.poisson_nll_loss(a, torch.tensor([[1.0, 2, 0, 3], [0, 1, 2, 1]]), full=True)
    assert p.item() == 1.2792644500732422
    assert type(p.grad_fn).__name__ == "MeanBackward0"


def _fd_check(fn, x, eps=1e-3, rtol=2e-2):
    x64 = np.array(x.tolist(), np.float64)
    xt = torch.tensor(x64, requires_grad=True)
    fn(xt).backward()
    num = np.zeros_like(x64)
    for i in np.ndindex(x64.shape):
        d = np.zeros_like(x64)
        d[i] = eps
        num[i] = (fn(torch.tensor(x64 + d)).item() - fn(torch.tensor(x64 - d)).item()) / (2 * eps)
    np.testing.assert_allclose(xt.grad.numpy(), num, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("name", ["mm", "mm2", "mlm", "sm", "he", "ce", "tm", "mlsm", "gauss"])
def test_loss_gradients_by_finite_differences(name):
    torch.manual_seed(1)
    x = torch.randn(3, 4).double()
    other = torch.randn(3, 4).double()
    t = torch.tensor([0, 3, 1])
    s = torch.tensor([1.0, -1.0, 1.0]).double()
    fns = {
        "mm": lambda v: F.multi_margin_loss(v, t),
        "mm2": lambda v: F.multi_margin_loss(v, t, p=2, margin=0.5,
                                             weight=torch.tensor([1.0, 2, 3, 4]).double()),
        "mlm": lambda v: F.multilabel_margin_loss(v, torch.tensor([[3, 0, -1, 1], [1, -1, 0, 0],
                                                                   [0, 1, 2, 3]])),
        "sm": lambda v: F.soft_margin_loss(v, torch.sign(other)),
        "he": lambda v: F.hinge_embedding_loss(v, torch.sign(other), reduction="sum"),
        "ce": lambda v: F.cosine_embedding_loss(v, other, s, 0.1),
        "tm": lambda v: F.triplet_margin_loss(v, other, other * 0.5),
        "mlsm": lambda v: F.multilabel_soft_margin_loss(v, (other > 0).double()),
        "gauss": lambda v: F.gaussian_nll_loss(v, other, torch.ones(3, 4).double() * 0.5),
    }
    _fd_check(fns[name], x)


def test_ctc_loss_recorded_and_gradient():
    lp = torch.tensor(np.array(LP, np.float32))
    tg = torch.tensor([[1, 2], [3, 3]])
    il, tl = torch.tensor([6, 5]), torch.tensor([2, 2])
    out = F.ctc_loss(lp, tg, il, tl, reduction="none")
    assert out.tolist() == [3.628350019454956, 7.930991172790527]
    assert type(out.grad_fn).__name__ == "CtcLossBackward0" if out.grad_fn else True
    # torch's gradient is taken through the log-softmax (exp(lp) - posterior): finite
    # differences of the loss in lp, plus exp(lp) times the summed gradient, give it
    lpd = lp.double()
    x = lpd.clone().requires_grad_()
    F.ctc_loss(x, tg, il, tl).backward()
    num = np.zeros(lp.shape)
    base = np.array(lpd.tolist())
    for i in np.ndindex(base.shape):
        d = np.zeros_like(base)
        d[i] = 1e-6
        num[i] = (F.ctc_loss(torch.tensor(base + d), tg, il, tl).item()
                  - F.ctc_loss(torch.tensor(base - d), tg, il, tl).item()) / 2e-6
    scale = np.array([1 / 2 / 2, 1 / 2 / 2])[None, :, None]  # mean: / target length / batch
    scale = scale * (np.arange(6)[:, None, None] < np.array([6, 5])[None, :, None])
    np.testing.assert_allclose(x.grad.numpy(), num + np.exp(base) * scale, atol=1e-6)
    assert type(nn.CTCLoss()(lp.requires_grad_(), tg, il, tl).grad_fn).__name__ == \
        "MeanBackward0"


LP = [[[-2.189209461212158, -1.6268939971923828, -1.5324426889419556, -0.7434971332550049],
       [-1.270146369934082, -0.6005231142044067, -2.046109676361084, -3.1833128929138184]],
      [[-2.126739978790283, -0.6808983087539673, -1.7738739252090454, -1.5850470066070557],
       [-2.3317928314208984, -0.6389986872673035, -1.0262959003448486, -4.090790271759033]],
      [[-1.57926607131958, -0.740767240524292, -1.3120015859603882, -3.039785385131836],
       [-1.726120948791504, -1.5430026054382324, -1.5981793403625488, -0.9013436436653137]],
      [[-1.336686372756958, -1.696905255317688, -0.9366485476493835, -1.8195652961730957],
       [-1.8865442276000977, -1.4737012386322021, -1.485811710357666, -0.9339185357093811]],
      [[-3.019876480102539, -0.5914748311042786, -1.2501049041748047, -2.1963555812835693],
       [-2.8823533058166504, -0.2145109325647354, -2.803915023803711, -2.570613145828247]],
      [[-0.6262904405593872, -1.6997071504592896, -1.8795177936553955, -2.040004253387451],
       [-0.722103476524353, -2.9688940048217773, -3.328199863433838, -0.850847601890564]]]


def test_loss_reprs():
    assert repr(nn.PoissonNLLLoss()) == "PoissonNLLLoss()"
    assert repr(nn.TripletMarginWithDistanceLoss()) == (
        "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)")
    assert str(type(nn.CTCLoss())) == "<class 'torch.nn.modules.loss.CTCLoss'>"


# ------------------------------------------------------------------------------ norms
def test_rms_norm_and_lrn_recorded():
    a = torch.tensor(A)
    assert F.rms_norm(a, [4]).tolist() == [
        [0.21693038940429688, 0.43386077880859375, 0.8677215576171875, 1.735443115234375],
        [0.9607684016227722, -0.640512228012085, 1.6012805700302124, 0.3202561140060425]]
    assert F.local_response_norm(a.view(1, 2, 4), 2).tolist() == [
        [[0.09999996423721313, 0.19999969005584717, 0.39999762177467346, 0.7999808192253113],
         [0.2999989092350006, -0.19999940693378448, 0.499992311000824, 0.09999755769968033]]]


def test_norm_modules():
    assert repr(nn.InstanceNorm2d(3, affine=True)) == (
        "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
        "track_running_stats=False)")
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    assert repr(nn.RMSNorm(3)) == "RMSNorm((3,), eps=None, elementwise_affine=True)"
    assert repr(nn.CrossMapLRN2d(3)) == "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"
    m = nn.LazyBatchNorm1d()
    assert repr(m).startswith("LazyBatchNorm1d(0, ")
    m(torch.randn(4, 3))
    assert type(m) is nn.BatchNorm1d and m.num_features == 3
    x = torch.randn(2, 3, 4, 4)
    y = nn.InstanceNorm2d(3)(x)
    xn = x.numpy()
    ref = (xn - xn.mean((2, 3), keepdims=True)) / np.sqrt(xn.var((2, 3), keepdims=True) + 1e-5)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-5)
    b = nn.BatchNorm3d(3)(torch.randn(2, 3, 2, 2, 2, requires_grad=True))
    assert type(b.grad_fn).__name__ == "NativeBatchNormBackward0"
    with pytest.raises(ValueError, match="expected 5D input"):
        nn.BatchNorm3d(3)(torch.randn(2, 3))


# ------------------------------------------------------------------------------ dropouts
def test_alpha_and_feature_dropout_draw_as_torch():
    torch.manual_seed(1)
    assert F.alpha_dropout(torch.ones(2, 4), 0.5, True).tolist() == [
        [1.6655988693237305] * 4,
        [-0.7791939377784729, 1.6655988693237305, 1.6655988693237305, -0.7791939377784729]]
    torch.manual_seed(2)
    assert F.dropout1d(torch.ones(2, 3, 2), 0.5).tolist() == [
        [[0.0, 0.0], [2.0, 2.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]
    x = torch.ones(2, 3, requires_grad=True)
    assert F.alpha_dropout(x, 0.2) is x  # not training
    assert repr(nn.FeatureAlphaDropout(0.1, True)) == "FeatureAlphaDropout(p=0.1, inplace=True)"
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
        F.dropout1d(torch.ones(2), 0.5)


# ------------------------------------------------------------------------------ distances
def test_distances():
    a = torch.tensor(A, requires_grad=True)
    d = F.pairwise_distance(a, torch.zeros(2, 4))
    assert type(d.grad_fn).__name__ == "NormBackward1"
    np.testing.assert_allclose(d.tolist(), np.linalg.norm(f32(A) + 1e-6, axis=1), rtol=1e-6)
    p = F.pdist(torch.tensor(A).t().contiguous().requires_grad_())
    assert p.tolist() == [0.5099019408226013, 0.36055511236190796, 0.7280109524726868,
                          0.7280109524726868, 0.670820415019989, 0.5656854510307312]
    assert type(p.grad_fn).__name__ == "PdistBackward0"
    _fd_check(lambda v: F.pdist(v).sum(), torch.tensor(A).double())
    assert repr(nn.PairwiseDistance()) == "PairwiseDistance()"


def test_embedding_bag():
    w = torch.arange(30.0).view(10, 3).requires_grad_()
    inp = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    off = torch.tensor([0, 4])
    s = F.embedding_bag(inp, w, off, mode="sum")
    assert type(s.grad_fn).__name__ == "EmbeddingBagBackward0"
    wn = np.arange(30.0).reshape(10, 3)
    assert s.tolist() == [wn[[1, 2, 4, 5]].sum(0).tolist(), wn[[4, 3, 2, 9]].sum(0).tolist()]
    m = F.embedding_bag(inp, w, off)
    np.testing.assert_allclose(m.tolist(), [wn[[1, 2, 4, 5]].mean(0), wn[[4, 3, 2, 9]].mean(0)])
    mx = F.embedding_bag(inp, w, off, mode="max")
    assert mx.tolist() == [wn[5].tolist(), wn[9].tolist()]
    s.sum().backward()
    assert w.grad.numpy()[:, 0].tolist() == [0, 1, 2, 1, 2, 1, 0, 0, 0, 1]
    assert repr(nn.EmbeddingBag(10, 3)) == "EmbeddingBag(10, 3, mode='mean')"


def test_torch_level_forms_and_inplace_elu():
    x = torch.tensor([-1.0, 2.0], requires_grad=True)
    y = x.clone()
    r = F.elu(y, inplace=True)
    assert r is y and type(y.grad_fn).__name__ == "EluBackward1"
    np.testing.assert_allclose(y.tolist(), [np.expm1(-1.0), 2.0], rtol=1e-6)
    y = x.clone()
    F.leaky_relu(y, 0.1, inplace=True)
    assert type(y.grad_fn).__name__ == "LeakyReluBackward1"
    assert torch.celu is F.celu or torch.celu(x).tolist() == F.celu(x).tolist()
    assert torch.tensor([0.2, -1.0]).hardshrink(0.5).tolist() == [0.0, -1.0]
    a = torch.tensor(A)
    assert torch.margin_ranking_loss(a[0], a[1], torch.ones(4), 0.0, 2).item() == \
        F.margin_ranking_loss(a[0], a[1], torch.ones(4), reduction="sum").item()
    assert torch.feature_dropout(a, 0.5, False) is a


def test_linear_cross_entropy_is_linear_then_cross_entropy():
    torch.manual_seed(0)
    loss = nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3))
    assert repr(nn.LinearCrossEntropyLoss(5, 10)) == (  # printed by torch 2.13
        "LinearCrossEntropyLoss(\n  in_features=5, num_classes=10, out_features=(), bias=False, "
        "reduction=mean, ignore_index=None, label_smoothing=0.0, options=None\n  (linear): "
        "Linear(in_features=5, out_features=10, bias=False)\n)")
    x = torch.randn(2, 5)
    t = torch.randint(0, 10, (2, 4, 3))
    out = loss(x, t)
    logits = (x.numpy() @ loss.linear.weight.detach().numpy().T).reshape(2, 10, 4, 3)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    ref = -np.take_along_axis(logp, t.numpy()[:, None], 1).mean()
    np.testing.assert_allclose(out.item(), ref, rtol=1e-5)


def test_adaptive_log_softmax_matches_its_full_log_prob():
    torch.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0)
    assert str(type(m)) == "<class 'torch.nn.modules.adaptive.AdaptiveLogSoftmaxWithLoss'>"
    x = torch.randn(6, 8, requires_grad=True)
    t = torch.tensor([0, 5, 9, 3, 7, 1])
    out = m(x, t)
    full = m.log_prob(x).detach().numpy()
    np.testing.assert_allclose(out.output.detach().numpy(), full[np.arange(6), t.numpy()],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.exp(full).sum(1), np.ones(6), rtol=1e-5)
    out.loss.backward()
    assert x.grad.shape == (6, 8)
    assert m.predict(x).tolist() == full.argmax(1).tolist()


def test_nll_loss_node_names_by_dims():
    # printed by torch 2.13: nll_loss of a 3-D or higher input is nll_loss2d's node; a 3-D or
    # 5-D input with reduction="none" is viewed back (ViewBackward0)
    names = {}
    for shp in [(2, 3), (2, 3, 4), (2, 3, 4, 5), (2, 3, 4, 5, 2)]:
        x = torch.randn(*shp, requires_grad=True)
        t = torch.randint(0, 3, (shp[0],) + shp[2:])
        for r in ("mean", "none"):
            names[(len(shp), r)] = type(F.cross_entropy(x, t, reduction=r).grad_fn).__name__
    assert names == {(2, "mean"): "NllLossBackward0", (2, "none"): "NllLossBackward0",
                     (3, "mean"): "NllLoss2DBackward0", (3, "none"): "ViewBackward0",
                     (4, "mean"): "NllLoss2DBackward0", (4, "none"): "NllLoss2DBackward0",
                     (5, "mean"): "NllLoss2DBackward0", (5, "none"): "ViewBackward0"}


def test_activation_modules_inplace():
    x = torch.tensor([-1.0, 2.0], requires_grad=True)
    for m, name in [(nn.ELU(inplace=True), "EluBackward1"),
                    (nn.LeakyReLU(0.2, True), "LeakyReluBackward1"),
                    (nn.SELU(True), "EluBackward1"), (nn.CELU(inplace=True), "CeluBackward1"),
                    (nn.Threshold(0.1, 2.0, True), "ThresholdBackward1")]:
        y = x.clone()
        assert m(y) is y and type(y.grad_fn).__name__ == name


def test_sleef_exp_kernels_recorded_bits():
    # celu, its gradient and glu on 64+ float32 values take SLEEF's expm1f/expf on whole
    # blocks of 32 (torch 2.13's AVX-512 kernels); the hex values were printed by torch 2.13
    x = torch.linspace(-20, 0, 64)
    y = F.celu(x)
    assert [float(v).hex() for v in y.tolist()[::9]] == [
        '-0x1.0000000000000p+0', '-0x1.0000000000000p+0', '-0x1.ffffec0000000p-1',
        '-0x1.fffe920000000p-1', '-0x1.ffe72c0000000p-1', '-0x1.fe4fa80000000p-1',
        '-0x1.e298320000000p-1', '0x0.0p+0']
    xg = x.clone().requires_grad_()
    F.celu(xg, 0.7).sum().backward()
    assert [float(v).hex() for v in xg.grad.tolist()[::9]] == [
        '0x1.b7a0c20000000p-42', '0x1.96f2280000000p-36', '0x1.78b1560000000p-30',
        '0x1.5cb0480000000p-24', '0x1.42c4200000000p-18', '0x1.2ac5740000000p-12',
        '0x1.148f5e0000000p-6', '0x1.0000000000000p+0']
    g = F.glu(torch.linspace(-5, 5, 128))
    assert [float(v).hex() for v in g.tolist()[::9]] == [
        '-0x1.464c640000000p+1', '-0x1.74d4ce0000000p+1', '-0x1.73ec320000000p+1',
        '-0x1.4a04960000000p+1', '-0x1.06599a0000000p+1', '-0x1.6ad38e0000000p+0',
        '-0x1.79d2300000000p-1', '-0x1.405c7c0000000p-5']
