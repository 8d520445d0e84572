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


# ------------------------------------------------- register_backward_hook (the non-full hooks)
_NOT_SINGLE_OUTPUT = (
    "Using non-full backward hooks on a Module that does not return a single Tensor or a tuple "
    "of Tensors is deprecated and will be removed in future versions. This hook will be missing "
    "some of the grad_output. Please use register_full_backward_hook to get the documented "
    "behavior.")
_NOT_SINGLE_INPUT = (
    "Using non-full backward hooks on a Module that does not take as input a single Tensor or a "
    "tuple of Tensors is deprecated and will be removed in future versions. This hook will be "
    "missing some of the grad_input. Please use register_full_backward_hook to get the "
    "documented behavior.")
_NESTED_OUTPUTS = (
    "Using a non-full backward hook when outputs are nested in python data structure is "
    "deprecated and will be removed in future versions. This hook will be missing some "
    "grad_output.")
_SEVERAL_OUTPUT_NODES = (
    "Using a non-full backward hook when outputs are generated by different autograd Nodes is "
    "deprecated and will be removed in future versions. This hook will be missing some "
    "grad_output. Please use register_full_backward_hook to get the documented behavior.")
_SEVERAL_NODES = (
    "Using a non-full backward hook when the forward contains multiple autograd Nodes is "
    "deprecated and will be removed in future versions. This hook will be missing some "
    "grad_input. Please use register_full_backward_hook to get the documented behavior.")


def hook_output_node(module, args, result):
    """torch's ``_call_impl`` for non-full hooks: each hook goes on the backward node of the
    first tensor of the result (``grad_fn.register_hook``), called as ``hook(module,
    grad_input, grad_output)`` with that node's input and output gradients; then torch's
    deprecation warnings (``_maybe_warn_non_full_backward_hook``) from torch's line."""
    from .._tensor import Tensor

    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in list(module._hooks_of("non_full").values()):
        grad_fn.register_hook(lambda gi, go, hook=hook: hook(module, gi, go))
    message = _non_full_warning(args, result, grad_fn)
    if message is not None:
        from .. import libwarn

        libwarn.warn("non_full_backward_hook", message, FutureWarning)


def _non_full_warning(inputs, result, grad_fn):
    from .._tensor import Tensor

    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            return _NOT_SINGLE_OUTPUT
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            return _NOT_SINGLE_INPUT
    else:
        inputs = (inputs,)
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_grad_fn or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        return _NESTED_OUTPUTS
    if len(out_grad_fn) > 1:
        return _SEVERAL_OUTPUT_NODES
    inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
    if inputs_grad_fn != {n[0] for n in grad_fn.next_functions}:
        return _SEVERAL_NODES
    return None
