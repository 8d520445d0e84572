"""torch.prod's gradient as prod_backward writes it (grad * (result / input), no zero in the
input: gradrepl/torch/_prod_grad.py) and the value-selecting reductions' gradient
(max/min(dim), sort, topk, median, kthvalue: zeros *scattered* with the gradient, so -0.
stays -0., the double-backward node ScatterBackward0) as torch 2.13 (TSWEEP2: 10 prod and 2
sort cases of the widened sweep differed). Digests and printed values recorded from real torch
2.13 (/work/vtorch, 2 threads) on this machine; no CPU-specific library on these paths."""
from __future__ import annotations

import hashlib

import numpy as np

import gradrepl.torch as torch

REAL_PROD = "3d60cb0a 580e3cc5 3af976de a28267e6 1e6de881 52d0b005 e7b9ac8c ccbe117d c405276b " \
            "c5fb243d"


def test_prod_gradients_equal_real_torch():
    out = []
    for dt in ("float32", "float64"):
        for shp, dim in (((5, 9), None), ((5, 9), 0), ((3, 4, 5), 1), ((64, 10), -1),
                         ((1000,), None)):
            rng = np.random.default_rng(len(shp) * 10 + (dim or 0) + 3)
            mag = (rng.random(shp) + 0.5).astype(dt)
            sign = np.where(rng.random(shp) < 0.5, -1, 1).astype(dt)
            x = torch.tensor(mag * sign, requires_grad=True)
            y = x.prod() if dim is None else x.prod(dim)
            y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)).astype(dt)))
            out.append(hashlib.sha256(y.detach().numpy().tobytes() + x.grad.numpy().tobytes())
                       .hexdigest()[:8])
    assert out == REAL_PROD.split()


def test_sort_topk_median_max_keep_negative_zero_gradients():
    x = torch.tensor(np.random.default_rng(0).standard_normal((3, 4, 5)), requires_grad=True)
    y = torch.sort(x, -1, descending=True)[0] * torch.arange(5, dtype=torch.float64)
    y.backward(-torch.ones_like(y))
    # real torch 2.13: x.grad[0] has -0. where the sorted position was 0
    assert np.signbit(x.grad.numpy()[0]).tolist() == [[True] * 5] * 4
    x2 = torch.tensor(np.random.default_rng(0).standard_normal((3, 5)), requires_grad=True)
    for f in (lambda t: torch.topk(t, 2, 1)[0], lambda t: torch.median(t, 1)[0],
              lambda t: t.max(1)[0], lambda t: torch.kthvalue(t, 2, 1)[0]):
        (h,) = torch.autograd.grad((f(x2) * -0.0).sum(), x2)
        picked = h.numpy() != 0
        assert not picked.any()
        assert np.signbit(h.numpy()).sum() == 3 or np.signbit(h.numpy()).sum() == 6


def test_max_double_backward_node():
    x = torch.tensor(np.random.default_rng(0).standard_normal((3, 5)), requires_grad=True)
    v, _ = x.max(1)
    (g,) = torch.autograd.grad((v ** 3).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "ScatterBackward0"
    (g * g).sum().backward()
    assert x.grad is not None
