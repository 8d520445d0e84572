"""No colour where the terminal cannot show it (TERM=dumb, NO_COLOR) and --help that wraps
cleanly: ``gradrepl graph``, ``why``, ``replay`` and ``replay --help`` in a pty (pexpect)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow   # (gradrepl in a pty, a dozen times)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "seeds" / "s000_example_two.py")
SESSION = str(ROOT / "sessions" / "s000_example_two.pycon")
# SGR sequences that set a colour (30-37, 38;..., 90-97 and backgrounds), not bold or dim
COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])[0-9;]*m")

COMMANDS = [["graph", EXAMPLE, "--tensor", "e"], ["why", EXAMPLE, "a"], ["replay", SESSION],
            ["replay", "--help"], ["graph", "--help"]]


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "FORCE_COLOR", "GRADREPL_PADDLE", "COLUMNS")}
    env.update(extra)
    return env


def _pty(args, env):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "gradrepl", *args], env=env, encoding="utf-8",
                          timeout=240, dimensions=(40, 100))
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.before


def test_graph_is_coloured_on_a_capable_terminal():
    # (so the tests below would see colour if gradrepl printed it)
    rc, out = _pty(COMMANDS[0], _env(TERM="xterm-256color"))
    assert rc == 0 and COLOUR.search(out), out[:300]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2])[-30:])
@pytest.mark.parametrize("env", [{"TERM": "dumb"}, {"TERM": "xterm-256color", "NO_COLOR": "1"}],
                         ids=["TERM=dumb", "NO_COLOR"])
def test_no_colour(args, env):
    rc, out = _pty(args, _env(**env))
    assert rc == 0, out
    assert not COLOUR.search(out), repr(COLOUR.search(out).group(0))


def test_replay_help_wraps_its_paragraphs_cleanly():
    done = subprocess.run([sys.executable, "-m", "gradrepl", "replay", "--help"],
                          env=_env(TERM="dumb"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80      # not a terminal: 80 columns
    start = next(i for i, line in enumerate(lines) if "Exit status:" in line)
    paragraph = []
    for line in lines[start:]:
        if not line.strip():
            break
        paragraph.append(line.strip())
    # every line but the paragraph's last is filled to the width: no break mid-phrase
    assert len(paragraph) >= 3
    assert all(len(line) >= 66 for line in paragraph[:-1]), paragraph


def test_flags_show_no_bool_type():
    done = subprocess.run([sys.executable, "-m", "gradrepl", "replay", "--help"],
                          env=_env(TERM="dumb"), capture_output=True, text=True, timeout=120)
    for flag in ("--check", "--help"):
        line = next(line for line in done.stdout.splitlines() if flag in line)
        assert "<bool>" not in line, line
