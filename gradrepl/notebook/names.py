"""The user's namespace as the pictures should see it: without IPython's own names.

IPython keeps its output history in the user's namespace (``Out``, ``_``, ``__``, ``___``,
``_2``, ``_i2``, ``In``, ``_oh``, ``_ih`` ...): a tensor echoed by a cell is also ``Out[2]`` and
``_2``, and a picture would name it so. :func:`user_namespace` keeps only the user's own
bindings: names IPython put there itself (``shell.user_ns_hidden``, while they still hold
IPython's value) and every name that starts with ``_`` are left out. A user's own ``Out = x``
is kept.
"""
from __future__ import annotations


def is_ipython_name(shell, key, value) -> bool:
    """Whether ``key`` (bound to ``value``) is IPython's own binding, not the user's."""
    if not isinstance(key, str) or key.startswith("_"):
        return True
    hidden = getattr(shell, "user_ns_hidden", None) or {}
    if key in hidden and hidden[key] is value:
        return True
    hist = getattr(shell, "history_manager", None)   # (In and Out, should hidden miss them)
    return hist is not None and (value is getattr(hist, "output_hist", None)
                                 or value is getattr(hist, "input_hist_parsed", None))


def user_namespace(shell) -> dict:
    """The user's bindings in assignment order, IPython's own names left out."""
    return {k: v for k, v in list(shell.user_ns.items()) if not is_ipython_name(shell, k, v)}
