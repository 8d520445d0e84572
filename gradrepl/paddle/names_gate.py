"""Each emulated Paddle module exposes the public names of the emulated Paddle version, no more
(issue 28): one mechanism over the names table (``_paddle_names.NAMES``, real Paddle 3.3.1's
and 2.6.2's ``dir()`` per module), installed by ``gate(__name__)`` at the end of each module.

- A public name only one version has (``nn.SiLU``, ``F.swiglu``, ``optimizer.NAdam`` are 3.x
  only) leaves the module's globals; the module's ``__getattr__`` serves it under a profile of
  that version and raises real Paddle's ``AttributeError`` ("module 'paddle.nn' has no attribute
  'SiLU'") under the other, so ``hasattr``, ``from paddle.nn import SiLU`` and ``getattr`` behave
  as in the real package; a 2.x profile (2.2, 2.6) takes 2.6.2's names.
- A public name the version has and gradrepl lacks raises the not-emulated message
  (``not_emulated.error``); any other public name Paddle's own message.
- ``dir()`` lists the version's names gradrepl answers (plus the dunders), so ``help()`` and tab
  completion show what real Paddle shows; ``__all__`` keeps the names of the version.

Names that neither version has (gradrepl's own helpers) stay importable for gradrepl's modules,
out of ``dir()``. Code inside gradrepl must not reach a one-version name through the public
module (``F.group_norm``): it imports it from where it is defined.
"""
from __future__ import annotations

import sys

from . import profiles


def names(qualname):
    """The public names of ``qualname`` (``"paddle.nn"``) in the emulated Paddle version."""
    from ._paddle_names import NAMES

    return NAMES["3" if profiles.current().api3 else "2.6"].get(qualname, frozenset())


def _submodule(package, name):
    import importlib.util

    try:
        return importlib.util.find_spec(f"{package}.{name}") is not None
    except (ImportError, ValueError):
        return False


def gate(module_name, qualname=None):
    """Install the version gate on the module ``module_name`` (its ``__getattr__``/``__dir__``
    wrap the module's own, which keep serving lazy names)."""
    from ._paddle_names import NAMES
    from .not_emulated import NOTES, error

    mod = sys.modules[module_name]
    qualname = qualname or module_name.replace("gradrepl.", "", 1)
    g = mod.__dict__
    n3, n26 = NAMES["3"].get(qualname, frozenset()), NAMES["2.6"].get(qualname, frozenset())
    versioned = {n: g.pop(n) for n in sorted(n3 ^ n26) if n in g}
    all_names = g.pop("__all__", None)
    own_getattr = g.get("__getattr__")
    own_dir = g.get("__dir__")

    def __getattr__(name):
        if name[:1] != "_":
            if name not in names(qualname):
                raise AttributeError(f"module '{qualname}' has no attribute '{name}'")
            if name in versioned:
                return versioned[name]
        elif name == "__all__" and all_names is not None:
            have = names(qualname)
            return [n for n in all_names if n in have]
        if own_getattr is not None:
            return own_getattr(name)
        if name[:1] == "_":
            raise AttributeError(f"module '{qualname}' has no attribute '{name}'")
        raise error(qualname, name)

    def __dir__():
        listed = set(own_dir()) if own_dir is not None else set(g)
        out = {n for n in listed if n[:2] == "__"}
        for n in names(qualname):
            if n in g or n in versioned:
                out.add(n)
            elif n in listed or own_getattr is not None:
                if _submodule(module_name, n) and f"{qualname}.{n}" not in NOTES:
                    # listed without importing it (unless it only says it is not emulated)
                    out.add(n)
                    continue
                try:
                    __getattr__(n)
                except Exception:  # noqa: BLE001 - not answered here: not listed
                    continue
                out.add(n)
        return sorted(out)

    g["__getattr__"] = __getattr__
    g["__dir__"] = __dir__
    return mod
