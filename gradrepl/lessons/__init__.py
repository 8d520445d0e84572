"""The lessons and examples that ship with gradrepl: the session files of ``sessions/`` and the
scripts of ``examples/``, installed in the wheel as ``gradrepl.lessons.sessions`` and
``gradrepl.lessons.examples`` (``setup.py`` maps the two folders), so that a user without the
repository can follow the README: ``gradrepl lessons`` lists them, and ``lesson:NAME`` names one
wherever a command takes a file (``gradrepl replay --check lesson:s000_example_two``,
``gradrepl graph lesson:broadcast --tensor loss``).

NAME is a file's stem (``s000_example_two``) or the end of exactly one stem after an underscore
(``example_two``); a session file (.pycon) is preferred where a session and a script share it.
"""
from __future__ import annotations

import importlib.util
import os

PREFIX = "lesson:"
_KINDS = (("sessions", (".pycon",)), ("examples", (".py",)))


def _folder(kind: str) -> str | None:
    """The folder of ``kind``: in an installed wheel the package data; in a checkout (an
    editable install, whose finder does not map folders without ``__init__.py`` under a real
    package) the repository's own ``sessions/`` or ``examples/``."""
    try:
        spec = importlib.util.find_spec(f"{__name__}.{kind}")
    except ImportError:
        spec = None
    for path in (spec.submodule_search_locations or []) if spec is not None else []:
        if os.path.isdir(path):
            return path
    checkout = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), kind)
    if os.path.isdir(checkout) and os.path.isfile(os.path.join(os.path.dirname(checkout),
                                                               "pyproject.toml")):
        return checkout
    return None


def catalogue() -> list[tuple[str, str, str]]:
    """(name, kind, path) of every lesson file, sessions first, sorted by name."""
    out = []
    for kind, exts in _KINDS:
        root = _folder(kind)
        if root is None:
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
            for f in sorted(files):
                stem, ext = os.path.splitext(f)
                if ext in exts:
                    out.append((stem, kind, os.path.join(folder, f)))
    return out


class LessonError(LookupError):
    pass


def resolve(arg: str, kind: str | None = None) -> str:
    """The path for ``lesson:NAME`` among the lessons of ``kind`` (``sessions`` for replay,
    ``examples`` for the commands that run a script; None: either, sessions first). An
    ordinary path is returned as it is."""
    if not arg.startswith(PREFIX):
        return arg
    name = arg[len(PREFIX):]
    entries = [e for e in catalogue() if kind is None or e[1] == kind]
    if not entries:
        raise LessonError("no lessons are installed with this gradrepl")
    for wanted in (lambda stem: stem == name, lambda stem: stem.endswith("_" + name)):
        hits = [e for e in entries if wanted(e[0])]
        if hits:
            sessions = [e for e in hits if e[1] == "sessions"]
            hits = sessions or hits
            if len({e[0] for e in hits}) == 1:
                return hits[0][2]
            names = ", ".join(sorted({e[0] for e in hits}))
            raise LessonError(f"lesson:{name} names several lessons: {names}")
    what = {"sessions": "session", "examples": "script"}.get(kind, "lesson")
    raise LessonError(f"no {what} named {name!r} (gradrepl lessons lists them)")
