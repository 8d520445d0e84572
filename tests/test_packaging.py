"""The lean default install is enough: every third-party module that gradrepl imports when a
module loads comes from a default dependency, and an optional one (an extra's: mkl, randomgen;
the frameworks themselves) is imported only inside a ``try`` that handles its absence or inside a
function. A module-level ``import randomgen`` would break every install without the ``exact``
extra (musl on aarch64 has no randomgen wheel)."""
from __future__ import annotations

import ast
import importlib.metadata as md
import re
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
