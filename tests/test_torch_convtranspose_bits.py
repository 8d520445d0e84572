"""torch's strided transposed convolutions as oneDNN's brgconv_strided kernel sums them
(gradrepl/torch/nn/_onednn_convT.py): forward, input, filter and bias gradients bit-equal to
real torch 2.13 on an AVX-512 CPU, a strided convolution's input gradient (the same kernel),
ATen's slow_conv_transpose2d (one small sample, float64: MKL's gemm + col2im),
the call structure read from oneDNN's sources, the bias gradient's two orders, and the general
path on other CPUs."""
import importlib.util
import os

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch.nn import _onednn_conv as O
from gradrepl.torch.nn import _onednn_convT as T

DATA = os.path.join(os.path.dirname(__file__), "data", "torch_convtranspose")
_spec = importlib.util.spec_from_file_location(       # a unique module name (other test data
    "torch_convtranspose_cases", os.path.join(DATA, "cases.py"))    # dirs have a cases.py)
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)
from conftest import skip_unless_mkl_branch, skip_unless_onednn_avx512_core  # noqa: E402

# md5 prefixes of the float32 bytes computed by REAL torch 2.13.0+cpu with 2 threads on this
# project's AMD EPYC Zen 4 (AVX-512; oneDNN 3.12), recorded by
# tests/data/torch_convtranspose/record.py from the same cases file.
EXPECTED = {
    'dcgan_mid': {'y': '6833e0ec9747d3f7', 'dx': '4bee2d7dae6e2444', 'dw': '2c405e799f42453b'},
    'dcgan_rgb': {'y': '8cd4656e4ef7dc86', 'dx': '5aff8933c6aaec78', 'dw': 'b668dc795bebc6f5', 'db': 'aee7e6a6948f4748'},
    'odd_width': {'y': '3a87b9425bf0f44c', 'dx': '580d3d7789a76dc3', 'dw': 'd34b3f5b83230d5b', 'db': 'edf18815fe27d6a2'},
    'outpad_ae': {'y': '61ff1456ee98c947', 'dx': '6a6b9df6eec094ed', 'dw': '872cc515c368a6ac', 'db': 'bf42515d240eb18d'},
    'odd_batch_blocks': {'y': 'd8e1a5f1123a86e9', 'dx': 'afcee83b17e14a0b', 'dw': '3a171f0234a9cba2', 'db': '36bcb285f4325881'},
    'mnist_one': {'y': '6ceed045d0467e6e', 'dx': '8a3e46472ac2e907', 'dw': '9fc823cd8918128a', 'db': '1b0851163d7d3daf'},
    'tr1d': {'y': '86bd700c7e3492ce', 'dx': '2624e6a955a9ab52', 'dw': 'fd454dafdba94bf0', 'db': '7fb2658da167b419'},
    'dcgan_first': {'y': 'a39ece6f4ecacbdf', 'dx': '7c621386e35cf018', 'dw': '502a8a8c61e780bc'},
    'slow_one': {'y': '0b97ab2f5faa7e7d', 'dx': 'b1cf1ff88bce1213', 'dw': '0d0422beaf413f96', 'db': 'adf92cc8b2ce9298'},
    'slow_f64': {'y': 'b0a2e225580a4214', 'dx': 'df618edcb675c98f', 'dw': '5f3d500ef54af20a', 'db': '1d9e63257c3cb2b6'},
    'conv_dx': {'y': 'f5ae759b5a6a3faf', 'dx': '149503c6d5a1d81a', 'dw': '46faf7ae6927c4a7', 'db': 'ab3a304523124973'},
    'conv1d_dx': {'y': 'c91e7a80a9d9455c', 'dx': 'a05aead4af9cd027', 'dw': '8968743eeb99d6de'},
}
# the slow (MKL gemm) cases by record.py with real torch 2.13 on MKL's AVX512_E1 path (an Intel
# Sapphire Rapids Xeon, 2 threads); the oneDNN cases printed EXPECTED's digests there too
EXPECTED_SLOW_AVX512_E1 = {
    'slow_one': {'y': '0b97ab2f5faa7e7d', 'dx': 'b1cf1ff88bce1213', 'dw': '0d0422beaf413f96', 'db': 'adf92cc8b2ce9298'},
    'slow_f64': {'y': '13d2ac9e14471c64', 'dx': 'c1dd6788f81e00e2', 'dw': '7a96ec1ed090cfcf', 'db': '1d9e63257c3cb2b6'},
}




@pytest.mark.parametrize("i", range(len(CASES.CASES)), ids=[c[0] for c in CASES.CASES])
def test_bits_equal_real_torch(i, monkeypatch):
    spec = CASES.CASES[i]
    if spec[0].startswith("slow"):     # ATen's slow_conv_transpose2d: MKL's gemm, not oneDNN
        from gradrepl.engine import mkl

        if not mkl.load():
            pytest.skip("ATen's slow transposed convolution is MKL's gemm: the mkl wheel is "
                        "absent here")
        if mkl.branch() != "AVX512_E1":
            skip_unless_mkl_branch(f"the {spec[0]} record", approximations=False)
    else:
        skip_unless_onednn_avx512_core("the transposed convolution records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")     # (the records' thread count)
    got = CASES.run(torch, i, spec)
    want = EXPECTED[spec[0]]
    if spec[0].startswith("slow") and mkl.branch() == "AVX512_E1":
        want = EXPECTED_SLOW_AVX512_E1[spec[0]]
    assert {k: got[k] for k in want} == want


def test_recorded_cases_all_tested():
    assert set(EXPECTED) == {c[0] for c in CASES.CASES}


# ---------------------------------------------------------------- the brgemm calls
def test_calls_edge_cut_taps_are_own_chains():
    # ConvTranspose2d(k=4, s=2, p=1) on a 4-wide input: output 8 wide, one block of 8; phase
    # 0 (even columns) has kernel columns 1 and 3, each cut by an edge: two calls, in order
    calls = T._calls(0, 1, 2, 4, 4, 4, 8)
    assert calls == [(0, 4, [1]), (2, 3, [3])]
    # padding 2 with kernel 4: both taps reach every column of the phase: one call
    # (output 6 wide: 3 columns a phase)
    assert T._calls(0, 2, 2, 4, 4, 3, 6) == [(0, 3, [0, 2])]


def test_iw_block_thread_balance():
    assert T.iw_block(8, 16, 14, 14, 2) == 14        # even jobs: the whole row
    assert T.iw_block(3, 16, 40, 40, 2) == 20        # 3 samples: two halves (measured)
    assert T.iw_block(3, 16, 8, 8, 2) == 8           # halves of 2 columns a phase: no
    assert T.iw_block(1, 6, 18, 18, 2) == 6          # one sample: three blocks (measured)
    assert T.iw_block(1, 8, 10, 10, 2) == 2          # measured
    assert T.iw_block(1, 8, 16, 16, 2) == 16         # rows split in two: balanced


def _scalar_forward(x, w, bias, s, p, op, groups_of):
    """A scalar loop of the documented order: per output point, the chains given by
    ``groups_of(oy, ox)`` (lists of (ky, kx)), each an FMA chain over its taps then channels,
    added in order, then the bias."""
    n, c, h, wd = x.shape
    co, kh, kw = w.shape[1:]
    oh = (h - 1) * s - 2 * p + kh + op
    ow = (wd - 1) * s - 2 * p + kw + op
    out = np.zeros((n, co, oh, ow), np.float32)
    for b in range(n):
        for o in range(co):
            for oy in range(oh):
                for ox in range(ow):
                    total = np.float32(0)
                    for taps in groups_of(oy, ox):
                        acc = np.float32(0)
                        for ky, kx in taps:
                            iy, ry = divmod(oy + p - ky, s)
                            ix, rx = divmod(ox + p - kx, s)
                            if ry or rx or not (0 <= iy < h and 0 <= ix < wd):
                                continue
                            for ci in range(c):
                                acc = np.float32(float(acc) + float(x[b, ci, iy, ix])
                                                 * float(w[ci, o, ky, kx]))
                        total = np.float32(total + acc)
                    out[b, o, oy, ox] = total + (bias[o] if bias is not None else 0)
    return out


def test_forward_matches_scalar_order_exec_trans():
    # output width 9 (odd): one chain over every tap (rows, then columns), channels innermost
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 5, 5, 5)).astype(np.float32)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    got = T.forward(x, w, b, (2, 2), (1, 1), (0, 0))
    want = _scalar_forward(x, w, b, 2, 1, 0,
                           lambda oy, ox: [[(ky, kx) for ky in range(3) for kx in range(3)]])
    assert got.view(np.int32).tolist() == want.view(np.int32).tolist()


def test_forward_matches_scalar_order_exec_base():
    # k=4, p=1, width 8: every column tap is cut by an edge: one chain per kernel column
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 6, 4, 4)).astype(np.float32)
    w = rng.standard_normal((6, 2, 4, 4)).astype(np.float32)
    got = T.forward(x, w, None, (2, 2), (1, 1), (0, 0))
    want = _scalar_forward(x, w, None, 2, 1, 0,
                           lambda oy, ox: [[(ky, kx) for ky in range(4)] for kx in range(4)])
    assert got.view(np.int32).tolist() == want.view(np.int32).tolist()
    one_chain = _scalar_forward(
        x, w, None, 2, 1, 0, lambda oy, ox: [[(ky, kx) for ky in range(4) for kx in range(4)]])
    assert got.view(np.int32).tolist() != one_chain.view(np.int32).tolist()


def test_bias_grad_orders():
    rng = np.random.default_rng(7)
    g = (rng.standard_normal((3, 5, 6, 7)) * 100).astype(np.float32)
    # 4+ channels (blocked layout): one float32 chain over samples then positions
    want = np.zeros(5, np.float32)
    for b in range(3):
        for v in g[b].reshape(5, -1).T:
            want = (want + v).astype(np.float32)
    assert T.bias_grad(g).view(np.int32).tolist() == want.view(np.int32).tolist()
    # 1-3 channels (plain layout): each sample's sum from zero, then those sums in order
    g3 = g[:, :3]
    rows = np.zeros((3, 3), np.float32)
    for b in range(3):
        for v in g3[b].reshape(3, -1).T:
            rows[b] = (rows[b] + v).astype(np.float32)
    want3 = np.float32(0) + rows[0]
    want3 = (want3 + rows[1]).astype(np.float32)
    want3 = (want3 + rows[2]).astype(np.float32)
    assert T.bias_grad(g3).view(np.int32).tolist() == want3.view(np.int32).tolist()


def test_other_cpu_keeps_general_path(monkeypatch):
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "other")
    x = np.ones((2, 4, 3, 3), np.float32)
    w = np.ones((4, 2, 4, 4), np.float32)
    assert T.try_forward(x, w, None, 2, (2, 2), (1, 1, 1, 1), (1, 1), 1, (6, 6)) is None
    assert T.try_backward(x, w, np.ones((2, 2, 6, 6), np.float32), 2, (2, 2), (1, 1, 1, 1),
                          (1, 1), 1, (True, True, True)) == (None, None, None)
    # the dialect still computes it (the general path): values, not bits
    y = torch.nn.functional.conv_transpose2d(torch.tensor(x), torch.tensor(w), stride=2,
                                             padding=1)
    assert tuple(y.shape) == (2, 2, 6, 6)
    assert float(y[0, 0, 2, 2]) == 16.0        # 4 channels x 2x2 taps reach an inner point


def test_single_small_sample_is_not_onednn(monkeypatch):
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx512_core")
    # one sample, 3x3 kernel, small: torch runs slow_conv_transpose2d, not oneDNN
    assert not T.uses_onednn(1, 8, (5, 5), (3, 3))
    assert T.uses_onednn(1, 8, (5, 5), (4, 4))
    assert T.uses_onednn(2, 8, (5, 5), (3, 3))
