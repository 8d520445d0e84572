"""Pictures of unusual graphs draw instead of crashing: a double-grad node that links a saved
input past its forward inputs (Paddle 3's second-order graph: IndexError before), and tensors
whose name is empty (Graphviz refused the empty bold title)."""
import subprocess
import sys
from pathlib import Path

import pytest

import gradrepl.paddle as paddle
from gradrepl import viz
from gradrepl.paddle import profiles

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("view", ["both", "forward", "backward"])
def test_second_order_graph_draws_under_paddle_3(view, tmp_path):
    out = tmp_path / "dx.dot"
    r = subprocess.run([sys.executable, "-m", "gradrepl", "graph",
                        str(ROOT / "examples" / "graphs" / "second_order.py"), "--tensor", "dx",
                        "--paddle", "3", "--view", view, "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    if view != "forward":
        assert "MultiplyGradNode" in out.read_text()


def test_second_order_model_under_paddle_3_keeps_every_edge():
    profiles.set_profile("3")
    x = paddle.to_tensor(3.0, stop_gradient=False)
    y = x * x * x
    (dx,) = paddle.grad(y, x, create_graph=True)
    g = viz.graph(dx, namespace={"x": x, "y": y, "dx": dx}).model
    assert any(t.name == "x" for t in g.tensors)
    assert "MultiplyGradNode" in viz.graph(dx, namespace={"x": x, "dx": dx}).dot()


def test_empty_names_get_a_visible_title():
    a = paddle.to_tensor(2.0, stop_gradient=False)
    a.name = ""
    b = a * 3
    b.name = "  "
    b.backward()
    pic = viz.graph(b, namespace={})
    assert "<b>''</b>" in pic.dot() and "<b>'  '</b>" in pic.dot()
    assert "<svg" in pic.svg()
