"""``lesson:NAME`` wherever a command takes a file, quiz and gradcheck included (the docs'
examples use lesson names, so they work from an installed wheel without the clone)."""
from __future__ import annotations

import os
import subprocess
import sys


def _gradrepl(args, tmp_path, stdin=""):
    env = {k: v for k, v in os.environ.items() if k != "GRADREPL_PADDLE"}
    env["NO_COLOR"] = "1"
    return subprocess.run([sys.executable, "-m", "gradrepl", *args], cwd=tmp_path, env=env,
                          input=stdin, capture_output=True, text=True, timeout=240)


def test_quiz_takes_a_lesson_name(tmp_path):
    done = _gradrepl(["quiz", "lesson:two_paths"], tmp_path, stdin="w = 20\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 of 1 right" in done.stdout


def test_gradcheck_takes_a_lesson_name(tmp_path):
    done = _gradrepl(["gradcheck", "lesson:two_paths"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all agree" in done.stdout


def test_an_unknown_lesson_is_one_line(tmp_path):
    done = _gradrepl(["quiz", "lesson:no_such_lesson"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "gradrepl quiz: no lesson named 'no_such_lesson' (gradrepl lessons lists them)"]
