"""Where torch shows a warning its C++ code raises while ``torch.set_default_device(...)`` is
in force: the default device is a TorchFunctionMode (``torch.utils._device.DeviceContext``) whose
``__torch_function__`` calls every torch function and method, so Python attributes the warning
to that call, ``torch/utils/_device.py`` line 122 (measured on torch 2.13: the Neural Transfer
tutorial's ``torch.tensor(mean)`` of a tensor after ``torch.set_default_device(device)``), and
shows it once there (one location) instead of once per user line."""
from __future__ import annotations

from ._base import _DefaultDevice

_SITE = ("utils/_device.py", 122, "        return func(*args, **kwargs)")


def warn_cpp(message: str, category=UserWarning) -> None:
    """A warning of torch's C++ code: from the user's line, or from the device mode's call."""
    if _DefaultDevice.device is not None:
        from .. import _libsite

        _libsite.warn_at("torch", *_SITE, message, category)
        return
    from .nn._backward_hooks import _warn_at_user_frame

    _warn_at_user_frame(message)
