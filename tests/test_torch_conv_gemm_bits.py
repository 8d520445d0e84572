"""torch's float32 1x1 convolutions as oneDNN's ``jit_1x1:avx512_core`` kernel sums them
(gradrepl/torch/nn/_onednn_conv_gemm.py): forward from the bias, input gradient, filter
gradient (the reduction cut into position blocks over the threads) and bias gradient; and
ATen's ``use_mkldnn`` rule (a 1x1 filter with fewer than 16 samples on one thread runs ATen's
slow convolution, MKL's gemm). Bits recorded from real torch 2.13.0+cpu on this project's AMD
EPYC Zen 4 (AVX-512), 2 cores, ONEDNN_VERBOSE=1 naming jit_1x1 for every case below."""
import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F
from gradrepl.torch import _mkl
from gradrepl.torch.nn import _onednn_conv_gemm as G
from conftest import skip_unless_mkl_branch, skip_unless_onednn_avx512_core


def _digest(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def _run(i, case):
    """The recording script's computation (seeded numpy data, conv, backward of a random
    upstream gradient): digests of y, x.grad, w.grad, b.grad."""
    n, ic, oc, sp, k, s, p, d, *dt = case
    dt = dt[0] if dt else "float32"
    r = np.random.RandomState(100 + i)
    x = torch.tensor(r.randn(n, ic, *sp).astype(dt), requires_grad=True)
    w = torch.tensor(r.randn(oc, ic, *([k] * len(sp))).astype(dt), requires_grad=True)
    b = torch.tensor(r.randn(oc).astype(dt), requires_grad=True)
    conv = F.conv1d if len(sp) == 1 else F.conv2d
    y = conv(x, w, b, stride=s, padding=p, dilation=d)
    g = torch.tensor(r.randn(*y.shape).astype(dt))
    y.backward(g)
    return tuple(_digest(t.detach().numpy()) for t in (y, x.grad, w.grad, b.grad))


# (N, C_in, C_out, spatial, k, stride, padding, dilation), then sha256[:16] of the float32
# bytes of y, x.grad, w.grad, b.grad printed by REAL torch 2.13 (2 threads) in this session
TWO_THREADS = [
    ((32, 16, 2, (8, 8), 1, 1, 0, 1), 'f395d23f9e1296d0', '62a088a0817b5c50', '28f2aeeaf59ab5b0', '180e971c715b04ff'),
    ((8, 16, 2, (8, 8), 1, 1, 0, 1), '1b1b572295790301', '055da0b25ddcb56d', 'c831c7a66d6787f1', '5942ae3b42bd4ab6'),
    ((32, 16, 4, (8, 8), 1, 1, 0, 1), 'f72ebd261b43402b', '7be29c47eabd3cd1', '059b3a51dedd5694', '4e3fc7bad947ed13'),
    ((4, 64, 3, (12, 10), 1, 1, 0, 1), '9f21a0d51ffb2ea3', 'c22f2e98b6bf7dbe', '70a24fadae0cfcf8', 'b9e9e402d3c40b09'),
    ((2, 100, 1, (20, 20), 1, 1, 0, 1), '2095730805e3cba6', '23aa9fba1f1e4ffc', '017621af6bd090df', '32ecf3647d2017f5'),
    ((3, 7, 24, (15, 9), 1, 1, 0, 1), 'e243cbbdc352c116', 'e18a0b8ccbb1a7ef', 'da079df5ea8a247d', '60340502aac0a59b'),
    ((5, 130, 20, (30, 6), 1, 1, 0, 1), 'dc8789f4e0418a89', '8a0ebf7ac5af8e22', 'f33194e3db2f8c1d', '67895814d728c502'),
    ((4, 12, 4, (24, 24), 1, 2, 0, 1), '0eead170ade511bb', '9e7e5f3c7ac9cc3f', '271b8ab020e5a775', '548418273441f11b'),
    ((6, 33, 5, (17,), 1, 1, 0, 1), '62f1dc550bfbc1bf', '045b61508273102b', 'e1c30ae36039298a', '3db0fa9236c9812a'),
    ((16, 32, 10, (9, 9), 1, 1, 0, 1), '071bcac33d6f4d5d', '7cdfbbd0f2829113', '6a56816638566d09', '42fb24c9557be37a'),
]

# the same, real torch with OMP_NUM_THREADS=1: 4 and 3 samples ran ATen's slow convolution
# (no oneDNN verbose line), 16 samples jit_1x1
ONE_THREAD = [
    ((4, 16, 2, (8, 8), 1, 1, 0, 1), '50ad1f64ff1df41a', '5ecf0bdf9bf210a0', 'fa7d379f483c0523', 'f66cf2bc0224543d'),
    ((16, 16, 3, (8, 8), 1, 1, 0, 1), '33210bd611b90a9d', '2e37f31e3c145e86', '3566e82e3b3cb6db', 'a3021c6ae9f27f3c'),
    ((3, 24, 8, (10, 12), 1, 1, 0, 1), 'd5dadc7e377f646a', '34c322bafa995013', '39b3bd1b5745b751', 'fc03b0458499ce90'),
]


@pytest.mark.parametrize("i", range(len(TWO_THREADS)))
def test_jit_1x1_two_threads(i, monkeypatch):
    skip_unless_onednn_avx512_core("the jit_1x1 records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    case, *want = TWO_THREADS[i]
    assert list(_run(i, case)) == want


def test_jit_1x1_one_thread_sixteen_samples(monkeypatch):
    skip_unless_onednn_avx512_core("the jit_1x1 records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "1")
    case, *want = ONE_THREAD[1]
    assert list(_run(1, case)) == want


def _slow_records(what, table, i, recorded):
    """The AMD EPYC's record (MKL's AUTO path) or real torch 2.13's on MKL's AVX512_E1 path (an
    Intel Sapphire Rapids Xeon: tests/data/torch_conv_gemm_AVX512_E1.json, the same cases);
    skipped, saying why, on another path."""
    import json
    import pathlib

    from conftest import record_for_mkl_branch
    from gradrepl.engine import mkl

    if mkl.branch() == "AUTO":
        skip_unless_mkl_branch(what, approximations=False)
    e1 = json.loads((pathlib.Path(__file__).parent / "data" /
                     "torch_conv_gemm_AVX512_E1.json").read_text())[table][i]
    return list(record_for_mkl_branch(what, {"AUTO": list(recorded), "AVX512_E1": e1}))


@pytest.mark.skipif(not _mkl.available(), reason="the mkl wheel is not installed: ATen's slow "
                    "convolution's MKL gemm is not called, bytes not compared")
@pytest.mark.parametrize("i", [0, 2])
def test_one_thread_small_batch_runs_aten_slow_path(i, monkeypatch):
    """Forward only: ATen's slow convolution through MKL's gemm (its gradients are not
    emulated yet)."""
    case, *want = ONE_THREAD[i]
    want = _slow_records("the slow-path forward record", "ONE_THREAD", i, want)
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "1")
    assert _run(i, case)[0] == want[0]


def test_use_mkldnn_rule():
    # ATen's ConvParams::use_mkldnn, float32
    assert not G.use_mkldnn((4, 16, 8, 8), (2, 16, 1, 1), (1, 1), (1, 1), 1, 1)
    assert G.use_mkldnn((4, 16, 8, 8), (2, 16, 1, 1), (1, 1), (1, 1), 1, 2)
    assert G.use_mkldnn((16, 16, 8, 8), (2, 16, 1, 1), (1, 1), (1, 1), 1, 1)
    assert G.use_mkldnn((4, 16, 8, 8), (2, 16, 1, 1), (2, 2), (1, 1), 1, 1)
    assert not G.use_mkldnn((1, 3, 8, 8), (2, 3, 3, 3), (1, 1), (1, 1), 1, 2)
    assert G.use_mkldnn((1, 3, 8, 8), (2, 3, 5, 5), (1, 1), (1, 1), 1, 2)
    assert G.use_mkldnn((1, 8, 64, 64), (2, 8, 3, 3), (1, 1), (1, 1), 1, 2)   # 32768 > 20480
    assert not G.use_mkldnn((1, 5, 64, 64), (2, 5, 3, 3), (1, 1), (1, 1), 1, 2)


def test_best_divider_and_plan():
    # jit_uni_1x1_conv_utils.hpp best_divider by hand: 64 positions, divisors 7..16 -> 16
    # (no padding loss); 63 -> 9 (the largest exact divisor when find_max)
    assert G.best_divider(64, 7, 16, True) == 16
    assert G.best_divider(63, 7, 16, True) == 9
    assert G.best_divider(61, 7, 16, True) == 9            # (loss 2/63 beats 16's 3/64)
    rblk, nb_reduce, step, step_max, nthr_mb, nthr = G.plan_1x1_bwd_w(32, 16, 2, 8, 8, 2)
    assert (rblk, nb_reduce) == (16, 4) and nthr_mb * 1 <= nthr <= 2


def test_chains_from_bias_against_scalar_loop():
    """The forward's chain (bias first, fused multiply-adds in channel order, chunks added)
    against a scalar float loop with math.fma-like exact products (float64 holds them)."""
    r = np.random.RandomState(3)
    x = r.randn(2, 20, 1, 5).astype(np.float32)
    w = r.randn(3, 20, 1, 1).astype(np.float32)
    b = r.randn(3).astype(np.float32)
    got = G.conv1x1_forward(x, w, b, (1, 1), 2)
    want = np.empty_like(got)
    chunk = G.fwd_reduce_chunk(2, 20, 3, 1, 5, 2)
    for n in range(2):
        for o in range(3):
            for p in range(5):
                total = None
                for cb in range(0, 20, chunk):
                    acc = np.float32(b[o]) if cb == 0 else np.float32(0)
                    for c in range(cb, min(20, cb + chunk)):
                        acc = np.float32(float(acc) + float(w[o, c, 0, 0]) * float(x[n, c, 0, p]))
                    total = acc if total is None else np.float32(total + acc)
                want[n, o, 0, p] = total
    assert got.tobytes() == want.tobytes()


# x64:gemm:jit filter gradients (oneDNN's small-N sgemm; ONEDNN_VERBOSE named x64:gemm:jit for
# every backward_weights below): dilated strided, padding past the kernel extent, a single
# large-kernel sample, 1-d; 2 to 13 output channels (kernels of 2 and 3 columns). REAL torch
# 2.13 in this session, 2 threads and OMP_NUM_THREADS=1 (the samples' split over threads
# changes cases 4-6); digests as above, all four compared (the bias: each output row's sum
# from zero, the rows' sums in order; forward and input gradient: jit or x64:gemm:jit's no-copy
# sgemm, one chain per K chunk)
GEMM_TWO_THREADS = [
    ((2, 32, 2, (11, 6), 3, 2, 2, 2), '144b6b2292909b37', '46faaad1aafc6051', '67e74a574470fe8c', '58a73a6a46c004ca'),
    ((8, 16, 6, (24, 20), 3, 1, 3, 2), 'c621ce4b3ffa0d4f', '37067ec426b60549', '9ed0e8711fc26b50', 'f573f30888d109f8'),
    ((1, 5, 8, (18, 18), 5, 1, 5, 1), '039a2f32884e94f0', '01cda3b1a4880705', 'cacea5532d095893', '4d896e15aef6082b'),
    ((3, 5, 6, (12, 20), 2, 1, 2, 2), '14d4cf0df5fa93f1', '07c475122c0099b0', '49a672a390385e2c', 'fd436169add6fcd0'),
    ((4, 6, 5, (40,), 3, 2, 0, 3), '7f621b38038a0773', '19352eadb7f88643', 'e74ce76a0ad9cb2b', 'a9300853a9882d90'),
    ((16, 24, 4, (12, 12), 3, 2, 3, 2), '4379c4b242caf09d', 'd6417108c8717b12', 'b2c6faad11a5d439', '7cc6e7177c606359'),
    ((4, 8, 7, (10, 10), 3, 2, 1, 2), '669274b2699fad40', '0f397bf7e7a183be', '964f7bcbb6324f20', '5c7a73d1a00e6702'),
    ((2, 4, 13, (9, 9), 3, 1, 3, 1), 'c6c879623b3171eb', 'c845c290c9fec21a', 'f7994aaf8294f95d', 'fc062e234e58f8d7'),
    ((2, 24, 4, (16, 4), 3, 1, 3, 1), '7ad559f794898ba1', 'b7b948852e19246a', 'ebed381bf67f73d6', 'c587976bed5ca5ae'),
]
GEMM_ONE_THREAD = [
    ((2, 32, 2, (11, 6), 3, 2, 2, 2), '144b6b2292909b37', '46faaad1aafc6051', '67e74a574470fe8c', '58a73a6a46c004ca'),
    ((8, 16, 6, (24, 20), 3, 1, 3, 2), 'c621ce4b3ffa0d4f', '37067ec426b60549', '9ed0e8711fc26b50', 'f573f30888d109f8'),
    ((1, 5, 8, (18, 18), 5, 1, 5, 1), '039a2f32884e94f0', '01cda3b1a4880705', 'cacea5532d095893', '4d896e15aef6082b'),
    ((3, 5, 6, (12, 20), 2, 1, 2, 2), '14d4cf0df5fa93f1', '07c475122c0099b0', '49a672a390385e2c', 'fd436169add6fcd0'),
    ((4, 6, 5, (40,), 3, 2, 0, 3), '7f621b38038a0773', '19352eadb7f88643', 'a7766226ed459c4f', 'a9300853a9882d90'),
    ((16, 24, 4, (12, 12), 3, 2, 3, 2), '4379c4b242caf09d', 'd6417108c8717b12', 'ad0ada105c8fc58f', '7cc6e7177c606359'),
    ((4, 8, 7, (10, 10), 3, 2, 1, 2), '669274b2699fad40', '0f397bf7e7a183be', '541959c6e21ffef5', '5c7a73d1a00e6702'),
    ((2, 4, 13, (9, 9), 3, 1, 3, 1), 'c6c879623b3171eb', 'c845c290c9fec21a', 'f7994aaf8294f95d', 'fc062e234e58f8d7'),
    ((2, 24, 4, (16, 4), 3, 1, 3, 1), '7ad559f794898ba1', 'b7b948852e19246a', 'ebed381bf67f73d6', 'c587976bed5ca5ae'),
]


@pytest.mark.parametrize("threads", [2, 1])
@pytest.mark.parametrize("i", range(9))
def test_gemm_smalln_filter_gradient(i, threads, monkeypatch):
    skip_unless_onednn_avx512_core("the x64:gemm:jit filter-gradient records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", str(threads))
    case, *want = (GEMM_TWO_THREADS if threads == 2 else GEMM_ONE_THREAD)[i]
    assert list(_run(i, case)) == want


def test_smalln_reduction_is_a_sum_of_each_rows_lanes():
    """The emulated shuffle tree sums exactly the 16 lanes of each (row, column): with lanes
    that are powers of two far apart (every partial sum exact) each output is their exact
    total, whatever the tree."""
    lanes = np.zeros((11, 3, 16), np.float32)
    for r in range(11):
        for c in range(3):
            lanes[r, c] = 2.0 ** ((np.arange(16) + r + 20 * c) % 24)
    got = G._kernel_cols(lanes, 3)
    assert got.tolist() == lanes.astype(np.float64).sum(axis=2).tolist()
    assert G._kernel_cols(lanes[:, :2], 2).tolist() == got[:, :2].tolist()


def test_smalln_threads_rule():
    assert G.smalln_threads(144, 50, 2) == 1          # m * k <= 8192
    assert G.smalln_threads(144, 572, 2) == 2
    assert G.smalln_threads(20, 1000, 2) == 1         # fewer than 16 rows each
    assert G.smalln_threads(45, 1000, 2) == 2


# ATen's slow convolution (slow_conv2d / slow_conv_dilated2d: im2col and MKL's gemm, col2im)
# for a single sample and for float64, and one single sample that oneDNN takes (a 4x4 kernel:
# use_mkldnn; ONEDNN_VERBOSE named jit:avx512_core for it, nothing for the others). REAL torch
# 2.13, 2 threads, in this session; digests as above, all four compared
SLOW = [
    ((1, 3, 8, (20, 17), 3, 1, 1, 1, 'float32'), '4b604318dbe68058', 'c6245bf9ca583f3e', 'f45232c66de21d45', 'd7241d5c7fbc7956'),
    ((1, 16, 4, (12, 12), 3, 2, 1, 1, 'float32'), '11e0882058ad60a5', 'b66db0123b62501b', '2a6f30fa3ce256d8', 'b9a6af66c562e5bd'),
    ((1, 5, 6, (11, 14), 3, 1, 2, 2, 'float32'), 'e4997f694c313429', '8d3a541c9285b9b8', 'bb97e3805d244896', '5a5bfc2d4a76a0db'),
    ((1, 8, 3, (30,), 5, 2, 2, 1, 'float32'), '65522658b3bd8514', '61617ae54f6d2f3e', '615b0599487700cd', '7331f2fd4a7c6c42'),
    ((1, 64, 3, (19, 15), 4, 1, 0, 1, 'float32'), '7fa206effdb6f1e7', 'c5aa84b5fe58f03a', '08bafcc3a3425968', 'dca65bcaab0e7837'),
    ((2, 6, 5, (9, 10), 3, 1, 1, 1, 'float64'), '99e0e4e91a415515', '3232c6cc2275d143', '2c425f9451daef38', 'c42cd86a2c7f89d1'),
    ((3, 4, 2, (7, 8), 3, 2, 1, 2, 'float64'), 'ea8a2fb35930138a', '6e5fdebe5a0c20b0', 'f9764fd1287a766a', '3447003d62f4648e'),
]
# the same, OMP_NUM_THREADS=1: 1x1 filters with 3 and 4 samples (ATen's slow path there)
SLOW_ONE_THREAD = [
    ((3, 24, 8, (10, 12), 1, 1, 0, 1, 'float32'), '1789800b45c5c54a', 'cf07561b38ed73b4', '8fa1bb6cf9a96e50', '77e1a4ac751a612e'),
    ((4, 16, 2, (8, 8), 1, 1, 0, 1, 'float32'), 'aa9ee71f10539f3c', '70adf6ea2dba1630', '0198bde06e5dad06', '1c044e9007c7e66a'),
]


@pytest.mark.skipif(not _mkl.available(), reason="the mkl wheel is not installed: ATen's slow "
                    "convolution's MKL gemm is not called, bytes not compared")
@pytest.mark.parametrize("i", range(len(SLOW)))
def test_slow_path_gradients(i, monkeypatch):
    case, *want = SLOW[i]
    want = _slow_records("the slow-convolution records", "SLOW", i, want)
    if i == 4:
        skip_unless_onednn_avx512_core("a single sample on oneDNN's direct kernel")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    assert list(_run(i, case)) == want


@pytest.mark.skipif(not _mkl.available(), reason="the mkl wheel is not installed: ATen's slow "
                    "convolution's MKL gemm is not called, bytes not compared")
@pytest.mark.parametrize("i", range(len(SLOW_ONE_THREAD)))
def test_slow_path_gradients_one_thread(i, monkeypatch):
    case, *want = SLOW_ONE_THREAD[i]
    want = _slow_records("the slow-convolution records", "SLOW_ONE_THREAD", i, want)
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "1")
    assert list(_run(i, case)) == want


# 1x1 filters oneDNN takes otherwise: a stride that does not tile the input (the direct
# kernel: jit:avx512_core forward, brgconv_strided input gradient, jit:avx2 / jit:avx512_core
# filter gradient), and single samples large enough for use_mkldnn (jit_1x1). REAL torch 2.13,
# 2 threads, this session; all four compared
ONEXONE_MORE = [
    ((4, 12, 4, (23, 23), 1, 2, 0, 1, 'float32'), '7ad5434a7ee0d92a', 'af4fba6e6f17fb6e', '4761f11190045fc2', '8eae0e5a44591870'),
    ((16, 24, 8, (21, 14), 1, 2, 0, 1, 'float32'), '15f74b0145deb8d6', 'ee03f34a8b1b5060', 'dfc570cd30eaf743', '8235068f4e9b07ac'),
    ((1, 64, 8, (24, 24), 1, 1, 0, 1, 'float32'), '812728d1fb9aa0f7', 'df206d0ef03cbb48', 'da5b82cbb756268a', 'baa387c1c75ac854'),
    ((1, 100, 3, (20, 30), 1, 1, 0, 1, 'float32'), '95355bd34693005f', '473cd6cb95098269', '1e7e4016eff6e7bd', 'a63ca9b50843a00c'),
]


@pytest.mark.parametrize("i", range(len(ONEXONE_MORE)))
def test_1x1_strided_and_single_sample(i, monkeypatch):
    skip_unless_onednn_avx512_core("the 1x1 records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    case, *want = ONEXONE_MORE[i]
    assert list(_run(i, case)) == want


def test_onexone_kind(monkeypatch):
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", "avx512_core")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    k = G.onexone_kind
    assert k((4, 8, 24, 24), (2, 8, 1, 1), (4, 2, 12, 12), (2, 2), [(0, 0)] * 2, 1,
             np.float32) == "1x1"                                   # 12 * 2 == 24: rtus
    assert k((4, 8, 23, 23), (2, 8, 1, 1), (4, 2, 12, 12), (2, 2), [(0, 0)] * 2, 1,
             np.float32) == "direct"
    assert k((4, 8, 8, 8), (2, 8, 1, 1), (4, 2, 10, 10), (1, 1), [(1, 1)] * 2, 1,
             np.float32) is None                                    # padded: gemm
    assert k((4, 8, 8, 8), (2, 8, 1, 1), (4, 2, 8, 8), (1, 1), [(0, 0)] * 2, 1,
             np.float64) is None
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "1")
    assert k((4, 8, 8, 8), (2, 8, 1, 1), (4, 2, 8, 8), (1, 1), [(0, 0)] * 2, 1,
             np.float32) is None                                    # ATen's slow path


# x64:gemm:jit forward and input gradient (padding at least the kernel extent): K = 600 cut in
# two halves, one output channel (gemv: its filter gradient not emulated, not compared), a
# padded 1x1, 1-d, 16 and 32 output channels (the copy-based / no-copy kernel's chains).
# REAL torch 2.13, 2 threads, this session; ONEDNN_VERBOSE named x64:gemm:jit for all three
# passes of each
GEMM_FORWARD = [
    ((2, 24, 8, (18, 16), 5, 1, 5, 1, 'float32'), '6ddbdcf4da4f4809', '8271ce614cbb7af1', 'cefee1d24d217840', 'e5aa433214fa89c8'),
    ((4, 3, 1, (12, 12), 3, 1, 3, 1, 'float32'), '9c2810953abbadbc', '6a53ca60ed53328a', 'f112cba32942d850', '876b11dc2a44480f'),
    ((3, 8, 32, (10, 9), 1, 1, 1, 1, 'float32'), 'ec8741802ea5c2ba', '7a3999050f06214f', '05b2b53ac12821a4', '3bee1876147350c6'),
    ((2, 16, 16, (12, 8), 3, 1, 3, 1, 'float32'), 'f1c2a1be48abf17e', '012fbbba22f614ce', '9c4950735a9e1b41', 'f51f3ea1d249d6ba'),
    ((4, 6, 4, (30,), 3, 1, 3, 1, 'float32'), '8cd18977d21b1df7', 'cf2f23805bb3241d', '7faf364a5509b7ec', '392ddc4721606f21'),
    ((2, 40, 6, (9, 9), 4, 1, 4, 1, 'float32'), '98f6d0bf9cb7fb21', 'c5405c8b072c1459', 'a15aaa90aecbb18c', 'f3fdf77ed67b18d3'),
]


@pytest.mark.parametrize("i", range(len(GEMM_FORWARD)))
def test_gemm_forward_and_input_gradient(i, monkeypatch):
    skip_unless_onednn_avx512_core("the x64:gemm:jit records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    case, *want = GEMM_FORWARD[i]
    if i == 5 and G.l2_floats() < (1 << 18):
        reason = ("its input channels fit oneDNN's input-channel block only with the 1 MiB L2 "
                  "of the recording CPU (here smaller: the general path), bytes not compared")
        print(reason)
        pytest.skip(reason)
    got = list(_run(i, case))
    if case[2] == 1:                         # (w.grad: oneDNN's gemv, not emulated)
        got[2] = want[2] = None
    assert got == want


def test_gemm_k_chunks():
    # sgemm_nocopy_driver's K loop (BK 384): 384s while 768 or more remain, then two halves
    assert G.gemm_k_chunks(300) == [(0, 300)]
    assert G.gemm_k_chunks(600) == [(0, 300), (300, 600)]
    assert G.gemm_k_chunks(601) == [(0, 301), (301, 601)]
    assert G.gemm_k_chunks(1000) == [(0, 384), (384, 692), (692, 1000)]
    assert G.gemm_k_chunks(768) == [(0, 384), (384, 768)]


# x64:gemm:jit filter gradients with 16 and 24 output channels (624 positions: two halves of
# the chain; 324), REAL torch 2.13 in this session with OMP_NUM_THREADS=1 (both) and 2 threads
# (the second; the first's sgemm runs threaded there, not emulated); all four compared
GEMM_WIDE = [
    ((2, 4, 24, (20, 22), 3, 1, 3, 1, 'float32'), '515507a8fc3ba739', 'f503f09262c836f9', 'f33b9829dc108707', '8e645048dccb41e4'),
    ((3, 8, 16, (14, 14), 3, 1, 3, 1, 'float32'), '3f3da2fbde177e61', 'e2cf36712240a81b', 'c59cafc7d6fb28b6', '8744697df2358274'),
]


@pytest.mark.parametrize("i, threads", [(0, 1), (1, 1), (1, 2)])
def test_gemm_wide_filter_gradient(i, threads, monkeypatch):
    skip_unless_onednn_avx512_core("the x64:gemm:jit records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", str(threads))
    case, *want = GEMM_WIDE[i]
    assert list(_run(i, case)) == want


# 1x1 filters with dilation 2 (meaningless for the sums, not for the kernel choice): strided
# where the stride does not tile the input (jit:avx512_core forward, x64:gemm:jit backward),
# strided where it does and unstrided (jit_1x1 all three; use_mkldnn: dilated, on one thread
# too). REAL torch 2.13, 2 threads, and OMP_NUM_THREADS=1 for DILATED_1X1_ONE_THREAD (jit_1x1
# there too), this session; all four compared
DILATED_1X1 = [
    ((2, 3, 4, (6, 3), 1, 2, 0, 2, 'float32'), 'bab48ffdb55e5621', '62d32ef518d31193', '69ef4d2daaf63a31', '0a551d31c9078758'),
    ((16, 16, 8, (16, 22), 1, 2, 0, 2, 'float32'), 'e064ce01e0b97c68', 'f1112a6ebb7d8e53', '5b53dd30f8ac9440', '0893b62fb3a181b1'),
    ((2, 5, 2, (11, 5), 1, 1, 0, 2, 'float32'), 'ca583c97b338254c', '87bc64b0465fbfb6', '19b6898e032258c5', '292d090cac786c1b'),
]


DILATED_1X1_ONE_THREAD = [
    ((2, 5, 2, (11, 5), 1, 1, 0, 2, 'float32'), 'c173e03af2adf053', 'a2bb14d1b79c1eae', '773ace64b9941ff9', 'cf0baa2c1b85f835'),
]


@pytest.mark.parametrize("i, threads", [(0, 2), (1, 2), (2, 2), (0, 1)])
def test_dilated_1x1(i, threads, monkeypatch):
    skip_unless_onednn_avx512_core("the dilated 1x1 records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", str(threads))
    case, *want = (DILATED_1X1 if threads == 2 else DILATED_1X1_ONE_THREAD)[i]
    assert list(_run(i, case)) == want
