"""index_add / scatter_add as torch 2.13's CPU kernels add: each source value onto self in turn
(x + s0 + s4, not x + (s0 + s4); one op named IndexAddBackward0 / ScatterAddBackward0, its
gradient grad for self and grad gathered for the source; _ops_shape._add_onto_fwd). Before:
the sources were summed first, then added (TSWEEP2 widened sweep: index_add 2 cases). Digests
and node names recorded from real torch 2.13 (/work/vtorch) on this machine (no CPU-specific
library on this path)."""
from __future__ import annotations

import hashlib

import numpy as np

import gradrepl.torch as torch

REAL = ["IndexAddBackward0:ScatterAddBackward0:64505da4f3",
        "IndexAddBackward0:ScatterAddBackward0:ec7b45cc99"]


def test_index_add_scatter_add_equal_real_torch():
    out = []
    for dt in ("float32", "float64"):
        rng = np.random.default_rng(2)
        x = torch.tensor(rng.standard_normal((6, 5)).astype(dt), requires_grad=True)
        s = torch.tensor(rng.standard_normal((11, 5)).astype(dt), requires_grad=True)
        idx = torch.tensor(rng.integers(0, 6, 11))
        y = x.index_add(0, idx, s, alpha=0.5) * 1.5
        i2 = torch.tensor(rng.integers(0, 6, (11, 5)))
        z = x.scatter_add(0, i2, s)
        w = torch.scatter_add(x, 1, torch.tensor(rng.integers(0, 5, (6, 3))), s[:6, :3])
        (y.sum() + (z * z).sum() + w.sum()).backward()
        h = hashlib.sha256(y.detach().numpy().tobytes() + z.detach().numpy().tobytes() +
                           w.detach().numpy().tobytes() + x.grad.numpy().tobytes() +
                           s.grad.numpy().tobytes()).hexdigest()[:10]
        out.append(":".join([y.grad_fn.next_functions[0][0].name(), z.grad_fn.name(), h]))
    assert out == REAL
