"""Two torch layout rules found in lecture round TM12 (einsum gradients):
- AccumulateGrad's layout contract: a leaf's first .grad takes the leaf's strides (a dense leaf)
  whatever layout the incoming gradient has (a bmm's or einsum's gradient is often transposed);
  gradrepl kept the transposed array, so grad.stride() and a later grad.sum() differed;
- a full sum of a non-dense tensor (a diagonal, a column, a strided slice) reads the values where
  they lie: a strided row is torch's scalar row_sum, not the vectorized sum of a contiguous copy.
Records: real torch 2.13.0+cpu on this machine, two runs equal (np.random.default_rng(12),
standard normals, drawn in this order)."""
from __future__ import annotations

import numpy as np

from conftest import skip_unless_mkl_path

STRIDED = {  # n, dtype -> diagonal().sum(), [:, 1].sum(), [:, ::2].sum(), [:, 1].mean()
    (6, "float32"): (2.00014591217041, -4.390964984893799, -2.9790327548980713,
                     -0.7318274974822998),
    (6, "float64"): (0.1496427487692904, -0.543571811297384, 0.5875011470360709,
                     -0.09059530188289733),
    (7, "float32"): (-0.572459876537323, -3.7110543251037598, 4.046408653259277,
                     -0.5301505923271179),
    (7, "float64"): (3.142312219577098, -0.46982992911251886, -3.782059631960345,
                     -0.06711856130178841),
    (33, "float32"): (-9.079512596130371, -12.499627113342285, 26.849576950073242,
                      -0.37877658009529114),
    (33, "float64"): (-3.053542801176704, 4.708442500427581, 50.31267887594416,
                      0.14268007577053277),
    (100, "float32"): (6.819801330566406, 2.007150650024414, 0.7558460235595703,
                       0.02007150650024414),
    (100, "float64"): (16.108227061051785, -6.2127707730506, 87.22735732994926,
                       -0.062127707730506),
}


def _run():
    import gradrepl.torch as torch

    rng = np.random.default_rng(12)

    def t(shape, dt=np.float32):
        return torch.from_numpy(rng.standard_normal(shape).astype(dt))

    out = {}
    a = t((7, 300)).requires_grad_()
    b = t((9, 300)).requires_grad_()
    (a @ b.t()).backward(t((7, 9)))
    out["ab"] = (a.grad.stride(), b.grad.stride(), b.grad.sum().item(), a.grad.sum().item())
    w = t((5, 40)).t().detach().requires_grad_()
    (t((3, 40)) @ w).backward(t((3, 5)))
    out["w"] = (w.stride(), w.grad.stride())
    e = t((300, 4), np.float64).requires_grad_()
    torch.einsum("ij->j", e).backward(t((4,), np.float64))
    out["e"] = (e.grad.stride(), e.grad.sum().item())
    for n in (6, 7, 33, 100):
        for dt in (np.float32, np.float64):
            x = t((n, n), dt)
            out[(n, np.dtype(dt).name)] = (x.diagonal().sum().item(), x[:, 1].sum().item(),
                                           x[:, ::2].sum().item(), x[:, 1].mean().item())
    return out


def test_leaf_grad_takes_the_leafs_strides():
    got = _run()
    assert got["ab"][:2] == ((300, 1), (300, 1))   # real torch: (300, 1) (300, 1)
    assert got["w"] == ((1, 40), (1, 40))           # a non-contiguous leaf keeps its own
    assert got["e"][0] == (4, 1)


def test_sums_over_the_grads_equal_real_torch():
    skip_unless_mkl_path("gradients of MKL products and their sums (real torch 2.13)")
    got = _run()
    assert got["ab"][2:] == (2.2965431213378906, -112.4617919921875)
    assert got["e"][1] == 202.7646532130354


def test_strided_full_sums_equal_real_torch():
    got = _run()
    for key, want in STRIDED.items():
        assert got[key] == want, key
