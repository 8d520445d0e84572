"""Import cycles among the modules of a gradrepl package (default: gradrepl/repl).

Every import counts, at the top of a module or inside a function: a function-level import that
is there only to dodge a cycle is still one. Prints the import edges within the package, then
each strongly connected group of modules (a group of two or more imports itself in a circle)
with one circle through it.

    python3 tools/import_cycles.py [gradrepl/repl] [--edges]
"""
from __future__ import annotations

import ast
import os
import sys


def module_imports(path: str, package: str) -> set[str]:
    """The sibling modules of ``package`` that the file at ``path`` imports, anywhere in it."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:                       # from .x import y / from . import x
                if node.module:
                    out.add(node.module.split(".")[0])
                else:
                    out.update(a.name for a in node.names)
            elif node.level == 0 and node.module and node.module.startswith(package + "."):
                out.add(node.module[len(package) + 1:].split(".")[0])
            elif node.level == 0 and node.module == package:
                out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith(package + "."):
                    out.add(a.name[len(package) + 1:].split(".")[0])
    return out


def graph(directory: str) -> dict[str, set[str]]:
    """``{module: sibling modules it imports}`` for the ``*.py`` files of ``directory``."""
    package = os.path.normpath(directory).replace(os.sep, ".")
    names = sorted(f[:-3] for f in os.listdir(directory) if f.endswith(".py"))
    g = {}
    for name in names:
        deps = module_imports(os.path.join(directory, name + ".py"), package)
        g[name] = {d for d in deps if d in names and d != name and d != "__init__"}
    return g


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out)


def circle(g: dict[str, set[str]], group: list[str]) -> list[str]:
    """One shortest circle through the first module of ``group``, as a path back to it."""
    start = group[0]
    paths = {start: [start]}
    todo = [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(g[v] & set(group)):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                todo.append(w)
    return group


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    show_edges = "--edges" in args
    args = [a for a in args if a != "--edges"]
    directory = args[0] if args else "gradrepl/repl"
    g = graph(directory)
    if show_edges:
        for name, deps in g.items():
            print(f"{name} -> {', '.join(sorted(deps)) or '-'}")
    groups = cycles(g)
    for group in groups:
        print(f"cycle among {len(group)}: {' '.join(group)}")
        print(f"  e.g. {' -> '.join(circle(g, group))}")
    if not groups:
        print("no import cycles")
    return 1 if groups else 0


if __name__ == "__main__":
    sys.exit(main())
