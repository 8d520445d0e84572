"""The norm-layer cases of tests/test_torch_norm_bits.py, run the same way by real torch
(``record.py``, in the oracle venv) and by gradrepl's torch dialect: each case returns its
float32 results by label; the test compares their bytes' md5 with the recorded ones."""
import numpy as np

# (name, layer, constructor kwargs, input shape, training steps, eval passes)
BN = [
    ("bn2d_lenet", "BatchNorm2d", {}, (2, 6, 24, 24), 2, 1),
    ("bn2d_1x1x5x5", "BatchNorm2d", {}, (1, 1, 5, 5), 1, 1),
    ("bn2d_4x3x7x7", "BatchNorm2d", {}, (4, 3, 7, 7), 3, 1),
    ("bn2d_64x16x8x8", "BatchNorm2d", {}, (64, 16, 8, 8), 2, 1),
    ("bn2d_3x64x1x1", "BatchNorm2d", {}, (3, 64, 1, 1), 3, 1),
    ("bn2d_8x20x3x17", "BatchNorm2d", {"momentum": 0.3}, (8, 20, 3, 17), 2, 1),
    ("bn2d_16x9x32x32", "BatchNorm2d", {"eps": 1e-3}, (16, 9, 32, 32), 1, 1),
    ("bn2d_5x64x2x2", "BatchNorm2d", {"affine": False}, (5, 64, 2, 2), 2, 1),
    ("bn2d_2x1x32x32", "BatchNorm2d", {"momentum": None}, (2, 1, 32, 32), 3, 1),
    ("bn2d_7x13x1x9", "BatchNorm2d", {"track_running_stats": False}, (7, 13, 1, 9), 2, 1),
    ("bn2d_33x31x5x3", "BatchNorm2d", {"affine": False, "momentum": 0.7}, (33, 31, 5, 3), 2, 1),
    ("bn1d_8x4", "BatchNorm1d", {}, (8, 4), 3, 1),
    ("bn1d_3x5", "BatchNorm1d", {}, (3, 5), 2, 1),
    ("bn1d_2x7", "BatchNorm1d", {"momentum": None}, (2, 7), 3, 1),
    ("bn1d_64x32", "BatchNorm1d", {}, (64, 32), 3, 1),
    ("bn1d_100x13", "BatchNorm1d", {"affine": False}, (100, 13), 2, 1),
    ("bn1d_9x64", "BatchNorm1d", {"track_running_stats": False}, (9, 64), 2, 1),
    ("bn1d_5x8x3", "BatchNorm1d", {}, (5, 8, 3), 2, 1),
    ("bn1d_2x3x1", "BatchNorm1d", {}, (2, 3, 1), 2, 1),
    ("bn1d_4x6x31", "BatchNorm1d", {"momentum": 0.01}, (4, 6, 31), 2, 1),
    ("bn1d_64x2x9", "BatchNorm1d", {"eps": 0.1}, (64, 2, 9), 2, 1),
    ("bn1d_17x11x1", "BatchNorm1d", {}, (17, 11, 1), 2, 1),
]


# (name, normalized_shape, LayerNorm kwargs, input shape)
LN = [
    ("ln_4x10", (10,), {}, (4, 10)),
    ("ln_2x5x16", (16,), {}, (2, 5, 16)),
    ("ln_3x7x33", (33,), {}, (3, 7, 33)),
    ("ln_2x3x8x8", (8, 8), {}, (2, 3, 8, 8)),
    ("ln_8x512", (512,), {}, (8, 512)),
    ("ln_5x3", (3,), {}, (5, 3)),
    ("ln_1x1", (1,), {}, (1, 1)),
    ("ln_6x2049", (2049,), {"eps": 1e-6}, (6, 2049)),
    ("ln_3x4x300", (4, 300), {}, (3, 4, 300)),
    ("ln_noaffine_7x100", (100,), {"elementwise_affine": False}, (7, 100)),
    ("ln_nobias_2x9x24", (24,), {"bias": False}, (2, 9, 24)),
    ("ln_64x130", (130,), {}, (64, 130)),
]


def run_ln(torch, name, normalized_shape, kwargs, shape):
    """Two LayerNorm forward/backward passes (the gradients accumulate)."""
    rng = np.random.default_rng(sum(map(ord, name)))
    ln = torch.nn.LayerNorm(normalized_shape, **kwargs)
    with torch.no_grad():
        if ln.weight is not None:
            ln.weight.copy_(torch.tensor(_arr(rng, normalized_shape)))
        if ln.bias is not None:
            ln.bias.copy_(torch.tensor(_arr(rng, normalized_shape)))
    out = {}
    for step in range(2):
        x = torch.tensor(_arr(rng, shape, 2.0, 0.5), requires_grad=True)
        g = torch.tensor(_arr(rng, shape))
        y = ln(x)
        (y * g).sum().backward()
        out[f"y{step}"] = _np(y)
        out[f"gx{step}"] = _np(x.grad)
        for nm in ("weight", "bias"):
            p = getattr(ln, nm)
            if p is not None:
                out[f"g{nm}{step}"] = _np(p.grad)
    x = torch.tensor(_arr(rng, shape))
    out["functional"] = _np(torch.nn.functional.layer_norm(x, normalized_shape, eps=1e-3))
    return out


# (name, input shape, groups): F.group_norm with and without affine, F.instance_norm
GN = [
    ("gn_2x6x5x5", (2, 6, 5, 5), 3),
    ("gn_4x8x7x7", (4, 8, 7, 7), 2),
    ("gn_3x32x8x8", (3, 32, 8, 8), 8),
    ("gn_2x12x1x1", (2, 12, 1, 1), 4),
    ("gn_1x4x33", (1, 4, 33), 2),
    ("gn_5x16x3x3", (5, 16, 3, 3), 16),
    ("gn_8x20x2x9", (8, 20, 2, 9), 5),
    ("gn_3x6x17x17", (3, 6, 17, 17), 1),
    ("gn_2x40x6x6", (2, 40, 6, 6), 4),
]


def run_gn(torch, group_norm, instance_norm, name, shape, groups):
    """group_norm (affine, then none) and instance_norm (training with running statistics,
    then eval on them): outputs and gradients."""
    rng = np.random.default_rng(sum(map(ord, name)))
    c = shape[1]
    x = torch.tensor(_arr(rng, shape, 2.0, 0.5), requires_grad=True)
    w = torch.tensor(_arr(rng, (c,)), requires_grad=True)
    b = torch.tensor(_arr(rng, (c,)), requires_grad=True)
    g = torch.tensor(_arr(rng, shape))
    out = {}
    y = group_norm(x, groups, w, b, 1e-5)
    (y * g).sum().backward()
    out.update(gn_y=_np(y), gn_gx=_np(x.grad), gn_gw=_np(w.grad), gn_gb=_np(b.grad))
    x.grad = None
    y = group_norm(x, groups)
    (y * g).sum().backward()
    out.update(gn0_y=_np(y), gn0_gx=_np(x.grad))
    if int(np.prod(shape[2:])) > 1:
        x.grad = w.grad = b.grad = None
        rm, rv = torch.zeros(c), torch.ones(c)
        y = instance_norm(x, rm, rv, w, b, True, 0.1, 1e-5)
        (y * g).sum().backward()
        out.update(in_y=_np(y), in_gx=_np(x.grad), in_gw=_np(w.grad), in_gb=_np(b.grad),
                   in_rm=_np(rm), in_rv=_np(rv))
        out["in_eval_y"] = _np(instance_norm(x, rm, rv, w, b, False, 0.1, 1e-5))
    return out


def _np(t):
    return t.detach().numpy().copy()


def _arr(rng, shape, scale=1.0, shift=0.0):
    return (rng.standard_normal(shape) * scale + shift).astype(np.float32)


def run_bn(torch, name, layer, kwargs, shape, steps, evals):
    """Train ``steps`` batches then ``evals`` eval passes; every output, gradient and running
    statistic on the way, float32, by label."""
    rng = np.random.default_rng(sum(map(ord, name)))
    c = shape[1]
    bn = getattr(torch.nn, layer)(c, **kwargs)
    out = {}
    if bn.affine:
        with torch.no_grad():
            bn.weight.copy_(torch.tensor(_arr(rng, (c,))))
            bn.bias.copy_(torch.tensor(_arr(rng, (c,))))
    for step in range(steps + evals):
        if step == steps:
            bn.eval()
        x = torch.tensor(_arr(rng, shape, 3.0, 1.5), requires_grad=True)
        g = torch.tensor(_arr(rng, shape))
        y = bn(x)
        (y * g).sum().backward()
        out[f"y{step}"] = _np(y)
        out[f"gx{step}"] = _np(x.grad)
        if bn.affine:            # (accumulated over the steps)
            out[f"gw{step}"] = _np(bn.weight.grad)
            out[f"gb{step}"] = _np(bn.bias.grad)
        if bn.track_running_stats:
            out[f"rm{step}"] = _np(bn.running_mean)
            out[f"rv{step}"] = _np(bn.running_var)
    return out


def run_lenet(torch):
    """The issue's reproduction: a conv then BatchNorm2d on torch's seeded random numbers."""
    torch.manual_seed(0)
    c1 = torch.nn.Conv2d(1, 6, 5)
    bn = torch.nn.BatchNorm2d(6)
    x = torch.randn(2, 1, 28, 28)
    h = c1(x)
    h.retain_grad()
    y = bn(h)
    (y * y).sum().backward()
    out = {"y": y, "h.grad": h.grad, "bn.weight.grad": bn.weight.grad,
           "bn.bias.grad": bn.bias.grad, "running_mean": bn.running_mean,
           "running_var": bn.running_var}
    out = {k: _np(v) for k, v in out.items()}
    bn.eval()
    out["y_eval"] = _np(bn(h))
    return out


def all_cases(torch, norm_functions):
    """{case name: {label: float32 array}} for every case; ``norm_functions``: the
    (group_norm, instance_norm) functionals to test."""
    res = {"lenet": run_lenet(torch)}
    for spec in BN:
        res[spec[0]] = run_bn(torch, *spec)
    for spec in LN:
        res[spec[0]] = run_ln(torch, *spec)
    for spec in GN:
        res[spec[0]] = run_gn(torch, *norm_functions, *spec)
    return res
