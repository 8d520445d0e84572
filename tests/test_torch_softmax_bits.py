"""torch's softmax, log_softmax, cross_entropy (nll_loss) and their gradients give real torch
2.13's bytes on float32 (and float64 along the last dim): md5 of the results recorded from real
torch by tests/data/torch_softmax/record.py, from the same cases file; the SLEEF exp/log replays
behave as the kernels need; create_graph still differentiates through softmax."""
import os
import sys

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import _softmax_kernels as K

DATA = os.path.join(os.path.dirname(__file__), "data", "torch_softmax")
sys.path.insert(0, os.path.dirname(DATA))
import md5_table  # noqa: E402  (tests/data/md5_table.py: the recorded table)
from conftest import skip_unless_mkl_branch  # noqa: E402

CASES, EXPECTED = md5_table.load_table(DATA, "torch_softmax_cases")


def _check(name, got):
    md5_table.check(EXPECTED, name, got)


@pytest.fixture(autouse=True)
def _avx512(monkeypatch):
    # the records are real torch's AVX512 kernels (16-lane sums): that capability is chosen on
    # any machine (an AVX2 CPU or aarch64, where gradrepl would take AVX2's or DEFAULT's rules)
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")


@pytest.mark.parametrize("spec", CASES.SOFTMAX, ids=[s[0] for s in CASES.SOFTMAX])
def test_softmax_bits(spec):
    _check(spec[0], CASES.run_softmax(torch, *spec))


@pytest.mark.parametrize("spec", CASES.CROSS_ENTROPY, ids=[s[0] for s in CASES.CROSS_ENTROPY])
def test_cross_entropy_bits(spec):
    _check(spec[0], CASES.run_cross_entropy(torch, *spec))


@pytest.mark.skipif(not __import__("gradrepl.engine.mkl", fromlist=["load"]).load(),
                    reason="the MLP's matrix products take torch's bits from MKL (gradrepl[exact])")
def test_mlp_trained_with_cross_entropy():
    from gradrepl.engine import mkl

    if mkl.branch() == "AVX512_E1":   # real torch 2.13 on an Intel Sapphire Rapids Xeon
        want = md5_table.read(os.path.join(DATA, "expected_mlp_AVX512_E1.txt"))
        md5_table.check(want, "mlp", CASES.run_mlp(torch))
        return
    skip_unless_mkl_branch("the MLP's matrix products (MKL's sgemm)", approximations=False)
    _check("mlp", CASES.run_mlp(torch))


def test_sleef_exp_and_log_are_within_an_ulp():
    x = np.linspace(-87, 0, 100001, dtype=np.float32)
    e = K.vexp(x).astype(np.float64)
    ref = np.exp(x.astype(np.float64))
    assert np.all(np.abs(e - ref) <= np.spacing(ref.astype(np.float32)).astype(np.float64))
    assert K.vexp(np.float32(0)) == 1 and K.vexp(np.float32(-200)) == 0
    s = np.linspace(1, 1000, 100001, dtype=np.float32)
    ln = K.vlog(s).astype(np.float64)
    ref = np.log(s.astype(np.float64))
    assert np.all(np.abs(ln - ref) <= np.spacing(np.maximum(ref, 1e-30).astype(np.float32)))
    assert K.vlog(np.float32(1)) == 0


def test_sum_order_is_sixteen_lanes_folded_pairwise():
    row = np.array([[1e8] + [1.0] * 15 + [-1e8] + [1.0] * 15], np.float32)
    # lane 0 gets 1e8 + -1e8 = 0, the other 15 lanes 2 each: 30 (a plain loop loses the ones)
    assert K.vsum(row)[0] == np.float32(30)


def test_create_graph_through_softmax_still_differentiates():
    x = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    y = torch.softmax(x, 1)
    (g,) = torch.autograd.grad(y[0, 0], x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    assert h.shape == x.shape and np.isfinite(h.numpy()).all()


def test_float64_along_another_dim_sums_to_one():
    x = torch.tensor(np.array([[1.0, 2.0], [3.0, 5.0]]), requires_grad=True)
    y = torch.log_softmax(x, 0)
    assert y.dtype == torch.float64
    np.testing.assert_allclose(np.exp(y.detach().numpy()).sum(0), 1.0, rtol=1e-12)


def test_glibc_expf_replay_matches_this_machines_libm():
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("m")
    try:
        glibc = tuple(int(v) for v in os.confstr("CS_GNU_LIBC_VERSION").split()[1].split("."))
    except (ValueError, OSError, IndexError, AttributeError):
        glibc = (0,)
    if not name or os.uname().machine != "x86_64" or glibc < (2, 28):
        pytest.skip("needs x86-64 glibc >= 2.28 (its expf is the one replayed)")
    f = ctypes.CDLL(name).expf
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    x = np.random.default_rng(7).uniform(-100, 0, 3000).astype(np.float32)
    ref = np.array([f(float(v)) for v in x], np.float32)
    assert (K._scalar_exp(x).view(np.uint32) == ref.view(np.uint32)).all()
