"""Progress on long work (gradrepl/progress.py): a transient status line on a terminal's
stderr while ``gradrepl graph`` runs the script, builds the graph, lays it out and draws its
frames; nothing at all when stderr is piped, under TERM=dumb or GRADREPL_PROGRESS=0; no colour
under NO_COLOR. The terminal cases run in a pty (pexpect)."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradrepl import progress

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(ROOT / "examples" / "seeds" / "s000_example_two.py")


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "FORCE_COLOR", "GRADREPL_PROGRESS", "GRADREPL_PADDLE")}
    env["TERM"] = "xterm-256color"
    env.update(extra)
    return env


def test_enabled_only_on_a_terminal(monkeypatch):
    monkeypatch.delenv("GRADREPL_PROGRESS", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert progress.enabled(_Tty())
    assert not progress.enabled(io.StringIO())          # piped, redirected
    monkeypatch.setenv("TERM", "dumb")
    assert not progress.enabled(_Tty())
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("GRADREPL_PROGRESS", "0")
    assert not progress.enabled(_Tty())


def test_silent_status_and_each_write_nothing(monkeypatch):
    stream = io.StringIO()
    with progress.status("working", stream) as say:
        say("still working")
    assert list(progress.each([1, 2, 3], "item {i} of {n}", stream=stream)) == [1, 2, 3]
    assert stream.getvalue() == ""


def test_each_counts_on_a_terminal(monkeypatch):
    monkeypatch.delenv("GRADREPL_PROGRESS", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    stream = _Tty()
    assert list(progress.each(iter("ab"), "frame {i} of {n}", total=2, stream=stream)) == ["a", "b"]
    assert "frame 1 of 2" in stream.getvalue() and "frame 2 of 2" in stream.getvalue()


def _pty(args, env, tmp_path):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "gradrepl", *args], cwd=str(tmp_path), env=env,
                          encoding="utf-8", timeout=240, dimensions=(24, 400))
    # (wide: a status line names the script by the path it was given, which in a checkout deep
    # in the file system passes 100 columns, and rich cuts a status line at the terminal's width)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.before


@pytest.mark.slow
def test_graph_shows_its_phases_on_a_terminal_then_erases_them(tmp_path):
    rc, out = _pty(["graph", SCRIPT, "--tensor", "e", "-o", "e.svg"], _env(), tmp_path)
    assert rc == 0, out
    assert "running " in out and "s000_example_two.py" in out
    assert "building the graph of e" in out
    assert "laying out and drawing e.svg" in out
    assert "\x1b[2K" in out                 # the line erased (transient)
    assert out.rstrip().endswith("wrote e.svg")
    assert (tmp_path / "e.svg").exists()


@pytest.mark.slow
def test_steps_count_their_frames_on_a_terminal(tmp_path):
    rc, out = _pty(["graph", SCRIPT, "--tensor", "e", "--steps", "steps"], _env(), tmp_path)
    assert rc == 0, out
    assert re.search(r"laying out the backward pass: frame \d+ of \d+", out)


@pytest.mark.slow
def test_no_colour_under_no_color(tmp_path):
    rc, out = _pty(["graph", SCRIPT, "--tensor", "e", "-o", "e.svg"], _env(NO_COLOR="1"),
                   tmp_path)
    assert rc == 0, out
    assert "building the graph of e" in out
    assert "\x1b[32m" not in out and "\x1b[3" not in out.replace("\x1b[?25", "")


@pytest.mark.parametrize("extra", [{"TERM": "dumb"}, {"GRADREPL_PROGRESS": "0"}])
@pytest.mark.slow
def test_nothing_under_term_dumb_or_when_turned_off(tmp_path, extra):
    rc, out = _pty(["graph", SCRIPT, "--tensor", "e", "-o", "e.svg"], _env(**extra), tmp_path)
    assert rc == 0, out
    assert out.replace("\r\n", "\n") == "wrote e.svg\n"


def test_nothing_when_piped(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gradrepl", "graph", SCRIPT, "--tensor", "e",
                           "-o", "e.svg"], cwd=tmp_path, env=_env(), capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "wrote e.svg\n" and done.stdout == ""


SESSION = str(Path(__file__).resolve().parent.parent / "sessions" / "s000_example_two.pycon")


@pytest.mark.slow
def test_replay_html_counts_its_blocks_then_says_it_writes_the_handout(tmp_path):
    rc, out = _pty(["replay", "--check", SESSION, "--html", "h.html"], _env(), tmp_path)
    assert rc == 0, out
    assert re.search(r"replaying \S+s000_example_two\.pycon: block \d+ of 11 \(with its "
                     r"pictures\)", out)
    assert "writing h.html" in out
    assert "s000_example_two.pycon: ok, 11 blocks" in out
    assert out.rstrip().endswith("wrote h.html")
    assert (tmp_path / "h.html").exists()


@pytest.mark.slow
def test_plain_replay_shows_no_status_line(tmp_path):
    """A plain replay prints each block as it runs: that is its progress; no spinner over it."""
    rc, out = _pty(["replay", SESSION], _env(), tmp_path)
    assert rc == 0, out
    assert "replaying " not in out and "\x1b[2K" not in out


@pytest.mark.slow
def test_why_says_what_it_follows_on_a_terminal(tmp_path):
    rc, out = _pty(["why", SCRIPT, "a.grad"], _env(), tmp_path)
    assert rc == 0, out
    assert "following the chain rule to a.grad" in out
    assert "\x1b[2K" in out


def test_why_and_replay_are_silent_when_piped(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gradrepl", "why", SCRIPT, "a.grad"],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and "a.grad" in done.stdout and "\x1b" not in done.stdout
    done = subprocess.run([sys.executable, "-m", "gradrepl", "replay", "--check", SESSION,
                           "--html", "h.html"], cwd=tmp_path, env=_env(), capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "replaying" not in done.stderr + done.stdout
    assert done.stderr == "wrote h.html\n"
