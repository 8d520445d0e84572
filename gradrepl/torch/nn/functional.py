"""``torch.nn.functional``: activations, losses, ``linear``, ``dropout``, ``one_hot``, ``pad``,
``embedding``, ``normalize`` (one backward node per call where torch makes one: ``linear`` is
AddmmBackward0, ``mse_loss`` MseLossBackward0, ``cross_entropy`` NllLossBackward0 over
LogSoftmaxBackward0)."""
from __future__ import annotations

from .. import _bfloat16 as _bf16  # (torch.autocast's state)

import warnings

import numpy as np

from ...engine import grad_mode
from ...engine.ops import fused  # noqa: F401  (registers the fused ops)
from ...engine.registry import apply
from .. import _arg_parser, _dtypes, _ops, _random, libwarn
from .._base import EngineTensor, raw
from .._ops import top
from .._tensor import Tensor, _dim
from . import _embedding as _EMB
from . import _mse_grad
from . import _softmax_ops as _SMX

_wrap = Tensor._wrap
_STATE = grad_mode.STATE


def _float(x):
    if raw(x).dtype.kind not in "fc" and raw(x).dtype != np.uint16:  # (uint16: bfloat16)
        return _wrap(raw(x).astype(_dtypes.default_float()), True)
    return x


# ------------------------------------------------------------------------------ activations
def relu(input, inplace=False):  # noqa: A002
    if inplace:
        return input.relu_()
    return _ops.relu(input)


def relu_(input):  # noqa: A002
    return input.relu_()


def sigmoid(input):  # noqa: A002
    return _ops.sigmoid(input)


def tanh(input):  # noqa: A002
    return _ops.tanh(input)


def _act(base, name, saves="in0", torch_kernels=False):
    op = top(base, name, saves)
    if torch_kernels:  # torch's float32 kernels and backward (``_act_kernels`` and more)
        from .. import _act_kernels, _activation_kernels

        more = base in _activation_kernels.BASES
        (_activation_kernels if more else _act_kernels).wire(op, base)

    def f(input, **attrs):  # noqa: A002
        return apply(op, (_float(input),), attrs or None)

    return f


_leaky = _act("leaky_relu", "LeakyReluBackward0")
_elu = _act("elu", "EluBackward0", "out", torch_kernels=True)
_silu = _act("silu", "SiluBackward0", torch_kernels=True)
_softplus = _act("softplus", "SoftplusBackward0", torch_kernels=True)
_hardtanh = _act("hardtanh", "HardtanhBackward0", torch_kernels=True)
_relu6 = _act("relu6", "HardtanhBackward0", torch_kernels=True)
_logsigmoid = _act("logsigmoid", "LogSigmoidBackward0", torch_kernels=True)
_softsign = _act("softsign", "SoftsignBackward0")
_selu = _act("selu", "EluBackward0", "out", torch_kernels=True)
_mish = _act("mish", "MishBackward0", torch_kernels=True)
_hardswish = _act("hardswish", "HardswishBackward0", torch_kernels=True)
_hardsigmoid = _act("hardsigmoid", "HardsigmoidBackward0", torch_kernels=True)


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    if inplace:
        return __getattr__("leaky_relu_")(input, negative_slope)
    return _leaky(input, negative_slope=float(negative_slope))


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    if inplace:
        return __getattr__("elu_")(input, alpha)
    return _elu(input, alpha=float(alpha))


def selu(input, inplace=False):  # noqa: A002
    if inplace:
        return __getattr__("selu_")(input)
    return _selu(input)


def _in_place(input, fn, **kw):  # noqa: A002
    """``F.x(input, inplace=True)``: the op written into ``input`` (torch's ``x_``: one
    version more, the op's own node, a leaf that requires grad refused)."""
    from .._inplace import inplace

    return inplace(input, lambda old: fn(old, **kw))


def silu(input, inplace=False):  # noqa: A002
    if inplace:
        return _in_place(input, _silu)
    return _silu(input)


def mish(input, inplace=False):  # noqa: A002
    if inplace:
        return _in_place(input, _mish)
    return _mish(input)


def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    return _softplus(input, beta=float(beta), threshold=float(threshold))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    if inplace:
        return __getattr__("hardtanh_")(input, min_val, max_val)
    return _hardtanh(input, t_min=float(min_val), t_max=float(max_val))


def relu6(input, inplace=False):  # noqa: A002
    if inplace:
        return _in_place(input, _relu6)
    return _relu6(input)


def logsigmoid(input):  # noqa: A002
    return _logsigmoid(input)


def softsign(input):  # noqa: A002
    # torch's Python softsign: input / (input.abs() + 1) (grad_fn DivBackward0; its gradient
    # the sum of div's and abs's, as torch's autograd sums them)
    return _ops.div(input, _ops.add(_ops.abs(input), 1))


def hardswish(input, inplace=False):  # noqa: A002
    if inplace:
        return _in_place(input, _hardswish)
    return _hardswish(input)


def hardsigmoid(input, inplace=False):  # noqa: A002
    if inplace:
        return _in_place(input, _hardsigmoid, slope=1 / 6, offset=0.5)
    return _hardsigmoid(input, slope=1 / 6, offset=0.5)


def _act_kernels_apply():
    from .. import _capability

    return _capability.capability() != "DEFAULT"


def _torch_gelu_fwd(x, approximate=False):
    """torch's GELU kernels (oneDNN's or ATen's, ``_gelu_kernels``) where they apply, else the
    engine's."""
    from .. import _gelu_kernels
    from ...engine.ops import nn as _EN

    if _gelu_kernels.applies(x, approximate):
        return _gelu_kernels.forward(x)
    if approximate and x.dtype == np.float32 and _act_kernels_apply():
        from .. import _act_kernels  # the tanh form: ATen's GeluKernel (SLEEF tanhf)

        return _act_kernels.gelu_tanh_fwd(x)
    if approximate and x.dtype == np.float64 and _act_kernels_apply():
        from .. import _sigmoid64   # the double kernel

        return _sigmoid64.gelu_tanh(x)
    return _EN._gelu_fwd(x, approximate=approximate)


def _torch_gelu_grad_fwd(x, dout, approximate=False):
    from .. import _gelu_kernels
    from ...engine.ops import nn as _EN

    if _gelu_kernels.applies(x, approximate):
        out = _gelu_kernels.backward(x, dout)
        if out is not None:
            return out
    if approximate and x.dtype == dout.dtype == np.float32 and _act_kernels_apply():
        from .. import _act_kernels

        return _act_kernels.gelu_tanh_bwd(dout, x)
    if approximate and x.dtype == dout.dtype == np.float64 and _act_kernels_apply():
        from .. import _sigmoid64   # the double kernel

        return _sigmoid64.gelu_tanh_backward(dout, x)
    return _EN._gelu_grad_fwd(x, dout, approximate=approximate)


def _gelu_ops():
    fwd = top("gelu", "GeluBackward0", "in0", forward=_torch_gelu_fwd)
    if not getattr(fwd, "torch_gelu_grad", None):
        grad = top("gelu_grad", "GeluBackwardBackward0", "all", forward=_torch_gelu_grad_fwd)
        fwd.vjp = lambda n, g: apply(grad, (n.inputs[0], g),
                                     {"approximate": n.attrs.get("approximate", False)})
        fwd.torch_gelu_grad = grad
    return fwd


def gelu(input, approximate="none"):  # noqa: A002
    return apply(_gelu_ops(), (_float(input),), {"approximate": approximate == "tanh"})


def _softmax_dim(name, ndim, stacklevel=3):
    """torch's ``_get_softmax_dim``: warns from the caller of ``F.<name>`` (``_stacklevel`` 3)
    or, inside a module's forward (5), from torch's ``Module.__call__`` line (``libwarn``)."""
    message = (f"Implicit dimension choice for {name} has been deprecated. Change the call to "
               "include dim=X as an argument.")
    if stacklevel == 5:
        from .. import libwarn

        libwarn.warn("module_call", message)
    else:
        from ._backward_hooks import _warn_at_user_frame

        _warn_at_user_frame(message)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_input(name, input, dim, stacklevel, dtype):  # noqa: A002
    """The input (converted to ``dtype`` first) and the dim; an integer or bool input is ATen's
    NotImplementedError of the kernel it would run (the last dim's or the general one)."""
    x = input if isinstance(input, EngineTensor) else _wrap(np.asarray(input), True)
    if dtype is not None:
        x = _ops.to_dtype(x, _dtypes.to_np(dtype))
    a = raw(x)
    d = _softmax_dim(name, a.ndim, stacklevel) if dim is None else _dim(dim, a.ndim)
    if a.dtype.kind not in "fc" and a.dtype != np.uint16:   # (uint16: bfloat16)
        kernel = "lastdim_kernel_impl" if d == max(a.ndim - 1, 0) else "kernel_impl"
        raise NotImplementedError(f"\"{name}_{kernel}\" not implemented for "
                                  f"'{_dtypes.from_np(a.dtype).legacy}'")
    return x, d


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    x, d = _softmax_input("softmax", input, dim, _stacklevel, dtype)
    return apply(_SMX.SOFTMAX, (x,), {"axis": d})


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    x, d = _softmax_input("log_softmax", input, dim, _stacklevel, dtype)
    return apply(_SMX.LOG_SOFTMAX, (x,), {"axis": d})


def softmin(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    if dim is None:
        dim = _softmax_dim("softmin", raw(input).ndim, _stacklevel)
    return softmax(_ops.neg(input), dim, dtype=dtype)


# ------------------------------------------------------------------------------ linear & co
def linear(input, weight, bias=None):  # noqa: A002
    if _bf16.AUTOCAST[0] is not None:
        input, weight, bias = _bf16.lower(input, weight, bias)  # noqa: A001
    a = raw(input)
    wt = _ops.t(weight)
    if bias is None:
        return _ops.matmul(input, wt)
    if a.ndim == 2:
        return _ops.addmm(bias, input, wt)
    if a.ndim == 1:
        x2 = _ops.view(input, (1, a.shape[0]))
        out = _ops.mm(x2, wt) if bias is None else _ops.addmm(bias, x2, wt)
        return _ops.view(out, (raw(out).shape[1],))
    if not input.is_contiguous():
        # ATen's linear flattens only a contiguous input; any other is matmul, then bias added
        return _ops.add(_ops.matmul(input, wt), bias)
    k = a.shape[-1]
    x2 = _ops.reshape(input, (-1, k))
    out = _ops.mm(x2, wt) if bias is None else _ops.addmm(bias, x2, wt)
    return _ops.view(out, a.shape[:-1] + (raw(out).shape[1],))


def bilinear(input1, input2, weight, bias=None):
    out = _ops._einsum_graph("bi,oij,bj->bo", (input1, weight, input2))  # (not _trilinear yet)
    return out if bias is None else _ops.add(out, bias)


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    a = raw(input)
    if p == 1.0:
        mask = np.zeros(a.shape, a.dtype)
    else:
        u = _random.uniform_like(a)  # in the input's memory order, as torch's empty_like noise
        mask = ((u < 1 - p).astype(a.dtype) / np.asarray(1 - p, a.dtype)).astype(a.dtype)
    return apply(top("multiply", "MulBackward0", "cross"), (input, _wrap(mask, True)))


def one_hot(tensor, num_classes=-1):
    a = raw(tensor)
    if a.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    n = int(a.max()) + 1 if num_classes == -1 else num_classes
    if a.size and (a.min() < 0 or a.max() >= n):
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _wrap(np.eye(n, dtype=np.int64)[a], True)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False, sparse=False):
    """ATen's embedding: padding row read as stored, max_norm renorm, scale_grad_by_freq
    (``_embedding.py``)."""
    return _EMB.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq,
                      sparse)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002
    n = _ops.norm(input, p, dim, keepdim=True)
    return _ops.div(input, _ops.expand_as(_ops.clamp_min(n, eps), input))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """torch's: each input divided by its norm (kept dim; clamped at eps), then the product
    summed over ``dim``."""
    def unit(x):
        n = _ops.clone(_ops.norm(x, 2, dim, keepdim=True))
        arr = raw(n)
        if (arr < eps).any():
            arr[...] = np.maximum(arr, eps)
        return _ops.div(x, n)

    return _ops.sum(_ops.mul(unit(x1), unit(x2)), dim)


# ------------------------------------------------------------------------------ losses
def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    from .. import libwarn

    return libwarn.legacy_reduction(size_average, reduce)


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


# the loss modules whose forward calls the functional (torch warns from that line: loss.py)
_SIZE_SITES = {"MSELoss.forward": "mse_forward", "L1Loss.forward": "l1_forward",
               "SmoothL1Loss.forward": "smooth_l1_forward", "HuberLoss.forward": "huber_forward"}


def _size_message(input, target):  # noqa: A002
    """torch's ``warnings.warn(..., stacklevel=2)`` in F.mse_loss/l1_loss/smooth_l1_loss/
    huber_loss, shown by the loss itself with ``libwarn.warn_from_caller`` (the caller's line,
    or loss.py's for a loss module's forward)."""
    return (f"Using a target size ({_sz(target)}) that is different to the input size "
            f"({_sz(input)}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.")


def _sz(t):
    from .._base import Size

    return Size(raw(t).shape)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean",  # noqa: A002
             weight=None):
    if _bf16.AUTOCAST[0] is not None:
        input, target = _bf16.fp32(input, target)  # noqa: A001
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if raw(input).shape != raw(target).shape:
        libwarn.warn_from_caller(_size_message(input, target), _SIZE_SITES)
    _ops._check_broadcast(input, target)
    dt = _dtypes.result_type(input, target)
    x, y = _ops._operand(input, dt), _ops._operand(target, dt)
    op = top("fused_mse_loss", "MseLossBackward0", "all", forward=_mse_fwd)
    op.vjp = _mse_grad.mse_loss_vjp   # (torch's MseLossBackwardBackward0 under create_graph)
    return apply(op, (x, y), {"reduction": reduction})


def _torch_reduced(fwd):
    """A fused loss's forward with its sum taken in torch's order (``_kernels``)."""
    def run(x, y, reduction="mean", **kw):
        per = fwd(x, y, reduction="none", **kw)
        if reduction == "none":
            return per
        total = _ops._torch_order_sum(per, tuple(range(per.ndim)), False)
        if total is None:
            total = np.sum(per, dtype=per.dtype)
        if reduction == "mean":
            total = total / np.asarray(max(per.size, 1), per.dtype)
        return np.asarray(total, dtype=per.dtype)
    return run


def _mse_fwd(x, y, reduction="mean"):
    """(x - y)^2, reduced in torch's summation order (the loss laid out as TensorIterator lays
    out a binary op's result: x.t()'s layout for x.t(), summed in that memory order)."""
    from .._storage import like_layout

    d = x - y
    sq = d * d
    if not x.flags.c_contiguous and 0 not in x.strides:
        sq = like_layout(x, sq)
    if reduction == "none":
        return sq
    total = _ops._torch_order_sum(sq, tuple(range(sq.ndim)), False)
    if total is None:
        total = np.sum(sq, dtype=sq.dtype)
    if reduction == "mean":
        total = total / np.asarray(max(sq.size, 1), sq.dtype)
    return np.asarray(total, dtype=sq.dtype)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean",  # noqa: A002
            weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if raw(input).shape != raw(target).shape:
        libwarn.warn_from_caller(_size_message(input, target), _SIZE_SITES)
    _ops._check_broadcast(input, target)
    d = _ops.abs(_ops.sub(input, target))
    if reduction == "none":
        return d
    return _ops.mean(d) if reduction == "mean" else _ops.sum(d)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean",  # noqa: A002
                   beta=1.0):
    reduction = _reduction(size_average, reduce, reduction)
    if raw(input).shape != raw(target).shape:
        libwarn.warn_from_caller(_size_message(input, target), _SIZE_SITES)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    dt = _dtypes.result_type(input, target)   # (ATen's TensorIterator: float32 and float64
    x, y = _ops._operand(input, dt), _ops._operand(target, dt)   # targets -> a float64 loss)
    return apply(top("fused_huberish_loss", "SmoothL1LossBackward0", "all",
                     forward=_HUBER_FWD), (x, y),
                 {"delta": float(beta), "reduction": reduction, "smooth_l1": True})


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):  # noqa: A002
    if raw(input).shape != raw(target).shape:
        libwarn.warn_from_caller(_size_message(input, target), _SIZE_SITES)
    return apply(top("fused_huberish_loss", "HuberLossBackward0", "all",
                     forward=_HUBER_FWD), (input, target),
                 {"delta": float(delta), "reduction": reduction, "smooth_l1": False})


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100,  # noqa: A002
             reduce=None, reduction="mean"):
    if _bf16.AUTOCAST[0] is not None:
        input, weight = _bf16.fp32(input, weight)  # noqa: A001
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _arg_parser.check("nll_loss_nd", "ignore_index", 5, ignore_index, "int")
    a = raw(input)
    t = raw(target) if isinstance(target, EngineTensor) else np.asarray(target)
    _nll_checks(a, t, weight)
    if a.ndim == 1 and t.ndim == 1:   # (a target of one class for one sample)
        t = t.reshape(())
    classes = a.shape[0] if a.ndim == 1 else a.shape[1]
    if t.size and not (0 <= t.min() and t.max() < classes):   # (else no target is out)
        valid = t != ignore_index
        bad = valid & ((t < 0) | (t >= classes))
        if bad.any():
            raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    wdt = a.dtype if a.dtype != _bf16.BITS else np.dtype(np.float32)  # (bf16: its values)
    w = _bf16.values(raw(weight)) if weight is not None else np.ones(classes, wdt)
    out = apply(_SMX.NLL if a.ndim < 3 else _nll2d(), (input,),
                # (the target's own array when it is int64: vmap's trace follows it by identity)
                {"target": t.astype(np.int64, copy=False), "weight": w.astype(wdt),
                 "ignore_index": int(ignore_index), "reduction": reduction})
    if a.ndim in (3,) or a.ndim > 4:  # torch: as (N, C, 1, -1) through nll_loss2d, viewed back
        return out if reduction != "none" else _ops.view(out, raw(out).shape)
    return out


def _legacy(a):   # torch's scalar type name: Long, Int, Bool, Float ...
    return _dtypes.from_np(a.dtype).legacy


def _nll_target_dtype(t):
    if t.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_legacy(t)}")


def _nll_checks(a, t, weight):
    """ATen's checks in its order: nll_loss_nd (dims, batch sizes, a 3-D or 5-D+ input's target
    size), then nll_loss's (a 1-D or 2-D input) or nll_loss2d's (4-D, or viewed as 4-D), then the
    kernel's (the input's dtype). ``F.cross_entropy`` with a float target of another shape
    than the input's, int32 targets, 2-D targets: torch's errors, not numpy's."""
    if a.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {a.ndim})")
    if a.ndim != 1 and (t.shape[0] if t.ndim else 1) != a.shape[0]:
        raise ValueError(f"Expected input batch_size ({a.shape[0]}) to match target "
                         f"batch_size ({t.shape[0] if t.ndim else 1}).")
    if a.ndim <= 2:
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if a.ndim == 1 and t.ndim == 1 and t.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{t.shape[0]}")
        _nll_target_dtype(t)
        classes = a.shape[-1]
        w = None if weight is None else raw(weight)
        if w is not None and (w.ndim != 1 or w.size != classes):
            raise RuntimeError(f"weight tensor should be defined either for all {classes} classes "
                               f"or no classes but got weight tensor of shape: {list(w.shape)}")
        kernel = "nll_loss_out_frame"
    else:
        if a.ndim != 4 and t.shape[1:] != a.shape[2:]:
            raise RuntimeError(f"Expected target size {[a.shape[0], *a.shape[2:]]}, got "
                               f"{list(t.shape)}")
        if a.ndim == 4 and t.ndim != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {t.ndim}")
        _nll_target_dtype(t)
        if a.ndim == 4 and t.shape != (a.shape[0],) + a.shape[2:]:
            raise RuntimeError(f"size mismatch (got input: {list(a.shape)} , target: "
                               f"{list(t.shape)}")
        if t.dtype != np.int64:
            raise RuntimeError(f"expected scalar type Long but found {_legacy(t)}")
        kernel = "nll_loss2d_forward_out_frame"
    if a.dtype.kind not in "fc" and a.dtype != np.uint16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_legacy(a)}'")


def _nll2d():
    """torch's node for an input of 3 or more dims (``nll_loss2d``): NllLoss2DBackward0."""
    import copy

    op = _NLL2D.get("op")
    if op is None:
        op = _NLL2D["op"] = copy.copy(_SMX.NLL)
        op.torch_name = "NllLoss2DBackward0"
    return op


_NLL2D: dict = {}


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,  # noqa: A002
                  reduce=None, reduction="mean", label_smoothing=0.0):
    if _bf16.AUTOCAST[0] is not None:
        input, target, weight = _bf16.fp32(input, target, weight)  # noqa: A001
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _arg_parser.check("cross_entropy_loss", "ignore_index", 5, ignore_index, "int")
    _arg_parser.check("cross_entropy_loss", "label_smoothing", 6, label_smoothing, "float")
    a = raw(input)
    t = raw(target) if isinstance(target, EngineTensor) else np.asarray(target)
    soft = a.shape == t.shape   # ATen: class probabilities when the sizes are the input's
    if soft and (t.dtype.kind != "f" and t.dtype != np.uint16):   # (uint16: bfloat16)
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {_legacy(t)}")
    if soft and ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    label_smoothing = max(label_smoothing, 0.0)   # (ATen smooths only for a positive value)
    class_dim = 0 if a.ndim == 1 else 1
    logp = log_softmax(input, class_dim)
    n_cls = a.shape[class_dim]
    if soft:  # class probabilities
        if label_smoothing:
            target = _ops.add(_ops.mul(target, 1 - label_smoothing), label_smoothing / n_cls)
        prod_ = _ops.mul(logp, target)
        if weight is not None:
            shape = [1] * a.ndim
            shape[class_dim] = n_cls
            prod_ = _ops.mul(prod_, _ops.view(weight, tuple(shape)))
        if reduction == "none":
            return _ops.neg(_ops.sum(prod_, class_dim))
        total = _ops.neg(_ops.sum(prod_))
        if reduction == "sum":
            return total
        return _div_scalar(total, a.size / n_cls)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    # torch: (1 - eps) * nll + eps / C * smooth, smooth = -sum of log-probabilities (weighted)
    per = logp if weight is None else _ops.mul(logp, _ops.view(
        weight, tuple(n_cls if k == class_dim else 1 for k in range(a.ndim))))
    smooth = _ops.neg(_ops.sum(per, class_dim))
    ignored = t == ignore_index
    smooth = _ops.masked_fill(smooth, _wrap(np.asarray(ignored), True), 0.0)
    if reduction == "mean":
        if weight is None:
            denom = float(np.sum(~ignored))
        else:   # weight.gather(0, target[~ignored]).sum(): torch's sum of the picked weights
            from .._kernels import torch_sum

            picked = np.ascontiguousarray(raw(weight)[t[~ignored]].reshape(-1))
            total = torch_sum(picked, (0,)) if picked.size else None
            denom = float(np.sum(picked)) if total is None else total
        smooth = _ops.div(_ops.sum(smooth), _wrap(np.asarray(denom, a.dtype), True))
    elif reduction == "sum":
        smooth = _ops.sum(smooth)
    return _ops.add(_mul_scalar(nll, 1 - label_smoothing),
                    _mul_scalar(smooth, label_smoothing / n_cls))


def _mul_scalar(t, v):
    """``t * v`` for a number as torch's C++ calls it: MulBackward1 (mul.Scalar)."""
    return apply(top("multiply", "MulBackward1", "none", inputs=(0,)),
                 (t, _ops.const(v, raw(t).dtype)))


def _div_scalar(t, v):
    """``t / v`` for a number as torch's C++ calls it: DivBackward1 (div.Scalar)."""
    return apply(top("divide", "DivBackward1", "none", inputs=(0,)),
                 (t, _ops.const(v, raw(t).dtype)))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                         reduction="mean"):
    if _bf16.AUTOCAST[0] is not None:
        input, target, weight = _bf16.fp32(input, target, weight)  # noqa: A001
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if raw(input).shape != raw(target).shape:
        raise ValueError(f"Using a target size ({_sz(target)}) that is different to the input "
                         f"size ({_sz(input)}) is deprecated. Please ensure they have the same "
                         "size.")
    a = raw(input)
    if raw(target).dtype != a.dtype:   # (ATen: the target in the input's dtype, as checked)
        raise RuntimeError(f"Found dtype {_legacy(raw(target))} but expected {_legacy(a)}")
    av = _bf16.values(a)   # (bfloat16's bits: the values)
    if (av < 0).any() or (av > 1).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    y = _ops._operand(target, a.dtype)
    w = None if weight is None else np.broadcast_to(raw(weight), a.shape).astype(a.dtype)
    op = top("fused_binary_cross_entropy", "BinaryCrossEntropyBackward0", "all",
             inputs=(0, 1), forward=_BCE_FWD)
    op.vjp, op.diff_inputs = _bce_vjp, None     # (the target takes a gradient too)
    return apply(op, (input, y), {"reduction": reduction, "weight": w})


def _bce_vjp(n, g):
    """torch's ``binary_cross_entropy_backward``: ``grad * (x - y) / max((1 - x) x, 1e-12)``,
    times the weight, and only then divided by the element count for 'mean' (the engine divides
    the gradient first: CS224n's tutorial drifted from its first Adam step)."""
    from ...engine.ops._util import const
    from ...engine.ops.broadcast import broadcast_to
    from ...engine.ops.math import divide, maximum, multiply, subtract
    from ...engine.ops.shape import reshape

    x, y = n.inputs
    red = n.attrs.get("reduction", "mean")
    xs = x.data
    shape = xs.shape
    gb = g
    if red != "none" and shape:
        gb = broadcast_to(reshape(g, (1,) * len(shape)), shape)
    one = const(gb, 1.0)   # (in xs's dtype: const converts, bfloat16 too)
    den = maximum(multiply(subtract(one, x), x), const(gb, 1e-12))
    d = divide(multiply(gb, subtract(x, y)), den)   # (den differentiable: torch's double
    #                                                   backward differentiates it too)
    w = n.attrs.get("weight")
    if w is not None:
        d = multiply(d, const(d, np.asarray(w, xs.dtype)))
    if red == "mean":
        d = divide(d, const(d, int(np.prod(shape)) if shape else 1))
    from .._loss_grads import bce_target_grad, dialect_fns   # (the target's: torch's too)

    return d, bce_target_grad(n, g, dialect_fns()[2])


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,  # noqa: A002
                                     reduce=None, reduction="mean", pos_weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if raw(input).shape != raw(target).shape:
        raise ValueError(f"Target size ({_sz(target)}) must be the same as input size "
                         f"({_sz(input)})")
    a = raw(input)
    _bcel_dtypes(a, raw(target))
    if (raw(target).dtype == np.float64 and a.dtype == np.float32 and weight is None
            and pos_weight is None):   # a numpy (float64) target: ATen's float64 loss
        op = top("fused_binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
                 "all", inputs=(0, 1), forward=_BCEL_F64_FWD)
        op.vjp, op.diff_inputs = _bcel_f64_vjp, None
        return apply(op, (input, target), {"reduction": reduction})
    y = _ops._operand(target, a.dtype)
    w = None if weight is None else np.broadcast_to(raw(weight), a.shape).astype(a.dtype)
    pw = None if pos_weight is None else np.broadcast_to(raw(pos_weight), a.shape).astype(a.dtype)
    op = top("fused_binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
             "all", inputs=(0, 1), forward=_BCEL_FWD)
    op.vjp, op.diff_inputs = _bcel_vjp, None   # (the target takes a gradient too)
    return apply(op, (input, y), {"reduction": reduction, "weight": w, "pos_weight": pw})


def _bcel_dtypes(a, t):
    """ATen's ``(1 - target).mul_(input)`` after ``log_sigmoid(input)``: an integer input has no
    log_sigmoid kernel, a bool target no ``1 - target``, an integer target cannot hold the
    float product."""
    if a.dtype.kind not in "fc" and a.dtype != np.uint16:
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{_legacy(a)}'")
    if t.dtype == np.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if t.dtype.kind in "iu" and t.dtype != np.uint16:
        raise RuntimeError(f"result type {_legacy(a)} can't be cast to the desired output type "
                           f"{_legacy(t)}")


def _bcel_vjp(n, g):
    """torch's backward: input.sigmoid().sub(target) with torch's own sigmoid kernel (the
    engine's sigmoid differs in the last bit: d2l's GAN drifted from its first step)."""
    from .._loss_grads import bce_logits_vjp, dialect_fns

    sigmoid, log_sigmoid, _ = dialect_fns()
    return bce_logits_vjp(n, g, sigmoid, log_sigmoid)


from ...engine.ops import fused as _fused  # noqa: E402



def _bce_losses(x, y, reduction="none", weight=None):
    """torch's binary_cross_entropy kernel, element by element: ``(y - 1) * max(log1p(-x), -100)
    - y * max(log(x), -100)`` with the C library's ``log1pf``/``logf`` for float32 (torch's
    ``cpu_kernel`` calls std::log; numpy's SIMD log differed in 2,053 of 20,000 values)."""
    if x.dtype != np.float32:
        return _fused._bce_fwd(x, y, reduction=reduction, weight=weight)
    from ...engine.ops import _kernels as K

    one, floor = np.float32(1), np.float32(-100)
    with np.errstate(divide="ignore", invalid="ignore"):
        lx = np.maximum(K.libm("log", np.log)(x), floor)
        l1x = np.maximum(K.libm("log1p", np.log1p)(-x), floor)
    losses = ((y - one) * l1x - y * lx).astype(np.float32)
    if weight is not None:
        losses = (losses * np.asarray(weight, np.float32)).astype(np.float32)
    return losses


_BCE_FWD = _torch_reduced(_bce_losses)
def _bcel_losses(x, y, reduction="none", weight=None, pos_weight=None):
    from .._elementwise_more import bce_with_logits_losses   # Loss.cpp's, torch's log_sigmoid

    out = bce_with_logits_losses(x, y, weight, pos_weight)
    if out is None:
        return _fused._bce_logits_fwd(x, y, reduction=reduction, weight=weight,
                                      pos_weight=pos_weight)
    return out


_BCEL_FWD = _torch_reduced(_bcel_losses)


def _bcel_f64_losses(x, y, reduction="none"):
    """ATen's ``(1 - target).mul_(input).sub_(log_sigmoid(input))`` for a float32 input and a
    float64 target: the log-sigmoid in float32 (torch's kernel), the rest in float64."""
    from .._activation_kernels import logsigmoid_fwd
    from .._capability import capability

    with np.errstate(all="ignore"):
        if capability() != "DEFAULT":
            ls = np.asarray(logsigmoid_fwd(np.ascontiguousarray(x)), np.float32).reshape(x.shape)
        else:   # (kernel not emulated: numpy's, in float32)
            ls = (np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))).astype(np.float32)
        return (1.0 - y) * x.astype(np.float64) - ls.astype(np.float64)


_BCEL_F64_FWD = _torch_reduced(_bcel_f64_losses)


def _bcel_f64_vjp(n, g):
    """ATen's backward: input ``(sigmoid(x) - y) * grad`` (torch's float32 sigmoid) in float64,
    rounded to float32, then divided by the element count for 'mean' (as torch 2.13's values
    are: 50 of 50 against 30 of 50 dividing in float64); the target's ``-x * grad`` the same
    way, then float64 (first order only)."""
    from ...engine.ops._util import const
    from .._loss_grads import dialect_fns

    x, y = n.inputs
    red = n.attrs.get("reduction", "mean")
    gd = np.asarray(g.data, np.float64)
    sig = np.asarray(dialect_fns()[0](x).data, np.float32)   # (torch's sigmoid kernel)
    with np.errstate(all="ignore"):
        dx = ((sig.astype(np.float64) - y.data) * gd).astype(np.float32)
        dy = (-x.data.astype(np.float64) * gd).astype(np.float32)
        if red == "mean" and x.data.size:   # (in float32, as measured on torch)
            dx, dy = dx / np.float32(x.data.size), dy / np.float32(x.data.size)
    return const(g, dx, np.float32), const(g, dy.astype(np.float64), np.float64)
_HUBER_FWD = _torch_reduced(_fused._huberish_fwd)  # (mean: sum / N, not sum * (1/N))


_KL_MEAN = ("reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.")


def kl_div(input, target, size_average=None, reduce=None, reduction="mean",  # noqa: A002
           log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    elif reduction == "mean":  # torch warns from its caller: the user's line or KLDivLoss's
        from .. import libwarn

        libwarn.warn_from_caller(_KL_MEAN, {"KLDivLoss.forward": "kldiv_forward"})
    if log_target:
        per = _ops.mul(_ops.exp(target), _ops.sub(target, input))
    else:
        # target * input first, as GCC evaluates ATen's ``xlogy(t, t) - t * input``: the
        # backward then runs xlogy's node first and the target's gradient sums as torch's
        ti = _ops.mul(target, input)
        from ...engine.ops import special_torch  # noqa: F401  (torch's xlogy op)

        xlogy = apply(top("torch_xlogy", "XlogyBackward0", "all"), (target, target))
        per = _ops.sub(xlogy, ti)
    if reduction == "none":
        return per
    if reduction == "sum":
        return _ops.sum(per)
    if reduction == "batchmean":
        return _ops.div(_ops.sum(per), raw(input).shape[0] if raw(input).ndim else 1)
    return _ops.mean(per)


def _conv_ops():
    try:
        from ...engine.ops import conv  # noqa: F401
    except ImportError as exc:  # pragma: no cover
        raise NotImplementedError("convolutions need gradrepl's conv ops") from exc
    return conv


_DROPOUT2D_3D = (
    "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
    "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
    "This behavior will change in a future release to interpret the input as one without a batch "
    "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
    "switch to using dropout1d instead.")


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """torch 2.13's F.dropout2d: feature dropout over dims 0 and 1 of any input of 2+ dims (a
    2-D input drops single entries, a 3-D one whole rows of (N, C, L)), with torch's warnings
    for inputs not 4-D (raised with stacklevel=2: Dropout2d.forward's line in torch)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    from .. import libwarn
    from ._misc_more import _dropout_impl

    nd = raw(input).ndim
    sites = {"Dropout2d.forward": "dropout2d_forward"}
    if nd not in (3, 4):
        libwarn.warn_from_caller(
            f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).", sites)
    if nd == 3:
        libwarn.warn_from_caller(_DROPOUT2D_3D, sites)
    return _dropout_impl(input, p, training, True, False, inplace)


from ._spatial import (adaptive_avg_pool2d, avg_pool2d, batch_norm,  # noqa: E402,F401
                       conv2d, group_norm, instance_norm, layer_norm)
# (pad, max_pool1d/2d, avg_pool1d, adaptive_max_pool2d: _spatial_more's, via __getattr__)


def __getattr__(name):
    """The functional forms of the layer families beyond this module (``FUNCTIONAL`` of
    ``_spatial_more``, ``_recurrent``, ``_layers_more``), found when first asked for."""
    import importlib

    for family in ("_spatial_more", "_recurrent", "_layers_more"):
        fn = importlib.import_module(f"{__package__}.{family}").FUNCTIONAL.get(name)
        if fn is not None:
            globals()[name] = fn
            return fn
    raise AttributeError(f"module 'torch.nn.functional' has no attribute '{name}' "
                         f"(gradrepl's torch does not emulate torch.nn.functional.{name})")


from ..overrides import (handle_torch_function, has_torch_function,  # noqa: E402,F401
                         has_torch_function_unary, has_torch_function_variadic)
