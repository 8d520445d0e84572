"""``paddle.distribution.transform``: invertible maps of random variables and their
log-det-Jacobians (Paddle's Transform family)."""
from __future__ import annotations

import enum
import math
import typing

from ..core import PaddleClass, PaddleObject
from . import constraint, variable
from .distribution import Distribution, _paddle, is_tensor

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform"]


def _F():
    return _paddle().nn.functional


class Type(enum.Enum):
    """The kind of mapping a transform is."""

    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, _type):
        return _type in (cls.BIJECTION, cls.INJECTION)


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Transform(PaddleObject, metaclass=PaddleClass):
    """y = f(x): forward, inverse, their log-det-Jacobians and shapes."""

    _type = Type.INJECTION

    def __init__(self):
        super().__init__()

    @classmethod
    def _is_injective(cls):
        return Type.is_injective(cls._type)

    def __call__(self, input):  # noqa: A002
        from .transformed_distribution import TransformedDistribution

        if isinstance(input, Distribution):
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def forward(self, x):
        if not is_tensor(x):
            raise TypeError(f"Expected 'x' is a Tensor or Real, but got {type(x)}.")
        if x.dim() < self._domain.event_rank:
            raise ValueError(f"The dimensions of x({x.dim()}) should be grater than or equal to "
                             f"{self._domain.event_rank}")
        return self._forward(x)

    def inverse(self, y):
        if not is_tensor(y):
            raise TypeError(f"Expected 'y' is a Tensor or Real, but got {type(y)}.")
        if y.dim() < self._codomain.event_rank:
            raise ValueError(f"The dimensions of y({y.dim()}) should be grater than or equal to "
                             f"{self._codomain.event_rank}")
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        if not is_tensor(x):
            raise TypeError(f"Expected 'y' is a Tensor or Real, but got {type(x)}.")
        if x.dim() < self._domain.event_rank:
            raise ValueError(f"The dimensions of x({x.dim()}) should be grater than or equal to "
                             f"{self._domain.event_rank}")
        if not self._is_injective():
            raise NotImplementedError("forward_log_det_jacobian can't be implemented for "
                                      "non-injectivetransforms.")
        return self._call_forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        if not is_tensor(y):
            raise TypeError(f"Expected 'y' is a Tensor, but got {type(y)}.")
        if y.dim() < self._codomain.event_rank:
            raise ValueError(f"The dimensions of y({y.dim()}) should be grater than or equal to "
                             f"{self._codomain.event_rank}")
        return self._call_inverse_log_det_jacobian(y)

    def forward_shape(self, shape):
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._inverse_shape(shape)

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real

    def _forward(self, x):
        raise NotImplementedError("Forward not implemented")

    def _inverse(self, y):
        raise NotImplementedError("Inverse not implemented")

    def _call_forward_log_det_jacobian(self, x):
        if hasattr(self, "_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        if hasattr(self, "_inverse_log_det_jacobian"):
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError("Neither _forward_log_det_jacobian nor _inverse_log_det_"
                                  "jacobianis implemented. One of them is required.")

    def _call_inverse_log_det_jacobian(self, y):
        if hasattr(self, "_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        if hasattr(self, "_forward_log_det_jacobian"):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError("Neither _forward_log_det_jacobian nor _inverse_log_det_"
                                  "jacobian is implemented. One of them is required")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    """y = |x|; the inverse gives both roots (-y, y)."""

    _type = Type.SURJECTION

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = _paddle().zeros([], dtype=y.dtype)
        return zero, zero

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive


class AffineTransform(Transform):
    """y = loc + scale * x."""

    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        if not is_tensor(loc):
            raise TypeError(f"Expected 'loc' is a Tensor, but got {type(loc)}")
        if not is_tensor(scale):
            raise TypeError(f"Expected scale is a Tensor, but got {type(scale)}")
        self._loc = loc
        self._scale = scale
        super().__init__()

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return _paddle().abs(self._scale).log()

    def _forward_shape(self, shape):
        paddle = _paddle()
        return tuple(paddle.broadcast_shape(paddle.broadcast_shape(shape, self._loc.shape),
                                            self._scale.shape))

    _inverse_shape = _forward_shape


class ChainTransform(Transform):
    """The composition of ``transforms`` (applied first to last)."""

    def __init__(self, transforms):
        if not isinstance(transforms, typing.Sequence):
            raise TypeError("Expected type of 'transforms' is Sequence, but got "
                            f"{type(transforms)}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All elements of transforms should be Transform type.")
        self.transforms = transforms
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value = 0.0
        event_rank = self._domain.event_rank
        for t in self.transforms:
            value += _sum_rightmost(t.forward_log_det_jacobian(x),
                                    event_rank - t._domain.event_rank)
            x = t.forward(x)
            event_rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in self.transforms:
            shape = t.inverse_shape(shape)
        return shape

    def _sum_rightmost(self, value, n):
        return _sum_rightmost(value, n)

    @property
    def _domain(self):
        domain = self.transforms[0]._domain
        event_rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            event_rank -= t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._domain.event_rank)
        return variable.Independent(domain, event_rank - domain.event_rank)

    @property
    def _codomain(self):
        codomain = self.transforms[-1]._codomain
        event_rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            event_rank += t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._codomain.event_rank)
        return variable.Independent(codomain, event_rank - codomain.event_rank)


class ExpTransform(Transform):
    """y = exp(x)."""

    _type = Type.BIJECTION

    def __init__(self):
        super().__init__()

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class IndependentTransform(Transform):
    """``base`` with ``reinterpreted_batch_rank`` batch axes summed in its log-det-Jacobian."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"Expected 'base' is Transform type, but get {type(base)}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError("Expected 'reinterpreted_batch_rank' is grater than zero, but got "
                             f"{reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self):
        return self._base._is_injective()

    def _forward(self, x):
        if x.dim() < self._domain.event_rank:
            raise ValueError("Input dimensions is less than event dimensions.")
        return self._base.forward(x)

    def _inverse(self, y):
        if y.dim() < self._codomain.event_rank:
            raise ValueError("Input dimensions is less than event dimensions.")
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return self._base.forward_log_det_jacobian(x).sum(
            list(range(-self._reinterpreted_batch_rank, 0)))

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)

    @property
    def _domain(self):
        return variable.Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return variable.Independent(self._base._codomain, self._reinterpreted_batch_rank)


class PowerTransform(Transform):
    """y = x ** power."""

    _type = Type.BIJECTION

    def __init__(self, power):
        if not is_tensor(power):
            raise TypeError(f"Expected 'power' is a tensor, but got {type(power)}")
        self._power = power
        super().__init__()

    @property
    def power(self):
        return self._power

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return x.pow(self._power)

    def _inverse(self, y):
        return y.pow(1 / self._power)

    def _forward_log_det_jacobian(self, x):
        return (self._power * x.pow(self._power - 1)).abs().log()

    def _forward_shape(self, shape):
        return tuple(_paddle().broadcast_shape(shape, self._power.shape))

    _inverse_shape = _forward_shape


class ReshapeTransform(Transform):
    """Reshapes the event part from ``in_event_shape`` to ``out_event_shape``."""

    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        if (not isinstance(in_event_shape, typing.Sequence)
                or not isinstance(out_event_shape, typing.Sequence)):
            raise TypeError("Expected type of 'in_event_shape' and 'out_event_shape' is "
                            f"Sequence[int], but got 'in_event_shape': {in_event_shape}, "
                            f"'out_event_shape': {out_event_shape}")
        in_size = math.prod(in_event_shape)
        out_size = math.prod(out_event_shape)
        if in_size != out_size:
            raise ValueError("The numel of 'in_event_shape' should be 'out_event_shape', but "
                             f"got {in_size}!={out_size}")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)
        super().__init__()

    @property
    def in_event_shape(self):
        return self._in_event_shape

    @property
    def out_event_shape(self):
        return self._out_event_shape

    @property
    def _domain(self):
        return variable.Independent(variable.real, len(self._in_event_shape))

    @property
    def _codomain(self):
        return variable.Independent(variable.real, len(self._out_event_shape))

    def _forward(self, x):
        return x.reshape(tuple(x.shape)[:x.dim() - len(self._in_event_shape)]
                         + self._out_event_shape)

    def _inverse(self, y):
        return y.reshape(tuple(y.shape)[:y.dim() - len(self._out_event_shape)]
                         + self._in_event_shape)

    def _forward_shape(self, shape):
        n = len(self._in_event_shape)
        if len(shape) < n:
            raise ValueError(f"Expected length of 'shape' is not less than {n}, but got "
                             f"{len(shape)}")
        if tuple(shape[-n:]) != tuple(self._in_event_shape):
            raise ValueError(f"Event shape mismatch, expected: {self._in_event_shape}, but got "
                             f"{shape[-n:]}")
        return tuple(shape[:-n]) + self._out_event_shape

    def _inverse_shape(self, shape):
        n = len(self._out_event_shape)
        if len(shape) < n:
            raise ValueError(f"Expected 'shape' length is not less than {n}, but got "
                             f"{len(shape)}")
        if tuple(shape[-n:]) != tuple(self._out_event_shape):
            raise ValueError(f"Event shape mismatch, expected: {self._out_event_shape}, but got"
                             f" {shape[-n:]}")
        return tuple(shape[:-n]) + self._in_event_shape

    def _forward_log_det_jacobian(self, x):
        shape = x.shape[:x.dim() - len(self._in_event_shape)]
        return _paddle().zeros(shape, dtype=x.dtype)


class SigmoidTransform(Transform):
    """y = sigmoid(x)."""

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(0.0, 1.0))

    def _forward(self, x):
        return _F().sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        F = _F()
        return -F.softplus(-x) - F.softplus(x)


class SoftmaxTransform(Transform):
    """y = softmax(x) on the last axis (not injective: no log-det-Jacobian)."""

    _type = Type.OTHER

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)

    def _forward(self, x):
        x = (x - x.max(-1, keepdim=True)[0]).exp()
        return x / x.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"Expected length of shape is grater than 1, but got {len(shape)}")
        return shape

    _inverse_shape = _forward_shape


class StackTransform(Transform):
    """One transform per slice along ``axis``."""

    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, typing.Sequence):
            raise TypeError("Expected 'transforms' is Sequence[Transform], but got "
                            f"{type(transforms)}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("Expected all element in transforms is Transform Type.")
        if not isinstance(axis, int):
            raise TypeError(f"Expected 'axis' is int, but got{type(axis)}.")
        self._transforms = transforms
        self._axis = axis

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self):
        return self._transforms

    @property
    def axis(self):
        return self._axis

    def _map(self, v, fn):
        paddle = _paddle()
        self._check_size(v)
        return paddle.stack([fn(t, s) for s, t in zip(paddle.unstack(v, self._axis),
                                                       self._transforms)], self._axis)

    def _forward(self, x):
        return self._map(x, lambda t, s: t.forward(s))

    def _inverse(self, y):
        return self._map(y, lambda t, s: t.inverse(s))

    def _forward_log_det_jacobian(self, x):
        return self._map(x, lambda t, s: t.forward_log_det_jacobian(s))

    def _check_size(self, v):
        if not -v.dim() <= self._axis < v.dim():
            raise ValueError(f"Input dimensions {v.dim()} should be grater than stack transform "
                             f"axis {self._axis}.")
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f"Input size along {self._axis} should be equal to the length of "
                             "transforms.")

    @property
    def _domain(self):
        return variable.Stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self):
        return variable.Stack([t._codomain for t in self._transforms], self._axis)


class StickBreakingTransform(Transform):
    """Unconstrained vectors of length K to points of the K+1 simplex."""

    _type = Type.BIJECTION

    def _forward(self, x):
        paddle, F = _paddle(), _F()
        offset = x.shape[-1] + 1 - paddle.ones([x.shape[-1]]).cumsum(-1)
        z = F.sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        lead = [0] * 2 * (len(x.shape) - 1)
        return F.pad(z, lead + [0, 1], value=1) * F.pad(z_cumprod, lead + [1, 0], value=1)

    def _inverse(self, y):
        paddle = _paddle()
        y_crop = y[..., :-1]
        offset = y.shape[-1] - paddle.ones([y_crop.shape[-1]]).cumsum(-1)
        sf = 1 - y_crop.cumsum(-1)
        return y_crop.log() - sf.log() + offset.log()

    def _forward_log_det_jacobian(self, x):
        paddle, F = _paddle(), _F()
        y = self.forward(x)
        offset = x.shape[-1] + 1 - paddle.ones([x.shape[-1]]).cumsum(-1)
        x = x - offset.log()
        return (-x + F.log_sigmoid(x) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return (*shape[:-1], shape[-1] + 1)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return (*shape[:-1], shape[-1] - 1)

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)


class TanhTransform(Transform):
    """y = tanh(x)."""

    _type = Type.BIJECTION

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(-1.0, 1.0))

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        return 2.0 * (math.log(2.0) - x - _F().softplus(-2.0 * x))
