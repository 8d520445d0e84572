"""``Module.register_full_backward_hook`` / ``register_full_backward_pre_hook``: a module with
such hooks passes its tensor inputs and outputs through identity nodes named as torch names
them (``BackwardHookFunctionBackward``); tensor hooks on those see the gradients with respect
to the module's outputs (``grad_output``: the pre-hooks run) and inputs (``grad_input``: the
hooks run, and what they return replaces the input gradients). When no input requires grad,
the hooks fire with ``grad_input`` all None once ``grad_output`` is known, with torch's
warning. (A module with several outputs: a hook's replacement ``grad_output`` reaches the last
output whose gradient arrives.)"""
from __future__ import annotations

import sys
import warnings

_NO_INPUT_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")


def store(module, kind):
    return module._store(kind)


def _identity():
    from .. import _ops
    from ..autograd import graph

    # torch's node is a Python Function's: <torch.autograd.function.BackwardHook...Backward ...>
    name = "BackwardHookFunctionBackward"
    if name not in graph._CLASSES:
        graph._CLASSES[name] = graph.node_class(name, function=True)
    return _ops.top("assign", name, "none")


def _warn_at_user_frame(message):
    from .._base import GRADREPL_DIR

    f = sys._getframe(1)
    while f is not None and (f.f_code.co_filename.startswith(GRADREPL_DIR)
                             or f.f_code.co_filename.startswith("<frozen")):
        f = f.f_back
    if f is None:
        warnings.warn(message, UserWarning, stacklevel=2)
        return
    warnings.warn_explicit(message, UserWarning, f.f_code.co_filename, f.f_lineno,
                           module=f.f_globals.get("__name__", "__main__"),
                           registry=f.f_globals.setdefault("__warningregistry__", {}))


def call_with_backward_hooks(module, call, args, kwargs):
    from ...engine import grad_mode
    from ...engine.registry import apply
    from .._tensor import Tensor

    if not grad_mode.STATE.enabled:
        return call(*args, **kwargs)
    op = _identity()
    tensor_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    needs = [i for i in tensor_pos if args[i].requires_grad]
    args = list(args)
    grad_in = {}
    grad_out = {}
    state = {"grad_output": None}

    def run_full(grad_input):
        for hook in list((module._hooks_of("full") or {}).values()):
            res = hook(module, grad_input, state["grad_output"])
            if res is not None:
                grad_input = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        return grad_input

    for i in needs:
        args[i] = apply(op, (args[i],))

        def in_hook(grad, i=i):
            grad_in[i] = grad
            if len(grad_in) < len(needs):
                return None
            grad_input = tuple(grad_in.get(j) for j in tensor_pos)
            new = run_full(grad_input)
            if new is grad_input:
                return None
            return new[tensor_pos.index(i)]
        args[i].register_hook(in_hook)

    out = call(*args, **kwargs)
    single = not isinstance(out, tuple)
    outs = [out] if single else list(out)
    out_pos = [k for k, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]

    for k in out_pos:
        outs[k] = apply(op, (outs[k],))

        def out_hook(grad, k=k):
            grad_out[k] = grad
            if len(grad_out) < len(out_pos):
                return None
            grad_output = tuple(grad_out.get(j) for j in out_pos)
            for hook in list((module._hooks_of("pre") or {}).values()):
                res = hook(module, grad_output)
                if res is not None:
                    grad_output = tuple(res) if isinstance(res, (tuple, list)) else (res,)
            state["grad_output"] = grad_output
            if not needs and module._hooks_of("full"):
                _warn_at_user_frame(_NO_INPUT_WARNING)
                run_full(tuple(None for _ in tensor_pos))
            return grad_output[out_pos.index(k)]
        outs[k].register_hook(out_hook)
    return outs[0] if single else type(out)(outs)
