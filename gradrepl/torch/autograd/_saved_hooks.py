"""``torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook)`` (and ``save_on_cpu``,
``disable_saved_tensors_hooks``), as PyTorch's "Autograd mechanics" notes show them.

While the context is active, each op that records a backward node passes the tensors torch's
node would save (``graph.saved_input_indices`` / ``graph.saves_output``: MulBackward0 keeps both
factors, ExpBackward0 its result) through ``pack_hook`` when the node is made; when the backward
runs that node, ``unpack_hook`` is called on each packed value, in the same order. The node's
gradient is computed from the engine's own copies (the unpacked value is not substituted: a hook
that changes the values, which torch would honour, changes nothing here).
"""
from __future__ import annotations

import copy

from ...engine import registry as _registry

_STACK: list = []        # the active (pack, unpack) pairs, innermost last
_DISABLED: list = []     # messages of active disable_saved_tensors_hooks blocks


def _packing_hook(prev):
    def hook(op, inputs, attrs):
        pack, _ = _STACK[-1]
        before = _registry.set_apply_hook(prev)
        try:
            out = _registry.apply(op, inputs, attrs)
        finally:
            _registry.set_apply_hook(before)
        first = out[0] if isinstance(out, tuple) else out
        node = getattr(first, "grad_node", None)
        if node is None or first.stop_gradient or getattr(node.op, "torch_packed", None):
            return out
        from . import graph

        index = [i for i in graph.saved_input_indices(node) if not _python_number(inputs[i])]
        if getattr(node.op, "torch_name", None) in _OTHER_FIRST:
            index.reverse()
        saved = [inputs[i] for i in index]
        if graph.saves_output(node):
            saved.append(first)
        if not saved:
            return out
        _unpack_on_backward(node, [pack(t) for t in saved], _STACK[-1][1], index)
        return out
    return hook


#: nodes whose generated code saves ``other`` before ``self`` (derivatives.yaml's formula for
#: self reads other first: mul, div, mm, bmm, pow): their packs run in that order (measured: the
#: saved-tensors-hooks tutorial's ``a * b`` packs b, then a)
_OTHER_FIRST = frozenset({"MulBackward0", "DivBackward0", "MmBackward0", "BmmBackward0",
                          "PowBackward1"})


def _python_number(t):
    """A Python number the dialect made a constant of (``x * 3``): torch's wrapped number,
    which its hooks never see (the dialect's number constants are read-only 0-d arrays)."""
    a = t.data
    return a.ndim == 0 and not a.flags.writeable and t.stop_gradient


def _unpack_on_backward(node, packed, unpack, index=()):
    """Give this node its own copy of the op, holding the packed values, whose VJP first
    unpacks them; the unpacked values of saved inputs stand for those inputs in the VJP (as
    torch computes from what unpack_hook returns: the tutorial's ``torch.zeros(n)``)."""
    op = node.op
    mine = copy.copy(op)
    vjp = op.vjp

    def run(n, *grads):
        values = [unpack(p) for p in packed]
        inputs = list(n.inputs)
        for i, v in zip(index, values):
            if hasattr(v, "data") and getattr(v.data, "shape", None) == inputs[i].data.shape:
                inputs[i] = v
        before = n.inputs
        try:
            n.inputs = tuple(inputs) if isinstance(before, tuple) else inputs
        except AttributeError:     # a node that keeps its inputs fixed: the engine's copies
            return vjp(n, *grads)
        try:
            return vjp(n, *grads)
        finally:
            n.inputs = before
    object.__setattr__(mine, "vjp", run)
    object.__setattr__(mine, "torch_packed", packed)
    node.op = mine


class saved_tensors_hooks:
    """``with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook): ...``"""

    __module__ = "torch.autograd.graph"

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _DISABLED:
            raise RuntimeError(_DISABLED[-1])
        _STACK.append((self.pack_hook, self.unpack_hook))
        prev = _registry.set_apply_hook(None)
        self._prev = prev
        _registry.set_apply_hook(_packing_hook(prev))
        return self

    def __exit__(self, *exc):
        _STACK.pop()
        _registry.set_apply_hook(self._prev)
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept on the CPU (where everything already is here)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: t, lambda t: t)


class disable_saved_tensors_hooks:
    """Within it, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``."""

    __module__ = "torch.autograd.graph"

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _DISABLED.append(self.error_message)
        return self

    def __exit__(self, *exc):
        _DISABLED.pop()
        return False
