"""``torch.nn.utils.stateless``: ``functional_call`` (a module called with other parameters and
buffers; ``torch.func.functional_call``)."""
from __future__ import annotations

import warnings

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by the dict's."""
    from ...func import functional_call as _fc

    warnings.warn("This API is deprecated as of PyTorch 2.0 and will be removed in a future "
                  "version of PyTorch. Please use torch.func.functional_call instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    return _fc(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
               strict=strict)
