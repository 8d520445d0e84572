"""``paddle.distribution.Chi2``: Gamma(df / 2, 1 / 2)."""
from __future__ import annotations

from .distribution import _paddle, dtype_name
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Chi-squared with ``df`` degrees of freedom."""

    def __init__(self, df):
        paddle = _paddle()
        if self._validate_args(df):
            self.df = df
            self.dtype = dtype_name(df.dtype)
        else:
            [self.df] = self._to_tensor(df)
            self.dtype = paddle.get_default_dtype()
        self.rate = paddle.full_like(self.df, 0.5)
        if not paddle.all(self.df > 0):
            raise ValueError("The arg of `df` must be positive.")
        super().__init__(self.df * 0.5, self.rate)
