"""Issue 29, per-op overhead: the shorter paths give what the general ones give.

- ``x * c``, ``c * x``, ``x + c``, ``x - c`` with a number and a gradient to record go straight
  to the op (``_inplace.plain_number``): values, grad_fn, the graph's edges and the gradients
  equal those of the general path (``_operand_ok`` -> ``_ops.mul`` -> ``_binary_prep`` ->
  ``apply``), which the test forces by making plain_number decline.
- ``node.new_node`` (``registry.apply``'s node) equals ``GradNode(...)`` field by field.
- ``backward.SequenceQueue`` with integer keys pops in torch's order (leaves first, in arrival
  order; then the node made last).
- MKL's small-array path (no thread-count calls) gives the bits of the path with them.
"""
from __future__ import annotations

import heapq

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.engine import backward as bw
from gradrepl.engine import node as nodes
from gradrepl.engine.registry import OPS
from gradrepl.torch import _inplace, _mkl, _ops
from gradrepl.torch._base import raw


def _graph(t):
    """(grad_fn name, next_functions names, recursively) of ``t``'s graph, a few levels."""
    def walk(fn, depth):
        if fn is None or depth == 0:
            return None
        return (type(fn).__name__, tuple(walk(f, depth - 1) for f, _ in fn.next_functions))
    return walk(t.grad_fn, 4)


EXPRS = [lambda x, c: x * c, lambda x, c: c * x, lambda x, c: x + c, lambda x, c: c + x,
         lambda x, c: x - c]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_recorded_number_operators_equal_the_general_path(monkeypatch, dtype):
    rng = np.random.default_rng(29)
    for shape in [(), (1,), (7,), (3, 4)]:
        xs = rng.standard_normal(shape).astype(dtype)
        for c in [1.0001, -0.0, 0.0, 3, -2, float("inf"), float("nan")]:
            for k, f in enumerate(EXPRS):
                got = []
                for general in (False, True):
                    with monkeypatch.context() as m:
                        if general:
                            m.setattr(_inplace, "plain_number", lambda *a: None)
                        x = torch.tensor(xs, requires_grad=True)
                        mid = x * 1.5                     # a non-leaf operand as well
                        r = f(mid, c)
                        r2 = f(x, c)
                        (r.sum() + r2.sum()).backward()
                        got.append((raw(r).tobytes(), raw(r).dtype, raw(r).shape,
                                    raw(r2).tobytes(), _graph(r), _graph(r2),
                                    raw(x.grad).tobytes(), r.requires_grad, r.is_leaf))
                assert got[0] == got[1], (shape, c, k)


def test_recorded_number_operator_saves_as_the_general_path():
    """The constant operand is a tensor of x's dtype: a float32 x times 0.1 saves a float32
    0.1 (``_saved_other``), as torch's wrapped number."""
    x = torch.ones(3, requires_grad=True)
    y = x * 0.1
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert raw(y).dtype == np.float32
    assert raw(y).tobytes() == (np.ones(3, np.float32) * np.float32(0.1)).tobytes()
    y.sum().backward()
    assert raw(x.grad).tobytes() == np.full(3, np.float32(0.1)).tobytes()


def _fields(n):
    return (n.op, n.attrs, n.inputs, n.out_data, n.in_data, n._out_meta, n._in_meta,
            n.in_versions, n.edges, n.released, n.zero_from, n.order, n.label, n._out_refs)


def test_new_node_equals_the_class_call():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2) * 2.0                 # stops gradient
    c = a * 3.0                             # a non-leaf
    d = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        d.add_(1.0)                         # version 1
    op = OPS["multiply"]
    for ins in [(a,), (b,), (c,), (d,), (a, b), (b, a), (c, d), (d, c), (b, b), (a, a)]:
        arrays = tuple(raw(t) for t in ins)
        outs = (arrays[0] * 1.0,)
        old = nodes.GradNode(op, {}, ins, outs, arrays)
        new = nodes.new_node(op, {}, ins, outs, arrays)
        assert type(new) is nodes.GradNode
        assert _fields(new) == _fields(old)
        assert new.uid == old.uid + 1
    three = (a, b, c)
    n3 = nodes.new_node(op, {}, three, (raw(a),), tuple(raw(t) for t in three))
    assert n3.edges == nodes.GradNode(op, {}, three, (raw(a),)).edges


def test_sequence_queue_pops_in_torchs_order():
    """Against the queue's rule written out with tuple keys: (0, arrival) for a leaf's node,
    (1, -uid) for a node."""
    rng = np.random.default_rng(3)
    x = torch.ones(1, requires_grad=True)
    ys = [x * float(i) for i in range(12)]
    grad_nodes = [y.grad_node for y in ys]
    leaves = [torch.ones(1, requires_grad=True).accumulate_node() for _ in range(5)]
    items = grad_nodes + leaves
    for _ in range(20):
        order = list(rng.permutation(len(items)))
        q = bw.SequenceQueue()
        ref, count = [], 0
        popped, expect = [], []
        for step, i in enumerate(order):
            n = items[i]
            q.append(n)
            count += 1
            heapq.heappush(ref, ((0, count) if n.op is None else (1, -n.uid), n.uid, n))
            if step % 4 == 3:               # pops between pushes, as the engine does
                popped.append(q.popleft())
                expect.append(heapq.heappop(ref)[2])
        assert len(q) == len(ref) and bool(q)
        while q:
            popped.append(q.popleft())
            expect.append(heapq.heappop(ref)[2])
        assert popped == expect


@pytest.mark.skipif(not _mkl.available(), reason="MKL (the exact extra) is not installed")
@pytest.mark.parametrize("name", sorted(_mkl.FUNCS))
def test_mkl_small_arrays_equal_the_thread_count_path(monkeypatch, name):
    f = _mkl.function(name)
    rng = np.random.default_rng(7)
    for dtype in (np.float32, np.float64):
        for shape in [(), (1,), (5,), (255,), (256,), (257,), (16, 16), (3, 7)]:
            x = (rng.random(shape) * 1.8 - 0.9).astype(dtype)
            cases = [x, np.asarray(x.T)]
            if x.ndim == 2:
                cases.append(x.T)            # not contiguous
            for v in cases:
                small = f(v)
                with monkeypatch.context() as m:
                    m.setattr(_mkl, "_SMALL", -1)
                    general = f(v)
                assert small.shape == general.shape == v.shape
                assert small.dtype == general.dtype
                assert small.tobytes() == general.tobytes(), (name, dtype, shape)
                if v.size:
                    assert small.flags.c_contiguous


@pytest.mark.skipif(not _mkl.available(), reason="MKL (the exact extra) is not installed")
@pytest.mark.parametrize("name", sorted(_mkl.FUNCS))
def test_unary_ops_small_vml_forward_equals_the_general_one(name):
    """The torch ops' own small-array VML call (``_ops._small_vml``: no argtypes, GIL kept)
    against ``_mkl.function``'s path with the thread-count calls, NaNs and infinities in."""
    op = getattr(getattr(_ops, name, None), "_op", None)
    if op is None or getattr(op.forward, "__wrapped__", None) is None:
        pytest.skip(f"torch.{name} is not a _ops._unary op with an MKL forward")
    f = _mkl.function(name)
    rng = np.random.default_rng(11)
    for dtype in (np.float32, np.float64):
        for shape in [(), (1,), (4,), (256,), (3, 7)]:
            x = (rng.random(shape) * 1.8 - 0.9).astype(dtype)
            if x.size >= 4:
                x.reshape(-1)[:4] = [np.nan, -np.inf, np.inf, -0.0]
            with pytest.MonkeyPatch.context() as m:
                m.setattr(_mkl, "_SMALL", -1)
                general = f(x)
            got = op.forward(x)
            assert got.dtype == general.dtype and got.shape == general.shape
            assert got.tobytes() == general.tobytes(), (name, dtype, shape)


def test_binary_ufunc_of_equals_the_ops_forward():
    """``_ops.UFUNC_OF`` (what the operators' fast entries call) against ADD's, SUB's and MUL's
    forward with the run quiet, the first operand C-contiguous, the second of every layout:
    the same bytes, dtype, shape and strides (NaNs of both signs, infinities, -0, subnormals)."""
    from gradrepl.engine.ops._util import quiet_fp

    rng = np.random.default_rng(5)
    special = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 1e-45, 3.4e38]
    with quiet_fp():
        for op, uf in _ops.UFUNC_OF.items():
            for dtype in (np.float32, np.float64):
                a = rng.standard_normal((4, 6)).astype(dtype)
                a.reshape(-1)[:7] = special
                for b in (rng.standard_normal((4, 6)).astype(dtype),
                          np.ascontiguousarray(rng.standard_normal((6, 4)).astype(dtype)).T,
                          rng.standard_normal(6).astype(dtype), np.asarray(0.5, dtype),
                          np.asarray(-np.nan, dtype), np.asarray(np.inf, dtype),
                          np.flip(a, 1), a):
                    ref, got = op.forward(a, b), uf(a, b)
                    assert got.dtype == ref.dtype and got.shape == ref.shape
                    assert got.strides == ref.strides
                    assert got.tobytes() == ref.tobytes(), (op.name, dtype)
                one = np.asarray([1.5], dtype)
                for c in special:
                    b = np.asarray(c, dtype)
                    assert uf(one, b).tobytes() == op.forward(one, b).tobytes()


def test_release_lets_go_as_let_go():
    """``GradNode.release`` (``_let_go`` written out) against ``node._let_go`` on the same node:
    small arrays stay as their own metadata, a large one leaves (shape, dtype) behind, fixed
    metadata lets the arrays go."""
    op = OPS["multiply"]
    small = np.ones(3, np.float32)
    large = np.ones(nodes.KEEP_BYTES, np.float32)
    for ins_arrays, out_arrays, fix_in, fix_out in [
            ((small, small), (small,), False, False), ((small, large), (small,), False, False),
            ((small, small), (large,), False, False), ((large,), (large,), True, False),
            ((small,), (small,), False, True), ((small, small), (small,), True, True)]:
        ins = tuple(torch.tensor(a, requires_grad=bool(k % 2)) for k, a in enumerate(ins_arrays))
        made = []
        for _ in range(2):
            n = nodes.new_node(op, {}, ins, out_arrays, ins_arrays)
            if fix_in:
                n.in_meta = nodes.meta_of(ins_arrays)
            if fix_out:
                n.out_meta = nodes.meta_of(out_arrays)
            made.append(n)
        made[0].release()
        n = made[1]
        n.in_data, n._in_meta = nodes._let_go(n.in_data, n._in_meta)
        n.out_data, n._out_meta = nodes._let_go(n.out_data, n._out_meta)
        n._forget_inputs()
        n.released = True
        a, b = made
        assert (a.in_data, a._in_meta, a.out_data, a._out_meta, a.inputs, a.released) == \
            (b.in_data, b._in_meta, b.out_data, b._out_meta, b.inputs, b.released)
        assert [r() if r is not None else None for r in getattr(a, "input_refs", ())] == \
            [r() if r is not None else None for r in getattr(b, "input_refs", ())]
