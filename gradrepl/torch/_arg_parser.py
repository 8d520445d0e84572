"""torch's Python argument parser checks (``torch/csrc/utils/python_arg_parser.cpp``) for the
scalar arguments of functions gradrepl writes in Python: the TypeError torch raises before the
kernel runs, ``"<fn>(): argument '<name>' (position <k>) must be int, not NoneType"``.

- int (``INT64``/``SymInt``): a Python int that is not a bool, a numpy integer, or a 0-d
  integer Tensor (not bool) that does not require grad;
- float (``DOUBLE``): a Python float or int (bools included), a numpy number, or a 0-d Tensor
  that does not require grad.

The type named is ``tp_name``: ``NoneType``, ``float``, ``Tensor``, ``numpy.float64``.
(Measured on torch 2.13: F.cross_entropy/F.nll_loss's ignore_index and label_smoothing.)"""
from __future__ import annotations

import numpy as np

from ._base import EngineTensor, raw


def typename(v) -> str:
    t = type(v)
    if isinstance(v, EngineTensor):
        return "Tensor"
    mod = t.__module__
    return f"numpy.{t.__name__}" if mod == "numpy" else t.__name__


def _zero_dim(v, kinds):
    a = raw(v)
    return a.ndim == 0 and a.dtype.kind in kinds and not getattr(v, "requires_grad", False)


def is_int(v) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    if isinstance(v, EngineTensor):
        return _zero_dim(v, "iu")
    return False


def is_float(v) -> bool:
    if isinstance(v, (int, float, np.number, np.bool_)):
        return True
    if isinstance(v, EngineTensor):
        return _zero_dim(v, "biuf")
    return False


def check(fn: str, name: str, pos: int, v, kind: str) -> None:
    """Raise torch's TypeError unless ``v`` passes as ``kind`` ("int" or "float")."""
    ok = is_int(v) if kind == "int" else is_float(v)
    if not ok:
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be {kind}, not "
                        f"{typename(v)}")
