"""``import paddle`` and ``import torch`` served by gradrepl in a kernel, until unloaded.

:class:`ServedImports` enters the same import hook ``gradrepl run`` uses
(``importhook.dialect_modules``): ``paddle``, every ``paddle.x.y`` submodule
(``import paddle.nn.functional as F``, ``from paddle.vision.models import vgg11``), ``torch`` and
``functorch`` resolve to gradrepl's modules. Leaving it restores ``sys.modules`` as it was.

If the real Paddle or torch was imported in the kernel before, the hook takes them out of
``sys.modules`` for as long as it is in (and puts them back after), but names the user already
bound (``paddle``) still hold the real modules: :meth:`ServedImports.notice` says so.
"""
from __future__ import annotations

import contextlib
import sys
import types

from .. import importhook

SERVED = ("paddle", "torch")


def _real(name) -> types.ModuleType | None:
    """The module ``name`` in ``sys.modules`` if it is a real framework, not gradrepl's."""
    mod = sys.modules.get(name)
    if mod is None or getattr(mod, "__name__", "").startswith("gradrepl"):
        return None
    return mod


class ServedImports:
    """The import hook, entered for a kernel and left again."""

    def __init__(self):
        self._stack: contextlib.ExitStack | None = None
        self.real_before: dict[str, types.ModuleType] = {}

    @property
    def active(self) -> bool:
        return self._stack is not None

    def enter(self) -> None:
        if self._stack is not None:
            return
        self.real_before = {n: m for n in SERVED if (m := _real(n)) is not None}
        stack = contextlib.ExitStack()
        stack.enter_context(importhook.dialect_modules())
        self._stack = stack

    def leave(self) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            stack.close()

    def notice(self, user_ns) -> str:
        """A warning about real frameworks imported before the hook went in ('' if none)."""
        lines = []
        for name, mod in self.real_before.items():
            holders = sorted(k for k, v in list(user_ns.items())
                             if not k.startswith("_") and isinstance(v, types.ModuleType)
                             and (v is mod or v.__name__.startswith(name + ".")
                                  and not v.__name__.startswith("gradrepl")))
            where = f" ({', '.join(holders)} still hold it)" if holders else ""
            lines.append(f"gradrepl: the real {name} ({getattr(mod, '__file__', '?')}) was "
                         f"imported in this kernel before %load_ext gradrepl{where}. From now "
                         f"on `import {name}` gives gradrepl's {name}: run the imports again "
                         f"(or restart the kernel and load gradrepl first).")
        return "\n".join(lines)
