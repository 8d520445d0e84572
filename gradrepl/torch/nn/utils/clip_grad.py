"""``torch.nn.utils.clip_grad``: the module torch's gradient clipping lives in (``from
torch.nn.utils.clip_grad import clip_grad_norm_``); the functions are the package's."""
from . import clip_grad_norm, clip_grad_norm_, clip_grad_value_  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"]
