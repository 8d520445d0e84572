"""``paddle.distribution.Categorical``: a choice among the last axis's categories.

As in Paddle, ``logits`` are read two ways: ``probs``/``log_prob`` normalise them by their sum
(unnormalised probabilities), while ``sample``/``entropy``/``kl_divergence`` take their softmax.
"""
from __future__ import annotations

import numpy as np

from . import _samplers
from .distribution import Distribution, _paddle, dtype_name


class Categorical(Distribution):
    """Categories with weights ``logits`` (last axis)."""

    def __init__(self, logits, name=None):
        paddle = _paddle()
        self.name = name if name is not None else "Categorical"
        self.dtype = "float32"
        if self._validate_args(logits):
            self.logits = logits
            self.dtype = dtype_name(logits.dtype)
        else:
            if isinstance(logits, np.ndarray) and str(logits.dtype) in ("float32", "float64"):
                self.dtype = str(logits.dtype)
            self.logits = self._to_tensor(logits)[0]
            if self.dtype != dtype_name(self.logits.dtype):
                self.logits = paddle.cast(self.logits, self.dtype)
        self._prob = self.logits / paddle.sum(self.logits, axis=-1, keepdim=True)

    def sample(self, shape=()):
        """int64 category indices of shape ``shape + logits.shape[:-1]``."""
        paddle = _paddle()
        shape = list(shape)
        count = int(np.prod(np.array(shape)))
        dims = list(self.logits.shape)
        if len(dims) > 1:
            out_shape = shape + dims[:-1]
            logits = paddle.reshape(self.logits, [int(np.prod(dims[:-1])), dims[-1]])
        else:
            out_shape = shape
            logits = self.logits
        index = _samplers.multinomial(self._logits_to_probs(logits), count, True)
        perm = list(range(index.dim()))
        perm.insert(0, perm.pop(-1))
        return paddle.reshape(index.transpose(perm), out_shape)

    def _shifted(self, logits):
        paddle = _paddle()
        logits = logits - paddle.max(logits, axis=-1, keepdim=True)
        e = paddle.exp(logits)
        z = paddle.sum(e, axis=-1, keepdim=True)
        return logits, e / z, z

    def kl_divergence(self, other):
        paddle = _paddle()
        logits, prob, z = self._shifted(self.logits)
        other_logits, _, other_z = other._shifted(other.logits)
        return paddle.sum(prob * (logits - paddle.log(z) - other_logits + paddle.log(other_z)),
                          axis=-1, keepdim=True)

    def entropy(self):
        paddle = _paddle()
        logits, prob, z = self._shifted(self.logits)
        return paddle.scale(paddle.sum(prob * (logits - paddle.log(z)), axis=-1), scale=-1.0)

    def probs(self, value):
        paddle = _paddle()
        if len(self._prob.shape) == 1:
            return paddle.gather(self._prob, value.reshape([-1])).reshape(value.shape)
        if len(value.shape) == 1:
            index = paddle.reshape(value, (len(self._prob.shape) - 1) * [1] + [-1])
            return paddle.take_along_axis(self._prob, index, axis=-1)
        return paddle.take_along_axis(self._prob, value, axis=-1)

    def log_prob(self, value):
        return _paddle().log(self.probs(value))
