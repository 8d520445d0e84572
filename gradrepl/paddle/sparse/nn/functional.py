"""``paddle.sparse.nn.functional``: activations of the stored values; zeros stay zeros."""

import numpy as np

from ... import profiles
from .. import SparseTensor
from ..kernels import coo_softmax_groups, csr_softmax_rows, flat_index

__all__ = ["relu", "relu6", "leaky_relu", "softmax", "conv3d", "subm_conv3d", "max_pool3d",
           "conv2d", "subm_conv2d", "attention"]


def _apply(name, x, *args):
    import gradrepl.paddle.nn.functional as F

    if not isinstance(x, SparseTensor):
        from .. import dense_input_error

        raise dense_input_error(name)
    return SparseTensor(x._layout, x._parts, getattr(F, name)(x._values, *args), x._shape,
                        x.stop_gradient)


def relu(x, name=None):
    return _apply("relu", x)


def relu6(x, name=None):
    return _apply("relu6", x)


def leaky_relu(x, negative_slope=0.01, name=None):
    return _apply("leaky_relu", x, negative_slope)


_SOFTMAX_AXIS_LINE = {"3": 34, "2.6": 39}


def softmax(x, axis=-1, name=None):
    """Softmax of each row's stored values (missing entries are not counted: -inf). CSR: the
    last axis only, Paddle's CSR kernel; COO: the entries grouped by their indices but the
    last, Paddle's COO kernel (see ``paddle.sparse.kernels``)."""
    import gradrepl.paddle as paddle

    if not isinstance(x, SparseTensor):
        raise TypeError("paddle.sparse.nn.functional.softmax: x must be a sparse tensor")
    values = x._values.numpy()
    if x._layout == "csr":
        if axis != -1:
            line = _SOFTMAX_AXIS_LINE.get(profiles.current().key, 39)
            raise NotImplementedError(
                "(Unimplemented) SparseCsrTensor only support axis=-1 for softmax, which is "
                "faster when reading data by row (axis=-1)\n  [Hint: Expected axis == -1, but "
                f"received axis:{axis} != -1:-1.] (at /paddle/paddle/phi/kernels/sparse/cpu/"
                f"softmax_kernel.cc:{line})\n")
        out = csr_softmax_rows(values, x._parts[0].numpy())
    else:
        idx = x._parts[0].numpy().astype(np.int64)
        if values.ndim != 1 or axis not in (-1, len(x._shape) - 1):
            raise NotImplementedError("gradrepl's paddle.sparse softmax of a COO tensor: over "
                                      "its last axis, sparse dimensions only")
        lead = idx[:-1]
        groups = flat_index(lead, x._shape[:-1]) if lead.shape[0] else \
            np.zeros(idx.shape[1], np.int64)
        out = coo_softmax_groups(values, groups)
    return SparseTensor(x._layout, x._parts, paddle.to_tensor(out), x._shape, x.stop_gradient)


# real Paddle's public names of paddle.sparse.nn.functional not emulated (3.3.1; 2.6.2 lacks
# the two igemm ones)
def attention(query, key, value, sparse_mask, key_padding_mask=None, attn_mask=None,
              name=None):
    """Paddle's kernel is CUDA-only: not emulated (the name exists, so its arguments are
    evaluated first, as in Paddle)."""
    raise NotImplementedError("gradrepl's paddle does not emulate "
                              "paddle.sparse.nn.functional.attention (a GPU kernel in Paddle)")


_NOT_EMULATED = frozenset(("subm_conv2d_igemm", "subm_conv3d_igemm",
                           "activation", "conv", "pooling", "transformer"))


def __getattr__(name):
    if name in ("conv3d", "subm_conv3d", "max_pool3d", "conv2d", "subm_conv2d"):
        from . import conv

        return getattr(conv, name)
    if name in _NOT_EMULATED:
        raise AttributeError(f"module 'paddle.sparse.nn.functional' has no attribute '{name}' "
                             f"(gradrepl's paddle does not emulate "
                             f"paddle.sparse.nn.functional.{name})")
    raise AttributeError(f"module 'paddle.sparse.nn.functional' has no attribute '{name}'")
