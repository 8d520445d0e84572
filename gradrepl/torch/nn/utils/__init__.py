"""``torch.nn.utils``: gradient clipping and parameter vectors."""
from __future__ import annotations

import math

import numpy as np

from ....engine import grad_mode
from ... import _inplace
from ..._base import EngineTensor, raw
from ..._tensor import Tensor


def _params(parameters):
    if isinstance(parameters, EngineTensor):
        return [parameters]
    return [p for p in parameters]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    grads = [p._grad for p in _params(parameters) if p._grad is not None]
    if not grads:
        return Tensor._wrap(np.zeros((), np.float32))
    norm_type = float(norm_type)
    if norm_type == math.inf:
        total = max(float(np.abs(raw(g)).max()) for g in grads)
    else:
        per = [np.linalg.norm(raw(g).reshape(-1).astype(np.float64), norm_type) for g in grads]
        total = float(np.linalg.norm(np.array(per), norm_type))
    dt = raw(grads[0]).dtype
    total_t = Tensor._wrap(np.asarray(total, dt))
    coef = np.float32(max_norm) / (np.float32(total) + np.float32(1e-6))
    if coef < 1:
        with grad_mode.no_grad():
            for g in grads:
                _inplace.write(g, (raw(g) * coef).astype(raw(g).dtype))
    return total_t


def clip_grad_value_(parameters, clip_value, foreach=None):
    with grad_mode.no_grad():
        for p in _params(parameters):
            if p._grad is not None:
                g = p._grad
                _inplace.write(g, np.clip(raw(g), -clip_value, clip_value))


def parameters_to_vector(parameters):
    from ... import _ops

    return _ops.cat([_ops.reshape(p, (-1,)) for p in parameters])


def vector_to_parameters(vec, parameters):
    offset = 0
    a = raw(vec)
    with grad_mode.no_grad():
        for p in parameters:
            n = raw(p).size
            _inplace.write(p, a[offset:offset + n].reshape(raw(p).shape))
            offset += n
