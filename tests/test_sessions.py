"""Every session file in sessions/ replays and matches its expected output (``gradrepl replay
--check``): the seed articles' examples with the articles' outputs, and the lessons."""
from __future__ import annotations

import io
import pathlib
import re

import pytest

from gradrepl.repl.replay_cli import replay_command
from gradrepl.repl.transcript import parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
SESSIONS = ROOT / "sessions"
FILES = sorted(p.name for p in SESSIONS.glob("*.pycon"))


def _check(*paths):
    out, err = io.StringIO(), io.StringIO()
    code = replay_command([str(p) for p in paths], check=True, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


# vgg11's session replays a whole vgg11 (40 s here): slow (pytest -m "not slow" leaves it out)
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if "vgg" in n else n
                                  for n in FILES])
def test_session_replays_as_recorded(name):
    code, out, err = _check(SESSIONS / name)
    assert code == 0, out + err


def test_every_seed_example_has_a_session():
    assert FILES, "no session files found"
    seeds = sorted(p.stem for p in (ROOT / "examples" / "seeds").glob("*.py"))
    assert seeds
    missing = [s for s in seeds if f"{s}.pycon" not in FILES]
    assert not missing, missing


def test_seed_sessions_print_the_articles_outputs():
    """The seed sessions' expected outputs are the articles' (examples/seeds/*.out), line for
    line, in order (a session shows a traceback where a script caught the error)."""
    seeds = ROOT / "examples" / "seeds"
    for out_file in sorted(seeds.glob("*.out")):
        t = parse((SESSIONS / f"{out_file.stem}.pycon").read_text(encoding="utf-8"))
        shown = [ln for b in t.blocks for ln in b.expected]
        for line in out_file.read_text(encoding="utf-8").splitlines():
            if line.startswith("RuntimeError: (Unavailable)"):
                line = "RuntimeError: " + line.split(": ", 1)[1]
                assert any(x.startswith("RuntimeError: (Unavailable) ") for x in shown)
                continue
            assert line in shown, (out_file.name, line)


def test_the_lessons_are_there():
    texts = {n: (SESSIONS / n).read_text(encoding="utf-8") for n in FILES}
    lessons = {n: t for n, t in texts.items() if n.startswith("lesson_")}
    assert len(lessons) >= 8
    assert any(t.startswith("# gradrepl: paddle=3\n") for t in lessons.values())
    assert any(">>> %graph" in t and ">>> %step" in t for t in lessons.values())
    for topic in ("broadcast", "retain_graph", "clear_grad", "no_grad", "detach",
                  "paddle.grad", "optimizer.SGD"):
        assert any(topic in t for t in lessons.values()), topic
    for n, t in lessons.items():  # each says what to look at
        assert sum(ln.startswith("# ") for ln in t.splitlines()) >= 3, n


def test_an_altered_expectation_fails_with_a_diff_and_exit_1(tmp_path):
    src = (SESSIONS / "s000_example_two.pycon").read_text(encoding="utf-8")
    altered = src.replace("[20.]", "[21.]")
    assert altered != src
    path = tmp_path / "s000_example_two.pycon"
    path.write_text(altered, encoding="utf-8")
    code, out, err = _check(path)
    assert code == 1
    line = next(k for k, ln in enumerate(altered.splitlines(), 1) if "[21.]" in ln)
    assert re.search(rf"^--- {re.escape(str(path))}:\d+ \(expected\)$", out, re.M)
    assert f"@@ -{line - 1},2 +{line - 1},2 @@" in out
    assert "-       [21.])" in out and "+       [20.])" in out
    assert f"{path}: FAILED: 1 of" in out
