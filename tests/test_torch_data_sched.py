"""``torch.utils.data`` samplers/datasets/DataLoader, ``torch.optim.lr_scheduler``,
``torch.nn.init.trunc_normal_``, ``torch.autograd`` helpers (``hvp``/``vhp``, overrides) of the
torch dialect. Index lists, learning rates and printed tensors marked "torch 2.13" were printed by
real torch 2.13 in this session for the same calls after ``torch.manual_seed(0)``.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import state as torch_state
from gradrepl.torch.optim import lr_scheduler as L
from gradrepl.torch.utils import data as D


@pytest.fixture(autouse=True)
def _fresh():
    torch_state.reset()
    torch.manual_seed(0)
    yield
    torch_state.reset()


def test_samplers_draw_as_torch():
    # torch 2.13, one after the other from manual_seed(0)
    assert list(D.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5)) == [5, 4, 4, 5, 4]
    assert list(D.WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5,
                                        replacement=False)) == [1, 4, 0, 3, 5]
    assert list(D.RandomSampler(range(10))) == [2, 6, 7, 9, 0, 4, 5, 8, 3, 1]
    assert list(D.RandomSampler(range(10), replacement=True, num_samples=40))[:8] == \
        [8, 6, 6, 1, 7, 2, 7, 7]
    assert list(D.SubsetRandomSampler([5, 6, 7, 8])) == [6, 8, 5, 7]
    assert [list(s) for s in D.random_split(range(10), [3, 7])] == \
        [[0, 2, 6], [7, 4, 5, 3, 8, 9, 1]]
    assert [list(s) for s in D.random_split(range(10), [0.3, 0.3, 0.4])] == \
        [[1, 8, 4], [3, 0, 9], [5, 6, 7, 2]]
    batches = list(D.DataLoader(range(10), batch_size=4, shuffle=True))
    assert [b.tolist() for b in batches] == [[2, 8, 1, 4], [9, 0, 6, 3], [7, 5]]


def test_batch_sampler_and_datasets():
    assert list(D.BatchSampler(D.SequentialSampler(range(10)), 3, False)) == \
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert list(D.BatchSampler(D.SequentialSampler(range(10)), 3, True)) == \
        [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    c = D.ConcatDataset([[1, 2], [3, 4, 5]])
    assert len(c) == 5 and c[2] == 3 and c[-1] == 5
    s = D.Subset([10, 11, 12, 13], [3, 0])
    assert [s[0], s[1]] == [13, 10]
    coll = D.default_collate([(1, 2.0), (3, 4.0)])
    assert coll[0].tolist() == [1, 3] and coll[1].dtype == torch.float64
    assert D.get_worker_info() is None


class _Range(D.IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        return iter(range(self.start, self.end))


def test_iterable_dataset_workers_emulated():
    ds = _Range(3, 7)
    out = [t.tolist() for t in D.DataLoader(ds, num_workers=0)]
    assert out == [[3], [4], [5], [6]]
    # two workers each iterate a copy: torch 2.13 yields every item twice, interleaved
    out = [t.tolist() for t in D.DataLoader(ds, num_workers=2)]
    assert out == [[3], [3], [4], [4], [5], [5], [6], [6]]

    def init(worker_id):
        info = D.get_worker_info()
        d = info.dataset
        per = int(math.ceil((d.end - d.start) / float(info.num_workers)))
        d.start, d.end = d.start + worker_id * per, min(d.start + worker_id * per + per, d.end)

    out = [t.tolist() for t in D.DataLoader(ds, num_workers=2, worker_init_fn=init)]
    assert out == [[3], [5], [4], [6]]


def _run(make, n=8, adam=False, metrics=None):
    p = torch.nn.Parameter(torch.zeros(1))
    o = torch.optim.Adam([p], lr=0.1) if adam else torch.optim.SGD([p], lr=0.1, momentum=0.9)
    s = make(o)
    out = []
    for i in range(n):
        o.step()
        if metrics:
            s.step(metrics[i])
        else:
            s.step()
        out.append(s.get_last_lr()[0])
    return out


def test_schedulers_chainable_values():
    # torch 2.13
    assert _run(lambda o: L.CosineAnnealingLR(o, T_max=5), 3) == \
        [0.09045084971874738, 0.06545084971874737, 0.03454915028125263]
    assert _run(lambda o: L.LinearLR(o, 0.25, 1.0, 4), 4) == \
        [0.043750000000000004, 0.06250000000000001, 0.08125000000000002, 0.10000000000000002]
    assert _run(lambda o: L.OneCycleLR(o, 0.5, total_steps=13), 3) == \
        [0.14758197423205038, 0.39468489568697174, 0.4998510357336271]
    assert _run(lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3), 4) == \
        [0.040000000000000015, 0.06999999999999999, 0.1, 0.07000000000000003]
    assert _run(lambda o: L.CosineAnnealingWarmRestarts(o, 3, 2), 4) == \
        [0.07500000000000001, 0.025000000000000012, 0.1, 0.09330127018922195]
    assert _run(lambda o: L.ReduceLROnPlateau(o, patience=1), 6,
                metrics=[1.0, 0.9, 0.95, 0.96, 0.97, 0.98]) == \
        [0.1, 0.1, 0.1, 0.010000000000000002, 0.010000000000000002, 0.0010000000000000002]
    seq = _run(lambda o: L.SequentialLR(o, [L.ConstantLR(o, 0.1, 2), L.ExponentialLR(o, 0.9)],
                                        [2]), 3)
    assert seq == [0.010000000000000002, 0.1, 0.09000000000000001]
    from gradrepl.torch.optim.lr_scheduler import TypedDict  # torch's module exports it

    assert TypedDict is not None


def test_trunc_normal_draws_as_torch():
    w = torch.empty(3, 5)
    torch.nn.init.trunc_normal_(w)
    # torch 2.13: randn's values, the one outside [-2, 2] (-2.1788) drawn again
    assert repr(w).startswith("tensor([[ 1.5410, -0.2934,  0.3731,  0.5684, -1.0845],")
    v = torch.nn.init.trunc_normal_(torch.empty(200), mean=0.5, std=2.0, a=0.0, b=1.0)
    assert float(v.min()) >= 0.0 and float(v.max()) <= 1.0


def test_hvp_vhp_and_overrides():
    from gradrepl.torch.autograd import handle_torch_function, has_torch_function, \
        is_tensor_like
    from gradrepl.torch.autograd.functional import hvp, vhp

    x = torch.tensor([[0.5, 1.0], [2.0, 3.0]])
    v = torch.ones(2, 2)
    out, h = hvp(lambda t: t.pow(3).sum(), x, v)
    np.testing.assert_allclose(h.numpy(), 6 * x.numpy(), rtol=1e-6)
    np.testing.assert_allclose(float(out), float((x.numpy() ** 3).sum()), rtol=1e-6)
    _, hv = vhp(lambda a, b: (2 * a.pow(2) + 3 * b.pow(2)).sum(),
                (torch.rand(2), torch.rand(2)), (torch.zeros(2), torch.ones(2)))
    assert hv[0].tolist() == [0.0, 0.0] and hv[1].tolist() == [6.0, 6.0]

    class TensorLike:
        @classmethod
        def __torch_function__(cls, func, types, args, kwargs):
            return -1

    assert is_tensor_like(torch.ones(1)) and is_tensor_like(TensorLike())
    assert not is_tensor_like(6) and not is_tensor_like(None)
    assert has_torch_function((TensorLike(),)) and not has_torch_function((torch.ones(1),))
    assert handle_torch_function(len, (TensorLike(),), TensorLike()) == -1
    with torch.autograd.enforce_grad_layout_policy(False):
        p = torch.ones(2, 3).requires_grad_()
        (p * 2).sum().backward()
    assert p.grad.tolist() == [[2.0] * 3] * 2
