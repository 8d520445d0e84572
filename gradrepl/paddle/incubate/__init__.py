"""``paddle.incubate``: of Paddle's incubating APIs ``autograd`` (the functional
``vjp``/``jvp``/``Jacobian``/``Hessian`` of the higher-order autograd guide), ``softmax_mask_fuse``
(and the upper-triangle variant's CPU error), the ``LookAhead``/``ModelAverage`` optimizers and
the deprecated graph helpers (``segment_*``, ``graph_send_recv``) with ``identity_loss`` are
emulated; any other name real Paddle has raises the not-emulated message, any other
Paddle's own."""
from __future__ import annotations

# real Paddle 3.3.1's and 2.6.2's public names of paddle.incubate (dir(), both versions)
_PADDLE_NAMES = frozenset((
    "DistributedFusedLamb", "LayerHelper", "LookAhead", "ModelAverage", "asp", "auto_checkpoint",
    "autograd", "autotune", "cc", "checkpoint", "distributed", "fleet", "framework",
    "fuse_resnet_unit_pass", "get_rng_state", "graph_khop_sampler", "graph_reindex",
    "graph_sample_neighbors", "graph_send_recv", "identity_loss", "inference", "jit", "layers",
    "multiprocessing", "nn", "operators", "optimizer", "passes", "register_rng_state_as_index",
    "segment_max", "segment_mean", "segment_min", "segment_sum", "set_rng_state",
    "softmax_mask_fuse", "softmax_mask_fuse_upper_triangle", "tensor", "xpu"))


# emulated names: the submodule that holds each (a submodule's own name: the module)
_EMULATED = {"autograd": "autograd", "optimizer": "optimizer",
             "LookAhead": "optimizer", "ModelAverage": "optimizer",
             "softmax_mask_fuse": "softmax_mask",
             "softmax_mask_fuse_upper_triangle": "softmax_mask",
             "segment_sum": "graph", "segment_mean": "graph", "segment_min": "graph",
             "segment_max": "graph", "graph_send_recv": "graph", "identity_loss": "graph"}


def __getattr__(name):
    if name in _EMULATED:
        import importlib

        mod = importlib.import_module(f"{__name__}.{_EMULATED[name]}")
        value = mod if name == _EMULATED[name] else getattr(mod, name)
        globals()[name] = value
        return value
    if name in _PADDLE_NAMES:
        raise AttributeError(f"module 'paddle.incubate' has no attribute '{name}' (gradrepl's "
                             f"paddle does not emulate paddle.incubate.{name})")
    raise AttributeError(f"module 'paddle.incubate' has no attribute '{name}'")
