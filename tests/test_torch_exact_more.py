"""torch's last bits beyond the activation kernels (issue 28): derivatives.yaml's formulas with
torch's own kernels in torch's order, and TensorIterator's choice of vector / scalar loop.

* glu's backward ``(1 - s) * s * a * grad`` (Activation.cpp's order); F.normalize's gradient
  (expand's backward is one ``sum`` over the broadcast dims, ``at::sum_to``: the engine's
  one-at-a-time order was up to 128 ulps off); logsumexp's ``grad * (self - result).exp()``
  with torch's exp; ``x ** t``'s gradients (pow_backward_self / pow_backward_exponent with
  torch's pow and log; a Python base's ``log`` in double); a broadcast ``a ** b`` vectorised
  row by row (``gradrepl/torch/_tensor_iter.py``);
* the gradients torch fills with +0 (``zeros_like``, ``masked_fill``, ``where``): round, floor,
  ceil, round(decimals=), relu, maximum, fmax, div(rounding_mode=), copysign's other, max()
  -- ``grad * 0`` gave -0. where the incoming gradient was negative, and torch prints 0.;
* views: a transposed tensor's SLEEF blocks in memory order, a strided one all scalar
  (sigmoid, sinh, silu, softplus, mish, elu, celu);
* derivatives.yaml's formulas by node name (``_unary_grads.BY_NAME``, given by ``_ops.top``):
  tan, asin, acos, exp2, erfinv, sinc, entr, i1, atan2, logaddexp(2), addcdiv; hypot's
  ``(grad * self) / result``; ``x ** 1.7``'s ``x.pow(1.7 - 1)`` with the exponent taken in
  double (0.7, not float(1.7) - 1); ``2.5 ** x.t()`` looped in its C-contiguous output's order;
* kernels (``gradrepl/torch/_elementwise_more.py``): lerp's fused multiply-adds, logit as
  torch's log of ``x / (1 - x)``, atan2 with SLEEF's atan2f on vector blocks and the C
  library's atan2f on every other value (also past the engine's 1,024-element shortcut);
  logaddexp with SLEEF's expf/log1pf on the vector blocks, the C library's on the rest;
  binary_cross_entropy_with_logits as Loss.cpp (``(1 - t) * x - log_sigmoid(x)``, torch's
  log_sigmoid), binary_cross_entropy's target gradient with that logit; lgamma (and
  mvlgamma) as SLEEF's lgammaf_u1 on every value, digamma's backward with ATen's
  calc_trigamma (float, fused tail);
* pow and exp2 over views: ``t ** 1.7`` of a transposed tensor vectorised in memory order, a
  strided one's scalar loop with glibc's powf/exp2f at any size;
* smooth_l1_loss / huber_loss backward as their CPU kernels (``norm * out * grad`` in the
  vector blocks, ``norm * d * grad / beta`` in the scalar tail; norm = 1/N, not a division),
  cumsum's backward as torch's cumsum (in double) of the flipped gradient; addcmul's
  ``grad * (tensor2 * value)``.

The md5s (first 16 hex digits of each tensor's float32 bytes) were recorded from real torch
2.13.0 on this project's machine (AMD EPYC Zen 4, AVX512), 2026-12-06, running the cases of
tests/data/torch_exact_more_cases.py; the same cases under ATEN_CPU_CAPABILITY=avx2 gave the
same md5s (the AVX2 build an AVX2 machine runs) except where both are given.
"""
from __future__ import annotations

import hashlib
import importlib.util
import pathlib
import platform

import numpy as np
import pytest
from conftest import skip_unless_mkl_branch

RECORDS = {
    "bce/10": ('421c9dd3919e7cad', '1f71cbc8338b4219', 'aa3550275ed182ea', 'a44e6945ff8adcad', '6235e8d450d82058'),
    "bce/40": ('664c4c0dbf0b52b2', '74fdf72aa2aef8bb', '8acd4bee0a12e0ba', '74fdf72aa2aef8bb', 'b5b39b3f3ca0dd7f'),
    "bce/1000": ('250f91266aa13b52', '68f6ec1e47cbcb43', 'f2e09de713a56add', '6b380626cfee6016', '585779a192697544'),
    "gamma/10": ('7520bd5ebb0bf107', '66ef7d33dfb35198', '1858ebf6512f160a', 'b7ea6be2e2d9531d', 'e81d0b4bb0ae0dc0'),
    "gamma/40": ('16ad4af233716ba7', '6489449c3596cd7d', 'd3e29786a74513a7', 'f0c27337c402b958', 'b808b9e2f9f028ed'),
    "gamma/1000": ('c72161128b2ab767', 'e673900a44b1dc39', '9cc78557bf5611b1', 'fbe7f8d7d6745e51', '08f62a6d3f167cd0'),
    "pow_views/10": ('82fff01aa412d5dc', 'd38cca7ae1554b4e', 'b26c66951066063e', 'b3be271bd4f804a8', '2ebde4c6cc08f495'),
    "pow_views/40": ('1119b899bdcb9b2c', '942fbf2bf2199f99', '72f999344d2947c6', '780619a4c2d26271', 'fba780095360f594'),
    "pow_views/1000": ('cf28d890bc08e255', '1c1dfbd4cf3252bb', '1940000272bab918', 'ee592bd6f86b1ccf', '8e0887996a3300bc'),
    "losses_cumsum/10": ('1ee930215bc50b9d', '8428f3e3d0662665', 'd27eb759140bde70', '931ae90118854161', '762185f71b15a885', '5b3aea6534d78593', '114ba94b40bbec06'),
    "losses_cumsum/40": ('ecab9acfdadabaa8', 'd8ed82b056eaa3d4', 'f7e2fef2f92dc548', '471ccafd460ba3de', '5d73d66b89e29ac1', 'da40f3c256d733b9', 'bb0a8e10dbbfb5fa'),
    "losses_cumsum/1000": ('03100ba262982c0c', 'a39a13dffc3b0dc8', '67605f81c129006e', 'ed42faf59032c6b0', '58054902b4c83d58', '01f03572c4830b09', '01f3b3b140978094'),
    "glu/10": ('d7b3b3cc283f6391', '498464d0851a22fd'),
    "glu/40": ('cfae573525ef4abd', '1faf4ac044a5d2a9'),
    "glu/1000": ('59bc3a0e13526d57', '364de51bda599d34'),
    "glu_dim0/10": ('60eefa95fed28860', '4df06f7d29127957'),
    "glu_dim0/40": ('f8bbb00e45955e85', 'ea25eae37bedf76e'),
    "glu_dim0/1000": ('06e9a921f407c951', 'c6c8af0d0ee39404'),
    "normalize/10": ('2793349691db7892', '4dd30d135f43454a'),
    "normalize/40": ('f8df5ba6fb9a91d9', '52b189fcf62eec80'),
    "normalize/1000": ('1bec25336235924d', 'ec6be98b762534a2'),
    "logsumexp/10": ('93cfc36d04d31c00', '6279ddbb62c0a102'),
    "logsumexp/40": ('a36c0fea12f5757b', '188eb5feec476397'),
    "logsumexp/1000": ('a28e7895c2e25dbb', '14a7edf235bce3cc'),
    "pow_tensor/10": ('1d1f7948751fa373', 'f5e7225a3dfcfac0', 'ace6973d9f88ae77'),
    "pow_tensor/40": ('1bd275f1239e5618', '8aea36028bd2bd85', '2cee506341a51934'),
    "pow_tensor/1000": ('e1b321588575b734', '9de4a66de7c365c4', 'feec201bf4ed8c7f'),
    "pow_rows/10": ('658105f4261463dd', '5d45cbfd3b93b809', 'b51ee16b6472905b'),
    "pow_rows/40": ('0f958296ec65940a', '4bd087b8fe9e4165', '322274b61b03c16f'),
    "pow_rows/1000": ('489e223d0c884d38', '25395306036f6de3', '653f5dfb2af0467a'),
    "rpow/10": ('3c4e4edc93c8b6d3', 'd9bb3c2178d3b5b6'),
    "rpow/40": ('46a74e465d7fb743', '0052735bf3c2bdcc'),
    "rpow/1000": ('cd08dd335ddb868d', '950de1ea052fdb1d'),
    "zero_grads/10": ('24e850b84f56757e',),
    "zero_grads/40": ('866c630c4a611984',),
    "zero_grads/1000": ('4111a2d502dce3f5',),
    "views/10": {"AVX512": ('c344f05220579a60', '70d2c6e2a4240d9f', '6aef8a135a771e75', '163625e1904423bd', '3a6cca9d68ea35eb', '62f2bb710ed92743', 'ae85ad21c07b9b10', '60c6791e9ba0dac3', '875e8474216606d3', '8907e9e1a7af791e', 'd8e4f99ff0370207', '28c1ebe561506a96', '7bb6009698c9fdfb', 'b8d1f919206e17e3', '30c7ce3eeb515fc4', '791e7587ae0d478a'),
               "AVX2": ('2eed8c88a1f60d55', '70d2c6e2a4240d9f', '414c7f8e93fd6a9f', '163625e1904423bd', '9e283ebedf1a8956', '62f2bb710ed92743', 'c0b21602cad10a3c', '60c6791e9ba0dac3', '4e14d254f5f2da15', '8907e9e1a7af791e', 'd8e4f99ff0370207', '28c1ebe561506a96', 'a17015fae8a956e8', 'b8d1f919206e17e3', '2ba7e632e6b5b6fd', '791e7587ae0d478a')},
    "views/40": {"AVX512": ('1579a7e4a94557aa', '23459a4886295673', 'dbd81c7199b84123', 'a02087d9f14852b9', '715e0d2515eba4aa', '6898e1250b88b497', 'c0d75c3deb553bc2', '73587666dc80e8b9', '86374c4e3077290b', '74c05e9ca8e28416', 'a444d68371dc41ad', '3b1c30955c110e7f', 'ad0f8989cd1c81e5', '143aaeeb469a241d', '6910b5493a1d917a', 'db7950a92a267910'),
               "AVX2": ('1579a7e4a94557aa', '23459a4886295673', '68b38953b4f6081e', 'a02087d9f14852b9', '715e0d2515eba4aa', '6898e1250b88b497', '53e5248ec01d26c5', '73587666dc80e8b9', 'e6e01cb405835ae5', '74c05e9ca8e28416', 'a444d68371dc41ad', '3b1c30955c110e7f', 'b48edd7139f385f1', '143aaeeb469a241d', 'ecc6fc1781deef44', 'db7950a92a267910')},
    "views/1000": {"AVX512": ('ae056396558260e5', '3ac9c94682757980', '1c0ff50f6fe0c4cb', 'b84e0cee35d1e4f7', '973b59c24f1e8b3f', '6a701b5a93248df4', '9f51c1f7e3eea96a', '5aa2638f86ecd58c', 'ed6db80874f8e341', '8b0bd8f06a103701', '509f3c050ab41d83', 'bef8f23b6c159502', '579e130240ffecfb', '632a483b5685106d', '75d7e1dc8a71bba2', '3c6c570b2f261b85'),
               "AVX2": ('ae056396558260e5', '3ac9c94682757980', 'e8f568407825137d', 'b84e0cee35d1e4f7', '973b59c24f1e8b3f', '6a701b5a93248df4', 'e04fc2cfd236e8ea', '5aa2638f86ecd58c', '008fcc4694e553e3', '8b0bd8f06a103701', '27905ab61442f9a1', 'bef8f23b6c159502', '579e130240ffecfb', '632a483b5685106d', '75d7e1dc8a71bba2', '3c6c570b2f261b85')},
    "formulas/10": ('57bbf4942a8021f5', '134399499dc9f0e2', 'ab2082b714a53991', 'd3767935ae00360c', 'dc865e5a63abbd17', 'd14c03d4332dc8c3', '4cb2a835dbabac5f', '4cbb30c6301935b1', '9daafcd3fb9091f3', '29a484ffdd72aece', '7170e96f95508ef3', '7ddfaf746812a21d', 'e244ed7706dbf3eb', 'b7a4816990b95a44'),
    "formulas/40": ('b273dc66af1df495', '132a3504a2179830', 'b3726b2bab1f2696', '1ad16ed20bbee37f', '310d7c66b04a2f99', '96c93fae08ecd9f5', '57445bb6d5ef20d8', '17516c890595028f', '0b1901a2c0233cfe', '8cb2bf6063ac429f', 'cd2915154d5d6046', 'f4b3e5fb7e9bfbeb', '9fdb47d2cdc89b97', '57e696860347649e'),
    "formulas/1000": ('8448617fe63f1ca6', '94cf086c445c0659', 'fc56c32b597ec2d9', 'f35090704b1cbf7e', '42ebd3b5402bd388', 'bb32adf1d340441a', 'dcbaa73ca76e9875', '1a93697807950b43', '050a89c4b80ae12a', 'd3085edcc912e208', '4bd56f2fbf371f04', '54da31eca83f137e', '11b3351296b1c2e8', 'b59620ffc4a0ed9e'),
    "rpow_t/10": ('c3fd4191df8749d2', 'b815195d6025397e'),
    "rpow_t/40": ('7224710210ebaf92', '43fffa3275d0cc8e'),
    "rpow_t/1000": ('b55cab1d5ae9626e', '86f8ea3feded6f89'),
    "kernels/10": ('e3efe322ba6654e3', 'af1ea84d0f72f721', 'd48f7bcd4f173333', '419774a699ece088', 'c944f2dfbe360cd7', '84520bc45b28f1e5', '18533c5b0edfea8d', '2fe068d8b0ea5746', 'bf459d4e326ed2d5', '36adf27880ed51f4'),
    "kernels/40": ('e85a86c87acbbda1', 'fe858a5fadbb5feb', '687e2a0f046ef6af', 'e36be32afac5b262', '695cfa8a85e46dff', 'fd8d91f7c4ab24ac', '5a95d580e21f6fb2', 'e91dc69b1a451032', 'fcb332d5bae7b291', '9b72c80e982290eb'),
    "kernels/1000": ('f2605381770ac111', 'd43b9b9e240c99e6', '36730dda0759cbc0', '8b773934f377a2a0', '8ca1609f6ebc7300', 'b582c7dfc1f979f4', 'c65b8c7c8dc8c5fb', '546b5c0fcb49bed1', '3886e72fbfb7f8a9', '6c95b81675a9758b'),
    "atan2_strided/10": ('cb004807b1578ae4',),
    "atan2_strided/40": ('a43b875fbe8d51e5',),
    "atan2_strided/1000": ('40e5e257a7f1c990',),
}

x86 = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                         reason="torch's x86-64 AVX2/AVX-512 kernels (SLEEF's powf/expf on "
                         "vector blocks) are emulated; an aarch64 torch runs other ones")


def _cases():
    path = pathlib.Path(__file__).parent / "data" / "torch_exact_more_cases.py"
    spec = importlib.util.spec_from_file_location("gradrepl_test_torch_exact_more_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


C = _cases()


# cases whose torch path calls MKL (exp/log VML kernels, products): failed without MKL (a lean venv)
NEEDS_MKL = {"formulas", "kernels", "logsumexp", "pow_rows", "pow_tensor"}


# NEEDS_MKL's cases by real torch 2.13 on MKL's AVX512_E1 path (Intel Sapphire Rapids Xeon)
RECORDS_AVX512_E1 = {k: v for k, v in __import__("json").loads(
    (pathlib.Path(__file__).parent / "data" / "torch_exact_more_AVX512_E1.json").read_text()).items()
    if not k.startswith("_")}


def md5(t):
    return hashlib.md5(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()[:16]


@x86
@pytest.mark.parametrize("capability", ["AVX512", "AVX2"])
@pytest.mark.parametrize("name", sorted(C.CASES))
def test_equals_real_torch(monkeypatch, capability, name):
    from gradrepl.engine import cpu, mkl

    if name in NEEDS_MKL:

        if not mkl.load():
            pytest.skip(f"{name}: real torch computes part of it with MKL's VML/BLAS kernels; "
                        "without the MKL backend (the exact extra) the last bits are not compared")
        if mkl.branch() != "AVX512_E1" or cpu.emulated():
            skip_unless_mkl_branch(name)
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", capability)
    import gradrepl.torch as torch

    for n in C.SIZES:
        got = [md5(t) for t in C.CASES[name](torch, n)]
        rec = RECORDS[f"{name}/{n}"]
        rec = rec[capability] if isinstance(rec, dict) else rec
        if name in NEEDS_MKL and mkl.branch() == "AVX512_E1":
            rec = tuple(RECORDS_AVX512_E1[f"{name}/{n}"])   # (both builds: the same here)
        assert tuple(got) == rec, (capability, name, n)


def test_sleef_lgammaf_special_values(monkeypatch):
    """lgammaf_u10's special values as real torch 2.13 gives them (recorded here): +inf at the
    poles and infinities, the reflection for negative non-integers."""
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")
    from gradrepl.torch._elementwise_more import lgammaf_u10

    x = np.array([0.0, -0.0, 1.0, 2.0, -1.0, np.inf, -np.inf, 1e-35, 0.5, -2.5], np.float32)
    got = lgammaf_u10(x)
    assert np.isinf(got[[0, 1, 4, 5, 6]]).all() and (got[[0, 1, 4, 5, 6]] > 0).all()
    assert got[2] == 0 and got[3] == 0
    assert got[7] == np.float32(80.59048)
    assert got[8] == np.float32(0.5723649) and got[9] == np.float32(-0.056243718)


def test_zero_gradients_are_plus_zero():
    """round/relu/maximum/max() of a negative incoming gradient: +0 (torch's zeros_like and
    masked_fill), the kept values untouched."""
    import gradrepl.torch as torch

    x = torch.tensor([-1.5, 2.0, -0.2, 0.7], requires_grad=True)
    g = torch.tensor([-1.0, -2.0, 3.0, -4.0])
    for f, want in ((torch.round, [0, 0, 0, 0]), (torch.relu, [0, -2, 0, -4]),
                    (lambda v: torch.maximum(v, torch.zeros(4)), [0, -2, 0, -4])):
        x.grad = None
        f(x).backward(g)
        got = x.grad.numpy()
        assert got.tolist() == want
        assert not np.signbit(got[got == 0]).any()
    x.grad = None
    x.max().backward(torch.tensor(-3.0))
    got = x.grad.numpy()
    assert got.tolist() == [0, -3, 0, 0] and not np.signbit(got[[0, 2, 3]]).any()


def test_error_messages_as_torch():
    """Recorded from real torch 2.13: topk past the dim's size; soft_margin_loss with a target
    that requires grad (with grad mode on only)."""
    import gradrepl.torch as torch

    with pytest.raises(RuntimeError, match="^selected index k out of range$"):
        torch.randn(8, 2).topk(3)
    a = torch.randn(5)
    b = torch.randn(5, requires_grad=True)
    with pytest.raises(RuntimeError, match="The function 'soft_margin_loss' is not "
                       "differentiable with respect to argument 'target'. This input cannot "
                       "have requires_grad True."):
        torch.nn.functional.soft_margin_loss(a, b)
    with torch.no_grad():
        torch.nn.functional.soft_margin_loss(a, b)


def test_maximum_ties_split_the_gradient():
    import gradrepl.torch as torch

    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = torch.tensor([1.0, 5.0, 0.0], requires_grad=True)
    torch.maximum(a, b).backward(torch.tensor([-4.0, -4.0, -4.0]))
    assert a.grad.tolist() == [-2.0, 0.0, -4.0] and b.grad.tolist() == [-2.0, -4.0, 0.0]
    assert not np.signbit(a.grad.numpy()[1]) and not np.signbit(b.grad.numpy()[2])


@pytest.mark.parametrize("shape_a, shape_b, inner, vec", [
    ((10, 100), (100,), 100, True),       # b broadcast over rows: one row at a time
    ((10, 100), (), 1000, True),          # a scalar operand: the whole flat range
    ((10, 1), (100,), 100, True),         # a stride 0 along the rows, b contiguous
    ((10, 1), (1, 100), 100, True),
])
def test_tensor_iter_layout_of_broadcasts(shape_a, shape_b, inner, vec):
    from gradrepl.torch import _tensor_iter as T

    a = np.zeros(shape_a, np.float32)
    b = np.zeros(shape_b, np.float32)
    _, _, got_inner, got_vec = T.layout([a, b])
    assert (got_inner, got_vec) == (inner, vec)


def test_tensor_iter_strided_and_transposed_views(monkeypatch):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")
    from gradrepl.torch import _tensor_iter as T

    a = np.zeros((10, 100), np.float32)
    assert not T.vector_mask([a[:, ::2]]).any()                 # stride 2: all scalar
    m = T.vector_mask([a.T])                                     # memory order: one range
    assert m.sum() == 992 and m.T.reshape(-1)[:992].all()
    m = T.vector_mask([a, a[0]])                                 # rows of 100: 96 vector each
    assert m.sum() == 960 and m[:, :96].all() and not m[:, 96:].any()
