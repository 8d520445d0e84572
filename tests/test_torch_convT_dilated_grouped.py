"""torch float32 transposed convolutions with dilation or groups as torch 2.13 computes them
(gradrepl/torch/nn/_onednn_convT.py). A single small dilated sample runs ATen's
slow_conv_transpose2d (no oneDNN: use_mkldnn's rule), MKL's gemm + col2im at the dilated kernel
offsets, as the float64 ones. Digests (sha1 of the bytes, 12 hex digits) of the output and the
input, filter and bias gradients recorded from real torch 2.13 (/work/vtorch, 2 threads) on the
Intel Sapphire Rapids Xeon (MKL path AVX512_E1; TSWEEP4's sweep: convT2d 34/48 -> 37/48)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from conftest import skip_unless_mkl_path

F = torch.nn.functional

# name, nd, in channels, out channels, kernel, stride, padding, output padding, groups,
# dilation, input spatial shape, samples, dtype
CASES = [
    ("slow_dil_1x", 2, 2, 2, 2, 2, 0, 1, 1, 2, (3, 7), 1, "f32"),
    ("slow_dil_k3", 2, 3, 1, 3, 2, 1, 1, 1, 2, (13, 9), 1, "f32"),
    ("slow_dil_k1", 2, 1, 1, 1, 2, 1, 0, 1, 2, (3, 7), 1, "f32"),
    ("slow_dil_1d", 1, 4, 3, 3, 2, 1, 1, 1, 3, (11,), 1, "f32"),
]

REAL = {
    'slow_dil_1x': {'y': '53f93f2525c6', 'dx': '2634e09a8bcf', 'dw': 'f751c66b448e', 'db': '8002243cbf86'},
    'slow_dil_k3': {'y': '22f5686c6edc', 'dx': 'a1b8895b7458', 'dw': '36348b204145', 'db': '6307ae75c130'},
    'slow_dil_k1': {'y': 'f086d2d519ae', 'dx': '7327c9d2db90', 'dw': '94d727406c5f', 'db': 'be0bee82607f'},
    'slow_dil_1d': {'y': '6704b1112918', 'dx': 'eebf7619f559', 'dw': '2ad27c4c5336', 'db': '099cd5c8a925'},
}


def _run(case):
    name, nd, cin, cout, k, s, p, op, g, dil, sp, n, d = case
    rng = np.random.default_rng(sum(map(ord, name)))
    dt = np.float32 if d == "f32" else np.float64
    x = torch.tensor(rng.standard_normal((n, cin) + sp).astype(dt), requires_grad=True)
    w = torch.tensor((rng.standard_normal((cin, cout // g) + (k,) * nd) * 0.3).astype(dt),
                     requires_grad=True)
    b = torch.tensor(rng.standard_normal(cout).astype(dt), requires_grad=True)
    f = F.conv_transpose1d if nd == 1 else F.conv_transpose2d
    y = f(x, w, b, stride=s, padding=p, output_padding=op, groups=g, dilation=dil)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)).astype(dt)))
    return {key: hashlib.sha1(t.detach().numpy().tobytes()).hexdigest()[:12]
            for key, t in (("y", y), ("dx", x.grad), ("dw", w.grad), ("db", b.grad))}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bits_equal_real_torch(case, monkeypatch):
    skip_unless_mkl_path("the dilated/grouped transposed convolution records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")     # (the records' thread count)
    assert _run(case) == REAL[case[0]]
