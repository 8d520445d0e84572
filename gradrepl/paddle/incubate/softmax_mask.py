"""``paddle.incubate.softmax_mask_fuse``: ``softmax(x + mask)`` over the last axis in one op.

Paddle's CPU kernel adds the mask and calls its softmax kernel: its outputs and its gradient
with respect to x are those of ``softmax(x + mask, -1)`` bit for bit (measured here, float32,
six shapes up to [1, 2, 16, 1024], real 3.3.1 and 2.6.2); the mask gets no gradient. The
upper-triangle variant has no CPU kernel: it raises Paddle's error.

The checks and their messages are Paddle's, in its order: the kernel's dtype (float32/float64),
the infermeta's ranks, the kernel's shape checks, then the mask's dtype against x's.
"""
from __future__ import annotations

from .. import profiles
from ..core import as_tensor
from ..promotion import kernel_hint

# where each check sits in real Paddle's source (the [Hint] line's "(at ...)"), per version
_LINES = {
    "3": {"x_rank": "infermeta/binary.cc:4175", "mask_rank": "infermeta/binary.cc:4181",
          "dim1": "kernels/fusion/cpu/fused_softmax_mask_kernel.cc:30",
          "dims": "kernels/fusion/cpu/fused_softmax_mask_kernel.cc:40",
          "dtype": "core/dense_tensor.cc:153",
          "upper": "kernels/fusion/cpu/fused_softmax_mask_upper_triangle_kernel.cc:26"},
    "2.6": {"x_rank": "infermeta/binary.cc:2768", "mask_rank": "infermeta/binary.cc:2774",
            "dim1": "kernels/fusion/cpu/fused_softmax_mask_kernel.cc:35",
            "dims": "kernels/fusion/cpu/fused_softmax_mask_kernel.cc:54",
            "dtype": "core/dense_tensor.cc:171",
            "upper": "kernels/fusion/cpu/fused_softmax_mask_upper_triangle_kernel.cc:30"},
}
_DTYPE_IDS = {"float32": 10, "float64": 11}


def _where():
    key = profiles.current().key
    return _LINES.get(key, _LINES["2.6"]), key != "3"


def _error(kind, text, expected, check):
    """Paddle's enforce message: text, its [Hint] line, and under 2.x the operator line."""
    lines, legacy = _where()
    msg = f"({kind}) {text}\n  [Hint: Expected {expected}.] (at /paddle/paddle/phi/{lines[check]})\n"
    if legacy:
        msg = msg[:-1] + "\n  [operator < fused_softmax_mask > error]"
    return msg


def softmax_mask_fuse(x, mask, name=None):
    """``softmax(x + mask, axis=-1)``: x [B, H, S, K], mask [B, 1, S, K] of x's dtype."""
    import gradrepl.paddle as paddle

    x, mask = as_tensor(x), as_tensor(mask)
    dt = x.dtype.name
    if dt not in _DTYPE_IDS:
        if profiles.current().key == "3":
            raise RuntimeError(
                f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {dt}) of kernel "
                f"`fused_softmax_mask` is not registered. Selected wrong DataType `{dt}`. Paddle "
                f"support following DataTypes: float64, float32.{kernel_hint()}")
        raise RuntimeError(
            "(NotFound) There are no kernels which are registered in the fused_softmax_mask "
            "operator.\n  [Hint: Expected kernels_iter != all_op_kernels.end(), but received "
            "kernels_iter == all_op_kernels.end().] (at /paddle/paddle/fluid/imperative/"
            "prepared_operator.cc:374)\n  [operator < fused_softmax_mask > error]")
    xs, ms = list(x.shape), list(mask.shape)
    if len(xs) != 4:
        raise ValueError(_error(
            "InvalidArgument", "Input x must be in 4D dimension but received the dimension of X "
            f"is {len(xs)}", f"x_dims.size() == 4, but received x_dims.size():{len(xs)} != 4:4",
            "x_rank"))
    if len(ms) != 4:
        raise ValueError(_error(
            "InvalidArgument", "Input mask must be in 4D dimension but received the dimension "
            f"of mask is {len(ms)}",
            f"mask_dims.size() == 4, but received mask_dims.size():{len(ms)} != 4:4",
            "mask_rank"))
    if ms[1] != 1:
        raise ValueError(_error(
            "InvalidArgument", "Input mask's second dim must be 1 received the second dimension "
            f"of mask is {ms[1]}", f"mask_dim[1] == 1, but received mask_dim[1]:{ms[1]} != 1:1",
            "dim1"))
    for i in (0, 2, 3):
        if xs[i] != ms[i]:
            raise ValueError(_error(
                "InvalidArgument", f"Input x's {i}th dim should be equal with input mask's {i}th "
                f"dim but received the {i}th dimension of x and mask are not equal the {i}th dim "
                f"of x is {xs[i]}, while the {i}th dim of mask is {ms[i]}.",
                f"x_dim[idx] == mask_dim[idx], but received x_dim[idx]:{xs[i]} != "
                f"mask_dim[idx]:{ms[i]}", "dims"))
    md = mask.dtype.name
    if md != dt:
        want, have = _DTYPE_IDS[dt], _DTYPE_IDS.get(md, -1)
        raise ValueError(_error(
            "InvalidArgument", f"The type of data we are trying to retrieve ({dt}) does not "
            f"match the type of data ({md}) currently contained in the container.",
            f"dtype() == phi::CppTypeToDataType<T>::Type(), but received dtype():{have} != "
            f"phi::CppTypeToDataType<T>::Type():{want}", "dtype"))
    return paddle.nn.functional.softmax(x + mask.detach(), axis=-1)


def softmax_mask_fuse_upper_triangle(x):
    """GPU only in Paddle: its CPU kernel raises this error."""
    lines, _ = _where()
    raise NotImplementedError(
        "(Unimplemented) Softmax mask fuse op only supports GPU now.\n  [Hint: Expected "
        "is_gpu_place == true, but received is_gpu_place:0 != true:1.] (at /paddle/paddle/phi/"
        f"{lines['upper']})\n")
