from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _t
from .binomial import Binomial
from .categorical import Categorical

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,) + tuple(sample_shape)))
        idx = raw(samples)
        idx = np.moveaxis(idx, 0, -1)
        shape = tuple(self._extended_shape(sample_shape))
        counts = np.zeros(shape, np.int64)
        flat_c = counts.reshape(-1, shape[-1])
        flat_i = idx.reshape(-1, idx.shape[-1])
        for r in range(flat_i.shape[0]):
            np.add.at(flat_c[r], flat_i[r], 1)
        return from_np(counts.astype(raw(self.probs).dtype))

    def entropy(self):
        torch = _t()
        n = torch.tensor(self.total_count)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - _fn.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = torch.exp(self._binomial.log_prob(support))
        weights = _fn.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum(0).sum(-1)
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        lf_n = _fn.lgamma(value.sum(-1) + 1)
        lf_xs = _fn.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -inf)] = 0
        return lf_n - lf_xs + (logits * value).sum(-1)


torch_names(globals())
