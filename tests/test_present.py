"""``gradrepl replay FILE --present`` (gradrepl/repl/present.py): a lesson shown block by block,
in a real pseudo-terminal (pexpect, as tests/test_shell_pty.py), over sessions from sessions/.

On a terminal each block ends with a hint, ``(Enter: run it · q: quit)``, that stands until a
key comes: it is the sign that the presenter waits. What a block prints comes after the key.
"""
from __future__ import annotations

import io
import os
import re
import sys
import textwrap
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_TWO = "sessions/s000_example_two.pycon"   # 11 blocks
GRAPH_STEP = "sessions/lesson_graph_step.pycon"   # 10 blocks, %graph e at block 7
WAIT = "(Enter: run it · q: quit)"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TIMEOUT = 60


def plain(text):
    return ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "")


def spawn(*args, color=False):
    env = dict(os.environ)
    env.update(TERM="xterm-256color")
    env.pop("GRADREPL_PADDLE", None)
    if color:
        env.pop("NO_COLOR", None)
    else:
        env["NO_COLOR"] = "1"
    return pexpect.spawn(sys.executable, ["-m", "gradrepl", "replay", *args, "--present"],
                         env=env, cwd=str(ROOT), dimensions=(40, 200), encoding="utf-8",
                         timeout=TIMEOUT)


def wait(child):
    """Until the presenter waits for a key; what it showed since the last wait (plain)."""
    child.expect_exact(WAIT)
    return plain(child.before)


def finish(child, status):
    child.expect(pexpect.EOF)
    rest = plain(child.before or "")
    child.close()
    assert child.exitstatus == status, rest
    return rest


def test_enter_runs_each_block_and_q_quits():
    child = spawn(EXAMPLE_TWO)
    first = wait(child)
    assert first.startswith("presenting sessions/s000_example_two.pycon: 11 blocks, Paddle 2.2 "
                            "profile\nEnter runs the next block, q quits.\n")
    # block 1: its header, its comments and its input, nothing run yet
    assert first.endswith("── block 1 of 11 ── line 4\n"
                          "# Seed 000, section 4, example two: e = (a * b) * d. By the chain "
                          "rule\n"
                          "# c_grad = e_grad * d = 4, d_grad = e_grad * c = 10, a_grad = c_grad "
                          "* b = 20,\n"
                          "# b_grad = c_grad * a = 8.\n"
                          ">>> import paddle\n")
    for k in range(2, 9):
        child.send("\r")
        shown = wait(child)
        assert f"── block {k} of 11 ──" in shown
    # block 8 is shown, not yet run: its output comes only after Enter
    assert shown.endswith('>>> print("Tensor a\'s grad is: {}".format(a.grad))\n')
    assert "[20.]" not in shown
    child.send("\r")
    shown = wait(child)
    assert shown.startswith("Tensor a's grad is: Tensor(shape=[1], dtype=float32, "
                            "place=CPUPlace, stop_gradient=False,\n       [20.])\n\n"
                            "── block 9 of 11 ── line 14\n")
    assert "[8.]" not in shown
    child.send("q")
    rest = finish(child, 0)
    assert rest.strip() == "(quit at block 9 of 11)"
    assert "Traceback" not in rest


def test_to_the_end_with_a_picture_as_text():
    child = spawn(GRAPH_STEP)
    shown = wait(child)
    for k in range(2, 8):
        child.send("\r")
        shown = wait(child)
    # (the lesson's expected outputs may change length: its line numbers are not pinned)
    assert re.search(r"── block 7 of 10 ── line \d+\n# Before backward: every gradient variable "
                     r"is still empty \(None\)\.\n>>> %graph e\n$", shown)
    child.send("\r")
    shown = wait(child)
    # the %graph block's picture, as text: the forward graph with the ops' statements ...
    assert "●  Mul  c = a * b  [a, b -> c]" in shown
    assert re.search(r"●  e  float32\[1\] = 40\.  \(grad_var=e_grad, target\)", shown)
    # ... and the backward graph, gradients still empty
    assert re.search(r"\n    a_grad = None  grad_op = None\n", shown)
    assert re.search(r"── block 8 of 10 ── line \d+\n", shown)
    # %step: its frames one at a time (Enter), then q shows the last frame
    child.send("\r")
    child.expect_exact("(Enter: next step · q: the last step)")
    child.send("\r")
    child.expect_exact("(Enter: next step · q: the last step)")
    child.send("q")
    shown = wait(child)
    assert re.search(r"\(on to the last of the \d+ frames\)", shown)
    assert "a_grad = 20." in shown   # the last frame: every gradient filled
    assert re.search(r"── block 9 of 10 ── line \d+\n", shown)
    child.send("\r")
    shown = wait(child)
    assert "c_grad = e_grad * d" in shown   # %graph --chain's arithmetic
    child.send("\r")
    rest = finish(child, 0)
    assert rest.rstrip().endswith("(end of sessions/lesson_graph_step.pycon: 10 blocks)")


def test_ctrl_c_and_ctrl_d_end_cleanly():
    child = spawn(EXAMPLE_TWO)
    wait(child)
    child.send("\r")
    wait(child)
    child.sendcontrol("c")
    rest = finish(child, 130)
    assert "(stopped: Ctrl-C)" in rest and "Traceback" not in rest

    child = spawn(EXAMPLE_TWO)
    wait(child)
    child.sendcontrol("d")
    rest = finish(child, 0)
    assert rest.strip() == "(end of input at block 1 of 11)"


def test_colour_on_a_terminal():
    child = spawn(GRAPH_STEP, color=True)
    child.expect_exact(WAIT)
    raw = child.before
    assert "\x1b[1m── block 1 of 10 ── line 4\x1b[0m" in raw       # the header, bold
    assert "\x1b[3;90m# Lesson: the graphs behind example two" in raw  # comments, grey
    child.send("q")
    finish(child, 0)


def test_a_bad_block_shows_its_error_and_the_lesson_goes_on(tmp_path):
    src = tmp_path / "bad.pycon"
    src.write_text(textwrap.dedent("""\
        # One error in the middle.
        >>> x = 1 / 0
        >>> %graph nothing
        >>> print("still here")
        still here
    """), encoding="utf-8")
    child = spawn(str(src))
    wait(child)
    child.send("\r")
    shown = wait(child)
    assert ("Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
            "ZeroDivisionError: division by zero\n") in shown
    child.send("\r")
    shown = wait(child)
    assert "%graph: no variable named 'nothing'" in shown
    child.send("\r")
    rest = finish(child, 0)
    assert rest.startswith("still here\n")


def test_keys_as_lines_when_stdin_is_not_a_terminal(tmp_path):
    from gradrepl.repl.present import present_files
    from gradrepl.repl.replay_cli import replay_command

    keys = iter(["next", "next", "quit"])

    out, err = io.StringIO(), io.StringIO()
    assert present_files([str(ROOT / EXAMPLE_TWO)], out=out, err=err,
                         keys=lambda: next(keys), color=False) == 0
    text = out.getvalue()
    assert "── block 3 of 11 ── line 6" in text and "block 4 of" not in text
    assert text.endswith(">>> b = paddle.to_tensor(5.0, stop_gradient=False)\n"
                         "(quit at block 3 of 11)\n")

    # the combinations that make no sense: one line, exit 2
    for kw, name in (({"check": True}, "--check"), ({"update": True}, "--update"),
                     ({"html": str(tmp_path / "x.html")}, "--html")):
        out, err = io.StringIO(), io.StringIO()
        assert replay_command([str(ROOT / EXAMPLE_TWO)], present=True, out=out, err=err,
                              **kw) == 2
        assert out.getvalue() == ""
        assert err.getvalue().startswith("gradrepl replay: --present shows a session live, "
                                         f"block by block; it does not go with {name}")
        assert err.getvalue().count("\n") == 1
    assert not (tmp_path / "x.html").exists()

    # a file that is not a session: one line, exit 2
    bad = tmp_path / "bad.pycon"
    bad.write_bytes(b">>> 1\n\xff\n")
    out, err = io.StringIO(), io.StringIO()
    assert present_files([str(bad)], out=out, err=err, keys=lambda: "next", color=False) == 2
    assert err.getvalue() == f"gradrepl replay --present: {bad}: not UTF-8 text\n"
    assert out.getvalue() == ""


HOSTILE = r"""# A student's file.
>>> print("\x1b[2Jwiped?")
>>> open("/etc/hostname").read()
>>> import paddle
>>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
>>> y = (x * x).sum()
>>> %graph y --view backward
>>> exit()
>>> print("never")
"""


def test_control_characters_reach_the_terminal_escaped(tmp_path):
    src = tmp_path / "ctl.pycon"
    src.write_text(HOSTILE.split(">>> open")[0], encoding="utf-8")
    child = spawn(str(src))
    wait(child)
    child.send("\r")
    rest = finish(child, 0)
    assert rest.startswith("\\x1b[2Jwiped?\n")     # shown, not obeyed
    assert "\x1b[2J" not in (child.before or "")


def test_present_safe_runs_the_session_in_the_confined_child(tmp_path):
    from gradrepl.repl import kernel

    why = kernel.probe()
    if why:
        pytest.skip(why)
    src = tmp_path / "hostile.pycon"
    src.write_text(HOSTILE, encoding="utf-8")
    child = spawn(str(src), "--safe")
    shown = [wait(child)]
    assert shown[0].startswith(f"presenting {src}: 8 blocks, Paddle 2.2 profile in the --safe "
                               "sandbox\n")
    for k in range(7):
        child.send("\r")
        shown.append(wait(child))
    child.send("\r")
    rest = finish(child, 0)
    assert shown[1].startswith("\\x1b[2Jwiped?\n\n── block 2 of 8 ── line 3\n")
    assert shown[2].startswith("gradrepl --safe: refused: line 3: 'open' is not allowed")
    # the %graph block: the child's picture, as text
    assert "●  MulBackward" in shown[6] and "x_grad = None" in shown[6]
    # exit() ended the child's session: the next block did not run, and says why
    assert rest.strip() == "(block 8 of 8 did not run: the session exited at line 8)"
