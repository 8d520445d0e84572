"""The lean default install is enough: every third-party module that gradrepl imports when a
module loads comes from a default dependency, and an optional one (an extra's: mkl, randomgen;
the frameworks themselves) is imported only inside a ``try`` that handles its absence or inside a
function. A module-level ``import randomgen`` would break every install without the ``exact``
extra (musl on aarch64 has no randomgen wheel)."""
from __future__ import annotations

import ast
import importlib.metadata as md
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "gradrepl"


def _dist_name(req: str) -> str:
    return re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0].strip().lower().replace("_", "-")


def _default_dists():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {_dist_name(r) for r in project["dependencies"]}


def _module_level_imports(tree):
    """Top-level names imported when the module runs (not in functions, not in a try that
    catches ImportError / ModuleNotFoundError / Exception)."""
    found = []

    def guarded(handlers):
        names = set()
        for h in handlers:
            t = h.type
            for n in ([t] if not isinstance(t, ast.Tuple) else t.elts) if t is not None else []:
                if isinstance(n, ast.Name):
                    names.add(n.id)
            if t is None:
                names.add("BaseException")
        return bool(names & {"ImportError", "ModuleNotFoundError", "Exception", "BaseException",
                             "OSError"})

    def walk(body):
        for node in body:
            if isinstance(node, ast.Import):
                found.extend((a.name.split(".")[0], node.lineno) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0 and node.module:
                    found.append((node.module.split(".")[0], node.lineno))
            elif isinstance(node, ast.Try):
                if not guarded(node.handlers):
                    walk(node.body)
                walk(node.orelse)
                walk(node.finalbody)
            elif isinstance(node, (ast.If, ast.With)):
                walk(node.body)
                walk(getattr(node, "orelse", []))
            elif isinstance(node, ast.ClassDef):
                walk(node.body)
    walk(tree.body)
    return found


def test_every_module_level_import_is_stdlib_gradrepl_or_a_default_dependency():
    default = _default_dists()
    to_dist = {k: [d.lower().replace("_", "-") for d in v]
               for k, v in md.packages_distributions().items()}
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for top, line in _module_level_imports(tree):
            if top in stdlib or top == "gradrepl":
                continue
            dists = to_dist.get(top)
            if dists is None:          # not installed here: it cannot be a default dependency
                bad.append(f"{path.relative_to(ROOT)}:{line}: {top} (not installed)")
            elif not set(dists) & default:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {top} (from {dists[0]}, "
                           "not a default dependency)")
    assert not bad, "imported at module level without a guard:\n" + "\n".join(bad)


def test_the_walker_sees_a_bare_import_and_ignores_guarded_and_lazy_ones():
    tree = ast.parse("import numpy\ntry:\n    import randomgen\nexcept ImportError:\n"
                     "    randomgen = None\ndef f():\n    import mkl\nif True:\n    import rich\n")
    assert [n for n, _ in _module_level_imports(tree)] == ["numpy", "rich"]


@pytest.mark.parametrize("extra", ["exact"])
def test_the_native_backends_are_an_extra_not_a_default(extra):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    default = _default_dists()
    in_extra = {_dist_name(r) for r in project["optional-dependencies"][extra]}
    assert {"mkl", "randomgen"} <= in_extra
    assert not {"mkl", "randomgen"} & default


# ------------------------------------------------------------------ from the built wheel
# The wheel built from this checkout, installed with its default dependencies only (no `exact`
# extra) into a fresh venv, and run in a folder outside the clone: every command that the docs'
# pages show (their `<!-- $ gradrepl ... -->` markers) and every `gradrepl ... lesson:...` that
# the README and the docs write out works there, --version and -h answer, and Ctrl-C in a pty
# exits 130 with one line. Slow (a wheel, a venv, pip: about a minute with pip's cache); skips
# where pip cannot build or install (no package index).
DOCS = ROOT / "docs"
MARKER = re.compile(r"^<!-- \$ (?:echo (.+?) \| )?gradrepl (.+?) -->$", re.M)
LESSON_COMMAND = re.compile(r"(?:^|`)(?:\$ )?gradrepl ((?:[\w-]+ )*?[^`\n]*lesson:[^`\n]*?)(?:`|$)",
                            re.M)


def _docs_commands() -> list[tuple[str, str | None]]:
    """(ARGS, STDIN) of every gradrepl command the README and the docs' pages show."""
    found = set()
    for path in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for m in MARKER.finditer(text):
            found.add((m.group(2), m.group(1) and shlex.split(m.group(1))[0]))
        for m in LESSON_COMMAND.finditer(text):
            args = m.group(1).split("  #")[0].strip()
            if "<" not in args and "..." not in args:   # (a usage line, not a command)
                found.add((args, None))
    return sorted(found, key=lambda item: (item[0], item[1] or ""))


def test_the_docs_commands_are_found():
    # the wheel's test below would pass vacuously if these patterns found nothing
    commands = _docs_commands()
    assert ("lessons", None) in commands and ("--version", None) in commands
    assert ("replay --check lesson:s000_example_two", None) in commands
    assert ("quiz lesson:two_paths", "w = 15") in commands    # an answer piped in
    assert not [a for a, _ in commands if "examples/" in a or "sessions/" in a], \
        "a docs page shows a command that needs the clone: name the lesson (lesson:NAME)"


def _clean_env(venv: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRADREPL_", "PYTHON"))
           and k not in ("VIRTUAL_ENV", "FORCE_COLOR", "COLUMNS")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin", NO_COLOR="1",
               TERM="dumb")
    return env


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                        str(base / "dist"), str(ROOT)], capture_output=True, text=True,
                       timeout=900)
    if p.returncode != 0:
        pytest.skip(f"pip wheel could not build here: {p.stderr.strip()[-300:]}")
    (wheel,) = (base / "dist").glob("gradrepl-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    p = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                        "--disable-pip-version-check", str(wheel)], capture_output=True,
                       text=True, timeout=1800, env=_clean_env(venv))
    if p.returncode != 0:
        pytest.skip(f"pip could not install the wheel's dependencies here: "
                    f"{p.stderr.strip()[-300:]}")
    outside = base / "outside"          # a folder with no examples/ or sessions/ beside it
    outside.mkdir()
    return venv, outside


def _gradrepl(venv, cwd, args, stdin=None):
    return subprocess.run([str(venv / "bin" / "gradrepl"), *args], cwd=cwd, input=stdin or "",
                          env=_clean_env(venv), capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_wheel_installs_lean_and_runs_outside_the_clone(wheel_venv):
    venv, outside = wheel_venv
    py = str(venv / "bin" / "python")
    p = subprocess.run([py, "-c", "import gradrepl, importlib.util as u; print(gradrepl.__file__);"
                        " print(u.find_spec('mkl'), u.find_spec('randomgen'))"],
                       cwd=outside, env=_clean_env(venv), capture_output=True, text=True,
                       timeout=120)
    where, extra = p.stdout.splitlines()
    assert where.startswith(str(venv)), where        # the wheel's, not this checkout's
    assert extra == "None None"                      # the `exact` extra is not installed
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    p = _gradrepl(venv, outside, ["--version"])
    assert p.returncode == 0 and p.stdout.strip() == f"gradrepl {version}"
    for args in (["-h"], ["run", "-h"], ["replay", "-h"]):
        p = _gradrepl(venv, outside, args)
        assert p.returncode == 0 and "Usage: gradrepl" in p.stdout, (args, p.stderr)


@pytest.mark.slow
def test_every_docs_command_works_from_the_wheel(wheel_venv):
    from concurrent.futures import ThreadPoolExecutor

    venv, outside = wheel_venv
    commands = _docs_commands()

    def run(item):
        args, stdin = item
        return item, _gradrepl(venv, outside, shlex.split(args),
                               stdin and stdin + "\n")

    failed = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for (args, stdin), p in pool.map(run, commands):
            out = p.stdout + p.stderr
            # 1: a quiz answered wrong, as the docs show it (every other command exits 0)
            ok = p.returncode in ((0, 1) if args.startswith("quiz") and stdin else (0,))
            if not ok or "Traceback" in out or "no such file" in out or not out.strip():
                failed.append(f"gradrepl {args} (exit {p.returncode}): {out.strip()[-400:]}")
    assert not failed, "from the wheel, outside the clone:\n" + "\n".join(failed)
    assert (outside / "example_two.html").exists() or not any(
        "--html example_two.html" in a for a, _ in commands)


@pytest.mark.slow
def test_ctrl_c_in_a_pty_exits_130_with_one_line_from_the_wheel(wheel_venv):
    pexpect = pytest.importorskip("pexpect")
    venv, outside = wheel_venv
    script = outside / "loop.py"
    script.write_text("import paddle\nx = paddle.to_tensor(1.0)\nprint('started', flush=True)\n"
                      "while True:\n    x = x * 1.0\n", encoding="utf-8")
    child = pexpect.spawn(str(venv / "bin" / "gradrepl"), ["run", str(script)], cwd=str(outside),
                          env=_clean_env(venv), encoding="utf-8", timeout=120)
    child.expect("started")
    child.sendintr()                               # Ctrl-C typed at the terminal
    child.expect(pexpect.EOF)
    child.close()
    lines = [line for line in child.before.replace("^C", "").splitlines() if line.strip()]
    assert lines == ["KeyboardInterrupt"]          # as Python's own, without the traceback
    assert child.exitstatus == 130, (child.exitstatus, child.signalstatus)
