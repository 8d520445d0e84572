"""What ``help(paddle.X)`` shows: Paddle's module path and a short docstring of our own.

Each function keeps its own docstring where it has one; this table gives the rest one plain
sentence (what it computes, in Paddle's argument names). ``publish`` also sets each function's
``__module__`` to where real Paddle defines it (``paddle.tensor.creation`` for ``ones``), so
``help()`` and the shell name Paddle's modules, never gradrepl's.
"""
from __future__ import annotations

import inspect

DOCS = {
    "abs_": "Absolute value of x, stored back into x.",
    "add": "x + y elementwise, broadcasting the two shapes.",
    "allclose": "True when |x - y| <= atol + rtol * |y| everywhere (equal_nan: NaNs match).",
    "argwhere": "The indices of x's nonzero elements, one row per element: shape [n, x.ndim].",
    "asarray": "A tensor from obj (a list, numpy array or tensor), as to_tensor does.",
    "atleast_1d": "Each input as a tensor of at least one dimension.",
    "atleast_2d": "Each input as a tensor of at least two dimensions.",
    "atleast_3d": "Each input as a tensor of at least three dimensions.",
    "baddbmm": "beta * input + alpha * (x @ y) for batches of matrices.",
    "bincount": "How many times each non-negative integer occurs in x (weights: summed instead).",
    "bitwise_and": "x & y elementwise on integer or bool tensors.",
    "bitwise_invert": "~x elementwise on integer or bool tensors.",
    "bitwise_left_shift": "x << y elementwise.",
    "bitwise_not": "~x elementwise on integer or bool tensors.",
    "bitwise_or": "x | y elementwise on integer or bool tensors.",
    "bitwise_xor": "x ^ y elementwise on integer or bool tensors.",
    "bmm": "Batched matrix product: x [b, m, k] @ y [b, k, n] -> [b, m, n].",
    "broadcast_shape": "The shape two shapes broadcast to (a list).",
    "broadcast_shapes": "The shape several shapes broadcast to (a list).",
    "broadcast_tensors": "The inputs expanded to their common broadcast shape.",
    "broadcast_to": "x expanded to shape by repeating its size-1 dimensions.",
    "cast_": "x converted to dtype, in place.",
    "cat": "Tensors joined along an existing axis (Paddle 3's alias of concat).",
    "chunk": "x split into `chunks` equal pieces along axis.",
    "clamp": "Values of x limited to [min, max] (alias of clip).",
    "clone": "A copy of x that stays in the graph: gradients flow back to x.",
    "column_stack": "1-D or 2-D tensors placed side by side as columns.",
    "concat": "Tensors joined along an existing axis.",
    "concatenate": "Tensors joined along an existing axis (alias of concat).",
    "crop": "The box of x of the given shape starting at offsets.",
    "cummin": "Running minimum of x along axis, with the index of each minimum.",
    "cumulative_trapezoid": "Running integral of y by the trapezoid rule.",
    "deg2rad": "Degrees converted to radians.",
    "diagonal": "The diagonal of x between axis1 and axis2 (offset: above or below it).",
    "diagonal_scatter": "x with the diagonal between axis1 and axis2 replaced by y.",
    "disable_static": "Switch to dynamic graph mode (gradrepl is always in it).",
    "div": "x / y elementwise (Paddle 3's alias of divide; rounding_mode as torch's).",
    "divide": "x / y elementwise, broadcasting the two shapes.",
    "dsplit": "x split along its third axis.",
    "dstack": "Tensors stacked along a third axis.",
    "eigvalsh": "Eigenvalues of a symmetric (Hermitian) matrix, in ascending order.",
    "empty": "A tensor of the given shape whose values are not set.",
    "empty_like": "An unset tensor with x's shape (and dtype unless given).",
    "eq": "x == y elementwise (alias of equal).",
    "equal": "x == y elementwise, as a bool tensor.",
    "expand": "x broadcast to shape (-1 keeps a dimension).",
    "expand_as": "x broadcast to y's shape.",
    "eye": "A 2-D tensor with ones on the diagonal and zeros elsewhere.",
    "fill_diagonal_tensor_": "The diagonal of x filled with y, in place.",
    "flatten": "x with the axes start_axis..stop_axis merged into one.",
    "flatten_": "flatten, in place.",
    "flip": "x with the order of its elements reversed along the given axes.",
    "floor_divide": "x // y elementwise (rounded toward minus infinity).",
    "floor_mod": "x mod y with the sign of y (alias of remainder).",
    "fmax": "The larger of x and y elementwise, ignoring NaNs.",
    "fmin": "The smaller of x and y elementwise, ignoring NaNs.",
    "full": "A tensor of the given shape with every element fill_value.",
    "full_like": "A tensor of x's shape with every element fill_value.",
    "gather": "The slices of x at index along axis.",
    "gather_nd": "The elements or slices of x addressed by the last axis of index.",
    "gcd": "Greatest common divisor of x and y elementwise.",
    "ge": "x >= y elementwise (alias of greater_equal).",
    "get_default_dtype": "The dtype floating tensors get by default ('float32').",
    "get_device": "The device tensors are made on ('cpu').",
    "grad": "The gradients of outputs with respect to inputs, returned instead of stored.",
    "greater": "x > y elementwise (alias of greater_than).",
    "greater_equal": "x >= y elementwise, as a bool tensor.",
    "greater_than": "x > y elementwise, as a bool tensor.",
    "gt": "x > y elementwise (alias of greater_than).",
    "histogram_bin_edges": "The edges of the bins histogram would use.",
    "hsplit": "x split along its second axis (its first for 1-D).",
    "hstack": "Tensors stacked column-wise.",
    "imag": "The imaginary part of a complex tensor.",
    "in_dynamic_mode": "True: gradrepl runs Paddle's dynamic graph mode.",
    "increment": "x + value for a one-element tensor, in place.",
    "index_add_": "value added into x at index along axis, in place.",
    "index_fill_": "x filled with value at index along axis, in place.",
    "index_put_": "value written into x at the given indices, in place.",
    "index_select": "The slices of x at the positions in index along axis.",
    "inverse": "The inverse of a square matrix (or of each matrix in a batch).",
    "is_compiled_with_cuda": "False: gradrepl emulates Paddle's CPU build.",
    "is_complex": "True when x's dtype is complex.",
    "is_empty": "True (as a bool tensor) when x has no elements.",
    "is_floating_point": "True when x's dtype is a floating type.",
    "is_grad_enabled": "True unless inside paddle.no_grad().",
    "is_integer": "True when x's dtype is an integer type.",
    "is_tensor": "True when x is a paddle.Tensor.",
    "isneginf": "True where x is minus infinity.",
    "isposinf": "True where x is plus infinity.",
    "lcm": "Least common multiple of x and y elementwise.",
    "le": "x <= y elementwise (alias of less_equal).",
    "less": "x < y elementwise (alias of less_than).",
    "less_equal": "x <= y elementwise, as a bool tensor.",
    "less_than": "x < y elementwise, as a bool tensor.",
    "logical_and": "x and y elementwise, as a bool tensor.",
    "logical_not": "not x elementwise, as a bool tensor.",
    "logical_or": "x or y elementwise, as a bool tensor.",
    "logical_xor": "x xor y elementwise, as a bool tensor.",
    "lt": "x < y elementwise (alias of less_than).",
    "masked_select": "The elements of x where mask is True, as a 1-D tensor.",
    "matrix_transpose": "x with its last two axes swapped.",
    "maximum": "The larger of x and y elementwise (NaN wins).",
    "meshgrid": "Coordinate grids from 1-D tensors, one per input.",
    "minimum": "The smaller of x and y elementwise (NaN wins).",
    "mod": "x mod y with the sign of y (alias of remainder).",
    "moveaxis": "x with the axes at source moved to destination.",
    "msort": "x sorted along its first axis.",
    "mul": "x * y elementwise (alias of multiply).",
    "multiply": "x * y elementwise, broadcasting the two shapes.",
    "mv": "Matrix x times vector vec.",
    "nanquantile": "The q-th quantile of x along axis, ignoring NaNs.",
    "narrow": "The slice of x of `length` elements from `start` along dim.",
    "ne": "x != y elementwise (alias of not_equal).",
    "neg_": "-x, stored back into x.",
    "negative": "-x elementwise.",
    "normal": "Samples of a normal distribution with the given mean and std.",
    "not_equal": "x != y elementwise, as a bool tensor.",
    "ones": "A tensor of the given shape filled with ones.",
    "ones_like": "A tensor of x's shape filled with ones.",
    "positive": "x itself (+x).",
    "put_along_axis_": "values written into arr at indices along axis, in place.",
    "quantile": "The q-th quantile of x along axis.",
    "rand": "Samples of the uniform distribution on [0, 1).",
    "randint": "Random integers in [low, high).",
    "randn": "Samples of the standard normal distribution.",
    "rank": "The number of dimensions of input, as a tensor.",
    "ravel": "x flattened to one dimension.",
    "remainder": "x mod y with the sign of y.",
    "reshape": "x with a new shape and the same elements (-1: inferred, 0: kept).",
    "reshape_": "reshape, in place.",
    "reverse": "x with its elements reversed along axis (alias of flip).",
    "roll": "x with its elements shifted circularly along axis.",
    "rot90": "x rotated by 90 degrees k times in the plane of axes.",
    "row_stack": "Tensors stacked row-wise (alias of vstack).",
    "scale": "scale * x + bias (or scale * (x + bias) when bias_after_scale is False).",
    "scatter": "x with the rows at index replaced by (or, overwrite=False, summed with) updates.",
    "scatter_nd": "A zero tensor of shape with updates summed in at index.",
    "scatter_reduce": "values reduced into x at index along axis (sum, prod, mean, amax, amin).",
    "seed": "Seed Paddle's random generator; returns the generator.",
    "set_default_dtype": "Set the dtype floating tensors get by default.",
    "set_device": "Choose the device tensors are made on (gradrepl: 'cpu' only).",
    "sign_": "The sign of x, stored back into x.",
    "slice": "The part of input from starts to ends along axes.",
    "sort_": "x sorted along axis, in place.",
    "split": "x split into pieces along axis (a count or the sizes).",
    "split_with_sizes": "x split into pieces of the given sizes along dim.",
    "square_": "x * x, stored back into x.",
    "squeeze_": "squeeze, in place.",
    "stack": "Tensors of one shape stacked along a new axis.",
    "stanh": "scale_b * tanh(scale_a * x).",
    "strided_slice": "The part of x from starts to ends with strides along axes.",
    "sub": "x - y elementwise (alias of subtract).",
    "subtract": "x - y elementwise, broadcasting the two shapes.",
    "swapaxes": "x with two axes exchanged.",
    "swapdims": "x with two axes exchanged.",
    "t": "The transpose of a matrix (a 0-D or 1-D x is returned as it is).",
    "take_along_axis": "The values of arr at indices along axis.",
    "take_along_dim": "The values of input at indices along dim.",
    "tile": "x repeated repeat_times along each axis.",
    "to_tensor": "A tensor made from data (a number, list, numpy array or tensor).",
    "tolist": "x's values as nested Python lists.",
    "transpose": "x with its axes permuted by perm.",
    "tril": "The lower triangle of a matrix (diagonal: which one is the edge).",
    "triu": "The upper triangle of a matrix (diagonal: which one is the edge).",
    "true_divide": "x / y elementwise (alias of divide).",
    "unbind": "The slices of input along axis, as a list.",
    "uniform": "Samples of the uniform distribution on [min, max).",
    "unsqueeze_": "unsqueeze, in place.",
    "unstack": "The slices of x along axis, as a list.",
    "vander": "The Vandermonde matrix of x.",
    "vecdot": "Dot products of x and y along axis.",
    "view_as": "x viewed with other's shape.",
    "vsplit": "x split along its first axis.",
    "vstack": "Tensors stacked row-wise.",
    "zeros": "A tensor of the given shape filled with zeros.",
    "zeros_like": "A tensor of x's shape filled with zeros.",
}

# gradrepl's extra modules and where Paddle keeps the same functions
_HOMES = {"math_ext": "math", "special": "math", "manipulation_ext": "manipulation",
          "linalg_ext": "linalg", "inplace": "ops", "einsum": "einsum", "reduce": "math",
          "indexing": "manipulation"}


def paddle_module(module):
    """``gradrepl.paddle.tensor.math_ext`` -> ``paddle.tensor.math``."""
    mod = module.removeprefix("gradrepl.")
    head, _, last = mod.rpartition(".")
    if head == "paddle.tensor" and last in _HOMES:
        mod = f"{head}.{_HOMES[last]}"
    return mod


def _paddle_copy(namespace, name, fn):
    """A Paddle-named wrapper for an engine function the torch dialect also exports."""
    import functools

    @functools.wraps(fn)
    def paddle_fn(*args, **kwargs):
        return fn(*args, **kwargs)

    paddle_fn.__module__ = OWN_HOMES.get(name, "paddle")
    namespace[name] = paddle_fn
    return paddle_fn


# where real Paddle defines the functions gradrepl shares with the torch dialect
OWN_HOMES = {"is_grad_enabled": "paddle.base.dygraph.base"}


def publish(namespace):
    """Every function of ``namespace`` (a dict) gets Paddle's module path and a docstring."""
    for name, fn in namespace.items():
        if name.startswith("_") or not inspect.isfunction(fn):
            continue
        if fn.__module__.startswith("gradrepl.paddle"):
            fn.__module__ = paddle_module(fn.__module__)
        elif fn.__module__.startswith("gradrepl."):  # the engine's own, shared by the dialects
            fn = _paddle_copy(namespace, name, fn)
        if not fn.__doc__ and name in DOCS:
            fn.__doc__ = DOCS[name]
