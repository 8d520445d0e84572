"""Strided, padded and dilated float32 convolutions whose filter and bias gradients real torch
2.13 computes with oneDNN's JIT backward-weights kernels on an AVX-512 CPU
(tests/test_torch_conv_strided_grads.py; recorded by record.py in real torch). Plain Python and
numpy: the same file runs under real torch and under gradrepl's torch dialect."""
import hashlib

import numpy as np

# name, input shape, weight shape, stride, padding, dilation, threads; the comment: the kernel
# real torch ran (ONEDNN_VERBOSE=1) and how it cut the reduction (_onednn_conv_bwd_w.plan)
CASES = [
    # round six's lectures: the WGAN-GP critic (m06) and the DB-VAE face classifier (m07)
    ("m06_first_ic1", (4, 1, 28, 28), (8, 1, 4, 4), 2, 0, 1, 2),       # avx512, rows, 2 threads
    ("m06_last_oc1", (4, 16, 4, 4), (1, 16, 4, 4), 2, 0, 1, 2),        # avx512, samples
    ("m06_mid_ic8", (4, 8, 13, 13), (16, 8, 4, 4), 2, 0, 1, 2),        # avx2 (8-channel blocks)
    ("m07_5x5_pad2", (8, 3, 16, 16), (4, 3, 5, 5), 2, 2, 1, 2),        # avx512, rows
    # a 2-d convolution with > 9 output rows is cut by (sample, row): odd batches cut a sample
    ("rows_odd_batch", (5, 1, 31, 23), (16, 1, 4, 4), 2, 1, 1, 2),
    ("rows_odd_ic40", (3, 40, 24, 6), (8, 40, 4, 4), 2, 1, 1, 2),
    ("rows_one_thread", (5, 1, 31, 23), (16, 1, 4, 4), 2, 1, 1, 1),    # OMP_NUM_THREADS=1
    # balance's compute-cost step (the batch split though memory alone picks channel blocks)
    ("comp_step_s3", (32, 48, 15, 19), (4, 48, 3, 3), 3, 0, 1, 2),
    ("conv1d_s2_bias_team", (32, 40, 36), (100, 40, 4), 2, 1, 1, 2),   # bias reducer: 2
    ("conv1d_avx2_s3", (64, 4, 64), (20, 4, 7), 3, 1, 1, 2),
    ("dilated_s1_ic16", (4, 16, 12, 12), (8, 16, 3, 3), 1, 2, 2, 2),   # avx512, dilated rows
    ("conv3d_s2_ic16", (3, 16, 7, 8, 9), (8, 16, 3, 3, 3), 2, 1, 1, 2),  # avx512, depth planes
    ("conv3d_avx2_ic8", (4, 8, 6, 7, 8), (16, 8, 2, 3, 3), 2, 0, 1, 2),  # avx2, depth planes
    # x64:gemm:jit (im2col + oneDNN's sgemm; its bias gradient is not emulated: "dw" only)
    ("gemm_dil2_s2", (4, 8, 21, 19), (32, 8, 3, 3), 2, 1, 2, 2),
    ("conv1d_dil3_s2_ic3", (5, 3, 150), (20, 3, 3), 2, 2, 3, 2),  # avx512 (a 1-d dilation)
    ("gemm_3d_pad_ic4", (3, 4, 6, 7, 8), (16, 4, 3, 3, 3), 1, 1, 1, 2),   # depth planes
    ("gemm_one_thread", (4, 8, 21, 19), (32, 8, 3, 3), 2, 1, 2, 1),
]


def arrays(i, spec):
    """The case's input, weight, bias and upstream gradient, float32."""
    name, xs, ws, stride, pad, dil, threads = spec
    rng = np.random.default_rng(2000 + i)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    return x, w, b, rng


def digest(a):
    return hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def bits(a, count=4):
    """The first ``count`` float32 values' bits, as hex."""
    return [f"{v:08x}" for v in np.ascontiguousarray(a).reshape(-1)[:count].view(np.uint32)]


def run(torch, i, spec):
    """{"dw"/"db": md5 prefix, "dw4"/"db4": the first values' bits} of nn.ConvNd's gradients."""
    name, xs, ws, stride, pad, dil, threads = spec
    x, w, b, rng = arrays(i, spec)
    nd = len(xs) - 2
    conv = getattr(torch.nn, f"Conv{nd}d")(ws[1], ws[0], ws[2:], stride=stride, padding=pad,
                                           dilation=dil)
    with torch.no_grad():
        conv.weight.copy_(torch.tensor(w))
        conv.bias.copy_(torch.tensor(b))
    y = conv(torch.tensor(x))
    g = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(torch.tensor(g))
    dw, db = conv.weight.grad.numpy(), conv.bias.grad.numpy()
    return {"dw": digest(dw), "db": digest(db), "dw4": bits(dw), "db4": bits(db)}
