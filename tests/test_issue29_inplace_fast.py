"""Issue 29: ``x += y`` / ``-=`` / ``*=`` and ``add_`` / ``sub_`` / ``mul_`` computed straight into
x's memory when nothing is recorded (``_inplace.plain_binary``: ``p.data += -lr * p.grad`` cost
about as much as three ops) give the bytes, the version counter and the errors of the general
path (the op, then a write into x), which the bit tests check against torch's records. The
general path is forced by emptying ``_inplace._UFUNCS``. Also ``randint`` after its count
shortcut, against values recorded from real torch (no real torch imported here)."""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import _inplace
from gradrepl.torch._base import raw

F32, F64 = np.float32, np.float64

_OPS = {
    "iadd": lambda x, o: x.__iadd__(o), "isub": lambda x, o: x.__isub__(o),
    "imul": lambda x, o: x.__imul__(o), "add_": lambda x, o: x.add_(o),
    "sub_": lambda x, o: x.sub_(o), "mul_": lambda x, o: x.mul_(o),
}


def _values(rng, shape, dtype):
    """Normal values with the edge cases mixed in: both zeros, both infinities, NaNs of both
    signs, subnormals, huge values (overflow on add and multiply)."""
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(dtype)
    tiny = np.finfo(dtype).smallest_subnormal
    edge = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, tiny, -tiny * 3,
                     np.finfo(dtype).max, -np.finfo(dtype).max], dtype)
    flat = x.reshape(-1)
    k = min(flat.size, edge.size)
    pos = rng.choice(flat.size, k, replace=False) if flat.size else []
    flat[pos] = edge[rng.permutation(edge.size)[:k]]
    return x


def _run(general, monkeypatch, make, op, other):
    with monkeypatch.context() as m:
        if general:
            m.setattr(_inplace, "_UFUNCS", {})
        x = make()
        v0 = x._version
        r = _OPS[op](x, other() if callable(other) else other)
        return raw(x).tobytes(), raw(x).shape, x._version - v0, r is x


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("op", list(_OPS))
def test_fast_inplace_equals_the_general_path(monkeypatch, dtype, op):
    rng = np.random.default_rng(2029)
    for shape in [(), (1,), (7,), (30, 200), (4, 5)]:
        for trial in range(3):
            xs = _values(rng, shape, dtype)
            ys = _values(rng, shape, dtype)
            numbers = [float(rng.standard_normal()), -0.0, 0.1, 3, -7, float("nan"), 1e40,
                       float("inf"), 2 ** 70]
            others = [lambda: torch.tensor(ys)] + numbers
            for other in others:
                make = (lambda: torch.tensor(xs))
                fast = _run(False, monkeypatch, make, op, other)
                slow = _run(True, monkeypatch, make, op, other)
                assert fast == slow, (shape, other)


@pytest.mark.parametrize("op", ["iadd", "isub", "imul", "add_"])
def test_fast_inplace_on_views_and_aliases(monkeypatch, op):
    """Views (a transposed matrix, a slice of a matrix whose base counts versions too) and an
    operand overlapping x's own memory give the general path's bytes and versions."""
    rng = np.random.default_rng(7)
    base = _values(rng, (6, 5), F32)

    def cases():
        b = torch.tensor(base)
        yield b.t(), torch.tensor(np.ascontiguousarray(base.T[::-1]))
        b = torch.tensor(base)
        yield b[1:], b[:-1]           # x and other share memory, shifted by a row
        b = torch.tensor(base)
        yield b, b                    # x op= x
        b = torch.tensor(base)
        yield b[:, 1], b[:, 2]

    for k in range(4):
        outs = []
        for general in (False, True):
            with monkeypatch.context() as m:
                if general:
                    m.setattr(_inplace, "_UFUNCS", {})
                x, other = list(cases())[k]
                root = x._alias if getattr(x, "_alias", None) is not None else x
                v0, r0 = x._version, root._version
                _OPS[op](x, other)
                outs.append((raw(root).tobytes(), raw(x).tobytes(), x._version - v0,
                             root._version - r0))
        assert outs[0] == outs[1], k


def test_recorded_cases_keep_the_general_path():
    """What records (a tensor needing a gradient, grad mode on) still takes its place in the
    graph or raises torch's leaf error; under no_grad a leaf that requires grad is updated."""
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w += 1.0
    h = w * 2
    h += torch.tensor([0.5, 0.5])
    assert type(h.grad_fn).__name__ == "AddBackward0"
    h.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]
    g = torch.tensor([1.0, 1.0])
    g += w                            # other needs a gradient: recorded
    assert g.requires_grad and type(g.grad_fn).__name__ == "AddBackward0"
    with torch.no_grad():
        v0 = w._version
        w -= torch.tensor([0.25, 0.5])
        w.mul_(2.0)
    assert w.tolist() == [1.5, 3.0] and w._version == v0 + 2 and w.grad_fn is None


def test_data_update_of_a_parameter():
    """The lecture update ``p.data += -lr * p.grad`` writes p's own memory (p sees it)."""
    p = torch.tensor([[1.0, -2.0], [0.5, 4.0]], requires_grad=True)
    (p * p).sum().backward()
    before = raw(p)
    p.data += -0.1 * p.grad
    assert raw(p) is before
    expect = np.array([[1.0, -2.0], [0.5, 4.0]], F32)
    expect = expect + (F32(-0.1) * (2 * expect))
    assert raw(p).tobytes() == expect.tobytes()


def test_randint_draws_after_the_count_shortcut():
    """``_random`` counts a tuple shape by ``math.prod`` (numpy's prod cost a third of a small
    randint) and keeps the raw draws without a copy: the values are real torch 2.13's (recorded
    in this session with ``torch.Generator().manual_seed(2147483647)``), a 0-d draw included."""
    g = torch.Generator().manual_seed(2147483647)
    assert torch.randint(0, 27, (8,), generator=g).tolist() == [0, 26, 16, 12, 5, 9, 8, 19]
    assert torch.randint(3, 1000, (2, 3), generator=g).tolist() == [[267, 906, 148],
                                                                   [783, 986, 737]]
    assert torch.randint(0, 2 ** 40, (3,), generator=g).tolist() == [288403994336,
                                                                     138193730091, 750737445684]
    z = torch.randint(0, 5, (), generator=g)
    assert z.shape == () and z.tolist() == 3
    i32 = torch.randint(-4, 4, (4,), generator=g, dtype=torch.int32)
    assert i32.dtype == torch.int32 and i32.tolist() == [-2, -4, 2, -1]


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("op", list(_OPS))
def test_fast_inplace_nan_signs(monkeypatch, dtype, op):
    """NaN meeting NaN of the other sign, NaN against inf, inf - inf: the in-place ufunc keeps
    the NaN the general path's ufunc gives (numpy's loops may differ in which operand's NaN
    they keep), in the vector body and the scalar tail (37 values)."""
    nan, inf = np.nan, np.inf
    xs = np.array([nan, -nan, nan, -nan, 1.0, inf, -inf, 0.0, -nan, 2.0] * 3
                  + [nan, -nan, inf, -inf, 0.0, -0.0, 3.0], dtype)
    ys = np.array([-nan, nan, nan, -nan, nan, -inf, inf, -nan, 5.0, -nan] * 3
                  + [-nan, nan, inf, inf, inf, -0.0, -nan], dtype)
    for other in (lambda: torch.tensor(ys), float("nan"), -float("nan")):
        make = (lambda: torch.tensor(xs))
        assert _run(False, monkeypatch, make, op, other) == \
            _run(True, monkeypatch, make, op, other)


def test_the_fast_path_is_taken_where_nothing_is_recorded():
    """The comparisons above would pass trivially if the fast path were never taken."""
    from gradrepl.torch import _ops

    x, y = torch.ones(3), torch.ones(3)
    assert _inplace.plain_binary(x, y, _ops.add) is x and x.tolist() == [2.0, 2.0, 2.0]
    assert _inplace.plain_binary(x, 0.5, _ops.mul) is x and x.tolist() == [1.0, 1.0, 1.0]
    w = torch.ones(3, requires_grad=True)
    assert _inplace.plain_binary(x, w, _ops.add) is None          # other needs a gradient
    assert _inplace.plain_binary(w, y, _ops.add) is None          # a leaf that requires grad
    assert _inplace.plain_binary(torch.ones(3, 2), y, _ops.add) is None   # broadcast: general
    assert _inplace.plain_binary(torch.ones(3, dtype=torch.int64), 1, _ops.add) is None
    with torch.no_grad():
        assert _inplace.plain_binary(w, y, _ops.sub) is w and w.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dtype", [F32, F64])
def test_number_operators_without_a_node_equal_the_general_path(monkeypatch, dtype):
    """``x * 2.0``, ``0.1 * x``, ``x + 1``, ``x - 0.5`` (``_inplace.plain_number``, nothing
    recorded) against the op path (forced by making plain_number decline): bytes, dtype,
    shape (a 0-d tensor stays 0-d), no grad_fn; a tensor that requires grad still records."""
    rng = np.random.default_rng(11)
    exprs = [lambda x, c: x * c, lambda x, c: c * x, lambda x, c: x + c, lambda x, c: c + x,
             lambda x, c: x - c]
    for shape in [(), (1,), (37,), (6, 5)]:
        xs = _values(rng, shape, dtype)
        for c in [0.1, -0.0, 3, -7, float("nan"), -float("nan"), float("inf"), 1e40]:
            for k, f in enumerate(exprs):
                outs = []
                for general in (False, True):
                    with monkeypatch.context() as m:
                        if general:
                            m.setattr(_inplace, "plain_number", lambda *a: None)
                        r = f(torch.tensor(xs), c)
                        outs.append((raw(r).tobytes(), raw(r).dtype, raw(r).shape,
                                     r.grad_fn is None, r.requires_grad))
                assert outs[0] == outs[1], (shape, c, k)
    w = torch.ones(2, requires_grad=True)
    assert type((w * 2.0).grad_fn).__name__ == "MulBackward0"
    assert _inplace.plain_number(torch.ones(2), 2.0, np.multiply) is not None
    # with a gradient to record it is the op itself (tests/test_issue29_per_op.py compares)
    assert type(_inplace.plain_number(w, 2.0, np.multiply).grad_fn).__name__ == "MulBackward0"
