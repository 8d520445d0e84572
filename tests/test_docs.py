"""The README and docs/ say what is true: its commands are the ones CI runs, its links lead
somewhere, its example outputs are what gradrepl prints today, and it stays a short page.

- the README's first two commands (its first two ```sh blocks: install + example two's handout,
  install + the tests) are lines of .ci/run, which must run exactly what the README tells a user;
- every relative link and image in README.md and docs/*.md exists, every picture the docs show
  is drawn by docs/gen_pictures.py (so the site never shows a stale one), every page is in
  docs/site.yml's nav (the site's config; docs/generate.py fills in the % commands' pages);
- every ```pycon block of the README replays as a session file (``gradrepl replay --check``);
  every ```console block's ``$ gradrepl ...`` command prints exactly the lines shown (a last line
  ``...`` shows only the first lines);
- the README is at most 160 lines.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
CI = ROOT / ".ci" / "run"

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.S | re.M)
# [text](target) and ![alt](target); the target up to whitespace or ')'
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def fenced(text: str, lang: str) -> list[str]:
    return [body for kind, body in FENCE.findall(text) if kind == lang]


def without_code(text: str) -> str:
    """The text with fenced blocks and inline code spans removed (links inside code are code)."""
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def relative_links(path: Path) -> list[str]:
    found = []
    for target in LINK.findall(without_code(path.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # http:, https:, mailto: ... and anchors within the page
        found.append(target.split("#", 1)[0])
    return found


def markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _gen_reference():
    spec = importlib.util.spec_from_file_location("gen_reference", DOCS / "gen_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def generated_pages() -> set[str]:
    """The site's files that docs/generate.py makes before the build (paths under docs/)."""
    ref = _gen_reference()
    return {"readme.md", "notebooks/example_two.ipynb",
            *(page for entry in ref.shell_nav() for page in entry.values())}


# ------------------------------------------------------------------ the commands and CI
def test_readme_first_two_commands_are_what_ci_runs():
    blocks = fenced(README.read_text(encoding="utf-8"), "sh")
    assert len(blocks) >= 2, "the README's two commands are its first two ```sh blocks"
    commands = [block.strip() for block in blocks[:2]]
    for command in commands:
        assert "\n" not in command, f"one command per block: {command!r}"
    assert commands[1] == 'pip install -e ".[dev]" && python -m pytest -q'
    ci_lines = [line.strip() for line in CI.read_text(encoding="utf-8").splitlines()]
    for command in commands:
        assert command in ci_lines, f".ci/run does not run the README's command {command!r}"
    # the test command is the one whose exit status CI reports, exit 5 (no tests) included
    ci = CI.read_text(encoding="utf-8")
    after = ci[ci.index(commands[1]):]
    assert "rc=$?" in after and '"$rc" -eq 5' in after


def test_ci_builds_the_docs_strictly():
    ci = CI.read_text(encoding="utf-8")
    # the sources made, then built by Zensical with --strict (docs/generate.py's build())
    assert re.search(r"^python docs/generate.py .*--build$", ci, re.M)
    assert '".[docs]"' in ci
    generate = (DOCS / "generate.py").read_text(encoding="utf-8")
    assert '"zensical", "build", "--strict"' in generate
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^docs = \["zensical==', pyproject, re.M)


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 160, f"README.md has {len(lines)} lines: move detail to docs/"


# ------------------------------------------------------------------ links and pictures
@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_exist(path):
    made = {(DOCS / p).resolve() for p in generated_pages()}
    missing = [t for t in relative_links(path) if t and not (path.parent / t).exists()
               and (path.parent / t).resolve() not in made]
    assert not missing, f"{path.relative_to(ROOT)} links to missing files: {missing}"


def test_link_finder_finds_links():
    # the checks above would pass vacuously if the pattern found nothing
    targets = relative_links(README)
    assert "docs/img/example_two.svg" in targets
    assert "docs/performance.md" in targets


def _gen_pictures():
    spec = importlib.util.spec_from_file_location("gen_pictures", DOCS / "gen_pictures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_picture_is_drawn_by_gradrepl():
    table = _gen_pictures().PICTURES
    shown = set()
    for path in markdown_files():
        for target in relative_links(path):
            resolved = (path.parent / target).resolve()
            if resolved.parent == (DOCS / "img").resolve():
                shown.add(resolved.name)
    assert "example_two.svg" in shown
    assert shown <= set(table), f"pictures not drawn by docs/gen_pictures.py: {shown - set(table)}"
    for name, args in table.items():
        assert args[0] in ("graph", "why"), f"{name}: not drawn by gradrepl graph/why"
        assert (ROOT / args[1]).exists(), f"{name}: no script {args[1]}"


def test_every_page_is_in_the_nav():
    config = (DOCS / "site.yml").read_text(encoding="utf-8")
    nav = set(re.findall(r"^\s*- [^:\n]+: (\S+\.md)\s*$", config, re.M))
    made = {p for p in generated_pages() if p.endswith(".md")}
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    # the % commands' pages are added to the nav by docs/generate.py under its index
    nav |= {p for p in made if p.startswith("shell/")}
    assert pages | made == nav, (f"in docs/ but not in the nav: {pages | made - nav}; "
                                 f"missing: {nav - pages - made}")


def test_every_command_has_a_page():
    from gradrepl.cli import app
    from gradrepl.repl.commands import COMMANDS

    commands = {c.name or c.callback.__name__ for c in app.registered_commands}
    pages = {p.stem for p in (DOCS / "commands").glob("*.md")}
    assert commands == pages, f"commands without a page: {commands - pages}"
    ref = _gen_reference()
    shell = {page for entry in ref.shell_nav() for page in entry.values()}
    assert {f"shell/{name}.md" for name in COMMANDS} <= shell
    # every % command's page shows it at work (replayed when the site is built)
    assert set(ref.SHELL_EXAMPLES) == set(COMMANDS), set(COMMANDS) ^ set(ref.SHELL_EXAMPLES)


MARKER = re.compile(r"<!--.*?-->", re.S)


@pytest.mark.parametrize("path", sorted(DOCS.rglob("*.md")), ids=lambda p: p.name)
def test_build_time_markers_are_well_formed(path):
    """A mistyped marker would be an invisible HTML comment: every comment is a marker that
    docs/gen_reference.py expands (or the notebook's)."""
    ref = _gen_reference()
    text = path.read_text(encoding="utf-8")
    for comment in MARKER.findall(text):
        ok = comment == "<!-- notebook -->" or any(
            p.fullmatch(comment) for p in (ref.HELP, ref.RUN, ref.PYCON))
        assert ok, f"{path.name}: {comment[:60]!r} is not a build-time marker"


# ------------------------------------------------------------------ the example outputs
def _gradrepl(args: list[str], cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GRADREPL_PADDLE", "FORCE_COLOR")}
    env["NO_COLOR"] = "1"
    return subprocess.run([sys.executable, "-m", "gradrepl", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _workdir(tmp_path):
    """A scratch folder that sees the repository's examples/ and sessions/ (commands that
    write files write them here)."""
    for name in ("examples", "sessions"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


PYCON = fenced(README.read_text(encoding="utf-8"), "pycon")
CONSOLE = fenced(README.read_text(encoding="utf-8"), "console")


def test_readme_has_examples():
    assert len(PYCON) >= 2 and len(CONSOLE) >= 2


@pytest.mark.parametrize("block", PYCON, ids=lambda b: b.splitlines()[1][:40])
def test_readme_pycon_block_replays(block, tmp_path):
    session = tmp_path / "readme.pycon"
    session.write_text(block, encoding="utf-8")
    done = _gradrepl(["replay", "--check", str(session)], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("block", CONSOLE, ids=lambda b: b.splitlines()[0][:60])
def test_readme_console_block_prints_what_it_shows(block, tmp_path):
    lines = block.rstrip("\n").splitlines()
    assert lines[0].startswith("$ gradrepl "), lines[0]
    expected = lines[1:]
    prefix_only = bool(expected) and expected[-1] == "..."
    if prefix_only:
        expected = expected[:-1]
    done = _gradrepl(shlex.split(lines[0][len("$ gradrepl "):]), _workdir(tmp_path))
    got = [line.rstrip() for line in (done.stdout + done.stderr).splitlines()]
    if prefix_only:
        got = got[:len(expected)]
    assert got == [line.rstrip() for line in expected], (
        f"README's `{lines[0]}` now prints:\n" + (done.stdout + done.stderr))


def test_architecture_names_the_engine_functions_that_exist():
    from gradrepl.engine import backward, events

    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    section = text[text.index("### Backward, phase by phase"):text.index("## The dialects")]
    names = set(re.findall(r"`([a-z_]+)(?:\([a-z]*\))?`", section))
    names -= {"paddle", "grad_pending_ops", "grad_tensors", "retain_graph", "create_graph",
              "backward", "trace"}
    assert {"count_dependencies", "seed_roots", "run_node", "send_gradients",
            "accumulate_into_leaf", "release"} <= names
    missing = sorted(n for n in names if not hasattr(backward, n))
    assert not missing, f"docs/architecture.md names engine functions that are gone: {missing}"
    for event in re.findall(r"`([A-Z][A-Za-z]+)`", section):
        if event not in ("PrepareDeps",):
            assert hasattr(events, event), f"docs/architecture.md names a gone event {event}"


def test_markers_become_what_gradrepl_prints():
    ref = _gen_reference()
    page = ("# x\n\n<!-- gradrepl-help: lessons -->\n\n<!-- $ gradrepl lessons -->\n\n"
            "<!-- pycon: 1 + 1 -->\n")
    out = ref.expand(page)
    assert "<!--" not in out
    assert "```text\n" in out and "Usage: gradrepl lessons" in out
    assert "```console\n$ gradrepl lessons\nSessions (" in out
    assert "```pycon\n>>> 1 + 1\n2\n```" in out
    assert str(ROOT) not in out          # the checkout's paths are not in the site
