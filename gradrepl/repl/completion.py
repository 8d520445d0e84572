"""Tab completion and highlighting for the terminal shell (prompt_toolkit; imported only there).

What Tab completes, by what is before the cursor:

- ``%`` at the start: the commands of ``commands.COMMANDS``; after ``%load ``/``%record `` or
  ``-o ``: file paths; after ``%graph ``/``%step ``: the session's tensors; after
  ``%profile ``: the profiles; after ``%help ``: the commands;
- ``import pa`` / ``from paddle.n``: modules (``paddle`` and its submodules are gradrepl's);
  ``from paddle import to_``: the module's names;
- ``x.`` / ``paddle.nn.``: the attributes of the object the dotted name is in the session (a
  Tensor's methods, a module's functions and lazily imported submodules); ``paddle.`` before
  ``import paddle`` completes from gradrepl.paddle;
- a name: the session's names, builtins and keywords.

Nothing here runs user code beyond attribute lookups along a dotted name (as rlcompleter does);
a failing lookup completes nothing.
"""
from __future__ import annotations

import builtins
import keyword
import re
import sys

from prompt_toolkit.completion import Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.lexers import Lexer, PygmentsLexer

_DOTTED = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.(\w*)$")
_NAME = re.compile(r"([A-Za-z_]\w*)$")
_IMPORT = re.compile(r"^\s*(?:import|from)\s+([\w.]*)$")
_FROM_IMPORT = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+(?:[\w]+\s*,\s*)*(\w*)$")
_PATH_COMMANDS = ("load", "record")
_TENSOR_COMMANDS = ("graph", "step")
_PROFILES = ("2.2", "2.6", "3")
_PADDLE = "gradrepl.paddle"


def _commands():
    from .commands import COMMANDS

    return COMMANDS


class ShellCompleter(Completer):
    def __init__(self, session, paddle_ready=None):
        self.session = session
        self.paddle_ready = paddle_ready
        self._paths = PathCompleter(expanduser=True)
        self._top_modules = None

    def get_completions(self, document, complete_event):
        # never import gradrepl's modules while the shell's background thread does (their
        # circular imports break under two importing threads): wait for it, a little
        if self.paddle_ready is not None and not self.paddle_ready.wait(3.0):
            return
        try:
            yield from self._complete(document, complete_event)
        except Exception:  # noqa: BLE001 - completion never breaks the prompt
            return

    # -- dispatch ----------------------------------------------------------------------------
    def _complete(self, document, complete_event):
        text = document.text_before_cursor
        line = document.current_line_before_cursor
        if document.text.lstrip().startswith("%"):
            yield from self._command(text.lstrip(), complete_event)
            return
        m = _FROM_IMPORT.match(line)
        if m:
            mod = self._module(m.group(1))
            if mod is not None:
                yield from _matches(self._attributes(mod, m.group(2)), m.group(2))
            return
        m = _IMPORT.match(line)
        if m:
            yield from self._module_names(m.group(1))
            return
        m = _DOTTED.search(line)
        if m and not _in_string(line, m.start()):
            obj = self._lookup(m.group(1))
            if obj is not _MISSING:
                yield from _matches(self._attributes(obj, m.group(2)), m.group(2))
            return
        m = _NAME.search(line)
        if m and not _in_string(line, m.start()):
            prefix = m.group(1)
            start = m.start()
            if start and line[start - 1] in "0123456789":
                return
            yield from self._names(prefix)

    # -- % commands ----------------------------------------------------------------------------
    def _command(self, text, complete_event):
        cmds = _commands()
        body = text[1:]
        if " " not in body:
            for name, cmd in cmds.items():
                if name.startswith(body):
                    yield Completion(name, start_position=-len(body), display="%" + name,
                                     display_meta=cmd.summary[:60])
            return
        name, _, rest = body.partition(" ")
        words = rest.split(" ")
        current = words[-1]
        previous = words[-2] if len(words) > 1 else ""
        if name in _PATH_COMMANDS or previous in ("-o", "--output"):
            yield from self._paths.get_completions(Document(current, len(current)),
                                                   complete_event)
        elif name in _TENSOR_COMMANDS and not current.startswith("-"):
            yield from _matches(self._tensor_names(), current)
        elif name == "profile":
            yield from _matches(_PROFILES, current)
        elif name == "help":
            yield from _matches(list(cmds), current.lstrip("%"))
        elif name == "time":
            m = _NAME.search(rest)
            if m:
                yield from self._names(m.group(1))

    def _tensor_names(self):
        from ..engine.tensor import Tensor

        return [k for k, v in self.session.namespace.items()
                if isinstance(v, Tensor) and not k.startswith("_")]

    # -- names -----------------------------------------------------------------------------------
    def _names(self, prefix):
        ns = self.session.namespace
        seen = set()
        pools = ((sorted(ns), True), (keyword.kwlist, "keyword"),
                 (sorted(dir(builtins)), "builtin"))
        for pool, kind in pools:
            for name in pool:
                if name in seen or not name.startswith(prefix) or name == prefix:
                    continue
                if (name.startswith("_") and not prefix.startswith("_")) or \
                        name == "__builtins__":
                    continue
                seen.add(name)
                meta = _meta(ns.get(name)) if kind is True else kind
                yield Completion(name, start_position=-len(prefix), display_meta=meta)

    def _lookup(self, dotted):
        parts = dotted.split(".")
        ns = self.session.namespace
        if parts[0] in ns:
            obj = ns[parts[0]]
        elif parts[0] == "paddle":
            obj = self._paddle()
        elif hasattr(builtins, parts[0]):
            obj = getattr(builtins, parts[0])
        else:
            return _MISSING
        if obj is _MISSING:
            return obj
        for p in parts[1:]:
            try:
                obj = getattr(obj, p)
            except Exception:  # noqa: BLE001 - a property that fails: nothing to complete
                return _MISSING
        return obj

    def _paddle(self):
        mod = sys.modules.get(_PADDLE)
        if mod is None:
            import importlib

            mod = importlib.import_module(_PADDLE)
        return mod

    def _attributes(self, obj, prefix):
        names = set()
        try:
            names.update(dir(obj))
        except Exception:  # noqa: BLE001
            pass
        if isinstance(obj, type(sys)):
            names.update(_lazy_names(obj))
        out = []
        for n in sorted(names):
            if n.startswith("_") and not prefix.startswith("_"):
                continue
            out.append(n)
        return out

    # -- modules -------------------------------------------------------------------------------
    def _module(self, dotted):
        if dotted == "paddle" or dotted.startswith("paddle."):
            import importlib

            self._paddle()
            try:
                return importlib.import_module(_PADDLE + dotted[len("paddle"):])
            except ImportError:
                return None
        return sys.modules.get(dotted)

    def _module_names(self, dotted):
        if "." not in dotted:
            names = set(self._top_level()) | {"paddle"}
            yield from _matches(sorted(names), dotted)
            return
        base, _, prefix = dotted.rpartition(".")
        mod = self._module(base)
        if mod is None:
            return
        subs = set()
        path = getattr(mod, "__path__", None)
        if path:
            import pkgutil

            subs.update(m.name for m in pkgutil.iter_modules(path))
        subs.update(n for n in _lazy_names(mod))
        subs.update(n for n, v in vars(mod).items() if isinstance(v, type(sys)))
        yield from _matches(sorted(n for n in subs if not n.startswith("_")), prefix)

    def _top_level(self):
        if self._top_modules is None:
            import pkgutil

            names = {m.name for m in pkgutil.iter_modules() if not m.name.startswith("_")}
            names.update(n for n in sys.builtin_module_names if not n.startswith("_"))
            self._top_modules = sorted(names)
        return self._top_modules


_MISSING = object()


def _matches(names, prefix):
    for n in names:
        if n.startswith(prefix) and n != prefix:
            yield Completion(n, start_position=-len(prefix))


def _lazy_names(mod):
    """Names a module's ``__getattr__`` serves lazily (``paddle.nn``): the identifiers among
    its code's constants, when they are real attributes of the module."""
    ga = vars(mod).get("__getattr__")
    code = getattr(ga, "__code__", None)
    if code is None:
        return []
    names = []
    for c in code.co_consts:
        items = c if isinstance(c, tuple) else (c,)
        for item in items:
            if isinstance(item, str) and item.isidentifier() and not keyword.iskeyword(item):
                names.append(item)
    out = []
    for n in names:
        if n in vars(mod):
            out.append(n)
            continue
        if n.startswith("__"):
            out.append(n)
            continue
        path = getattr(mod, "__path__", None)
        if path:
            import importlib.util

            try:
                if importlib.util.find_spec(f"{mod.__name__}.{n}") is not None:
                    out.append(n)
            except (ImportError, ValueError):
                pass
    return out


def _meta(value):
    if value is None:
        return ""
    t = type(value)
    if t.__name__ in ("Tensor", "Parameter"):
        try:
            shape = list(value.shape)
            return f"{t.__name__} {shape} {str(value.dtype).replace('paddle.', '')}"
        except Exception:  # noqa: BLE001
            return t.__name__
    return t.__name__


def _in_string(line, pos):
    """Whether ``pos`` in ``line`` is inside a string literal (quotes counted naively)."""
    single = double = False
    for ch in line[:pos]:
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
    return single or double


class ShellLexer(Lexer):
    """Python highlighting (pygments); a ``%`` command line: the command word stands out."""

    def __init__(self):
        from pygments.lexers.python import PythonLexer

        self._python = PygmentsLexer(PythonLexer)

    def lex_document(self, document):
        if document.text.lstrip().startswith("%"):
            lines = document.lines

            def get_line(i):
                line = lines[i] if i < len(lines) else ""
                m = re.match(r"(\s*%\w*)(.*)$", line)
                if not m:
                    return [("", line)]
                return [("class:pygments.keyword", m.group(1)), ("", m.group(2))]

            return get_line
        return self._python.lex_document(document)
