"""``torch.nn.Parameter``: a leaf tensor that a Module registers; prints as
``Parameter containing:`` then the tensor."""
from __future__ import annotations

import numpy as np

from .._base import EngineTensor, raw
from .._tensor import Tensor


class Parameter(Tensor):
    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = Tensor._wrap(np.zeros((0,), np.float32))
        if not isinstance(data, EngineTensor):
            raise TypeError(f"Parameter(): argument 'data' (position 1) must be Tensor, not "
                            f"{type(data).__name__}")
        p = cls._wrap(raw(data), True)
        if requires_grad:
            if raw(data).dtype.kind not in "fc" and raw(data).dtype != np.uint16:  # (bf16)
                raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                                   "gradients")
            p.stop_gradient = False
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __str__(self):
        return self.__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        p = Parameter(Tensor._wrap(np.array(raw(self))), not self.stop_gradient)
        memo[id(self)] = p
        return p

    def __reduce_ex__(self, protocol):
        return (Parameter, (Tensor._wrap(np.array(raw(self))), not self.stop_gradient))


Parameter._result_type = Tensor


class UninitializedParameter(Parameter):
    pass


class Buffer(Tensor):
    """``torch.nn.Buffer``: marks a tensor to be registered as a buffer."""

    __slots__ = ()

    def __new__(cls, data=None, persistent=True):
        t = Tensor._wrap(raw(data) if data is not None else np.zeros((0,), np.float32))
        return t
