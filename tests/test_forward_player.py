"""The forward pass built step by step, then the backward, in one player (issue 30):
``gradrepl graph X --steps DIR --steps-from forward``. One frame per statement that made part of
the graph, in the order the statements ran; every forward frame's records are a subset of the
next one's; the last one is the graph the forward left (the static picture drawn with ``--at``
the last forward line, and the backward's step 0); the narration's numbers are the tensors'
values, computed here independently with numpy; Paddle and torch; the player, PDF and the
no-backward case."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gradrepl.viz import graph as make_picture
from gradrepl.viz import render
from gradrepl.viz.capture import run_for_pictures
from gradrepl.viz.cli import GraphError, draw
from gradrepl.viz.forward import forward_frames, frame_dot, hide, statement_marks
from gradrepl.viz.steps import frames

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "examples" / "seeds" / "s000_example_two.py"

TORCH = textwrap.dedent("""\
    import torch

    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(5.0, requires_grad=True)
    c = a * b
    d = torch.tensor(4.0, requires_grad=True)
    e = c * d
    e.backward()
    """)


def has_layout():
    try:
        render.find_dot()
    except render.RenderError:
        return False
    return True


needs_dot = pytest.mark.skipif(not has_layout(), reason="no Graphviz layout program")


def _ids(g):
    return ({t.id for t in g.tensors} | {o.id for o in g.ops} | {v.id for v in g.grad_vars}
            | {b.id for b in g.backward_ops})


def _forward(path, name="e", at=None):
    run = run_for_pictures(str(path), steps=True, at=at)
    assert run.error is None, run.error
    target = run.namespace[name]
    pic = make_picture(target, namespace=run.namespace, recorder=run.recorder)
    logged = run.log.run_for(target) if run.log.runs else None
    base = frames(pic.model, logged, chain=True, history=run.log.runs)[0] if logged else \
        pic.model
    return run, base, forward_frames(base, run.recorder, run.mark_lines)


def _lines_of(source, pattern):
    """The 1-based numbers of the lines of ``source`` that match ``pattern`` (independent of
    the recorder)."""
    return [k for k, line in enumerate(source.splitlines(), 1) if re.match(pattern, line)]


def _said_values(text):
    """{name: number} of ``name = number`` in a sentence (after 'made')."""
    tail = text.split(" made ", 1)[1]
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"(\w+) = (-?\d+(?:\.\d*)?(?:e-?\d+)?)", tail)}


@pytest.fixture(scope="module", params=["paddle", "torch"])
def example(request, tmp_path_factory):
    if request.param == "paddle":
        path = SEED
    else:
        path = tmp_path_factory.mktemp("torch") / "torch_ex.py"
        path.write_text(TORCH, encoding="utf-8")
    run, base, ff = _forward(path)
    return request.param, path, run, base, ff


def test_one_frame_per_statement_in_order(example):
    dialect, path, run, base, ff = example
    source = path.read_text(encoding="utf-8")
    made = _lines_of(source, r"^[a-e] = ")   # the five statements that build e
    assert [f.forward["lines"] for f in ff] == [[k] for k in made]
    assert [f.forward["index"] for f in ff] == list(range(1, len(made) + 1))
    assert all(f.forward["total"] == len(made) for f in ff)
    labels = [source.splitlines()[k - 1].strip() for k in made]
    assert [f.forward["label"] for f in ff] == labels
    for f, label, k in zip(ff, labels, made):   # the sentence names the line and statement
        assert f.forward["event"].startswith(f"forward: line {k} `{label}` made ")


def test_frames_grow_and_end_at_the_forward_graph(example):
    dialect, path, run, base, ff = example
    sets = [_ids(f) for f in ff]
    for before, after, f in zip(sets, sets[1:], ff[1:]):
        assert before < after                       # strictly growing
        assert after - before == set(f.forward["new"])   # the new records are what it adds
    assert sets[-1] == _ids(base)                   # the last frame: the whole graph
    # each frame is a closed graph: every op's inputs and outputs are in it
    for f in ff:
        have = _ids(f)
        for o in f.ops:
            assert set(o.inputs) <= have and set(o.outputs) <= have
        for b in f.backward_ops:
            assert set(b.grad_pending_ops) <= have


def test_last_frame_is_the_static_forward_picture(example):
    """The last forward frame draws the static picture of the graph as it stood after the
    last forward statement (``--at``), not re-run: the same DOT, records and values."""
    dialect, path, run, base, ff = example
    last_line = ff[-1].forward["lines"][-1]
    run2 = run_for_pictures(str(path), at=last_line)
    static = make_picture(run2.namespace["e"], view="forward", namespace=run2.namespace,
                          recorder=run2.recorder)
    from gradrepl.viz.dot import to_dot

    assert to_dot(ff[-1], view="forward") == static.dot()
    assert [(t.name, t.preview) for t in ff[-1].tensors] == \
        [(t.name, t.preview) for t in static.model.tensors]


def test_narration_numbers_are_the_values(example):
    dialect, path, run, base, ff = example
    a, b, d = np.float32(2.0), np.float32(5.0), np.float32(4.0)   # the script's leaves
    c = a * b
    want = {"a": a, "b": b, "c": c, "d": d, "e": c * d}
    said = {}
    for f in ff:
        said.update(_said_values(f.forward["event"]))
    assert said == {k: float(v) for k, v in want.items()}
    # and they are the values the engine holds
    for name, v in said.items():
        assert run.namespace[name].detach().numpy().item() == v
    words = "requires_grad=True" if dialect == "torch" else "stop_gradient = False"
    assert f"made the leaf a = 2. ({words})" in ff[0].forward["event"]
    op3 = ff[2].forward["event"]
    backward = "MulBackward0 (c.grad_fn)" if dialect == "torch" else "MulBackward #1"
    assert f"(Mul of a and b; {backward} recorded for the backward)" in op3


def test_statement_marks_of_ops_follow_their_inputs(example):
    dialect, path, run, base, ff = example
    marks = statement_marks(base, run.recorder)
    for o in base.ops:
        assert all(marks[t] <= marks[o.id] for t in o.inputs)
        assert all(marks[t] == marks[o.id] for t in o.outputs)
        assert marks[o.backward] == marks[o.id]


@needs_dot
def test_frames_keep_one_layout(example):
    """Records not made yet are drawn invisible: every frame has the whole graph's layout."""
    dialect, path, run, base, ff = example
    svgs = [render.svg(frame_dot(f, full=ff[-1])) for f in ff]
    heights = [render.svg_size(s)[1] for s in svgs]
    assert max(heights) - min(heights) < 0.05 * max(heights)
    # a record not made yet has its place in the layout but is not drawn (Graphviz leaves
    # its comment only)
    first = svgs[0]
    assert "<!-- t4 -->" in first and "<title>t4</title>" not in first   # e: the last line
    assert "<title>t4</title>" in svgs[-1] and "<title>t0</title>" in first


def test_hide_keeps_edges_in_the_layout():
    src = "digraph g {\n\ta [label=x]\n\tb\n\ta -> b [style=dotted color=red]\n}\n"
    out = hide(src, {"b"})
    assert "\ta -> b [color=red style=invis]\n" in out
    assert out.rstrip().endswith("\tb [style=invis]\n}")
    assert hide(src, set()) == src


# ---------------------------------------------------------------- the command, the player, PDF
@needs_dot
def test_cli_player_forward_then_backward(tmp_path):
    out = tmp_path / "player"
    msg = draw(str(SEED), tensor="e", steps=str(out), steps_from="forward")
    plain = tmp_path / "plain"
    draw(str(SEED), tensor="e", steps=str(plain))
    n_back = len(list(plain.glob("frame_*.svg")))
    n = len(list(out.glob("frame_*.svg")))
    assert n == n_back + 5
    assert msg.startswith(f"wrote {n} frames")
    page = (out / "index.html").read_text(encoding="utf-8")
    counters = re.findall(r'data-counter="([^"]*)"', page)
    assert counters[:5] == [f"forward {k} of 5" for k in range(1, 6)]
    assert counters[5] == f"step 0 of {n_back - 1}"
    assert "forward and backward of e" in page
    # the backward frames are the plain run's, unchanged
    for k in range(n_back):
        assert (out / f"frame_{k + 5:03d}.svg").read_text() == \
            (plain / f"frame_{k:03d}.svg").read_text()
    # frame 3's picture highlights what line 6 made (c, its op, c_grad, MulBackward #1)
    f3 = (out / "frame_002.svg").read_text()
    assert "line 6 `c = a * b` made c = 10." in f3.replace("&#96;", "`")


@needs_dot
def test_cli_pdf_pages(tmp_path):
    """One frame per page: the forward's five, then the backward's (pages counted in the PDF;
    the text is drawn as vectors, so pdftotext reads the forward frames' sentences)."""
    import shutil
    import subprocess

    pdf = tmp_path / "lecture.pdf"
    msg = draw(str(SEED), tensor="e", steps=str(pdf), steps_from="forward", theme="dark")
    data = pdf.read_bytes()
    n = len(re.findall(rb"/Type\s*/Page\b", data))
    assert msg.startswith(f"wrote {pdf}: {n} frames, one per page")
    plain = tmp_path / "plain.pdf"
    draw(str(SEED), tensor="e", steps=str(plain), theme="dark")
    assert n == len(re.findall(rb"/Type\s*/Page\b", plain.read_bytes())) + 5
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "-f", "3", "-l", "3", str(pdf), "-"],
                              capture_output=True, text=True, check=True).stdout
        assert "forward 3 of 5" in text and "c = a * b" in text


@needs_dot
def test_forward_only_when_no_backward_ran(tmp_path):
    script = tmp_path / "fw.py"
    script.write_text("import paddle\nx = paddle.to_tensor([1.0, 2.0], stop_gradient=False)\n"
                      "y = x * x\nz = y.sum()\n", encoding="utf-8")
    with pytest.raises(GraphError, match="no backward ran"):
        draw(str(script), tensor="z", steps=str(tmp_path / "b"))
    out = tmp_path / "f"
    draw(str(script), tensor="z", steps=str(out), steps_from="forward")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'data-counter="([^"]*)"', page) == [f"forward {k} of 3"
                                                            for k in (1, 2, 3)]
    assert "made y = [1., 4.]" in page and "made z = 5." in page


def test_bad_steps_from(tmp_path):
    with pytest.raises(GraphError, match="unknown --steps-from 'sideways'"):
        draw(str(SEED), tensor="e", steps=str(tmp_path / "x"), steps_from="sideways")


# ---------------------------------------------------------------- the shell and the notebook
SHELL_INPUTS = ["import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
                "b = paddle.to_tensor(5.0, stop_gradient=False)", "c = a * b",
                "d = paddle.to_tensor(4.0, stop_gradient=False)", "e = c * d"]


def test_shell_step_from_forward():
    from gradrepl.repl.session import Session

    s = Session()
    for src in SHELL_INPUTS:
        s.run(src)
    plain = Session()
    for src in SHELL_INPUTS:
        plain.run(src)
    back = plain.run("%step e").frames
    r = s.run("%step e --from forward")
    assert len(r.frames) == len(back) + 5
    heads = [t.split("\n", 1)[0] for t in r.frames[:5]]
    assert heads[2] == "forward 3 of 5: `c = a * b` made c = 10. (Mul of a and b)."
    assert heads[4] == "forward 5 of 5: `e = c * d` made e = 40. (Mul of c and d)."
    # the text picture grows: frame 3 draws a, b, c and the op, not d or e
    assert "●  c  float32[1] = 10." in r.frames[2] and " d " not in r.frames[2]
    assert r.frames[5:] == back    # then the backward, as %step shows it
    bad = s.run("%step e --from sideways").output
    assert "invalid choice: 'sideways'" in bad and bad.count("\n") == 1


@pytest.mark.slow
def test_notebook_step_from_forward(tmp_path):
    from test_notebook_quiz import _execute

    cells = _execute(["%load_ext gradrepl", "\n".join(SHELL_INPUTS), "e.backward()",
                      "%step e --from forward"], tmp_path)
    out = cells[3].outputs
    page = "".join(o.data.get("text/html", "") for o in out if "data" in o)
    text = "".join(o.data.get("text/plain", "") for o in out if "data" in o)
    assert "forward 1 of 5: forward: `a = paddle.to_tensor(2.0, stop_gradient=False)` made " \
        "the leaf a = 2." in text
    assert "forward 3 of 5: forward: `c = a * b` made c = 10." in text
    assert "step 0 of 7" in text
    assert page.count('<template class="frame"') == 13
    assert re.findall(r'data-counter="([^"]*)"', page)[4:6] == ["forward 5 of 5", "step 0 of 7"]


@needs_dot
def test_collapsed_layers_appear_with_the_forward_call(tmp_path):
    """--collapse: a Linear call drawn as one op appears at the statement that called it
    (the model's forward, line 16), not at the line that made its input; --depth: a tensor
    whose ops are cut off is not called a leaf."""
    mlp = ROOT / "examples" / "graphs" / "mlp.py"
    src = mlp.read_text(encoding="utf-8").splitlines()
    fwd_line = next(k for k, ln in enumerate(src, 1) if "return self.fc2" in ln)
    out = tmp_path / "col"
    draw(str(mlp), steps=str(out), steps_from="forward", collapse=True)
    titles = re.findall(r'data-title="(forward:[^"]*)"', (out / "index.html").read_text())
    at = [t for t in titles if t.startswith(f"forward: line {fwd_line} ")]
    assert len(at) == 1 and "(3 ops; Linear model.fc1 backward" in at[0]
    x_line = next(k for k, ln in enumerate(src, 1) if ln.startswith("x = "))
    assert [t for t in titles if t.startswith(f"forward: line {x_line} ")] == \
        [f"forward: line {x_line} `x = paddle.rand([5, 4])` made the leaf x (5x4)."]
    out = tmp_path / "depth"
    draw(str(mlp), steps=str(out), steps_from="forward", depth=2)
    titles = re.findall(r'data-title="(forward:[^"]*)"', (out / "index.html").read_text())
    assert titles[0] == (f"forward: line {fwd_line} `return self.fc2(F.relu(self.fc1(x)))` "
                         "made logits (5x3) (by ops not drawn).")


def test_accumulation_forward_frames_hold_no_gradient(tmp_path):
    """Two backward() calls: while the forward ran x.grad was None (the second backward's
    step 0 holds the first one's 4.); the forward frames say so, the backward's step 0 too."""
    from gradrepl.viz.forward import grads_before

    script = tmp_path / "accum.py"
    script.write_text("import paddle\n\nx = paddle.to_tensor(2.0, stop_gradient=False)\n"
                      "y = x * x\ny.backward(retain_graph=True)\ny.backward()\n",
                      encoding="utf-8")
    run, base, ff = _forward(script, name="y")
    assert len(run.log.runs) == 2
    x_grad = next(v for v in base.grad_vars if v.name == "x_grad")
    assert x_grad.data == "4."                  # the second backward's step 0: 2 * x = 4
    fixed = grads_before(base, run.log.runs)
    ff = forward_frames(fixed, run.recorder, run.mark_lines)
    for f in ff:
        assert all(v.data is None and v.flow is None for v in f.grad_vars)
    assert ff[1].forward["event"] == ("forward: line 4 `y = x * x` made y = 4. (Mul of x and "
                                      "x; MulBackward recorded for the backward).")


@needs_dot
@pytest.mark.slow
def test_player_in_headless_chromium(tmp_path):
    """The player opened in Chromium: frame 3 (from the URL) shows the forward's third frame,
    its counter and sentence; End goes to the backward's last step (its ``autotest`` log)."""
    import html as _html
    import json

    from test_viz_player import _chromium, _run_chromium, _stage

    chromium = _chromium()
    out = tmp_path / "player"
    draw(str(SEED), tensor="e", steps=str(out), steps_from="forward")
    index = out / "index.html"
    dom = _run_chromium(chromium, tmp_path, index.as_uri() + "#frame=3", "--dump-dom")
    frame, stage = _stage(dom)
    assert frame == 3
    assert re.search(r'id="counter"[^>]*>forward 3 of 5<', dom)
    title = _html.unescape(re.search(r'id="title"[^>]*>(.*?)</', dom, re.S).group(1))
    assert title == ("forward: line 6 `c = a * b` made c = 10. (Mul of a and b; MulBackward #1 "
                     "recorded for the backward).")
    assert "<title>t2</title>" in stage and "<title>t4</title>" not in stage   # c, not e yet
    dom = _run_chromium(chromium, tmp_path, index.as_uri() + "?autotest=1", "--dump-dom")
    log = json.loads(_html.unescape(re.search(r'<pre id="selftest"[^>]*>(.*?)</pre>', dom,
                                              re.S).group(1)))
    assert log["n"] == 13
    states = dict((k, v) for k, v in log["steps"] if k in ("load", "End"))
    assert states["load"]["counter"] == "forward 1 of 5"
    assert states["End"]["counter"] == "step 7 of 7" and states["End"]["frame"] == "13"


def test_loop_one_frame_per_iteration(tmp_path):
    """``for i in range(3): h = h * w``: a frame per iteration (the line each time), the values
    2, 4, 8 (w ** k); the first h, rebound, is said to be used, not made there."""
    script = tmp_path / "loop.py"
    script.write_text("import torch\n\nw = torch.tensor(2.0, requires_grad=True)\n"
                      "h = torch.tensor(1.0)\nfor i in range(3):\n    h = h * w\nh.backward()\n",
                      encoding="utf-8")
    run, base, ff = _forward(script, name="h")
    assert [f.forward["lines"] for f in ff] == [[3], [6], [6], [6]]
    said = [_said_values(f.forward["event"]) for f in ff[1:]]
    assert [list(d.values())[0] for d in said] == [2.0 ** k for k in (1, 2, 3)]
    assert list(said[-1]) == ["h"]
    assert "using tmp_0 (a tensor made earlier that no variable holds any more)" in \
        ff[1].forward["event"]


@needs_dot
@pytest.mark.parametrize("kw, mark", [({"theme": "dark"}, 'fill="#1b1d23"'),
                                      ({"rankdir": "LR"}, None), ({"font_size": 20}, None)])
def test_forward_frames_honour_slide_options(tmp_path, kw, mark):
    plain, opt = tmp_path / "plain", tmp_path / "opt"
    draw(str(SEED), tensor="e", steps=str(plain), steps_from="forward")
    draw(str(SEED), tensor="e", steps=str(opt), steps_from="forward", **kw)
    for k in range(5):
        a = (plain / f"frame_{k:03d}.svg").read_text()
        b = (opt / f"frame_{k:03d}.svg").read_text()
        assert a != b
        if mark:
            assert mark in b and mark not in a
    if "font_size" in kw:   # the text is larger, in the forward frames too
        assert max(render.text_points(b)) > max(render.text_points(a))


@needs_dot
def test_gif_and_animated_svg_hold_the_forward_frames(tmp_path):
    from PIL import Image

    gif, svg = tmp_path / "e.gif", tmp_path / "e.svg"
    draw(str(SEED), tensor="e", steps=str(gif), steps_from="forward")
    draw(str(SEED), tensor="e", steps=str(svg), steps_from="forward")
    assert Image.open(gif).n_frames == 13
    text = svg.read_text(encoding="utf-8")
    assert text.count('<g class="frame"') == 13
    assert "<title>forward 3 of 5: forward: line 6 `c = a * b` made c = 10." in text


@needs_dot
def test_dark_pdf_pages_are_dark_to_the_edge():
    """A slide page wider than the frame is filled with the frame's own background (Graphviz
    2.43 writes the background polygon with stroke="transparent", others stroke="none")."""
    from gradrepl.viz.player import _background

    svg = render.svg(to_dot_dark())
    assert _background(svg) == "#1b1d23"
    assert _background('<polygon fill="#1b1d23" stroke="none" points="0,0"/>') == "#1b1d23"
    assert _background("<svg></svg>") == "white"


def to_dot_dark():
    from gradrepl.viz.dot import to_dot
    from gradrepl.viz.theme import Style

    run, base, ff = _forward(SEED)
    return to_dot(ff[0], view="both", style=Style(theme="dark"))


def test_steps_from_and_camera_need_steps(tmp_path):
    with pytest.raises(GraphError, match="--steps-from goes with --steps DIR"):
        draw(str(SEED), tensor="e", output=str(tmp_path / "e.svg"), steps_from="forward")
    with pytest.raises(GraphError, match="--camera goes with --steps DIR"):
        draw(str(SEED), tensor="e", camera=True)
