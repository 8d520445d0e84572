"""Cases of tests/test_torch_sweep_bits.py (found by the issue-28 sweep of torch's layers with
random values on the Intel Sapphire Rapids Xeon): each ``run_*`` takes a torch module (real torch
in record.py, gradrepl's dialect in the test) and returns {label: array}. numpy only."""
import numpy as np

# float64 softmax / log_softmax along another dim than the last: ATen's (outer, dim, inner)
# kernels, Vectorized<double> lanes and glibc's exp in the scalar tails
SOFTMAX64 = [
    ("softmax_5x3x2x9_d1", "softmax", (5, 3, 2, 9), 1, False),
    ("softmax_5x3x2x9_d2", "softmax", (5, 3, 2, 9), 2, False),
    ("softmax_4x1031_d0", "softmax", (4, 1031), 0, False),
    ("softmax_17x30_d0_t", "softmax", (17, 30), 0, True),
    ("log_softmax_5x3x2x9_d1", "log_softmax", (5, 3, 2, 9), 1, False),
    ("log_softmax_64x10_d0_t", "log_softmax", (64, 10), 0, True),
    ("log_softmax_4x1031_d0_t", "log_softmax", (4, 1031), 0, True),
]

# float64 cross_entropy / nll_loss of (N, C, d...) inputs: log_softmax over dim 1
CROSS_ENTROPY64 = [
    ("ce_7x1000x5_mean", (7, 1000, 5), 0.0, False, "mean"),
    ("ce_100x10x3x4_w_none", (100, 10, 3, 4), 0.0, True, "none"),
    ("ce_2x1000x5_ls_mean", (2, 1000, 5), 0.1, False, "mean"),
    ("ce_7x33x5_w_sum", (7, 33, 5), 0.0, True, "sum"),
]

# F.linear of a 3-D input that is not contiguous (sliced): ATen's matmul, then the bias added
LINEAR_STRIDED = [
    ("linear_3x4x1_to_64", (3, 4), 1, 64),
    ("linear_2x5x7_to_13", (2, 5), 7, 13),
]


def _x(torch, rng, shape, dtype, transposed):
    if transposed:
        base = torch.tensor(rng.standard_normal(shape[::-1]) * 3, dtype=dtype, requires_grad=True)
        return base, base.t()
    base = torch.tensor(rng.standard_normal(shape) * 3, dtype=dtype, requires_grad=True)
    return base, base


def run_softmax(torch, name, fn, shape, dim, transposed):
    rng = np.random.default_rng(sum(map(ord, name)))
    x, xv = _x(torch, rng, shape, torch.float64, transposed)
    y = getattr(torch.nn.functional, fn)(xv, dim=dim)
    y.backward(torch.tensor(rng.standard_normal(shape), dtype=torch.float64))
    return {"y": y.detach().numpy(), "dx": x.grad.numpy()}


def run_cross_entropy(torch, name, shape, smoothing, weighted, reduction):
    rng = np.random.default_rng(sum(map(ord, name)))
    x = torch.tensor(rng.standard_normal(shape) * 2, dtype=torch.float64, requires_grad=True)
    target = torch.tensor(rng.integers(0, shape[1], (shape[0],) + shape[2:]))
    kw = {}
    if weighted:
        kw["weight"] = torch.tensor(rng.uniform(0.1, 2, shape[1]), dtype=torch.float64)
    loss = torch.nn.functional.cross_entropy(x, target, label_smoothing=smoothing,
                                             reduction=reduction, **kw)
    (loss.sum() if reduction == "none" else loss).backward()
    return {"loss": loss.detach().numpy(), "dx": x.grad.numpy()}


def run_linear_strided(torch, name, lead, n_in, n_out):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float32
    x = torch.tensor(rng.standard_normal(lead + (2 * n_in,)), dtype=dtype, requires_grad=True)
    w = torch.tensor(rng.uniform(-1, 1, (n_out, n_in)), dtype=dtype, requires_grad=True)
    b = torch.tensor(rng.uniform(-1, 1, n_out), dtype=dtype, requires_grad=True)
    y = torch.nn.functional.linear(x[..., ::2], w, b)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)), dtype=dtype))
    return {"y": y.detach().numpy(), "dx": x.grad.numpy(), "dw": w.grad.numpy(),
            "db": b.grad.numpy(), "node": np.array([ord(c) for c in type(y.grad_fn).__name__])}

# conv2d whose input gradient oneDNN computes with x64:gemm:jit's ("N", "T") sgemm on a
# leading dimension of 1024 positions (32 x 32 outputs): the no-copy kernel's fused chains
CONV_GEMM_LD1024 = [
    ("conv_2x2x28x28_o6_k1_p2_bias", (2, 2, 28, 28), 6, 1, 2, True),
    ("conv_2x3x28x28_o3_k1_p9_nobias", (2, 3, 14, 14), 3, 1, 9, False),
    ("conv_2x2x28x28_o6_k3_p3_bias", (2, 2, 28, 28), 6, 3, 3, True),
]


def run_conv_gemm(torch, name, shape, out_channels, k, padding, bias):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float32
    x = torch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    w = torch.tensor(rng.uniform(-1, 1, (out_channels, shape[1], k, k)), dtype=dtype,
                     requires_grad=True)
    b = torch.tensor(rng.uniform(-1, 1, out_channels), dtype=dtype) if bias else None
    y = torch.nn.functional.conv2d(x, w, b, padding=padding)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)), dtype=dtype))
    return {"y": y.detach().numpy(), "dx": x.grad.numpy()}

# float64 nn.LayerNorm: torch's kernel (Welford moments on 4-lane Vectorized<double>; the
# backward's reductions add the 4 lanes in order, vec_reduce_all having no SIMD fold for double)
LAYER_NORM64 = [
    ("ln64_3_4x5_affine", (3, 4, 5), 2, True),
    ("ln64_1_1031_plain", (1, 1031), 1, False),
    ("ln64_17_3x33_affine", (17, 3, 33), 2, True),
    ("ln64_2x5_7_affine", (2, 5, 7), 1, True),
]


def run_layer_norm64(torch, name, shape, n_norm, affine):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float64
    m = torch.nn.LayerNorm(shape[-n_norm:], elementwise_affine=affine).to(dtype)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(rng.uniform(-1, 1, tuple(p.shape)), dtype=dtype))
    x = torch.tensor(rng.standard_normal(shape) * 2, dtype=dtype, requires_grad=True)
    y = m(x)
    y.backward(torch.tensor(rng.standard_normal(shape), dtype=dtype))
    out = {"y": y.detach().numpy(), "dx": x.grad.numpy()}
    for n, p in m.named_parameters():
        out["d" + n] = p.grad.numpy()
    return out

# float64 nn.GroupNorm: torch's kernel (the same moments; the backward's per-channel sums
# with the last partial vector's products fused)
GROUP_NORM64 = [
    ("gn64_5x4x5_g4", (5, 4, 5), 4),
    ("gn64_5x16x7x3_g2", (5, 16, 7, 3), 2),
    ("gn64_2x12x4x4_g4", (2, 12, 4, 4), 4),
    ("gn64_3x6x33_g2", (3, 6, 33), 2),
]


def run_group_norm64(torch, name, shape, groups):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float64
    m = torch.nn.GroupNorm(groups, shape[1]).to(dtype)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(rng.uniform(-1, 1, tuple(p.shape)), dtype=dtype))
    x = torch.tensor(rng.standard_normal(shape) * 2, dtype=dtype, requires_grad=True)
    y = m(x)
    y.backward(torch.tensor(rng.standard_normal(shape), dtype=dtype))
    return {"y": y.detach().numpy(), "dx": x.grad.numpy(), "dweight": m.weight.grad.numpy(),
            "dbias": m.bias.grad.numpy()}

# F.scaled_dot_product_attention where torch's CPU backend choice refuses the flash kernel
# (3-D inputs, a value head dim other than the query's): the math path, q and k each scaled by
# the scale's square root, softmax, the product with v
SDPA_MATH = [
    ("sdpa_3d_3x33x8_scale", (2,), 3, 33, 8, 8, False, None, 0.3),
    ("sdpa_3d_8x8x4_causal", (1,), 8, 8, 4, 4, True, None, None),
    ("sdpa_4d_17x4x8x16_floatmask", (2, 3), 17, 4, 8, 16, False, "float", None),
    ("sdpa_3d_17x33x4x16_boolmask", (2,), 17, 33, 4, 16, False, "bool", 0.3),
    ("sdpa_4d_1x33x4x16_f64", (2, 3), 1, 33, 4, 16, False, "float", None),
]


def run_sdpa_math(torch, name, batch, q_len, kv_len, e, ev, causal, mask, scale):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float64 if name.endswith("f64") else torch.float32

    def leaf(shape):
        return torch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)

    q, k, v = leaf(batch + (q_len, e)), leaf(batch + (kv_len, e)), leaf(batch + (kv_len, ev))
    kw = {}
    if mask == "bool":
        m = rng.random((q_len, kv_len)) < 0.7
        m[:, 0] = True
        kw["attn_mask"] = torch.tensor(m)
    elif mask == "float":
        kw["attn_mask"] = torch.tensor(rng.standard_normal((q_len, kv_len)), dtype=dtype)
    y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale,
                                                         **kw)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)), dtype=dtype))
    return {"y": y.detach().numpy(), "dq": q.grad.numpy(), "dk": k.grad.numpy(),
            "dv": v.grad.numpy()}

# float64 nn.BatchNorm1d/2d: torch's kernel (the float32 one's sums and fused steps in double;
# the running variance's update not fused)
BATCH_NORM64 = [
    ("bn64_1d_8x16_train", (8, 16), True),
    ("bn64_1d_17x33_train", (17, 33), True),
    ("bn64_2d_8x33x4x8_train", (8, 33, 4, 8), True),
    ("bn64_1d_3x33x5_eval", (3, 33, 5), False),
    ("bn64_2d_17x4x1x8_eval", (17, 4, 1, 8), False),
]


def run_batch_norm64(torch, name, shape, train):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float64
    m = (torch.nn.BatchNorm2d if len(shape) == 4 else torch.nn.BatchNorm1d)(shape[1]).to(dtype)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(rng.uniform(-1, 1, tuple(p.shape)), dtype=dtype))
        m.running_mean.copy_(torch.tensor(rng.standard_normal(shape[1]), dtype=dtype))
        m.running_var.copy_(torch.tensor(rng.uniform(0.5, 2, shape[1]), dtype=dtype))
    m.train(train)
    x = torch.tensor(rng.standard_normal(shape) * 3, dtype=dtype, requires_grad=True)
    y = m(x)
    y.backward(torch.tensor(rng.standard_normal(shape), dtype=dtype))
    return {"y": y.detach().numpy(), "dx": x.grad.numpy(), "dweight": m.weight.grad.numpy(),
            "dbias": m.bias.grad.numpy(), "running_mean": m.running_mean.numpy().copy(),
            "running_var": m.running_var.numpy().copy()}

# float64 grouped convolutions: ATen's _convolution runs each group on its own (slow_conv2d on
# the group's contiguous channels, MKL's dgemm), the outputs and gradients concatenated
CONV64_GROUPS = [
    ("conv64_1d_9to3_k3_g3", 1, (3, 9, 64), 3, 3, 1, 0, 1, 3),
    ("conv64_1d_6to3_k2s2_g3", 1, (3, 6, 31), 3, 2, 2, 0, 1, 3),
    ("conv64_2d_8to4_k5s2p1_g4", 2, (3, 8, 28, 28), 4, 5, 2, 1, 1, 4),
    ("conv64_2d_4to2_k2p2d2_g2", 2, (2, 4, 28, 5), 2, 2, 1, 2, 2, 2),
    ("conv64_2d_8to16_k2p1_g4", 2, (2, 8, 16, 28), 16, 2, 1, 1, 1, 4),
]


def run_conv64_groups(torch, name, nd, shape, out_channels, k, stride, padding, dilation,
                      groups):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float64
    x = torch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    w = torch.tensor(rng.uniform(-0.5, 0.5, (out_channels, shape[1] // groups) + (k,) * nd),
                     dtype=dtype, requires_grad=True)
    b = torch.tensor(rng.uniform(-0.5, 0.5, out_channels), dtype=dtype, requires_grad=True)
    f = torch.nn.functional.conv1d if nd == 1 else torch.nn.functional.conv2d
    y = f(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)), dtype=dtype))
    return {"y": y.detach().numpy(), "dx": x.grad.numpy(), "dw": w.grad.numpy(),
            "db": b.grad.numpy()}

# F.pad(mode="circular") gradients: ATen's _pad_circular copies the wrapped slices from the
# output itself, last dim first; the backward adds a corner's contributions in that order
CIRCULAR_PAD = [
    ("circ_1x2x4x5_p1122", (1, 2, 4, 5), (1, 1, 2, 2), "f64"),
    ("circ_2x1x3x3_p1111", (2, 1, 3, 3), (1, 1, 1, 1), "f64"),
    ("circ_1x1x3x4x5_p213021", (1, 1, 3, 4, 5), (2, 1, 3, 0, 2, 1), "f32"),
    ("circ_2x3x6x7_p3223", (2, 3, 6, 7), (3, 2, 2, 3), "f32"),
]


def run_circular_pad(torch, name, shape, pad, dt):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float64 if dt == "f64" else torch.float32
    x = torch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    y = torch.nn.functional.pad(x, pad, mode="circular")
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)), dtype=dtype))
    return {"y": y.detach().numpy(), "dx": x.grad.numpy()}

# float64 transposed convolutions with dilation or groups: ATen's slow_conv_transpose2d (its
# dilated col2im / im2col), groups one by one
CONVT64 = [
    ("convT64_k3s2p1_d2", (2, 1, 8, 9), 1, 3, 2, 1, 0, 2, 1),
    ("convT64_k4s3_op1_d2", (2, 1, 5, 7), 4, 4, 3, 0, 1, 2, 1),
    ("convT64_k4s3p1_op1_g2", (2, 2, 5, 4), 4, 4, 3, 1, 1, 1, 2),
    ("convT64_k1p1_d2_g2", (2, 2, 13, 9), 4, 1, 1, 1, 0, 2, 2),
]


def run_convT64(torch, name, shape, out_channels, k, stride, padding, out_pad, dilation,
                groups):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float64
    m = torch.nn.ConvTranspose2d(shape[1], out_channels, k, stride=stride, padding=padding,
                                 output_padding=out_pad, groups=groups,
                                 dilation=dilation).to(dtype)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=dtype))
    x = torch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    y = m(x)
    y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)), dtype=dtype))
    return {"y": y.detach().numpy(), "dx": x.grad.numpy(), "dw": m.weight.grad.numpy(),
            "db": m.bias.grad.numpy()}

# cross_entropy with label smoothing and class weights, mean: the smoothing term divided by
# weight.gather(0, target[~ignored]).sum(), torch's sum of the picked weights
CE_SMOOTH_WEIGHTED = [
    ("ces_2x3x3x4_ls01_ig1", (2, 3, 3, 4), 0.1, 1, "f32"),
    ("ces_3x7x5_ls01", (3, 7, 5), 0.1, -100, "f32"),
    ("ces_4x11x6x2_ls025", (4, 11, 6, 2), 0.25, -100, "f64"),
    ("ces_64x10_ls01", (64, 10), 0.1, -100, "f32"),
]


def run_ce_smooth_weighted(torch, name, shape, smoothing, ignore_index, dt):
    rng = np.random.default_rng(sum(map(ord, name)))
    dtype = torch.float64 if dt == "f64" else torch.float32
    x = torch.tensor(rng.standard_normal(shape) * 2, dtype=dtype, requires_grad=True)
    target = torch.tensor(rng.integers(0, shape[1], (shape[0],) + shape[2:]))
    weight = torch.tensor(rng.uniform(0.1, 2, shape[1]), dtype=dtype)
    loss = torch.nn.functional.cross_entropy(x, target, weight=weight,
                                             ignore_index=ignore_index,
                                             label_smoothing=smoothing)
    loss.backward()
    return {"loss": loss.detach().numpy(), "dx": x.grad.numpy()}
