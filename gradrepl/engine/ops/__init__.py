"""The registered ops, grouped by kind. Importing this package registers them all."""
from . import broadcast, math, logic, reduce, search, shape, index, linalg, nn  # noqa: F401
from ..registry import OPS as _OPS

# Ops whose VJP never reads the values of their inputs (only shapes, attributes or the
# forward output): an in-place write to such an input after the op ran does not make backward
# wrong, so it is not an error (Paddle saves no TensorWrapper for them either).
OUTPUT_OR_SHAPE_ONLY = (
    "add", "subtract", "neg", "scale", "cast", "exp", "sqrt", "rsqrt", "tanh", "sigmoid",
    "relu", "relu6", "softmax", "log_softmax", "sum", "mean", "sum_to", "broadcast_to",
    "expand", "reshape", "transpose", "squeeze", "unsqueeze", "flatten", "concat", "stack",
    "split", "unbind", "tile", "flip", "roll", "pad", "slice", "strided_slice", "dropout",
    "expm1", "floor", "ceil", "round", "trunc", "sign",
)
for _name in OUTPUT_OR_SHAPE_ONLY:
    if _name in _OPS:
        _OPS[_name].saves_inputs = False
