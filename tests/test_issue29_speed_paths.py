"""Issue 29's array shortcuts in the torch dialect give the bits of the paths they stand for:

- std/var backward without a graph to record (``_ops_shape._torch_std_vjp``/``_var_backward``
  on the arrays) against the same backward with ``create_graph=True`` (the dialect's ops);
- ``_softmax_kernels._Chain.exact``'s check of flagged midpoints element by element against the
  whole-row check it short-cuts;
- ``_gemm.gemm``'s uninitialised beta=0 result (BLAS does not read it) against a product into
  zeros (skipped without MKL).

No real torch here: the slow paths are what the bit tests check against torch's records."""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import _gemm
from gradrepl.torch import _softmax_kernels as K

F32, F64 = np.float32, np.float64


def _grad(fn, x, g, create_graph):
    x = torch.tensor(x, requires_grad=True)
    (gx,) = torch.autograd.grad(fn(x), x, torch.tensor(g), create_graph=create_graph)
    return gx.detach().numpy()


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("kind", ["std", "var"])
def test_moment_backward_on_arrays_equals_the_dialect_ops(dtype, kind):
    rng = np.random.default_rng(29)
    cases = [((32, 200), 0, True, 1), ((32, 200), 0, False, 1), ((7, 5, 3), (0, 2), True, 0),
             ((6, 4), 1, False, 1), ((9,), 0, False, 1), ((4, 3), 0, True, 2),
             ((5, 3), None, False, 1)]
    for shape, dim, keepdim, correction in cases:
        for trial in range(4):
            x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)).astype(dtype)
            if trial == 3:   # a constant column: std 0, its gradient masked to 0
                x[..., 0] = 1.5

            def fn(t):
                if dim is None:
                    return getattr(t, kind)(correction=correction)
                return getattr(t, kind)(dim, keepdim=keepdim, correction=correction)

            out_shape = fn(torch.tensor(x)).shape
            g = rng.standard_normal(tuple(out_shape)).astype(dtype)
            fast = _grad(fn, x, g, False)
            slow = _grad(fn, x, g, True)
            assert fast.dtype == slow.dtype == dtype
            assert fast.tobytes() == slow.tobytes(), (shape, dim, keepdim, correction, trial)


def _whole_row_exact(ch):
    """The check _Chain.exact made before the element-by-element shortcut."""
    s = ch.buf[:ch.k].reshape(ch.k, -1)
    tie = np.equal(np.bitwise_and(s.view(np.int64), K._LOW29), K._TIE29)
    sq = s * s
    tiny = (sq < K._TINY2) & (sq > K._ZERO)
    if not np.count_nonzero(tie | tiny):
        return True
    for k in np.flatnonzero(tie.any(axis=1) | tiny.any(axis=1)):
        a, b, c = ch.args[k]
        sk = ch.buf[k]
        if not tiny[k].any():
            p = np.multiply(a, b, dtype=F64)
            bb = sk - p
            if not np.count_nonzero(((p - (sk - bb)) + (c - bb)).reshape(-1)[tie[k]]):
                continue
        if K._fma_repaired(a, b, c).tobytes() != sk.astype(F32).tobytes():
            return False
    return True


def test_chain_midpoint_check_equals_the_whole_row_check():
    rng = np.random.default_rng(2029)
    seen = {True: 0, False: 0}
    for trial in range(3000):
        shape = (int(rng.integers(1, 9)), int(rng.integers(1, 40)))
        # float32 operands of few bits: products and sums land on float midpoints often
        a = (rng.integers(-2 ** 13, 2 ** 13, shape) * 2.0 ** -12).astype(F32)
        b = (rng.integers(-2 ** 13, 2 ** 13, (shape[0], 1)) * 2.0 ** -rng.integers(1, 14)
             ).astype(F32)
        c = (rng.integers(-2 ** 24, 2 ** 24, shape) * 2.0 ** -rng.integers(20, 40)).astype(F32)
        if trial % 3 == 0:
            c = rng.standard_normal(shape).astype(F32)
        if trial % 4 == 1:   # (1 + 2**-12)**2 + c: a float midpoint, exact only when c is 0
            a.flat[rng.integers(0, a.size)] = F32(1 + 2.0 ** -12)
            b[rng.integers(0, shape[0])] = F32(1 + 2.0 ** -12)
            c[...] = F32(rng.choice([0.0, 2.0 ** -80, -2.0 ** -80]))
        ch = K._Chain(2, shape)
        r = ch.fma(a.astype(F64), b.astype(F64), c)
        ch.fma(r.astype(F64), float(F32(0.3)), c.astype(F64))
        got = ch.exact()
        assert got == _whole_row_exact(ch), trial
        seen[got] += 1
    assert seen[True] and seen[False]   # both answers exercised


@pytest.mark.skipif(_gemm._kernel(np.dtype(F32)) is None, reason="no MKL")
def test_gemm_beta0_into_uninitialised_memory_equals_into_zeros(monkeypatch):
    class _NaNEmpty:   # numpy, whose empty() hands out memory full of NaN
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def empty(shape, dtype=float, **kw):
            return np.full(shape, np.nan, dtype)

    monkeypatch.setattr(_gemm, "np", _NaNEmpty())
    rng = np.random.default_rng(7)
    for m, k, n in [(32, 30, 200), (32, 200, 27), (1, 7, 1), (5, 3, 9), (64, 64, 64)]:
        for dt in (F32, F64):
            a = rng.standard_normal((m, k)).astype(dt)
            b = rng.standard_normal((k, n)).astype(dt)
            got = _gemm.gemm(a, b)
            # beta 1 onto -0 (x + -0 is x, -0 included): the product's own bits; and the
            # result's memory full of NaN before the call does not show through
            ref = _gemm.gemm(a, b, np.full((m, n), -0.0, dt))
            assert got.tobytes() == ref.tobytes(), (m, k, n, dt)



def test_augmented_assignment_without_gradients_skips_the_snapshot(monkeypatch):
    from gradrepl.torch import _inplace

    snaps = []
    real = _inplace.snapshot
    monkeypatch.setattr(_inplace, "snapshot", lambda x: snaps.append(1) or real(x))
    p = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    (p * p).sum().backward()
    d = p.data                       # the lecture update: p.data += -lr * p.grad
    d += -0.5 * p.grad
    assert snaps == []
    assert p.detach().numpy().tobytes() == np.array([[0.0, 0.0, 0.0]], F32).tobytes()
    assert d._version == 1 and d.grad_fn is None and not d.requires_grad
    # a tensor saved for a backward and then changed: torch's version error, as before
    x = torch.tensor([1.0, 2.0])
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (w * x).sum()
    x *= 2
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    # an operand that needs a gradient: x takes its place in the graph (the snapshot path)
    x = torch.tensor([1.0, 2.0])
    x += w
    assert snaps == [1]
    assert x.grad_fn is not None and type(x.grad_fn).__name__ == "AddBackward0"
    (x * x).sum().backward()
    assert w.grad.numpy().tolist() == [8.0, 12.0]   # 2 * (1 + 3), 2 * (2 + 4)
    # a leaf that requires grad still refuses, plain operand or not
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w += 1


def test_moment_backward_with_no_degrees_of_freedom_as_torch():
    # real torch 2.13 (recorded this session): a reduced dim keeps 2 / dof (inf at 0, -2 at
    # -1); a reduction of every dim gives inf, NaN where x equals its mean
    rows = [[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]
    inf, nan = float("inf"), float("nan")
    want = {("var", 2): [[-inf] * 3, [inf] * 3], ("std", 2): [[nan] * 3, [nan] * 3],
            ("var", 3): [[3.0, 3.0, 4.0], [-3.0, -3.0, -4.0]],
            ("std", 3): [[0.0, 0.0, 0.0], [-0.0, -0.0, -0.0]]}
    for (kind, c), grad in want.items():
        x = torch.tensor(rows, requires_grad=True)
        getattr(x, kind)(0, correction=c).sum().backward()
        got, ref = x.grad.numpy(), np.array(grad, F32)
        assert np.isnan(got).tolist() == np.isnan(ref).tolist(), (kind, c)
        ok = ~np.isnan(ref)   # (a NaN's sign bit: not recorded)
        assert got[ok].tobytes() == ref[ok].tobytes(), (kind, c)
    x = torch.tensor(rows, requires_grad=True)
    x.var(correction=6).backward()
    assert x.grad.numpy().tolist() == [[inf] * 3, [inf] * 3]
    x = torch.tensor([[2.0, 2.0], [2.0, 5.0]], requires_grad=True)
    x.var(correction=4).backward()   # x == mean (2.75)? none: all inf
    assert np.isinf(x.grad.numpy()).all()
    x = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)   # 2.0 is the mean: NaN there
    x.var(correction=3).backward()
    assert np.isnan(x.grad.numpy()).tolist() == [False, False, True]
