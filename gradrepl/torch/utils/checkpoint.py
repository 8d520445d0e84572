"""``torch.utils.checkpoint``: activation checkpointing. The values and gradients are those of
running the function: with ``use_reentrant=False`` the function simply runs (its graph is the
usual one); the reentrant variant (torch's default when ``use_reentrant`` is not given, with
torch's warning) runs it without a graph and recomputes it in backward, as torch's
``CheckpointFunction`` (its node prints ``CheckpointFunctionBackward``), restoring the random
state so dropout draws the same mask twice."""
from __future__ import annotations

import warnings

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "noop_context_fn"]


def _torch():
    import gradrepl.torch as torch

    return torch


class CheckpointError(RuntimeError):
    pass


def detach_variable(inputs):
    torch = _torch()
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, torch.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    torch = _torch()
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, torch.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      UserWarning, stacklevel=3)


def noop_context_fn():
    import contextlib

    return contextlib.nullcontext(), contextlib.nullcontext()


def _function_class():
    torch = _torch()

    class CheckpointFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, run_function, preserve_rng_state, *args):
            check_backward_validity(args)
            ctx.run_function = run_function
            ctx.preserve_rng_state = preserve_rng_state
            if preserve_rng_state:
                ctx.fwd_cpu_state = torch.get_rng_state()
            ctx.inputs = list(args)
            with torch.no_grad():
                return run_function(*args)

        @staticmethod
        def backward(ctx, *grads):
            inputs = detach_variable(tuple(ctx.inputs))
            state = torch.get_rng_state()
            if ctx.preserve_rng_state:
                torch.set_rng_state(ctx.fwd_cpu_state)
            try:
                with torch.enable_grad():
                    outputs = ctx.run_function(*inputs)
            finally:
                if ctx.preserve_rng_state:
                    torch.set_rng_state(state)
            if isinstance(outputs, torch.Tensor):
                outputs = (outputs,)
            pairs = [(o, g) for o, g in zip(outputs, grads)
                     if isinstance(o, torch.Tensor) and o.requires_grad]
            if not pairs:
                raise RuntimeError("none of output has requires_grad=True, this checkpoint() "
                                   "is not necessary")
            torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
            got = tuple(inp.grad if isinstance(inp, torch.Tensor) else None for inp in inputs)
            return (None, None) + got

    return CheckpointFunction


_CLASS = []


def __getattr__(name):
    if name == "CheckpointFunction":
        if not _CLASS:
            _CLASS.append(_function_class())
        return _CLASS[0]
    raise AttributeError(f"module 'torch.utils.checkpoint' has no attribute '{name}'")


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                      "use_reentrant will raise an exception. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return __getattr__("CheckpointFunction").apply(function, preserve, *args)
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):  # noqa: A002
    torch = _torch()
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
                      "parameter should be passed explicitly. In version 2.9 we will raise an "
                      "exception if use_reentrant is not passed. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run(start, end, fns):
        def forward(x):
            for j in range(start, end + 1):
                x = fns[j](x)
            return x
        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1, functions)(input)
