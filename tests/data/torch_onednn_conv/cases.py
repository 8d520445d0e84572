"""Convolution cases whose bits real torch 2.13 computes with oneDNN's direct JIT kernels on an
AVX-512 CPU (tests/test_torch_onednn_conv_bits.py; recorded by record.py in real torch). Plain
Python and numpy: the same file runs under real torch and under gradrepl's torch dialect."""
import hashlib

import numpy as np

# name, kind ("fw" convolution, "tr" transposed, "sl"/"sl64" a convolution's forward in
# float32/float64 on ATen's slow path), input shape, weight shape, bias, stride,
# padding, dilation; the comment: oneDNN's kernels there (ONEDNN_VERBOSE=1 in real torch)
CASES = [
    ("fw1d_ic40_bias", "fw", (3, 40, 25), (20, 40, 3), True, 1, 1, 1),        # jit fwd, 3 blocks
    ("fw2d_ic24_s2", "fw", (2, 24, 11, 9), (8, 24, 3, 2), True, 2, 1, 1),     # jit fwd, strided
    ("fw2d_ic3_first", "fw", (4, 3, 9, 8), (16, 3, 3, 3), True, 1, 1, 1),     # jit fwd, nchw src
    ("fw3d_ic17_dil", "fw", (2, 17, 6, 7, 5), (8, 17, 2, 3, 2), False, 1, 1, 2),
    ("fw3d_doc_small", "fw", (2, 16, 10, 6, 8), (33, 16, 3, 3, 3), False, 1, 0, 1),
    ("tr1d_doc_small", "tr", (4, 16, 20), (16, 33, 5), False, 1, 0, 1),      # jit bwd_data
    ("tr2d_ic40_bias", "tr", (2, 40, 7, 6), (40, 8, 3, 2), True, 1, 1, 1),
    ("tr3d_ic24_bias", "tr", (2, 24, 4, 5, 4), (24, 6, 2, 2, 3), True, 1, 0, 1),
    ("tr2d_dil", "tr", (3, 8, 6, 7), (8, 4, 3, 2), False, 1, 1, 2),
    # backward-weights thread splits (2 threads): batch (the t08 lecture's second conv, jit:avx2
    # kernel), output-channel blocks, a tie taken by the batch split, input-channel blocks
    ("bw2d_batch_split", "fw", (16, 8, 4, 4), (8, 8, 3, 3), True, 1, 1, 1),
    ("bw2d_oc_split", "fw", (3, 3, 6, 9), (20, 3, 5, 2), True, 1, 0, 1),
    ("bw1d_tie", "fw", (32, 64, 33), (16, 64, 2), True, 1, 0, 1),
    ("bw2d_ic_split", "fw", (16, 17, 5, 8), (16, 17, 2, 2), True, 1, 0, 1),
    # ATen's slow path (im2col + MKL's gemm onto the bias): one float32 sample, float64 always
    ("slow1_2d_bias", "sl", (1, 5, 9, 8), (7, 5, 3, 3), True, 1, 1, 1),
    ("slow1_1d_dil", "sl", (1, 17, 30), (20, 17, 3), False, 2, 2, 2),
    ("slow1_3d", "sl", (1, 4, 5, 6, 5), (3, 4, 2, 3, 2), True, 1, 0, 1),
    ("slow64_2d_batch", "sl64", (3, 6, 7, 8), (5, 6, 3, 2), True, 1, 1, 1),
]


def arrays(i, spec):
    """The case's input, weight, bias (or None) and upstream gradient seed, float32."""
    name, kind, xs, ws, bias, stride, pad, dil = spec
    rng = np.random.default_rng(1000 + i)
    dt = np.float64 if kind == "sl64" else np.float32
    x = rng.standard_normal(xs).astype(dt)
    w = rng.standard_normal(ws).astype(dt)
    b = rng.standard_normal(ws[1] if kind == "tr" else ws[0]).astype(dt) if bias else None
    return x, w, b, rng


def digest(a):
    return hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def run(torch, i, spec):
    """{output name: md5 prefix} of the forward (and, for "fw", the three gradients)."""
    name, kind, xs, ws, bias, stride, pad, dil = spec
    F = torch.nn.functional
    x, w, b, rng = arrays(i, spec)
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True) if b is not None else None
    nd = len(xs) - 2
    fn = (getattr(F, f"conv_transpose{nd}d") if kind == "tr" else getattr(F, f"conv{nd}d"))
    y = fn(tx, tw, tb, stride=stride, padding=pad, dilation=dil)
    out = {"y": digest(y.detach().numpy())}
    if kind == "fw":
        g = rng.standard_normal(tuple(y.shape)).astype(np.float32)
        y.backward(torch.tensor(g))
        out["dx"] = digest(tx.grad.numpy())
        out["dw"] = digest(tw.grad.numpy())
        if tb is not None:
            out["db"] = digest(tb.grad.numpy())
    return out
