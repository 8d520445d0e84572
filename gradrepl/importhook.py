"""Run Paddle and PyTorch scripts unchanged: map ``paddle`` to ``gradrepl.paddle`` and ``torch``
to ``gradrepl.torch`` for one run only.

``dialect_modules()`` is a context manager that puts ``gradrepl.paddle`` and ``gradrepl.torch``
(and their submodules) into ``sys.modules`` under the names ``paddle`` and ``torch`` and takes them
out again afterwards, so importing gradrepl itself changes nothing global. ``paddle_modules()``
(what ``gradrepl run``, the sessions and the pictures enter) is the same context manager: one
script or session can use both dialects side by side. ``torch_modules()`` maps ``torch`` only.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import sys

PREFIX = "gradrepl.paddle"
DIALECTS = {"paddle": "gradrepl.paddle", "torch": "gradrepl.torch",
            "functorch": "gradrepl.torch._functorch"}  # (torch's deprecated functorch)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``<name>.x.y`` as ``<prefix>.x.y`` (same module object)."""

    def __init__(self, name="paddle", prefix=PREFIX):
        self.name = name
        self.prefix = prefix

    def find_spec(self, fullname, path=None, target=None):
        name = self.name
        if fullname == name or fullname.startswith(name + "."):
            real = self.prefix + fullname[len(name):]
            try:
                found = importlib.util.find_spec(real) is not None
            except ModuleNotFoundError:
                found = False
            if found:
                return importlib.util.spec_from_loader(fullname, self)
            spec = self._virtual_spec(fullname)
            if spec is None:
                self._explain_missing(fullname)
            return spec
        return None

    def _explain_missing(self, fullname):
        """Raise the dialect's ModuleNotFoundError for a module the real framework has and
        gradrepl does not emulate (its ``_missing_module(fullname)``: the error or None); else
        return, and Python says ``No module named ...`` as for any missing module."""
        explain = getattr(sys.modules.get(self.prefix), "_missing_module", None)
        error = explain(fullname) if callable(explain) else None
        if error is not None:
            raise error

    def _virtual_spec(self, fullname):
        """The framework's submodule that gradrepl folds into a parent module
        (``torch.nn.modules.linear``, ``torch.optim.sgd``): found where the nearest existing
        parent holds objects whose ``__module__`` names it (what ``pickle`` imports to find a
        class: ``pickle.dumps(nn.Linear(2, 2))``). The module object serves those names."""
        parts = fullname[len(self.name):].split(".")
        names = {}
        for cut in range(len(parts) - 1, 0, -1):  # the parents, nearest first
            try:
                parent = importlib.import_module(self.prefix + ".".join(parts[:cut]))
            except ImportError:
                continue
            for k, v in vars(parent).items():
                if getattr(v, "__module__", None) == fullname:
                    names.setdefault(k, v)
        if not names:
            return None
        spec = importlib.util.spec_from_loader(fullname, self)
        spec.loader_state = names
        return spec

    def create_module(self, spec):
        if spec.loader_state is not None:  # a virtual submodule (``_virtual_spec``)
            import types

            module = types.ModuleType(spec.name)
            module.__dict__.update(spec.loader_state)
            return module
        try:
            module = importlib.import_module(self.prefix + spec.name[len(self.name):])
        except ModuleNotFoundError as e:
            raise self.renamed(e) from None
        self.rename_loaded()
        # importlib puts ``spec`` (this alias's: named ``paddle``, no package) on the module
        # after this returns; exec_module gives the module its own spec back, or a relative
        # import inside gradrepl's functions sees ``__package__ != __spec__.parent`` and warns
        # (an ImportWarning a script's ``warnings.simplefilter('always')`` shows)
        self.__dict__.setdefault("own_specs", {})[id(module)] = module.__spec__
        if spec.name == self.name:  # the script's first import of the dialect in this mapping
            hook = getattr(module, "_on_script_import", None)
            if callable(hook):
                hook()  # what the real framework prints while it is imported
        return module

    def rename_loaded(self):
        """Every loaded ``<prefix>.x`` module answers ``__name__`` as ``<name>.x`` while the
        mapping lasts (real torch: ``lr_scheduler.__name__ == 'torch.optim.lr_scheduler'``;
        d2l tests ``scheduler.__module__ == lr_scheduler.__name__``; a missing attribute is
        ``module 'torch.nn' has no attribute ...``). ``restore_names`` undoes it."""
        prefix, renamed = self.prefix, self.__dict__.setdefault("renamed_modules", {})
        for k, m in list(sys.modules.items()):
            if (k == prefix or k.startswith(prefix + ".")) and k not in renamed \
                    and getattr(m, "__name__", None) == k:
                renamed[k] = m
                m.__name__ = self.name + k[len(prefix):]
                sys.modules.setdefault(m.__name__, m)  # (code reading sys.modules[__name__])
                if not hasattr(m, "__path__") and _holds_submodule_names(m):
                    m.__path__ = []  # stands for a package (torch.nn.modules): virtual children

    def restore_names(self):
        for k, m in self.__dict__.pop("renamed_modules", {}).items():
            m.__name__ = k

    def renamed(self, error):
        """A missing gradrepl module reported under the dialect's name (``paddle.xyz``)."""
        name = error.name or ""
        if name == self.prefix or name.startswith(self.prefix + "."):
            shown = self.name + name[len(self.prefix):]
            return ModuleNotFoundError(f"No module named {shown!r}", name=shown)
        return error

    def exec_module(self, module):
        own = self.__dict__.get("own_specs", {}).pop(id(module), None)
        if own is not None:
            module.__spec__ = own
        return None


def _holds_submodule_names(module) -> bool:
    """Whether ``module`` holds objects that claim to live in a submodule of it
    (``nn.Linear.__module__ == 'torch.nn.modules.linear'`` in ``torch.nn.modules``)."""
    below = module.__name__ + "."
    return any(isinstance(getattr(v, "__module__", None), str) and v.__module__.startswith(below)
               for v in list(vars(module).values()))


def _ours(k, names):
    for n in names:
        if k == n or k.startswith(n + "."):
            return True
    return False


@contextlib.contextmanager
def _mapped(names):
    saved = {k: v for k, v in sys.modules.items() if _ours(k, names)}
    for k in saved:
        del sys.modules[k]
    finders = [_Alias(n, DIALECTS[n]) for n in names]
    for f in finders:
        sys.meta_path.insert(0, f)
    try:
        yield
    finally:
        for f in finders:
            sys.meta_path.remove(f)
            f.restore_names()
        for k in [k for k in sys.modules if _ours(k, names)]:
            del sys.modules[k]
        sys.modules.update(saved)


def dialect_modules():
    """``import paddle`` and ``import torch`` served by gradrepl while the context lasts."""
    return _mapped(("paddle", "torch", "functorch"))


def torch_modules():
    """``import torch`` served by ``gradrepl.torch`` while the context lasts."""
    return _mapped(("torch", "functorch"))


paddle_modules = dialect_modules
