"""torch float32 depthwise convolutions (groups == C_in == C_out) as oneDNN's jit_dw:avx512_core
kernels sum them (gradrepl/torch/nn/_onednn_dw_conv.py): forward, input, filter and bias
gradients. The digests are real torch 2.13's (2 threads) on this Intel Sapphire Rapids machine,
ONEDNN_VERBOSE=1 showing jit_dw:avx512_core for every pass except the 5x5 filter gradient
(x64:gemm:jit: a group's sgemm of one column is oneDNN's gemv kernel, _onednn_conv_gemm.sgemv_t)."""
import hashlib

import numpy as np
import pytest

from conftest import skip_unless_onednn_avx512_core

# (n, c, spatial, k, stride, pad, bias): sha1[:16] of y, dx, dw(, db) from real torch 2.13
REAL = [
    ((8, 32, (16, 16), 3, 1, 1, True),
     ['6324005cf576a5a6', '6a7a157cac3704ed', '0838f3bdbcefe0ca', '80a0b647b0436745']),
    ((4, 32, (15, 15), 3, 2, 1, False),
     ['2f406d3ffa758990', '14fe2fcef29b85f7', '7e5119584a0e70af']),
    ((1, 16, (10, 10), 3, 1, 1, True),
     ['02f076ea1c81b704', '26606423850315cf', 'e19cfbe30986b9a2', 'bf073bc057bf2001']),
    ((4, 3, (12, 12), 3, 1, 1, True),
     ['a748fde2b6db1bd1', 'e9c33e2a910f0d85', '130a8eeb2fe6ca7e', '92cbe9c716fce848']),
    ((2, 20, (9, 40), 3, 1, 1, True),   # 40 columns: the filter gradient's column blocks
     ['47f569878279c9aa', 'accc1ae3c795b4b3', 'b8cbaf408fe3598c', '3a94f9c574e90e2b']),
    ((2, 24, (7, 7), 5, 1, 2, True),    # filter gradient on x64:gemm:jit (a group's gemv)
     ['eb4b37a71a567b75', '81e5c94c507e3eaa', '7f57cd2a7babab0c', '3f8fa966beb5723f']),
    ((3, 8, (50,), 3, 1, 1, True),
     ['1f43a0158c53eafd', '501b3c869ccc6527', '14859b74c4da8e92', 'd3288ab728d0c000']),
    ((2, 18, (33,), 3, 2, 1, False),
     ['e4e57559c2d147c1', 'fb22cd4b29be5927', '0f5760a7aba81e9a']),
]


@pytest.mark.parametrize("case,want", REAL, ids=[str(c[0]) for c in REAL])
def test_depthwise_bits(case, want, monkeypatch):
    skip_unless_onednn_avx512_core("real torch 2.13's depthwise convolution bits")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    import gradrepl.torch as torch
    F = torch.nn.functional
    n, c, sp, k, s, p, bias = case
    rng = np.random.default_rng(n * 1000 + c * 10 + k)
    x = torch.tensor(rng.standard_normal((n, c) + sp).astype(np.float32), requires_grad=True)
    w = torch.tensor((rng.standard_normal((c, 1) + (k,) * len(sp)) / k).astype(np.float32),
                     requires_grad=True)
    b = torch.tensor(rng.standard_normal(c).astype(np.float32), requires_grad=True) \
        if bias else None
    conv = F.conv2d if len(sp) == 2 else F.conv1d
    y = conv(x, w, b, stride=s, padding=p, groups=c)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)))
    outs = [y.detach(), x.grad, w.grad] + ([b.grad] if bias else [])
    got = [hashlib.sha1(t.numpy().tobytes()).hexdigest()[:16] for t in outs]
    assert [a for a, e in zip(got, want) if e is not None] == [e for e in want if e is not None]


def test_other_cpus_keep_the_general_path(monkeypatch):
    from gradrepl.torch.nn import _onednn_dw_conv

    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx2")
    assert not _onednn_dw_conv.forward_applies((2, 8, 9, 9), (8, 1, 3, 3), (1, 1),
                                               [(1, 1), (1, 1)], (1, 1), 8, np.float32)
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx512_core")
    assert _onednn_dw_conv.forward_applies((2, 8, 9, 9), (8, 1, 3, 3), (1, 1),
                                           [(1, 1), (1, 1)], (1, 1), 8, np.float32)
    assert not _onednn_dw_conv.forward_applies((2, 8, 9, 9), (8, 1, 3, 3), (1, 1),
                                               [(1, 1), (1, 1)], (1, 1), 8, np.float64)


# Grouped (not depthwise) float32 convolutions on oneDNN's direct kernel (jit:avx512_core, each
# group's channels in blocks of 16, 8 or 4: _onednn_conv.grouped_block). (n, c, o, groups,
# spatial, k, stride, pad): sha1[:16] of y and dx from real torch 2.13 here (the strided one's
# input gradient, jit:avx512_core's strided backward data, is not emulated: y only).
REAL_GROUPED = [
    # 16-channel groups: the filter/bias gradients on jit:avx512_core, a group a thread
    ((4, 32, 32, 2, (8, 8), 3, 1, 1),
     ['d74f9da04b9740a5', 'a66c05fa2ccc51dd', '217e7eeaa413ea89', '91dcdc375235cd16']),
    # 4-channel groups: forward direct, filter gradient x64:gemm:jit
    ((2, 128, 128, 32, (8, 8), 3, 1, 1),
     ['38b3de9f17b5d22d', '7cf93f1b431826c9', '028fbdb20589e3be', '1970777ac3824324']),
    ((4, 48, 48, 3, (8, 8), 1, 1, 0),
     ['63be3cf7119bb1e0', '669d352faeb56110', 'd1e5e6d05eb76253', '9a1eb81366b881b3']),
    # 8 output channels a group: the filter gradient on jit:avx2 (same sums, a group a thread);
    # the strided input gradient (jit:avx512_core's strided backward data) not emulated
    ((3, 64, 32, 4, (9, 11), 3, 2, 1),
     ['c8db23f031363376', None, '261a2df7ca4fae62', 'fe4d1c93501542e3']),
    ((2, 16, 24, 2, (30,), 5, 1, 2),
     ['ec281a4c0056967c', 'a89bd9fbea562325', 'dfe5b0903e4b7a4b', '537cbee8a9a6fda6']),
    # small groups: x64:gemm:jit per group (_onednn_conv_gemm.try_grouped_gemm), one sample too
    # (one output channel a group: the filter gradient's sgemm is oneDNN's gemv kernel)
    ((3, 9, 3, 3, (64,), 3, 1, 0),
     ['7efe3018e4c17de4', '7f373e3f84c7135b', 'c5a26788656dc27b', 'f851de178cd8c393']),
    ((2, 8, 16, 4, (16, 28), 2, 1, 1), ['376a96a460973519', '01dc9a888ea0dd78']),
    ((1, 4, 24, 4, (8, 28), 1, 1, 1), ['75328f32328b5d6d', 'fdc4c713ba70b1cf']),
]


def _grouped_digests(case):
    """Digests of a grouped conv's output and its x, w, b gradients on seeded random values."""
    import gradrepl.torch as torch
    F = torch.nn.functional
    n, c, o, g, sp, k, s, p = case
    rng = np.random.default_rng(n * 1000 + c * 10 + k + g)
    x = torch.tensor(rng.standard_normal((n, c) + sp).astype(np.float32), requires_grad=True)
    w = torch.tensor((rng.standard_normal((o, c // g) + (k,) * len(sp)) / k).astype(np.float32),
                     requires_grad=True)
    b = torch.tensor(rng.standard_normal(o).astype(np.float32), requires_grad=True)
    conv = F.conv2d if len(sp) == 2 else F.conv1d
    y = conv(x, w, b, stride=s, padding=p, groups=g)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)))
    got = [hashlib.sha1(t.numpy().tobytes()).hexdigest()[:16]
           for t in (y.detach(), x.grad, w.grad, b.grad)]
    return got


@pytest.mark.parametrize("case,want", REAL_GROUPED, ids=[str(c[0]) for c in REAL_GROUPED])
def test_grouped_direct_bits(case, want, monkeypatch):
    skip_unless_onednn_avx512_core("real torch 2.13's grouped convolution bits")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    got = _grouped_digests(case)
    assert [a for a, e in zip(got, want) if e is not None] == [e for e in want if e is not None]


# Small groups on x64:gemm:jit, all four outputs (the filter gradient per group on one thread:
# _onednn_conv_gemm.grouped_gemm_bwd_w). (n, c, o, groups, spatial, k, stride, pad): sha1[:16]
# of y, dx, dw, db from real torch 2.13 here (ONEDNN_VERBOSE: x64:gemm:jit for every pass).
REAL_GROUPED_W = [
    ((3, 9, 21, 3, (16,), 3, 2, 2),
     ['204340c9bb494345', 'e2517a7b8b53aee2', '4a9d82e5330ace6e', '5162e67ec6950eee']),
    ((2, 8, 16, 4, (16, 28), 2, 1, 1),
     ['376a96a460973519', '01dc9a888ea0dd78', '7559dffd22882a42', '9ee61539d4b4765f']),
    ((1, 4, 24, 4, (8, 28), 1, 1, 1),
     ['75328f32328b5d6d', 'fdc4c713ba70b1cf', 'f464ee508d01c8c7', '1bfbbca316af91bd']),
    ((2, 6, 12, 2, (11, 5), 3, 2, 1),
     ['c00433b991c9edcb', '2b7f704bb561f978', '6058556e32c13808', '518a203318736dd4']),
    ((4, 6, 40, 2, (12, 12), 3, 1, 1),   # 20 output channels a group: the wide sgemm
     ['d4d89b94a4508053', 'd647d0a8f8d8ea5d', '8beba53829c44421', 'd8f000ebb4d11dc4']),
]


@pytest.mark.parametrize("case,want", REAL_GROUPED_W, ids=[str(c[0]) for c in REAL_GROUPED_W])
def test_grouped_gemm_all_outputs(case, want, monkeypatch):
    skip_unless_onednn_avx512_core("real torch 2.13's grouped gemm convolution bits")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    got = _grouped_digests(case)
    assert got == want


def test_grouped_kernels_only_on_avx512_core(monkeypatch):
    """Other CPUs run other oneDNN kernels: every grouped emulation steps aside there."""
    from gradrepl.torch.nn import _onednn_conv as O
    from gradrepl.torch.nn import _onednn_conv_gemm as G

    x = np.ones((2, 6, 9, 9), np.float32)
    w = np.ones((6, 2, 3, 3), np.float32)
    g = np.ones((2, 6, 9, 9), np.float32)
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx2")
    assert O.try_conv(x, w, None, 2, False, (1, 1), (1, 1, 1, 1), (1, 1), 3) is None
    assert O.try_backward(x, w, g, 2, (1, 1), (1, 1, 1, 1), (1, 1), 3) == (None, None, None)
    assert G.grouped_gemm_bwd_w(x, g, w.shape, (1, 1), [(1, 1), (1, 1)], (1, 1), 3) == \
        (None, None)
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx512_core")
    assert O.try_conv(x, w, None, 2, False, (1, 1), (1, 1, 1, 1), (1, 1), 3) is not None
