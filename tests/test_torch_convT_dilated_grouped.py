"""torch float32 transposed convolutions with dilation or groups as torch 2.13 computes them
(gradrepl/torch/nn/_onednn_convT.py). A single small dilated sample runs ATen's
slow_conv_transpose2d (no oneDNN: use_mkldnn's rule), MKL's gemm + col2im at the dilated kernel
offsets, as the float64 ones. The others run oneDNN's ref_deconvolution over a convolution
(ONEDNN_VERBOSE=1): the forward the swapped convolution's backward-data pass (x64:gemm:jit for
grouped and dilated strided ones, jit_dw for undilated depthwise ones) plus the bias, the input
gradient its forward and the filter gradient its backward-weights pass on the kernels
_onednn_conv picks, the bias gradient in the layout that pass holds the gradient in.
Digests (sha1 of the bytes, 12 hex digits) of the output and the input, filter and bias
gradients recorded from real torch 2.13 (/work/vtorch, 2 threads) on the Intel Sapphire Rapids
Xeon (MKL path AVX512_E1, oneDNN avx512_core). TSWEEP4's sweep: convT2d 34/48 -> 48/48; two
probes of 70 random grouped/dilated float32 conv_transpose1d/2d each: 3 -> 60 and 5 -> 67 equal
(float64 unchanged, equal)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from conftest import skip_unless_mkl_path, skip_unless_onednn_avx512_core

F = torch.nn.functional

# name, nd, in channels, out channels, kernel, stride, padding, output padding, groups,
# dilation, input spatial shape, samples, dtype
CASES = [
    ("slow_dil_1x", 2, 2, 2, 2, 2, 0, 1, 1, 2, (3, 7), 1, "f32"),
    ("slow_dil_k3", 2, 3, 1, 3, 2, 1, 1, 1, 2, (13, 9), 1, "f32"),
    ("slow_dil_k1", 2, 1, 1, 1, 2, 1, 0, 1, 2, (3, 7), 1, "f32"),
    ("slow_dil_1d", 1, 4, 3, 3, 2, 1, 1, 1, 3, (11,), 1, "f32"),
    # oneDNN (ONEDNN_VERBOSE=1): x64:gemm:jit forward (the gemm convolution's backward data)
    ("gemm_groups2", 2, 6, 4, 3, 2, 0, 1, 2, 1, (5, 4), 2, "f32"),
    ("gemm_groups2_one", 2, 4, 4, 2, 2, 0, 1, 2, 1, (13, 7), 1, "f32"),
    ("gemm_dilated_strided", 2, 3, 1, 4, 3, 0, 1, 1, 2, (13, 4), 2, "f32"),
    ("gemm_groups3_1d", 1, 6, 9, 3, 2, 1, 1, 3, 1, (10,), 2, "f32"),
    # the input gradient on jit:avx512_core (dilated, stride 1), the filter's on gemm
    ("dilated_s1", 2, 3, 1, 2, 1, 1, 0, 1, 2, (13, 9), 2, "f32"),
    ("dilated_s1_wide", 2, 4, 8, 4, 1, 2, 0, 1, 2, (5, 13), 4, "f32"),
    # depthwise: jit_dw forward (the bias gradient blocked), and dilated (gemm)
    ("depthwise", 2, 2, 2, 2, 2, 0, 1, 2, 1, (3, 7), 2, "f32"),
    ("depthwise_k5", 2, 3, 3, 5, 1, 1, 0, 3, 1, (5, 8), 4, "f32"),
    ("depthwise_dilated", 2, 3, 3, 4, 2, 0, 0, 3, 2, (5, 13), 3, "f32"),
]

REAL = {
    'slow_dil_1x': {'y': '53f93f2525c6', 'dx': '2634e09a8bcf', 'dw': 'f751c66b448e', 'db': '8002243cbf86'},
    'slow_dil_k3': {'y': '22f5686c6edc', 'dx': 'a1b8895b7458', 'dw': '36348b204145', 'db': '6307ae75c130'},
    'slow_dil_k1': {'y': 'f086d2d519ae', 'dx': '7327c9d2db90', 'dw': '94d727406c5f', 'db': 'be0bee82607f'},
    'slow_dil_1d': {'y': '6704b1112918', 'dx': 'eebf7619f559', 'dw': '2ad27c4c5336', 'db': '099cd5c8a925'},
    'gemm_groups2': {'y': '8789991f9b64', 'dx': '7ce99759000c', 'dw': '2f24193eeb5c', 'db': 'a11f989e9daf'},
    'gemm_groups2_one': {'y': '42505597559f', 'dx': '2bcffc5d3058', 'dw': '8e4f8c36ebc2', 'db': '8a14741c2406'},
    'gemm_dilated_strided': {'y': 'e55bb919648b', 'dx': '3c013beb0c93', 'dw': 'de7f835917ca', 'db': '2e3192055d6b'},
    'gemm_groups3_1d': {'y': '68d08acaa61a', 'dx': 'f33e82390ba5', 'dw': 'c390a2adeefe', 'db': '7fe001a571ad'},
    'dilated_s1': {'y': 'c057c532eee1', 'dx': 'f66f48b01b20', 'dw': 'd30d57927994', 'db': '7b5830154f6b'},
    'dilated_s1_wide': {'y': '2107fcc718f8', 'dx': 'c1219963aaa7', 'dw': 'e1d40c6c5e6c', 'db': 'b41461194685'},
    'depthwise': {'y': 'f8c52eea9176', 'dx': 'ca76df591d1a', 'dw': '0482880e8686', 'db': 'de86df0bc0a4'},
    'depthwise_k5': {'y': '44e4553f8371', 'dx': 'a8db51e86b97', 'dw': 'e21dc258ffaf', 'db': '5bf7972697c5'},
    'depthwise_dilated': {'y': 'cbcd3ab97906', 'dx': '88178729b8bb', 'dw': '7e10c4254ddb', 'db': 'a9b2927e8fa3'},
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
    if case[0].startswith("slow"):      # (ATen's: MKL's gemm)
        skip_unless_mkl_path("the dilated transposed convolution records")
    else:                               # (oneDNN's avx512_core kernels)
        skip_unless_onednn_avx512_core("the dilated/grouped transposed convolution records")
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")     # (the records' thread count)
    assert _run(case) == REAL[case[0]]
