"""torch float64 conv3d (ATen's slow_conv3d: per sample im2col and MKL's gemm) filter and bias
gradients: the filter gradient per sample with beta 1 in sample order as slow_conv2d's
(_onednn_conv_gemm.try_slow_backward, 3 spatial axes), the bias torch's sum. Digests of y, dx,
dw, db are real torch 2.13's on this Intel Sapphire Rapids machine (MKL AVX512_E1)."""
import hashlib

import numpy as np
import pytest

from conftest import skip_unless_mkl_path

# (n, c, o, spatial, k, stride, pad): sha1[:16] of y, dx, dw, db (real torch 2.13, 2 threads)
REAL = [
    ((1, 2, 3, (4, 5, 6), 3, 1, 1),
     ['f49d7d591186cbd5', 'ecc29be5bd015185', 'c7340d0b6022d316', 'bb1941250a34d1b8']),
    ((2, 3, 4, (5, 6, 7), 3, 2, 1),
     ['76c7cdc9acfb8fa1', '9d4f5509b66a7e2c', '98248fe019d5f48f', '5b0f997787d9be42']),
    ((3, 4, 2, (6, 5, 4), 2, 1, 0),
     ['2246c3208a53f770', '302b9f0ddfb96000', 'b73984ccb4fbd5c7', '69fd9240f553cd5e']),
    ((2, 2, 5, (8, 8, 8), (3, 1, 3), 1, (1, 0, 1)),
     ['16db670a62a33d59', '7c3dec63789af5cf', '403d54cc6bc1780a', '3875828b1f3c4bc9']),
]


@pytest.mark.parametrize("case,want", REAL, ids=[str(c[0]) for c in REAL])
def test_conv3d_float64_bits(case, want, monkeypatch):
    skip_unless_mkl_path("real torch 2.13's float64 conv3d (MKL dgemm)")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    import gradrepl.torch as torch
    F = torch.nn.functional
    n, c, o, sp, k, s, p = case
    ks = k if isinstance(k, tuple) else (k,) * 3
    rng = np.random.default_rng(n * 100 + c * 10 + o)
    x = torch.tensor(rng.standard_normal((n, c) + sp), requires_grad=True)
    w = torch.tensor(rng.standard_normal((o, c) + ks) / 3, requires_grad=True)
    b = torch.tensor(rng.standard_normal(o), requires_grad=True)
    y = F.conv3d(x, w, b, stride=s, padding=p)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape))))
    got = [hashlib.sha1(t.numpy().tobytes()).hexdigest()[:16]
           for t in (y.detach(), x.grad, w.grad, b.grad)]
    assert got == want


# float32 single samples: torch's use_mkldnn says no (kernel not larger than 3x3 both ways, at
# most 20480 values in the first four dims), so slow_conv3d with MKL's sgemm (ONEDNN_VERBOSE:
# no oneDNN primitive). Real torch 2.13 digests of y, dx, dw, db.
REAL_F32 = [
    ((1, 2, 3, (4, 5, 6), 3, 1, 1),
     ['81139902749652c6', 'fba8b27058c218a4', '124674f170bb8768', '3b4bc4cfcb776114']),
    ((1, 3, 4, (5, 6, 7), 3, 2, 1),
     ['e5dcf6d02ef6290f', '007e50e70d70641e', 'f6e90b35680ee74f', '7e528bbdb71d01e0']),
    ((1, 4, 2, (6, 5, 4), 2, 1, 0),
     ['e07ec1774c8dea8c', 'b80b7c31f090e2bc', '499922ee725982f2', '8810c7f3a54bde29']),
    ((1, 2, 5, (8, 8, 8), (3, 1, 3), 1, (1, 0, 1)),
     ['236802b4066386e8', '5d5d906b03247449', '1f1e96c2264c1127', '6bbcf9c09e4dc9fa']),
    ((1, 3, 8, (10, 12, 14), 3, 1, 1),
     ['61cb56c60784da6d', '33ef386c2bd7a568', '8b417f5bc4e1b642', 'dc9abc1d8444f1a9']),
]


@pytest.mark.parametrize("case,want", REAL_F32, ids=[str(c[0]) for c in REAL_F32])
def test_conv3d_float32_single_sample_bits(case, want, monkeypatch):
    skip_unless_mkl_path("real torch 2.13's float32 slow_conv3d (MKL sgemm)")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    import gradrepl.torch as torch
    F = torch.nn.functional
    n, c, o, sp, k, s, p = case
    ks = k if isinstance(k, tuple) else (k,) * 3
    rng = np.random.default_rng(n * 100 + c * 10 + o)
    x = torch.tensor(rng.standard_normal((n, c) + sp).astype(np.float32), requires_grad=True)
    w = torch.tensor((rng.standard_normal((o, c) + ks) / 3).astype(np.float32),
                     requires_grad=True)
    b = torch.tensor(rng.standard_normal(o).astype(np.float32), requires_grad=True)
    y = F.conv3d(x, w, b, stride=s, padding=p)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)))
    got = [hashlib.sha1(t.numpy().tobytes()).hexdigest()[:16]
           for t in (y.detach(), x.grad, w.grad, b.grad)]
    assert got == want
