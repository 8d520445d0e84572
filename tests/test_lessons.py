"""The lessons ship with gradrepl and run by name (``lesson:NAME``), in a checkout and from the
built wheel outside it."""
import os
import subprocess
import sys
import zipfile

import pytest

from gradrepl import lessons

GR = [sys.executable, "-m", "gradrepl"]


def test_catalogue_has_the_sessions_and_the_scripts():
    names = {(name, kind) for name, kind, _ in lessons.catalogue()}
    assert ("s000_example_two", "sessions") in names
    assert ("broadcast", "examples") in names
    for _, _, path in lessons.catalogue():
        assert os.path.isfile(path)


def test_resolve_by_stem_suffix_and_kind():
    assert lessons.resolve("x.py") == "x.py"  # an ordinary path
    path = lessons.resolve("lesson:s000_example_two", "sessions")
    assert path.endswith("s000_example_two.pycon")
    assert lessons.resolve("lesson:broadcast", "examples").endswith("broadcast.py")
    assert lessons.resolve("lesson:lesson_accumulation").endswith("lesson_accumulation.pycon")
    with pytest.raises(lessons.LessonError, match="several lessons"):
        lessons.resolve("lesson:example_one", "sessions")
    with pytest.raises(lessons.LessonError, match="no session named 'broadcast'"):
        lessons.resolve("lesson:broadcast", "sessions")


def test_commands_take_lesson_names(tmp_path):
    p = subprocess.run(GR + ["lessons"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "  s000_example_two" in p.stdout and "  broadcast" in p.stdout
    p = subprocess.run(GR + ["replay", "--check", "lesson:s000_example_two"],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0 and "ok, 11 blocks" in p.stdout + p.stderr
    p = subprocess.run(GR + ["run", "lesson:nosuch"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2 and "no script named 'nosuch'" in p.stderr


def test_the_wheel_carries_the_lessons(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                        str(tmp_path), root], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        pytest.skip(f"pip wheel could not build here: {p.stderr.strip()[-200:]}")
    (wheel,) = [f for f in os.listdir(tmp_path) if f.endswith(".whl")]
    names = zipfile.ZipFile(tmp_path / wheel).namelist()
    assert "gradrepl/lessons/sessions/s000_example_two.pycon" in names
    assert "gradrepl/lessons/examples/graphs/broadcast.py" in names
    assert "gradrepl/lessons/examples/seeds/s000_example_two.out" in names
    assert not any(n.startswith(("sessions/", "examples/", "tests/")) for n in names)
