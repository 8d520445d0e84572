"""The dialect's modules call the engine's ``apply`` through a module global, so a feature that
must see every op while it is on (forward AD's tangents, the profiler's events) puts a layer
around it here, and takes it off again; with no layer on, the modules call the engine directly
(no cost when nothing is watching)."""
from __future__ import annotations

import sys

from ..engine import registry as _registry

ENGINE_APPLY = _registry.apply

# the modules whose ``apply`` is layered
MODULES = ("gradrepl.torch._ops", "gradrepl.torch._indexing", "gradrepl.torch.nn.functional",
           "gradrepl.torch.nn._spatial", "gradrepl.torch.nn._more_common")
# innermost first
ORDER = ("forward_ad", "profiler")
_LAYERS: dict = {}


def set_layer(name, factory):
    """Turn layer ``name`` on (``factory(inner_apply) -> apply``) or off (None)."""
    if factory is None:
        _LAYERS.pop(name, None)
    else:
        _LAYERS[name] = factory
    fn = ENGINE_APPLY
    for layer in ORDER:
        if layer in _LAYERS:
            fn = _LAYERS[layer](fn)
    for mod_name in MODULES:
        mod = sys.modules.get(mod_name)
        if mod is not None and "apply" in mod.__dict__:
            mod.apply = fn
