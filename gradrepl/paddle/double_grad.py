"""Ops whose gradient real Paddle cannot differentiate again.

``paddle.grad(..., create_graph=True)`` fails in real Paddle when the backward reaches the grad
node of such an op (at that ``grad`` call, not at a later backward): its generated node throws
``RuntimeError: (Unavailable) The Op <op>_grad doesn't have any grad op ...`` naming the line
of ``nodes.cc`` that throws. The table holds that line for Paddle 3.3.1 and 2.6.2 (None: that
version differentiates it, or it was not measured); the profile picks the column
(``no_double_grad``); the same hook raises the errors of kernels that refuse in any backward
(a max pool's gradient of its gradient). Measured with ``paddle.grad(f(x).sum(), x, create_graph=True)`` and
``tanh(f(x)).sum()`` for ~160 calls on both versions. The engine asks ``refusal(node)`` before
it runs each node of a create_graph backward.

A node is named by its engine op, except where Paddle runs an op that gradrepl composes from
several (``tag``: cross_entropy's mean_all, kron, interpolate) or names differently.
"""
from __future__ import annotations

import weakref

from . import profiles

# Paddle op: (line in 3.3.1's nodes.cc, line in 2.6.2's), None where it has a double grad
NO_DOUBLE_GRAD = {
    "acos": (None, 372), "acosh": (1082, 496), "addmm": (1422, 627), "amax": (1963, 31667),
    "amin": (2129, 31786), "argsort": (2454, 977), "asin": (3069, 1416), "asinh": (3240, 1540),
    "atan2": (3741, 1783), "atan": (3573, 1664), "atanh": (3918, 1913),
    "bilinear_interp": (5070, 2485), "bmm": (None, 2613), "cosh": (11122, 5252),
    "cumprod": (12424, 5974), "cumsum": (12607, 6106), "diag": (14333, 6660),
    "depthwise_conv2d_transpose": (13805, 33456),
    "digamma": (14648, 6881), "dot": (15146, 7133), "dropout": (15329, 34051),
    "einsum": (73444, 34177), "elementwise_pow": (73633, 34315), "embedding": (73803, 34438),
    "erf": (16732, 7926), "erfinv": (16890, 8037), "exp": (None, 8177), "expm1": (17972, 8662),
    "flatten": (21450, 9820), "floor": (21775, 10057), "fmax": (21942, 10175),
    "frobenius_norm": (None, 34760), "gather": (None, 10662), "gelu": (25317, 11047),
    "group_norm": (26056, 11360), "hardshrink": (26890, 11618), "hardsigmoid": (27063, 11744),
    "hardswish": (74176, 35357), "hardtanh": (27236, 11870), "huber_loss": (27972, 12111),
    "index_select": (None, 13177), "kldiv_loss": (32759, 13915), "kron": (32930, 14037),
    "kthvalue": (33099, 14159), "layer_norm": (33622, 14428), "lerp": (34213, 14870),
    "lgamma": (34381, 14991), "log10": (35623, 15574), "log1p": (35794, 15698),
    "log2": (35965, 15822), "log_softmax": (36286, 16049), "logcumsumexp": (36450, 16166),
    "logit": (36610, 16279), "logsigmoid": (36781, 16403), "logsumexp": (36944, 35656),
    "masked_select": (None, 16947), "max": (39444, 36116),
    "max_pool2d_with_index": (39615, 17185), "maximum": (None, 36256),
    "mean_all": (40604, 17536), "median": (40771, None), "min": (75198, 36612),
    "minimum": (None, 36750), "mish": (41549, 36883), "mode": (41711, 17979),
    "mv": (43687, 18346), "nearest_interp": (44213, 18611), "nll_loss": (44396, 18747),
    "p_norm": (44912, None), "pixel_shuffle": (46095, 19337), "prelu": (47930, 20247),
    "prod": (48117, 37785), "reciprocal": (49753, 20883), "relu6": (50477, 21297),
    "remainder": (75779, None), "roll": (52781, 21906), "round": (52948, 22028),
    "rrelu": (53105, 38614), "scatter": (53849, 22554), "selu": (54391, 22951),
    "sinh": (58118, 25117), "softmax": (76113, 39233), "softshrink": (59375, 25651),
    "softsign": (59546, 25775), "stack": (None, 27116), "stanh": (62226, 27227), "strided_slice": (62720, 39556),
    "swish": (63779, 40277), "take_along_axis": (None, 27498), "tan": (64295, 27625),
    "tanh_shrink": (65171, 28291), "thresholded_relu": (65494, 28633), "topk": (65676, 28766),
    "trace": (65840, 28883), "tril": (66663, 40978), "unfold": (67457, 29487),
    "where": (None, 30827),
    # a gradient op whose double-grad op has no grad op (relu_double_grad ...): a create_graph
    # backward reaching its node refuses (paddle.autograd.hessian of relu, softplus, elu)
    "relu_grad": (50306, 21173), "elu_grad": (16240, 7795), "softplus_grad": (59197, 25520),
    "sqrt_grad": (60816, 26337), "square_grad": (61207, 26628), "rsqrt_grad": (53514, 22311),
}
_COLUMN = {"3": 0, "2.6": 1}

# engine op name -> Paddle's, where they differ
ENGINE_NAMES = {"fused_einsum": "einsum", "fused_addmm": "addmm"}

_TAGS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

_TEXT = {
    0: ("(Unavailable) The Op {op}_grad doesn't have any grad op. If you don't intend "
        "calculating higher order derivatives, please set `create_graph`to False."),
    1: ("(Unavailable) The Op {op}_grad doesn't have any gradop. If you don't intend "
        "calculating higher orderderivatives, please set `create_graph`to False."),
}
_WHERE = " (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:{})\n"


def tag(tensor, op_name):
    """Name the node that made ``tensor`` as Paddle's op ``op_name`` (an op gradrepl composes
    from several engine ops, or names otherwise); returns ``tensor``."""
    edge = tensor.gradient_edge() if not tensor.stop_gradient else None
    if edge is not None:
        _TAGS[edge[0]] = op_name
    return tensor


def paddle_op(node):
    """The Paddle op a node stands for."""
    name = _TAGS.get(node)
    if name is not None:
        return name
    op = getattr(node, "op", None)
    if op is None:
        return None
    return ENGINE_NAMES.get(op.name, op.name)


def _no_double_grad(node, col):
    name = paddle_op(node)
    entry = NO_DOUBLE_GRAD.get(name)
    if entry is None or entry[col] is None:
        return None
    op = name[:-len("_grad")] + "_double" if name.endswith("_grad") else name  # its grad op
    return RuntimeError(_TEXT[col].format(op=op) + _WHERE.format(entry[col]))


def _max_pool_grad_grad(node, col):
    """Backward through a max pool's gradient: Paddle's pool2d_double_grad kernel refuses."""
    if node.attrs.get("pooling_type") != "max":
        return None
    line = (315, 237)[col]
    return ValueError("(InvalidArgument) Pool op grad grad only supports avgpool. (at "
                      f"/paddle/paddle/phi/kernels/impl/pool_grad_kernel_impl.h:{line})\n")


def _cos_grad_grad(node, col):
    """Backward through cos's gradient where the incoming gradient (dout) takes none: 2.6.2's
    CosDoubleGradFunctor reads its d2d1y output under the wrong guard (``if (dX)``) and
    refuses; 3.3.1 checks ``if (ddOut)``. (Measured: hessian(sum(cos(x)), x), mean, cos(2x).)"""
    if col != 1 or node.edges[2] is not None or node.edges[0] is None:
        return None
    return RuntimeError(
        "(NotFound) Unable to get phi::DenseTensor data of Output d2d1y in operator "
        "CosDoubleGrad. Possible reasons are:\n  1. The d2d1y is not the Output of operator "
        "CosDoubleGrad;\n  2. The d2d1y has no corresponding variable passed in;\n  3. The "
        "d2d1y corresponding variable is not initialized.\n  [Hint: pointer ddOut should not "
        "be null.] (at /paddle/paddle/phi/kernels/funcs/activation_functor.h:405)\n")


def _instance_norm_without_x_grad(node, col):
    """Backward through an instance norm whose input takes no gradient: Paddle's
    InstanceNormGradInferMeta refuses a null X@GRAD (measured: InstanceNorm2D on data, its scale
    and bias trained; both versions, their own hint and line)."""
    if node.edges[0] is not None:
        return None
    hint, line = (("x_grad:0 == nullptr:nullptr", 1017), ("x_grad == nullptr", 535))[col]
    return ValueError(
        "(InvalidArgument) The X@GRAD in InstanceNormGradInferMeta can't be nullptr.\n  [Hint: "
        f"Expected x_grad != nullptr, but received {hint}.] (at "
        f"/paddle/paddle/phi/infermeta/backward.cc:{line})\n")


# engine op -> check of a node that real Paddle's kernel refuses in any backward
_KERNEL_REFUSALS = {"pool2d_grad": _max_pool_grad_grad, "cos_grad": _cos_grad_grad,
                    "instance_norm": _instance_norm_without_x_grad}


def refusal(node, create_graph=True):
    """The error real Paddle raises when a backward reaches ``node`` (``create_graph``: one
    that records the gradient's own graph), or None."""
    col = _COLUMN.get(profiles.current().no_double_grad)
    if col is None:
        return None
    op = getattr(node, "op", None)
    check = _KERNEL_REFUSALS.get(op.name) if op is not None else None
    if check is not None:
        refused = check(node, col)
        if refused is not None:
            return _logged(node, refused)
    return _logged(node, _no_double_grad(node, col)) if create_graph else None


def _logged(node, refused):
    """``refused``, after the glog line real Paddle 3.3.1 writes when a grad node raises
    (``While running Node (CumsumGradNode) raises an EnforceNotMet exception``, measured)."""
    if refused is not None:
        from . import glog
        from .core import GradNodeBase

        glog.node_failed(GradNodeBase(node).name())
    return refused


def _saved():
    global _SAVED
    if _SAVED is None:   # (once: an import statement costs ~10k instructions a call, a node)
        from . import saved

        _SAVED = saved
    return _SAVED


_SAVED = None


def refuser(create_graph):
    """The engine's ``refuse`` hook for a backward with or without ``create_graph``: the saved
    tensors' in-place check by Paddle's rules (``saved.check``), then ``refusal``. Made for the
    profile in force when the backward starts (one backward runs under one profile), so a node
    asks no profile and, without ``create_graph``, only the kernels that refuse in any backward
    (a call instead of the seven a node this took)."""
    profile = profiles.current()
    check = _saved().checker(profile)
    if create_graph:
        def refuse(node):
            return check(node) or refusal(node, True)
    else:
        col = _COLUMN.get(profile.no_double_grad)
        kernels = _KERNEL_REFUSALS if col is not None else {}

        def refuse(node):
            err = check(node)
            if err is None:
                kernel = kernels.get(node.op.name)
                if kernel is not None:
                    return _logged(node, kernel(node, col))
            return err
    # it checks the saved tensors' in-place versions by Paddle's rules (``saved.py``) in place
    # of the engine's check
    refuse.checks_versions = True
    return refuse


def composes(op_name):
    """Decorator: the API function is Paddle's one op ``op_name``, composed here of several
    engine ops; its result's node is tagged with that name (the first of a tuple)."""
    import functools

    def deco(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            out = fn(*args, **kwargs)
            first = out[0] if isinstance(out, (tuple, list)) and out else out
            if hasattr(first, "gradient_edge"):
                tag(first, op_name)
            return out

        return run

    return deco
