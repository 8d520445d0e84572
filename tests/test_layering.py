"""The layers of gradrepl: the engine below, the shell, the pictures and the notebook above it.

- repl/, viz/ and notebook/ reach the engine only through public names (no ``_x`` module or
  name of ``gradrepl.engine``), and install trace sinks only through ``engine.trace_to`` /
  ``set_trace_sink`` (nobody else assigns ``backward.TRACE_SINK``);
- the modules of gradrepl/repl import each other without a circle (function-level imports
  count: one that only dodges a circle is still one), and so do viz/ and notebook/;
- the engine imports nothing of gradrepl outside itself (no Paddle, torch, printing, shell or
  pictures), and of other packages only numpy (and numexpr);
- one rule says whether an input is complete: the shell's reader of piped input, its Enter key
  and the session file parser split the same text into the same inputs.
"""
from __future__ import annotations

import ast
import importlib.util
import os
import sys

import pytest

import gradrepl
from gradrepl import engine
from gradrepl.engine import backward
from gradrepl.repl.complete import is_complete, needs_more
from gradrepl.repl.shell import _Feeder
from gradrepl.repl.transcript import format_input, format_transcript, parse

PKG = os.path.dirname(os.path.abspath(gradrepl.__file__))
ROOT = os.path.dirname(PKG)


def _cycles_tool():
    spec = importlib.util.spec_from_file_location(
        "import_cycles", os.path.join(ROOT, "tools", "import_cycles.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _files(sub):
    for dirpath, _, names in os.walk(os.path.join(PKG, sub)):
        for name in sorted(names):
            if name.endswith(".py"):
                yield os.path.join(dirpath, name)


def _imports(path):
    """``(module, names, line)`` for every import in the file, anywhere, modules absolute."""
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    package = rel[:-1] if rel[-1] != "__init__" else rel[:-1]
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            yield module, [a.name for a in node.names], node.lineno
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, [], node.lineno


# ------------------------------------------------------------------ the engine's public names
@pytest.mark.parametrize("sub", ["repl", "viz", "notebook"])
def test_no_private_engine_name_is_imported_above_the_engine(sub):
    bad = []
    for path in _files(sub):
        for module, names, line in _imports(path):
            if module != "gradrepl.engine" and not module.startswith("gradrepl.engine."):
                continue
            parts = module.split(".")[2:]
            private = [p for p in parts if p.startswith("_")]
            private += [n for n in names if n.startswith("_")]
            if private:
                bad.append(f"{os.path.relpath(path, ROOT)}:{line}: {module} {private}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("sub", ["repl", "viz", "notebook"])
def test_nobody_above_the_engine_touches_its_trace_sink_global(sub):
    bad = []
    for path in _files(sub):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        bad += [f"{os.path.relpath(path, ROOT)}:{n.lineno}" for n in ast.walk(tree)
                if isinstance(n, ast.Attribute) and n.attr == "TRACE_SINK"]
    assert not bad, bad


def test_the_engine_imports_nothing_above_it():
    outside, packages = [], set()
    for path in _files("engine"):
        for module, _, line in _imports(path):
            top = module.split(".")[0]
            if top == "gradrepl" and module != "gradrepl.engine" \
                    and not module.startswith("gradrepl.engine."):
                outside.append(f"{os.path.relpath(path, ROOT)}:{line}: {module}")
            elif top not in sys.stdlib_module_names and top != "gradrepl":
                packages.add(top)
    assert outside == []
    assert packages <= {"numpy", "numexpr"}, packages


def _backward():
    import gradrepl.paddle as paddle

    a = paddle.to_tensor([2.0, 3.0], stop_gradient=False)
    b = paddle.to_tensor([4.0, 5.0], stop_gradient=False)
    (a * b).sum().backward()


def _kinds(items):
    return [type(x).__name__ if not isinstance(x, tuple) else x[0] for x in items]


def test_trace_to_chains_sinks_and_puts_back_what_was_there():
    outer, inner = [], []
    assert engine.trace_sink() is None
    with engine.trace_to(outer.append):
        with engine.trace_to(inner.append) as installed:
            assert isinstance(installed, engine.Tee)
            _backward()
        assert engine.trace_sink() == outer.append
        with engine.trace_to(outer.append) as same:   # already installed: not twice
            assert same == outer.append
    assert engine.trace_sink() is None and backward.TRACE_SINK is None
    assert inner == outer and len(inner) > 4
    assert _kinds(inner)[0] == "begin" and _kinds(inner)[-1] == "end"
    assert "Run" in _kinds(inner)


def test_trace_to_without_chain_replaces_and_set_trace_sink_installs_for_good():
    first, second = [], []
    old = engine.set_trace_sink(first.append)
    try:
        assert old is None
        with engine.trace_to(second.append, chain=False):
            _backward()
        assert first == [] and second
        _backward()
        assert _kinds(first) == _kinds(second)
    finally:
        assert engine.set_trace_sink(old) == first.append
    assert engine.trace_sink() is None


# ------------------------------------------------------------------------------ import cycles
def test_the_cycle_finder_sees_a_function_level_circle(tmp_path):
    tool = _cycles_tool()
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import x\n")
    (pkg / "b.py").write_text("x = 1\n\ndef f():\n    from . import a\n    return a\n")
    (pkg / "c.py").write_text("from .a import x\n")
    g = tool.graph(str(pkg))
    assert g == {"__init__": set(), "a": {"b"}, "b": {"a"}, "c": {"a"}}
    assert tool.cycles(g) == [["a", "b"]]
    assert tool.circle(g, ["a", "b"]) == ["a", "b", "a"]


@pytest.mark.parametrize("sub", ["repl", "viz", "notebook"])
def test_no_import_cycles(sub):
    tool = _cycles_tool()
    g = tool.graph(os.path.join(PKG, sub))
    assert tool.cycles(g) == []


def test_each_repl_module_imports_only_below_it():
    g = _cycles_tool().graph(os.path.join(PKG, "repl"))
    # the bottom of the shell imports nothing of repl/
    for leaf in ("result", "complete", "fsview"):
        assert g[leaf] == set(), (leaf, g[leaf])
    assert g["kernel"] <= {"fsview"}     # (the kernel's confinement enters the file-system view)
    assert g["transcript"] == {"complete"}
    assert "session" not in g["commands"] and "replay_cli" not in g["handout"]
    assert "replay_cli" not in g["present"] | g["safe_replay"]


# ---------------------------------------------------------------- one rule for "complete"
# (text as piped into the shell, the inputs it is)
TABLE = [
    ("a = 1", ["a = 1"]),
    ("for i in range(3):\n    print(i)\n", ["for i in range(3):\n    print(i)"]),
    ("for i in range(2):\n    for j in range(2):\n        print(i, j)\n",
     ["for i in range(2):\n    for j in range(2):\n        print(i, j)"]),
    ("@staticmethod\ndef f():\n    return 1\n", ["@staticmethod\ndef f():\n    return 1"]),
    ("class A:\n    x = 1\n\n    def f(self):\n        return self.x\n\nA().f()",
     ["class A:\n    x = 1\n\n    def f(self):\n        return self.x", "A().f()"]),
    ("y = 1 + \\\n    2", ["y = 1 + \\\n    2"]),
    ("z = [1,\n     2,\n\n     3]", ["z = [1,\n     2,\n\n     3]"]),
    ("%vars", ["%vars"]),
    ("x = (1,", ["x = (1,"]),          # an unclosed bracket at the end: run (and fail) as it is
    ("x = )", ["x = )"]),              # a syntax error: complete, to be shown
    ("if y:\n    pass\nelse:\n    z = 2\n", ["if y:\n    pass\nelse:\n    z = 2"]),
]


def _shell_inputs(text):
    feeder = _Feeder()
    lines = text.split("\n")
    out = []
    for k, line in enumerate(lines):
        rest = [ln for ln in lines[k + 1:] if ln.strip()]
        out += feeder.push(line, peek=lambda r=rest: r[0] if r else None)
    return out + feeder.flush()


@pytest.mark.parametrize("text,inputs", TABLE)
def test_the_shell_and_a_session_file_split_inputs_alike(text, inputs):
    assert _shell_inputs(text) == inputs
    # what %record writes of them reads back as the same inputs
    written = format_transcript([(src, "") for src in inputs])
    assert [b.source for b in parse(written).blocks] == inputs
    # and a session file written by hand, the inputs with their prompts
    by_hand = "".join(ln + "\n" for src in inputs for ln in format_input(src))
    assert [b.source for b in parse(by_hand).blocks] == inputs


@pytest.mark.parametrize("text,inputs", [row for row in TABLE
                                         if "class" not in row[0] and row[0] != "x = (1,"])
def test_enter_runs_an_input_exactly_where_a_session_file_ends_it(text, inputs):
    """Typed line by line, Enter runs the input at its last line (a simple statement) or at
    the empty line after it (a block), never before; the session file's ``... `` lines end
    there too. (Typed, an empty line ends a class at once, as in Python's console.)"""
    for src in inputs:
        lines = src.split("\n")
        for k in range(1, len(lines)):
            assert needs_more(lines[:k]), lines[:k]
        block = needs_more(lines)
        assert block == (format_input(src)[-1] == "... ")
        if block:
            assert not needs_more(lines + [""])


def test_is_complete_is_the_consoles_rule():
    assert is_complete("a = 1") and is_complete("%graph c") and is_complete("x = )")
    assert not is_complete("for i in x:") and not is_complete("x = (1,")
    assert not is_complete("y = 1 + \\")
    assert not is_complete("@d\ndef f():\n    pass")
    assert is_complete("@d\ndef f():\n    pass\n")
    # an empty line inside a class ends it unless the next line (when known) goes on with it
    lines = ["class A:", "    x = 1", ""]
    assert not needs_more(lines) and not needs_more(lines, "A()")
    assert needs_more(lines, "    def f(self):")
    assert needs_more(lines, lambda: "    def f(self):")
    # the shell's auto-indent leaves spaces on the empty line that ends a block
    assert not needs_more(["for i in x:", "        f(i)", "        "])
    assert needs_more(["x = [1,", "    "])


def test_a_syntax_warning_is_shown_once(tmp_path):
    import subprocess

    r = subprocess.run([sys.executable, "-m", "gradrepl"], input="1 is 1\n",
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.stdout.endswith("True\n")
    assert (r.stdout + r.stderr).count("SyntaxWarning") == 1, r.stdout + r.stderr
