"""Strided transposed convolutions (and a strided convolution's input gradient) whose bits real
torch 2.13 computes with oneDNN's brgconv_strided kernel on an AVX-512 CPU
(tests/test_torch_convtranspose_bits.py; recorded by record.py in real torch). Plain Python and
numpy: the same file runs under real torch and under gradrepl's torch dialect."""
import hashlib

import numpy as np

# name, kind ("tr" transposed convolution, "cv" convolution), input shape, weight shape,
# bias, stride, padding, output padding; the comment: what oneDNN ran (ONEDNN_VERBOSE=1)
CASES = [
    # DCGAN's middle layer: brg_deconv (exec_base: each edge-cut column tap its own chain)
    ("dcgan_mid", "tr", (4, 32, 4, 4), (32, 16, 4, 4), False, 2, 1, 0),
    # DCGAN's last layer, 3 channels (the bias gradient per sample, then added)
    ("dcgan_rgb", "tr", (4, 16, 8, 8), (16, 3, 4, 4), True, 2, 1, 0),
    # an odd output width: conv:any+brgconv_strided (exec_trans: one chain)
    ("odd_width", "tr", (2, 24, 5, 5), (24, 8, 3, 3), True, 2, 1, 0),
    # output padding 1 (the autoencoder decoders' ConvTranspose2d(k=3, s=2, p=1, op=1))
    ("outpad_ae", "tr", (8, 32, 4, 4), (32, 16, 3, 3), True, 2, 1, 1),
    # three samples: the row cut into two blocks of columns (oneDNN's thread balance)
    ("odd_batch_blocks", "tr", (3, 5, 7, 7), (5, 16, 7, 7), True, 2, 3, 1),
    # one output channel (MNIST decoders), one sample with a 4x4 kernel (oneDNN, not slow)
    ("mnist_one", "tr", (1, 16, 7, 7), (16, 1, 4, 4), True, 2, 1, 0),
    # 1-d
    ("tr1d", "tr", (4, 12, 9), (12, 5, 4), True, 2, 1, 0),
    # stride 1 on a 1x1 input (DCGAN's first layer): direct kernel; its gradients
    ("dcgan_first", "tr", (4, 16, 1, 1), (16, 32, 4, 4), False, 1, 0, 0),
    # one sample, 3x3 kernel: ATen's slow_conv_transpose2d (MKL's gemm + col2im)
    ("slow_one", "tr", (1, 8, 6, 6), (8, 4, 3, 3), True, 2, 1, 1),
    # float64: the slow path for any batch
    ("slow_f64", "tr64", (3, 5, 4, 4), (5, 6, 4, 4), True, 2, 1, 0),
    # a strided Conv2d's input gradient: brgconv_strided's backward-data pass
    ("conv_dx", "cv", (4, 3, 16, 16), (8, 3, 4, 4), True, 2, 1, 0),
    ("conv1d_dx", "cv", (2, 8, 20), (16, 8, 5), False, 2, 2, 0),
]


def arrays(i, spec):
    name, kind, xs, ws, bias, stride, pad, opad = spec
    rng = np.random.default_rng(2000 + i)
    dt = np.float64 if kind == "tr64" else np.float32
    x = rng.standard_normal(xs).astype(dt)
    w = (rng.standard_normal(ws) * 0.2).astype(dt)
    b = rng.standard_normal(ws[1] if kind.startswith("tr") else ws[0]).astype(dt) if bias \
        else None
    return x, w, b, rng


def digest(a):
    return hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def run(torch, i, spec):
    """{output name: md5 prefix} of the forward and the three gradients."""
    name, kind, xs, ws, bias, stride, pad, opad = spec
    F = torch.nn.functional
    x, w, b, rng = arrays(i, spec)
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True) if b is not None else None
    nd = len(xs) - 2
    if kind.startswith("tr"):
        y = getattr(F, f"conv_transpose{nd}d")(tx, tw, tb, stride=stride, padding=pad,
                                                output_padding=opad)
    else:
        y = getattr(F, f"conv{nd}d")(tx, tw, tb, stride=stride, padding=pad)
    g = rng.standard_normal(tuple(y.shape)).astype(x.dtype)
    y.backward(torch.tensor(g))
    out = {"y": digest(y.detach().numpy()), "dx": digest(tx.grad.numpy()),
           "dw": digest(tw.grad.numpy())}
    if tb is not None:
        out["db"] = digest(tb.grad.numpy())
    return out
