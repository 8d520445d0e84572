"""torch's last bits on the CPU: sums, norms, addcmul/addcdiv, pow, prod, cumsum, dist of
float32 tensors against digests of real torch 2.13's results, recorded in this session on an
AMD EPYC (Zen 4) with 2 threads under each of torch's CPU capabilities (real torch run plain:
AVX512; with ``ATEN_CPU_CAPABILITY=avx2``; with ``ATEN_CPU_CAPABILITY=default``). gradrepl
chooses the capability's rules through ``GRADREPL_TORCH_CAPABILITY`` and the thread count
through ``GRADREPL_TORCH_THREADS``, so the tests pass on any machine. Inputs come from numpy's
default_rng (the same on every machine); a digest is the first 16 hex digits of the SHA-256 of
the result's bytes."""
import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import _capability
from conftest import skip_unless_mkl_branch


def gen(seed, shape, dist="randn"):
    r = np.random.default_rng(seed)
    if dist == "pos":
        return (r.random(shape) * 3 + 0.01).astype(np.float32)
    return (r.standard_normal(shape) * 2).astype(np.float32)


CASES = [
    ("sum_100000", (100000,), "x.sum()"),
    ("sum_1000", (1000,), "x.sum()"),
    ("sum_300x200_d0", (300, 200), "x.sum(0)"),
    ("sum_300x200_d1", (300, 200), "x.sum(1)"),
    ("sum_2x70000_d1", (2, 70000), "x.sum(1)"),
    ("sum_70000x2_d0", (70000, 2), "x.sum(0)"),
    ("sum_1000x40_d0", (1000, 40), "x.sum(0)"),
    ("sum_6x50x200_d02", (6, 50, 200), "x.sum((0, 2))"),
    ("mean_100000", (100000,), "x.mean()"),
    ("mean_300x200_d0", (300, 200), "x.mean(0)"),
    ("norm_1x200", (1, 200), "x.norm()"),
    ("norm_200x300_d1", (200, 300), "torch.norm(x, dim=1)"),
    ("norm_200x300_d0", (200, 300), "torch.norm(x, dim=0)"),
    ("norm_20000x3_d1", (20000, 3), "torch.norm(x, dim=1)"),
    ("norm_100x100_d1", (100, 100), "torch.norm(x, dim=1)"),
    ("normalize_64x17", (64, 17), "torch.nn.functional.normalize(x)"),
    ("norm1_40000", (40000,), "x.norm(p=1)"),
    ("norm3_40000", (40000,), "x.norm(p=3)"),
    ("vnorm_70000x2", (70000, 2), "torch.linalg.vector_norm(x)"),
    ("addcmul_1000", (1000,), "x.addcmul(y, z, value=0.3)"),
    ("addcmul_70000", (70000,), "x.addcmul(y, z, value=0.01)"),
    ("addcdiv_1000", (1000,), "x.addcdiv(y, z, value=0.3)"),
    ("pow4_1000", (1000,), "x ** 4"),
    ("pow5_1000", (1000,), "x ** 5"),
    ("pow3_1000", (1000,), "x ** 3"),
    ("pow0.5_1000", (1000,), "y ** 0.5"),
    ("pow-1_1000", (1000,), "x ** -1"),
    ("pow2.5_1000", (1000,), "y ** 2.5"),
    ("pow7_31", (31,), "y ** 7"),
    ("pow7_32", (32,), "y ** 7"),
    ("pow7_48", (48,), "y ** 7"),
    ("pow-1.5_40000", (40000,), "y ** -1.5"),
    ("powt_1000", (1000,), "y ** x"),
    ("rpow_100", (100,), "2.5 ** x"),
    ("sqrt_1000", (1000,), "y.sqrt()"),
    ("prod_300x200_d1", (300, 200), "(y * 0.7).prod(1)"),
    ("cumsum_200x300_d1", (200, 300), "x.cumsum(1)"),
    ("dist_200x300", (200, 300), "torch.dist(x, y)"),
]

# name: (AVX512, AVX2, DEFAULT) digests of real torch 2.13's result (recorded as above)
RECORDED = {
    'sum_100000': ('43e2c9faf36c030b', '43e2c9faf36c030b', '43e2c9faf36c030b'),
    'sum_1000': ('2f8d49b4a03297fb', '2f8d49b4a03297fb', '2f8d49b4a03297fb'),
    'sum_300x200_d0': ('c53dbfb101a9d8c7', 'c53dbfb101a9d8c7', 'c53dbfb101a9d8c7'),
    'sum_300x200_d1': ('f4c89080070021f0', 'f4c89080070021f0', 'f4c89080070021f0'),
    'sum_2x70000_d1': ('ec0dde76c22cb4b5', 'ec0dde76c22cb4b5', 'ec0dde76c22cb4b5'),
    'sum_70000x2_d0': ('c754ee1a0de1225d', 'c754ee1a0de1225d', 'c754ee1a0de1225d'),
    'sum_1000x40_d0': ('4f48389f50990326', '4f48389f50990326', '4f48389f50990326'),
    'sum_6x50x200_d02': ('916d81d42a70c1b6', '916d81d42a70c1b6', '916d81d42a70c1b6'),
    'mean_100000': ('ee041d728a0f71b2', 'ee041d728a0f71b2', 'ee041d728a0f71b2'),
    'mean_300x200_d0': ('4618ed1622900590', '4618ed1622900590', '4618ed1622900590'),
    'norm_1x200': ('2de9380090761bb9', '2de9380090761bb9', '2de9380090761bb9'),
    'norm_200x300_d1': ('418389d92207c6ac', '418389d92207c6ac', '418389d92207c6ac'),
    'norm_200x300_d0': ('5ab4a7776e7e0e53', '5ab4a7776e7e0e53', '5ab4a7776e7e0e53'),
    'norm_20000x3_d1': ('3f77dbf285ebcdaf', '3f77dbf285ebcdaf', 'cc0eff8130d77d8e'),
    'norm_100x100_d1': ('ea325e3e350c0f15', 'ea325e3e350c0f15', 'ea325e3e350c0f15'),
    'normalize_64x17': ('5af9887baf137b7a', '5af9887baf137b7a', '5af9887baf137b7a'),
    'norm1_40000': ('4d3615830cd8c332', '4d3615830cd8c332', '4d3615830cd8c332'),
    'norm3_40000': ('4ab6a3fd2c17538c', '4ab6a3fd2c17538c', '4ab6a3fd2c17538c'),
    'vnorm_70000x2': ('dab63e18667bd599', 'dab63e18667bd599', 'dab63e18667bd599'),
    'addcmul_1000': ('4164153b72972c76', '4164153b72972c76', '112b439c6b2d01a6'),
    'addcmul_70000': ('fc7efb815c15ec71', 'fc7efb815c15ec71', '0445047458e10b8c'),
    'addcdiv_1000': ('1253636045a00cf5', '1253636045a00cf5', '1253636045a00cf5'),
    'pow4_1000': ('ea91df24f6a5b980', 'ea91df24f6a5b980', 'ecee889e21bd7f67'),
    'pow5_1000': ('1e631305dc60ea18', '1e631305dc60ea18', 'd3777a699fc66d3b'),
    'pow3_1000': ('150b4e73480ef59d', '150b4e73480ef59d', '150b4e73480ef59d'),
    'pow0.5_1000': ('e5c007282bf589db', 'e5c007282bf589db', 'e5c007282bf589db'),
    'pow-1_1000': ('0af6ee7e99ea90e7', '0af6ee7e99ea90e7', '0af6ee7e99ea90e7'),
    'pow2.5_1000': ('a8bae68f0efbfbe5', 'a8bae68f0efbfbe5', '1a8479c888edc1bd'),
    'pow7_31': ('808e63de05dedc79', 'a179c18cf9e30e40', '808e63de05dedc79'),
    'pow7_32': ('72aa8589dfd731fb', '72aa8589dfd731fb', '72aa8589dfd731fb'),
    'pow7_48': ('79ee0c9fc0a2dd46', '9a83b526850217c8', '95b0782eb9f57de1'),
    'pow-1.5_40000': ('60468729ebfdcf26', '60468729ebfdcf26', '9ce0803c2c34d04e'),
    'powt_1000': ('973a8e3bf6c9e93d', '973a8e3bf6c9e93d', '7ac75cbb97120016'),
    'rpow_100': ('462dcd4b1f852a56', '462dcd4b1f852a56', '78f1287e2337f78d'),
    'sqrt_1000': ('4b9484bcecf9bea4', '4b9484bcecf9bea4', '4b9484bcecf9bea4'),
    'prod_300x200_d1': ('1572360c7a47e05d', '1572360c7a47e05d', '1572360c7a47e05d'),
    'cumsum_200x300_d1': ('eb3168faf488106c', 'eb3168faf488106c', 'eb3168faf488106c'),
    'dist_200x300': ('ae8bca6b2dcdc813', 'ae8bca6b2dcdc813', 'ae8bca6b2dcdc813'),
}
CAPS = ("avx512", "avx2", "default")
# DEFAULT's generic vector pow differs from powf in ~0.06% of values: not reproduced
KNOWN_GAPS = {("pow-1.5_40000", "default")}
# real torch's x86 sqrt is MKL's vsSqrt at every capability: without the mkl wheel (aarch64, a
# lean install) gradrepl's sqrt is numpy's, whose last bits these records do not show
MKL_CASES = {"sqrt_1000", "pow0.5_1000"}
# the same on MKL's AVX512_E1 path (real torch 2.13 on an Intel Sapphire Rapids Xeon; every
# capability the same, as on the AMD EPYC)
RECORDED_MKL_AVX512_E1 = {"sqrt_1000": "90019490929bd0fe", "pow0.5_1000": "f5edb5874c7cdc67"}


def _digest(t):
    a = np.ascontiguousarray(t.detach().numpy())
    return hashlib.sha256(a.tobytes()).hexdigest()[:16]


@pytest.fixture
def capability(monkeypatch, request):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", request.param)
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    return request.param


@pytest.mark.parametrize("capability", CAPS, indirect=True)
@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0] for c in CASES])
def test_bits_recorded(capability, index):
    name, shape, expr = CASES[index]
    if (name, capability) in KNOWN_GAPS:
        pytest.skip("known gap")
    if name in MKL_CASES and not __import__("gradrepl.engine.mkl", fromlist=["load"]).load():
        pytest.skip(f"{name}: real torch's x86-64 sqrt is MKL's (gradrepl[exact], x86-64 only)")
    want = RECORDED[name][CAPS.index(capability)]
    if name in MKL_CASES:
        from gradrepl.engine import cpu, mkl

        if mkl.branch() == "AVX512_E1" and not cpu.emulated():
            want = RECORDED_MKL_AVX512_E1[name]
        else:
            skip_unless_mkl_branch(f"{name} (MKL's vsSqrt)")
    x = torch.tensor(gen(3 * index, shape))
    y = torch.tensor(gen(3 * index + 1, shape, "pos"))
    z = torch.tensor(gen(3 * index + 2, shape, "pos"))
    got = eval(expr, {"torch": torch, "x": x, "y": y, "z": z})
    assert _digest(got) == want, (name, capability)


@pytest.mark.parametrize("capability", ["avx512"], indirect=True)
def test_issue_values(capability):
    # printed by real torch 2.13 on this machine (the issue's reproducers)
    torch.manual_seed(0)
    assert torch.randn(1, 200).norm().item() == 13.650615692138672
    g = torch.tensor([-403.3435363769531])
    assert torch.tensor([4777.458984375]).addcmul(g, g, value=0.01).item() == 6404.31884765625
    torch.manual_seed(0)
    assert torch.randn(100000).sum().item() == -244.559814453125


@pytest.mark.parametrize("capability", ["default"], indirect=True)
def test_addcmul_unfused_default(capability):
    # DEFAULT's build does not fuse: self + (value * t1) * t2 with two roundings
    g = np.float32(-403.3435363769531)
    out = torch.tensor([4777.458984375]).addcmul(torch.tensor([g]), torch.tensor([g]),
                                                 value=0.01).item()
    assert out == float(np.float32(4777.458984375) + (np.float32(0.01) * g) * g)


def test_capability_override(monkeypatch):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "avx2")
    assert _capability.capability() == "AVX2"
    assert _capability.lanes(np.dtype(np.float32)) == 8
    assert _capability.lanes(np.dtype(np.float32), avx512_kernel=True) == 8
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "avx512")
    assert _capability.lanes(np.dtype(np.float32)) == 8          # REGISTER_DISPATCH kernels
    assert _capability.lanes(np.dtype(np.float32), avx512_kernel=True) == 16
    assert _capability.lanes(np.dtype(np.float64), avx512_kernel=True) == 8
    assert _capability.fused()
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "default")
    assert not _capability.fused()
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "3")
    assert _capability.threads() == 3


def test_detected_capability_is_one_of_torchs():
    assert _capability.detected() in _capability.CAPABILITIES
    assert _capability.threads() >= 1


@pytest.mark.parametrize("capability", ["avx512"], indirect=True)
def test_sum_matches_order_independent_reference(capability):
    # the cascade sums stay within float32 rounding of the exact (float64) sum
    for n in (7, 100, 4097, 40000, 100000):
        a = gen(n, (n,))
        got = torch.tensor(a).sum().item()
        assert abs(got - a.astype(np.float64).sum()) <= 1e-6 * np.abs(a).sum() + 1e-6


@pytest.mark.parametrize("capability", ["avx512"], indirect=True)
def test_grad_fns_and_shapes(capability):
    x = torch.tensor(gen(1, (4, 20)), requires_grad=True)
    n = torch.norm(x, dim=1)
    assert n.shape == (4,) and "LinalgVectorNormBackward0" in repr(n.grad_fn)
    n.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (x.detach() / n.detach()[:, None]).numpy(),
                               rtol=1e-6)
    y = torch.tensor(gen(2, (4, 20)))
    assert "AddcmulBackward0" in repr(x.addcmul(y, y, value=0.5).grad_fn)
    assert "PowBackward0" in repr((x ** 2.5).grad_fn)
