"""Results torch records in the graph without a derivative formula.

torch.histogram, histogramdd and bincount with float weights have no formula in torch 2.13's
derivatives.yaml, yet their outputs are not marked non-differentiable: on an input that requires
grad (grad mode on) every output requires grad and carries ``grad_fn=<NotImplemented>``, and
``backward`` through it raises ``RuntimeError: derivative for aten::<name> is not implemented``
(recorded from real torch 2.13; makemore part 3 prints ``torch.histogram(t)`` of activations
that require grad). The numbers are computed by the caller; this module only attaches the node.
"""
from __future__ import annotations

from ..engine.registry import OPS, apply, register
from ._ops import top


def _given(*arrays, result=None, aten=None):
    return result if len(result) > 1 else result[0]


def _vjp(n, *grads):
    raise RuntimeError(f"derivative for aten::{n.attrs['aten']} is not implemented")


def _op(k):
    name = f"torch_no_derivative_{k}"
    base = OPS.get(name)
    if base is None:
        base = register(name, _given, _vjp, n_outputs=k, check=False, saves_inputs=False,
                        legacy_name="NotImplemented")
    return top(name, "NotImplemented", "none")


def attach(aten, inputs, results):
    """``results`` (the computed tensors) as outputs of one ``NotImplemented`` node over the
    tensors in ``inputs`` (None entries skipped) when one of them requires grad; otherwise the
    results unchanged. Returns a tuple like ``results``."""
    ins = tuple(t for t in inputs if t is not None)
    if not any(t.requires_grad for t in ins):
        return tuple(results)
    from ._base import raw

    arrays = tuple(raw(r) for r in results)
    out = apply(_op(len(arrays)), ins, {"result": arrays, "aten": aten})
    return out if isinstance(out, tuple) else (out,)
