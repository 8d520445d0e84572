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


# ======================================================================= hsigmoid_loss
def _empty_int(like):
    return Tensor(np.zeros((0,), np.int64))


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None,  # noqa: A002
                  path_code=None, is_sparse=False, name=None):
    """Hierarchical sigmoid loss [N, 1] over the default complete binary tree of
    ``num_classes`` leaves, or a custom one (``path_table`` / ``path_code``): Paddle's kernel."""
    if num_classes < 2:
        raise ValueError(f"Expected num_classes >= 2 (got {num_classes})")
    none = _empty_int(input)
    b = bias if bias is not None else Tensor(np.zeros((0,), input.data.dtype))
    return G.hsigmoid_loss(input, weight, b, label, path_table if path_table is not None
                           else none, path_code if path_code is not None else none,
                           num_classes)


def _hsigmoid_layer():
    from .layer.layers import Layer

    class HSigmoidLoss(Layer):
        """``HSigmoidLoss(feature_size, num_classes, ...)``: weight [C, feature_size] and bias
        [C, 1] (C = num_classes - 1, or num_classes with a custom tree), ``forward(input,
        label, path_table=None, path_code=None)``. Prints Paddle's sparse-mode note on every
        construction, as Paddle does."""

        def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None,
                     is_custom=False, is_sparse=False, name=None):
            super().__init__()
            if num_classes < 2 and not is_custom:
                raise ValueError("num_classes must not be less than 2 with default tree")
            if not is_custom and is_sparse:
                print("Sparse mode should not be used without custom tree")
                is_sparse = False
            self._feature_size, self._num_classes = feature_size, num_classes
            self._is_custom, self._is_sparse = is_custom, is_sparse
            self._weight_attr, self._bias_attr, self._name = weight_attr, bias_attr, name
            from ..tensor.creation import get_default_dtype

            self._dtype = get_default_dtype()
            print("With sparse mode, if your models has only small parameter prefetch may "
                  "cause speed down")
            c = num_classes if is_custom else num_classes - 1
            self.weight = self.create_parameter([c, feature_size], attr=weight_attr,
                                                is_bias=False, dtype=self._dtype)
            self.bias = self.create_parameter([c, 1], attr=bias_attr, is_bias=True,
                                              dtype=self._dtype)

        def forward(self, input, label, path_table=None, path_code=None):  # noqa: A002
            return hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                                 path_table=path_table, path_code=path_code,
                                 is_sparse=self._is_sparse, name=self._name)

    HSigmoidLoss.__module__ = "paddle.nn.layer.loss"
    return HSigmoidLoss


_MADE = {}


def _made(key, make):
    if key not in _MADE:
        _MADE[key] = make()
    return _MADE[key]


def f_names():
    """paddle.nn.functional's names from this module: name -> (since, value)."""
    return {"gumbel_softmax": ("2.6", gumbel_softmax), "embedding_renorm_": ("3", embedding_renorm_),
            "hsigmoid_loss": ("2.6", hsigmoid_loss)}


def nn_names():
    """paddle.nn's names from this module: name -> (since, value)."""
    return {"HSigmoidLoss": ("2.6", _made("HSigmoidLoss", _hsigmoid_layer))}
