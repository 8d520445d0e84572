"""The command line behaves like a Python tool's: --version, -h, unknown options, the script's own
traceback, arguments to the script, Ctrl-C as python exits on it."""
import os
import signal
import subprocess
import sys
import time

import pytest

GR = [sys.executable, "-m", "gradrepl"]


def _run(args, cwd=None):
    return subprocess.run(GR + args, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_version_and_short_help():
    from importlib import metadata

    p = _run(["--version"])
    assert p.returncode == 0 and p.stdout.strip() == f"gradrepl {metadata.version('gradrepl')}"
    for args in (["-h"], ["run", "-h"], ["graph", "-h"]):
        p = _run(args)
        assert p.returncode == 0 and "Usage: gradrepl" in p.stdout, (args, p.stderr)


def test_an_unknown_option_is_not_taken_for_a_file(tmp_path):
    p = _run(["run", "--bogus", "x.py"])
    assert p.returncode == 2
    assert "no such option: --bogus" in p.stderr and "no such file" not in p.stderr


def test_a_scripts_error_shows_its_own_frames(tmp_path):
    script = tmp_path / "err.py"
    script.write_text("import torch\n\ndef f():\n    return torch.ones(2) @ torch.ones(3)\n\nf()\n")
    p = _run(["run", str(script)])
    assert p.returncode == 1
    # (without the exact extra, torch's one-line notice about last bits comes first)
    lines = [ln for ln in p.stderr.splitlines() if not ln.startswith("gradrepl: torch's")]
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-1].startswith("RuntimeError: inconsistent tensor size")
    assert "gradrepl" not in "\n".join(lines).replace(str(tmp_path), "")  # no frame of ours
    assert f'File "{script}", line 6, in <module>' in p.stderr
    assert f'File "{script}", line 4, in f' in p.stderr
    debug = _run(["run", "--debug", str(script)])
    assert os.sep + "gradrepl" + os.sep in debug.stderr  # --debug keeps them


def test_arguments_reach_the_script(tmp_path):
    script = tmp_path / "argv.py"
    script.write_text("import sys\nprint(sys.argv[1:])\n")
    assert _run(["run", str(script), "a", "-b"]).stdout.strip() == "['a', '-b']"
    assert _run(["run", str(script), "--", "-x", "1"]).stdout.strip() == "['-x', '1']"


def test_sys_exit_codes_and_messages(tmp_path):
    script = tmp_path / "ex.py"
    script.write_text("import sys\nsys.exit('bye')\n")
    p = _run(["run", str(script)])
    assert p.returncode == 1 and p.stderr.strip() == "bye"
    script.write_text("raise SystemExit(3)\n")
    assert _run(["run", str(script)]).returncode == 3


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def _sigint_as_a_terminal_gives_it():
    """In the child before exec: SIGINT's default disposition, and not blocked (both are
    inherited across exec: ignored, Python installs no KeyboardInterrupt handler; blocked, the
    signal never arrives)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_exits_130_with_one_line(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text("import time\nprint('started', flush=True)\nwhile True:\n"
                      "    time.sleep(0.05)\n")
    p = subprocess.Popen(GR + ["run", str(script)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         preexec_fn=_sigint_as_a_terminal_gives_it)
    assert p.stdout.readline().strip() == "started"
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert err.strip() == "KeyboardInterrupt"


def test_paddle_version_before_the_command(tmp_path):
    """``gradrepl --paddle 3`` starts the shell as Paddle 3, and the option before a command
    reaches it; a wrong version is one line and exit 2."""
    script = tmp_path / "v.py"
    script.write_text("import paddle\nprint(paddle.__version__)\n")
    assert _run(["--paddle", "3", "run", str(script)]).stdout == "3.3.1\n"
    assert _run(["run", str(script)]).stdout == "2.2.1\n"
    p = subprocess.run(GR + ["--paddle", "2.6"], input="import paddle\npaddle.__version__\n",
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "'2.6.2'" in p.stdout
    p = _run(["--paddle", "9", "run", str(script)])
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "'9'" in p.stderr


def test_one_wording_for_a_missing_file(tmp_path):
    for cmd in ("run", "graph", "why", "replay", "quiz", "gradcheck"):
        args = [cmd, str(tmp_path / "nope.py")] + (["x"] if cmd == "why" else [])
        p = _run(args, cwd=tmp_path)
        assert p.returncode == 2, cmd
        assert p.stderr == f"gradrepl {cmd}: no such file: {tmp_path / 'nope.py'}\n", cmd


def test_a_lesson_is_reported_by_the_name_typed():
    p = _run(["replay", "--check", "lesson:s000_example_two"])
    assert p.returncode == 0
    assert p.stdout == "lesson:s000_example_two: ok, 11 blocks (profile 2.2)\n"
