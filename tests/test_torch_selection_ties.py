"""torch.topk / torch.kthvalue positions where values tie, and scalars written into bfloat16
tensors (TM16A, issue 28).

Found by a CS336-style script (s26: ``probs.topk(3)`` of a bigram row whose unseen tokens share
one probability printed ``indices=tensor([0, 2, 8])`` in real torch, ``[0, 2, 1]`` in gradrepl:
ATen's CPU topk picks ties in libstdc++'s nth_element/partial_sort order, not by index;
kthvalue in its own quick select's). Checking them on rows with NaN showed ``x[i] = nan`` (any
Python scalar) written into a bfloat16 tensor as garbage bits (1.5 became 9.18e-41).

Every expected value was printed by real torch 2.13.0+cpu here (/work/vtorch). None depends on
the CPU: integer-valued inputs, positions chosen by comparisons only.
"""
from __future__ import annotations

import hashlib

import numpy as np

import gradrepl.torch as torch


def test_topk_ties_in_libstdcxx_order():
    # recorded (real torch 2.13): n, k -> topk / topk(largest=False) / topk(sorted=False)
    recorded = {
        (12, 3): ([0, 2, 10], [9, 7, 8], [2, 0, 10]),
        (12, 5): ([0, 2, 10, 8, 9], [9, 7, 8, 6, 10], [10, 0, 2, 8, 9]),
        (20, 3): ([0, 2, 14], [12, 14, 13], [2, 0, 14]),
        (40, 4): ([0, 2, 26, 29], [28, 26, 27, 25], [2, 0, 26, 29]),
        (100, 3): ([0, 2, 68], [67, 66, 65], [2, 0, 68]),
        (7, 2): ([0, 2], [5, 4], [0, 2]),
    }
    for (n, k), (top, bottom, unsorted) in recorded.items():
        x = torch.zeros(n)
        x[0], x[2] = 3.0, 2.0
        assert x.topk(k).indices.tolist() == top
        assert x.topk(k, largest=False).indices.tolist() == bottom
        assert torch.topk(x, k, sorted=False).indices.tolist() == unsorted
    assert torch.tensor([1., 1., 1., 1.]).topk(2).indices.tolist() == [2, 3]
    y = torch.zeros(3, 10)
    y[:, 4] = 1
    assert y.topk(3, dim=1).indices.tolist() == [[4, 7, 6]] * 3


def test_kthvalue_ties_in_quick_select_order():
    x = torch.tensor([[1., 2., 1., 2., 1., 3.], [0., 0., 0., 0., 0., 0.]])
    assert torch.kthvalue(x, 2, dim=1).indices.tolist() == [2, 2]  # recorded
    y = torch.zeros(20)
    y[3] = 1
    assert torch.kthvalue(y, 5).indices.item() == 11  # recorded


def _selection_digest():
    """topk/kthvalue positions over 300 tie-heavy inputs (float32/float64/int64/bfloat16, NaN
    in some, both dims, largest/smallest, sorted or not), hashed."""
    rng = np.random.default_rng(2026)
    h = hashlib.sha256()
    for t in range(300):
        n = int(rng.integers(1, 200))
        rows = int(rng.integers(1, 4))
        a = rng.integers(0, int(rng.integers(1, 8)), (rows, n))
        dtype = [torch.float32, torch.float64, torch.int64, torch.bfloat16][t % 4]
        x = torch.from_numpy(a).to(dtype)
        if t % 5 == 0 and dtype.is_floating_point:
            x[0, int(rng.integers(0, n))] = float("nan")
        k = int(rng.integers(1, n + 1)) if t % 3 else min(n, int(rng.integers(1, 4)))
        largest, sorted_ = bool(t % 2), bool((t // 2) % 2)
        dim = 1
        if t % 6 == 5:
            x, dim = x.t().contiguous(), 0
        ti = torch.topk(x, k, dim=dim, largest=largest, sorted=sorted_).indices
        ki = torch.kthvalue(x, k, dim=dim).indices
        h.update(f"{t} {ti.flatten().tolist()} {ki.flatten().tolist()}".encode())
    return h.hexdigest()


def test_selection_positions_digest():
    # recorded: the same loop under real torch 2.13 (before: 15 of 300 inputs differed in gradrepl)
    assert _selection_digest() == "4d7aa0282664ed8029d591b1e391094fd4f2a8a85cdde93a53f0b169452fec58"


def test_scalars_written_into_bfloat16():
    # recorded: real torch 2.13's reprs
    x = torch.zeros(5).bfloat16()
    x[1], x[2], x[3], x[4] = 1.5, -2.0, 3, float("nan")
    x[0] = torch.tensor(7.1)
    assert repr(x) == "tensor([ 7.0938,  1.5000, -2.0000,  3.0000,     nan], dtype=torch.bfloat16)"
    x[1:3] = torch.tensor([0.1, 0.2], dtype=torch.float64)
    assert repr(x) == "tensor([7.0938, 0.1001, 0.2002, 3.0000,    nan], dtype=torch.bfloat16)"
    y = torch.zeros(3)
    y[0] = torch.tensor(2.7).bfloat16()
    y[1:] = torch.tensor([1.1, -0.3]).bfloat16()
    assert repr(y) == "tensor([ 2.7031,  1.1016, -0.3008])"
    z = torch.zeros(3, dtype=torch.int64)
    z[0] = torch.tensor(2.7).bfloat16()
    z[1] = 3.9
    assert z.tolist() == [2, 3, 0]
    m = torch.zeros(2, 2).bfloat16()
    m[m == 0] = 0.3
    m[0] = float("inf")
    assert repr(m) == ("tensor([[   inf,    inf],\n        [0.3008, 0.3008]], "
                       "dtype=torch.bfloat16)")
