"""Run Paddle scripts unchanged: map ``paddle`` to ``gradrepl.paddle`` for one run only.

``paddle_modules()`` is a context manager that puts ``gradrepl.paddle`` (and its submodules)
into ``sys.modules`` under the name ``paddle`` and takes them out again afterwards, so importing
gradrepl itself changes nothing global.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import sys

PREFIX = "gradrepl.paddle"


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``paddle.x.y`` as ``gradrepl.paddle.x.y`` (same module object)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "paddle" or fullname.startswith("paddle."):
            real = PREFIX + fullname[len("paddle"):]
            try:
                if importlib.util.find_spec(real) is None:
                    return None
            except ModuleNotFoundError:
                return None
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module(PREFIX + spec.name[len("paddle"):])

    def exec_module(self, module):
        return None


@contextlib.contextmanager
def paddle_modules():
    saved = {k: v for k, v in sys.modules.items() if k == "paddle" or k.startswith("paddle.")}
    for k in saved:
        del sys.modules[k]
    finder = _Alias()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in [k for k in sys.modules if k == "paddle" or k.startswith("paddle.")]:
            del sys.modules[k]
        sys.modules.update(saved)
