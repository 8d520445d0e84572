"""``paddle.sparse.nn.Conv3D`` / ``SubmConv3D`` / ``BatchNorm`` and ``functional.conv3d`` /
``subm_conv3d``: the sparse voxel convolutions of Paddle3D's backbones (SECOND, CenterPoint), as
Paddle's CPU kernel computes them.

Paddle's Conv3dCooCPUKernel builds a rulebook: for each input site and each kernel offset
(depth, height, width order) the output site it feeds (``out = (in + pad - k * dilation) /
stride`` when that divides and lies inside; a submanifold convolution keeps only outputs at the
input sites, its output sites being the input's, in their order). A strided convolution's
output sites are the rulebook's unique sites, sorted. Then, offset by offset, the input rows
are gathered and multiplied by that offset's [in, out] filter (``Blas::GEMM``: MKL's sgemm on
one thread on Intel, as Paddle's dense convolutions here), and the products are added into
the outputs in rulebook order (offset after offset, from zero); the bias last.

The graph: the same computation in Tensor ops (one gather of the rulebook's input rows,
per-offset matmuls, index_add), whose gradients reach the input values and the filter; its
forward values are replaced by the kernel's (the ops are linear: their gradients do not read
them). Measured against real 3.3.1 and 2.6.2 (7 layer settings: subm/strided, kernels 1 and 3,
anisotropic, bias, batches of 2, up to 16 -> 32 channels): outputs, filter gradients and input
gradients equal. A dilated submanifold convolution (Paddle's output sites follow other rules
there) raises a not-emulated error.
"""
from __future__ import annotations

import numpy as np

from ...core import Tensor
from ...nn import BatchNorm1D, Layer
from ...nn import initializer as _init
from .. import SparseTensor


def _triple(v, what):
    if isinstance(v, int):
        return [v] * 3
    v = [int(t) for t in v]
    if len(v) != 3:
        raise ValueError(f"The {what} should be an int or a list of 3 ints, got {v}")
    return v


def _padding(padding):
    if isinstance(padding, str):
        raise NotImplementedError("gradrepl's paddle.sparse conv3d takes numeric padding only")
    p = _triple(padding, "padding") if not (isinstance(padding, (list, tuple)) and
                                          len(padding) == 6) else list(padding)[::2]
    return p


def _rulebook(idx, spatial, kernel, stride, pad, dilation, subm, idx_out=None):
    """(out_sites [4, M] int64, entries: list per kernel offset of (in rows, out rows))."""
    sites = idx.T.tolist()                                   # [b, z, y, x]
    offsets = [(a, b, c) for a in range(kernel[0]) for b in range(kernel[1])
               for c in range(kernel[2])]
    if subm:
        where = {tuple(s): i for i, s in enumerate(sites)}
        out_sites = idx if idx_out is None else idx_out
        per_k = []
        for k in offsets:
            ins, outs = [], []
            for o, (b, z, y, x) in enumerate(out_sites.T.tolist()):
                src = (b, z - pad[0] + k[0] * dilation[0], y - pad[1] + k[1] * dilation[1],
                       x - pad[2] + k[2] * dilation[2])
                i = where.get(src)
                if i is not None:
                    ins.append(i)
                    outs.append(o)
            per_k.append((ins, outs))
        return out_sites, per_k
    out_shape = [(spatial[d] + 2 * pad[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1
                 for d in range(3)]
    raw = []                                                 # (k, in row, out site)
    for i, (b, z, y, x) in enumerate(sites):
        for kk, k in enumerate(offsets):
            pos = []
            for d, v in enumerate((z, y, x)):
                t = v + pad[d] - k[d] * dilation[d]
                if t % stride[d] or not 0 <= t // stride[d] < out_shape[d]:
                    break
                pos.append(t // stride[d])
            else:
                raw.append((kk, i, (b, *pos)))
    uniq = sorted({r[2] for r in raw})
    where = {s: j for j, s in enumerate(uniq)}
    per_k = [([], []) for _ in offsets]
    for kk, i, s in raw:
        per_k[kk][0].append(i)
        per_k[kk][1].append(where[s])
    out_sites = np.array(uniq, np.int64).T.reshape(4, -1)
    return out_sites, per_k


def _products(a, w):
    """``a @ w`` as Paddle's sparse conv kernel's Blas::GEMM: MKL's sgemm on one thread where
    this machine computes as its MKL (float32), else numpy's product."""
    from ....engine.ops.conv import _mkl_products

    if a.dtype == np.float32 and a.shape[0]:
        r = _mkl_products(np.ascontiguousarray(a), np.ascontiguousarray(w))
        if r is not None:
            return r
    return a @ w


def _conv3d(x, weight, bias, stride, padding, dilation, groups, subm):
    import gradrepl.paddle as paddle

    if not isinstance(x, SparseTensor):   # (a dense input: the sparse API's error)
        from ... import profiles

        line = {"3": 7612, "2.6": 5155}.get(profiles.current().key, 5155)
        raise NotImplementedError(
            "(Unimplemented) The kernel of (conv3d) for input tensors is unimplemented, please "
            f"check the type of input tensors. (at /paddle/paddle/phi/api/lib/dygraph_api.cc:"
            f"{line})\n")
    if x._layout != "coo" or len(x._shape) != 5:
        raise ValueError("paddle.sparse conv3d takes a 5-D SparseCooTensor (NDHWC)")
    if groups != 1:
        raise ValueError("Currently, only support groups=1")
    kernel = list(weight.shape[:3])
    cin, cout = int(weight.shape[3]), int(weight.shape[4])
    if x._shape[4] != cin:
        raise ValueError(f"The input's channels ({x._shape[4]}) differ from the filter's "
                         f"in_channels ({cin})")
    stride, dilation, pad = _triple(stride, "stride"), _triple(dilation, "dilation"), \
        _padding(padding)
    idx = x._parts[0].numpy().astype(np.int64)
    spatial = x._shape[1:4]
    if subm and dilation != [1, 1, 1]:
        raise NotImplementedError(
            "gradrepl's paddle.sparse does not emulate a dilated submanifold convolution "
            "(Paddle's output sites and shape there follow other rules)")
    if subm:
        pad = [k // 2 for k in kernel]      # (Paddle's submanifold rule, whatever was asked)
    out_spatial = [(spatial[d] + 2 * pad[d] - dilation[d] * (kernel[d] - 1) - 1) //
                   stride[d] + 1 for d in range(3)]
    idx_out = None
    out_sites, per_k = _rulebook(idx, spatial, kernel, stride, pad, dilation, subm, idx_out)
    m = out_sites.shape[1]
    values = x._values
    w_flat = weight.reshape([-1, cin, cout])
    # the kernel's forward, in numpy
    vals = values.numpy()
    w_np = w_flat.numpy()
    exact = np.zeros((m, cout), vals.dtype)
    out = paddle.zeros([m, cout], dtype=values.dtype)
    # one gather of every rulebook row: its gradient adds the rows' input gradients into the
    # values in this order from zero, as Paddle's backward scatter does (a submanifold
    # convolution's centre offset first, then the others in order: measured)
    order = list(range(len(per_k)))
    if subm:
        centre = len(order) // 2
        order = [centre] + [k for k in order if k != centre]
    all_ins = [i for k in order for i in per_k[k][0]]
    gathered = paddle.gather(values, paddle.to_tensor(np.asarray(all_ins, np.int64))) \
        if all_ins else None
    start, lo = {}, 0
    for k in order:
        start[k] = lo
        lo += len(per_k[k][0])
    for k, (ins, outs) in enumerate(per_k):
        if not ins:
            continue
        prod = _products(vals[ins], w_np[k]).astype(vals.dtype)
        np.add.at(exact, np.asarray(outs), prod)            # each output once per offset
        outs_t = paddle.to_tensor(np.asarray(outs, np.int64))
        rows = gathered[start[k]:start[k] + len(ins)]
        out = paddle.index_add(out, outs_t, 0, paddle.matmul(rows, w_flat[k]))
    if bias is not None:
        exact = exact + bias.numpy()
        out = out + bias
    out.data = exact
    return SparseTensor("coo", (paddle.to_tensor(out_sites),), out,
                        [x._shape[0], *out_spatial, cout],
                        x.stop_gradient and weight.stop_gradient)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NDHWC", name=None):
    return _conv3d(x, weight, bias, stride, padding, dilation, groups, subm=False)


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                data_format="NDHWC", key=None, name=None):
    return _conv3d(x, weight, bias, stride, padding, dilation, groups, subm=True)


class _Conv3D(Layer):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, subm=False, key=None, padding_mode="zeros", weight_attr=None,
                 bias_attr=None, data_format="NDHWC", backend=None):
        super().__init__()
        assert weight_attr is not False, "weight_attr should not be False in Conv."
        assert padding_mode == "zeros", "Currently, only support padding_mode='zeros'"
        assert groups == 1, "Currently, only support groups=1"
        if data_format != "NDHWC":
            raise ValueError("data_format must be one of {'NDHWC'}, but got "
                             f"data_format='{data_format}'")
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = _triple(kernel_size, "kernel_size")
        self._stride, self._dilation = _triple(stride, "stride"), _triple(dilation, "dilation")
        self._padding, self._groups, self._subm, self._key = padding, groups, subm, key
        std = (2.0 / (np.prod(self._kernel_size) * in_channels)) ** 0.5
        self.weight = self.create_parameter(
            shape=[*self._kernel_size, in_channels, out_channels], attr=weight_attr,
            default_initializer=_init.Normal(0.0, std))
        self.bias = self.create_parameter(attr=bias_attr, shape=[out_channels], is_bias=True)

    def forward(self, x):
        return _conv3d(x, self.weight, self.bias, self._stride, self._padding, self._dilation,
                       self._groups, self._subm)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"data_format=NDHWC")


class Conv3D(_Conv3D):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NDHWC", name=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, False, None, padding_mode, weight_attr, bias_attr, data_format)


class SubmConv3D(_Conv3D):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", key=None, weight_attr=None, bias_attr=None,
                 data_format="NDHWC", backend=None, name=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, True, key, padding_mode, weight_attr, bias_attr, data_format,
                         backend)


class BatchNorm(BatchNorm1D):
    """Batch normalisation of a sparse tensor's stored values (channels last)."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NDHWC", use_global_stats=None, name=None):
        super().__init__(num_features, momentum=momentum, epsilon=epsilon,
                         weight_attr=weight_attr, bias_attr=bias_attr, data_format="NC",
                         use_global_stats=use_global_stats, name=name)
        self._sparse_format = self._data_format = data_format   # (its repr names it)

    def forward(self, input):
        from ... import libwarn
        from ...nn import functional as F

        if self._sparse_format not in ("NDHWC", "NHWC"):
            raise ValueError("sparse BatchNorm only support layout of NDHWC and NHWC")
        if self.training:
            libwarn.warn("sparse_bn_global_stats",
                         "When training, we now always track global mean and variance.")
        out = F.batch_norm(input._values, self._mean, self._variance, weight=self.weight,
                           bias=self.bias, training=self.training, momentum=self._momentum,
                           epsilon=self._epsilon, data_format="NC",
                           use_global_stats=self._use_global_stats)
        return SparseTensor(input._layout, input._parts, out, input._shape,
                            out.stop_gradient)


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NDHWC",
               name=None):
    """Paddle's sparse max pooling: the conv rulebook's output sites (unique, sorted), each the
    channel-wise maximum of its inputs; the gradient goes to every input equal to its output's
    maximum, added in rulebook order (as Paddle's MaxPoolCooGradKernel)."""
    import gradrepl.paddle as paddle

    if not isinstance(x, SparseTensor) or x._layout != "coo" or len(x._shape) != 5:
        raise ValueError("paddle.sparse max_pool3d takes a 5-D SparseCooTensor (NDHWC)")
    if ceil_mode:
        raise NotImplementedError("gradrepl's paddle.sparse max_pool3d: ceil_mode not emulated")
    kernel = _triple(kernel_size, "kernel_size")
    stride = kernel if stride is None else _triple(stride, "stride")
    pad = _padding(padding)
    idx = x._parts[0].numpy().astype(np.int64)
    spatial = x._shape[1:4]
    out_sites, per_k = _rulebook(idx, spatial, kernel, stride, pad, [1, 1, 1], False)
    out_spatial = [(spatial[d] + 2 * pad[d] - (kernel[d] - 1) - 1) // stride[d] + 1
                   for d in range(3)]
    c = x._shape[4]
    vals = x._values.numpy()
    m = out_sites.shape[1]
    exact = np.full((m, c), -np.inf, vals.dtype)
    all_ins = np.asarray([i for ins, _ in per_k for i in ins], np.int64)
    all_outs = np.asarray([o for _, outs in per_k for o in outs], np.int64)
    for ins, outs in per_k:
        if ins:
            np.maximum.at(exact, np.asarray(outs), vals[ins])
    out = paddle.zeros([m, c], dtype=x._values.dtype)
    if all_ins.size:
        rows = paddle.gather(x._values, paddle.to_tensor(all_ins))
        mask = paddle.to_tensor((vals[all_ins] == exact[all_outs]).astype(vals.dtype))
        out = paddle.index_add(out, paddle.to_tensor(all_outs), 0, rows * mask)
    out.data = exact
    return SparseTensor("coo", (paddle.to_tensor(out_sites),), out,
                        [x._shape[0], *out_spatial, c], x.stop_gradient)


class MaxPool3D(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NDHWC", name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format
        self.name = name

    def forward(self, x):
        return max_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode,
                          self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


def _conv2d(x, weight, bias, stride, padding, dilation, groups, subm):
    """A 2-D sparse convolution (NHWC) as the 3-D kernel on a depth of one (the same rulebook
    order and products)."""
    import gradrepl.paddle as paddle

    if not isinstance(x, SparseTensor) or x._layout != "coo" or len(x._shape) != 4:
        raise ValueError("paddle.sparse conv2d takes a 4-D SparseCooTensor (NHWC)")
    idx = x._parts[0].numpy().astype(np.int64)
    idx3 = np.insert(idx, 1, 0, axis=0)
    x3 = SparseTensor("coo", (paddle.to_tensor(idx3),), x._values,
                      [x._shape[0], 1, *x._shape[1:]], x.stop_gradient)
    pair = (lambda v, what: [1] + (_triple(v, what)[:2] if isinstance(v, int)
                                   else [int(t) for t in v]))
    pad = [0] + ([padding] * 2 if isinstance(padding, int) else [int(t) for t in padding])
    w3 = weight.reshape([1, *weight.shape])
    y3 = _conv3d(x3, w3, bias, pair(stride, "stride"), pad, pair(dilation, "dilation"), groups,
                 subm)
    out_idx = np.delete(y3._parts[0].numpy(), 1, axis=0)
    return SparseTensor("coo", (paddle.to_tensor(out_idx),), y3._values,
                        [y3._shape[0], *y3._shape[2:]], y3.stop_gradient)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC",
           name=None):
    return _conv2d(x, weight, bias, stride, padding, dilation, groups, subm=False)


def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                data_format="NHWC", key=None, name=None):
    return _conv2d(x, weight, bias, stride, padding, dilation, groups, subm=True)


class _Conv2D(Layer):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, subm=False, key=None, padding_mode="zeros", weight_attr=None,
                 bias_attr=None, data_format="NHWC"):
        super().__init__()
        assert weight_attr is not False, "weight_attr should not be False in Conv."
        assert padding_mode == "zeros", "Currently, only support padding_mode='zeros'"
        assert groups == 1, "Currently, only support groups=1"
        if data_format != "NHWC":
            raise ValueError("data_format must be one of {'NHWC'}, but got "
                             f"data_format='{data_format}'")
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = _triple(kernel_size, "kernel_size")[:2] if isinstance(
            kernel_size, int) else [int(k) for k in kernel_size]
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._groups, self._subm, self._key = groups, subm, key
        std = (2.0 / (np.prod(self._kernel_size) * in_channels)) ** 0.5
        self.weight = self.create_parameter(
            shape=[*self._kernel_size, in_channels, out_channels], attr=weight_attr,
            default_initializer=_init.Normal(0.0, std))
        self.bias = self.create_parameter(attr=bias_attr, shape=[out_channels], is_bias=True)

    def forward(self, x):
        return _conv2d(x, self.weight, self.bias, self._stride, self._padding, self._dilation,
                       self._groups, self._subm)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"data_format=NHWC")


class Conv2D(_Conv2D):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, False, None, padding_mode, weight_attr, bias_attr, data_format)


class SubmConv2D(_Conv2D):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", key=None, weight_attr=None, bias_attr=None,
                 data_format="NHWC", backend=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, True, key, padding_mode, weight_attr, bias_attr, data_format)


class SyncBatchNorm(BatchNorm):
    """Paddle's sparse SyncBatchNorm: its kernel is GPU-only, so on the CPU its forward
    raises Paddle's kernel-lookup error (real 3.3.1 and 2.6.2 here)."""

    def forward(self, input):
        from ... import profiles

        line = {"3": 273, "2.6": 225}.get(profiles.current().key, 225)
        raise RuntimeError(
            "(NotFound) The kernel `sync_batch_norm_coo` is not registered.\n  [Hint: Expected "
            "iter != kernels_.end(), but received iter == kernels_.end().] (at /paddle/paddle/"
            f"phi/core/kernel_factory.cc:{line})\n")
