"""torch's shape, indexing, search, reduction, statistics and creation functions beyond the core
(gradrepl/torch/_ops_shape.py). Literal expectations were recorded from real torch 2.13 (CPU) in
the session that wrote them; the others are checked against numpy."""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.torch as torch


def _np(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


# ------------------------------------------------------------------------------ wrong values fixed
def test_sort_unstable_ties_as_std_sort():
    # recorded from torch 2.13: std::sort's order of ties (introsort over 18 elements)
    x = torch.tensor([0, 1] * 9)
    assert x.sort().indices.tolist() == [2, 16, 4, 6, 14, 8, 0, 10, 12, 9, 17, 15, 13, 11, 7, 5,
                                         3, 1]
    assert x.sort(stable=True).indices.tolist() == list(range(0, 18, 2)) + list(range(1, 18, 2))
    assert x.sort(descending=True).indices.tolist() == [9, 17, 15, 13, 11, 7, 5, 3, 1, 6, 8, 0,
                                                        10, 4, 12, 14, 2, 16]


def test_take_along_dim_without_dim_is_flat():
    t = torch.tensor([[10, 30, 20], [60, 40, 50]])
    r = torch.take_along_dim(t, torch.argmax(t))
    assert r.shape == (1,) and r.tolist() == [60]


def test_normal_dtype_follows_the_tensor():
    torch.manual_seed(0)
    r = torch.normal(mean=0.5, std=torch.arange(1.0, 6.0))
    assert r.dtype == torch.float32 and r.shape == (5,)
    r = torch.normal(mean=torch.arange(1.0, 3.0), std=2.0)
    assert r.dtype == torch.float32


# ------------------------------------------------------------------------------ keyword aliases
def test_numpy_keywords():
    t = torch.arange(6.0).reshape(2, 3)
    assert t.sum(1, keepdims=True).tolist() == [[3.0], [12.0]]
    assert t.sum(axis=0).tolist() == [3.0, 5.0, 7.0]
    assert torch.mean(t, axis=1).tolist() == [1.0, 4.0]
    assert t.max(axis=1).indices.tolist() == [2, 2]
    assert torch.randn(size=(2,)).shape == (2,)
    assert torch.rand(size=(1, 2)).shape == (1, 2)
    assert torch.zeros(size=(2, 3)).shape == (2, 3)
    assert torch.empty(size=(2,)).shape == (2,)


# ------------------------------------------------------------------------------ shapes
def test_shapes():
    x = torch.arange(4).view(2, 2)
    assert torch.fliplr(x).tolist() == [[1, 0], [3, 2]]
    assert torch.flipud(x).tolist() == [[2, 3], [0, 1]]
    assert torch.rot90(x).tolist() == np.rot90(np.arange(4).reshape(2, 2)).tolist()
    assert torch.rot90(x, 3, [0, 1]).tolist() == np.rot90(np.arange(4).reshape(2, 2), 3).tolist()
    assert torch.ravel(x).tolist() == [0, 1, 2, 3]
    assert torch.atleast_3d(torch.tensor(0.5)).shape == (1, 1, 1)
    assert torch.atleast_2d(torch.arange(3)).shape == (1, 3)
    assert torch.atleast_1d() == ()
    assert torch.column_stack((torch.arange(5), torch.arange(10).reshape(5, 2))).shape == (5, 3)
    assert torch.dstack([torch.tensor([1, 2]), torch.tensor([3, 4])]).shape == (1, 2, 2)
    assert [p.shape for p in torch.hsplit(torch.arange(16.).reshape(4, 4), [3, 6])] == \
        [(4, 3), (4, 1), (4, 0)]
    with pytest.raises(RuntimeError, match="not divisible"):
        torch.vsplit(torch.zeros(4, 4), 3)
    assert torch.broadcast_shapes((2,), (3, 1), (1, 1, 1)) == torch.Size([1, 3, 2])
    a, b = torch.broadcast_tensors(torch.zeros(3, 1), torch.zeros(2))
    assert a.shape == b.shape == (3, 2)


def test_meshgrid_and_products():
    x, y = torch.tensor([1, 2, 3]), torch.tensor([4, 5])
    gx, gy = torch.meshgrid(x, y, indexing="ij")
    nx, ny = np.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    assert gx.tolist() == nx.tolist() and gy.tolist() == ny.tolist()
    gx, gy = torch.meshgrid(x, y, indexing="xy")
    nx, ny = np.meshgrid([1, 2, 3], [4, 5], indexing="xy")
    assert gx.tolist() == nx.tolist() and gy.tolist() == ny.tolist()
    assert torch.cartesian_prod(x, y).tolist() == [[1, 4], [1, 5], [2, 4], [2, 5], [3, 4], [3, 5]]
    assert torch.combinations(x).tolist() == [[1, 2], [1, 3], [2, 3]]
    assert torch.combinations(x, with_replacement=True).shape == (6, 2)


def test_block_diag_and_diagonals():
    out = torch.block_diag(torch.tensor([[0, 1], [1, 0]]), torch.tensor(7),
                           torch.tensor([1, 2]))
    assert out.tolist() == [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 7, 0, 0], [0, 0, 0, 1, 2]]
    a = torch.arange(1.0, 4.0)
    assert torch.diagflat(a, 1).tolist() == np.diagflat([1.0, 2.0, 3.0], 1).tolist()
    e = torch.diag_embed(torch.arange(6.0).reshape(2, 3))
    assert e.shape == (2, 3, 3) and e[1].tolist() == np.diag([3.0, 4.0, 5.0]).tolist()
    z = torch.zeros(3, 3)
    assert torch.diagonal_scatter(z, torch.ones(2), 1).tolist() == np.eye(3, k=1).tolist()
    assert torch.select_scatter(torch.zeros(2, 2), torch.ones(2), 0, 0).tolist() == \
        [[1.0, 1.0], [0.0, 0.0]]
    s = torch.slice_scatter(torch.zeros(4, 2), torch.ones(2, 2), start=1, step=2)
    assert s.tolist() == [[0, 0], [1, 1], [0, 0], [1, 1]]


def test_scatter_functions_grad():
    x = torch.zeros(3, 3, requires_grad=True)
    src = torch.ones(2, 3, requires_grad=True)
    y = torch.diagonal_scatter(x, torch.ones(3), 0)
    assert type(y.grad_fn).__name__ == "DiagonalScatterBackward0"
    out = torch.select_scatter(x, src[0], 0, 1)
    out.sum().backward()
    assert x.grad.tolist() == [[1, 1, 1], [0, 0, 0], [1, 1, 1]]
    assert src.grad.tolist() == [[1, 1, 1], [0, 0, 0]]


def test_as_strided_and_indices():
    x = torch.arange(9.0).reshape(3, 3)
    assert torch.as_strided(x, (2, 2), (1, 2)).tolist() == [[0.0, 2.0], [1.0, 3.0]]
    assert torch.as_strided(x, (2, 2), (1, 2), 1).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert torch.tril_indices(3, 3).tolist() == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    assert torch.triu_indices(4, 3, 1).tolist() == [[0, 0, 1], [1, 2, 2]]
    r, c = torch.unravel_index(torch.tensor([4, 7]), (3, 3))
    assert r.tolist() == [1, 2] and c.tolist() == [1, 1]
    assert torch.empty_permuted((2, 3, 5, 7), (0, 2, 3, 1)).stride() == (105, 1, 21, 3)
    assert torch.empty((2, 3, 5, 7), memory_format=torch.channels_last).stride() == \
        (105, 1, 21, 3)
    assert torch.empty_strided((2, 3), (1, 2)).stride() == (1, 2)
    assert torch.vander(torch.tensor([1, 2, 3])).tolist() == np.vander([1, 2, 3]).tolist()


# ------------------------------------------------------------------------------ search
def test_search():
    seq = torch.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
    v = torch.tensor([[3, 6, 9], [3, 6, 9]])
    assert torch.searchsorted(seq, v).tolist() == [[1, 3, 4], [1, 2, 4]]
    assert torch.searchsorted(seq, v, side="right").tolist() == [[2, 3, 5], [1, 3, 4]]
    b = torch.tensor([1, 3, 5, 7, 9])
    assert torch.bucketize(v, b, right=True).tolist() == [[2, 3, 5], [2, 3, 5]]
    assert torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2])).tolist() == [False, True, False]
    kv = torch.kthvalue(torch.arange(1.0, 6.0), 4)
    assert kv.values.item() == 4.0 and kv.indices.item() == 3
    m = torch.mode(torch.tensor([1, 2, 2, 3, 3]))
    assert m.values.item() == 2 and m.indices.item() == 2
    cm = torch.cummax(torch.tensor([1.0, 3.0, 2.0, 3.0]), 0)
    assert cm.values.tolist() == [1.0, 3.0, 3.0, 3.0] and cm.indices.tolist() == [0, 1, 1, 3]
    cm = torch.cummin(torch.tensor([2.0, 1.0, 1.0, 3.0]), 0)
    assert cm.indices.tolist() == [0, 1, 2, 2]
    u = torch.unique(torch.tensor([[1, 3, 2, 3], [1, 2, 1, 2]]), dim=1)
    assert u.tolist() == [[1, 2, 3], [1, 1, 2]]
    o, i, c = torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]),
                                       return_inverse=True, return_counts=True)
    assert o.tolist() == [1, 2, 3, 1, 2] and i.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert c.tolist() == [2, 2, 1, 2, 1]
    assert torch.nonzero_static(torch.tensor([[1, 0], [3, 2]]), size=4).tolist() == \
        [[0, 0], [1, 0], [1, 1], [-1, -1]]


def test_logcumsumexp_value_and_grad():
    a = np.array([0.3, -1.2, 2.0, 0.7], np.float64)
    x = torch.tensor(a, requires_grad=True)
    y = torch.logcumsumexp(x, 0)
    np.testing.assert_allclose(y.detach().numpy(), np.logaddexp.accumulate(a), rtol=1e-12)
    assert type(y.grad_fn).__name__ == "LogcumsumexpBackward0"
    y.sum().backward()
    e = np.exp(a)
    expect = [e[j] * sum(1 / np.exp(np.logaddexp.accumulate(a))[j:]) for j in range(4)]
    np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-10)


# ------------------------------------------------------------------------------ statistics
def test_histograms():
    h = torch.histogram(torch.tensor([1.0, 2, 1]), bins=4, range=(0.0, 3.0),
                        weight=torch.tensor([1.0, 2.0, 4.0]))
    assert h.hist.tolist() == [0.0, 5.0, 2.0, 0.0]  # torch 2.13's docstring output
    assert h.bin_edges.tolist() == [0.0, 0.75, 1.5, 2.25, 3.0]
    assert torch.histc(torch.tensor([1.0, 2, 1]), bins=4, min=0, max=3).tolist() == \
        [0.0, 2.0, 1.0, 0.0]
    assert torch.bincount(torch.tensor([4, 3, 6, 3, 4])).tolist() == [0, 0, 0, 2, 2, 0, 1]
    hd = torch.histogramdd(torch.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]]),
                           bins=[3, 3], weight=torch.tensor([1.0, 2.0, 4.0, 8.0]))
    assert hd.hist.tolist() == [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 8.0]]


def test_reductions():
    x = torch.tensor([[float("nan"), 1, 2], [1, 2, 3]])
    assert x.nanmean().item() == pytest.approx(1.8)
    assert x.nanmean(dim=0).tolist() == [1.0, 1.5, 2.5]
    assert torch.nansum(x).item() == 9.0
    assert torch.nanmedian(x).item() == 2.0
    a = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    t = torch.tensor(a)
    v, m = torch.var_mean(t, dim=0, keepdim=True)
    np.testing.assert_allclose(v.numpy(), a.var(0, ddof=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(m.numpy(), a.mean(0, keepdims=True), rtol=1e-5)
    s, _ = torch.std_mean(t, 1, correction=0)
    np.testing.assert_allclose(s.numpy(), a.std(1), rtol=1e-5)
    np.testing.assert_allclose(torch.var(t, 1, False).numpy(), a.var(1), rtol=1e-5)
    for q in (0.0, 0.3, 0.5, 1.0):
        np.testing.assert_allclose(torch.quantile(t, q, dim=1).numpy(),
                                   np.quantile(a, q, axis=1), rtol=1e-5)
    qs = torch.tensor([0.25, 0.5, 0.75])
    np.testing.assert_allclose(torch.quantile(t, qs, dim=0, keepdim=True).numpy(),
                               np.quantile(a, [0.25, 0.5, 0.75], axis=0, keepdims=True),
                               rtol=1e-5)
    assert torch.count_nonzero(torch.tensor([[0, 1], [2, 0]]), dim=(0, 1)).item() == 2


def test_cov_corrcoef_cdist():
    x = torch.tensor([[0, 2], [1, 1], [2, 0]]).T
    assert torch.cov(x).tolist() == [[1.0, -1.0], [-1.0, 1.0]]
    np.testing.assert_allclose(torch.cov(x, correction=0).numpy(),
                               [[2 / 3, -2 / 3], [-2 / 3, 2 / 3]], rtol=1e-6)
    a = np.random.default_rng(1).standard_normal((3, 6))
    np.testing.assert_allclose(torch.corrcoef(torch.tensor(a)).numpy(), np.corrcoef(a),
                               rtol=1e-10)
    fw = np.array([1, 3, 2, 1, 1, 2])
    aw = np.array([0.5, 0.1, 0.3, 1.0, 0.2, 0.4])
    np.testing.assert_allclose(torch.cov(torch.tensor(a), fweights=torch.tensor(fw),
                                         aweights=torch.tensor(aw)).numpy(),
                               np.cov(a, fweights=fw, aweights=aw), rtol=1e-10)
    p, q = np.random.default_rng(2).standard_normal((2, 30, 3))
    ref = np.sqrt(((p[:, None] - q[None]) ** 2).sum(-1))
    np.testing.assert_allclose(torch.cdist(torch.tensor(p), torch.tensor(q)).numpy(), ref,
                               rtol=1e-9)
    np.testing.assert_allclose(torch.cdist(torch.tensor(p[:4]), torch.tensor(q[:5]), p=1).numpy(),
                               np.abs(p[:4, None] - q[None, :5]).sum(-1), rtol=1e-12)


def test_trapezoid_and_products():
    y = torch.tensor([1, 5, 10])
    assert torch.trapezoid(y).item() == 10.5
    assert torch.trapezoid(y, torch.tensor([1, 3, 6])).item() == 28.5
    assert torch.cumulative_trapezoid(y, dx=2).tolist() == [6.0, 21.0]
    assert torch.trapz(torch.ones(3, 3), torch.tensor([[1, 2, 3], [1, 3, 5], [1, 4, 7]])).tolist() \
        == [2.0, 4.0, 6.0]
    a = torch.arange(60.).reshape(3, 4, 5)
    b = torch.arange(24.).reshape(4, 3, 2)
    np.testing.assert_array_equal(torch.tensordot(a, b, dims=([1, 0], [0, 1])).numpy(),
                                  np.tensordot(a.numpy(), b.numpy(), axes=([1, 0], [0, 1])))
    assert torch.addr(torch.zeros(3, 2), torch.arange(1., 4.), torch.arange(1., 3.)).tolist() == \
        [[1, 2], [2, 4], [3, 6]]
    m = torch.ones(2, 2)
    b1, b2 = torch.ones(3, 2, 4), torch.ones(3, 4, 2)
    assert torch.addbmm(m, b1, b2).tolist() == [[13.0, 13.0], [13.0, 13.0]]
    assert torch.baddbmm(torch.ones(3, 2, 2), b1, b2, beta=0.5, alpha=2).shape == (3, 2, 2)
    assert torch.addmv(torch.ones(2), torch.ones(2, 3), torch.ones(3)).tolist() == [4.0, 4.0]
    x = torch.ones(3, 3)
    x[1].fill_(2)
    x[2].fill_(3)
    r = torch.renorm(x, 1, 0, 5)
    np.testing.assert_allclose(r.numpy()[2], [5 / 3] * 3, rtol=1e-6)


# ------------------------------------------------------------------------------ indexing
def test_index_and_scatter_family():
    x = torch.zeros(5, 3)
    t = torch.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]])
    idx = torch.tensor([0, 4, 2])
    assert x.index_add(0, idx, t).tolist() == [[1, 2, 3], [0, 0, 0], [7, 8, 9], [0, 0, 0],
                                               [4, 5, 6]]
    assert x.index_copy(0, idx, t)[4].tolist() == [4, 5, 6]
    assert torch.index_fill(torch.zeros(2, 3), 1, torch.tensor([0, 2]), -1.0).tolist() == \
        [[-1, 0, -1], [-1, 0, -1]]
    src = torch.arange(1, 11).reshape(2, 5)
    index = torch.tensor([[0, 1, 2, 0]])
    out = torch.zeros(3, 5, dtype=src.dtype).scatter_(0, index, src)
    assert out.tolist() == [[1, 0, 0, 4, 0], [0, 2, 0, 0, 0], [0, 0, 3, 0, 0]]
    sa = torch.scatter_add(torch.zeros(3, 5, dtype=src.dtype), 0, index, src)
    assert sa.tolist() == [[1, 0, 0, 4, 0], [0, 2, 0, 0, 0], [0, 0, 3, 0, 0]]
    sr = torch.tensor([1.0, 2, 3, 4, 5, 6]).scatter_reduce(
        0, torch.tensor([0, 1, 0, 1, 2, 1]), torch.tensor([1.0, 2, 3, 4, 5, 6]) * 0 + 2,
        reduce="amax", include_self=False)
    assert sr.tolist() == [2.0, 2.0, 2.0, 4.0, 5.0, 6.0]
    m = torch.tensor([[0, 0, 0, 1, 1], [1, 1, 0, 1, 1]], dtype=torch.bool)
    ms = torch.zeros(2, 5).masked_scatter(m, torch.arange(10.0).reshape(2, 5))
    assert ms.tolist() == [[0, 0, 0, 0, 1], [2, 3, 0, 4, 5]]
    p = torch.tensor([[4, 9], [10, 11]]).put(torch.tensor([1, 3]), torch.tensor([9, 10]),
                                              accumulate=True)
    assert p.tolist() == [[4, 18], [10, 21]]
    ip = torch.zeros(3).index_put((torch.tensor([0, 0, 2]),), torch.tensor([1.0, 2.0, 3.0]),
                                  accumulate=True)
    assert ip.tolist() == [3.0, 0.0, 3.0]


def test_index_add_grad():
    x = torch.zeros(4, 2, requires_grad=True)
    s = torch.ones(2, 2, requires_grad=True)
    y = torch.index_add(x, 0, torch.tensor([1, 3]), s, alpha=2)
    (y * torch.arange(8.0).reshape(4, 2)).sum().backward()
    assert x.grad.tolist() == np.arange(8.0).reshape(4, 2).tolist()
    assert s.grad.tolist() == [[4.0, 6.0], [12.0, 14.0]]
