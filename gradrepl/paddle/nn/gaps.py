"""``paddle.nn`` / ``paddle.nn.functional`` names from issue 28's gap list
(``tools/paddle_api_gaps.py``): ``F.gumbel_softmax``, ``F.embedding_renorm_`` ... Served through
``nn/breadth.py``'s tables (``NN`` / ``F`` below: name -> (since, value)), so a name Paddle 2.6.2
lacks is an AttributeError under a 2.x profile. The ops live in ``engine/ops/paddle_nn_gaps.py``.
"""
from __future__ import annotations

import numpy as np

from ...engine.ops import paddle_nn_gaps as G
from .. import profiles
from ..core import Tensor


def _api3():
    return profiles.current().api3


# ======================================================================= gumbel_softmax
_GUMBEL_LOW = 0.00001  # std::uniform_real_distribution<T>(0.00001, 1) in Paddle's CPU kernel


def _gumbel_noise(shape, dtype):
    """Paddle's draws, one a value from the global generator's engine, then -log(-log(u)) as
    Eigen computes it (packets, the tail with the C library)."""
    from ...engine.ops.nn import eigen_log
    from .. import random_engine
    from ..tensor.creation import _kernel_engine

    t = np.dtype(dtype).type
    n = int(np.prod(shape)) if len(shape) else 1
    lo = t(_GUMBEL_LOW)
    u = np.empty(n, t)
    if n:
        random_engine.uniform_from_words(_kernel_engine(0).draw(n), t, lo, t(t(1) - lo), u)
    with np.errstate(all="ignore"):
        g = -eigen_log(-eigen_log(u))
    return g.reshape(shape)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """Softmax of (x + Gumbel noise) / temperature (one-hot with ``hard``): Paddle's kernel."""
    from .functional._util import require_float

    require_float(x, "gumbel_softmax")
    if not temperature > 0:
        line = 58 if _api3() else 62
        raise ValueError(
            "(InvalidArgument) The temperature must be greater than 0. But received temperature "
            f"= {float(temperature):f}\n  [Hint: Expected temperature > 0, but received "
            f"temperature:{temperature:g} <= 0:0.] (at /paddle/paddle/phi/kernels/impl/"
            f"gumbel_softmax_kernel_impl.h:{line})\n")
    a = x.data
    noise = Tensor(_gumbel_noise(a.shape, a.dtype))
    return G.gumbel_softmax(x, noise, temperature, hard, axis)


# ======================================================================= temporal_shift
def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """Shift a part of the channels one segment back and another one forward in time (the first
    ``shift_ratio * C`` channels from frame t - 1, the next as many from t + 1)."""
    return G.temporal_shift(x, seg_num, shift_ratio, data_format == "NHWC")


# ======================================================================= embedding_renorm_
def embedding_renorm_(x, weight, max_norm, norm_type=2.0):
    """Scale, in place, the rows of ``weight`` that ``x`` names whose ``norm_type``-norm exceeds
    ``max_norm`` down to ``max_norm / (norm + 1e-7)`` times themselves: Paddle 3's composite
    (unique ids, index_select, norm, where, scatter_ with overwrite), without recording."""
    from ... import paddle as P

    with P.set_grad_enabled(False):
        ids = P.unique(x)
        rows = P.index_select(weight, ids)
        norm = P.norm(rows, p=norm_type, axis=1, keepdim=True)
        factor = P.where(norm > max_norm, max_norm / (norm + 1e-7), P.ones_like(norm))
        P.scatter_(weight, ids, rows * P.expand_as(factor, rows), overwrite=True)
        return weight


def f_names():
    """paddle.nn.functional's names from this module: name -> (since, value)."""
    return {"gumbel_softmax": ("2.6", gumbel_softmax), "embedding_renorm_": ("3", embedding_renorm_)}


def nn_names():
    """paddle.nn's names from this module: name -> (since, value)."""
    return {}
