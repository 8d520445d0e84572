"""torch's deprecated ``Tensor.add(Number alpha, Tensor other)`` overloads (``add``, ``add_``,
``sub``, ``sub_``): older tutorials' ``p.data.add_(-learning_rate, p.grad.data)``. torch 2.13
still runs them as ``add_(other, alpha=alpha)`` after a UserWarning from python_arg_parser.cpp."""
from __future__ import annotations

import numbers

from ._base import EngineTensor

_MESSAGE = ("This overload of {n} is deprecated:\n\t{n}(Number alpha, Tensor other)\n"
            "Consider using one of the following signatures instead:\n"
            "\t{n}(Tensor other, *, Number alpha = 1) (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1841.)")


_WARNED: list = []


def number_first(name, method):
    """``method`` also taking ``(alpha, other)`` positionally, as torch's deprecated overload."""
    def call(self, other, *args, **kwargs):
        if (len(args) == 1 and isinstance(other, numbers.Number)
                and not isinstance(other, bool) and isinstance(args[0], EngineTensor)
                and "alpha" not in kwargs):
            if not _WARNED:   # TORCH_WARN_ONCE: one warning a process, whichever overload
                from ._device_mode import warn_cpp

                _WARNED.append(name)
                warn_cpp(_MESSAGE.format(n=name))
            return method(self, args[0], alpha=other, **kwargs)
        return method(self, other, *args, **kwargs)
    call.__name__ = name
    return call
