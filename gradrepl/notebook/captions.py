"""The one-line caption under a tensor's repr in a notebook: its name, where it came from, and
its gradient (``c: made by MulBackward in `c = a * b`; grad 4.``). Nothing for a tensor that
stops gradient and has no graph: its repr says all."""
from __future__ import annotations


def caption(tensor, ext) -> str:
    from ..viz.model import dialect_for, preview
    from .names import user_namespace

    node = tensor.grad_node
    if node is None and tensor.stop_gradient:
        return ""
    name = next((k for k, v in user_namespace(ext.shell).items() if v is tensor), None)
    parts = []
    if node is not None:
        made = f"made by {dialect_for(tensor).backward_name(node)}"
        stmt = ext.recorder.statement_of(node.uid)
        if isinstance(stmt, str) and stmt:
            made += f" in `{stmt}`"
        parts.append(made)
    else:
        parts.append("leaf")
    grad = tensor._grad
    if grad is not None:
        parts.append(f"grad {preview(grad.data)}")
    return (f"{name}: " if name else "") + "; ".join(parts)
