"""``gradrepl replay FILE --present`` (gradrepl/repl/present.py): a lesson shown block by block,
in a real pseudo-terminal (pexpect, as tests/test_shell_pty.py), over sessions from sessions/.

On a terminal each block ends with a status line, ``block 7 of 21 · Enter: run it · b: back · g:
go to · q: quit``, that stands until a key comes: the only place the progress shows (no rule
before each input), and the sign that the presenter waits. What a block prints comes after the
key.
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
WAIT = "Enter: run it · b: back · g: go to · q: quit"
AGAIN = "ran before · Enter: next · b: back · g: go to · q: quit"
STEP = "Enter: next step · b: the step before · q: the last step"
STATUS = re.compile(r"block (\d+) of (\d+) · $")
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


def wait(child, hint=WAIT):
    """Until the presenter waits for a key; what it showed since the last wait (plain), the
    status line's "block k of n · " left off (``child.status``: (k, n))."""
    child.expect_exact(hint)
    text = plain(child.before)
    m = STATUS.search(text)
    child.status = (int(m.group(1)), int(m.group(2))) if m else None
    return text[:m.start()] if m else text


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
                            "profile\nEnter runs the next block, b goes back, g N goes to block "
                            "N, q quits.\n")
    assert "──" not in first and child.status == (1, 11)
    # block 1: its comments and its input, nothing run yet; the progress only in the status
    assert first.endswith("\n\n"
                          "# Seed 000, section 4, example two: e = (a * b) * d. By the chain "
                          "rule\n"
                          "# c_grad = e_grad * d = 4, d_grad = e_grad * c = 10, a_grad = c_grad "
                          "* b = 20,\n"
                          "# b_grad = c_grad * a = 8.\n"
                          ">>> import paddle\n")
    for k in range(2, 9):
        child.send("\r")
        shown = wait(child)
        assert child.status == (k, 11) and "──" not in shown
    # block 8 is shown, not yet run: its output comes only after Enter
    assert shown.endswith('>>> print("Tensor a\'s grad is: {}".format(a.grad))\n')
    assert "[20.]" not in shown
    child.send("\r")
    shown = wait(child)
    assert shown.startswith("Tensor a's grad is: Tensor(shape=[1], dtype=float32, "
                            "place=CPUPlace, stop_gradient=False,\n       [20.])\n\n")
    assert child.status == (9, 11)
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
    assert child.status == (7, 10)
    assert shown.endswith("\n# Before backward: every gradient variable is still empty "
                          "(None).\n>>> %graph e\n")
    child.send("\r")
    shown = wait(child)
    # the %graph block's picture, as text: the forward graph with the ops' statements ...
    assert "●  Mul  c = a * b  [a, b -> c]" in shown
    assert re.search(r"●  e  float32\[1\] = 40\.  \(grad_var=e_grad, target\)", shown)
    # ... and the backward graph, gradients still empty
    assert re.search(r"\n    a_grad = None  grad_op = None\n", shown)
    # ... and where its SVG was written, for a browser beside the terminal
    svg = re.search(r"\(the picture: (\S+\.svg)\)\n", shown)
    assert svg and Path(svg.group(1)).read_text().lstrip().startswith(("<?xml", "<svg"))
    assert child.status == (8, 10)
    # %step: its frames one at a time (Enter), each in place of the one before: the cursor
    # goes back up over the frame (ESC [ n A) and clears below (ESC [ J), nothing reprinted
    child.send("\r")
    child.expect_exact(STEP)
    first = child.before
    height = len(plain(first).rstrip("\n").split("\n")[-14:])
    child.send("\r")
    child.expect_exact(STEP)
    moved = re.search(r"\x1b\[(\d+)A\r\x1b\[J", child.before)
    assert moved and int(moved.group(1)) == 14 == height, child.before
    assert "step 1 of 7:" in plain(child.before)
    child.send("b")                      # back one step: step 0 again, in place
    child.expect_exact(STEP)
    assert "step 0 of 7:" in plain(child.before) and "\x1b[J" in child.before
    child.send("q")
    shown = wait(child)
    assert "a_grad = 20." in shown   # the last frame: every gradient filled
    assert child.status == (9, 10)
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
    assert "\x1b[2mblock 1 of 10 · " in raw                        # the status line, dim
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
    assert "── block" not in text and text.count("block 3 of") == 1   # only in the quit line
    assert "Enter: run it" not in text.split("\n", 2)[2]   # no status off a terminal
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
    assert shown[1].startswith("\\x1b[2Jwiped?\n\n>>> open(")
    assert shown[2].startswith("gradrepl --safe: refused: line 3: 'open' is not allowed")
    # the %graph block: the child's picture, as text
    assert "●  MulBackward" in shown[6] and "x_grad = None" in shown[6]
    # exit() ended the child's session: the next block did not run, and says why
    assert rest.strip() == "(block 8 of 8 did not run: the session exited at line 8)"


def test_back_and_go_to_a_block():
    child = spawn(EXAMPLE_TWO)
    wait(child)
    for _ in range(3):               # blocks 1-3 run; block 4 waits
        child.send("\r")
        wait(child)
    assert child.status == (4, 11)
    child.send("b")                  # back: block 3 again, with the output it gave, not run
    shown = wait(child, AGAIN)
    assert child.status == (3, 11) and shown.endswith(
        ">>> b = paddle.to_tensor(5.0, stop_gradient=False)\n")
    child.send("\x1b[D")             # Left: back again
    wait(child, AGAIN)
    assert child.status == (2, 11)
    child.send("\r")                 # Enter on a block that ran: on to the next, not run again
    wait(child, AGAIN)
    assert child.status == (3, 11)
    child.send("g")                  # g 9: blocks 4-8 run unseen, block 9 waits
    child.expect_exact("go to block: ")
    child.send("9\r")
    shown = wait(child)
    assert child.status == (9, 11)
    assert "(running blocks 4 to 8 without showing them)" in shown and "[20.]" not in shown
    child.send("g")                  # g 8: shown as it ran (its print), not run twice
    child.expect_exact("go to block: ")
    child.send("8\r")
    shown = wait(child, AGAIN)
    assert child.status == (8, 11) and "Tensor a's grad is: " in shown and "[20.]" in shown
    child.send("\r")
    wait(child)
    child.send("\r")                 # block 9 runs now
    shown = wait(child)
    assert child.status == (10, 11) and "[8.]" in shown
    child.send("g")                  # g, then Esc: nothing happens, nothing is shown again
    child.expect_exact("go to block: ")
    child.send("\x1b")
    shown = wait(child)
    assert child.status == (10, 11) and ">>>" not in shown
    child.send("q")
    assert finish(child, 0).strip() == "(quit at block 10 of 11)"


def test_back_and_go_to_as_lines(tmp_path):
    from gradrepl.repl.present import present_files

    keys = iter(["next", "next", "back", ("goto", 6), "next", "back", "quit"])
    out, err = io.StringIO(), io.StringIO()
    assert present_files([str(ROOT / EXAMPLE_TWO)], out=out, err=err,
                         keys=lambda: next(keys), color=False) == 0
    text = out.getvalue()
    assert "(running blocks 3 to 5 without showing them)" in text
    assert text.count(">>> a = paddle.to_tensor(2.0, stop_gradient=False)\n") == 2
    assert text.endswith("(quit at block 6 of 11)\n")
    # the line keys of a pipe: b, g 7
    from gradrepl.repl.present import terminal_keys

    read = terminal_keys(io.StringIO("\nb\ng 7\ng\n3\nq\n"))
    assert [read(), read(), read(), read(), read.number(), read()] == \
        ["next", "back", ("goto", 7), "goto", 3, "quit"]


def test_load_then_record_writes_a_session_replay_accepts(tmp_path):
    """%load SCRIPT.py runs it statement by statement, as typed, so %record writes a file
    that replay --check accepts (it was one input of '... ' lines: exit 2); an object's
    address, never the same twice, is recorded as a '...' wildcard line."""
    from gradrepl.repl.replay_cli import replay_command
    from gradrepl.repl.session import Session

    script = tmp_path / "small.py"
    script.write_text(textwrap.dedent("""\
        import paddle
        # a comment between statements
        x = paddle.to_tensor(3.0, stop_gradient=False)
        def f(v):

            return v * v + v
        y = f(x); y.backward()
        print(x.grad)
        paddle.seed(0)
    """), encoding="utf-8")
    s = Session()
    s.run(f"%load {script}")
    out = tmp_path / "out.pycon"
    assert s.run(f"%record {out}").output == f"recorded 6 inputs to {out}\n"
    text = out.read_text()
    assert ">>> y = f(x); y.backward()\n" in text and "\n...\n" in text
    o, e = io.StringIO(), io.StringIO()
    assert replay_command([str(out)], check=True, out=o, err=e) == 0, o.getvalue() + e.getvalue()
    assert o.getvalue() == f"{out}: ok, 6 blocks (profile 2.2)\n"
