"""The profile table: every behaviour that differs between the emulated Paddle versions.

One row per profile, one field per behaviour; nothing else in gradrepl branches on a version
string. Selected by ``--paddle``, ``GRADREPL_PADDLE``, or ``# gradrepl: paddle=3`` in a script.
Facts measured on real Paddle 2.6.2 and 3.3.1 (``shared/conformance``); 2.2 is the seeds' Paddle.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Profile:
    key: str                      # "2.2" | "2.6" | "3"
    version: str                  # paddle.__version__
    place: str                    # the place as printed in a tensor's repr
    zero_d: bool                  # python scalars / full reductions give 0-D tensors (else [1])
    format_0d_as_scalar: bool     # '{}'.format(0-D) formats the python scalar (3.x)
    retain_nonleaf_grads: bool    # non-leaf .grad kept after backward without retain_grads()
    freed_graph_error: str        # "legacy" (RuntimeError, 2.2) | "eager" (SystemError)
    grad_frees_graph: bool        # paddle.grad without retain_graph frees the graph
    node_names: str               # "legacy" (MulBackward) | "eager" (MultiplyGradNode)
    shape_is_size: bool           # print(x.shape) -> paddle.Size([2, 3])
    dtype_enum: str               # "VarType" (<VarType.FP32: 5>) | "DataType" (<DataType.FLOAT32: 10>)
    promotion: str                # "left" (2.x: the left operand's dtype) | "strict" (3.x: TypeError)
    minmax_ties: str              # "all" (each tied element gets the gradient) | "split" (evenly)
    scalar_div: str               # "reciprocal" (x * (1/c), 2.x scale op) | "divide"
    topk_namedtuple: bool         # topk returns TopKRetType
    gradient_numpy: bool          # Tensor.gradient() returns numpy (all versions so far)
    complex_fixed: bool           # complex items print with the float precision (3.x) or as python's
    shape_tensor_dtype: str       # dtype of paddle.shape(x): int32 in 2.x, int64 in 3.x
    where_grad: str               # where backward: "mask" dout*(cond?1:0) (2.x) | "select" (3.x)
    error_wording: str            # whose kernel error texts: "2.6" | "3" (matmul shape errors)
    inverted_slice_error: bool    # x[2:1] raises ValueError (2.x) instead of giving an empty tensor
    # reductions, search and sort (defaults are 2.x's behaviour)
    empty_reduce: str = "error"   # reducing an empty tensor: "error" (2.x) | "identity" (3.x: 0, nan, 1)
    reduce_nan: str = "fold"      # max/min over NaN: "fold" (2.x: only elements after the last NaN
    #                               count) | "propagate" (3.x: NaN)
    cumprod_dim_none: str = "error"  # cumprod(x) without dim: "error" (2.x) | "flatten" (3.x)
    int_reductions: str = "strict"  # "strict" (2.x: float-only kernels reject ints; cumsum keeps
    #                               int32) | "promote" (3.x: logsumexp/std/median of ints in float32,
    #                               var keeps the int dtype, cumsum of int8..int32 gives int64)
    norm_api: str = "2.6"         # paddle.norm: "2.6" (p='fro', frobenius_norm op, 2-axis p-norms
    #                               are vector norms) | "3" (p=None -> 2, 2-axis lists are matrix norms)
    median_kernel: bool = False   # median is one op whose gradient splits among ties (3.x); 2.x
    #                               composes topk + slices (the gradient goes to the picked elements)
    full_bool_dtype: bool = False  # full(shape, True) without a dtype is bool (3.x); 2.x: float32
    where_scalars: str = "full64"  # python scalars in where(): "full64" ([1] float64/int64, 2.x)
    #                                | "to_tensor" (0-D of the default dtype, 3.x)
    nonzero_tuple_1d: bool = False  # nonzero(as_tuple=True) / where(c) give 1-D tensors (3.x)
    #                                 or [n, 1] ones (2.x)
    param_aliases: bool = False   # input= / dim= keyword aliases (3.x)
    masked_fill_op: bool = False  # masked_fill is its own op whose value gradient is 0 (3.3) or
    #                               where(logical_not(mask), x, value) (2.x)
    scalar_convert_0d_only: bool = False  # float()/int()/complex()/index of a [1] tensor raise
    #                               TypeError (3.3.1 runs numpy 2, which converts only 0-D arrays)
    grad_seed_dtype: str = "keep"  # a grad_tensor / grad_outputs of another dtype: "keep" (2.x:
    #                               paddle.grad answers in its dtype, backward into a leaf raises
    #                               ValueError) | "cast" (3.x: cast to the output's dtype)
    pylayer_node_suffix: str = "_backward"  # a PyLayer's node: GradNodePyLayer_<cls>_backward
    #                               (2.x) | GradNodePyLayer_<cls> (3.x, suffix "")
    log10_grad_ln10: float = 2.302585092994046  # log10's gradient dout / (x * ln10) for float64:
    #                               the double log(10.0) (2.x) | 2.3025850929940456 (3.x), measured
    logit_eps32: bool = True      # logit's eps is a float attribute (2.x: a float64 x is clipped
    #                               to float32's 1e-3) or a double (3.x); measured 2.6.2 / 3.3.1
    arg_type_error: str = "ValueError"  # a bad python argument type (axis=1.5): 2.x ValueError,
    #                                     3.x TypeError

    # nn.functional (measured on 2.6.2 / 3.3.1):
    bce_logits_kernel: str = "legacy"  # sigmoid_cross_entropy_with_logits: "legacy" (2.x: grad
    #   sigmoid(x)*pw - label; pos_weight scales log(1+exp(-|x|))) | "stable" (3.x: grad via
    #   exp(-|x|), 3x too large at x == 0; pos_weight scales log(exp(-m)+exp(-x-m)) + m)
    ce_mean_ignore: str = "present"  # cross_entropy 'mean' divides by the kept count when:
    #   "present" (2.x: some label equals ignore_index) | "nonneg_index" (3.x: ignore_index >= 0)
    layer_repr_inplace: bool = False  # Dropout / Silu reprs end with ", inplace=False" (3.x)
    embedding_scale_grad: bool = False  # nn.Embedding has scale_grad_by_freq, shown in its repr (3.x)
    clip_global_norm_inplace: bool = False  # ClipGradByGlobalNorm scales param.grad in place (3.x)
    # elementwise math (measured on 2.6.2 / 3.3.1 over the dtype x operand matrix):
    kernel_set: str = "2.6"       # which dtypes each CPU kernel has ("2.6": no int8/uint8/bool add,
    #                               no complex pow/remainder | "3"); see paddle/promotion.py
    int_math_autocast: bool = False  # sqrt/tanh/sin/... of an int tensor: float32 (3.x) or
    #                                  RuntimeError NotFound (2.x); floor/ceil/round: identity (3.x)
    round_half_even: bool = False  # paddle.round: halves to even (3.x rint) or away from 0 (2.x)
    grid_sample_half_even: bool = False  # grid_sample mode='nearest' picks a tie (x.5) by
    #   nearbyint, to even (3.3.1: 1.5 -> 2, 2.5 -> 2; 4-D and 5-D, forward and gradient) or by
    #   round(), away from 0 (2.6.2: 2.5 -> 3)
    math_lib: str = "libm"        # float32 sin, cos and tensor ** tensor: "libm" (2.x: glibc) |
    #                               "sleef" (3.x: SLEEF sinf_u35, cosf_u35, powf_u10)
    remainder_grad: bool = False  # x % y has a gradient (3.x); in 2.x its result stops gradient
    clip_promotes: bool = False   # clip(int tensor, 2.5, 6.5) computes in float32 (3.x); 2.x
    #                               truncates the bounds
    clip_grad_at_bounds: bool = False  # clip's gradient passes at x == min or max (3.x); 0 (2.x)
    minmax_nan: str = "compare"   # elementwise maximum/minimum with NaN: "compare" (2.x:
    #                               x > y ? x : y) | "propagate" (3.x: NaN wins); ties in their
    #                               gradient follow minmax_ties ("split": half each, else to y)
    linspace_step: str = "double"  # float linspace: "double" (2.x: step and values in float64,
    #                               rounded once) | "dtype" (3.x: step and values in the dtype)
    pow_grad: str = "dout_first"  # x ** y backward rounding: (dout * y) * pow(x, y - 1) (2.x) |
    #                               "pow_first": dout * (y * pow(x, y - 1)) (3.x)
    lbfgs_dot: str = "tensor_dot"  # LBFGS's directional derivatives: "tensor_dot" (2.x:
    #   Tensor.dot, paddle.abs, the line search's first step a tensor 0) | "mul_sum" (3.x: its
    #   own (x * y).sum(-1), abs(), a Python 0)
    missing_dunders: tuple = ("__abs__", "__pos__", "__rfloordiv__", "__rmod__", "__rand__",
                              "__ror__", "__rxor__", "__lshift__", "__rshift__")  # 2.x lacks
    random_kernels: str = "2.6"   # the CPU random kernels' libstdc++ and attributes: "2.6"
    #   (divide-and-reject randint / shuffle, TruncatedNormal cut at mean +- 2 std, no
    #   float16 uniform/gaussian) | "3" (Lemire randint, cut at [a, b]); random_engine.py
    f16_rounding: str = "zero"    # the scale op's float16 results (x + 1.0, x * 0.3, paddle.scale):
    #                               "zero" (2.x: toward zero, Eigen's half without F16C) |
    #                               "nearest" (3.x); measured on 2,000 values per op
    bf16_rounding: str = "truncate"  # float -> bfloat16: "truncate" (2.x: the upper 16 bits, in
    #                               casts, fills and every kernel's result) | "nearest_even" (3.x)
    # Layer and API details measured on the docstring examples (2.6.2 / 3.3.1):
    layer_mode_returns_self: bool = False  # Layer.train()/eval() return the layer (3.x) or None
    api3: bool = False            # the names Paddle 3 added exist (paddle.tensor_split, Tensor.set_);
    #                               under 2.x they raise AttributeError (api26.py lists 2.6.2's)
    quantile_float64: bool = True  # quantile/nanquantile compute and answer in float64 (2.x);
    #                               3.x keeps x's dtype (float weights of that dtype)
    diff_pend_each: bool = True   # paddle.diff(n > 1) concatenates prepend/append at every
    #                               difference (2.x) or only at the first (3.x)
    digamma_zero: str = "nan"     # digamma(0): nan (2.x) | "inf" (3.x: -inf, +inf at -0.)
    rank_int32: bool = True       # matrix_rank answers int32 (2.x) or int64 (3.x)
    lu_info_1d: bool = True       # lu(get_infos=True) of one matrix: info of shape [1] (2.x), [] (3.x)
    layer_astype_casts: bool = True  # Layer.astype(dtype) casts parameters and buffers (2.x);
    #                                  3.3.1 only records the dtype (its params stay as they were)
    double_grad_zeros: bool = True  # a create_graph gradient's nodes record every saved input of
    #   the op, so a second backward gives inputs it reaches only structurally zeros, not None
    #   (Paddle 2.6/3's double-grad nodes; 2.2's legacy engine: not measured, kept off)
    scalar_full_1d: tuple = ("elementwise_pow:b:right", "floor_divide:b:right", "equal:b:both",
                             "not_equal:b:both")  # "op:scalar kinds:side" where Paddle makes
    #   the python number a shape-[1] tensor, so a 0-D operand gives a [1] result (2.x)
    group_norm_kernel: str = "2.6"  # group_norm: "2.6" (the CPU kernels take epsilon as a float;
    #   GroupNorm(weight_attr=False) keeps a constant weight/bias of ones/zeros) | "3" (epsilon a
    #   double; GroupNorm(weight_attr=False) passes None, so dx lacks the mean(dy) term)
    uninit_repr: str = "meta"     # an uninitialized tensor (Layer.create_tensor) prints its meta
    #   ("meta": shape=[], place=Place(undefined:0), no data; 2.x) | "short" (Tensor(Not initialized), 3.x)
    tensor_pickle: bool = False   # copy.copy / pickle of a Tensor work (3.x) or raise TypeError
    opt_state_holder: bool = False  # Optimizer.state_dict() before any accumulator exists returns
                                    # what set_state_dict loaded (3.x) or only the LR state (2.x)
    #   "cannot pickle 'Tensor' object" (2.x: no __reduce__; copy.deepcopy works in both)
    numpy1_only: bool = False     # this Paddle runs only on numpy 1 (2.2.1: its wheels predate
    #   numpy 2), so numpy scalars print as plain numbers ({'total_params': 61610}); 2.6.2 and
    #   3.3.1 run on the machine's numpy, numpy 2 here (np.int64(61610)): numpy_era.numpy1_scalars
    device_kinds: tuple = ("gpu", "xpu", "npu")  # the device names set_device's error lists;
    #   3.x adds 'dcu' (and lets a Place object or 'cuda:N' through)
    deprecation_warnings: bool = False  # APIs Paddle marks @deprecated(level=1) warn when called
    #   (3.x: VisibleDeprecationWarning at the caller's line; 2.6.2 prints nothing)
    to_tensor_copy_warning: bool = False  # paddle.to_tensor(a_tensor) warns once a process (3.x:
    #   "To copy construct from a tensor ..." UserWarning; 2.6.2 is silent)
    scale_bias32: bool = True     # the scale op's bias is a float attribute (2.x: x + 0.1, x - 0.1,
    #   0.1 - x and paddle.scale(x, s, 0.1) of a float64/complex128 x add float32(0.1)) or a
    #   double (3.x); its scale is a Scalar (a double) in both. Measured 2.6.2 / 3.3.1
    leaky_relu_slope32: bool = True  # leaky_relu's negative_slope is a float attribute (2.x: a
    #   float64 input computes with it rounded to float32) or a double (3.x); measured 2.6.2/3.3.1
    trace_sorts_axes: bool = True  # paddle.trace(x, offset, axis1 > axis2): 2.x takes the axes in
    #   ascending order with the same offset (real 2.6.2: offset -1 over (2, 1) of a (2, 3, 4) x
    #   sums (1, 0), (2, 1) of each 3x4 matrix); 3.x keeps them as given
    inner_transpose_flag: bool = False  # paddle.inner's product: matmul(x, y, transpose_y=True)
    #   (3.x) or matmul(x, transpose(y)) (2.x): other gradients' last bits (measured 3.3.1/2.6.2)
    no_double_grad: str = "2.6"   # which ops paddle.grad(create_graph=True) refuses to trace
    #   (double_grad.NO_DOUBLE_GRAD's column): "2.6" | "3" | "" (2.2: not measured, none)
    complex_divide: str = "naive"  # complex x / y (and its gradients' quotients): "naive" (2.x:
    #   (ac + bd) / (cc + dd), measured 2.6.2: 6,000 of 6,000) | "numpy" (3.x: not yet Paddle's:
    #   3.3.1 agrees with numpy's quotient on 66-68% of random values)
    complex_abs_grad: str = "divide"  # abs_grad of a complex x: dout * (x / complex(|x|, 0)) by
    #   the naive complex quotient ((a c + b d) / (c c + d d): 2.x, NaN where |x|^2 underflows) |
    #   "reciprocal": dout * (x * (1 / |x|)) (3.x); 0 where x == 0 (measured 2.6.2 / 3.3.1)

P26 = Profile(
    key="2.6", version="2.6.2", place="Place(cpu)", zero_d=True, format_0d_as_scalar=False,
    shape_tensor_dtype="int32", where_grad="mask",
    retain_nonleaf_grads=False, freed_graph_error="eager", grad_frees_graph=False,
    node_names="eager", shape_is_size=False, dtype_enum="VarType", promotion="left",
    minmax_ties="all", scalar_div="reciprocal", topk_namedtuple=False, gradient_numpy=True,
    complex_fixed=False, error_wording="2.6", inverted_slice_error=True,
)
P22 = replace(P26, key="2.2", version="2.2.1", place="CPUPlace", zero_d=False,
              retain_nonleaf_grads=True, freed_graph_error="legacy", node_names="legacy",
              double_grad_zeros=False, no_double_grad="", numpy1_only=True)
P3 = replace(P26, key="3", version="3.3.1", lbfgs_dot="mul_sum", format_0d_as_scalar=True, shape_is_size=True,
             shape_tensor_dtype="int64", where_grad="select",
             dtype_enum="DataType", promotion="strict", minmax_ties="split",
             empty_reduce="identity", reduce_nan="propagate", int_reductions="promote",
             norm_api="3", median_kernel=True, cumprod_dim_none="flatten",
             where_scalars="to_tensor", nonzero_tuple_1d=True, full_bool_dtype=True,
             param_aliases=True, arg_type_error="TypeError", scalar_convert_0d_only=True, grad_seed_dtype="cast", pylayer_node_suffix="", masked_fill_op=True,
             scalar_div="divide", topk_namedtuple=True,
             bce_logits_kernel="stable", ce_mean_ignore="nonneg_index", layer_repr_inplace=True,
             embedding_scale_grad=True, clip_global_norm_inplace=True, error_wording="3", complex_fixed=True,
             inverted_slice_error=False, uninit_repr="short",
             kernel_set="3", int_math_autocast=True, round_half_even=True, grid_sample_half_even=True, math_lib="sleef",
             remainder_grad=True, clip_promotes=True, clip_grad_at_bounds=True, missing_dunders=(), pow_grad="pow_first", linspace_step="dtype",
             minmax_nan="propagate", layer_mode_returns_self=True, layer_astype_casts=False,
             api3=True, quantile_float64=False, digamma_zero="inf", rank_int32=False,
             lu_info_1d=False, diff_pend_each=False,
             random_kernels="3", bf16_rounding="nearest_even", f16_rounding="nearest",
             group_norm_kernel="3", no_double_grad="3", leaky_relu_slope32=False, scale_bias32=False, to_tensor_copy_warning=True, deprecation_warnings=True, tensor_pickle=True, opt_state_holder=True, device_kinds=("gpu", "dcu", "xpu", "npu"),
             scalar_full_1d=("elementwise_pow:b:right", "floor_divide:bif:both"),
             log10_grad_ln10=2.3025850929940456, logit_eps32=False, inner_transpose_flag=True, trace_sorts_axes=False,
             complex_abs_grad="reciprocal", complex_divide="numpy")

PROFILES = {"2.2": P22, "2.6": P26, "3": P3}
ALIASES = {"2.2.1": "2.2", "2": "2.6", "2.6.2": "2.6", "3.3.1": "3", "3.3": "3", "3.0": "3"}
DEFAULT = "2.2"


def resolve(key: str) -> Profile:
    k = ALIASES.get(str(key).strip(), str(key).strip())
    if k not in PROFILES:
        raise ValueError(f"unknown Paddle profile {key!r}; choose one of {', '.join(PROFILES)}")
    return PROFILES[k]


class _Current:
    __slots__ = ("profile",)

    def __init__(self):
        self.profile = resolve(os.environ.get("GRADREPL_PADDLE", DEFAULT))


CURRENT = _Current()


def current() -> Profile:
    return CURRENT.profile


def set_profile(key) -> Profile:
    CURRENT.profile = key if isinstance(key, Profile) else resolve(key)
    return CURRENT.profile
