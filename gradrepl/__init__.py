"""gradrepl: an educational autograd workbench that speaks Paddle.

``import gradrepl.paddle as paddle`` gives the Paddle API without touching ``sys.modules``.
"""
__version__ = "0.1.0"


def load_ipython_extension(ipython):
    """``%load_ext gradrepl`` in Jupyter/IPython: ``import paddle`` and ``import torch`` served
    by gradrepl in that kernel, with ``%graph``, ``%step`` and ``%why`` (gradrepl.notebook)."""
    from .notebook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython):
    """``%unload_ext gradrepl``: the kernel's own imports again."""
    from .notebook import unload_ipython_extension as unload

    unload(ipython)
