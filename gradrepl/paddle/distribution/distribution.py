"""The base of ``paddle.distribution``: shapes, argument checks and conversions."""
from __future__ import annotations

import warnings

import numpy as np

from ..core import PaddleClass, PaddleObject


def _paddle():
    import gradrepl.paddle as paddle

    return paddle


def is_tensor(x):
    from ..core import Tensor

    return isinstance(x, Tensor)


class Distribution(PaddleObject, metaclass=PaddleClass):
    """Batch and event shapes; subclasses give mean, variance, sample, entropy, log_prob ..."""

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def variance(self):
        raise NotImplementedError

    def sample(self, shape=()):
        raise NotImplementedError

    def rsample(self, shape=()):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def kl_divergence(self, other):
        raise NotImplementedError

    def prob(self, value):
        return self.log_prob(value).exp()

    def log_prob(self, value):
        raise NotImplementedError

    def probs(self, value):
        raise NotImplementedError

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _validate_args(self, *args):
        """True when the arguments are Tensors; ValueError when Tensors and numbers mix."""
        tensors = [is_tensor(a) for a in args]
        if any(tensors) and not all(tensors):
            raise ValueError("if one argument is Tensor, all arguments should be Tensor")
        return all(tensors)

    def _to_tensor(self, *args):
        """Numbers, lists and arrays as float32 Tensors of one broadcast shape (Paddle converts
        float64 arrays too; Normal/Uniform/Categorical cast back to their dtype)."""
        paddle = _paddle()
        arrays, total = [], 0.0
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray)) and not is_tensor(arg):
                raise TypeError("Type of input args must be float, list, tuple, numpy.ndarray "
                                f"or Tensor, but received type {type(arg)}")
            arr = np.array(arg)
            if str(arr.dtype) != "float32":  # float64 too: Paddle assigns float32 (then casts)
                if str(arr.dtype) != "float64":
                    warnings.warn("data type of argument only support float32 and float64, "
                                  "your argument will be convert to float32.")
                arr = arr.astype("float32")
            total = total + arr
            arrays.append(arr)
        dtype = total.dtype
        return tuple(paddle.to_tensor(np.broadcast_arrays(a, total)[0].astype(dtype))
                     for a in arrays)

    def _check_values_dtype_in_probs(self, param, value):
        if _paddle().is_complex(param):
            return value.astype(param.dtype)
        if value.dtype != param.dtype and str(value.dtype) in ("paddle.float32",
                                                                "paddle.float64"):
            warnings.warn("dtype of input 'value' needs to be the same as parameters of "
                          "distribution class. dtype of 'value' will be converted.")
            return _paddle().cast(value, param.dtype)
        return value

    def _probs_to_logits(self, probs, is_binary=False):
        paddle = _paddle()
        if is_binary:
            return paddle.log(probs) - paddle.log1p(-probs)
        return paddle.log(probs)

    def _logits_to_probs(self, logits, is_binary=False):
        F = _paddle().nn.functional
        return F.sigmoid(logits) if is_binary else F.softmax(logits, axis=-1)

    def _broadcast_all(self, *args):
        paddle = _paddle()
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray)) and not is_tensor(arg):
                raise TypeError("Type of input args must be float, list, tuple, numpy.ndarray "
                                f"or Tensor, but received type {type(arg)}")
        if all(is_tensor(a) for a in args):
            return paddle.broadcast_tensors(list(args))
        dtype = next((a.dtype for a in args if is_tensor(a)), paddle.get_default_dtype())
        return paddle.broadcast_tensors([a if is_tensor(a) else paddle.to_tensor(a, dtype=dtype)
                                         for a in args])


def is_real(x):
    import numbers

    return isinstance(x, numbers.Real)


def dtype_name(dtype):
    """'float32' for paddle.float32 / np.float32 / 'float32'."""
    text = str(dtype)
    return text.split(".")[-1]
