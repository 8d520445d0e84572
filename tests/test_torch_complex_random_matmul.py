"""Complex tensors and float64 sampling in the torch dialect (issue 28), against real torch 2.13.

Found on a student's path (``torch.linalg.eig`` then ``V @ diag(L) @ inv(V)``): complex ``randn``
and ``rand`` gave real values only; float64 normals drawn by glibc's libm in torch differed in the
last bit where numpy's SIMD log/sin/cos round otherwise; torch's own small-batch loop and MKL's
complex gemm were not used for complex products; and every complex gradient through the
dialect's own VJPs (mul, div, mm, tanh ...) came out conjugated (the registry's complex rule was
lost when the dialect assigned torch's formulas).

The md5s are of the results' bytes, recorded from real torch 2.13.0 on this project's machine
(AMD EPYC Zen 4, 2 threads, 2026-12-06) with the same code.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from gradrepl.torch import _mkl

from conftest import record_for_mkl_branch, skip_without_avx512

needs_mkl = pytest.mark.skipif(not _mkl.available(), reason="the mkl wheel is not installed: "
                               "torch's gemm bits come from MKL")


def md5(t):
    return hashlib.md5(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()


@pytest.fixture
def torch():
    import gradrepl.torch as torch
    return torch


def test_complex_sampling_fills_the_real_view(torch):
    # real torch: view_as_real(x).normal_(0, 1/sqrt(2)) / .uniform_(): parts interleaved
    cases = [("randn", (3,), torch.complex64, "ff777da99dfd28244460e1eea8be97d5"),
             ("randn", (20,), torch.complex64, "2a585902030ae2f645491cf8b7a7f2d7"),
             ("randn", (4,), torch.complex128, "12373361ccef7277a133a0430dc227c2"),
             ("randn", (50,), torch.complex128, "84343cf46bb9de859480ce98481f9f32"),
             ("rand", (5,), torch.complex64, "5bf8d981d5b5675fd7cd1723623f09ea")]
    for fn, shape, dt, digest in cases:
        torch.manual_seed(1)
        x = getattr(torch, fn)(*shape, dtype=dt)
        assert x.dtype == dt and x.shape == shape
        assert md5(x) == digest, (fn, shape, dt)
    torch.manual_seed(1)
    z = torch.randn(3, dtype=torch.complex64)
    torch.manual_seed(1)
    parts = torch.randn(6, dtype=torch.float32).numpy()
    # the serial path draws in double: the same draws, scaled by 1/sqrt(2) before rounding
    assert np.allclose(z.numpy().view(np.float32), parts / np.sqrt(2), rtol=1e-6)


def test_float64_normals_as_torch_draws_them(torch):
    torch.manual_seed(3)
    assert md5(torch.empty(9, dtype=torch.float64).normal_(-1.25, 2.7)) == \
        "d8a3ae321edaa3de94c09756b46859c8"      # < 16 values: one FMA for std and mean
    torch.manual_seed(4)
    assert md5(torch.empty(40, dtype=torch.float64).normal_(0.3, 1.7)) == \
        "a05c8a5ab1ee04371418459af60cb72c"
    for seed, digest in ((0, "8a6229b97fbd0ad27528606cb5f24a07"),
                         (9, "6955686f42d1e2f4a9531d15db95ae39"),
                         (17, "84f2aa7518289c61b0c5bd43fceea56f")):
        torch.manual_seed(seed)
        assert md5(torch.randn(1000, dtype=torch.float64)) == digest, seed


def test_complex_small_bmm_is_torchs_own_loop(torch):
    torch.manual_seed(2)
    a = torch.randn(3, 2, 4, dtype=torch.complex128)
    b = torch.randn(3, 4, 3, dtype=torch.complex128)
    assert md5(a @ b) == "a3ac7780a0ac03552c8fdcd3df613b91"
    a = torch.randn(2, 5, 5, dtype=torch.complex64)
    b = torch.randn(2, 5, 5, dtype=torch.complex64)
    assert md5(torch.bmm(a, b)) == "adbc159480e5beaccab636224ffbe9df"


@needs_mkl
def test_mkl_complex_gemm_and_batched_products(torch):
    skip_without_avx512("MKL's gemm bits")
    # real torch 2.13 on each MKL code path: AUTO the AMD EPYC Zen 4, AVX512_E1 the Intel
    # Sapphire Rapids Xeon (the complex128 gradient also needs torch's complex abs, a hypot)
    want = record_for_mkl_branch("MKL's gemm bits", {
        "AUTO": ("d74c258a19d3d83d4f5e9abcf95a834d", "4fc7c5d2f78b53068cc2cb478a581013",
                 "ce7056c68af5be46fb531ee1bccc671c", "3363b82def9dcbf81399e83cb2d2b617",
                 "48edd6b9b2183f1e3febd30428be5a82"),
        "AVX512_E1": ("d74c258a19d3d83d4f5e9abcf95a834d", "850f02afa77370378dd4620a3adcde6f",
                      "ccb4db7f759b9ff457d5bcdbf2d528cb", "7efc1a3f86b7c6a07c6b3c919697bd3b",
                      "fe603aacd2c2b5a4f988a534826d4cb3")})
    got = []
    torch.manual_seed(5)
    a = torch.randn(6, 7, dtype=torch.complex64)
    b = torch.randn(7, 5, dtype=torch.complex64)
    got.append(md5(a @ b))
    a, b = torch.randn(3, 33, 17), torch.randn(3, 17, 9)
    got.append(md5(a @ b))   # one gemm each: other bits
    a = torch.randn(3, 10, 10, dtype=torch.float64)
    b = torch.randn(3, 10, 10, dtype=torch.float64)
    got.append(md5(a @ b))
    a = torch.randn(2, 12, 9, dtype=torch.complex128, requires_grad=True)
    b = torch.randn(2, 9, 8, dtype=torch.complex128)
    y = a @ b
    got.append(md5(y))
    y.abs().sum().backward()
    got.append(md5(a.grad))
    assert tuple(got) == want


def test_complex_gradients_are_not_conjugated(torch):
    torch.manual_seed(6)
    a = torch.randn(4, dtype=torch.complex128, requires_grad=True)
    b = torch.randn(4, dtype=torch.complex128, requires_grad=True)
    ((a * b).real.sum() + (a / b).imag.sum() + a.tanh().abs().sum()
     + (a.exp() * b.log()).real.sum()).backward()
    # real torch's values, rounded to 12 places (the last bits of complex division differ)
    expect_a = [1.645765607145 + 1.265101330576j, -2.955757301622 - 6.245336977707j,
                0.794888212779 + 1.668264867754j, 4.087282166695 + 6.086135613077j]
    expect_b = [-0.566101150941 + 0.742065513641j, -11.62379792368 + 3.954069422978j,
                0.238938541424 + 0.861142858703j, 0.234675875356 - 1.289685871265j]
    np.testing.assert_allclose(a.grad.numpy(), expect_a, atol=2e-12)
    np.testing.assert_allclose(b.grad.numpy(), expect_b, atol=2e-12)
    # and by the definition: dL/dRe + i dL/dIm, L = Re(sum(a * b)) -> conj(b)
    x = torch.randn(3, dtype=torch.complex64, requires_grad=True)
    w = torch.randn(3, dtype=torch.complex64)
    (x * w).real.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.conj(w.numpy()))


@needs_mkl
def test_complex_mm_gradients(torch):
    skip_without_avx512("MKL's gemm bits")
    torch.manual_seed(6)
    torch.randn(4, dtype=torch.complex128), torch.randn(4, dtype=torch.complex128)  # as recorded
    A = torch.randn(3, 4, dtype=torch.complex64, requires_grad=True)
    B = torch.randn(4, 2, dtype=torch.complex64, requires_grad=True)
    (A @ B).real.sum().backward()
    assert md5(torch.cat([A.grad.flatten(), B.grad.flatten()])) == \
        "fc51d8d210ac53af042f02e72f60e55c"


@needs_mkl
def test_lstsq_gelsy_without_pivoting_as_torch_calls_it(torch):
    """torch's gelsy gets an uninitialised ``jpvt`` (at::empty), reused along the batch: after the
    first matrix every column is fixed (no pivoting). Real torch 2.13 here: the docstring example
    of torch.linalg.lstsq, and matrices 2-4 of a batch (the first sees whatever the heap held)."""
    skip_without_avx512("MKL's LAPACK bits")
    want = record_for_mkl_branch("MKL's LAPACK bits", {   # real torch 2.13 on each path
        "AUTO": ("057de989ff0e9d2b22c213aec0c7e98e", "f1df8ab5e8360490700ebb3e2cf69e25"),
        "AVX512_E1": ("553405a265575838122ae67b05bbddb7", "f77394f4d35bba8bd880c0b5656fb81b")})
    torch.manual_seed(0)
    A, B = torch.randn(1, 3, 3), torch.randn(2, 3, 3)
    assert md5(torch.linalg.lstsq(A, B).solution) == want[0]
    A2 = torch.randn(4, 6, 5, dtype=torch.float64)
    B2 = torch.randn(4, 6, 2, dtype=torch.float64)
    assert md5(torch.linalg.lstsq(A2, B2).solution[1:]) == want[1]
