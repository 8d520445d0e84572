"""torch's convolutions as its kernels sum them (gradrepl/torch/nn/_onednn_conv.py): float32
batches as oneDNN's direct JIT kernels (outputs and gradients bit-equal to real torch 2.13 on
an AVX-512 CPU), one float32 sample and float64 as ATen's slow path (im2col + MKL's gemm); the
kernel-choice rule, the backward-weights thread split, and the vectorised emulation against a
scalar loop of the documented order."""
import importlib.util
import os

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch.nn import _onednn_conv as O

DATA = os.path.join(os.path.dirname(__file__), "data", "torch_onednn_conv")
_spec = importlib.util.spec_from_file_location(  # a unique name: tests/data/torch_gemm has a
    "torch_onednn_conv_cases", os.path.join(DATA, "cases.py"))  # cases.py too (one process)
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)
from conftest import skip_unless_mkl_branch, skip_unless_onednn_avx512_core  # noqa: E402

# md5 prefixes of the float32 bytes printed by REAL torch 2.13.0+cpu with 2 threads on this
# project's AMD EPYC Zen 4 (AVX-512; oneDNN 3.12's avx512_core kernels), recorded by
# tests/data/torch_onednn_conv/record.py from the same cases file. Left out: the gradients
# real torch computes with other kernels (strided backward: brgconv_strided / gemm; a 3-d
# filter gradient), which gradrepl does not emulate.
EXPECTED = {
    'fw1d_ic40_bias': {'y': 'a98f3bdbef3345fe', 'dx': '863a5a50058017b1', 'dw': '58b71a41689231e1', 'db': 'ada973d94570bb3c'},
    'fw2d_ic24_s2': {'y': '4dac32837cccd3e7'},
    'fw2d_ic3_first': {'y': 'b4f8c2e988b451f9', 'dx': '370038874cf6303d', 'dw': '703be6af6730fd3a', 'db': '4d29abe8a8375fd9'},
    'fw3d_ic17_dil': {'y': 'b45a2f8721946187', 'dx': '23c1fa9f6e90b578'},
    'fw3d_doc_small': {'y': 'f7a9125caa458b5c', 'dx': '356d286bec4294ef'},
    'tr1d_doc_small': {'y': '9c1058cc423a1588'},
    'tr2d_ic40_bias': {'y': 'a3fa83b1c5bd29c1'},
    'tr3d_ic24_bias': {'y': '8e0d7ac537812761'},
    'tr2d_dil': {'y': 'ef69f01bbd2f6c8c'},
    'bw2d_batch_split': {'y': '093c59df539547ea', 'dx': 'fbccba6df4269c95', 'dw': 'c17e9f451f04920f', 'db': '3fc017fda7aa8aab'},
    'bw2d_oc_split': {'y': 'eda883975209c433', 'dx': '8ffa75079af6bcef', 'dw': 'a469da592f733e95', 'db': 'f038afa723ed6191'},
    'bw1d_tie': {'y': 'd58e333a1965e5d8', 'dx': '5ba4933965b7eed5', 'dw': '67dc82ea4115c3f4', 'db': '921f627342d095be'},
    'bw2d_ic_split': {'y': '01fb9679ed6a14f4', 'dx': 'e0cdb1039c6eeab8', 'dw': '9819886751b65e39', 'db': '9fa94a4563ceb2ee'},
    'slow1_2d_bias': {'y': '6543152cc7d723c8'},
    'slow1_1d_dil': {'y': 'b647c30424d510ed'},
    'slow1_3d': {'y': '2abb9fa368a6eeba'},
    'slow64_2d_batch': {'y': 'ed5e072bab75dcc5'},
}
# the slow (MKL gemm) cases by record.py with real torch 2.13 on MKL's AVX512_E1 path (an Intel
# Sapphire Rapids Xeon, 2 threads); the oneDNN cases printed EXPECTED's digests there too
EXPECTED_SLOW_AVX512_E1 = {
    'slow1_2d_bias': {'y': '8a6fdb74862a53ad'},
    'slow1_1d_dil': {'y': 'b647c30424d510ed'},
    'slow1_3d': {'y': 'a2c78615539a2e71'},
    'slow64_2d_batch': {'y': 'd61ef77029a18dc7'},
}




@pytest.mark.parametrize("i", range(len(CASES.CASES)), ids=[c[0] for c in CASES.CASES])
def test_bits_equal_real_torch(i, monkeypatch):
    spec = CASES.CASES[i]
    if spec[1].startswith("sl"):     # ATen's slow path: MKL's gemm, not oneDNN
        from gradrepl.engine import mkl

        if not mkl.load():
            pytest.skip("ATen's slow convolution is MKL's gemm: the mkl wheel is absent here")
        if mkl.branch() != "AVX512_E1":
            skip_unless_mkl_branch(f"the {spec[0]} record", approximations=False)
    else:
        skip_unless_onednn_avx512_core("the convolution records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")     # (the records' thread count)
    got = CASES.run(torch, i, spec)
    want = EXPECTED[spec[0]]
    if spec[1].startswith("sl") and mkl.branch() == "AVX512_E1":
        want = EXPECTED_SLOW_AVX512_E1[spec[0]]
    assert {k: got[k] for k in want} == want


def test_recorded_cases_all_tested():
    assert set(EXPECTED) == {c[0] for c in CASES.CASES}


# ---------------------------------------------------------------- the kernel-choice rule
# Each line: what oneDNN 3.12 ran in real torch here (ONEDNN_VERBOSE=1) for the shape.
RULE = [
    # n, ksize, pads_before, dilation, stride, transposed, direct?
    (2, (3, 3), (1, 1), (1, 1), (1, 1), False, True),     # jit:avx512_core
    (20, (3, 3, 3), (0, 0, 0), (1, 1, 1), (1, 1, 1), False, True),   # the conv3d docstring
    (3, (2,), (0,), (1,), (2,), False, True),              # jit:avx512_core, strided
    (1, (3, 3), (1, 1), (1, 1), (1, 1), False, True),     # one sample (if use_mkldnn): jit
    (4, (1, 1), (0, 0), (1, 1), (1, 1), False, False),    # jit_1x1:avx512_core
    (4, (1, 3), (1, 1), (1, 1), (1, 1), False, False),    # padding >= kernel: x64:gemm:jit
    (3, (2, 1, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), False, False),   # x64:gemm:jit
    (3, (2, 3), (1, 1), (2, 2), (1, 1), False, True),     # dilated extent 3 > 1: jit
    (20, (5,), (0,), (1,), (1,), True, True),              # conv:any+jit (conv_transpose1d doc)
    (4, (3,), (1,), (1,), (2,), True, False),              # conv:any+brgconv_strided
    (4, (1, 1), (0, 0), (1, 1), (1, 1), True, False),     # conv:any+jit_1x1
]


@pytest.mark.parametrize("rule", RULE)
def test_kernel_choice(rule, monkeypatch):
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx512_core")
    n, k, p, d, s, tr, direct = rule
    assert O.direct_applies(n, k, p, d, s, 1, np.float32, tr) is direct


def test_other_cpus_and_dtypes_take_the_general_path(monkeypatch):
    x = np.ones((2, 3, 5, 5), np.float32)
    w = np.ones((4, 3, 3, 3), np.float32)
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "other")
    assert O.try_conv(x, w, None, 2, False, (1, 1), (1, 1, 1, 1), (1, 1), 1) is None
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx512_core")
    assert O.try_conv(x.astype(np.float16), w.astype(np.float16), None, 2, False, (1, 1),
                      (1, 1, 1, 1), (1, 1), 1) is None
    assert O.try_conv(x, w, None, 2, False, (1, 1), (1, 1, 1, 1), (1, 1), 2) is None  # groups
    # float64 (and one float32 sample) is ATen's slow path: MKL's gemm, where the wheel is
    from gradrepl.engine import mkl

    y64 = O.try_conv(x.astype(np.float64), w.astype(np.float64), None, 2, False, (1, 1),
                     (1, 1, 1, 1), (1, 1), 1)
    if mkl.load():
        assert y64.dtype == np.float64 and y64[1, 3, 2, 2] == 27 and y64[1, 3, 4, 4] == 12
    else:
        assert y64 is None
    y = O.try_conv(x, w, None, 2, False, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    assert y.shape == (2, 4, 5, 5) and y[0, 0, 2, 2] == 27 and y[0, 0, 0, 0] == 12


# Thread splits of the backward-weights pass with 2 threads, as measured here (which split
# gave real torch's filter and bias gradient bits): (weights, bias) teams over the batch.
TEAMS = [
    ((16, 8, 4, 4), (8, 8, 3, 3), (16, 8, 4, 4), (2, 2)),     # the batch
    ((3, 3, 6, 9), (20, 3, 5, 2), (3, 20, 2, 8), (1, 1)),     # output-channel blocks
    ((32, 64, 33), (16, 64, 2), (32, 16, 32), (2, 2)),        # a tie: the batch
    ((16, 17, 5, 8), (16, 17, 2, 2), (16, 16, 4, 7), (1, 2)),  # input-channel blocks; bias reducer
    ((2, 3, 7, 6, 6), (3, 3, 2, 5, 5), (2, 3, 8, 4, 4), (2, 2)),   # 3-d: depth planes too
    # 6 input channels: oneDNN's jit:avx2 kernel, 8-channel blocks, the output channels split
    # (d2l's LeNet with BatchNorm, tests/data/lectures/d2l_batchnorm_scratch.py)
    ((8, 6, 12, 12), (16, 6, 5, 5), (8, 16, 8, 8), (1, 1)),
]


@pytest.mark.parametrize("xs, ws, gs, teams", TEAMS)
def test_backward_weights_teams(xs, ws, gs, teams):
    assert O.backward_weights_teams(xs, ws, gs, (1,) * (len(xs) - 2), 2) == teams


# ---------------------------------------------------------------- the order, by scalar loops
def _fma(acc, a, b):
    return np.float32(np.float64(acc) + np.float64(a) * np.float64(b))


def test_forward_is_the_blocked_chain():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 20, 5, 4)).astype(np.float32)
    w = rng.standard_normal((3, 20, 2, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    y = O.conv_forward(x, w, b, (1, 1), [(1, 1), (0, 0)], (1, 1))
    ref = np.empty_like(y)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0)))
    for n, o, i, j in np.ndindex(*ref.shape):
        total = None
        for cb in (range(0, 16), range(16, 20)):        # blocks of 16 input channels
            acc = np.float32(0)
            for kh in range(2):
                for kw in range(3):
                    for c in cb:
                        acc = _fma(acc, xp[n, c, i + kh, j + kw], w[o, c, kh, kw])
            total = acc + b[o] if total is None else total + acc     # bias after block one
        ref[n, o, i, j] = total
    assert np.array_equal(y, ref)


def test_backward_data_is_the_blocked_chain():
    rng = np.random.default_rng(8)
    g = rng.standard_normal((2, 18, 6)).astype(np.float32)      # transposed 1-d, 18 channels
    w = rng.standard_normal((18, 2, 3)).astype(np.float32)
    y = O.conv_backward_data(g, w, None, (1,), [(1, 1)], (1,), (6,))
    ref = np.empty_like(y)
    for n, o, t in np.ndindex(*ref.shape):
        total = None
        for cb in (range(0, 16), range(16, 18)):
            acc = np.float32(0)
            for k in range(3):
                src = t + 1 - k                  # output t (padding 1) takes input t + 1 - k
                for c in cb:
                    if 0 <= src < 6:
                        acc = _fma(acc, g[n, c, src], w[c, o, k])
            total = acc if total is None else total + acc
        ref[n, o, t] = total
    assert np.array_equal(y, ref)


def test_backward_weights_is_the_split_chain():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((5, 2, 6)).astype(np.float32)
    g = rng.standard_normal((5, 3, 4)).astype(np.float32)
    dw, db = O.conv_backward_weights(x, g, (3,), (1,), [(0, 0)], (1,), 2, 2)
    parts = [(0, 3), (3, 5)]                     # balance211: 5 samples over 2 threads
    for o, c, k in np.ndindex(*dw.shape):
        total = np.float32(0)
        for a, e in parts:
            acc = np.float32(0)
            for n in range(a, e):
                for t in range(4):
                    acc = _fma(acc, g[n, o, t], x[n, c, t + k])
            total = total + acc
        assert dw[o, c, k] == total
    for o in range(3):
        total = np.float32(0)
        for a, e in parts:
            acc = np.float32(0)
            for n in range(a, e):
                for t in range(4):
                    acc = np.float32(acc + g[n, o, t])
            total = total + acc
        assert db[o] == total


def test_values_are_the_convolution():
    # independent of the order: within float32 rounding of the float64 convolution
    rng = np.random.default_rng(10)
    x = rng.standard_normal((3, 33, 4, 5, 6)).astype(np.float32)
    w = rng.standard_normal((4, 33, 2, 2, 3)).astype(np.float32)
    y = O.conv_forward(x, w, None, (1, 2, 1), [(0, 0), (1, 1), (1, 1)], (1, 1, 2))
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros(y.shape)
    for kd, kh, kw in np.ndindex(2, 2, 3):
        win = xp[:, :, kd:kd + 3, kh:kh + 2 * y.shape[3] - 1:2, 2 * kw:2 * kw + y.shape[4]]
        ref += np.einsum("ncdhw,oc->nodhw", win, w[:, :, kd, kh, kw].astype(np.float64))
    assert np.allclose(y, ref, rtol=1e-5, atol=1e-4)


def test_torch_layer_uses_it_and_gradcheck_still_differentiates(monkeypatch):
    # create_graph (a gradient of a gradient) keeps the engine's differentiable VJP
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx512_core")
    rng = np.random.default_rng(11)
    x = torch.tensor(rng.standard_normal((2, 3, 5, 5)).astype(np.float32), requires_grad=True)
    conv = torch.nn.Conv2d(3, 4, 3, padding=1)
    y = conv(x)
    (gx,) = torch.autograd.grad(y.pow(2).sum(), x, create_graph=True)
    gx.sum().backward()
    assert conv.weight.grad is not None and conv.weight.grad.shape == (4, 3, 3, 3)
    w = conv.weight.detach().numpy()
    want = O.conv_forward(x.detach().numpy(), w, conv.bias.detach().numpy(), (1, 1),
                          [(1, 1), (1, 1)], (1, 1))
    assert np.array_equal(y.detach().numpy(), want)
