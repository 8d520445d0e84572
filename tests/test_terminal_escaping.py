"""Names from a session reach a terminal with their control characters escaped: ``gradrepl why``
(on a terminal), the shell's ``%why`` and ``replay --present`` show a parameter named
``\\x1b]0;pwned\\x07`` (an escape sequence that retitles the window) as text, never raw. The
data stays as it is: ``viz.why(...)``'s explanation, and ``gradrepl why`` into a pipe."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradrepl.viz import sanitize

ROOT = Path(__file__).resolve().parent.parent
EVIL = "\x1b]0;pwned\x07"
SHOWN = "\\x1b]0;pwned\\x07"
# a Sequential with a sublayer named by an escape sequence: its parameters are named
# net.<EVIL>.weight in every picture and explanation
LINES = ["import paddle", "net = paddle.nn.Sequential()",
         f"_ = net.add_sublayer({EVIL!r}, paddle.nn.Linear(1, 1))",
         "x = paddle.to_tensor([[2.0]], stop_gradient=False)", "y = net(x).sum()",
         "y.backward()"]
RAW = ("\x1b]", "\x07")


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_terminal_escapes_what_a_terminal_obeys_and_keeps_lines():
    s = "a\x1b[2Jb\x07c\rd\x9be\u202ef\tg\nh\udc80"
    assert sanitize.terminal(s) == "a\\x1b[2Jb\\x07c\\x0dd\\x9be\\u202ef\tg\nh\ufffd"
    assert sanitize.terminal("plain\ttext\n") == "plain\ttext\n"
    assert sanitize.for_terminal(_Tty(), EVIL) == SHOWN
    assert sanitize.for_terminal(io.StringIO(), EVIL) == EVIL     # not a terminal: as it is


def _script(tmp_path):
    path = tmp_path / "evil.py"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


def test_why_api_keeps_the_name_and_percent_why_escapes_it():
    from gradrepl.repl.session import Session

    s = Session(profile="2.2")
    for ln in LINES:
        assert s.run(ln).error is None
    res = s.run("%why x")
    assert res.error is None and SHOWN in res.output
    assert not any(r in res.output for r in RAW)
    assert EVIL in res.value.text()                        # the explanation's data: unchanged
    assert res.value.text().count("\n") == res.output.count("\n")


def test_gradrepl_why_on_a_terminal_escapes_and_into_a_pipe_does_not(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    path = _script(tmp_path)
    env = dict(os.environ, NO_COLOR="1", TERM="xterm")
    env.pop("GRADREPL_PADDLE", None)
    child = pexpect.spawn(sys.executable, ["-m", "gradrepl", "why", str(path), "x"], env=env,
                          encoding="utf-8", timeout=120, dimensions=(40, 300))
    child.expect(pexpect.EOF)
    out = child.before
    child.close()
    assert child.exitstatus == 0, out
    assert "x.grad = " in out and SHOWN in out
    assert not any(r in out for r in RAW), repr(out[:400])
    piped = subprocess.run([sys.executable, "-m", "gradrepl", "why", str(path), "x"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert piped.returncode == 0 and EVIL in piped.stdout


def _present(path, *extra):
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, NO_COLOR="1", TERM="xterm-256color")
    env.pop("GRADREPL_PADDLE", None)
    child = pexpect.spawn(sys.executable, ["-m", "gradrepl", "replay", str(path), "--present",
                                           *extra], env=env, encoding="utf-8", timeout=120,
                          dimensions=(40, 300), cwd=str(ROOT))
    out = ""
    while True:
        k = child.expect_exact(["Enter: run it · b: back · g: go to · q: quit", pexpect.EOF])
        out += child.before
        if k == 1:
            break
        child.send("\r")
    child.close()
    assert child.exitstatus == 0, out[-2000:]
    return out


@pytest.mark.parametrize("safe", [False, True])
def test_present_shows_names_and_source_escaped(tmp_path, safe):
    if safe:
        from gradrepl.repl import kernel

        why = kernel.probe()
        if why:
            pytest.skip(why)
    src = tmp_path / "evil.pycon"
    # the source carries the raw bytes too (a string literal typed with them)
    src.write_text("".join(f">>> {ln}\n" for ln in LINES)
                   + f">>> s = '{EVIL}'\n>>> %why x\n>>> %graph y --view backward\n",
                   encoding="utf-8")
    out = _present(src, *(["--safe"] if safe else []))
    assert not any(r in out for r in RAW), repr(out[:400])
    assert out.count(SHOWN) >= 5        # the input, the %why paths, the picture's records
    assert f"(x @ net.{SHOWN}.weight)" in out
    assert f"net.{SHOWN}.weight_grad = 2." in out
