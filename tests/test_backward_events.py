"""The backward engine's event stream, on the Paddle guide's example two:

    a, b, d leaves (stop_gradient=False); c = a * b; e = c * d; e.backward()

Two backward ops (MulBackward for e, then for c), accumulation nodes for a, b, d. The pictures
and the shell's %step consume exactly this sequence.
"""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.engine import events as ev
from gradrepl.engine.backward import iter_backward
from gradrepl.engine.node import AccumulateNode


def _example_two():
    a = paddle.to_tensor(2.0, stop_gradient=False)
    b = paddle.to_tensor(5.0, stop_gradient=False)
    c = a * b
    d = paddle.to_tensor(4.0, stop_gradient=False)
    e = c * d
    return a, b, c, d, e


def _describe(event, names):
    def n(node):
        if isinstance(node, AccumulateNode):
            return f"acc({names[id(node.leaf)]})"
        return f"{node.op.name}->{names[id(node.output_tensors()[0])]}"

    kind = type(event).__name__
    if isinstance(event, ev.DepsCounted):
        return kind, sorted((n(k), v) for k, v in event.deps.items())
    if isinstance(event, ev.Seeded):
        return kind, n(event.node), event.grad.data.tolist()
    if isinstance(event, (ev.Ready, ev.Released)):
        return kind, n(event.node)
    if isinstance(event, ev.Run):
        return kind, n(event.node), [g.data.tolist() for g in event.in_grads]
    if isinstance(event, ev.Accumulate):
        return kind, n(event.target), event.grad.data.tolist(), event.total.data.tolist()
    if isinstance(event, ev.DepDec):
        return kind, n(event.node), event.remaining
    return (kind,)


def test_example_two_event_sequence():
    paddle.profiles.set_profile("2.6")
    a, b, c, d, e = _example_two()
    names = {id(a): "a", id(b): "b", id(c): "c", id(d): "d", id(e): "e"}
    seed = paddle.ones([], dtype="float32")
    events = [_describe(x, names) for x in iter_backward([e], [seed], trace=True)]
    assert events == [
        ("DepsCounted", [("acc(a)", 1), ("acc(b)", 1), ("acc(d)", 1),
                         ("multiply->c", 1), ("multiply->e", 0)]),
        ("Seeded", "multiply->e", 1.0),
        ("Ready", "multiply->e"),
        ("Run", "multiply->e", [4.0, 10.0]),
        ("Accumulate", "multiply->c", 4.0, 4.0),
        ("DepDec", "multiply->c", 0),
        ("Ready", "multiply->c"),
        ("Accumulate", "acc(d)", 10.0, 10.0),
        ("DepDec", "acc(d)", 0),
        ("Ready", "acc(d)"),
        ("Released", "multiply->e"),
        ("Run", "multiply->c", [20.0, 8.0]),
        ("Accumulate", "acc(a)", 20.0, 20.0),
        ("DepDec", "acc(a)", 0),
        ("Ready", "acc(a)"),
        ("Accumulate", "acc(b)", 8.0, 8.0),
        ("DepDec", "acc(b)", 0),
        ("Ready", "acc(b)"),
        ("Released", "multiply->c"),
        ("Accumulate", "acc(d)", 10.0, 10.0),
        ("Accumulate", "acc(a)", 20.0, 20.0),
        ("Accumulate", "acc(b)", 8.0, 8.0),
    ]
    assert a.grad.item() == 20.0 and b.grad.item() == 8.0 and d.grad.item() == 10.0


def test_traced_and_untraced_backward_agree():
    """backward() drains the same generator without events: same gradients."""
    paddle.profiles.set_profile("2.2")
    a, b, c, d, e = _example_two()
    e.backward()
    plain = [t.grad.numpy().copy() for t in (a, b, c, d)]
    a2, b2, c2, d2, e2 = _example_two()
    list(iter_backward([e2], [paddle.ones([1])], trace=True, retain_nonleaf=True))
    traced = [t.grad.numpy() for t in (a2, b2, c2, d2)]
    for p, t in zip(plain, traced):
        np.testing.assert_array_equal(p, t)


def test_fan_in_waits_for_every_edge():
    """A node used twice runs once, after both gradients arrived (dependency count 2)."""
    paddle.profiles.set_profile("2.6")
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * x          # used twice below
    z = (y + y).sum()
    evs = list(iter_backward([z], [paddle.ones([])], trace=True))
    deps = evs[0].deps
    y_node = y.grad_node
    assert deps[y_node] == 2
    runs = [e.node for e in evs if isinstance(e, ev.Run)]
    assert runs.count(y_node) == 1
    ready_idx = [i for i, e in enumerate(evs) if isinstance(e, ev.Ready) and e.node is y_node]
    decs = [i for i, e in enumerate(evs) if isinstance(e, ev.DepDec) and e.node is y_node]
    assert len(decs) == 2 and ready_idx[0] > decs[1]
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0])


def test_second_backward_without_retain_graph_raises_per_profile():
    for key, exc in (("2.2", RuntimeError), ("2.6", SystemError), ("3", SystemError)):
        paddle.profiles.set_profile(key)
        x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        y = (x * x).sum()
        y.backward()
        with pytest.raises(exc, match="retain_graph"):
            y.backward()
        np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_inplace_write_to_a_saved_input_is_detected_at_backward():
    """Paddle's version counter: multiply saved y, y.add_() bumps y's version, backward refuses."""
    paddle.profiles.set_profile("3")
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2
    z = y * y
    y.add_(paddle.to_tensor([1.0, 1.0]))
    assert y.inplace_version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation. Its version is 1 "
                                           "but the expected version is 0"):
        z.sum().backward()
    assert x.grad is None


def test_inplace_write_to_an_input_whose_values_backward_ignores_is_fine():
    """exp's VJP reads only its output, so writing its input afterwards is allowed (as Paddle)."""
    paddle.profiles.set_profile("3")
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = a * 2
    c = b.exp()
    b.add_(paddle.to_tensor([1.0, 1.0]))
    c.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.exp([2.0, 4.0]), rtol=1e-6)


def test_grad_fn_name_per_profile():
    x = paddle.to_tensor([1.0], stop_gradient=False)
    paddle.profiles.set_profile("3")
    assert (x * x).grad_fn.name() == "MultiplyGradNode"
    paddle.profiles.set_profile("2.2")
    assert (x * x).grad_fn.name() == "MulBackward"
    assert x.grad_fn is None
