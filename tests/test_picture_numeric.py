"""Numerical against autograd on the picture (``gradrepl graph ... --numeric``), and torch's
backward nodes named as torch users know them (issue 30).

The numbers on a leaf's gradient box are checked against ``gradrepl gradcheck``'s report of the
same script (the same digits), and against the derivative worked out by hand.
"""
from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EX2 = ROOT / "examples" / "seeds" / "s000_example_two.py"     # e = (a * b) * d, a=2 b=5 d=4
TORCH_EX2 = ROOT / "examples" / "torch" / "s003_example_two.py"


def run(*args):
    return subprocess.run([sys.executable, "-m", "gradrepl", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def texts(svg):
    return [html.unescape(t) for t in re.findall(r"<text\b[^>]*>([^<]*)</text>", svg)]


def record(dot, title):
    """The HTML label of the record titled ``title`` in DOT text."""
    for line in dot.splitlines():
        if f"<b>{title}</b>" in line:
            return line
    raise AssertionError(f"no record {title!r}")


@pytest.fixture(scope="module")
def gradcheck_report():
    r = run("gradcheck", EX2)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_numeric_rows_equal_gradcheck(tmp_path, gradcheck_report):
    out = tmp_path / "e.dot"
    r = run("graph", EX2, "--tensor", "e", "--numeric", "-o", out)
    assert r.returncode == 0, r.stderr
    dot = out.read_text()
    by_hand = {"a": 5 * 4, "b": 2 * 4, "d": 2 * 5}     # de/da = b d, de/db = a d, de/dd = a b
    for name, value in by_hand.items():
        rec = record(dot, f"{name}_grad")
        m = re.search(r"numeric \(h = 1e-06, central differences\): ([0-9.e+-]+)", rec)
        assert m, rec
        assert abs(float(m.group(1)) - value) < 1e-6
        # the very digits gradcheck prints for that leaf
        line = next(ln for ln in gradcheck_report.splitlines() if ln.startswith(f"{name}.grad:"))
        assert f"numeric {m.group(1)} " in line, (line, m.group(1))
        assert f"autograd: {value}." in rec and f"autograd {value}.," in line
        err = re.search(r"max abs error [^:]+: agree to \d+ digits", rec).group(0)
        assert err in gradcheck_report
    # the non-leaves' boxes (c_grad, e_grad) get no check: only leaves are nudged
    assert "central differences" not in record(dot, "c_grad")
    # without --numeric: nothing of it
    r = run("graph", EX2, "--tensor", "e", "-o", tmp_path / "plain.dot")
    assert "central differences" not in (tmp_path / "plain.dot").read_text()


def test_numeric_on_the_png(tmp_path):
    out = tmp_path / "e.svg"
    assert run("graph", EX2, "--tensor", "e", "--numeric", "-o", out).returncode == 0
    said = texts(out.read_text())
    assert "numeric (h = 1e-06, central differences): 20.00000000" in said
    assert "autograd: 20." in said
    out = tmp_path / "e.png"
    assert run("graph", EX2, "--tensor", "e", "--numeric", "-o", out).returncode == 0
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_numeric_with_chain_and_torch(tmp_path):
    # --chain logs the backward's events too: both the log and the check's tape hear them
    out = tmp_path / "y.dot"
    r = run("graph", TORCH_EX2, "--tensor", "y", "--at", "34", "--chain", "--numeric",
            "-o", out)
    assert r.returncode == 0, r.stderr
    dot = out.read_text()
    # y = (w + x) * (w + 1), w = 1, x = 2: dy/dw = (w + 1) + (w + x) = 5, dy/dx = w + 1 = 2
    assert re.search(r"w\.grad</b>.*numeric \(h = 1e-06, central differences\): 5\.0000000",
                     dot)
    assert re.search(r"x\.grad</b>.*numeric \(h = 1e-06, central differences\): 2\.0000000",
                     dot)
    assert "agree to" in dot and "DISAGREE" not in dot


def test_sampled_elements_said(tmp_path):
    p = tmp_path / "w.py"
    p.write_text("import paddle\npaddle.seed(1)\nW = paddle.randn([5, 6])\n"
                 "W.stop_gradient = False\nloss = (W * W).sum()\nloss.backward()\n")
    out = tmp_path / "w.dot"
    r = run("graph", p, "--tensor", "loss", "--numeric", "-o", out)
    assert r.returncode == 0, r.stderr
    rec = record(out.read_text(), "W_grad")
    assert "numeric (h = 1e-06, central differences, 16 of 30 elements): [" in rec
    assert "agree to" in rec


# ---------------------------------------------------------------------------- torch's names
def test_torch_nodes_named_as_torch_users_reach_them(tmp_path):
    out = tmp_path / "y.dot"
    r = run("graph", TORCH_EX2, "--tensor", "y", "--at", "34", "-o", out)
    assert r.returncode == 0, r.stderr
    dot = out.read_text()
    # a = w + x and b = w + 1 make two AddBackward0 nodes: told apart by the tensor each made
    assert "<b>AddBackward0 (a.grad_fn)</b>" in dot and "<b>AddBackward0 (b.grad_fn)</b>" in dot
    assert "<b>AccumulateGrad (w)</b>" in dot and "<b>AccumulateGrad (x)</b>" in dot
    assert not re.search(r"Backward0? #\d|AccumulateGrad #\d", dot)
    # a tensor's record says grad_fn as torch's repr does; the node alone is MulBackward0
    assert "grad_fn = AddBackward0<" in record(dot, "a") + "<"
    assert "<b>MulBackward0</b>" in dot
    assert "AddBackward0 (a.grad_fn) is the node torch reaches as a.grad_fn" in dot
    # the text view and the step narration use the same names
    r = run("graph", TORCH_EX2, "--tensor", "y", "--at", "34", "--view", "backward")
    assert "next_functions = AddBackward0 (a.grad_fn), AddBackward0 (b.grad_fn)" in r.stdout
    assert "#1" not in r.stdout


def test_paddle_keeps_its_numbering(tmp_path):
    r = run("graph", EX2, "--tensor", "e", "--view", "backward")
    assert "MulBackward #1" in r.stdout and "MulBackward #2" in r.stdout


# ---------------------------------------------------------------------------- why --numeric
def test_why_numeric_text_and_picture(tmp_path, gradcheck_report):
    out = tmp_path / "why.dot"
    r = run("why", EX2, "a.grad", "--numeric", "-o", out)
    assert r.returncode == 0, r.stderr
    # the explanation, then gradcheck's own lines for a.grad
    assert r.stdout.startswith("a.grad = 20\n")
    said = r.stdout.split("numerically (central differences beside autograd):\n")[1]
    report = gradcheck_report.splitlines()
    k = next(i for i, ln in enumerate(report) if ln.startswith("a.grad:"))
    assert said.splitlines()[:2] == report[k:k + 2]
    # the picture: a_grad's box alone gets the rows
    dot = out.read_text()
    assert "numeric (h = 1e-06, central differences): 20.00000000" in record(dot, "a_grad")
    assert "central differences" not in record(dot, "b_grad")
    # a non-leaf: said plainly, nothing made up
    r = run("why", EX2, "c", "--numeric")
    assert r.returncode == 0, r.stderr
    assert "c is not a leaf" in r.stdout and "autograd" not in r.stdout
    r = run("why", EX2, "a.grad")
    assert "numerically" not in r.stdout


def test_graph_numeric_as_text(gradcheck_report):
    r = run("graph", EX2, "--tensor", "e", "--numeric", "--view", "backward")
    assert r.returncode == 0, r.stderr
    said = r.stdout.split("numerically (central differences beside autograd):\n")[1]
    # gradcheck's report, but its closing count: the same lines for the same leaves
    assert said.splitlines() == gradcheck_report.splitlines()[:-1]


def test_step_frames_show_the_check_once_the_gradient_is_written(tmp_path):
    out = tmp_path / "steps"
    r = run("graph", EX2, "--tensor", "e", "--numeric", "--steps", out)
    assert r.returncode == 0, r.stderr
    frames = sorted(out.glob("frame_*.svg"))
    counts = [f.read_text().count("central differences") for f in frames]
    said = [texts(f.read_text())[0] for f in frames]
    # Paddle 2.2 writes d_grad, then a_grad and b_grad when MulBackward #1 runs: a leaf's box
    # shows the check from the frame its value appears, never beside "data = None"
    for k, f in enumerate(frames):
        svg = f.read_text()
        for leaf in ("a_grad", "b_grad", "d_grad"):
            i = svg.find(f">{leaf}<")
            box = svg[i:svg.find("grad_op", i)]
            assert ("central differences" in box) == ("data = None" not in box), (k, leaf)
    assert counts[0] == 0 and counts[-1] == 3, (counts, said)


def test_accumulated_gradient_checked_on_its_final_value_only(tmp_path):
    p = tmp_path / "acc.py"
    p.write_text("import paddle\nx = paddle.to_tensor(2.0, stop_gradient=False)\n"
                 "y = x * x\ny.backward(retain_graph=True)\ny.backward()\n")
    out = tmp_path / "steps"
    r = run("graph", p, "--tensor", "y", "--numeric", "--steps", out)
    assert r.returncode == 0, r.stderr
    last = texts(sorted(out.glob("frame_*.svg"))[-1].read_text())
    # x.grad = 4 + 4 over two backward() calls: the numeric slope is that of both runs
    assert "numeric (h = 1e-06, central differences): 8.000000000" in last
    r = run("graph", p, "--tensor", "y", "--numeric", "-o", tmp_path / "y.dot")
    assert "autograd: 8." in (tmp_path / "y.dot").read_text()
