"""The engine in named phases (issue 22): backward.py reads as the guide's algorithm, and each
event the pictures show can be traced to the function that made it (``phase_source``).

The numbers are the Paddle guide's example two as real Paddle 2.2.1 printed them in the first
seed article: a.grad 20, b.grad 8, c.grad 4, d.grad 10.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import re

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.engine import backward as bw
from gradrepl.engine import events as ev
from gradrepl.engine import grad_mode

SOURCE = inspect.getsource(bw)


def _example_two():
    a = paddle.to_tensor(2.0, stop_gradient=False)
    b = paddle.to_tensor(5.0, stop_gradient=False)
    c = a * b
    d = paddle.to_tensor(4.0, stop_gradient=False)
    e = c * d
    return a, b, c, d, e


def _stream(events):
    """(event, before, after) for each event of a stream."""
    return [(e, events[i - 1] if i else None, events[i + 1] if i + 1 < len(events) else None)
            for i, e in enumerate(events)]


def test_no_function_in_the_engine_is_longer_than_sixty_lines():
    long = [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(ast.parse(SOURCE))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.end_lineno - n.lineno + 1 > 60]
    assert long == []


def test_the_module_docstring_names_functions_that_exist():
    named = set(re.findall(r"``([a-z_]+)``", bw.__doc__))
    phases = {"count_dependencies", "seed_roots", "run_node", "send_gradients",
              "accumulate_into_leaf", "release", "iter_backward", "prune_to_inputs",
              "capture_outputs", "output_hooks", "leaf_hooks", "link_saved_inputs",
              "phase_source", "hand_over", "run_backward"}
    assert phases <= named
    for name in named & set(dir(bw)):
        assert callable(getattr(bw, name)) or name.isupper()
    assert [n for n in phases if not inspect.isfunction(getattr(bw, n))] == []


def test_every_event_class_has_a_phase_that_builds_it():
    kinds = {c for c in vars(ev).values() if inspect.isclass(c) and dataclasses.is_dataclass(c)}
    assert set(bw.PHASE_OF_EVENT) == kinds
    for kind, fn in bw.PHASE_OF_EVENT.items():
        assert inspect.getmodule(fn) is bw
        assert f"ev.{kind.__name__}(" in inspect.getsource(fn), (kind, fn)


def test_phase_source_gives_name_line_and_lines_of_the_file():
    name, first, lines = bw.phase_source(ev.DepsCounted({}))
    assert name == "count_dependencies"
    assert lines[0] == "def count_dependencies(state, roots):"
    file_lines = SOURCE.splitlines()
    assert file_lines[first - 1:first - 1 + len(lines)] == lines
    assert "ev.DepsCounted(" in "\n".join(lines)


def test_example_two_each_event_traced_to_the_code_that_made_it():
    paddle.profiles.set_profile("2.2")
    a, b, c, d, e = _example_two()
    events = list(bw.iter_backward([e], [paddle.ones([1])], trace=True, retain_nonleaf=True))
    phases = []
    for event, before, after in _stream(events):
        name, first, lines = bw.phase_source(event, before, after)
        assert f"ev.{type(event).__name__}(" in "\n".join(lines)
        phases.append((type(event).__name__, name))
    assert phases == [
        ("DepsCounted", "count_dependencies"),
        ("Seeded", "seed_roots"),
        ("Ready", "seed_roots"),
        ("Run", "run_node"),
        ("Accumulate", "send_gradients"), ("DepDec", "send_gradients"),
        ("Ready", "send_gradients"),
        ("Accumulate", "send_gradients"), ("DepDec", "send_gradients"),
        ("Ready", "send_gradients"),
        ("Released", "release"),
        ("Run", "run_node"),
        ("Accumulate", "send_gradients"), ("DepDec", "send_gradients"),
        ("Ready", "send_gradients"),
        ("Accumulate", "send_gradients"), ("DepDec", "send_gradients"),
        ("Ready", "send_gradients"),
        ("Released", "release"),
        ("Accumulate", "accumulate_into_leaf"),
        ("Accumulate", "accumulate_into_leaf"),
        ("Accumulate", "accumulate_into_leaf"),
    ]
    # the seed article's numbers (real Paddle 2.2.1)
    assert [t.grad.numpy().tolist() for t in (a, b, c, d)] == [[20.0], [8.0], [4.0], [10.0]]


def test_an_accumulate_into_a_leafs_buffer_is_send_gradients_when_a_depdec_follows():
    paddle.profiles.set_profile("2.6")
    a, b, c, d, e = _example_two()
    events = list(bw.iter_backward([e], [paddle.ones([])], trace=True))
    into_d = [(x, bf, af) for x, bf, af in _stream(events)
              if isinstance(x, ev.Accumulate) and x.target.op is None
              and x.target.leaf is d]
    assert [bw.phase_of(x, bf, af).__name__ for x, bf, af in into_d] == [
        "send_gradients", "accumulate_into_leaf"]


def test_paddle_grad_capture_is_traced_to_capture_outputs():
    paddle.profiles.set_profile("2.6")
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * x
    z = (y * 3).sum()
    gen = bw.iter_backward([z], [paddle.ones([])], trace=True, inputs=[y, x])
    events = []
    try:
        while True:
            events.append(next(gen))
    except StopIteration as stop:
        results = stop.value
    captured = [e for e in events if isinstance(e, ev.Captured)]
    assert [(e.index, e.grad.numpy().tolist()) for e in captured] == [
        (0, [3.0, 3.0]), (1, [6.0, 12.0])]
    assert {bw.phase_source(e)[0] for e in captured} == {"capture_outputs"}
    assert [r.numpy().tolist() for r in results] == [[3.0, 3.0], [6.0, 12.0]]
    assert x.grad is None  # captured, not accumulated


def test_events_before_an_error_are_still_handed_over():
    """A node refused after paddle.grad captured its gradient: the Captured event comes out,
    then the error, as when the engine yielded event by event."""
    paddle.profiles.set_profile("2.6")
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = paddle.tanh(x * x)
    z = (y * 2).sum()

    def refuse(node):
        return RuntimeError("refused " + node.op.name) if node.op.name == "tanh" else None

    gen = bw.iter_backward([z], [paddle.ones([])], trace=True, inputs=[y, x], refuse=refuse)
    seen = []
    with pytest.raises(RuntimeError, match="refused tanh"):
        for event in gen:
            seen.append(event)
    assert isinstance(seen[-1], ev.Captured) and seen[-1].grad.numpy().tolist() == [2.0, 2.0]


def test_hooks_and_event_consumers_run_in_the_callers_grad_mode():
    """The engine runs VJPs with grad mode = create_graph; a hook, and whoever consumes the
    events between steps, see the caller's mode; afterwards it is restored."""
    paddle.profiles.set_profile("2.6")
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * x
    modes = []
    y.register_hook(lambda g: modes.append(grad_mode.STATE.enabled))
    z = y.sum()
    for _event in bw.iter_backward([z], [paddle.ones([])], trace=True):
        modes.append(grad_mode.STATE.enabled)
    assert modes and set(modes) == {True}
    assert grad_mode.STATE.enabled is True
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_module_names_the_shell_and_dialects_use_still_exist():
    for name in ("iter_backward", "run_backward", "GraphFreedError", "InplaceModifiedError",
                 "TRACE_SINK", "collect_nodes", "walk_deps", "count_deps", "link_saved_inputs"):
        assert hasattr(bw, name), name
