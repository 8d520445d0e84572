"""``torch.testing.assert_close``."""
from __future__ import annotations

import numpy as np

from ._base import EngineTensor, raw


def assert_close(actual, expected, *, rtol=None, atol=None, equal_nan=False, msg=None, **_kw):
    a = raw(actual) if isinstance(actual, EngineTensor) else np.asarray(actual)
    b = raw(expected) if isinstance(expected, EngineTensor) else np.asarray(expected)
    if rtol is None:
        rtol = 1.3e-6 if a.dtype == np.float32 else 1e-7
    if atol is None:
        atol = 1e-5 if a.dtype == np.float32 else 1e-7
    if a.shape != b.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: "
                             f"{a.shape} != {b.shape}.")
    if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        raise AssertionError(msg or "Tensor-likes are not close!")
