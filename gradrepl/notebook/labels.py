"""Statement labels for notebook cells: ``c = a * b`` on the op that statement made.

The shell marks each top-level statement in the engine provenance ``Recorder`` before running it
(``Recorder.statement``); pictures then label every node by bisection over those marks, so
nothing is written per op. In a notebook, :class:`StatementMarks` (an IPython AST transformer)
does the same: before each top-level statement of a cell it inserts one call
``mark("<the statement as typed>")``. One call per statement, none per op.

The text is the statement as the cell has it (whitespace collapsed, at most 72 characters, as the
shell shows it), taken from the cell IPython is running (``remember`` is given it before the
cell runs); when the tree does not come from that cell (``%time STATEMENT`` transforms its own
tree), the statement is written back from the tree (``ast.unparse``).
"""
from __future__ import annotations

import ast

from ..engine import provenance

LIMIT = 72
_MODULE = __name__


def label_of(text: str) -> str:
    """A statement's label, as the shell makes it: whitespace collapsed, first 72 characters."""
    return " ".join(text.split())[:LIMIT]


def mark(label: str) -> None:
    """Called before each statement of a cell: nodes made from now on belong to ``label``."""
    rec = provenance.ACTIVE
    if rec is not None:
        rec.statement(label)


def _shape(tree) -> list:
    return [(type(s).__name__, s.lineno, s.end_lineno, s.col_offset) for s in tree.body]


class StatementMarks(ast.NodeTransformer):
    """IPython AST transformer: a ``mark(...)`` call before each top-level statement."""

    def __init__(self):
        super().__init__()
        self._lines: list[str] = []
        self._shape: list | None = None

    def remember(self, source: str) -> None:
        """The (transformed) source of the cell about to run, for the labels' text."""
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            self._lines, self._shape = [], None
            return
        self._lines, self._shape = source.splitlines(), _shape(tree)

    def _text(self, stmt, typed: bool) -> str:
        if typed:  # the statement's own segment (not its whole lines: no comment, no neighbour)
            return ast.get_source_segment("\n".join(self._lines), stmt) or ""
        try:
            return ast.unparse(stmt)
        except Exception:  # noqa: BLE001 - a label is a nicety, never a failure
            return type(stmt).__name__

    def visit_Module(self, node):
        typed = self._shape is not None and self._shape == _shape(node)
        body = []
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                body.append(stmt)  # (must stay first: no mark before it)
                continue
            call = ast.Expr(ast.Call(
                func=ast.Attribute(
                    value=ast.Call(func=ast.Name("__import__", ast.Load()),
                                   args=[ast.Constant(_MODULE)],
                                   keywords=[ast.keyword("fromlist",
                                                         ast.Constant(("mark",)))]),
                    attr="mark", ctx=ast.Load()),
                args=[ast.Constant(label_of(self._text(stmt, typed)))], keywords=[]))
            body.append(ast.copy_location(call, stmt))
            ast.fix_missing_locations(call)
            body.append(stmt)
        node.body = body
        self._shape = None  # a tree transformed later (%time's) is not this cell's
        return node
