"""gradrepl in Jupyter: ``%load_ext gradrepl``.

In that kernel ``import paddle`` (every submodule) and ``import torch`` are gradrepl's, each
statement labels the ops it makes (``c = a * b``), and the magics ``%graph``, ``%step`` and
``%why`` draw and explain the graphs inline; ``%gradrepl --paddle 3`` picks the emulated
version; ``%unload_ext gradrepl`` puts everything back. Modules: ``extension`` (what loading
installs and unloading removes), ``imports`` (the import hook), ``labels`` (the statements),
``names`` (the user's names without IPython's), ``magics``, ``steps`` (the player's frames),
``why``, ``outputs`` (HTML for pictures, players, tensors), ``captions``.
"""
from __future__ import annotations

_LOADED: dict = {}  # id(shell) -> Extension


def load_ipython_extension(ipython) -> None:
    """``%load_ext gradrepl``: gradrepl serves this kernel (see the module doc)."""
    if id(ipython) in _LOADED:
        return
    from .extension import Extension

    ext = Extension(ipython)
    _LOADED[id(ipython)] = ext
    try:
        message = ext.load()
    except BaseException:
        _LOADED.pop(id(ipython), None)
        ext.unload()
        raise
    print(message)


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext gradrepl``: the kernel as it was before (imports, hooks, magics)."""
    ext = _LOADED.pop(id(ipython), None)
    if ext is not None:
        print(ext.unload())
