"""Pictures of the engine (gradrepl/viz): the model, the DOT snapshots, rendering, step frames,
the ``gradrepl graph`` command."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradrepl import viz
from gradrepl.engine import events as ev
from gradrepl.viz import capture, model, render, steps
from gradrepl.viz.dot import to_dot

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "examples" / "seeds"
GRAPHS = ROOT / "examples" / "graphs"
SNAP = Path(__file__).resolve().parent / "data" / "viz"
UPDATE = os.environ.get("GRADREPL_UPDATE_SNAPSHOTS") == "1"


def picture(script, tensor, at=None, profile=None, chain=False, **kw):
    run = capture.run_for_pictures(str(script), profile=profile, at=at)
    assert run.error is None, run.error
    return viz.graph(run.namespace[tensor], namespace=run.namespace, recorder=run.recorder,
                     chain=chain, **kw)


def names(g, ids):
    by_id = g.by_id()
    return [by_id[i].name if i is not None else None for i in ids]


# ------------------------------------------------------------------ the model, as the guide
def test_example_one_model_before_backward():
    g = picture(SEEDS / "s000_example_one.py", "c", at=4).model
    a, b, c = (g.tensor_named(n) for n in "abc")
    assert (a.stop_gradient, b.stop_gradient, c.stop_gradient) == (False, True, False)
    assert a.preview == "2." and b.preview == "5." and c.preview == "10."
    assert b.grad_var is None  # the guide: b's grad_var is None, no gradient variable for it
    by_id = g.by_id()
    assert by_id[a.grad_var].name == "a_grad" and by_id[a.grad_var].data is None
    (op,) = g.ops
    assert (op.title, op.label) == ("Mul", "c = a * b")
    assert a.label == "a = paddle.to_tensor(2.0, stop_gradient=False)"
    (bw,) = g.backward_ops
    assert bw.name == "MulBackward" and bw.grad_pending_ops == []
    assert names(g, bw.inputs) == ["a", "b", "c_grad"]
    assert names(g, bw.outputs) == ["a_grad", None]
    assert by_id[c.grad_var].grad_op == bw.id and by_id[a.grad_var].grad_op is None
    assert not bw.released


def test_example_one_after_backward_fills_gradients():
    g = picture(SEEDS / "s000_example_one.py", "c").model
    by_id = g.by_id()
    grads = {v.name: v.data for v in g.grad_vars}
    assert grads == {"a_grad": "5.", "c_grad": "1."}  # 2.2 keeps the non-leaf's grad
    assert g.backward_ops[0].released
    assert by_id[g.tensor_named("c").grad_var].name == "c_grad"


def test_example_two_grad_pending_ops():
    g = picture(SEEDS / "s000_example_two.py", "e").model
    first, second = g.backward_ops
    assert names(g, first.inputs) == ["a", "b", "c_grad"]
    assert names(g, second.inputs) == ["c", "d", "e_grad"]
    assert second.grad_pending_ops == [first.id] and first.grad_pending_ops == []
    assert {v.name: v.data for v in g.grad_vars} == {
        "a_grad": "20.", "b_grad": "8.", "c_grad": "4.", "d_grad": "10.", "e_grad": "1."}


def test_profile_3_names_and_accumulation_nodes():
    g = picture(SEEDS / "s000_example_two.py", "e", profile="3").model
    kinds = [(b.name, b.kind) for b in g.backward_ops]
    assert kinds.count(("MultiplyGradNode", "op")) == 2
    assert kinds.count(("GradNodeAccumulation", "accumulate")) == 3  # a, b, d
    grads = {v.name: v.data for v in g.grad_vars}
    assert grads["c_grad"] is None  # Paddle 3 frees a non-leaf's gradient
    assert grads["a_grad"] == "20."
    second = next(b for b in g.backward_ops if b.kind == "op" and "e_grad" in names(g, b.inputs))
    pending = names(g, second.grad_pending_ops)
    assert pending.count("GradNodeAccumulation") == 1 and "MultiplyGradNode" in pending


def test_broadcast_gradient_is_reduced():
    g = picture(GRAPHS / "broadcast.py", "loss").model
    grads = {v.name: (v.shape, v.data) for v in g.grad_vars}
    assert grads["b_grad"] == ([3], "[2., 2., 2.]")
    assert grads["x_grad"] == ([2, 3], "[[1., 1., 1.], [1., 1., 1.]] (2x3)")   # whole
    add = next(o for o in g.ops if o.op == "add")
    assert names(g, add.inputs) == ["x", "b"] and add.label == "y = x + b"


def test_second_order_nodes_carry_their_order():
    g = picture(GRAPHS / "second_order.py", "dx").model
    assert g.tensor_named("dx").preview == "27."
    orders = {o.order for o in g.ops}
    assert orders == {0, 1}
    made_by_grad = [o for o in g.ops if o.order == 1]
    assert all(o.label == "(dx,) = paddle.grad(y, x, create_graph=True)" for o in made_by_grad)
    assert {b.order for b in g.backward_ops if b.kind == "op"} == {0, 1}


def test_chain_rule_lines():
    g = picture(SEEDS / "s000_example_two.py", "e", chain=True).model
    lines = [line for b in g.backward_ops for line in b.chain]
    assert "a_grad = c_grad * b = 4. * 5. = 20." in lines
    assert "d_grad = e_grad * c = 1. * 10. = 10." in lines


def test_names_fall_back_to_tmp_and_paddle_names():
    import gradrepl.paddle as paddle
    from gradrepl.paddle import state

    state.reset("2.2")
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = (x * 2.0).sum()
    g = viz.graph(y).model  # no namespace: Paddle's names for leaves, tmp_N for the rest
    assert g.tensors[0].name == "generated_tensor_0"
    assert all(t.name.startswith(("tmp_", "generated_tensor")) for t in g.tensors)
    assert y.name == "eager_tmp_0"  # drawing read no name (it would have taken eager_tmp_0)


def test_model_json_round_trip(tmp_path):
    pic = picture(SEEDS / "s000_example_two.py", "e")
    out = pic.render(tmp_path / "m.json")
    data = json.loads(out.read_text())
    assert [t["name"] for t in data["tensors"]] == ["a", "b", "c", "d", "e"]
    assert data["backward_ops"][1]["grad_pending_ops"] == ["b0"]
    assert data["profile"] == "2.2"


def test_layer_calls_collapse_and_cuts():
    pic = picture(GRAPHS / "mlp.py", "loss")
    full = pic.model
    assert any(o.layers == ["MLP model", "Linear model.fc1"] for o in full.ops)
    c = viz.transform.collapse(full)
    titles = [o.title for o in c.ops]
    assert "Linear model.fc1  (2 ops)" in titles and "Linear model.fc2  (2 ops)" in titles
    assert len(c.ops) < len(full.ops)
    fc1 = next(o for o in c.ops if o.title.startswith("Linear model.fc1"))
    assert set(names(c, fc1.inputs)) == {"x", "model.fc1.weight", "model.fc1.bias"}
    cut = viz.transform.cut_depth(full, 1)
    assert len(cut.ops) == 1 and cut.ops[0].op == "mean"
    assert any(t.cut for t in cut.tensors)
    to = viz.transform.cut_to(full, "logits")
    assert {o.op for o in to.ops} == {"cross_entropy_with_softmax", "mean"}
    with pytest.raises(ValueError, match="no tensor named 'nope'"):
        viz.transform.cut_to(full, "nope")


# ------------------------------------------------------------------ DOT snapshots
SNAPSHOTS = {
    "example_one_before": (SEEDS / "s000_example_one.py", "c", 4, {}),
    "example_one_after": (SEEDS / "s000_example_one.py", "c", None, {}),
    "example_two_before": (SEEDS / "s000_example_two.py", "e", 8, {}),
    "example_two_after": (SEEDS / "s000_example_two.py", "e", None, {"chain": True}),
    "example_two_after_p3": (SEEDS / "s000_example_two.py", "e", None, {"profile": "3"}),
    "broadcast": (GRAPHS / "broadcast.py", "loss", None, {"chain": True}),
    "second_order": (GRAPHS / "second_order.py", "dx", None, {}),
}


@pytest.mark.parametrize("name", sorted(SNAPSHOTS))
def test_dot_snapshot(name):
    script, tensor, at, kw = SNAPSHOTS[name]
    dot = picture(script, tensor, at=at, **kw).dot()
    again = picture(script, tensor, at=at, **kw).dot()
    assert dot == again  # deterministic within a process, whatever ran before
    path = SNAP / f"{name}.dot"
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dot)
        if not UPDATE:
            pytest.fail(f"snapshot {path.name} was missing; written, check it in")
    assert dot == path.read_text()


def test_dot_is_the_same_in_a_fresh_process(tmp_path):
    out = tmp_path / "e.dot"
    r = subprocess.run([sys.executable, "-m", "gradrepl", "graph",
                        str(SEEDS / "s000_example_two.py"), "--tensor", "e", "--chain",
                        "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == (SNAP / "example_two_after.dot").read_text()


def test_dot_draws_the_guides_edges():
    dot = picture(SEEDS / "s000_example_two.py", "e").dot()
    # grad_pending_ops edge in red, from the second MulBackward to the first (drawn upward)
    assert 'b0 -> b1 [color="#e8473f" constraint=false dir=back penwidth=1.5]' in dot
    assert "t0 -> g0 [arrowhead=vee color=\"#555555\" constraint=false style=dotted]" in dot
    assert "f0 -> b0 [arrowhead=vee color=\"#555555\" style=dotted]" in dot
    # the statement inside the op's box, under its name (an xlabel sat on the arrowheads)
    assert 'f0 [label=<Mul<br/><font point-size="11" color="#333333">c = a * b</font>>' in dot
    assert "xlabel" not in dot


def test_views_contain_only_their_side():
    pic = picture(SEEDS / "s000_example_two.py", "e")
    fwd = viz.Picture(pic.model, view="forward").dot()
    bwd = viz.Picture(pic.model, view="backward").dot()
    assert "MulBackward" not in fwd and "Mul" in fwd
    assert "MulBackward" in bwd and "grad_var = " not in bwd
    with pytest.raises(ValueError, match="unknown view"):
        viz.Picture(pic.model, view="sideways")


# ------------------------------------------------------------------ rendering
def _png_size(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_svg_and_png_with_graphviz_pure():
    pic = picture(SEEDS / "s000_example_two.py", "e")
    svg = pic.svg(prefer="pure")
    assert "<svg" in svg and "MulBackward" in svg and "a_grad" in svg and "graphviz-pure" in svg
    w, h = _png_size(pic.png(prefer="pure"))
    assert w > 400 and h > 400


@pytest.mark.skipif(shutil.which("dot") is None, reason="no system Graphviz dot on PATH")
def test_svg_png_pdf_with_system_dot():
    pic = picture(SEEDS / "s000_example_two.py", "e")
    svg = pic.svg(prefer="system")
    assert "<svg" in svg and "MulBackward" in svg and "graphviz-pure" not in svg
    w, h = _png_size(pic.png(prefer="system"))
    assert w > 400 and h > 400
    assert pic.pdf(prefer="system")[:5] == b"%PDF-"


def test_cli_renders_png_without_system_dot(tmp_path):
    """A PATH without any system dot: the graphviz-pure binary of this environment draws."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    env = dict(os.environ, PATH=str(bindir))
    env.pop("GRADREPL_DOT", None)
    out = tmp_path / "e.png"
    r = subprocess.run([sys.executable, "-m", "gradrepl", "graph",
                        str(SEEDS / "s000_example_two.py"), "-t", "e", "-o", str(out)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    w, h = _png_size(out.read_bytes())
    assert w > 400 and h > 400


def test_pdf_without_system_graphviz_says_what_to_do(monkeypatch):
    monkeypatch.setattr(render.shutil, "which", lambda name: None)
    try:
        import svglib  # noqa: F401
        pytest.skip("svglib is installed: the PDF route works")
    except ImportError:
        pass
    with pytest.raises(render.RenderError, match="svglib reportlab"):
        picture(SEEDS / "s000_example_one.py", "c").pdf()


# ------------------------------------------------------------------ step frames
def _example_two_run(profile=None):
    run = capture.run_for_pictures(str(SEEDS / "s000_example_two.py"), profile=profile,
                                   steps=True)
    e = run.namespace["e"]
    g = model.build(e, namespace=run.namespace, recorder=run.recorder)
    return run, g, run.log.run_for(e)


@pytest.mark.parametrize("profile", ["2.2", "3"])
def test_step_frames_follow_the_engine_events(profile):
    """One frame per step a student sees; each frame is the state after the last engine event
    of its step (``step["events"]``: the slice of events it covers, all of them, in order)."""
    run, g, logged = _example_two_run(profile)
    fr = steps.frames(g, logged)
    first = fr[0]
    assert all(v.data is None for v in first.grad_vars)
    assert not any(b.released for b in first.backward_ops)
    spans = [f.step["events"] for f in fr[1:]]
    assert spans[0][0] == 0 and spans[-1][1] == len(logged.events)
    assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(spans, spans[1:]))
    gv_of = {edge: gid for gid, edge in g._builder.grad_edges.items() if edge}
    bw_of = {node: info.id for node, info in g._builder.bw.items()}
    deps, queue, released, running = {}, [], set(), None
    k = 1
    for i, (e, vals) in enumerate(logged.events):
        if isinstance(e, ev.DepsCounted):
            deps = {bw_of[n]: c for n, c in e.deps.items() if n in bw_of}
        elif isinstance(e, ev.DepDec) and e.node in bw_of:
            deps[bw_of[e.node]] = e.remaining
        elif isinstance(e, ev.Ready):
            queue.append(e.node)
        elif isinstance(e, ev.Run) or (isinstance(e, ev.Accumulate) and e.target in queue
                                       and e.target.op is None):
            node = e.node if isinstance(e, ev.Run) else e.target
            assert queue[0] is node  # FIFO: the node that runs is the queue's head
            queue.pop(0)
            running = bw_of.get(node)
        elif isinstance(e, ev.Released):
            released.add(bw_of[e.node])
        if i + 1 < spans[k - 1][1]:
            continue
        f = fr[k]   # the frame after this step's last event
        by_id = f.by_id()
        assert f.step["index"] == k
        for word in ("DepsCounted", "DepDec", "Seeded", "Ready:", "(b0)", "(b1)"):
            assert word not in f.step["event"]
        if isinstance(e, (ev.Accumulate, ev.Seeded)):
            node = e.target if isinstance(e, ev.Accumulate) else e.node
            gid = gv_of[(node, e.slot)]
            expect = vals["total"] if isinstance(e, ev.Accumulate) else vals["grad"]
            assert by_id[gid].data == expect
            assert gid in f.step["changed"]
        last = k == len(fr) - 1
        assert f.step["ready"] == ([] if last else [bw_of[n] for n in queue if n in bw_of])
        if running is not None and not last and running not in released:
            assert by_id[running].state == "running"
        for bid, c in deps.items():
            if by_id[bid].kind == "op":
                assert by_id[bid].deps == c
        assert {b.id for b in f.backward_ops if b.released} == released
        k += 1
    assert k == len(fr)
    last = fr[-1]
    assert last.step["ready"] == [] and last.step["ready_names"] == []
    # .grad as the framework keeps it: Paddle 3 keeps no non-leaf's (issue 30: c_grad and
    # e_grad flowed, shown as the gradients that reached c and e, not as their .grad)
    kept = {"a_grad": "20.", "b_grad": "8.", "d_grad": "10."}
    if profile == "2.2":
        kept.update(c_grad="4.", e_grad="1.")
    else:
        kept.update(c_grad=None, e_grad=None)
    assert {v.name: v.data for v in last.grad_vars} == kept
    assert {v.name: v.flow for v in last.grad_vars} == {
        "a_grad": "20.", "b_grad": "8.", "c_grad": "4.", "d_grad": "10.", "e_grad": "1."}


def test_step_frames_carry_contributions_in_chain_lines():
    run, g, logged = _example_two_run()
    fr = steps.frames(g, logged)
    after_first_run = next(f for f in fr if " ran: " in f.step["event"])
    lines = [line for b in after_first_run.backward_ops for line in b.chain]
    assert "c_grad = e_grad * d = 1. * 4. = 4." in lines
    dot = to_dot(after_first_run, view="backward", chain=True)
    assert "ready queue" in dot and "step 3 of 7" in dot


def test_step_log_keeps_the_values_of_the_moment():
    """Leaf gradients are summed in place; the log keeps each event's own values."""
    import gradrepl.paddle as paddle
    from gradrepl.engine import backward as bw
    from gradrepl.paddle import state

    state.reset("2.2")
    log = steps.BackwardLog()
    x = paddle.to_tensor(3.0, stop_gradient=False)
    old = bw.TRACE_SINK
    bw.TRACE_SINK = log
    try:
        (x * x).backward()
        (x * 2.0).backward()
    finally:
        bw.TRACE_SINK = old
    totals = [v["total"] for r in log.runs for e, v in r.events
              if isinstance(e, ev.Accumulate) and e.target.op is None and "total" in v]
    assert totals[-1] == "8." and "6." in totals
    assert len(log.runs) == 2 and all(r.finished for r in log.runs)


# ------------------------------------------------------------------ gradrepl graph
def gg(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "gradrepl", "graph", *map(str, args)],
                          capture_output=True, text=True, timeout=180, cwd=cwd)


def test_cli_text_on_stdout_by_default():
    r = gg(SEEDS / "s000_example_two.py", "--tensor", "e")
    assert r.returncode == 0, r.stderr
    assert "MulBackward" in r.stdout and "a_grad" in r.stdout and "\x1b" not in r.stdout
    assert "Tensor a's grad" not in r.stdout  # the script's own prints are not mixed in


def test_cli_at_line_draws_before_backward(tmp_path):
    out = tmp_path / "m.json"
    r = gg(SEEDS / "s000_example_two.py", "-t", "e", "--at", 8, "-o", out)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert all(v["data"] is None for v in data["grad_vars"])
    r = gg(SEEDS / "s000_example_two.py", "-t", "e", "--at", 7)
    assert r.returncode == 2 and "no variable named 'e'" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--tensor", "nope"], "no variable named 'nope'"),
    (["--tensor", "paddle"], "'paddle' is a module, not a tensor"),
    (["-t", "e", "-o", "x.gif"], "unknown extension '.gif'"),
    (["-t", "e", "--view", "sideways"], "unknown view 'sideways'"),
    (["-t", "e", "--paddle", "9"], "unknown Paddle profile '9'"),
    (["-t", "e", "--at", "0"], "--at must be a line number"),
    (["-t", "e", "--at", "999"], "s000_example_two.py has 13 lines"),
    (["-t", "e", "--to", "zz"], "no tensor named 'zz'"),
])
def test_cli_bad_arguments_one_line_exit_2(tmp_path, args, message):
    r = gg(SEEDS / "s000_example_two.py", *args, cwd=tmp_path)
    assert r.returncode == 2
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_failing_script_leaves_nothing(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("import paddle\na = paddle.to_tensor(1.0, stop_gradient=False)\n"
                      "b = a * 2\nraise ValueError('boom')\n")
    out = tmp_path / "b.png"
    r = gg(script, "-t", "b", "-o", out)
    assert r.returncode == 2
    assert r.stderr.strip() == "gradrepl graph: the script failed at line 4: ValueError: boom"
    assert not out.exists()
    r = gg(tmp_path / "missing.py")
    assert r.returncode == 2 and "no such file" in r.stderr
    script.write_text("a = (\n")
    r = gg(script)
    assert r.returncode == 2 and "SyntaxError" in r.stderr


def test_cli_steps_writes_frames_and_player(tmp_path):
    d = tmp_path / "steps"
    r = gg(SEEDS / "s000_example_two.py", "-t", "e", "--steps", d)
    assert r.returncode == 0, r.stderr
    frames = sorted(d.glob("frame_*.svg"))
    run, g, logged = _example_two_run()
    assert len(frames) == len(steps.frames(g, logged)) == 8
    html = (d / "index.html").read_text()
    assert "(Paddle: PrepareDeps)" in html and "freed its saved tensors" in html
    # the sentences speak no engine vocabulary (the folded engine-code panels, which quote
    # backward.py's source, are the one place event class names appear)
    words = re.sub(r'<template class="code-set".*?</template>', "", html, flags=re.S)
    assert "code-set" in html and "DepsCounted" in html
    assert "step 3 of 7" in words and "DepsCounted" not in words and "(b0)" not in words
    r = gg(SEEDS / "s000_example_two.py", "-t", "e", "--at", 8, "--steps", tmp_path / "s2")
    assert r.returncode == 2 and "no backward ran" in r.stderr


def test_python_api_picture_object(tmp_path):
    pic = picture(SEEDS / "s000_example_one.py", "c")
    assert pic._repr_svg_().lstrip().startswith("<?xml")
    assert "MulBackward" in pic.text()
    with pytest.raises(ValueError, match="unknown picture extension"):
        pic.render(tmp_path / "c.bmp")
    assert pic.render(tmp_path / "c.svg").read_text().count("<svg") == 1
    assert "3 tensors" in repr(pic)


def test_written_pictures_are_readable_by_others(tmp_path):
    old = os.umask(0o022)
    try:
        path = picture(SEEDS / "s000_example_one.py", "c").render(tmp_path / "c.dot")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644


def test_png_is_capped_for_big_graphs():
    """A long chain's PNG is scaled into 100 x 100 inches, not allocated at full size."""
    import gradrepl.paddle as paddle
    from gradrepl.paddle import state

    state.reset("2.2")
    x = paddle.to_tensor(1.0, stop_gradient=False)
    y = x
    for _ in range(300):
        y = y * 1.0001
    pic = viz.Picture(model.build(y), view="backward")
    w, h = _png_size(pic.png(prefer="pure"))
    assert h <= 100 * 96 + 10 and w <= 100 * 96 + 10


def test_pdf_without_system_graphviz_goes_through_svglib(monkeypatch):
    pytest.importorskip("svglib")
    monkeypatch.setattr(render.shutil, "which", lambda name: None)
    monkeypatch.delenv("GRADREPL_DOT", raising=False)
    pdf = picture(SEEDS / "s000_example_two.py", "e").pdf()
    assert pdf[:5] == b"%PDF-" and len(pdf) > 3000
    if shutil.which("pdftotext"):
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
            f.write(pdf)
            f.flush()
            text = subprocess.run(["pdftotext", f.name, "-"], capture_output=True,
                                  text=True).stdout
        assert "MulBackward" in text and "a_grad" in text


def test_provenance_finds_the_layer_calls_of_each_node():
    """Nested and sibling Layer calls, a Layer called twice: each node's chain of calls, found
    by bisection over the marks (no per-op cost)."""
    import gradrepl.paddle as paddle
    from gradrepl.engine.provenance import Recorder
    from gradrepl.paddle import state

    state.reset("2.2")
    paddle.seed(0)
    inner = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.ReLU())
    x = paddle.rand([1, 2])
    with Recorder() as rec:
        y1 = inner(x)
        mid = y1 * 2.0
        y2 = inner(mid)
    calls = lambda t: [(type(layer).__name__, start) for start, layer in  # noqa: E731
                       rec.layers_of(t.grad_node.uid)]
    first, second = calls(y1), calls(y2)
    assert [n for n, _ in first] == ["Sequential", "ReLU"]
    assert [n for n, _ in second] == ["Sequential", "ReLU"]
    assert first[0][1] != second[0][1]  # two calls of one Layer are told apart
    assert rec.layers_of(mid.grad_node.uid) == []
    assert len(rec.layer_spans) == 6  # Sequential, Linear, ReLU, twice
