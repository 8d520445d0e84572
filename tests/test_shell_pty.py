"""The terminal shell as a user meets it: ``gradrepl`` in a real pseudo-terminal (pexpect),
typed at line by line.

prompt_toolkit redraws the prompt line as keys come, so ``>>> `` alone is no sign that an input
ran: each prompt turns bracketed paste on (``ESC[?2004h``) and off when its input is accepted
(``ESC[?2004l``); what a statement prints comes between the two. CPR queries are off
(``PROMPT_TOOLKIT_NO_CPR``), the window is 40x200, the history goes to a temporary
``XDG_STATE_HOME``.
"""
from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow   # (shell sessions typed into a pty: seconds each)

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "examples" / "seeds"
ON = "\x1b[?2004h"   # a prompt starts
OFF = "\x1b[?2004l"  # its input was accepted
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")
TIMEOUT = 30


def plain(text):
    return ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "")


def spawn(tmp_path, *args, term="xterm-256color", color=True, state=None):
    env = dict(os.environ)
    env.update(TERM=term, PROMPT_TOOLKIT_NO_CPR="1",
               XDG_STATE_HOME=str(state if state is not None else tmp_path / "state"))
    env.pop("GRADREPL_PADDLE", None)
    if color:
        env.pop("NO_COLOR", None)
    else:
        env["NO_COLOR"] = "1"
    child = pexpect.spawn(sys.executable, ["-m", "gradrepl", *args], env=env, cwd=str(ROOT),
                          dimensions=(40, 200), encoding="utf-8", timeout=TIMEOUT)
    child.expect_exact(ON)  # the first prompt is up
    return child


def run(child, *lines):
    """Type ``lines`` (a statement, or a block's lines and its closing empty line) and return
    what the input printed (raw, escapes and all)."""
    for line in lines:
        child.send(line + "\r")
    child.expect_exact(OFF)
    child.expect_exact(ON)
    return child.before


def expect_text(child, text):
    """Wait for ``text`` on the screen, however the terminal drew it: prompt_toolkit may redraw
    a completed word in pieces, with control sequences between its letters."""
    esc = r"(?:\x1b\[[0-9;?]*[A-Za-z])*"
    child.expect(esc.join(re.escape(c) for c in text))


def leave(child, status=0):
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == status, plain(child.before or "")


def seed_lines(name):
    import ast

    src = (SEEDS / f"{name}.py").read_text()
    lines = src.splitlines()
    return ["\n".join(lines[n.lineno - 1:n.end_lineno]) for n in ast.parse(src).body]


def test_a_session_as_a_user_types_it(tmp_path):
    child = spawn(tmp_path)
    # the seed example, statement by statement: its prints are the article's
    out = "".join(plain(run(child, line)) for line in seed_lines("s000_example_one"))
    assert out == (SEEDS / "s000_example_one.out").read_text()
    raw = run(child, "c")
    assert ("Tensor(shape=[1], dtype=float32, place=CPUPlace, stop_gradient=False,\r\n"
            "       [10.])") in raw
    assert plain(run(child, "_ is c")).strip() == "True"
    # bad input: the shell goes on
    assert "SyntaxError" in plain(run(child, "x = )"))
    assert "NameError: name 'undefined_name' is not defined" in plain(run(child,
                                                                          "undefined_name"))
    out = plain(run(child, "paddle.zeros([10**6, 10**6])"))
    assert "MemoryError" in out or "Unable to allocate" in out, out
    run(child, "def f(n): return f(n + 1)", "")  # a block, as in Python: its empty line
    assert "RecursionError" in plain(run(child, "f(0)"))
    # a block typed line by line (auto-indent adds its own level: still one block)
    assert plain(run(child, "for i in range(3):", "    print(i)", "")) == "0\n1\n2\n"
    # Ctrl-C during a statement: KeyboardInterrupt, and the session is as it was
    child.send("while True: pass\r\r")
    child.expect_exact(OFF)
    time.sleep(0.5)
    child.sendintr()
    child.expect_exact("KeyboardInterrupt")
    child.expect_exact(ON)
    assert "[2.])" in run(child, "a")
    # Ctrl-C at the prompt drops the line
    child.send("this is not run")
    child.sendcontrol("c")
    child.expect_exact(ON)
    assert plain(run(child, "6 * 7")).strip() == "42"
    # the % commands
    out = plain(run(child, "%help"))
    for name in ("%graph", "%step", "%vars", "%profile", "%load", "%help"):
        assert name in out
    out = plain(run(child, "%vars"))
    assert re.search(r"\bc\s+\[1\]\s+float32\s+False\s+False", out), out
    out = plain(run(child, "%graph c"))
    assert "Mul" in out and "MulBackward" in out and "c = a * b" in out
    assert "no variable named 'nope'" in plain(run(child, "%graph nope"))
    # %step: one frame, Enter for the next, q for the last
    run(child, "e = a * b")
    child.send("%step e\r")
    child.expect_exact(OFF)
    child.expect_exact("Enter next, q finish")
    first = plain(child.before)
    # (an earlier backward left a.grad: step 0 says so, "Before this backward: ...")
    assert re.search(r"step 0 of 4: Before (this )?backward", first), first
    child.send("\r")
    child.expect_exact("Enter next, q finish")
    assert "(Paddle: PrepareDeps)" in plain(child.before)
    child.send("q")
    child.expect_exact(ON)
    assert "gradient is stored:" in plain(child.before)
    assert "[10.])" in run(child, "a.grad")  # 5 (the seed's backward) + 5 (%step's)
    leave(child, 0)


def test_ctrl_d_exits_0_and_exit_leaves_with_its_code(tmp_path):
    child = spawn(tmp_path)
    leave(child, 0)
    child = spawn(tmp_path)
    child.send("exit(3)\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 3
    child = spawn(tmp_path)
    child.send("raise SystemExit(4)\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 4


def test_paste_runs_statement_by_statement_and_history_persists(tmp_path):
    child = spawn(tmp_path, color=False)
    script = ("import paddle\nx = paddle.to_tensor([1.0, 2.0], stop_gradient=False)\n"
              "y = (x * x).sum()\ny\nfor i in range(2):\n    print(i)\n\n    print('same block')\n"
              "undefined_name\ny.backward(); x.grad\n")
    import io

    child.logfile_read = log = io.StringIO()
    child.send("\x1b[200~" + script + "\x1b[201~")
    child.expect_exact("[2., 4.])")
    child.expect_exact(ON)
    child.logfile_read = None
    out = plain(log.getvalue())
    # each statement shown with its prompt, then what it printed; an error does not stop it
    assert ">>> y\nTensor(shape=[1]" in out
    assert "0\nsame block\n1\nsame block\n" in out
    assert "NameError" in out and ">>> y.backward(); x.grad\nTensor(shape=[2]" in out
    run(child, "z = 12345")
    leave(child, 0)
    history = (tmp_path / "state" / "gradrepl" / "history").read_text()
    assert "+z = 12345" in history and "+y.backward(); x.grad" in history
    # the next session recalls it with Up
    child = spawn(tmp_path, color=False)
    child.send("\x1b[A")
    child.expect_exact("12345")
    assert plain(run(child, "")).strip() == ""
    assert plain(run(child, "z")).strip() == "12345"
    leave(child, 0)


def test_unusable_history_is_reported_once_and_never_fatal(tmp_path):
    state = tmp_path / "state"
    (state / "gradrepl" / "history").mkdir(parents=True)  # a directory where the file goes
    child = spawn(tmp_path, state=state)
    out = plain(run(child, "1 + 1"))
    assert "2" in out and "history" in out
    out = plain(run(child, "2 + 2"))
    assert out.strip() == "4"
    leave(child, 0)


def test_tab_completes_paddle_api_tensor_methods_and_commands(tmp_path):
    child = spawn(tmp_path, color=False)
    run(child, "import paddle")
    child.send("paddle.to_te\t")
    expect_text(child, "to_tensor")
    assert "[3.])" in run(child, "(3.)")
    run(child, "t = _")
    child.send("t.stop_gr\t")
    expect_text(child, "stop_gradient")
    assert plain(run(child, "")).strip() == "True"
    child.send("%vari\t")  # no such command: nothing completes, the line stays as typed
    child.sendcontrol("c")
    child.expect_exact(ON)
    child.send("%va\t")
    expect_text(child, "%vars")
    assert "float32" in plain(run(child, ""))
    leave(child, 0)


def test_profile_flag_and_a_dumb_terminal(tmp_path):
    child = spawn(tmp_path, "shell", "--paddle", "3")
    raw = run(child, "import paddle; paddle.to_tensor(2.0)")
    assert "Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\r\n       2.)" \
        in raw
    leave(child, 0)
    # TERM=dumb: no prompt_toolkit, Python's plain prompts
    env = dict(os.environ, TERM="dumb", XDG_STATE_HOME=str(tmp_path / "state"))
    env.pop("GRADREPL_PADDLE", None)
    child = pexpect.spawn(sys.executable, ["-m", "gradrepl"], env=env, cwd=str(ROOT),
                          dimensions=(40, 200), encoding="utf-8", timeout=TIMEOUT)
    child.expect_exact(">>> ")
    child.send("for i in range(2):\r")
    child.expect_exact("... ")
    child.send("    print(i * 10)\r\r")
    child.expect_exact("10\r\n>>> ")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
