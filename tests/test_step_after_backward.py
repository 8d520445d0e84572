"""``e.backward()`` then ``%step e`` (issue 30 item 5): the lesson's natural order.

The graph is released by then; ``%step`` says so in plain words and shows the steps that
``e.backward()`` took (the session's record of it), without running it again (the gradients stay
as they are). Where no record is kept, it says what to do instead; never the engine's
freed-graph error naming ``eager_tmp_0``.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PADDLE = ["import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
          "b = paddle.to_tensor(5.0, stop_gradient=False)", "c = a * b",
          "d = paddle.to_tensor(4.0, stop_gradient=False)", "e = c * d"]
TORCH = ["import torch", "a = torch.tensor(2.0, requires_grad=True)",
         "b = torch.tensor(5.0, requires_grad=True)", "c = a * b",
         "d = torch.tensor(4.0, requires_grad=True)", "e = c * d"]


def _session(profile, lines):
    from gradrepl.repl.session import Session

    s = Session(profile=profile)
    for src in lines:
        r = s.run(src)
        assert r.error is None, (src, r.output)
    return s


@pytest.mark.parametrize("profile,lines", [("2.2", PADDLE), ("3", PADDLE), ("2.2", TORCH)],
                         ids=["paddle2.2", "paddle3", "torch"])
def test_step_after_backward_shows_the_recorded_steps(profile, lines):
    s = _session(profile, lines + ["e.backward()"])
    before = s.run("print(a.grad)").output
    r = s.run("%step e")
    assert r.error is None, r.output
    assert "eager_tmp" not in r.output and "Error" not in r.output
    assert r.output.startswith("e.backward() already ran and released the graph (no "
                               "retain_graph=True): these are the steps it took")
    assert len(r.frames) == 8   # step 0 to step 7, as %step before backward shows them
    assert "step 7 of 7" in r.frames[-1]
    assert ("= 20." in r.frames[-1]) and ("b.grad = 8." in r.output)
    # nothing ran again: a.grad is still 20, not 40
    assert s.run("print(a.grad)").output == before


def test_step_before_backward_still_runs_it():
    s = _session("3", PADDLE)
    r = s.run("%step e")
    assert r.error is None and "already ran" not in r.output
    assert "20." in s.run("print(a.grad)").output


def test_step_after_backward_without_a_record_says_what_to_do():
    s = _session("3", PADDLE + ["e.backward()"])
    s.backward_log.runs.clear()   # (a training loop past the log's budget keeps no record)
    r = s.run("%step e")
    assert "eager_tmp" not in r.output and "SystemError" not in r.output
    text = " ".join(r.output.split())
    assert "e's graph was already released by e.backward()" in text
    assert "Run %step e before e.backward()" in text
    assert "e.backward(retain_graph=True)" in text


def test_step_after_retained_backward_runs_a_new_one():
    s = _session("3", PADDLE + ["e.backward(retain_graph=True)"])
    r = s.run("%step e")
    assert r.error is None and "already ran" not in r.output
    assert "40." in s.run("print(a.grad)").output   # 20 + 20: a second backward adds


def test_shell_step_after_backward(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    import re

    env = dict(os.environ, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1", NO_COLOR="1",
               XDG_STATE_HOME=str(tmp_path / "state"))
    env.pop("GRADREPL_PADDLE", None)
    child = pexpect.spawn(sys.executable, ["-m", "gradrepl", "shell", "--paddle", "3"], env=env,
                          cwd=str(ROOT), dimensions=(40, 200), encoding="utf-8", timeout=60)
    on, off = "\x1b[?2004h", "\x1b[?2004l"
    child.expect_exact(on)
    for line in PADDLE + ["e.backward()"]:
        child.send(line + "\r")
        child.expect_exact(off)
        child.expect_exact(on)
    child.send("%step e\r")
    child.expect_exact(off)
    child.expect_exact("Enter next, q finish")
    first = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before).replace("\r", "")
    assert "e.backward() already ran and released the graph" in " ".join(first.split())
    assert "eager_tmp" not in first
    child.send("q")
    child.expect_exact(on)
    child.send("print(a.grad.item())\r")
    child.expect_exact(off)
    child.expect_exact(on)
    assert "20.0" in child.before
    child.sendeof()
    child.expect(pexpect.EOF)


# ------------------------------------------------------------ pictures that count what why counts
def test_an_operand_used_twice_is_drawn_twice(tmp_path):
    """``x * x``: why counts a path through each operand; the picture draws both edges,
    labelled by place, forward and backward, in both drawing paths (model and fast)."""
    from gradrepl import viz
    from gradrepl.importhook import paddle_modules

    with paddle_modules():
        import paddle

        x = paddle.to_tensor(3.0, stop_gradient=False)
        y = x * x + x
        fast = viz.graph(y, namespace={"x": x, "y": y}).dot()
        full = viz.graph(y, namespace={"x": x, "y": y}, look="full", depth=9).dot()
    for dot in (fast, full):
        assert dot.count("t0 -> f0 [label=left") == 1 and dot.count("t0 -> f0 [label=right") == 1
        assert "label=left fontsize=9 dir=back" in dot and "label=right fontsize=9 dir=back" in dot


def test_why_picture_shows_what_flowed(tmp_path):
    from gradrepl.viz.why import why_command

    script = tmp_path / "t.py"
    script.write_text("import torch\na = torch.tensor(2.0, requires_grad=True)\n"
                      "b = torch.tensor(5.0, requires_grad=True)\nc = a * b\n"
                      "d = torch.tensor(4.0, requires_grad=True)\ne = c * d\ne.backward()\n")
    out = tmp_path / "why.dot"
    why_command(str(script), "a", str(out))
    dot = out.read_text()
    assert "<b>grad(c)</b>" in dot and "the gradient reaching c = " in dot
    assert "not kept: c.grad is None" in dot and "c.grad = " not in dot
