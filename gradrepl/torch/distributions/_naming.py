"""Classes of this package report torch's module names (``torch.distributions.normal``)."""
from __future__ import annotations


def torch_names(namespace):
    for obj in list(namespace.values()):
        mod = getattr(obj, "__module__", None)
        if isinstance(obj, type) and mod and mod.startswith("gradrepl.torch.distributions"):
            obj.__module__ = mod[len("gradrepl."):]
