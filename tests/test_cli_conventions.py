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
def test_ctrl_c_exits_130_with_one_line(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text("import time\nprint('started', flush=True)\nwhile True:\n"
                      "    time.sleep(0.05)\n")
    p = subprocess.Popen(GR + ["run", str(script)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert err.strip() == "KeyboardInterrupt"
