"""``paddle.distribution.ExponentialFamily``: entropy through the log-normalizer's gradient."""
from __future__ import annotations

from .distribution import Distribution, _paddle


class ExponentialFamily(Distribution):
    """Distributions p(x) = h(x) exp(<theta, T(x)> - A(theta)); the entropy is computed with
    paddle.grad of A (Bregman divergence), as Paddle does."""

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        paddle = _paddle()
        result = -self._mean_carrier_measure
        params = []
        for param in self._natural_parameters:
            param = param.detach()
            param.stop_gradient = False
            params.append(param)
        log_norm = self._log_normalizer(*params)
        grads = paddle.grad(log_norm.sum(), params, create_graph=True)
        result += log_norm
        for p, g in zip(params, grads):
            result -= p * g
        return result
