"""Differences the issue-28 sweep (torch's layers with random values, real torch 2.13 against the
dialect on the Intel Sapphire Rapids Xeon) found, now equal: float64 softmax / log_softmax along
another dim than the last (and so cross_entropy of (N, C, d...) inputs), and F.linear of a
non-contiguous 3-D input (ATen's matmul, then the bias added: AddBackward0). md5 of real torch's
results, recorded by tests/data/torch_sweep/record.py from the same cases file."""
import os
import sys

import pytest

import gradrepl.torch as torch

DATA = os.path.join(os.path.dirname(__file__), "data", "torch_sweep")
sys.path.insert(0, os.path.dirname(DATA))
import md5_table  # noqa: E402
from conftest import record_for_mkl_branch, skip_without_avx512  # noqa: E402
from torch_sweep import cases as C  # noqa: E402


@pytest.fixture(autouse=True)
def _avx512(monkeypatch):
    # recorded from torch's AVX512 softmax kernels (8 double lanes); chosen on any machine
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")


def _expected():
    path = os.path.join(DATA, "expected_AVX512_E1.txt")
    return md5_table.read(path)


@pytest.mark.parametrize("spec", C.SOFTMAX64, ids=[s[0] for s in C.SOFTMAX64])
def test_float64_softmax_along_another_dim(spec):
    skip_without_avx512("float64 softmax's scalar tails (glibc's exp of this x86-64 machine)")
    md5_table.check(_expected(), spec[0], C.run_softmax(torch, *spec))


@pytest.mark.parametrize("spec", C.CROSS_ENTROPY64, ids=[s[0] for s in C.CROSS_ENTROPY64])
def test_float64_cross_entropy_of_spatial_inputs(spec):
    skip_without_avx512("float64 log_softmax's scalar tails (glibc's exp of this x86-64 machine)")
    md5_table.check(_expected(), spec[0], C.run_cross_entropy(torch, *spec))


@pytest.mark.parametrize("spec", C.LINEAR_STRIDED, ids=[s[0] for s in C.LINEAR_STRIDED])
def test_linear_of_a_strided_3d_input(spec):
    record_for_mkl_branch("F.linear's matrix product (MKL's sgemm)", {"AVX512_E1": True})
    md5_table.check(_expected(), spec[0], C.run_linear_strided(torch, *spec))


@pytest.mark.parametrize("inp, weight, kw, message", [
    # (messages printed by real torch 2.13)
    ((1, 2, 5), (3, 2, 4), {"dilation": 2},
     "Calculated padded input size per channel: (5). Kernel size: (7). Kernel size can't be "
     "greater than actual input size"),
    ((2, 1, 8, 28), (6, 1, 5, 5), {"dilation": 2},
     "Calculated padded input size per channel: (8 x 28). Kernel size: (9 x 9). Kernel size "
     "can't be greater than actual input size"),
    ((1, 1, 3, 4, 5), (1, 1, 2, 2, 6), {},
     "Calculated padded input size per channel: (3 x 4 x 5). Kernel size: (2 x 2 x 6). Kernel "
     "size can't be greater than actual input size"),
])
def test_conv_kernel_larger_than_padded_input_raises(inp, weight, kw, message):
    # (the dialect computed an empty output, MKL refusing its leading dimension, or failed
    # in numpy's broadcasting)
    f = {3: torch.nn.functional.conv1d, 4: torch.nn.functional.conv2d,
         5: torch.nn.functional.conv3d}[len(inp)]
    with pytest.raises(RuntimeError) as e:
        f(torch.zeros(inp), torch.zeros(weight), **kw)
    assert str(e.value) == message


@pytest.mark.parametrize("spec", C.CONV_GEMM_LD1024, ids=[s[0] for s in C.CONV_GEMM_LD1024])
def test_conv_input_gradient_on_gemm_with_1024_positions(spec):
    from conftest import skip_unless_onednn_avx512_core

    skip_unless_onednn_avx512_core("oneDNN's x64:gemm:jit backward data (its no-copy sgemm)")
    md5_table.check(_expected(), spec[0], C.run_conv_gemm(torch, *spec))


@pytest.mark.parametrize("spec", C.LAYER_NORM64, ids=[s[0] for s in C.LAYER_NORM64])
def test_float64_layer_norm(spec):
    skip_without_avx512("float64 LayerNorm (torch's AVX2-build kernel on this x86-64 CPU)")
    md5_table.check(_expected(), spec[0], C.run_layer_norm64(torch, *spec))


@pytest.mark.parametrize("spec", C.GROUP_NORM64, ids=[s[0] for s in C.GROUP_NORM64])
def test_float64_group_norm(spec):
    skip_without_avx512("float64 GroupNorm (torch's AVX2-build kernel on this x86-64 CPU)")
    md5_table.check(_expected(), spec[0], C.run_group_norm64(torch, *spec))


@pytest.mark.parametrize("spec", C.SDPA_MATH, ids=[s[0] for s in C.SDPA_MATH])
def test_sdpa_math_path(spec):
    record_for_mkl_branch("the attention's matrix products (MKL)", {"AVX512_E1": True})
    md5_table.check(_expected(), spec[0], C.run_sdpa_math(torch, *spec))


@pytest.mark.parametrize("spec", C.BATCH_NORM64, ids=[s[0] for s in C.BATCH_NORM64])
def test_float64_batch_norm(spec):
    skip_without_avx512("float64 BatchNorm (torch's AVX2-build kernel on this x86-64 CPU)")
    md5_table.check(_expected(), spec[0], C.run_batch_norm64(torch, *spec))


def test_select_and_slice_gradients_keep_negative_zeros():
    # torch's select/slice backward copies the gradient into zeros (a -0 stays -0; found by
    # the sweep: the inf-norm gradient of a sliced input). Sign bits printed by real torch 2.13.
    import numpy as np

    x = torch.tensor([[-1., 2., -3., 4.], [5., -6., 7., -8.]], requires_grad=True)
    got = []
    for view in (lambda t: t[:, ::2], lambda t: t[1], lambda t: t[:, 1:3], lambda t: t[...]):
        x.grad = None
        (view(x) * -0.0).sum().backward()
        got.append(np.signbit(x.grad.numpy()).astype(int).tolist())
    assert got == [[[1, 0, 1, 0], [1, 0, 1, 0]], [[0, 0, 0, 0], [1, 1, 1, 1]],
                   [[0, 1, 1, 0], [0, 1, 1, 0]], [[1, 1, 1, 1], [1, 1, 1, 1]]]


@pytest.mark.parametrize("spec", C.CONV64_GROUPS, ids=[s[0] for s in C.CONV64_GROUPS])
def test_float64_grouped_convolution(spec):
    record_for_mkl_branch("ATen's slow convolution (MKL's dgemm)", {"AVX512_E1": True})
    md5_table.check(_expected(), spec[0], C.run_conv64_groups(torch, *spec))


@pytest.mark.parametrize("spec", C.CIRCULAR_PAD, ids=[s[0] for s in C.CIRCULAR_PAD])
def test_circular_pad_gradient(spec):
    md5_table.check(_expected(), spec[0], C.run_circular_pad(torch, *spec))


@pytest.mark.parametrize("spec", C.CONVT64, ids=[s[0] for s in C.CONVT64])
def test_float64_transposed_convolution_dilated_or_grouped(spec):
    record_for_mkl_branch("ATen's slow transposed convolution (MKL's dgemm)", {"AVX512_E1": True})
    md5_table.check(_expected(), spec[0], C.run_convT64(torch, *spec))


@pytest.mark.parametrize("spec", C.CE_SMOOTH_WEIGHTED, ids=[s[0] for s in C.CE_SMOOTH_WEIGHTED])
def test_cross_entropy_smoothing_with_weights(spec):
    skip_without_avx512("cross_entropy's log_softmax and sums (torch's AVX512 kernels)")
    md5_table.check(_expected(), spec[0], C.run_ce_smooth_weighted(torch, *spec))


def test_adaptive_max_pool2d_overlapping_windows_gradient():
    # F.adaptive_max_pool2d (no indices asked) 4x8 -> 5x6: an element that is the maximum of
    # several windows gets their gradients added in output order, as torch's kernel adds them
    # (EXPECTED_AMAX: md5 of real torch 2.13's input gradient for the same lines)
    import numpy as np

    rng = np.random.default_rng(28)
    x = torch.tensor(rng.standard_normal((2, 8, 4, 8)).astype(np.float32), requires_grad=True)
    y = torch.nn.functional.adaptive_max_pool2d(x, (5, 6))
    y.backward(torch.tensor(rng.standard_normal((2, 8, 5, 6)).astype(np.float32)))
    import hashlib

    assert hashlib.md5(x.grad.numpy().tobytes()).hexdigest() == EXPECTED_AMAX


EXPECTED_AMAX = "fa538edf760ba9994333363311ab6402"   # (printed by real torch 2.13 here, the same lines)
