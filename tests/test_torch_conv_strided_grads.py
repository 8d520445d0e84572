"""torch's float32 Conv1d/Conv2d filter and bias gradients for strided, padded and dilated
shapes as oneDNN's JIT backward-weights kernels sum them on an AVX-512 CPU
(gradrepl/torch/nn/_onednn_conv_bwd_w.py: the kernel, the harness and the thread split;
_onednn_conv.conv_backward_weights: the chains). Bits recorded from real torch 2.13; the plan
against what real torch ran (ONEDNN_VERBOSE=1); the row-cut chain against a scalar loop."""
import importlib.util
import os

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch.nn import _onednn_conv as O
from gradrepl.torch.nn import _onednn_conv_bwd_w as B

DATA = os.path.join(os.path.dirname(__file__), "data", "torch_conv_strided_grads")
_spec = importlib.util.spec_from_file_location(      # a unique name (other data dirs have a
    "torch_conv_strided_grads_cases", os.path.join(DATA, "cases.py"))    # cases.py too)
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)
from conftest import skip_unless_onednn_avx512_core  # noqa: E402

# Printed by REAL torch 2.13.0+cpu on this project's AMD EPYC Zen 4 (AVX-512; oneDNN 3.12's
# avx512_core and avx2 kernels), 2 cores, each case with its thread count
# (tests/data/torch_conv_strided_grads/record.py): md5 prefixes of the gradients' float32
# bytes and the first values' bits.
EXPECTED = {
    'm06_first_ic1': {'dw': 'd553806696f11e78', 'db': '0e89f900761f82fd', 'dw4': ['421eb6ad', 'c20d5325', '40e77bb0', 'c2005c60'], 'db4': ['42155a06', '4207c85e', 'c231eac4', 'c1d9fdbe']},
    'm06_last_oc1': {'dw': '3eefde50075c2eaa', 'db': 'a52a004332f56b09', 'dw4': ['3e34b187', 'c054a02a', '3fbf0402', '3f561c5c'], 'db4': ['bd997210']},
    'm06_mid_ic8': {'dw': 'cee66adbdbe27f60', 'db': '6b942667aba0f6e0', 'dw4': ['40a9c8b4', '408a7806', '40d9f0bc', '3ed2de8f'], 'db4': ['c07fb796', '4182970c', 'bed45533', '40eda63b']},
    'm07_5x5_pad2': {'dw': 'b1ec681b0aa2dca3', 'db': 'c1dcc0f889805601', 'dw4': ['c0ccebfd', 'bf7fe8b0', 'c12bc474', 'c1039f88'], 'db4': ['422414e0', '414b4ab8', 'c1dea3ed', '42399884']},
    'rows_odd_batch': {'dw': '8f31a49c289a8dc0', 'db': 'e7f557903aa26eaf', 'dw4': ['415e2f63', '41313e2e', 'c112f855', '426bd3d1'], 'db4': ['41aadbb1', 'c1733fdd', 'bf146be0', 'c209a508']},
    'rows_odd_ic40': {'dw': 'c42c52d7d89011f6', 'db': '80159975d6fb50ae', 'dw4': ['408ff97d', '4155f357', 'c09c5040', 'bea6ef08'], 'db4': ['406e3ad4', '410f8aa1', '408fef40', 'c18389f4']},
    'rows_one_thread': {'dw': '8a84631e77830f35', 'db': '70cc1751326a0126', 'dw4': ['c1703044', '42321adc', '40ee7eee', '41ab1171'], 'db4': ['c181025e', 'c20a5c4c', 'c1bc2c1a', 'c0c99941']},
    'comp_step_s3': {'dw': '8f464f4220aa2f81', 'db': '69e541f4859995e2', 'dw4': ['41bec0d0', '40e80362', 'c1b33339', '422934b5'], 'db4': ['bfc9b37b', '420a5bb5', 'c0ad072a', 'c1a63413']},
    'conv1d_s2_bias_team': {'dw': 'd7404dbbf43bb976', 'db': '478e85d9f2ece9da', 'dw4': ['410ad0a8', 'c24fc797', '403f3248', 'c19064f3'], 'db4': ['41e234be', 'c1c14356', '41a6d8a8', 'c1c50048']},
    'conv1d_avx2_s3': {'dw': 'e42e4ea8f95a7dc9', 'db': '7c5c84a414e8e1b9', 'dw4': ['c04aff78', 'c18244b9', 'bf0a3500', '401e9b2c'], 'db4': ['c1a86aee', 'bf91cf94', '425e0b19', '417bf56e']},
    'dilated_s1_ic16': {'dw': '1279c3c648c1962a', 'db': 'ce4fec5cf128a787', 'dw4': ['419bd50e', 'c179b9e8', 'c0b4ebf6', 'c161b20e'], 'db4': ['4121b178', 'c205e4ae', '40d09ce5', 'c14147cd']},
    'conv3d_s2_ic16': {'dw': '2978c2806ddb8bd0', 'db': '051b945a6cc6d31a', 'dw4': ['3f9d7f34', 'c0d063e5', '413947be', '41c39065'], 'db4': ['c13bdd57', 'c01e76d6', 'c1545d65', 'c1165c1f']},
    'conv3d_avx2_ic8': {'dw': 'e0b87aaf911f193e', 'db': 'fa176cd0bd2df181', 'dw4': ['c0def85a', 'c17225a0', 'c13896c4', 'c176c372'], 'db4': ['411649fc', 'c07284b6', '4003a58d', '40b0bff2']},
    'gemm_dil2_s2': {'dw': '4d51d5940e8197e3', 'db': 'b468f0a989ff1c78', 'dw4': ['c11e83c1', '41b66bd6', '3fdad8c0', 'c185ff27'], 'db4': ['c1edafee', 'bfbf66a2', 'c20b2af7', '4231181a']},
    'conv1d_dil3_s2_ic3': {'dw': '8713260bf01087dc', 'db': '06d5e780df6582f1', 'dw4': ['c11df843', '414798c4', '408d9653', 'c1a9aac1'], 'db4': ['c0ed869b', '41a7483f', '41f24938', '421b8fc4']},
    'gemm_3d_pad_ic4': {'dw': 'd9d70151d18605e6', 'db': 'fcd2a84485cd22d4', 'dw4': ['41ab12c4', '40edb936', '423e7cba', 'bf8c7118'], 'db4': ['419fbcc4', '42257d5c', 'c2492189', 'c1f69ff4']},
    'gemm_one_thread': {'dw': 'af74a8c6e8d98321', 'db': '476887b94716a72d', 'dw4': ['423e9285', 'c028e5f4', 'c1869227', '3fa92fe6'], 'db4': ['c0f83540', 'c1b7405c', '4018a9dc', '41a01d9e']},
}




@pytest.mark.parametrize("i", range(len(CASES.CASES)), ids=[c[0] for c in CASES.CASES])
def test_bits_equal_real_torch(i, monkeypatch):
    skip_unless_onednn_avx512_core("the filter/bias gradient records")
    spec = CASES.CASES[i]
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", str(spec[-1]))
    got, want = CASES.run(torch, i, spec), EXPECTED[spec[0]]
    if spec[0].startswith("gemm"):       # (x64:gemm:jit: the bias gradient not emulated)
        got, want = ({k: v for k, v in d.items() if k.startswith("dw")} for d in (got, want))
    assert got == want


def test_recorded_cases_all_tested():
    assert set(EXPECTED) == {c[0] for c in CASES.CASES}


def test_thread_count_changes_the_bits(monkeypatch):
    # the same odd-batch shape with 1 and 2 threads: the cut inside a sample changes bits
    skip_unless_onednn_avx512_core("the filter/bias gradient records")
    i = [c[0] for c in CASES.CASES].index("rows_odd_batch")
    got = {}
    for threads in (1, 2):
        monkeypatch.setenv("GRADREPL_TORCH_THREADS", str(threads))
        got[threads] = CASES.run(torch, i, CASES.CASES[i])
    assert got[2] == EXPECTED["rows_odd_batch"]
    assert got[1]["dw"] != got[2]["dw"] and got[1]["db"] != got[2]["db"]


# ---------------------------------------------------------------- the plan
# Each line: x shape, w shape, stride, padding, dilation; the kernel real torch 2.13 ran here
# (ONEDNN_VERBOSE=1, 2 threads) and the cut (rows per sample, threads: weights, bias) whose
# chains gave its bits (shapes from the random sweeps measured for this module).
PLANS = [
    ((4, 1, 28, 28), (8, 1, 4, 4), 2, 0, 1, ("jit:avx512_core", 13, 2, 13, 2)),
    ((4, 16, 4, 4), (1, 16, 4, 4), 2, 0, 1, ("jit:avx512_core", 1, 2, 1, 2)),
    ((4, 8, 13, 13), (16, 8, 4, 4), 2, 0, 1, ("jit:avx2", 1, 1, 1, 1)),
    ((32, 40, 36), (100, 40, 4), 2, 1, 1, ("jit:avx512_core", 1, 1, 1, 2)),
    ((32, 48, 15, 19), (4, 48, 3, 3), 3, 0, 1, ("jit:avx512_core", 1, 2, 1, 2)),
    ((64, 12, 19, 7), (20, 12, 2, 2), 2, 1, 1, ("jit:avx2", 1, 1, 1, 2)),
    ((8, 32, 28, 29), (1, 32, 4, 4), 2, 0, 1, ("jit:avx512_core", 13, 1, 13, 1)),
    # x64:gemm:jit (dilated and strided): 16 output channels or more emulated (the samples
    # over the threads, no bias), fewer (sgemm's small-N kernel and gemv) not
    ((5, 16, 19, 23), (100, 16, 4, 4), 2, 0, 2, ("x64:gemm:jit", 1, 2, 1, 0)),
    ((16, 1, 7, 21), (100, 1, 3, 3), 3, 0, 2, ("x64:gemm:jit", 1, 2, 1, 0)),
    ((32, 4, 45), (4, 4, 5), 2, 1, 2, None),
    ((16, 8, 22, 13), (1, 8, 3, 3), 1, 0, 2, None),
    ((2, 4, 561), (16, 4, 3), 1, 1, 2, None),       # 559 positions: sgemm parallel inside
    ((3, 4, 6, 7, 8), (16, 4, 3, 3, 3), 1, 1, 1, ("x64:gemm:jit", 6, 2, 1, 0)),
    ((3, 16, 7, 8, 9), (8, 16, 3, 3, 3), 2, 1, 1, ("jit:avx512_core", 4, 2, 4, 2)),
]


@pytest.mark.parametrize("xs, ws, s, p, d, want", PLANS)
def test_plan_is_what_real_torch_ran(xs, ws, s, p, d, want):
    nd = len(xs) - 2
    outs = tuple((i + 2 * p - d * (k - 1) - 1) // s + 1 for i, k in zip(xs[2:], ws[2:]))
    got = B.plan(xs, ws, xs[:1] + ws[:1] + outs, (s,) * nd, (p,) * nd, (d,) * nd, 2)
    assert (None if got is None else tuple(got)) == want


def test_one_thread_never_splits():
    for xs, ws, s, p, d, want in PLANS:
        nd = len(xs) - 2
        outs = tuple((i + 2 * p - d * (k - 1) - 1) // s + 1 for i, k in zip(xs[2:], ws[2:]))
        got = B.plan(xs, ws, xs[:1] + ws[:1] + outs, (s,) * nd, (p,) * nd, (d,) * nd, 1)
        assert (got is None) == (want is None)
        assert got is None or (got.team_w, got.team_b) in ((1, 1), (1, 0))


def test_reducer_balance():
    # cpu_reducer's balance: 2 threads share a long reduction of one job, a job each when
    # there are many
    assert B.reducer_team(2, 16, 1, 64, 2 * 3 * 5 * 5 * 16 * 16) == 2
    assert B.reducer_team(2, 16, 8, 64, 2 * 3 * 5 * 5 * 16 * 16) == 1
    assert B.reducer_team(2, 16, 1, 1, 1 << 21) == 1


# ---------------------------------------------------------------- the order, by scalar loops
def _fma(acc, a, b):
    return np.float32(np.float64(acc) + np.float64(a) * np.float64(b))


def test_row_cut_is_the_split_chain():
    # 3 samples of 4 output rows over 2 threads, cut by (sample, row): rows 0..5 and 6..11,
    # the cut inside sample 1; stride 2, padding 1
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 2, 7, 5)).astype(np.float32)
    g = rng.standard_normal((3, 2, 4, 3)).astype(np.float32)
    dw, db = O.conv_backward_weights(x, g, (2, 2), (2, 2), [(1, 1), (1, 1)], (1, 1), 2, 2, 4, 4)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    units = [(n, r) for n in range(3) for r in range(4)]
    parts = [units[:6], units[6:]]
    for o, c, kh, kw in np.ndindex(*dw.shape):
        total = np.float32(0)
        for part in parts:
            acc = np.float32(0)
            for n, r in part:
                for t in range(3):
                    acc = _fma(acc, g[n, o, r, t], xp[n, c, 2 * r + kh, 2 * t + kw])
            total = total + acc
        assert dw[o, c, kh, kw] == total
    for o in range(2):
        total = np.float32(0)
        for part in parts:
            acc = np.float32(0)
            for n, r in part:
                for t in range(3):
                    acc = np.float32(acc + g[n, o, r, t])
            total = total + acc
        assert db[o] == total


def test_values_are_the_gradients():
    # independent of the order: within float32 rounding of the float64 sums
    rng = np.random.default_rng(12)
    x = rng.standard_normal((5, 3, 11, 9)).astype(np.float32)
    g = rng.standard_normal((5, 4, 5, 4)).astype(np.float32)
    dw, db = O.conv_backward_weights(x, g, (3, 3), (2, 2), [(1, 1), (1, 1)], (1, 1), 2, 2, 5, 5)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.empty(dw.shape)
    for kh, kw in np.ndindex(3, 3):
        win = xp[:, :, kh:kh + 9:2, kw:kw + 7:2]
        ref[:, :, kh, kw] = np.einsum("nchw,nohw->oc", win, g.astype(np.float64))
    assert np.allclose(dw, ref, rtol=1e-5, atol=1e-4)
    assert np.allclose(db, g.astype(np.float64).sum((0, 2, 3)), rtol=1e-5, atol=1e-4)


def test_other_cpus_keep_the_general_path(monkeypatch):
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "other")
    x = np.ones((4, 1, 9, 9), np.float32)
    w = np.ones((2, 1, 3, 3), np.float32)
    g = np.ones((4, 2, 4, 4), np.float32)
    assert O.try_backward(x, w, g, 2, (2, 2), (0, 0, 0, 0), (1, 1), 1) == (None, None, None)
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx512_core")
    dx, dw, db = O.try_backward(x, w, g, 2, (2, 2), (0, 0, 0, 0), (1, 1), 1)
    assert dx is None and dw[0, 0, 1, 1] == 64 and db[1] == 64     # (strided dx: general path)


def test_fma_chains_of_unequal_parts():
    # 5 rows over 2 chains (3 + 2: the second padded with a zero row) and the scalar chains
    rng = np.random.default_rng(13)
    a = rng.standard_normal((5, 3)).astype(np.float32).astype(np.float64)
    b = rng.standard_normal((5, 4)).astype(np.float32).astype(np.float64)
    got = B.fma_chains(a, b, [(0, 3), (3, 5)])
    for i, (lo, hi) in enumerate([(0, 3), (3, 5)]):
        for p, q in np.ndindex(3, 4):
            acc = np.float32(0)
            for j in range(lo, hi):
                acc = _fma(acc, a[j, p], b[j, q])
            assert got[i, p, q] == acc


def test_thread_count_as_torch_reads_it(monkeypatch):
    # real torch 2.13 on this 2-core machine: OMP_NUM_THREADS=3 or 8 -> get_num_threads() 2,
    # OMP_NUM_THREADS=2 with MKL_NUM_THREADS=1 -> 1, OMP_NUM_THREADS=1 with MKL_NUM_THREADS=2
    # -> 2 (and oneDNN's nthr the same); the backward-weights cuts follow that count
    from gradrepl.torch import _capability

    cores = _capability._detected_threads()
    monkeypatch.delenv("GRADREPL_TORCH_THREADS", raising=False)
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "64")
    assert _capability.threads() == min(64, cores) == torch.get_num_threads()
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    monkeypatch.setenv("MKL_NUM_THREADS", "1")
    assert _capability.threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("MKL_NUM_THREADS", "2")
    assert _capability.threads() == min(2, cores)
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "3")      # (the suite's own override)
    assert _capability.threads() == 3
