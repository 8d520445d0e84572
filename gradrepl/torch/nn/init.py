"""``torch.nn.init``: fill a tensor in place, without recording (``constant_``, ``zeros_``,
``ones_``, ``uniform_``, ``normal_``, the Xavier and Kaiming initialisers, ``eye_``), drawing
from torch's generator as torch does."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...engine import grad_mode
from .. import _inplace, _random
from .._base import raw


def calculate_gain(nonlinearity, param=None):
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        negative_slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    shape = raw(tensor).shape
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _write(tensor, values):
    with grad_mode.no_grad():
        _inplace.write(tensor, values)
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with grad_mode.no_grad():  # Tensor.uniform_'s draw (a view's values in memory order)
        return _inplace.uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with grad_mode.no_grad():  # Tensor.normal_'s draw (a view: torch's serial path)
        return _inplace.normal_(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """torch 2.13's: for a wide interval (mass p > 0.3) normal draws, the values outside
    [a, b] drawn again (a whole tensor of new normals each round, kept where needed); else
    rejection sampling from uniform candidates on [a, b] against the density's log."""
    from ... import torch as T

    arr = raw(tensor)
    dt = arr.dtype

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        import warnings

        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
    with grad_mode.no_grad():
        if p > 0.3:
            lo, hi = float(np.asarray(a, dt)), float(np.asarray(b, dt))
            result = _random.normal(arr.shape, dt, mean, std, generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                fresh = _random.normal(arr.shape, dt, mean, std, generator)
                result = np.where(mask, fresh, result)
            return _write(tensor, result)
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_pdf(c):
            t = T.tensor(c)
            t = T.mul(T.pow(T.div(T.sub(t, mean), std), 2), -0.5)
            return raw(T.sub(t, log_peak))

        def log_u():
            return raw(T.log(T.tensor(_random.uniform(arr.shape, dt, 0.0, 1.0, generator))))

        result = _random.uniform(arr.shape, dt, a, b, generator)
        pending = log_u() > log_pdf(result)
        while pending.any():
            cand = _random.uniform(arr.shape, dt, a, b, generator)
            result = np.where(pending, cand, result)
            pending = np.where(pending, log_u() > log_pdf(cand), pending)
        return _write(tensor, result.astype(dt))


def constant_(tensor, val):
    with grad_mode.no_grad():  # torch's fill_: allowed on an expanded tensor
        _inplace.write(tensor, np.asarray(val, raw(tensor).dtype), overlap_ok=True)
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def eye_(tensor):
    arr = raw(tensor)
    if arr.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*arr.shape, dtype=arr.dtype))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _fan(tensor, mode):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    fan = _fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    fan = _fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """torch's steps: normal draws in the tensor's dtype (rows x cols), the QR of the tall
    orientation (MKL's geqrf/orgqr through linalg.qr), columns signed by diag(R)."""
    import gradrepl.torch as T

    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = T.empty((rows, cols), dtype=tensor.dtype).normal_(0, 1, generator=generator)
    if rows < cols:
        flat = flat.t()
    q, r = T.linalg.qr(flat)
    q = q * T.diag(r, 0).sign()
    if rows < cols:
        q = q.t()
    if gain != 1:  # torch's tensor.mul_(gain): a weak scalar in the tensor's dtype (np.sqrt(2) too)
        q = q * gain
    return _write(tensor, raw(q).reshape(raw(tensor).shape))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """torch's steps: normal draws (mean 0, std) over the whole tensor, then per column a
    randperm of the rows from the default generator, its first ceil(sparsity * rows) zeroed."""
    import gradrepl.torch as T

    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with grad_mode.no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            tensor[T.randperm(rows)[:num_zeros], col_idx] = 0
    return tensor


def _guard_meta():
    """Every in-place initialiser leaves a meta tensor as it is, drawing nothing (torch's
    kernels on the meta device do no work)."""
    from .. import _meta

    g = globals()
    for name, fn in list(g.items()):
        if name.endswith("_") and not name.startswith("_") and callable(fn):
            g[name] = _meta.guard_init(fn)


_guard_meta()


def _make_deprecate(meth_name):
    """A pre-0.4 name (``nn.init.normal``): torch 2.13 keeps it as a function that warns
    FutureWarning at the caller's line and calls the in-place initialiser. The initialiser is
    looked up when called (dirac_ is added to this module later)."""
    old_name = meth_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{meth_name}`.",
                      FutureWarning, stacklevel=2)
        return globals()[meth_name](*args, **kwargs)

    deprecated_init.__doc__ = f"""
    {old_name}(...)

    .. warning::
        This method is now deprecated in favor of :func:`torch.nn.init.{meth_name}`.

    See :func:`~torch.nn.init.{meth_name}` for details."""
    deprecated_init.__name__ = old_name
    return deprecated_init


# torch's list of the pre-0.4 names
uniform = _make_deprecate("uniform_")
normal = _make_deprecate("normal_")
constant = _make_deprecate("constant_")
eye = _make_deprecate("eye_")
dirac = _make_deprecate("dirac_")
xavier_uniform = _make_deprecate("xavier_uniform_")
xavier_normal = _make_deprecate("xavier_normal_")
kaiming_uniform = _make_deprecate("kaiming_uniform_")
kaiming_normal = _make_deprecate("kaiming_normal_")
orthogonal = _make_deprecate("orthogonal_")
sparse = _make_deprecate("sparse_")
