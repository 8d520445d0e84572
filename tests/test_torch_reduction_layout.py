"""Reductions return contiguous tensors, as torch allocates them (TM16A, issue 28).

Found by a CS224N minBERT-style script (s34): ``pooled = e.sum(1) / mask.sum(1, keepdim=True)``
came out with strides (1, 8) in gradrepl (torch: (8, 1)), so the dropout after it (its noise
made by ``empty_like``, which keeps the layout) dropped other elements and every loss differed.
Expected strides printed by real torch 2.13.0+cpu here (/work/vtorch); they do not depend on
the CPU.
"""
from __future__ import annotations

import gradrepl.torch as torch


def test_reduction_results_are_contiguous():
    torch.manual_seed(0)
    x = torch.randn(4, 5, 6)
    # recorded: real torch 2.13 strides
    cases = {
        "sum": (x.sum(1), (6, 1)), "mean": (x.mean(1), (6, 1)), "amax": (x.amax(1), (6, 1)),
        "max": (x.max(1).values, (6, 1)), "var": (x.var(1), (6, 1)), "std": (x.std(1), (6, 1)),
        "prod": (x.prod(1), (6, 1)), "logsumexp": (x.logsumexp(1), (6, 1)),
        "norm": (x.norm(dim=1), (6, 1)), "sum0": (x.sum(0), (6, 1)),
        "mean02": (x.mean((0, 2)), (1,)), "sum_keepdim": (x.sum(1, keepdim=True), (6, 6, 1)),
        "mean_keepdim": (x.mean(1, keepdim=True), (6, 6, 1)),
    }
    for name, (r, strides) in cases.items():
        assert r.stride() == strides, name
        assert r.is_contiguous(), name


def test_masked_mean_pooling_layout():
    ids = torch.randint(0, 5, (8, 7))
    mask = (ids != 0).long()
    e = torch.nn.Embedding(5, 8)(ids) * mask[..., None]
    s, m = e.sum(1), mask.sum(1, keepdim=True)
    # recorded: (8, 1) (1, 1) (8, 1) in real torch 2.13 (gradrepl was (1, 8) (1, 1) (1, 8))
    assert (s.stride(), m.stride(), (s / m).stride()) == ((8, 1), (1, 1), (8, 1))
