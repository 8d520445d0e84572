"""``%graph NAME --numeric`` in the shell and in notebooks (issue 30: "numerical against autograd,
on the picture"): the session's inputs run again with every op recorded, each leaf nudged by h
either way, and the central differences put beside autograd: under the text graph (the words of
``gradrepl graph --numeric``) and in each leaf's gradient record of a picture.

The numbers are checked against an independent computation: y = x*x + x at x = 3 has
dy/dx = 2*3 + 1 = 7 by hand; loss = (w * b).sum() has dloss/dw = b broadcast over w's rows and
dloss/db = the column sums of w (numpy here)."""
from __future__ import annotations

import html
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from gradrepl.repl.session import Session

ROOT = Path(__file__).resolve().parent.parent

PADDLE = ["import paddle",
          "x = paddle.to_tensor([3.0], stop_gradient=False)",
          "y = x * x + x",
          "y.backward()"]

TORCH_BROADCAST = ["import torch",
                   "w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)",
                   "b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)",
                   "loss = (w * b).sum()",
                   "loss.backward()"]


def session(lines):
    s = Session()
    for line in lines:
        r = s.run(line)
        assert r.error is None, r.output
    return s


def agree_line(text, name):
    m = re.search(rf"^{re.escape(name)}\.grad: autograd (.*?), numeric (.*?) \(h = 1e-06, "
                  r"central differences in float64\)\n  max abs error .*?: agree to (\d+) digits",
                  text, re.M)
    assert m, text
    return m.groups()


def test_text_puts_the_check_under_the_graph():
    s = session(PADDLE)
    out = s.run("%graph y --numeric").output
    assert out.startswith(s.run("%graph y").output)   # the same graph, then the check
    assert "session's 4 inputs ran again with every op recorded" in out
    auto, num, digits = agree_line(out, "x")
    assert auto == "7." and abs(float(num) - 7.0) < 1e-6 and int(digits) >= 6
    # the session itself is untouched (the rerun is a fresh session)
    assert s.namespace["x"].grad.numpy().tolist() == [7.0]
    assert len(s.history) == 6   # (4 statements and the two %graph lines)


def test_picture_rows_beside_autograd(tmp_path):
    s = session(TORCH_BROADCAST)
    out = tmp_path / "b.dot"
    r = s.run(f"%graph loss --numeric -o {out}")
    assert r.error is None and "wrote" in r.output, r.output
    dot = html.unescape(out.read_text())
    w = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = np.array([10.0, 20.0, 30.0])
    assert dot.count("numeric (h = 1e-06, central differences") == 2   # w and b
    fmt = lambda a: "[" + ", ".join(fmt(x) for x in a) + "]" if np.ndim(a) else f"{a:g}."  # noqa
    assert f"autograd: {fmt(w.sum(0))}" in dot                       # b.grad: [5., 7., 9.]
    assert f"autograd (2x3): {fmt(np.broadcast_to(b, w.shape))}" in dot   # w.grad: b, per row
    assert "central differences, 2x3): [[9.99999" in dot   # (its shape kept, not flattened)
    assert dot.count("agree to") == 2 and "DISAGREE" not in dot
    # without --numeric: no rows
    s.run(f"%graph loss -o {out}")
    assert "numeric (h" not in out.read_text()


def test_help_and_bad_use():
    s = session(PADDLE)
    assert "[--numeric]" in s.run("%help graph").output
    assert "--numeric" in s.run("%help").output
    r = s.run("%graph zz --numeric")
    assert r.error is not None and "no variable named 'zz'" in r.output
    # a graph none of whose leaves a recorded backward wrote: said, not an error
    s2 = session(["import paddle", "x = paddle.to_tensor([3.0], stop_gradient=False)",
                  "y = x * 2"])
    out = s2.run("%graph y --numeric").output
    assert "no leaf of this graph got a gradient from a recorded backward" in out


def test_handout_draws_the_numeric_rows(tmp_path):
    """A session file's ``%graph y --numeric`` line: the handout's figure has the rows."""
    import subprocess

    p = tmp_path / "n.pycon"
    p.write_text("".join(f">>> {line}\n" for line in PADDLE) + ">>> %graph y --numeric\n")
    r = subprocess.run([sys.executable, "-m", "gradrepl", "replay", str(p), "--html",
                        str(tmp_path / "n.html")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    text = html.unescape((tmp_path / "n.html").read_text())
    assert "numeric (h = 1e-06, central differences): 7.0000" in text
    assert "autograd: 7." in text


@pytest.mark.slow
def test_notebook_graph_numeric(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        pytest.skip("no python3 Jupyter kernel (pip install ipykernel)")
    cells = ["%load_ext gradrepl", "import torch",
             "x = torch.tensor(3.0, requires_grad=True)\ny = x * x + x\n%graph y\ny.backward()",
             "print('between')",
             f"%graph y --numeric -o {tmp_path / 'nb.dot'}",
             "%graph y --numeric --theme print"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    env = {k: v for k, v in os.environ.items() if k != "GRADREPL_PADDLE"}
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=240,
                            resources={"metadata": {"path": str(tmp_path)}}).execute(env=env)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"
              or o.get("name") == "stderr"]
    assert not errors, errors
    said = "".join(o.get("text", "") for o in nb.cells[5].outputs if o.get("name") == "stdout")
    assert said.startswith("numerically (central differences beside autograd; the session's 3 "
                           "inputs ran again"), said   # (cells 2, 3 and 4: magic lines left out)
    assert "x.grad: autograd 7., numeric 7.0000" in said
    shown = "".join(o.get("data", {}).get("text/html", "") for o in nb.cells[5].outputs)
    assert "<svg" in shown and "central differences" in html.unescape(shown)   # (the rows)
    dot = html.unescape((tmp_path / "nb.dot").read_text())
    assert "numeric (h = 1e-06, central differences): 7.0000" in dot
    assert "autograd: 7." in dot and "agree to" in dot


@pytest.mark.slow
def test_terminal_shows_the_check_after_the_coloured_graph(tmp_path):
    """The shell in a real pseudo-terminal (pexpect), colour on: the graph is drawn in colour
    from the picture, and the check still follows it."""
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1",
               XDG_STATE_HOME=str(tmp_path / "state"))
    env.pop("GRADREPL_PADDLE", None)
    env.pop("NO_COLOR", None)
    on, off = "\x1b[?2004h", "\x1b[?2004l"
    child = pexpect.spawn(sys.executable, ["-m", "gradrepl"], env=env, cwd=str(ROOT),
                          dimensions=(40, 200), encoding="utf-8", timeout=60)
    child.expect_exact(on)

    def run(line):
        child.send(line + "\r")
        child.expect_exact(off)
        child.expect_exact(on)
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]", "",
                      child.before).replace("\r\n", "\n")

    for line in PADDLE:
        run(line)
    raw_out = run("%graph y --numeric")
    assert "x_grad = 7." in raw_out and "MulBackward" in raw_out
    assert raw_out.index("MulBackward") < raw_out.index("numerically (central differences")
    auto, num, _digits = agree_line(raw_out, "x")
    assert auto == "7." and abs(float(num) - 7.0) < 1e-6
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
