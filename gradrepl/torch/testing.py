"""``torch.testing.assert_close``."""
from __future__ import annotations

import numpy as np

from ._base import EngineTensor, raw


def assert_close(actual, expected, *, rtol=None, atol=None, equal_nan=False, msg=None, **_kw):
    a = raw(actual) if isinstance(actual, EngineTensor) else np.asarray(actual)
    b = raw(expected) if isinstance(expected, EngineTensor) else np.asarray(expected)
    # torch's defaults per dtype (the larger of the two inputs'); complex as its real type
    tol = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "complex64": (1.3e-6, 1e-5),
           "float64": (1e-7, 1e-7), "complex128": (1e-7, 1e-7)}
    pair = [tol.get(np.dtype(d).name, (0.0, 0.0)) for d in (a.dtype, b.dtype)]
    if rtol is None:
        rtol = max(p[0] for p in pair)
    if atol is None:
        atol = max(p[1] for p in pair)
    if a.shape != b.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: "
                             f"{a.shape} != {b.shape}.")
    if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        raise AssertionError(msg or "Tensor-likes are not close!")
