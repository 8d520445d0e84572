"""The autograd engine: tensors, the op registry, backward nodes and the backward engine.

It knows nothing of Paddle's printing, the shell or Graphviz.
"""
from . import tuning
from . import ops  # noqa: F401  (registers every op)
from .backward import GraphFreedError, iter_backward, run_backward
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .registry import OPS, OpDef, apply
from .tensor import Tensor

tuning.tune()

__all__ = ["Tensor", "OPS", "OpDef", "apply", "iter_backward", "run_backward", "GraphFreedError",
           "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]
