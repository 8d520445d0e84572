"""torch.nn normalisations beyond ``_layers``: BatchNorm3d, SyncBatchNorm (a BatchNorm on the
CPU), InstanceNorm1d/2d/3d, the Lazy forms (their ``cls_to_become`` taken at the first call),
GroupNorm, LocalResponseNorm, CrossMapLRN2d, RMSNorm; ``local_response_norm`` and
``rms_norm`` (torch's composites: the same ops in the same order)."""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtypes, _ops
from .._base import raw
from .._tensor import Tensor
from . import _more_common as C
from . import _spatial as S
from ._layers import BatchNorm1d, BatchNorm2d, _BatchNorm
from .modules import Module, _materialize
from .parameter import Parameter, UninitializedParameter

_wrap = Tensor._wrap


def _np_dtype(dtype):
    return _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()


# ------------------------------------------------------------------------------ batch norms
class _BiasBatchNorm(_BatchNorm):
    """torch 2.13's ``bias=False``: an affine weight without a bias."""

    def _no_bias(self, bias):
        self._bias_on = bool(self.affine and bias)
        if self.affine and not bias:
            self.register_parameter("bias", None)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={getattr(self, '_bias_on', self.affine)}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm3d(_BiasBatchNorm):
    _dims = (5,)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self._no_bias(bias)


class SyncBatchNorm(_BiasBatchNorm):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self._no_bias(bias)
        self.process_group = process_group

    def _check_input_dim(self, input):  # noqa: A002
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        return module


# ------------------------------------------------------------------------------ instance norms
class _InstanceNorm(Module):
    _dims: tuple = ()
    _no_batch: int = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        dt = _np_dtype(dtype)
        if affine:
            self.weight = Parameter(_wrap(np.ones(num_features, dt)))
            self.bias = Parameter(_wrap(np.zeros(num_features, dt)))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _wrap(np.zeros(num_features, dt)))
            self.register_buffer("running_var", _wrap(np.ones(num_features, dt)))
            self.register_buffer("num_batches_tracked", _wrap(np.zeros((), np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def _check_input_dim(self, input):  # noqa: A002
        nd = input.dim()
        if nd not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input "
                             f"(got {nd}D input)")

    def _apply_instance_norm(self, input):  # noqa: A002
        return S.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):  # noqa: A002
        self._check_input_dim(input)
        fdim = input.dim() - self._no_batch
        size = raw(input).shape[fdim]
        if size != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={fdim} to match num_features "
                                 f"({self.num_features}), but got: {size}.")
            warnings.warn(f"input's size at dim={fdim} does not match num_features. You can "
                          "silence this warning by not passing in num_features, which is not "
                          "used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch:
            return _ops.squeeze(self._apply_instance_norm(_ops.unsqueeze(input, 0)), 0)
        return self._apply_instance_norm(input)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    _dims = (2, 3)
    _no_batch = 2


class InstanceNorm2d(_InstanceNorm):
    _dims = (3, 4)
    _no_batch = 3


class InstanceNorm3d(_InstanceNorm):
    _dims = (4, 5)
    _no_batch = 4


# ------------------------------------------------------------------------------ lazy forms
def _lazy(name, base, become, affine_default, track_default):
    """A Lazy norm: num_features 0 until the first call, which sizes the parameters and buffers
    from ``input.shape[1]`` (or ``[0]`` unbatched) and turns the module into ``become``."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=affine_default,
                 track_running_stats=track_default, device=None, dtype=None):
        base.__init__(self, 0, eps, momentum, affine, track_running_stats, device, dtype)
        self._lazy_dtype = dtype
        if affine:  # (torch: UninitializedParameters, materialised in place by the first call)
            self.weight = UninitializedParameter()
            self.bias = UninitializedParameter()
        if track_running_stats:  # (UninitializedBuffers: a load_state_dict sizes them)
            from . import parameter as P

            for k in ("running_mean", "running_var"):
                self._buffers[k] = P.UninitializedBuffer(None, requires_grad=False)

    def forward(self, input):  # noqa: A002
        nb = getattr(become, "_no_batch", None)
        a = raw(input)
        ch = a.shape[0] if (nb is not None and a.ndim == nb) else a.shape[1]
        dt = _np_dtype(self._lazy_dtype)
        if any(isinstance(getattr(self, k, None), UninitializedParameter)
               for k in ("weight", "bias", "running_mean", "running_var")):
            self.num_features = ch  # (torch: not after a load_state_dict sized them)
        if self.affine and isinstance(self.weight, UninitializedParameter):
            # the same objects (an optimizer made before the first call updates them)
            raw(_materialize(self.weight, (ch,), dt))[...] = 1
            _materialize(self.bias, (ch,), dt)
        if self.track_running_stats and isinstance(self.running_mean, UninitializedParameter):
            self.running_mean = _wrap(np.zeros(ch, dt))
            self.running_var = _wrap(np.ones(ch, dt))
        del self._lazy_dtype
        self.__class__ = become
        return become.forward(self, input)

    return type(name, (base,), {"__init__": __init__, "forward": forward,
                                "cls_to_become": become})


LazyBatchNorm1d = _lazy("LazyBatchNorm1d", BatchNorm1d, BatchNorm1d, True, True)
LazyBatchNorm2d = _lazy("LazyBatchNorm2d", BatchNorm2d, BatchNorm2d, True, True)
LazyBatchNorm3d = _lazy("LazyBatchNorm3d", BatchNorm3d, BatchNorm3d, True, True)
LazyInstanceNorm1d = _lazy("LazyInstanceNorm1d", InstanceNorm1d, InstanceNorm1d, True, True)
LazyInstanceNorm2d = _lazy("LazyInstanceNorm2d", InstanceNorm2d, InstanceNorm2d, True, True)
LazyInstanceNorm3d = _lazy("LazyInstanceNorm3d", InstanceNorm3d, InstanceNorm3d, True, True)


# ------------------------------------------------------------------------------ group norm
class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        dt = _np_dtype(dtype)
        if affine:
            self.weight = Parameter(_wrap(np.ones(num_channels, dt)))
            if bias:
                self.bias = Parameter(_wrap(np.zeros(num_channels, dt)))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):  # noqa: A002
        return S.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


# ------------------------------------------------------------------------------ LRN
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):  # noqa: A002
    """torch's composite: the squares averaged over a window of ``size`` channels (zero padded,
    ``size // 2`` before, ``(size - 1) // 2`` after; summed in window order, then divided by
    ``size`` as avg_pool does), ``* alpha + k``, ``** beta``; the input divided by that."""
    a = raw(input)
    if a.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {a.ndim} dimensions)")
    if a.size == 0:
        return input
    sq = _ops.mul(input, input)
    widths = [(0, 0)] * a.ndim
    widths[1] = (size // 2, (size - 1) // 2)
    from . import functional as F

    pad = []
    for lo, hi in reversed(widths):
        pad += [lo, hi]
    padded = F.pad(sq, tuple(pad))
    c = a.shape[1]
    div = None
    for j in range(size):
        part = _ops.narrow(padded, 1, j, c)
        div = part if div is None else _ops.add(div, part)
    div = _ops.div(div, float(size))
    div = C.pow_scalar(_ops.add(_ops.mul(div, alpha), k), beta)
    return _ops.div(input, div)


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):  # noqa: A002
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _cmlrn_scale(x, size, alpha, k):
    dt = x.dtype
    sq = (x * x).astype(dt)
    ch = x.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    scale = np.zeros(x.shape, dt)
    first = np.zeros(x.shape[:1] + x.shape[2:], dt)
    for c in range(min(pre_pad, ch)):
        first = (first + sq[:, c]).astype(dt)
    scale[:, 0] = first
    for c in range(1, ch):
        cur = scale[:, c - 1].copy()
        if c < ch - pre_pad + 1:
            cur = (cur + sq[:, c + pre_pad - 1]).astype(dt)
        if c > pre_pad:
            cur = (cur - sq[:, c - pre_pad]).astype(dt)
        scale[:, c] = cur
    return ((scale * np.asarray(alpha / size, dt)).astype(dt) + np.asarray(k, dt)).astype(dt)


def _cmlrn_fwd(x, size=5, alpha=1e-4, beta=0.75, k=1.0):
    scale = _cmlrn_scale(x, size, alpha, k)
    return (C._pow_fwd(scale, -beta) * x).astype(x.dtype)


def _cmlrn_vjp(n, g):
    x = raw(n.inputs[0])
    at = n.attrs
    size, alpha, beta = at["size"], at["alpha"], at["beta"]
    dt = x.dtype
    scale = _cmlrn_scale(x, size, alpha, at["k"])
    out = raw(n.out())
    go = raw(g)
    gi = (C._pow_fwd(scale, -beta) * go).astype(dt)
    ch = x.shape[1]
    cache = 2 * alpha * beta / size
    inv_pre = int(size - (size - 1) / 2)
    for b in range(x.shape[0]):
        padded = np.zeros((ch + size - 1,) + x.shape[2:], dt)
        padded[inv_pre:inv_pre + ch] = (go[b] * out[b] / scale[b]).astype(dt)
        acc = padded[:size - 1].sum(0).astype(dt)
        for c in range(ch):
            acc = (acc + padded[c + size - 1]).astype(dt)
            gi[b, c] = (gi[b, c] - np.asarray(cache, dt) * x[b, c] * acc).astype(dt)
            acc = (acc - padded[c]).astype(dt)
    return _wrap(gi, True)


_CMLRN = C.op("CrossMapLRN2dBackward", _cmlrn_fwd, _cmlrn_vjp, "in0+out")


class CrossMapLRN2d(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):  # noqa: A002
        if raw(input).ndim != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got "
                             f"{raw(input).ndim}D instead.")
        return C.run(_CMLRN, (input,), {"size": self.size, "alpha": self.alpha,
                                        "beta": self.beta, "k": self.k})

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# ------------------------------------------------------------------------------ RMS norm
def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    a = raw(input)
    shape = tuple(normalized_shape) if isinstance(normalized_shape, (list, tuple)) \
        else (int(normalized_shape),)
    nd = len(shape)
    if a.shape[a.ndim - nd:] != shape:
        from .._base import Size

        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in shape)}], but got input of size"
                           f"{Size(a.shape)}")
    if eps is None:
        eps = float(np.finfo(a.dtype).eps) if a.dtype.kind == "f" else float(
            np.finfo(np.float32).eps)
    dims = tuple(range(a.ndim - nd, a.ndim))
    ms = _ops.mean(_ops.pow(input, 2), dims, keepdim=True)
    r = _ops.rsqrt(ms.add_(eps))
    out = _ops.mul(input, r)
    if weight is not None:
        out = _ops.mul(out, weight)
    return out


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape) \
            if isinstance(normalized_shape, (list, tuple)) else (int(normalized_shape),)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_wrap(np.ones(self.normalized_shape, _np_dtype(dtype))))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self):
        if self.weight is not None:
            raw(self.weight)[...] = 1

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


__all__ = ["BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d", "GroupNorm", "LocalResponseNorm",
           "CrossMapLRN2d", "RMSNorm"]
C.name_classes("torch.nn.modules.batchnorm", [BatchNorm3d, SyncBatchNorm, LazyBatchNorm1d,
                                              LazyBatchNorm2d, LazyBatchNorm3d])
C.name_classes("torch.nn.modules.instancenorm", [InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                                                 LazyInstanceNorm1d, LazyInstanceNorm2d,
                                                 LazyInstanceNorm3d])
C.name_classes("torch.nn.modules.normalization", [GroupNorm, LocalResponseNorm, CrossMapLRN2d,
                                                  RMSNorm])

FUNCTIONAL = {"local_response_norm": local_response_norm, "rms_norm": rms_norm}
