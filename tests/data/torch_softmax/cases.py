"""The cases of tests/test_torch_softmax_bits.py, run the same way by real torch (``record.py``,
in the oracle venv) and by gradrepl's torch dialect: each case returns its float32 results by
label (forward output and input gradient); the test compares their bytes' md5."""
import numpy as np

# (name, function, input shape, dim, input scale[, dtype])
SOFTMAX = [
    ("sm_1x2", "softmax", (1, 2), -1, 1.0),
    ("sm_3x5", "softmax", (3, 5), 1, 3.0),
    ("sm_8x16", "softmax", (8, 16), -1, 1.0),
    ("sm_7x17", "softmax", (7, 17), -1, 10.0),
    ("sm_64x100", "softmax", (64, 100), -1, 2.0),
    ("sm_5x1000", "softmax", (5, 1000), -1, 30.0),
    ("sm_257x3", "softmax", (257, 3), -1, 0.01),
    ("sm_2x3x33", "softmax", (2, 3, 33), -1, 1.0),
    ("sm_vec_31", "softmax", (31,), 0, 4.0),
    ("lsm_1x2", "log_softmax", (1, 2), -1, 1.0),
    ("lsm_3x5", "log_softmax", (3, 5), 1, 3.0),
    ("lsm_32x10", "log_softmax", (32, 10), -1, 3.0),
    ("lsm_13x31", "log_softmax", (13, 31), -1, 3.0),
    ("lsm_100x33", "log_softmax", (100, 33), -1, 3.0),
    ("lsm_16x257", "log_softmax", (16, 257), -1, 1.0),
    ("lsm_4x999", "log_softmax", (4, 999), -1, 300.0),
    ("lsm_2x4x48", "log_softmax", (2, 4, 48), 2, 1.0),
    # another dim than the last: 16 inner positions per vector, the rest scalar
    ("sm_dim1_4x7x5", "softmax", (4, 7, 5), 1, 3.0),
    ("sm_dim1_3x20x17", "softmax", (3, 20, 17), 1, 3.0),
    ("sm_dim0_6x9", "softmax", (6, 9), 0, 3.0),
    ("sm_dim2_15x34x28x1", "softmax", (15, 34, 28, 1), 2, 0.4),
    ("sm_dim1_2x700x40", "softmax", (2, 700, 40), 1, 5.0),
    ("lsm_dim1_5x3x40", "log_softmax", (5, 3, 40), 1, 3.0),
    ("lsm_dim1_3x2644x13", "log_softmax", (3, 2644, 13), 1, 2.0),
    ("lsm_dim2_8x9x32x31", "log_softmax", (8, 9, 32, 31), 2, 5.0),
    ("lsm_dim0_33x70", "log_softmax", (33, 70), 0, 1.0),
    # float64 along the last dim: 8 double lanes, SLEEF's double exp/log
    ("sm64_7x17", "softmax", (7, 17), -1, 10.0, "float64"),
    ("sm64_64x100", "softmax", (64, 100), -1, 30.0, "float64"),
    ("lsm64_13x31", "log_softmax", (13, 31), -1, 3.0, "float64"),
    ("lsm64_5x999", "log_softmax", (5, 999), -1, 300.0, "float64"),
]

# (name, batch (or the input shape), classes, reduction, with weight, ignore_index (or None),
#  grad_output[, label_smoothing])
CROSS_ENTROPY = [
    ("ce_32x10_mean", 32, 10, "mean", False, None, 1.0),
    ("ce_7x3_mean", 7, 3, "mean", False, None, 0.37),
    ("ce_100x17_mean", 100, 17, "mean", False, None, 1.0),
    ("ce_257x5_sum", 257, 5, "sum", False, None, 2.5),
    ("ce_64x1000_mean", 64, 1000, "mean", False, None, 1.0),
    ("ce_50x20_none", 50, 20, "none", False, None, 0.5),
    ("ce_40x12_mean_w", 40, 12, "mean", True, None, 1.0),
    ("ce_33x9_sum_w", 33, 9, "sum", True, None, 1.0),
    ("ce_30x6_mean_ign", 30, 6, "mean", False, 2, 1.0),
    ("ce_21x8_none_ign_w", 21, 8, "none", True, 3, 1.5),
    ("ce_1x4_mean", 1, 4, "mean", False, None, 1.0),
    ("ce_img_4x5x6x7_mean", (4, 5, 6, 7), 5, "mean", False, None, 1.0),
    ("ce_seq_3x10x17_sum", (3, 10, 17), 10, "sum", True, None, 0.5),
    ("ce_seq_2x6x20_none_ign", (2, 6, 20), 6, "none", False, 1, 1.0),
    ("ce_32x10_mean_ls", 32, 10, "mean", False, None, 1.0, 0.1),
    ("ce_40x12_mean_w_ls", 40, 12, "mean", True, None, 1.0, 0.2),
    ("ce_30x6_sum_ign_ls", 30, 6, "sum", False, 2, 1.0, 0.05),
    ("ce64_99x712_mean", 99, 712, "mean", False, None, 2.5, 0.0, "float64"),
    ("ce64_40x12_none_w", 40, 12, "none", True, 3, 1.0, 0.0, "float64"),
]


def _rng(name):
    return np.random.default_rng(sum(ord(c) * (i + 1) for i, c in enumerate(name)))


def run_softmax(torch, name, fn, shape, dim, scale, dtype="float32"):
    rng = _rng(name)
    x = (rng.standard_normal(shape) * scale).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    xt = torch.tensor(x, requires_grad=True)
    y = getattr(torch, fn)(xt, dim)
    y.backward(torch.tensor(g))
    return {"out": y.detach().numpy().copy(), "grad": xt.grad.numpy().copy()}


def run_cross_entropy(torch, name, n, c, reduction, weighted, ignore, go, smoothing=0.0,
                      dtype="float32"):
    F = torch.nn.functional
    rng = _rng(name)
    shape = n if isinstance(n, tuple) else (n, c)  # (N, C, d1, ...) or N
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    t = rng.integers(0, c, shape[:1] + shape[2:])
    w = (rng.random(c) + 0.5).astype(dtype) if weighted else None
    kw = {"reduction": reduction}
    if smoothing:
        kw["label_smoothing"] = smoothing
    if w is not None:
        kw["weight"] = torch.tensor(w)
    if ignore is not None:
        kw["ignore_index"] = ignore
    xt = torch.tensor(x, requires_grad=True)
    loss = F.cross_entropy(xt, torch.tensor(t), **kw)
    if reduction == "none":
        loss.backward(torch.tensor(np.full(t.shape, go, dtype)))
    else:
        loss.backward(torch.tensor(np.asarray(go, dtype)))
    return {"loss": loss.detach().numpy().copy(), "grad": xt.grad.numpy().copy()}


def run_mlp(torch):
    """A small MLP (Linear-ReLU-Linear) trained 5 SGD steps with cross_entropy."""
    rng = _rng("mlp")
    nn = torch.nn
    x = torch.tensor((rng.standard_normal((32, 20))).astype(np.float32))
    t = torch.tensor(rng.integers(0, 10, 32))
    net = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 10))
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.tensor((rng.standard_normal(tuple(p.shape)) * 0.3).astype(np.float32)))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    out = {}
    for step in range(5):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(x), t)
        loss.backward()
        out[f"loss{step}"] = loss.detach().numpy().copy()
        out[f"gw{step}"] = net[2].weight.grad.numpy().copy()
        opt.step()
    for k, p in enumerate(net.parameters()):
        out[f"p{k}"] = p.detach().numpy().copy()
    return out


def all_cases(torch):
    res = {}
    for spec in SOFTMAX:
        res[spec[0]] = run_softmax(torch, *spec)
    for spec in CROSS_ENTROPY:
        res[spec[0]] = run_cross_entropy(torch, *spec)
    res["mlp"] = run_mlp(torch)
    return res
