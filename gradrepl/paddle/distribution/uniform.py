"""``paddle.distribution.Uniform``: constant density on [low, high)."""
from __future__ import annotations

import numpy as np

from .distribution import Distribution, _paddle, dtype_name


class Uniform(Distribution):
    """U(low, high); low and high are numbers, lists, arrays or Tensors."""

    def __init__(self, low, high, name=None):
        paddle = _paddle()
        self.name = name if name is not None else "Uniform"
        self.dtype = "float32"
        self.all_arg_is_float = False
        low = float(low) if isinstance(low, int) else low
        high = float(high) if isinstance(high, int) else high
        if self._validate_args(low, high):
            self.low, self.high = low, high
            self.dtype = dtype_name(low.dtype)
        else:
            self.all_arg_is_float = isinstance(low, float) and isinstance(high, float)
            for arg in (low, high):
                if isinstance(arg, np.ndarray) and str(arg.dtype) in ("float32", "float64"):
                    self.dtype = str(arg.dtype)
                    break
            self.low, self.high = self._to_tensor(low, high)
            if self.dtype != dtype_name(self.low.dtype):
                self.low = paddle.cast(self.low, self.dtype)
                self.high = paddle.cast(self.high, self.dtype)
        super().__init__(self.low.shape)

    def sample(self, shape=(), seed=0):
        """Draws of ``shape + batch_shape`` from paddle's generator."""
        paddle = _paddle()
        shape = list(shape)
        out_shape = shape + list((self.low + self.high).shape)
        unit = paddle.uniform(out_shape, dtype=self.dtype, min=0.0, max=1.0, seed=seed)
        out = paddle.add(unit * (paddle.zeros(out_shape, dtype=self.dtype)
                                 + (self.high - self.low)), self.low)
        return paddle.reshape(out, shape) if self.all_arg_is_float else out

    def _inside(self, value):
        paddle = _paddle()
        value = self._check_values_dtype_in_probs(self.low, value)
        lb = paddle.cast(self.low < value, value.dtype)
        ub = paddle.cast(value < self.high, value.dtype)
        return lb * ub

    def log_prob(self, value):
        paddle = _paddle()
        return paddle.log(self._inside(value)) - paddle.log(self.high - self.low)

    def probs(self, value):
        return self._inside(value) / (self.high - self.low)

    def entropy(self):
        return _paddle().log(self.high - self.low)
