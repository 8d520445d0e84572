"""The cases of tests/test_torch_gemm_bits.py. Each case is run by the same code on real torch
(record.py, in the oracle) and on gradrepl.torch (the test): ``run(torch, name)`` returns the
result tensors (values and gradients) whose bytes are compared."""
import numpy as np


def _arr(rs, *shape, dtype="float32"):
    return rs.standard_normal(shape).astype(dtype)


def _t(torch, a, grad=False):
    t = torch.from_numpy(a.copy())
    if grad:
        t.requires_grad_(True)
    return t


def _mm(shape_a, shape_b, dtype="float32"):
    def case(torch, rs):
        a, b = _t(torch, _arr(rs, *shape_a, dtype=dtype)), _t(torch, _arr(rs, *shape_b, dtype=dtype))
        return [a @ b]
    return case


def _fn(name, shape_a, shape_b, dtype="float32"):
    def case(torch, rs):
        a, b = _t(torch, _arr(rs, *shape_a, dtype=dtype)), _t(torch, _arr(rs, *shape_b, dtype=dtype))
        return [getattr(torch, name)(a, b)]
    return case


def _addmm(m, k, n, dtype="float32"):
    def case(torch, rs):
        c, a, b = (_t(torch, _arr(rs, *s, dtype=dtype)) for s in ((n,), (m, k), (k, n)))
        return [torch.addmm(c, a, b)]
    return case


def _linear(xshape, out, bias=True, dtype="float32"):
    def case(torch, rs):
        x = _t(torch, _arr(rs, *xshape, dtype=dtype), True)
        w = _t(torch, _arr(rs, out, xshape[-1], dtype=dtype), True)
        b = _t(torch, _arr(rs, out, dtype=dtype), True) if bias else None
        y = torch.nn.functional.linear(x, w, b)
        (y * y).sum().backward()
        return [y, x.grad, w.grad] + ([b.grad] if bias else [])
    return case


def _mm_grad(shape_a, shape_b, dtype="float32"):
    def case(torch, rs):
        a = _t(torch, _arr(rs, *shape_a, dtype=dtype), True)
        b = _t(torch, _arr(rs, *shape_b, dtype=dtype), True)
        y = a @ b
        (y * y).sum().backward()
        return [y, a.grad, b.grad]
    return case


def _mlp(torch, rs):
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    x = _t(torch, rs.uniform(0, 1, (64, 784)).astype("float32"), True)
    out = net(x)
    (out * out).mean().backward()
    return [net(x), x.grad] + [p.grad for p in net.parameters()]


def _mlp_ce(torch, rs):
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(20, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    x = _t(torch, rs.uniform(0, 1, (8, 20)).astype("float32"), True)
    out = net(x)
    out.retain_grad()
    y = torch.from_numpy(rs.randint(0, 4, 8).astype("int64"))
    torch.nn.functional.cross_entropy(out, y).backward()
    return [out, out.grad, x.grad] + [p.grad for p in net.parameters()]


CASES = {
    "mm_6x7x9": _mm((6, 7), (7, 9)),
    "mm_64x784x10": _mm((64, 784), (784, 10)),
    "mm_128x256x120": _mm((128, 256), (256, 120)),
    "mm_3x150x576": _mm((3, 150), (150, 576)),
    "mm_500x33x17": _mm((500, 33), (33, 17)),
    "mm_f64_40x70x30": _mm((40, 70), (70, 30), "float64"),
    "mm_fn_20x300x5": _fn("mm", (20, 300), (300, 5)),
    "mm_1xk_1x2000x1": _mm((1, 2000), (2000, 1)),
    "mm_1xk_f64_1x513x1": _mm((1, 513), (513, 1), "float64"),
    "addmm_1x1_k100": _addmm(1, 100, 1),
    "bmm_small_2x4x24x4": _fn("bmm", (2, 4, 24), (2, 24, 4)),
    "bmm_small_f64_3x5x30x2": _fn("bmm", (3, 5, 30), (3, 30, 2), "float64"),
    "bmm_1x1_2x1x2000x1": _fn("bmm", (2, 1, 2000), (2, 2000, 1)),
    "bmm_col_3x2x100x1": _fn("bmm", (3, 2, 100), (3, 100, 1)),
    "matmul_grad_small_2x3x7x5": _mm_grad((2, 3, 7), (2, 7, 5)),
    "mm_row_1x300x40": _mm((1, 300), (300, 40)),
    "mm_col_40x300x1": _mm((40, 300), (300, 1)),
    "mv_50x400": _fn("mv", (50, 400), (400,)),
    "mv_f64_30x100": _fn("mv", (30, 100), (100,), "float64"),
    "vecmat_400x50": _mm((400,), (400, 50)),
    "dot_2000": _fn("dot", (2000,), (2000,)),
    "bmm_4x30x60x20": _fn("bmm", (4, 30, 60), (4, 60, 20)),
    "bmm_f64_3x10x50x7": _fn("bmm", (3, 10, 50), (3, 50, 7), "float64"),
    "matmul_bcast_2x3x16x40x8": _mm((2, 3, 16, 40), (3, 40, 8)),
    "matmul_3d_2d_5x12x90x11": _mm((5, 12, 90), (90, 11)),
    "addmm_32x100x24": _addmm(32, 100, 24),
    "addmm_f64_16x50x9": _addmm(16, 50, 9, "float64"),
    "linear_2d_64x200x30": _linear((64, 200), 30),
    "linear_nobias_20x70x13": _linear((20, 70), 13, bias=False),
    "linear_3d_4x9x50x21": _linear((4, 9, 50), 21),
    "linear_1d_120x33": _linear((120,), 33),
    "linear_f64_10x40x6": _linear((10, 40), 6, dtype="float64"),
    "mm_grad_30x80x25": _mm_grad((30, 80), (80, 25)),
    "matmul_grad_3d_3x20x50x10": _mm_grad((3, 20, 50), (3, 50, 10)),
    "mlp_784_256_10": _mlp,
    "mlp_ce_784_256_10": _mlp_ce,
}


def run(torch, name):
    rs = np.random.RandomState(sum(map(ord, name)))
    return [t.detach().numpy() for t in CASES[name](torch, rs)]
