"""The shell without a terminal: ``gradrepl < file`` and pipes read the input as Python's console
would (values echo), print outputs on stdout and errors on stderr, and show no prompts."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gradrepl.repl.shell import _Feeder

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "examples" / "seeds"
# vgg11's forward and backward take seconds (minutes under emulation, past the 120 s timeout):
# slow, as in tests/test_seeds.py
CASES = [pytest.param(stem, marks=pytest.mark.slow) if "vgg" in stem else stem
         for stem in sorted(p.stem for p in SEEDS.glob("*.py"))]
_VARNAME = re.compile(r"\(Unavailable\) \S+ trying")  # as tests/test_seeds.py: the 2.2 name


def _env(**extra):
    env = dict(os.environ)
    env.pop("GRADREPL_PADDLE", None)
    env.update(extra)
    return env


# a guard against a hung shell, not a speed check: under qemu-user (aarch64 on x86-64) the vgg11
# seed script's forward alone took more than 120 s
TIMEOUT = 1200 if __import__("gradrepl.repl.kernel", fromlist=["_"])._emulated_on() else 120


def shell(text, *args, env=None, stdin=None):
    kw = {"stdin": stdin} if stdin is not None else {"input": text}
    return subprocess.run([sys.executable, "-m", "gradrepl", *args], capture_output=True,
                          text=True, env=env or _env(), timeout=TIMEOUT, cwd=str(ROOT), **kw)


@pytest.mark.parametrize("name", CASES)
def test_seed_scripts_piped_print_the_article_output(name):
    """Every seed script, fed on stdin: exactly the bytes of its .out, nothing on stderr."""
    with open(SEEDS / f"{name}.py", "rb") as f:  # a regular file: `gradrepl < script.py`
        r = shell(None, stdin=f)
    expected = (SEEDS / f"{name}.out").read_text(encoding="utf-8")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert _VARNAME.sub("VAR", r.stdout) == _VARNAME.sub("VAR", expected)


def test_seed_example_one_through_a_pipe_is_byte_exact():
    r = shell((SEEDS / "s000_example_one.py").read_text())
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.encode() == (SEEDS / "s000_example_one.out").read_bytes()


def test_console_habits_echo_underscore_and_no_prompts():
    r = shell("import paddle\na = paddle.to_tensor(2.0, stop_gradient=False)\nb = a * 5\nb\n"
              "_ is b\nNone\nx = 3\nprint('hi'); 1 + 1\n")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == ("Tensor(shape=[1], dtype=float32, place=CPUPlace, stop_gradient=False,\n"
                        "       [10.])\nTrue\nhi\n2\n")


def test_errors_go_to_stderr_and_the_run_goes_on_with_status_1():
    r = shell("1/0\nprint('after')\nx = )\nundefined_name\nprint('still here')\n")
    assert r.returncode == 1
    assert r.stdout == "after\nstill here\n"
    assert r.stderr.startswith("Traceback (most recent call last):\n  File \"<stdin>\", line 1")
    assert "ZeroDivisionError: division by zero\n" in r.stderr
    assert "SyntaxError" in r.stderr and "NameError" in r.stderr
    assert "gradrepl" not in r.stderr  # the user's frames only


def test_bad_input_never_kills_it():
    r = shell("import paddle\npaddle.zeros([10**6, 10**6])\n"
              "def f(n): return f(n + 1)\n\nf(0)\nprint('alive')\n")
    assert r.stdout == "alive\n"
    assert "MemoryError" in r.stderr or "Unable to allocate" in r.stderr
    assert "RecursionError" in r.stderr


def test_exit_and_system_exit_leave_with_their_code():
    r = shell("print(1)\nexit(3)\nprint(2)\n")
    assert (r.returncode, r.stdout) == (3, "1\n")
    r = shell("raise SystemExit(4)\n")
    assert r.returncode == 4
    r = shell("exit()\n")
    assert r.returncode == 0
    r = shell("raise SystemExit('bye')\n")
    assert r.returncode == 1 and "bye" in r.stderr


def test_blocks_as_scripts_write_them():
    src = textwrap.dedent("""\
        total = 0
        for i in range(3):
            total += i
        print(total)
        def f(x):
            y = x * 2

            return y + 1
        f(4)
        if total > 5:
            print('big')
        else:
            print('small')
        class A:
            def m(self):
                return 'm'

            def n(self):
                return 'n'
        A().n()
        x = [1,
        2]
        x
    """)
    r = shell(src)
    assert r.stderr == "" and r.returncode == 0
    assert r.stdout == "3\n9\nsmall\n'n'\n[1, 2]\n"


def test_percent_commands_in_plain_text():
    r = shell("import paddle\na = paddle.to_tensor(2.0, stop_gradient=False)\nc = a * 3\n"
              "%vars\n%graph c\n%step c\n%nope\n")
    assert "\x1b[" not in r.stdout
    assert re.search(r"^c\s+\[1\]\s+float32\s+False\s+False", r.stdout, re.M)
    assert "ScaleBackward" in r.stdout and "c = a * 3" in r.stdout
    # %step without a terminal: every frame, one after the other
    assert "step 0 of 4: Before backward" in r.stdout
    assert "step 4 of 4: a's gradient is stored: a.grad = 3." in r.stdout
    assert "unknown command %nope" in r.stderr and r.returncode == 1


def test_profile_option_env_and_unknown_profile():
    r = shell("import paddle\npaddle.to_tensor(2.0)\n", "shell", "--paddle", "3")
    assert r.stdout == ("Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
                        "       2.)\n")
    r = shell("import paddle\nprint(paddle.__version__)\n", env=_env(GRADREPL_PADDLE="2.6"))
    assert r.stdout == "2.6.2\n"
    r = shell("1\n", "shell", "--paddle", "1.8")
    assert r.returncode == 2 and "unknown Paddle profile" in r.stderr and r.stdout == ""
    r = shell("1\n", "shell", "--bogus")
    assert r.returncode == 2 and "--bogus" in r.stderr


def test_a_live_pipe_is_not_held_up_by_a_block():
    """A block ended by an empty line runs without waiting for more input (the look past the
    empty line for an indented continuation gives up quickly on a pipe)."""
    p = subprocess.Popen([sys.executable, "-m", "gradrepl"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=_env(), cwd=str(ROOT))
    try:
        p.stdin.write("for i in range(2):\n    print(i * 7)\n\n")
        p.stdin.flush()
        t0 = time.monotonic()
        assert p.stdout.readline() == "0\n"
        assert p.stdout.readline() == "7\n"
        assert time.monotonic() - t0 < 60
        p.stdin.write("print('done')\n")
        p.stdin.close()
        assert p.stdout.read() == "done\n"
    finally:
        p.kill() if p.poll() is None else None
        p.wait(timeout=30)
    assert p.returncode == 0


def _feed(text, peek_all=True):
    f = _Feeder()
    lines = text.split("\n")
    out = []
    for k, line in enumerate(lines):
        rest = [ln for ln in lines[k + 1:] if ln.strip()]
        out += f.push(line, peek=(lambda r=rest: r[0] if r else None) if peek_all else None)
    return out + f.flush()


def test_feeder_follows_the_console_with_two_allowances():
    assert _feed("a = 1\nb = 2") == ["a = 1", "b = 2"]
    assert _feed("for i in x:\n    f(i)\n\ng()") == ["for i in x:\n    f(i)", "g()"]
    # an unindented statement ends a block that had no empty line
    assert _feed("for i in x:\n    f(i)\ng()") == ["for i in x:\n    f(i)", "g()"]
    # else/elif/except continue it
    assert _feed("if a:\n    b\nelse:\n    c\n") == ["if a:\n    b\nelse:\n    c"]
    # an empty line inside a body: kept when the body goes on (a script), the console's end
    # of block when nothing can be looked at
    assert _feed("def f():\n    a = 1\n\n    return a\nf()") == \
        ["def f():\n    a = 1\n\n    return a", "f()"]
    assert _feed("def f():\n    a = 1\n\n    return a", peek_all=False) == \
        ["def f():\n    a = 1", "    return a"]
    # brackets go on over lines and empty lines
    assert _feed("x = (1,\n\n2)\ny") == ["x = (1,\n\n2)", "y"]
    # decorators stay with their function; comments alone run as nothing
    assert _feed("@d\ndef f():\n    pass\n\n# c\n") == ["@d\ndef f():\n    pass", "# c"]
