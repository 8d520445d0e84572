"""Safe mode: replaying session files written by someone else (``gradrepl replay FILE --safe``).

A teacher replays students' files; a file must not be able to read the teacher's files, write
anywhere, start processes, open sockets or exhaust the machine. The boundary is the kernel:
``replay --safe`` runs each file in a child that ``kernel.confine()`` has put under Landlock
and seccomp (``kernel.py``), and the parent decides and writes (``safe_replay.py``). The two
layers here are filters in front of it, so that a session does not even get the primitives
the kernel then contains:

1. **A static check of the source** (``check_source``, ``check_session_blocks``,
   ``check_session_text``, ``SessionChecker``): the Python of each input is parsed (never run)
   and refused, with the line and the construct named, unless it stays within paddle / numpy /
   math. It refuses: imports other than ``paddle`` (and its public submodules, never test
   code), ``numpy`` and its public modules by an explicit list (``NUMPY_MODULES``: no
   ``numpy.core`` shim, no test modules, no ``conftest``, nothing private), ``math`` and
   ``gradrepl.paddle``; attribute names bound anywhere reachable to a module outside that list
   (``np.core``); star imports (but ``from math import *``) and relative imports; dunder
   names and dunder attributes (``__class__``, ``__globals__``, ``__subclasses__``,
   ``__builtins__``, ``__import__`` ...; only ``__name__``/``__qualname__``/``__doc__``/
   ``__version__`` and the ordinary dunder methods may be read, so ``super().__init__()``,
   ``paddle.__version__`` and ``x.__len__()`` work); the builtins that escape
   (``open exec eval compile getattr setattr delattr globals locals vars breakpoint input help
   memoryview license``; ``input``/``vars``/``help``/``license`` only when the source does not
   bind that name itself); ``type`` except the one-argument call ``type(x)``; class keywords
   (``metaclass=``); dunder method definitions outside a list of ordinary ones
   (``__init__``, ``__call__``, arithmetic ...); attributes that lead to frames and code
   (``gi_frame``, ``f_globals``, ``f_back``, ``tb_frame``, ``cr_frame``, ``co_code``, ``mro``
   ...), to system modules however they are reached (``paddle.profiles.os``: ``os sys
   subprocess builtins importlib io pathlib operator functools typing ...``: a fixed table plus
   every name under which a non-allowlisted module or a dangerous function is bound in a module
   reachable from paddle/numpy/math, computed once), to files (``load save savez savetxt
   loadtxt genfromtxt fromfile tofile memmap dump``...), and the escape hatches
   ``np.lib np.ctypeslib np.testing np.f2py np.distutils arr.ctypes as_strided np.info np.test
   paddle.utils paddle.jit paddle.static paddle.inference paddle.hub``...; private attributes
   (``x._core``) unless the checked source assigns that attribute or defines it in a class,
   and never a private name under which numpy, paddle or gradrepl bind a module (assigning
   ``x._core`` does not unlock ``np._core``);
   ``.format``/``.format_map`` unless called on a string literal whose fields read only allowed
   attributes (``'{0.__class__}'.format(x)`` is refused); the shell commands ``%record`` and
   ``%load``, ``%graph -o`` (files), and unknown ``%`` commands (``%time STMT`` is checked as
   Python). Identifiers are checked as Python sees them (NFKC-normalised: ``ｅｖａｌ`` is
   ``eval``). Source that does not parse is refused too (nothing unchecked runs), unless
   ``allow_syntax_errors=True``.

2. **A limited child process** (``run_safe``) with a **runtime guard** (``install_runtime_guard``,
   ``safe_builtins``) inside it, for whatever the static check misses:

   - ``run_safe(argv)`` runs ``python -m gradrepl ARGV...`` (or ``python PYTHON_ARGS...`` with
     ``python_args=``) in a fresh temporary directory (its cwd, HOME and TMPDIR; deleted after
     unless ``keep_cwd``), in a new session (process group, killed as a whole on the wall-clock
     timeout), with ``setrlimit``: CPU seconds, address space (memory), file size (10 MB: also
     caps what it prints, since its stdout/stderr go to files), open files, no core dumps, and
     a process count (when not root: root ignores it). The environment is scrubbed: only PATH,
     HOME, LANG, PYTHONPATH (if set; gradrepl's own directory is added when needed), the
     caller's ``GRADREPL_*`` variables, one-thread settings for the BLAS libraries and the
     ``GRADREPL_SANDBOX*`` variables below. The result is a ``subprocess.CompletedProcess``
     (``SafeResult``) whose ``limit`` is None or ``"cpu" | "memory" | "timeout" | "file size" |
     "open files"`` and whose ``message`` says so (``CPU time limit (30 s) exceeded``, ``memory
     limit (2048 MB) exceeded``, ``wall-clock timeout (60 s) exceeded``).
   - ``install_runtime_guard()`` (to be called in the child, early) adds an audit hook
     (``sys.addaudithook``, which cannot be removed) that denies, with a ``PermissionError``:
     opening files for writing outside the sandbox directory (and the ``write_paths``), reading
     files outside the Python installation (stdlib, site-packages, gradrepl), the sandbox
     directory and the ``read_paths`` (code files only under other ``sys.path`` entries);
     creating, renaming, deleting or linking files outside the sandbox directory; processes
     (``subprocess.Popen``, ``os.system``, ``os.exec*``, ``os.spawn*``, ``os.posix_spawn``,
     ``os.fork``, ``os.kill``); sockets (every ``socket.*`` event); ``ctypes``; ``pickle``
     loading globals (``np.load(allow_pickle=True)``); ``breakpoint``/``input``;
     ``setrlimit``; new audit hooks; and, when called straight from the session's code (frames
     compiled as ``<stdin>`` or ``<session...>``), ``exec``/``compile``, frame access
     (``sys._getframe``, ``gi_frame``, ``tb_frame``, ``__code__``), code and function
     construction and the ``gc`` object walks. The hook reads only frozen copies of its
     tables held in its own closure (never this module's globals, which a session that
     reached ``sys.modules`` could rebind). It also disables ``_posixsubprocess.fork_exec``
     and ctypes' raw-memory helpers, and stops writing ``.pyc`` files. With no arguments it
     reads ``GRADREPL_SANDBOX_DIR``, ``GRADREPL_SANDBOX_READ`` and ``GRADREPL_SANDBOX_WRITE``
     (``os.pathsep``-separated paths), which ``run_safe(read_paths=, write_paths=)`` sets.
   - ``safe_builtins()`` is the builtins dict for the session's namespace: without ``open exec
     eval compile breakpoint input getattr setattr delattr globals locals vars memoryview help
     license credits copyright __loader__ __spec__``, and with an ``__import__`` that admits only
     paddle, numpy, math and gradrepl.paddle (the same rules as the static check).
     ``safe_namespace()`` is a fresh ``{"__name__": "__main__", "__builtins__": ...}``.

What this cannot promise (see the tests' corpus, ``tests/data/escapes``): CPython's audit hooks
are not a security boundary against code that can corrupt memory (a ctypes-like primitive, or
an interpreter bug), and ``stat``-level facts (whether a path exists) are not audited. The
static check is what keeps a session from reaching such primitives; the child's limits and the
scrubbed environment bound what is left.
"""
from __future__ import annotations

import ast
import builtins
import os
import re
import subprocess
import sys
import unicodedata
from dataclasses import dataclass

__all__ = [
    "Refusal", "check_source", "check_session_blocks", "check_session_text", "SessionChecker",
    "safe_builtins", "safe_namespace", "install_runtime_guard", "RuntimeGuard", "run_safe",
    "SafeResult", "denied_attribute_names",
]


# ============================================================================ layer 1: the AST
@dataclass(frozen=True)
class Refusal:
    """One refused construct: the 1-based line (of the session file when the caller gave the
    block's first line) and 1-based column, and what is refused and why."""

    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


_ONLY = "only paddle, numpy, math"
IMPORT_ROOTS = ("paddle", "numpy", "math")

# builtins that are refused by name (the value says why)
REFUSED_BUILTINS = {
    "open": "it reads and writes files",
    "exec": "it runs arbitrary code",
    "eval": "it runs arbitrary code",
    "compile": "it builds code objects",
    "getattr": "it reads attributes by a computed name",
    "setattr": "it writes attributes by a computed name",
    "delattr": "it deletes attributes by a computed name",
    "globals": "it exposes the namespace and its builtins",
    "locals": "it exposes the namespace and its builtins",
    "vars": "it exposes namespaces and object dictionaries",
    "breakpoint": "it starts a debugger",
    "memoryview": "it gives raw memory access",
    "help": "it starts pydoc (pager, imports)",
    "input": "it reads the terminal",
    "license": "it starts an interactive pager",
}
# refused only when the checked source does not bind the name itself (``input = x`` is common)
SHADOWABLE = frozenset({"input", "vars", "help", "license"})

DUNDER_NAMES_READABLE = frozenset({"__name__", "__doc__"})
# dunder methods a class body may define (Layer subclasses, small numeric classes ...)
DUNDER_METHODS = frozenset("__" + n + "__" for n in """
    init call repr str len getitem setitem delitem iter next reversed contains eq ne lt le gt
    ge hash bool add radd iadd sub rsub isub mul rmul imul matmul rmatmul imatmul truediv
    rtruediv itruediv floordiv rfloordiv ifloordiv mod rmod imod pow rpow ipow divmod rdivmod
    neg pos abs invert and rand iand or ror ior xor rxor ixor lshift rlshift ilshift rshift
    rrshift irshift float int index complex round trunc floor ceil enter exit aenter aexit
    aiter anext await getattr setattr delattr post_init""".split())
# dunder attributes that may be read: data (``paddle.__version__``) and the ordinary methods
# above (``super().__init__()``, ``x.__len__()``), not the attribute hooks
DUNDER_ATTRS_READABLE = (frozenset({"__name__", "__qualname__", "__doc__", "__version__"})
                         | DUNDER_METHODS) - {"__getattr__", "__setattr__", "__delattr__"}

_FRAMES = "it reaches frames, code or globals"
_FILES = "it reads or writes files"
_PICKLE = "it reads or writes files and can unpickle code"
_SYSTEM = "it reaches a module that gives the system (files, processes, builtins)"
_STRATTR = "it reads attributes by a computed name"
_NATIVE = "it gives native code or raw memory access"

DENIED_ATTRS: dict[str, str] = {}
for _names, _why in [
    ("gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await cr_origin ag_frame ag_code "
     "ag_await f_globals f_locals f_builtins f_back f_code f_trace tb_frame tb_next co_code "
     "co_consts co_names func_globals func_code func_closure func_defaults im_func im_self "
     "im_class cell_contents mro", _FRAMES),
    ("os sys subprocess builtins bltns importlib io pathlib shutil socket pickle marshal runpy "
     "inspect types gc posix nt signal threading multiprocessing tempfile glob code codeop pty "
     "platform sysconfig site operator functools typing dataclasses contextlib warnings weakref "
     "linecache traceback tokenize token ast dis pydoc webbrowser urllib http asyncio "
     "concurrent selectors mmap fcntl resource atexit faulthandler tracemalloc zipfile "
     "tarfile zipimport pkgutil copyreg string locale codecs encodings stat posixpath "
     "genericpath ntpath fnmatch machinery util resources readers st path sqlite3 dbm shelve "
     "logging unittest doctest pdb bdb cProfile pstats socketserver ssl ftplib smtplib "
     "xmlrpc email json csv configparser getpass pwd grp termios tty readline rlcompleter cmd "
     "shlex gzip bz2 lzma zlib binascii", _SYSTEM),
    ("attrgetter methodcaller getattr_static get_type_hints update_wrapper wraps Formatter "
     "vformat get_field format_field", _STRATTR),
    ("dataclass make_dataclass", "it builds code from strings"),
    ("load save savez savez_compressed dump dumps loads fromfile tofile open_memmap "
     "memmap", _PICKLE),
    ("savetxt loadtxt genfromtxt fromregex DataSource npyio recfunctions", _FILES),
    ("ctypes ctypeslib as_strided stride_tricks", _NATIVE),
    ("lib", "numpy.lib gives file, pickle and raw-memory access"),
    ("testing test f2py distutils", "it runs test suites or compilers"),
    ("info", "numpy.info imports modules by name"),
    ("utils jit static inference hub distributed onnx incubate dataset datasets download "
     "callbacks fluid sysconfig", "it reaches paddle's file, download or compiler modules"),
    ("system popen spawn spawnv spawnl execv execve execl fork kill", "it starts processes"),
]:
    for _n in _names.split():
        DENIED_ATTRS[_n] = _why
del _names, _why, _n

# modules whose attributes may be walked to find more names (everything else reachable is
# denied by the name it is bound under)
_SAFE_MODULES = ("gradrepl.paddle", "gradrepl.engine", "numpy", "math", "cmath", "numbers",
                 "itertools", "abc", "collections", "enum", "re", "struct", "errno", "time",
                 "keyword", "copy", "fractions", "decimal", "random")
_UNSAFE_MODULES = ("numpy.lib", "numpy.ctypeslib", "numpy.testing", "numpy.f2py",
                   "numpy.distutils", "numpy.typing", "numpy._pytesttester", "numpy._utils",
                   "numpy._core._internal")
_SAFE_EXCEPTIONS = ("numpy.lib.scimath",)  # np.emath
# The modules a session may import or reach as an attribute value, explicitly: numpy's public
# modules (no test modules, no conftest, no shims such as numpy.core, no private modules),
# math and paddle (``paddle.X`` is gradrepl.paddle's public modules). A name bound anywhere
# reachable to any other module is a denied attribute name.
NUMPY_MODULES = frozenset("""numpy numpy.linalg numpy.fft numpy.random numpy.polynomial
    numpy.polynomial.polynomial numpy.polynomial.chebyshev numpy.polynomial.legendre
    numpy.polynomial.laguerre numpy.polynomial.hermite numpy.polynomial.hermite_e numpy.ma
    numpy.char numpy.strings numpy.rec numpy.emath numpy.exceptions numpy.dtypes
    numpy.version numpy.random.mtrand numpy.random.bit_generator numpy.ma.extras
    numpy.ma.core""".split())
_REACHABLE_MODULES = NUMPY_MODULES | {"numpy.lib.scimath", "math", "cmath", "numbers",
                                      "itertools", "abc", "collections", "enum", "re",
                                      "struct", "errno", "time", "keyword", "copy",
                                      "fractions", "decimal", "random", "collections.abc"}
# parts of a paddle module path that are never imported (test code, pytest's files)
_NEVER_PARTS = frozenset({"tests", "test", "testing", "conftest", "tests_", "benchmarks"})


def _allowed_module(name: str) -> bool:
    """Whether a module may be reached as an attribute value: the explicit list, and
    gradrepl.paddle's and gradrepl.engine's public modules."""
    if name in _REACHABLE_MODULES:
        return True
    parts = name.split(".")
    if parts[:2] in (["gradrepl", "paddle"], ["gradrepl", "engine"]):
        return not any(p.startswith("_") or p in _NEVER_PARTS for p in parts[2:])
    return False
# functions (by module) that must not be reachable under any attribute name
_DANGEROUS_FUNC_MODULES = ("os", "posix", "nt", "posixpath", "ntpath", "genericpath", "io",
                           "_io", "subprocess", "_posixsubprocess", "shutil", "pickle",
                           "_pickle", "marshal", "socket", "_socket", "ctypes", "_ctypes",
                           "importlib", "runpy", "pty", "inspect", "sys", "gc", "code",
                           "codeop", "pdb", "linecache", "glob", "tokenize", "webbrowser",
                           "urllib", "http", "string", "tempfile")
_DANGEROUS_FUNCS = {("operator", "attrgetter"), ("operator", "methodcaller"),
                    ("_operator", "attrgetter"), ("_operator", "methodcaller"),
                    ("functools", "update_wrapper"), ("functools", "wraps"),
                    ("typing", "get_type_hints"), ("dataclasses", "make_dataclass"),
                    ("dataclasses", "dataclass")}


def _under(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _safe_module(name: str) -> bool:
    if _under(name, _SAFE_EXCEPTIONS):
        return True
    return _under(name, _SAFE_MODULES) and not _under(name, _UNSAFE_MODULES)


_REACHABLE: dict | None = None


def _reachable_denied() -> dict:
    """Names under which a module that is not allowlisted, or a dangerous function, is bound in
    a module reachable (through module attributes) from paddle, numpy and math: ``profiles.os``
    makes ``os`` a denied attribute name. Computed once per process."""
    global _REACHABLE
    if _REACHABLE is not None:
        return _REACHABLE
    import types
    import warnings

    found: dict[str, str] = {}
    private: set = set()
    roots = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("gradrepl.paddle", "numpy", "math", "numpy.ma", "numpy.fft",
                     "numpy.polynomial", "numpy.char", "numpy.rec", "numpy.strings",
                     "numpy.linalg", "numpy.random", "numpy.core"):
            try:
                roots.append(__import__(name, fromlist=["_"]))
            except Exception:  # noqa: BLE001 - a module this numpy does not have
                pass
    dangerous_builtins = {id(getattr(builtins, n)) for n in REFUSED_BUILTINS}
    dangerous_builtins |= {id(builtins.__import__)}
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        mod = stack.pop()
        if mod.__name__ in seen:
            continue
        seen.add(mod.__name__)
        mod_allowed = _allowed_module(mod.__name__)
        try:
            items = list(vars(mod).items())
        except TypeError:
            continue
        for key, value in items:
            if key.startswith("__") and key.endswith("__"):
                continue
            if key.startswith("_") and isinstance(value, types.ModuleType):
                private.add(key)
            if isinstance(value, type):
                for ckey, cval in list(getattr(value, "__dict__", {}).items()):
                    if ckey.startswith("_") and not _is_dunder(ckey) and \
                            isinstance(cval, types.ModuleType):
                        private.add(ckey)
            if isinstance(value, types.ModuleType):
                if _safe_module(value.__name__):
                    stack.append(value)
                if mod_allowed and not _allowed_module(value.__name__):
                    # (a binding inside a module no public name reaches cannot be reached)
                    found.setdefault(key, f"it reaches the module {value.__name__!r}")
                continue
            if id(value) in dangerous_builtins:
                found.setdefault(key, f"it is the builtin {value.__name__!r}")
                continue
            tmod = getattr(type(value), "__module__", "") or ""
            if not isinstance(value, type) and _under(tmod, _DANGEROUS_FUNC_MODULES):
                # an object of a system module: a ctypes library handle (gradrepl's kernels
                # keep libm, whose dlsym also finds libc), an open file, os.environ ...
                found.setdefault(key, f"it holds a {tmod}.{type(value).__name__} object")
                continue
            if not callable(value):
                continue
            try:
                vmod = getattr(value, "__module__", None)
                qual = getattr(value, "__qualname__", None) or getattr(value, "__name__", "")
            except Exception:  # noqa: BLE001
                continue
            if not isinstance(vmod, str):
                continue
            if (vmod, qual) in _DANGEROUS_FUNCS or _under(vmod, _DANGEROUS_FUNC_MODULES):
                if key not in _HARMLESS_REBINDS:
                    found.setdefault(key, f"it is {vmod}.{qual}")
    _LIB_PRIVATE.clear()
    _LIB_PRIVATE.update(private)
    _REACHABLE = found
    return found


# private names under which the library binds modules (module globals, class attributes):
# a session that assigns ``x._core`` does not unlock ``np._core``
_LIB_PRIVATE: set = set()


# rebinding these harmless names elsewhere must not make common methods unusable
_HARMLESS_REBINDS = frozenset({"replace", "copy", "exit"})


def denied_attribute_names() -> dict:
    """Every refused attribute name with why: the fixed table and the names found by walking
    the modules reachable from paddle, numpy and math."""
    out = dict(_reachable_denied())
    out.update(DENIED_ATTRS)
    return out


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


_SHELL_ALLOWED = ("graph", "step", "why", "vars", "profile", "reset", "time", "history", "help")
_SHELL_REFUSED = {"record": "it writes a file", "load": "it reads a file"}


class SessionChecker:
    """The static check, keeping what earlier inputs of the session defined (private attribute
    names such as ``self._w``, names that shadow ``input``/``vars``/``help``), so a later input
    may use them. ``check(source, first_line)`` returns the refusals of one input (Python or a
    ``%`` command)."""

    def __init__(self, allow_syntax_errors: bool = False):
        self.allow_syntax_errors = allow_syntax_errors
        self.private_names: set[str] = set()
        self.bound_names: set[str] = set()

    # -- entry points ---------------------------------------------------------------------
    def check(self, source: str, first_line: int = 1, filename: str = "<session>") -> list:
        if source.strip().startswith("%"):
            return self._check_command(source.strip(), first_line)
        tree, refusal = self._parse(source, first_line, filename)
        if refusal is not None:
            return [refusal]
        if tree is None:
            return []
        self.learn(tree)
        return self._check_tree(tree, first_line)

    def learn(self, tree) -> None:
        """Note the private attributes and names that ``tree`` defines."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if node.attr.startswith("_") and not _is_dunder(node.attr):
                    self.private_names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    for name in _stmt_binds(stmt):
                        if name.startswith("_") and not _is_dunder(name):
                            self.private_names.add(name)
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.bound_names.add(node.id)
            elif isinstance(node, ast.arg):
                self.bound_names.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound_names.add(node.name)
            elif isinstance(node, ast.alias):
                self.bound_names.add(node.asname or node.name.split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.bound_names.add(node.name)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                self.bound_names.add(node.name)

    # -- parsing --------------------------------------------------------------------------
    def _parse(self, source, first_line, filename):
        if len(source) > 1_000_000:
            return None, Refusal(first_line, 1, "input too long to check (over 1,000,000 "
                                 "characters)")
        try:
            return ast.parse(source, filename, "exec"), None
        except SyntaxError as exc:
            if self.allow_syntax_errors:
                return None, None
            line = first_line + (exc.lineno or 1) - 1
            return None, Refusal(line, exc.offset or 1,
                                 f"cannot be checked: {exc.msg} (syntax error)")
        except (ValueError, OverflowError) as exc:
            if self.allow_syntax_errors:
                return None, None
            return None, Refusal(first_line, 1, f"cannot be checked: {exc}")
        except (RecursionError, MemoryError):
            return None, Refusal(first_line, 1, "cannot be checked: nested too deeply")

    # -- the rules ------------------------------------------------------------------------
    def _check_tree(self, tree, first_line: int) -> list:
        denied = denied_attribute_names()
        parents: dict = {}
        out: list[Refusal] = []

        def refuse(node, message):
            line = first_line + getattr(node, "lineno", 1) - 1
            out.append(Refusal(line, getattr(node, "col_offset", 0) + 1, message))

        def attr_rule(node, attr, ctx_load=True, via=""):
            """The refusal message for reading/writing attribute ``attr``, or None."""
            attr = unicodedata.normalize("NFKC", attr)
            if _is_dunder(attr):
                if ctx_load and attr in DUNDER_ATTRS_READABLE:
                    return None
                return f"access to dunder attribute {attr!r}{via} is not allowed"
            if attr.startswith("_") and attr not in self.private_names:
                return (f"private attribute {attr!r}{via} is not allowed (only private "
                        "attributes the session defines itself)")
            if attr.startswith("_") and attr in _LIB_PRIVATE:
                return (f"private attribute {attr!r}{via} is not allowed (numpy, paddle or "
                        "gradrepl has a private name of its own so spelled)")
            if attr in denied:
                return f"attribute {attr!r}{via} is not allowed ({denied[attr]})"
            return None

        try:
            nodes = list(ast.walk(tree))
        except RecursionError:
            return [Refusal(first_line, 1, "cannot be checked: nested too deeply")]
        for node in nodes:
            for child in ast.iter_child_nodes(node):
                parents[child] = node

        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    msg = self._import_rule(alias.name, denied)
                    if msg is None and alias.name.split(".")[0] == "gradrepl" \
                            and alias.asname is None:
                        msg = (f"'import {alias.name}' binds the whole gradrepl package; "
                               f"write 'import {alias.name} as paddle'")
                    if msg:
                        refuse(node, msg)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    refuse(node, "relative import is not allowed (" + _ONLY + ")")
                    continue
                mod = node.module or ""
                msg = self._import_rule(mod, denied, from_names=[a.name for a in node.names])
                if msg:
                    refuse(node, msg)
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        if mod != "math":
                            refuse(node, f"'from {mod} import *' is not allowed (the names "
                                   "it brings in cannot be checked)")
                        continue
                    why = _name_reason(alias.name, denied)
                    if why:
                        refuse(node, f"import of {alias.name!r} from {mod!r} is not allowed"
                               f" ({why})")
            elif isinstance(node, ast.Name):
                self._name_rule(node, parents, refuse)
            elif isinstance(node, ast.Attribute):
                msg = attr_rule(node, node.attr, isinstance(node.ctx, ast.Load))
                if msg:
                    refuse(node, msg)
                elif node.attr in ("format", "format_map"):
                    self._format_rule(node, refuse, attr_rule)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if _is_dunder(node.name):
                    in_class = isinstance(parents.get(node), ast.ClassDef)
                    if not in_class:
                        refuse(node, f"a function named {node.name!r} is not allowed")
                    elif node.name not in DUNDER_METHODS:
                        refuse(node, f"defining the method {node.name!r} is not allowed "
                               "(it changes how Python treats the object)")
            elif isinstance(node, ast.ClassDef):
                if _is_dunder(node.name):
                    refuse(node, f"a class named {node.name!r} is not allowed")
                for kw in node.keywords:
                    refuse(node, f"class keyword {kw.arg or '**'!r} is not allowed (metaclasses"
                           " and class hooks can run code at class creation)")
            elif isinstance(node, ast.arg):
                if _is_dunder(node.arg):
                    refuse(node, f"dunder name {node.arg!r} is not allowed")
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                for name in node.names:
                    if _is_dunder(name):
                        refuse(node, f"dunder name {name!r} is not allowed")
            elif isinstance(node, ast.alias):
                if node.asname and _is_dunder(node.asname):
                    refuse(parents.get(node, node), f"dunder name {node.asname!r} is not "
                           "allowed")
            elif isinstance(node, ast.ExceptHandler):
                if node.name and _is_dunder(node.name):
                    refuse(node, f"dunder name {node.name!r} is not allowed")
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
                if node.name and _is_dunder(node.name):
                    refuse(node, f"dunder name {node.name!r} is not allowed")
            elif isinstance(node, ast.MatchMapping):
                if node.rest and _is_dunder(node.rest):
                    refuse(node, f"dunder name {node.rest!r} is not allowed")
            elif isinstance(node, ast.MatchClass):
                for attr in node.kwd_attrs:
                    msg = attr_rule(node, attr, True, " (in a class pattern)")
                    if msg:
                        refuse(node, msg)
        out = sorted(set(out), key=lambda r: (r.line, r.col, r.message))
        return out

    def _import_rule(self, name: str, denied, from_names=()):
        parts = name.split(".")
        root = parts[0]
        if root == "gradrepl":
            if parts[1:2] != ["paddle"]:
                if len(parts) == 1 and from_names and set(from_names) == {"paddle"}:
                    return None
                return f"import of {name!r} is not allowed ({_ONLY}, gradrepl.paddle)"
            rest = parts[2:]
        elif root == "numpy":
            if name not in NUMPY_MODULES:
                return (f"import of {name!r} is not allowed (of numpy, only its public "
                        "modules: numpy.linalg, numpy.random, numpy.fft ...; no test code, "
                        "no shims such as numpy.core)")
            rest = parts[1:]
        elif root in IMPORT_ROOTS:
            rest = parts[1:]
        else:
            return f"import of {name!r} is not allowed ({_ONLY})"
        for part in rest:
            if _is_dunder(part) or part.startswith("_"):
                return f"import of {name!r} is not allowed (private module)"
            if part in _NEVER_PARTS:
                return f"import of {name!r} is not allowed (test code)"
            if part in denied:
                return f"import of {name!r} is not allowed ({denied[part]})"
        return None

    def _name_rule(self, node, parents, refuse):
        name = node.id
        load = isinstance(node.ctx, ast.Load)
        if _is_dunder(name):
            if not (load and name in DUNDER_NAMES_READABLE):
                refuse(node, f"dunder name {name!r} is not allowed")
            return
        if name in REFUSED_BUILTINS:
            if name in SHADOWABLE and name in self.bound_names:
                return
            if load:
                refuse(node, f"{name!r} is not allowed ({REFUSED_BUILTINS[name]})")
            elif name not in SHADOWABLE:
                refuse(node, f"rebinding {name!r} is not allowed")
            return
        if name == "type":  # never shadowable: ``type = type`` would unlock type(n, b, d)
            parent = parents.get(node)
            ok = (load and isinstance(parent, ast.Call) and parent.func is node
                  and len(parent.args) == 1 and not parent.keywords
                  and not isinstance(parent.args[0], ast.Starred))
            if ok:
                grand = parents.get(parent)
                if isinstance(grand, ast.Call) and grand.func is parent:
                    ok = False
            if not ok:
                refuse(node, "'type' is allowed only as type(x) (three-argument type() "
                       "builds classes)")

    def _format_rule(self, node, refuse, attr_rule):
        recv = node.value
        if not (isinstance(recv, ast.Constant) and isinstance(recv.value, str)):
            refuse(node, f"'.{node.attr}' is allowed only on a string literal (a format string "
                   "held elsewhere can read attributes the check cannot see; use a literal or an "
                   "f-string)")
            return
        problem = _format_string_problem(recv.value, attr_rule, node)
        if problem:
            refuse(node, problem)

    # -- % commands -----------------------------------------------------------------------
    def _check_command(self, line: str, first_line: int) -> list:
        import shlex

        body = line.strip()[1:]  # parsed as commands.run_command parses it
        name, _, rest = body.partition(" ")
        name_n = unicodedata.normalize("NFKC", name)

        def refusal(msg):
            return [Refusal(first_line, 1, msg)]

        if "\n" in line:
            return refusal("a % command is one line (the transcript format has no "
                           "continuation lines for commands)")
        if name_n in _SHELL_REFUSED:
            return refusal(f"shell command %{name_n} is not allowed in safe mode "
                           f"({_SHELL_REFUSED[name_n]})")
        if name not in _SHELL_ALLOWED:
            return refusal(f"unknown shell command %{name} (safe mode admits only "
                           + ", ".join("%" + c for c in _SHELL_ALLOWED) + ")")
        if name == "time":
            return self.check(rest.strip(), first_line) if rest.strip() else []
        try:
            args = shlex.split(rest)
        except ValueError:
            return refusal(f"the arguments of %{name} cannot be read")
        for arg in args:
            opt = arg.split("=")[0]
            # argparse also takes abbreviations (--out) and glued values (-oFILE)
            if name in ("graph", "why") and (opt.startswith("-o") or (
                    opt.startswith("--o") and "--output".startswith(opt))):
                return refusal(f"%{name} -o is not allowed in safe mode (it writes a file)")
            if "__" in arg:
                return refusal(f"argument {arg!r} of %{name} is not allowed (dunder)")
        return []


def _name_reason(name: str, denied) -> str | None:
    """Why a name may not be imported, or None."""
    if _is_dunder(name):
        return "dunder name"
    if name in denied:
        return denied[name]
    if name.startswith("_"):
        return "private name"
    return None


def _stmt_binds(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt.name
    elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    yield n.id


def _format_string_problem(fmt: str, attr_rule, node, depth: int = 0):
    """Why the literal format string ``fmt`` may not be used with ``.format``, or None."""
    import _string

    if depth > 2:
        return "format string nested too deeply"
    try:
        pieces = list(_string.formatter_parser(fmt))
    except ValueError as exc:
        return f"malformed format string ({exc})"
    for _literal, field, spec, _conv in pieces:
        if field is None:
            continue
        field_n = unicodedata.normalize("NFKC", field)
        try:
            _first, rest = _string.formatter_field_name_split(field_n)
            rest = list(rest)
        except ValueError as exc:
            return f"malformed format field {field!r} ({exc})"
        for is_attr, key in rest:
            if is_attr:
                msg = attr_rule(node, key, True, f" (through the format field {field!r})")
                if msg:
                    return msg
            elif isinstance(key, str) and "__" in key:
                return f"format field {field!r} is not allowed (dunder key)"
        if spec and "{" in spec:
            inner = _format_string_problem(spec, attr_rule, node, depth + 1)
            if inner:
                return inner
    return None


def check_source(source: str, filename: str = "<session>", first_line: int = 1, *,
                 allow_syntax_errors: bool = False) -> list:
    """The refusals for one input (Python source, or a ``%`` command line): an empty list if it
    may run in safe mode. ``first_line`` is the file line of the source's first line, so the
    refusals name file lines."""
    return SessionChecker(allow_syntax_errors).check(source, first_line, filename)


def check_session_blocks(blocks, *, allow_syntax_errors: bool = False) -> list:
    """The refusals for a whole session: ``blocks`` is ``[(line_number, source)]`` (the line of
    each input's ``>>> ``; ``%`` commands included), or objects with ``.line`` and
    ``.source`` (``transcript.Block``). Private attributes and shadowing names defined by any
    input count for all of them (a class defined in one input, used in the next)."""
    pairs = [(b.line, b.source) if hasattr(b, "source") else (b[0], b[1]) for b in blocks]
    checker = SessionChecker(allow_syntax_errors)
    for _line, src in pairs:  # learn first: definitions anywhere in the session
        if src.strip().startswith("%"):
            continue
        try:
            checker.learn(ast.parse(src))
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
            pass
    out: list[Refusal] = []
    for line, src in pairs:
        out.extend(checker.check(src, line))
    return out


def check_session_text(text: str, path: str = "<session>", *,
                       allow_syntax_errors: bool = False) -> list:
    """The refusals for a session file's text (parsed by ``transcript.parse``)."""
    try:
        from .transcript import parse
    except ImportError:  # pragma: no cover - the transcript module is part of gradrepl
        parse = None
    if parse is not None:
        blocks = [(b.line, b.source) for b in parse(text, path).blocks]
    else:  # pragma: no cover
        blocks = _simple_blocks(text)
    return check_session_blocks(blocks, allow_syntax_errors=allow_syntax_errors)


def _simple_blocks(text):
    blocks: list = []
    for k, ln in enumerate(text.splitlines(), 1):
        if ln.startswith(">>> ") or ln.rstrip() == ">>>":
            blocks.append([k, ln[4:]])
        elif (ln.startswith("... ") or ln.rstrip() == "...") and blocks:
            blocks[-1][1] += "\n" + ln[4:]
    return [(k, s) for k, s in blocks]


# ============================================================================ layer 2: runtime
_SAFE_REMOVED = ("open", "exec", "eval", "compile", "breakpoint", "input", "getattr", "setattr",
                 "delattr", "globals", "locals", "vars", "memoryview", "help", "license",
                 "credits", "copyright", "__loader__", "__spec__")


def _restricted_import(name, globals=None, locals=None, fromlist=(), level=0):
    """``__import__`` for safe sessions. An ``import`` statement of the session gets the static
    check's rules (paddle, numpy, math and gradrepl.paddle only). The same function is also
    called by C code running under the session's frame (numpy importing its own parts lazily,
    ``PyImport_Import``): those calls may import numpy's and gradrepl's modules and modules
    already loaded, nothing else."""
    if level:
        raise ImportError("relative imports are not allowed in safe mode")
    try:
        frame = sys._getframe(1)
        statement = frame.f_code.co_code[frame.f_lasti] == _IMPORT_NAME
    except (ValueError, IndexError, PermissionError):
        statement = True
    if not statement:
        root = name.split(".")[0]
        if any(part in _NEVER_PARTS for part in name.split(".")) and name not in sys.modules:
            raise ImportError(f"import of {name!r} is not allowed in safe mode (test code)",
                              name=name)
        if name in sys.modules or root in ("numpy", "gradrepl", "paddle", "math"):
            return builtins.__import__(name, globals, locals, fromlist, level)
        raise ImportError(f"import of {name!r} is not allowed in safe mode", name=name)
    checker = SessionChecker()
    denied = denied_attribute_names()
    from_names = [f for f in (fromlist or ()) if isinstance(f, str)]
    msg = checker._import_rule(name, denied, from_names=from_names)
    if msg is None:
        for item in from_names:
            if item == "*":
                if name != "math":
                    msg = f"'from {name} import *' is not allowed in safe mode"
            elif _name_reason(item, denied):
                msg = (f"import of {item!r} from {name!r} is not allowed in safe mode "
                       f"({_name_reason(item, denied)})")
    if msg:
        raise ImportError(f"{msg} [gradrepl safe mode]", name=name)
    return builtins.__import__(name, globals, locals, fromlist, level)


_IMPORT_NAME = __import__("dis").opmap["IMPORT_NAME"]


def safe_builtins() -> dict:
    """A copy of the builtins for a safe session's namespace: without the ones that escape
    (``open exec eval compile breakpoint input getattr setattr delattr globals locals vars
    memoryview help``...), with an ``__import__`` that admits only paddle, numpy, math and
    gradrepl.paddle."""
    b = dict(vars(builtins))
    for name in _SAFE_REMOVED:
        b.pop(name, None)
    b["__import__"] = _restricted_import
    return b


def safe_namespace() -> dict:
    """A fresh namespace for a safe session's code."""
    return {"__name__": "__main__", "__builtins__": safe_builtins()}


# ---------------------------------------------------------------------------- the audit hook
_ALWAYS_DENIED = {
    "os.system": "starting a process", "os.fork": "starting a process",
    "os.forkpty": "starting a process", "os.posix_spawn": "starting a process",
    "os.kill": "signalling a process", "os.killpg": "signalling a process",
    "os.startfile": "starting a process", "subprocess.Popen": "starting a process",
    "pty.spawn": "starting a process", "os.add_dll_directory": "loading native code",
    "builtins.breakpoint": "starting a debugger", "builtins.input": "reading the terminal",
    "resource.setrlimit": "changing the sandbox's limits",
    "resource.prlimit": "changing the sandbox's limits",
    "sys.addaudithook": "adding an audit hook",
    "pickle.find_class": "unpickling (it can run code)",
    "webbrowser.open": "opening a browser", "sqlite3.connect": "opening a database file",
    "sqlite3.enable_load_extension": "loading native code",
    "sqlite3.load_extension": "loading native code",
}
_ALWAYS_DENIED_PREFIXES = ("os.exec", "os.spawn", "socket.", "ctypes.", "_winapi.", "winreg.",
                           "urllib.", "http.client.", "ftplib.", "smtplib.", "poplib.",
                           "imaplib.", "nntplib.", "telnetlib.")
_USER_DENIED = {
    "exec": "exec/eval", "compile": "compile", "sys._getframe": "frame access",
    "sys._current_frames": "frame access", "sys._current_exceptions": "frame access",
    "object.__getattr__": "frame or code access", "code.__new__": "building code objects",
    "function.__new__": "building functions", "gc.get_objects": "walking all objects",
    "gc.get_referrers": "walking all objects", "gc.get_referents": "walking all objects",
    "sys.settrace": "installing a tracer", "sys.setprofile": "installing a profiler",
}
# write-like events: (positions of paths, positions of dir_fd arguments)
_WRITE_EVENTS = {
    "os.chmod": ((0,), (2,)), "os.chown": ((0,), (3,)), "os.chflags": ((0,), ()),
    "os.link": ((0, 1), (2, 3)), "os.mkdir": ((0,), (2,)), "os.remove": ((0,), (1,)),
    "os.rename": ((0, 1), (2, 3)), "os.rmdir": ((0,), (1,)), "os.symlink": ((0, 1), (2,)),
    "os.truncate": ((0,), ()), "os.utime": ((0,), (3,)), "os.setxattr": ((0,), ()),
    "os.removexattr": ((0,), ()), "shutil.rmtree": ((0,), ()), "shutil.chown": ((0,), ()),
}
_READ_EVENTS = {"os.listdir": (0,), "os.scandir": (0,), "glob.glob": (), "os.chdir": (0,)}
_CODE_SUFFIXES = (".py", ".pyc", ".so", ".pyd", ".pth", ".pyi", ".typed")
_TIOCSTI = 0x5412
_WATCHED = (set(_ALWAYS_DENIED) | set(_USER_DENIED) | set(_WRITE_EVENTS) | set(_READ_EVENTS)
            | {"open", "fcntl.ioctl"})


class _frozen_table:
    """A read-only lookup table (``in``, ``get``) over a copy of a dict: no dict to mutate."""

    __slots__ = ("_keys", "_items")

    def __init__(self, table):
        self._keys = frozenset(table)
        self._items = tuple(table.items())

    def __contains__(self, key):
        return key in self._keys

    def get(self, key):
        for k, v in self._items:
            if k == key:
                return v
        return None


class RuntimeGuard:
    """What the installed audit hook admits (read-only after installation), and the events it
    denied (``denied``: a list of ``(event, reason)``)."""

    def __init__(self, workdir, read_roots, code_roots, write_roots, read_files, code_filenames):
        self.workdir = workdir
        self.read_roots = tuple(read_roots)
        self.code_roots = tuple(code_roots)
        self.write_roots = tuple(write_roots)
        self.read_files = frozenset(read_files)
        self.code_filenames = frozenset(code_filenames)
        self.denied: list = []

    def __repr__(self):
        return f"<RuntimeGuard workdir={self.workdir!r}>"


_GUARD: RuntimeGuard | None = None
_PATHLIB_TYPES: tuple = ()


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _within(path: str, roots) -> bool:
    for root in roots:
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return True
    return False


def _env_paths(var: str) -> list:
    value = os.environ.get(var, "")
    return [p for p in value.split(os.pathsep) if p]


# (gradrepl.engine.mkl reads array addresses with ctypes when imported, which the hook denies;
# under the hook its loader then finds the library refused and the kernels keep numpy's)
PRELOAD = ("numpy", "gradrepl.paddle", "gradrepl.repl.session", "gradrepl.repl.commands",
           "gradrepl.engine.mkl")


def install_runtime_guard(workdir: str | None = None, read_paths=None, write_paths=None,
                          code_filenames=("<stdin>", "<session>"),
                          preload=PRELOAD) -> RuntimeGuard:
    """Install the audit hook (once per process; a second call returns the first guard).

    ``workdir``: where the code may write (default ``$GRADREPL_SANDBOX_DIR``, else the current
    directory). ``read_paths`` / ``write_paths``: more files or directories it may read / write
    (default from ``$GRADREPL_SANDBOX_READ`` / ``$GRADREPL_SANDBOX_WRITE``). ``code_filenames``:
    the filenames the session's code is compiled under (``Session`` uses ``<stdin>``); exec,
    frame access and object walks are denied when called straight from such code.
    ``preload``: modules imported before the hook is in place, because importing them needs
    what the hook denies (gradrepl's kernels load the C math library with ctypes, finding it
    with a subprocess)."""
    global _GUARD, _PATHLIB_TYPES
    if _GUARD is not None:
        return _GUARD
    import importlib

    for name in preload or ():
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    _reachable_denied()  # the walk imports numpy's lazy submodules: before the hook too
    import pathlib
    import sysconfig
    import site
    import _thread

    _PATHLIB_TYPES = (pathlib.PosixPath, pathlib.PurePosixPath, pathlib.WindowsPath,
                      pathlib.PureWindowsPath)
    workdir = _real(workdir or os.environ.get("GRADREPL_SANDBOX_DIR") or os.getcwd())
    if read_paths is None:
        read_paths = _env_paths("GRADREPL_SANDBOX_READ")
    if write_paths is None:
        write_paths = _env_paths("GRADREPL_SANDBOX_WRITE")

    roots = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            p = sysconfig.get_paths().get(key)
        except Exception:  # noqa: BLE001
            p = None
        if p:
            roots.add(_real(p))
    try:
        roots.update(_real(p) for p in site.getsitepackages())
    except Exception:  # noqa: BLE001
        pass
    try:
        roots.add(_real(site.getusersitepackages()))
    except Exception:  # noqa: BLE001
        pass
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # gradrepl/
    roots.add(_real(pkg))
    roots.add(workdir)
    read_files = set()
    for p in read_paths:
        rp = _real(p)
        (roots.add if os.path.isdir(rp) else read_files.add)(rp)
    code_roots = set()
    for p in sys.path:
        if p and os.path.isdir(p):
            rp = _real(p)
            if rp != os.sep and not _within(rp, roots):
                code_roots.add(rp)
    write_roots = {workdir} | {_real(p) for p in write_paths}
    roots.discard(os.sep)
    code_roots.discard(os.sep)
    guard = RuntimeGuard(workdir, sorted(roots), sorted(code_roots), sorted(write_roots),
                         read_files, code_filenames)

    # Everything the hook reads is captured here, frozen, in its closure: the module's globals
    # (which a session that reached ``sys.modules`` could rebind) are not read at event time.
    always_denied = _frozen_table(_ALWAYS_DENIED)
    always_prefixes = tuple(_ALWAYS_DENIED_PREFIXES)
    user_denied = _frozen_table(_USER_DENIED)
    write_events = _frozen_table(_WRITE_EVENTS)
    read_events = _frozen_table(_READ_EVENTS)
    watched = frozenset(_WATCHED)
    code_suffixes = tuple(_CODE_SUFFIXES)
    tiocsti = int(_TIOCSTI)
    pathlib_types = tuple(_PATHLIB_TYPES)
    realpath, abspath, isabs, isdir = (os.path.realpath, os.path.abspath, os.path.isabs,
                                       os.path.isdir)
    fsdecode, sep = os.fsdecode, os.sep

    def real(path):
        return realpath(abspath(path))

    def within(path, roots):
        for root in roots:
            if path == root or path.startswith(root.rstrip(sep) + sep):
                return True
        return False

    read_roots_t = guard.read_roots
    code_roots_t = guard.code_roots
    write_roots_t = guard.write_roots
    read_files_f = guard.read_files | {"/dev/null", "/dev/urandom", "/dev/random"}
    write_files_f = frozenset({"/dev/null"})
    user_names = guard.code_filenames
    denied_log = guard.denied
    busy: set = set()
    get_ident = _thread.get_ident
    getframe = sys._getframe
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC

    def as_path(obj):
        if isinstance(obj, str):
            return obj
        if isinstance(obj, bytes):
            return fsdecode(obj)
        if type(obj) in pathlib_types:
            return str(obj)
        return None

    def can_read(p):
        return (p in read_files_f or within(p, read_roots_t) or within(p, write_roots_t)
                or (within(p, code_roots_t) and (p.endswith(code_suffixes)
                                                  or isdir(p))))

    def can_write(p):
        return p in write_files_f or within(p, write_roots_t)

    def decide(event, args, caller):
        if event in always_denied:
            return always_denied.get(event)
        if event.startswith(always_prefixes):
            return event.split(".")[0] + " access"
        if event in user_denied:
            name = caller.f_code.co_filename if caller is not None else ""
            if name in user_names or name.startswith("<session"):
                return user_denied.get(event) + " from the session's code"
            return None
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            if isinstance(path, int):
                return None
            p = as_path(path)
            if p is None:
                return f"opening a {type(path).__name__} path"
            writing = bool((flags or 0) & write_flags) or (
                isinstance(mode, str) and any(c in mode for c in "wax+"))
            if mode is None and not isabs(p):
                return f"os.open of the relative path {p!r}"
            rp = real(p)
            if writing:
                return None if can_write(rp) else f"writing {rp}"
            return None if can_read(rp) else f"reading {rp}"
        if event in write_events:
            paths, dirfds = write_events.get(event)
            for k in dirfds:
                if k < len(args) and args[k] not in (None, -1):
                    return f"{event} relative to a directory descriptor"
            for k in paths:
                if k >= len(args) or isinstance(args[k], int):
                    continue
                p = as_path(args[k])
                if p is None:
                    return f"{event} of a {type(args[k]).__name__} path"
                rp = real(p)
                if not can_write(rp):
                    return f"{event} of {rp}"
            return None
        if event in read_events:
            for k in read_events.get(event):
                if k >= len(args) or args[k] is None or isinstance(args[k], int):
                    if event == "os.chdir" and k < len(args) and isinstance(args[k], int):
                        return "os.chdir to a directory descriptor"
                    continue
                p = as_path(args[k])
                if p is None:
                    return f"{event} of a {type(args[k]).__name__} path"
                rp = real(p)
                if not can_read(rp):
                    return f"{event} of {rp}"
            return None
        if event == "fcntl.ioctl":
            if len(args) > 1 and args[1] == tiocsti:
                return "typing into the terminal (TIOCSTI)"
        return None

    def hook(event, args):
        if event not in watched and not event.startswith(always_prefixes):
            return
        tid = get_ident()
        if tid in busy:
            return
        busy.add(tid)
        try:
            try:
                caller = getframe(1)
            except ValueError:
                caller = None
            reason = decide(event, args, caller)
            if reason:
                denied_log.append((event, reason))
        finally:
            busy.discard(tid)
        if reason:
            raise PermissionError(f"gradrepl safe mode: {reason} is not allowed ({event})")

    sys.dont_write_bytecode = True
    _disable_native_helpers()
    sys.addaudithook(hook)
    _GUARD = guard
    return guard


def _disable_native_helpers():
    """Replace the helpers that bypass the audit events (fork_exec, ctypes' raw memory)."""

    def _denied(*_a, **_k):
        raise PermissionError("gradrepl safe mode: not allowed")

    mod = sys.modules.get("_posixsubprocess")
    if mod is None:
        try:
            import _posixsubprocess as mod  # noqa: F811
        except ImportError:
            mod = None
    if mod is not None:
        try:
            mod.fork_exec = _denied
        except (AttributeError, TypeError):
            pass
    ct = sys.modules.get("ctypes")
    if ct is not None:
        for name in ("memmove", "memset", "string_at", "wstring_at", "cast", "CDLL", "PyDLL",
                     "pythonapi", "cdll", "pydll", "_memmove_addr", "_memset_addr",
                     "_string_at_addr", "_wstring_at_addr", "_cast_addr"):
            if hasattr(ct, name):
                try:
                    setattr(ct, name, _denied)
                except (AttributeError, TypeError):
                    pass


# ---------------------------------------------------------------------------- the child process


class SafeResult(subprocess.CompletedProcess):
    """``CompletedProcess`` with ``limit`` (None, "cpu", "memory", "timeout", "file size",
    "open files"), ``message`` (the limit in words, or None) and ``cwd`` (the sandbox
    directory; deleted already unless ``keep_cwd``)."""

    def __init__(self, args, returncode, stdout=None, stderr=None, limit=None, message=None,
                 cwd=None):
        super().__init__(args, returncode, stdout, stderr)
        self.limit = limit
        self.message = message
        self.cwd = cwd

    def __repr__(self):
        return (f"SafeResult(returncode={self.returncode!r}, limit={self.limit!r}, "
                f"message={self.message!r})")


_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS")


def _child_env(workdir: str, read_paths, write_paths) -> dict:
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    for k, v in os.environ.items():
        if k.startswith("GRADREPL_"):
            env[k] = v
    pythonpath = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not _importable_from_site(here) and here not in pythonpath:
        pythonpath.insert(0, here)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    for k in _THREAD_VARS:
        env[k] = "1"
    env["GRADREPL_SANDBOX"] = "1"
    env["GRADREPL_SANDBOX_DIR"] = workdir
    env["GRADREPL_SANDBOX_READ"] = os.pathsep.join(os.path.abspath(p) for p in read_paths)
    env["GRADREPL_SANDBOX_WRITE"] = os.pathsep.join(os.path.abspath(p) for p in write_paths)
    return env


def _importable_from_site(parent: str) -> bool:
    """Whether the directory holding the gradrepl package is a site-packages directory (then a
    child finds gradrepl without PYTHONPATH)."""
    import site

    try:
        dirs = set(site.getsitepackages()) | {site.getusersitepackages()}
    except Exception:  # noqa: BLE001
        return False
    return os.path.realpath(parent) in {os.path.realpath(d) for d in dirs}


def _user_task_count() -> int | None:
    """The number of tasks (threads) of this real uid, which RLIMIT_NPROC counts."""
    uid = os.getuid()
    total = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for e in entries:
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/status", encoding="ascii", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        m_uid = re.search(r"^Uid:\s+(\d+)", text, re.M)
        m_thr = re.search(r"^Threads:\s+(\d+)", text, re.M)
        if m_uid and int(m_uid.group(1)) == uid:
            total += int(m_thr.group(1)) if m_thr else 1
    return total


def _make_limits(cpu_seconds, memory_mb, file_mb, max_open_files, nproc):
    import resource

    cpu = max(1, int(cpu_seconds))

    def lim(res, soft, hard=None):
        hard = soft if hard is None else hard
        try:
            _cur_soft, cur_hard = resource.getrlimit(res)
            if cur_hard != resource.RLIM_INFINITY:
                soft, hard = min(soft, cur_hard), min(hard, cur_hard)
            resource.setrlimit(res, (soft, hard))
        except (ValueError, OSError):
            pass

    def preexec():
        lim(resource.RLIMIT_CPU, cpu, cpu + 1)
        if memory_mb:
            lim(resource.RLIMIT_AS, int(memory_mb) * 1024 * 1024)
        lim(resource.RLIMIT_FSIZE, int(file_mb * 1024 * 1024))
        lim(resource.RLIMIT_NOFILE, int(max_open_files))
        lim(resource.RLIMIT_CORE, 0)
        if nproc is not None and hasattr(resource, "RLIMIT_NPROC"):
            lim(resource.RLIMIT_NPROC, int(nproc))
        os.umask(0o077)

    return preexec


def run_safe(argv=None, cpu_seconds: float = 30, memory_mb: int = 2048, timeout: float = 60,
             cwd: str | None = None, *, python_args=None, file_mb: float = 10,
             max_open_files: int = 64, max_processes: int | None = None, input: str | None = None,
             read_paths=(), write_paths=(), keep_cwd: bool = False) -> SafeResult:
    """Run ``python -m gradrepl ARGV...`` (or ``python PYTHON_ARGS...``, e.g.
    ``python_args=["-c", snippet]``) in a limited child process; see the module docstring.

    ``cwd``: the sandbox directory (default: a fresh temporary one, deleted afterwards unless
    ``keep_cwd``). ``read_paths``/``write_paths``: files or directories the child's runtime
    guard may also read/write (passed as ``GRADREPL_SANDBOX_READ``/``_WRITE``; relative paths
    are taken from the caller's directory). ``max_processes``: RLIMIT_NPROC (default: the
    user's current task count plus 16; not set for root, whom the kernel does not limit).
    ``input``: text for the child's stdin (default: empty). The child's stdout and stderr go to
    files and come back as text (at most ``file_mb`` each)."""
    import shutil
    import signal
    import tempfile
    import resource

    if python_args is None and argv is None:
        raise TypeError("run_safe needs argv (gradrepl's arguments) or python_args")
    made = cwd is None
    workdir = os.path.realpath(tempfile.mkdtemp(prefix="gradrepl-safe-") if made else cwd)
    cmd = [sys.executable] + (list(python_args) if python_args is not None
                              else ["-m", "gradrepl", *argv])
    env = _child_env(workdir, read_paths, write_paths)
    if max_processes is None and os.geteuid() != 0:
        count = _user_task_count()
        max_processes = None if count is None else count + 16
    preexec = _make_limits(cpu_seconds, memory_mb, file_mb, max_open_files, max_processes)

    limit = message = None
    out_f = tempfile.TemporaryFile()
    err_f = tempfile.TemporaryFile()
    in_f = tempfile.TemporaryFile()
    try:
        if input:
            in_f.write(input.encode("utf-8"))
            in_f.seek(0)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdin=in_f, stdout=out_f,
                                stderr=err_f, start_new_session=True, preexec_fn=preexec,
                                close_fds=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            rc = proc.wait()
            limit, message = "timeout", f"wall-clock timeout ({_num(timeout)} s) exceeded"
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cap = int(file_mb * 1024 * 1024) + 1
        out_f.seek(0)
        err_f.seek(0)
        stdout = out_f.read(cap).decode("utf-8", "replace")
        stderr = err_f.read(cap).decode("utf-8", "replace")
    finally:
        out_f.close()
        err_f.close()
        in_f.close()
        if made and not keep_cwd:
            shutil.rmtree(workdir, ignore_errors=True)

    sigxcpu = getattr(signal, "SIGXCPU", None)
    sigxfsz = getattr(signal, "SIGXFSZ", None)
    if limit is None and rc != 0 and ((sigxcpu is not None and rc == -sigxcpu) or (
            rc == -signal.SIGKILL and cpu_used >= max(1, int(cpu_seconds)) - 0.05)):
        limit, message = "cpu", f"CPU time limit ({_num(cpu_seconds)} s) exceeded"
    if limit is None and (_MEMORY_ERROR.search(stderr) or _MEMORY_ERROR.search(stdout)):
        # also when the replayed session caught the MemoryError and printed it (exit 0)
        limit, message = "memory", f"memory limit ({_num(memory_mb)} MB) exceeded"
    if limit is None and rc != 0:
        if (sigxfsz is not None and rc == -sigxfsz) or "File too large" in stderr:
            limit, message = "file size", f"file size limit ({_num(file_mb)} MB) exceeded"
        elif "Too many open files" in stderr:
            limit, message = "open files", f"open files limit ({max_open_files}) exceeded"
    return SafeResult(cmd, rc, stdout, stderr, limit=limit, message=message, cwd=workdir)


_MEMORY_ERROR = re.compile(r"^(?:[\w.]+\.)?_?\w*MemoryError\b|Cannot allocate memory|"
                           r"std::bad_alloc", re.M)


def _num(x) -> str:
    return str(int(x)) if float(x) == int(x) else str(x)
