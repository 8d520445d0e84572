"""``paddle.distribution.Normal``: the Gaussian with ``loc`` and ``scale``."""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .distribution import Distribution, _paddle, dtype_name


class Normal(Distribution):
    """N(loc, scale**2); loc and scale are numbers, lists, arrays or Tensors (float32 unless
    given as float64 arrays or Tensors)."""

    def __init__(self, loc, scale, name=None):
        paddle = _paddle()
        self.name = name if name is not None else "Normal"
        self.dtype = "float32"
        self.all_arg_is_float = False
        self._complex_gaussian = False
        loc = float(loc) if isinstance(loc, int) else loc
        scale = float(scale) if isinstance(scale, int) else scale
        if isinstance(loc, (tuple, list)):
            loc = np.array(loc)
            if loc.dtype == np.float64:
                loc = loc.astype("float32")
        if isinstance(scale, (tuple, list)):
            scale = np.array(scale, dtype=np.float32)
        if self._validate_args(loc, scale):
            self.loc, self.scale = loc, scale
            self.dtype = dtype_name(loc.dtype)
        else:
            self.all_arg_is_float = isinstance(loc, float) and isinstance(scale, float)
            for arg in (loc, scale):
                if isinstance(arg, np.ndarray) and str(arg.dtype) in ("float32", "float64"):
                    self.dtype = str(arg.dtype)
                    break
            self.loc, self.scale = self._to_tensor(loc, scale)
            if self.dtype != dtype_name(self.loc.dtype):
                self.loc = paddle.cast(self.loc, self.dtype)
                self.scale = paddle.cast(self.scale, self.dtype)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale.pow(2)

    def _batch(self):
        return list((self.loc + self.scale).shape)

    def sample(self, shape=(), seed=0):
        """Draws of ``shape + batch_shape`` (no gradient), from paddle's generator."""
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        paddle = _paddle()
        shape = list(shape)
        out_shape = shape + self._batch()
        noise = paddle.randn(out_shape, dtype=self.dtype)
        out = paddle.add(noise * (paddle.zeros(out_shape, dtype=self.dtype) + self.scale),
                         self.loc)
        return paddle.reshape(out, shape) if self.all_arg_is_float else out

    def rsample(self, shape=()):
        """Reparameterised draws: loc + eps * scale (differentiable in loc and scale)."""
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        paddle = _paddle()
        eps = paddle.normal(mean=0.0, shape=list(self._extend_shape(tuple(shape))))
        return self.loc + eps * self.scale

    def entropy(self):
        paddle = _paddle()
        zero = paddle.full(self._batch(), 0.0, self.dtype)
        return paddle.add(0.5 + zero, 0.5 * math.log(2 * math.pi) + paddle.log(self.scale + zero))

    def log_prob(self, value):
        paddle = _paddle()
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        log_scale = paddle.log(self.scale)
        return paddle.subtract(-1.0 * ((value - self.loc) * (value - self.loc)) / (2.0 * var),
                               log_scale + math.log(math.sqrt(2.0 * math.pi)))

    def probs(self, value):
        paddle = _paddle()
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        return paddle.divide(
            paddle.exp(-1.0 * ((value - self.loc) * (value - self.loc)) / (2.0 * var)),
            math.sqrt(2 * math.pi) * self.scale)

    def kl_divergence(self, other):
        paddle = _paddle()
        ratio = self.scale / other.scale
        ratio = ratio * ratio
        t1 = (self.loc - other.loc) / other.scale
        t1 = t1 * t1
        return paddle.add(0.5 * ratio, 0.5 * (t1 - 1.0 - paddle.log(ratio)))
