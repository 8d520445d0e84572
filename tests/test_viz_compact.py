"""The compact look of big pictures (``look="compact"``, and ``"auto"`` past ``dot.LOOK_LIMIT``).

Tensors without a name of their own (shown as tmp_N: intermediates, constants, masks) and
parameters, their gradient variables and the backward ops are drawn on one line each, the rows a
full picture writes in their SVG tooltips (a parameter's statement too); the targets and the
tensors a user's variable names keep their records. Small pictures stay full (tests/data/viz/*.dot keep their bytes: test_viz.py).
The goldens in tests/data/viz_compact/ were rendered and looked at.
"""
from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from gradrepl import viz
from gradrepl.viz import dot as D
from gradrepl.viz import model as M
from gradrepl.viz import transform
from helpers import vgg_like_model

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "viz_compact")
VIEWS = ("forward", "backward", "both")


@pytest.fixture(autouse=True)
def _profile():
    from gradrepl.paddle import state

    state.reset("2.2")
    yield
    state.reset(None)


def _paddle():
    import gradrepl.paddle as paddle

    return paddle


def golden(name, text):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        assert text == f.read(), name


def small(paddle):
    """Example two and one more op: ``tmp_0`` is the one intermediate tensor without a name."""
    a = paddle.to_tensor(2.0, stop_gradient=False)
    b = paddle.to_tensor(3.0, stop_gradient=False)
    c = a * b
    d = (c + a) * b
    e = d.sum()
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


def chain(paddle, n):
    x = paddle.to_tensor(1.0, stop_gradient=False)
    y = x
    for i in range(n):
        y = paddle.tanh(y) if i % 2 else y * 1.0001
    return x, y


def one_line_ids(src):
    return re.findall(r"^\t(\w+) \[label=<<b>[^\n]*tooltip=", src, re.M)


# ------------------------------------------------------------------ small graphs, forced
def test_small_graph_compact_goldens():
    paddle = _paddle()
    ns = small(paddle)
    for view in VIEWS:  # before backward: the fast path, the same bytes as the model's
        pic = viz.graph(ns["e"], view=view, namespace=ns, look="compact")
        assert pic._flat is not None
        g = M.build(ns["e"], namespace=ns)
        assert pic.dot() == D.to_dot(g, view=view, look="compact")
    golden("small_before_both.dot", pic.dot())
    # the one intermediate tensor and its gradient on one line; a, b, c, d, e keep records
    assert one_line_ids(pic.dot())[:2] == ["t3", "g3"]
    assert 'tooltip="tmp_0  float32[1]\\ndata = 8.\\ngrad_var = tmp_0_grad\\n' \
           'stop_gradient = False"' in pic.dot()
    del g, pic   # (the model held tmp_0 alive: after backward its data is freed, as in a run)
    import gc

    gc.collect()
    ns["e"].backward()
    pic = viz.graph(ns["e"], namespace=ns, look="compact")
    assert pic._flat is None  # (released: the model's path)
    golden("small_after_both.dot", pic.dot())
    src = pic.dot()
    # backward ops by name only, numbered; their rows in the tooltip; pending edges kept
    assert "<b>MulBackward #2</b>" in src and "input = tmp_0 , b , d_grad" in src
    assert src.count('color="#e8473f" constraint=false dir=back') == 3
    assert "grad_pending_ops =" not in re.sub(r'tooltip="[^"]*"', "", src)
    # full keeps its bytes: the default (auto) of this small graph is the full look
    assert viz.graph(ns["e"], namespace=ns).dot() == viz.graph(
        ns["e"], namespace=ns, look="full").dot()
    assert "tooltip" not in viz.graph(ns["e"], namespace=ns).dot()


def test_a_variable_named_like_tmp_n_keeps_its_record():
    """The look asks whether the picture made the name up, not what the name looks like: a
    user's variable ``tmp_3`` is a record, the unnamed tensor next to it one line."""
    paddle = _paddle()
    ns = small(paddle)
    ns["tmp_3"] = ns.pop("d")
    for path in ("fast", "model"):
        if path == "fast":
            src = viz.graph(ns["e"], namespace=ns, look="compact").dot()
        else:
            src = D.to_dot(M.build(ns["e"], namespace=ns), look="compact")
        ids = one_line_ids(src)
        assert ids[:2] == ["t3", "g3"], path  # tmp_0: made up, one line
        assert "t4" not in ids and "<b>tmp_3</b><br/>" in src, path  # the user's tmp_3
    # the made-up names step over the user's: a longer chain has one tmp_3, the user's
    x = ns["tmp_3"] = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    for _ in range(6):
        x = paddle.tanh(x) * 1.5
    ns["loss"] = x.sum()
    for src in (viz.graph(ns["loss"], namespace=ns).dot(),
                D.to_dot(M.build(ns["loss"], namespace=ns))):
        shown = re.findall(r"<b>(tmp_[0-9]+)</b>", src)
        assert sorted(shown, key=lambda s: int(s[4:])) == [f"tmp_{i}" for i in range(13)]


def test_compact_says_nothing_new():
    """Every row a full picture writes is in the compact picture: in a label or a tooltip."""
    paddle = _paddle()
    ns = small(paddle)
    ns["e"].backward()
    g = M.build(ns["e"], namespace=ns)
    full, compact = D.to_dot(g, look="full"), D.to_dot(g, look="compact")
    rows = set(re.findall(r'bgcolor="white">(?:<[^>]*>)*([^<]+)<', full))
    assert "input = tmp_0 , b , d_grad" in rows and "data = (freed)" in rows
    for row in rows:
        assert row in compact, row
    # the same edges, but the saved tensors' (in the tooltips' input rows)
    edges = sorted(re.findall(r"^\t(\w+ -> \w+)", full, re.M))
    assert sorted(re.findall(r"^\t(\w+ -> \w+)", compact, re.M)) == [
        e for e in edges if not (e[0] == "t" and e.split(" -> ")[1][0] == "b")]


# ------------------------------------------------------------------ auto at the threshold
def test_auto_switches_past_the_limit():
    paddle = _paddle()
    x, y = chain(paddle, 19)  # 20 tensors + 20 gradient variables: LOOK_LIMIT, still full
    ns = {"x": x, "y": y}
    assert D.LOOK_LIMIT == 40
    for view in VIEWS:
        auto = viz.graph(y, view=view, namespace=ns).dot()
        assert auto == viz.graph(y, view=view, namespace=ns, look="full").dot()
        assert auto != viz.graph(y, view=view, namespace=ns, look="compact").dot()
        assert "tooltip" not in auto
    x, y = chain(paddle, 20)  # 42: compact, in every view alike
    ns = {"x": x, "y": y}
    for view in VIEWS:
        pic = viz.graph(y, view=view, namespace=ns)
        assert pic.dot() == viz.graph(y, view=view, namespace=ns, look="compact").dot()
        g = M.build(y, namespace=ns)
        assert pic.dot() == D.to_dot(g, view=view)  # (the model's path decides alike)
        ids = one_line_ids(pic.dot())
        want = {"forward": 19, "backward": 19 + 20, "both": 19 + 19 + 20}[view]
        assert len(ids) == want, view   # tmp_0 .. tmp_18 and their gradients, 20 backward ops
        assert "t0" not in ids and "t20" not in ids   # the leaf x and the target y: records
    # after --depth the picture is small again: full
    pic = viz.graph(y, namespace=ns, depth=5)
    assert "tooltip" not in pic.dot() and "input = " in pic.dot()


def test_bad_look():
    paddle = _paddle()
    x, y = chain(paddle, 2)
    with pytest.raises(ValueError, match="unknown look 'tiny'"):
        viz.graph(y, look="tiny")
    from gradrepl.viz.cli import GraphError, draw

    mlp = os.path.join(HERE, os.pardir, "examples", "graphs", "mlp.py")
    with pytest.raises(GraphError, match="unknown --look 'tiny'"):
        draw(mlp, look="tiny")


def test_graph_command_look(tmp_path):
    from gradrepl.viz.cli import draw

    mlp = os.path.join(HERE, os.pardir, "examples", "graphs", "mlp.py")
    for look, tips in (("compact", True), ("full", False), ("auto", False)):
        out = tmp_path / f"{look}.dot"
        assert draw(mlp, look=look, output=str(out)) == f"wrote {out}"
        assert ("tooltip=" in out.read_text()) == tips, look


# ------------------------------------------------------------------ quoting
def test_tooltips_escaped():
    paddle = _paddle()
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    w.name = 'w<b>&"q\\'
    y = paddle.tanh(w * 2.0).sum()
    src = viz.graph(y, look="compact").dot()
    # the name in a backward op's tooltip: a DOT string, its quote and backslash escaped
    assert ('tooltip="ScaleBackward\\ngrad_pending_ops = None\\ninput = w<b>&\\"q\\\\ , '
            'tmp_0_grad\\noutput = w<b>&\\"q\\\\_grad"') in src
    assert 'w&lt;b&gt;&amp;&quot;q\\' in src   # (its record's title: HTML entities)
    if shutil.which("dot") is None:
        pytest.skip("no system dot to render the SVG")
    svg = viz.graph(y, look="compact").svg()
    root = ET.fromstring(svg.encode())   # well-formed
    titles = [a.get("{http://www.w3.org/1999/xlink}title") for a in root.iter()
              if a.get("{http://www.w3.org/1999/xlink}title")]
    assert any('input = w<b>&"q\\ ,' in t for t in titles), titles
    # (Graphviz writes the second of two spaces as a no-break space)
    assert "tmp_0 \xa0float32[2]\ndata = [2., 4.]\ngrad_var = tmp_0_grad\n" \
           "stop_gradient = False" in titles, titles


# ------------------------------------------------------------------ dialects
def test_torch_compact():
    import gradrepl.torch as torch

    x = torch.tensor([1.0, -2.0], requires_grad=True)
    h = x
    for _ in range(3):
        h = torch.tanh(h * 2.0)
    y = h.sum()
    y.backward()
    src = viz.graph(y, namespace={"x": x, "y": y}, look="compact").dot()
    golden("torch_after_both.dot", src)
    assert "<b>tmp_0</b>" in src and "requires_grad=True" in src
    # torch keeps no .grad of a non-leaf: its gradient is grad(tmp_2), said not kept (issue 30)
    assert ('tooltip="grad(tmp_2)\\nthe gradient reaching tmp_2\\nnot kept: tmp_2.grad is '
            'None\\ngrad_fn = TanhBackward0 (tmp_2.grad_fn)"') in src
    assert "<b>AccumulateGrad</b>" in src and "writes = x.grad" in src


@pytest.mark.parametrize("version", ["2.6", "3"])
def test_paddle_3_compact(version):
    from gradrepl.paddle import state

    state.reset(version)
    paddle = _paddle()
    x, y = chain(paddle, 22)
    y.backward()
    ns = {"x": x, "y": y}
    src = viz.graph(y, namespace=ns).dot()   # auto: compact
    assert src == viz.graph(y, namespace=ns, look="compact").dot()
    assert "<b>GradNodeAccumulation</b>" in src and "writes = x.grad" in src
    assert "<b>TanhGradNode #11</b>" in src and "<b>ScaleGradNode #1</b>" in src
    for view in VIEWS:
        g = M.build(y, namespace=ns)
        assert viz.graph(y, view=view, namespace=ns).dot() == D.to_dot(g, view=view)


# ------------------------------------------------------------------ --layers, slide options
def _vgg_like():
    paddle = _paddle()
    from gradrepl.engine import Recorder

    model = vgg_like_model(paddle)
    rec = Recorder()
    with rec:
        x = paddle.rand([1, 3, 8, 8])
        predicts = model(x)
        loss = paddle.nn.functional.mse_loss(predicts, paddle.ones([1, 5]))
    return loss, {"model": model, "x": x, "predicts": predicts, "loss": loss}, rec


def test_layers_compact_vgg_like():
    loss, ns, rec = _vgg_like()
    for view in VIEWS:   # all ops: compact by default, the fast path as the model's
        pic = viz.graph(loss, view=view, namespace=ns, recorder=rec)
        assert pic._flat is not None and "tooltip=" in pic.dot()
        g = M.build(loss, namespace=ns, recorder=rec)
        assert pic.dot() == D.to_dot(g, view=view)
    # parameters and their gradients on one line (name and shape; the gradient's values), the
    # statement that made them in the tooltip; the user's x and loss keep their records
    src = pic.dot()
    ids = one_line_ids(src)
    params = [t for t in g.tensors if t.parameter]
    assert params and all(t.id in ids and t.grad_var in ids for t in params)
    w = params[0]
    assert (f'\t{w.id} [label=<<b>{w.name}</b>&#160; <font point-size="9">float32[4, 3, 3, 3]'
            f'</font>>') in src and f'tooltip="{w.name}  float32[4, 3, 3, 3]\\ndata = ' in src
    named = {t.id for t in g.tensors if t.name in ("x", "loss")}
    assert len(named) == 2 and not named & set(ids)
    pic = viz.graph(loss, namespace=ns, recorder=rec, layers=2, look="compact")
    golden("vgg_like_layers2_both.dot", pic.dot())
    src = pic.dot()
    # a layer box: its name, statement and parameter count; the ops and shapes in its tooltip
    assert ('L2 [label=<<b>Conv2D model.features.0</b>&#160; <font point-size="9">2 params, '
            '112 values</font>> fillcolor="#efe3ff" fontsize=11 group=f '
            'height=0.2 margin="0.08,0.02" penwidth=2 shape=box style="rounded,filled" '
            'tooltip="Conv2D model.features.0\\n3 ops: Conv2d, Reshape, Add\\n'
            'weight  float32[4, 3, 3, 3]\\nbias  float32[4]"]') in src
    assert ('tooltip="Conv2D model.features.0 backward\\ngrad_pending_ops = None\\n'
            'input = x , tmp_2_grad\\noutput = None\\nwrites = weight_grad , bias_grad"') in src
    assert "tooltip=\"Conv2D model.features.3\\n3 ops: Conv2d, Reshape, Add\\n" \
           "weight  float32[8, 4, 3, 3]\\nbias  float32[8]\"" in src
    assert "<b>tmp_2</b>&#160; <font point-size=\"9\">float32[1, 4, 8, 8]</font>" in src
    # auto with --layers: compact past 20 tensors and gradient variables (--layers 2: 15 + 13),
    # full below (--layers 1: 8 + 6)
    assert D.LAYERS_LOOK_LIMIT == 20
    assert viz.graph(loss, namespace=ns, recorder=rec, layers=2).dot() == src
    full = viz.graph(loss, namespace=ns, recorder=rec, layers=1)
    assert "tooltip" not in full.dot() and full.dot() == D.to_dot(
        transform.layers(M.build(loss, namespace=ns, recorder=rec), 1), look="full")
    assert "writes = 0.weight_grad , 0.bias_grad , 3.weight_grad , 3.bias_grad" in full.dot()
    # slide options go with it
    dark = viz.graph(loss, namespace=ns, recorder=rec, layers=1, look="compact",
                     rankdir="LR", theme="dark", font_size=16).dot()
    assert "rankdir=LR" in dark and 'bgcolor="#1e1e1e"' in dark or "bgcolor=" in dark
    assert "tooltip=" in dark and "fontsize=13.33" in dark  # (10 points at 16 / 12)
    # collapse
    col = viz.graph(loss, namespace=ns, recorder=rec, collapse=True, look="compact").dot()
    assert "tooltip=" in col


def test_a_parameters_statement_goes_into_its_tooltip(tmp_path):
    """``gradrepl graph`` labels leaves with their statements: a full record shows it above,
    a one-line parameter in its tooltip's second line (escaped there as any tooltip text)."""
    from gradrepl.viz.capture import run_for_pictures

    script = tmp_path / "mlp.py"
    script.write_text('import paddle\npaddle.seed(1)\n'
                      'model = paddle.nn.Linear(3, 4, name="lin")\n'
                      'x = paddle.rand([2, 3])\nloss = model(x).sum()\n')  # (no backward:
    # the graph is whole, so the fast path draws it, compared with the model's path)
    run = run_for_pictures(str(script))
    assert run.error is None
    ns = run.namespace
    for view in VIEWS:
        pic = viz.graph(ns["loss"], view=view, namespace=ns, recorder=run.recorder, look="compact")
        g = M.build(ns["loss"], namespace=ns, recorder=run.recorder)
        assert pic._flat is not None and pic.dot() == D.to_dot(g, view=view, look="compact")
    w = [t for t in g.tensors if t.parameter][0]
    assert w.label == 'model = paddle.nn.Linear(3, 4, name="lin")'
    assert (f'tooltip="{w.name}  float32[3, 4]\\n' + w.label.replace('"', '\\"') + '\\ndata = '
            ) in pic.dot()


def test_shell_and_command_take_look(tmp_path):
    from gradrepl.repl.session import Session

    s = Session()
    for src in ("import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
                "b = paddle.tanh(a * 3.0) * a"):
        assert s.run(src).output == ""
    res = s.run("%graph b --look compact --rankdir LR -o " + str(tmp_path / "b.dot"))
    text = (tmp_path / "b.dot").read_text()
    assert "tooltip=" in text and "rankdir=LR" in text and "wrote" in res.output
    s.run("%graph b -o " + str(tmp_path / "b2.dot"))
    assert "tooltip=" not in (tmp_path / "b2.dot").read_text()
    res = s.run("%graph b --look tiny")
    assert res.output == ("%graph: argument --look: invalid choice: 'tiny' (choose from "
                          "'full', 'compact', 'auto')\n")
