"""``paddle.distribution.Bernoulli``: 1 with probability ``probs``, else 0."""
from __future__ import annotations

from .distribution import _paddle, dtype_name
from .exponential_family import ExponentialFamily


def _clip_probs(probs, dtype):
    paddle = _paddle()
    eps = paddle.finfo(paddle.float32 if dtype == "float32" else paddle.float64).eps
    return paddle.clip(probs, min=eps, max=1 - eps).astype(dtype)


class Bernoulli(ExponentialFamily):
    """Bernoulli(probs); probs a float or a Tensor, clipped into [eps, 1 - eps]."""

    def __init__(self, probs, name=None):
        paddle = _paddle()
        self.name = name or "Bernoulli"
        if self._validate_args(probs):
            self.probs = probs
            self.dtype = dtype_name(probs.dtype)
        else:
            [self.probs] = self._to_tensor(probs)
            self.dtype = paddle.get_default_dtype()
        self.probs = _clip_probs(self.probs, self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=self.probs.shape, event_shape=())

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return _paddle().multiply(self.probs, 1 - self.probs)

    def sample(self, shape=()):
        paddle = _paddle()
        shape = self._extend_shape(tuple(shape))
        with paddle.no_grad():
            return paddle.bernoulli(self.probs.expand(shape))

    def rsample(self, shape=(), temperature=1.0):
        """Gumbel-softmax relaxed draws (differentiable in probs)."""
        paddle = _paddle()
        shape = self._extend_shape(tuple(shape))
        temperature = paddle.full(shape=(), fill_value=temperature, dtype=self.dtype)
        probs = self.probs.expand(shape)
        u = paddle.rand(shape, dtype=self.dtype)
        return paddle.divide(paddle.add(paddle.subtract(u.log(), (-u).log1p()),
                                        paddle.subtract(probs.log(), (-probs).log1p())),
                             temperature)

    def cdf(self, value):
        paddle = _paddle()
        value = self._check_values_dtype_in_probs(self.probs, value)
        probs, value = paddle.broadcast_tensors([self.probs, value])
        zeros = paddle.zeros_like(probs)
        ones = paddle.ones_like(probs)
        return paddle.where(value < 0, zeros,
                            paddle.where(value < 1, paddle.subtract(ones, probs), ones))

    def log_prob(self, value):
        paddle = _paddle()
        value = self._check_values_dtype_in_probs(self.probs, value)
        logits, value = paddle.broadcast_tensors([self.logits, value])
        return -paddle.nn.functional.binary_cross_entropy_with_logits(logits, value,
                                                                       reduction="none")

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        F = _paddle().nn.functional
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def kl_divergence(self, other):
        paddle = _paddle()
        F = paddle.nn.functional
        a, b = self.logits, other.logits
        log_pa = -F.softplus(-a)
        log_pb = -F.softplus(-b)
        pa = F.sigmoid(a)
        one_minus_pa = F.sigmoid(-a)
        log_1pa = -F.softplus(a)
        log_1pb = -F.softplus(b)
        return paddle.add(
            paddle.subtract(paddle.multiply(log_pa, pa), paddle.multiply(log_pb, pa)),
            paddle.subtract(paddle.multiply(log_1pa, one_minus_pa),
                            paddle.multiply(log_1pb, one_minus_pa)))
