"""The autograd engine: tensors, the op registry, backward nodes and the backward engine.

It knows nothing of Paddle's printing, the shell or Graphviz. What the rest of gradrepl uses
of it is named here: besides the tensor and the op machinery, ``trace_to`` (who sees a
backward's events, ``tracing.py``), ``quiet_fp`` (numpy's floating-point warnings off for a
whole run) and the provenance ``Recorder``.
"""
from . import tuning
from . import ops  # noqa: F401  (registers every op)
from .backward import GraphFreedError, iter_backward, run_backward
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .ops._util import quiet_fp, reset_quiet_fp
from .provenance import Recorder, tensor_mark
from .registry import OPS, OpDef, apply
from .tensor import Tensor
from .tracing import Tee, set_trace_sink, trace_sink, trace_to

tuning.tune()

__all__ = ["Tensor", "OPS", "OpDef", "apply", "iter_backward", "run_backward", "GraphFreedError",
           "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "trace_to", "trace_sink", "set_trace_sink", "Tee", "quiet_fp", "reset_quiet_fp",
           "Recorder", "tensor_mark"]
