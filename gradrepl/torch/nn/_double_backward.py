"""torch's second-order nodes of a convolution, a batch norm and a leaky ReLU.

With ``create_graph=True`` real torch 2.13 records a first-order backward as ONE node per
op, whose formula (``derivatives.yaml``) is its double backward, and gradrepl does the same:

- ``ConvolutionBackwardBackward0`` (inputs grad_output, input, weight):
  ``_convolution_double_backward`` of ``aten/src/ATen/native/Convolution.cpp``:
  ``ggO = conv(ggI, w) + conv(x, ggW) + ggb``; ``gW = conv(ggI^T, gO^T)`` with the stride and
  the dilation swapped, the batch as channels (per group, then ``cat``), transposed back and
  narrowed to the kernel; ``gI = conv_transpose(gO, ggW)``. Each convolution is the dialect's
  ``conv2d``/``conv_transpose2d``: the kernels real torch runs (oneDNN's, emulated) for those
  shapes, so the bits are the same.
- ``NativeBatchNormBackwardBackward0`` (grad_out, input, weight, save_mean, save_invstd):
  ``batchnorm_double_backward`` of ``FunctionsManual.cpp``, term by term in its order, on the
  dialect's Tensor ops (torch's elementwise and sum kernels).
- ``LeakyReluBackwardBackward0`` (grad_output, self): ``leaky_relu_backward(gg, self)`` for
  grad_output and ``zeros_like(gg)`` for self: the zeros travel on (a penalty-only backward
  leaves zero gradients, not None, on the batch norm's bias below, as real torch).

The first-order values are the exact ones the plain backward gives (computed with grad mode
off by the caller's VJP); the node only carries them and its formula.
"""
from __future__ import annotations

import numpy as np

from ...engine import _native, grad_mode
from ...engine.registry import OpDef, apply, needs_grad


def _carry(*arrays, **attrs):
    """Forward of a recorded first-order backward: its values, precomputed (the last three
    inputs), as the node's three outputs."""
    return tuple(arrays[-3:])


def _op(name, torch_name, n_torch, vjp, saves):
    op = OpDef(name, _carry, vjp, n_outputs=3, diff_inputs=(0, 1, 2))
    op.torch_name = torch_name
    op.torch_saves = saves
    op.torch_inputs = tuple(range(n_torch))
    op.reads_inputs = True
    op.saves_inputs = False
    op.second_order = True
    op.carries_exact = True   # (backward.exact_values need not run the VJP again)
    op.undefined_grads = True  # (an output no gradient reached: None, as torch's undefined)
    return op


def _grads_without_graph(vjp, n, g):
    mode = grad_mode.STATE
    before = mode.enabled
    mode.enabled = False
    try:
        return tuple(vjp(n, g))
    finally:
        mode.enabled = before


def _record(op, inputs, values, attrs, shapes):
    """The node ``op`` over ``inputs`` carrying ``values`` (None: not computed; a zero
    placeholder is carried, never returned)."""
    from .._base import raw
    from .._tensor import Tensor

    wrap = Tensor._wrap
    carried = []
    for v, (shape, dtype) in zip(values, shapes):
        carried.append(wrap(np.asarray(raw(v)), True) if v is not None
                       else wrap(np.zeros(shape, dtype), True))
    outs = apply(op, tuple(inputs) + tuple(carried), attrs)
    return tuple(o if v is not None else None for o, v in zip(outs, values))


# ------------------------------------------------------------------------------ convolution
def _convolution(x, w, nd, stride, padding, dilation, transposed, output_padding, groups):
    """``at::convolution`` inside the double backward: the dialect's conv{1,2,3}d or
    conv_transpose{1,2,3}d (the kernels ATen's use_mkldnn picks for these shapes: a one-channel
    layer's batch-as-channels filter gradient is one sample with a large kernel, on oneDNN)."""
    from . import functional as F

    if transposed:
        return getattr(F, f"conv_transpose{nd}d")(x, w, None, stride, padding, output_padding,
                                                  groups, dilation)
    return getattr(F, f"conv{nd}d")(x, w, None, stride, padding, dilation, groups)


def conv_first_order(n, g, vjp):
    """Under create_graph: a convolution's (dx, dw[, db]) as values of one
    ConvolutionBackwardBackward0 node; None where the padding is not symmetric (torch pads the
    input first there: the caller keeps its own path). The geometry from the forward node's
    attrs (``_spatial``'s conv2d, or ``_conv_more``'s with ``nd``, 1-d lifted to 2-d)."""
    a = n.attrs
    nd = int(a.get("nd", 2))
    flat = tuple(a["padding"])[-2 * nd:]
    if len(flat) != 2 * nd or any(flat[2 * i] != flat[2 * i + 1] for i in range(nd)):
        return None
    x, w = n.inputs[0], n.inputs[1]
    meta = n.in_meta
    stride, dilation = tuple(a["stride"])[-nd:], tuple(a["dilation"])[-nd:]
    padding = tuple(flat[2 * i] for i in range(nd))
    transposed = bool(a.get("transposed", False))
    out_pad = (0,) * nd
    if transposed:
        ins, ks = meta[0][0][2:], meta[1][0][2:]
        out_pad = tuple(o - ((i - 1) * st - 2 * p + d * (k - 1) + 1) for o, i, st, p, d, k in
                        zip(tuple(a["out_size"])[-nd:], ins, stride, padding, dilation, ks))
    values = _grads_without_graph(vjp, n, g)
    bias = len(n.inputs) > 2
    vals = list(values[:3]) + [None] * (3 - len(values))
    shapes = [meta[0], meta[1], meta[2] if bias else ((1,), meta[1][1])]
    attrs = {"nd": nd, "stride": stride, "padding": padding, "dilation": dilation,
             "transposed": transposed, "output_padding": out_pad,
             "groups": int(a.get("groups", 1))}
    out = _record(CONV_BWD, (g, x, w), vals, attrs, shapes)
    return out if bias else out[:2]


conv2d_first_order = conv_first_order


def _conv_double_vjp(n, ggI, ggW=None, ggb=None):
    """``_convolution_double_backward``: (d grad_output, d input, d weight), its
    convolutions in its order."""
    from .. import _ops as O

    gO, x, w = n.inputs[0], n.inputs[1], n.inputs[2]
    a = n.attrs
    nd, stride, padding, dilation = a["nd"], a["stride"], a["padding"], a["dilation"]
    transposed, out_pad, groups = a["transposed"], a["output_padding"], a["groups"]
    ggO = gW = gI = None
    if ggI is not None:
        ggO = _convolution(ggI, w, nd, stride, padding, dilation, transposed, out_pad, groups)
    if ggW is not None:
        t = _convolution(x, ggW, nd, stride, padding, dilation, transposed, out_pad, groups)
        ggO = t if ggO is None else ggO + t
    if ggb is not None:
        shape = [1] * gO.data.ndim
        shape[1] = ggb.data.shape[0]
        e = O.expand(O.reshape(ggb, tuple(shape)), tuple(gO.data.shape))
        ggO = e if ggO is None else ggO + e
    if ggI is not None and needs_grad(n, 2):
        # the batch as channels, stride and dilation swapped, groups one at a time
        gOt, ggIt = O.transpose(gO, 0, 1), O.transpose(ggI, 0, 1)
        pair = (gOt, ggIt) if transposed else (ggIt, gOt)
        if groups == 1:
            gWt = _convolution(*pair, nd, dilation, padding, stride, False, out_pad, 1)
        else:
            ci, co = pair[0].data.shape[0] // groups, pair[1].data.shape[0] // groups
            gWt = O.cat([_convolution(O.narrow(pair[0], 0, k * ci, ci),
                                      O.narrow(pair[1], 0, k * co, co), nd, dilation, padding,
                                      stride, False, out_pad, 1)
                         for k in range(groups)], 1)
        gW = O.transpose(gWt, 0, 1)
        for d in range(2, gW.data.ndim):
            if gW.data.shape[d] > w.data.shape[d]:
                gW = O.narrow(gW, d, 0, w.data.shape[d])
    if ggW is not None and needs_grad(n, 1):
        if transposed:
            gI = _convolution(gO, ggW, nd, stride, padding, dilation, False, out_pad, groups)
            for d in range(2, gI.data.ndim):
                if gI.data.shape[d] > x.data.shape[d]:
                    gI = O.narrow(gI, d, 0, x.data.shape[d])
        else:
            ks, ins, outs = w.data.shape[2:], x.data.shape[2:], gO.data.shape[2:]
            gi_pad = list(out_pad)
            for i, (k, size, o, st, p, d) in enumerate(zip(ks, ins, outs, stride, padding,
                                                            dilation)):
                expected = (k - 1) * d - 2 * p + (st * (o - 1) + 1)
                if expected != size:
                    gi_pad[i] = size - expected
            gI = _convolution(gO, ggW, nd, stride, padding, dilation, True, tuple(gi_pad),
                              groups)
    return ggO, gI, gW


CONV_BWD = _op("convolution_backward", "ConvolutionBackwardBackward0", 3, _conv_double_vjp,
               "in:0,1,2")


# ------------------------------------------------------------------------------ batch norm
def batch_norm_first_order(n, g, vjp, save_mean, save_invstd):
    """Under create_graph: batch norm's (dx, dw, db) as values of one
    NativeBatchNormBackwardBackward0 node (inputs grad_out, input, weight, save_mean,
    save_invstd); ``save_*`` float arrays (training), or the running ones (eval: None)."""
    values = _grads_without_graph(vjp, n, g)
    from .._tensor import Tensor

    x, w = n.inputs[0], n.inputs[1]
    training = bool(n.attrs.get("training", True))
    if training:
        m, s = save_mean, save_invstd
    else:
        m, s = n.inputs[3].data, n.inputs[4].data
    extra = (Tensor._wrap(np.asarray(m), True), Tensor._wrap(np.asarray(s), True))
    meta = n.in_meta
    out = _record(BN_BWD, (g, x, w) + extra, values[:3], {
        "training": training, "eps": float(n.attrs.get("epsilon", 1e-5))},
        [meta[0], meta[1], meta[2]])
    return out + (None, None)


def _sum_exclude_dim1(t, keepdim=True):
    from .. import _ops as O

    r = O.sum(t, 0, keepdim)
    for d in range(r.data.ndim - 1, 1 if keepdim else 0, -1):
        r = O.sum(r, d, keepdim)
    return r


def _unsqueeze_dim1(src, nd):
    from .. import _ops as O

    return O.reshape(src, (1, src.data.shape[0]) + (1,) * (nd - 2))


def _expand_dim1(src, target_shape):
    from .. import _ops as O

    return O.expand(O.reshape(src, (src.data.shape[0],) + (1,) * (len(target_shape) - 2)),
                    tuple(target_shape))


def _bn_double_vjp(n, ggI, ggG=None, ggB=None):
    """``batchnorm_double_backward``: (d grad_out, d input, d weight, None, None), its terms in
    its order."""
    from .. import _ops as O
    from .._creation import ones

    gO, x, gamma = n.inputs[0], n.inputs[1], n.inputs[2]
    training, eps = n.attrs["training"], n.attrs["eps"]
    shape, nd = tuple(x.data.shape), x.data.ndim
    gamma_e = _expand_dim1(gamma, shape)
    ggG_e = _expand_dim1(ggG, shape) if ggG is not None else None
    ggB_e = _expand_dim1(ggB, shape) if ggB is not None else None
    M = shape[0]
    for s in shape[2:]:
        M *= s
    mu = _unsqueeze_dim1(n.inputs[3], nd)
    if training:
        s12 = _unsqueeze_dim1(n.inputs[4], nd)
    else:
        s12 = _unsqueeze_dim1(O.pow(n.inputs[4] + eps, -0.5), nd)
    x_mu = x - mu
    s1 = O.pow(s12, 2)
    s32 = O.pow(s12, 3)
    x_mu_s32 = x_mu * s32
    gOinmu_sum = _sum_exclude_dim1(gO * x_mu)
    gO_sum = _sum_exclude_dim1(gO)

    gI = None
    if ggI is not None and training:
        ggI_sum = _sum_exclude_dim1(ggI)
        ggIinmu_sum = _sum_exclude_dim1(ggI * x_mu)
        all_sub = ((ggI_sum * gO_sum) / M) - _sum_exclude_dim1(gO * ggI) + (
            (s1 * gOinmu_sum * ggIinmu_sum) * (3.0 / float(M)))
        gI_0t = (x_mu_s32 * all_sub) / M
        gI_1t = ((ggIinmu_sum * s32) / M) * (gO_sum / M - gO)
        gI_2t = ((gOinmu_sum * s32) / M) * (ggI_sum / M - ggI)
        gI = gamma_e * (gI_0t + gI_1t + gI_2t)
    if ggG_e is not None:
        if training:
            t0 = gO * s12
            t1 = (s12 * gO_sum) / (-M)
            t2 = (x_mu_s32 * _sum_exclude_dim1(gO * x_mu)) / (-M)
            term = ggG_e * (t0 + t1 + t2)
        else:
            term = ggG_e * s12 * gO
        gI = term if gI is None else gI + term

    def first_back_grad_input(g, gam):
        h0 = (gam * s12) / M
        h1 = (M * g - _sum_exclude_dim1(g)) - (x_mu * s1) * _sum_exclude_dim1(g * x_mu)
        return h0 * h1

    gG = None
    if ggI is not None and needs_grad(n, 2):
        if training:
            gG = _sum_exclude_dim1(ggI * first_back_grad_input(
                gO, ones((), dtype=_dtype_of(x))), False)
        else:
            gG = _sum_exclude_dim1(ggI * gO * s12, False)
    ggO = None
    if ggI is not None:
        ggO = first_back_grad_input(ggI, gamma_e) if training else ggI * s12 * gamma_e
    if ggG_e is not None:
        term = ggG_e * x_mu * s12
        ggO = term if ggO is None else ggO + term
    if ggB_e is not None:
        ggO = ggB_e if ggO is None else ggO + ggB_e
    return ggO, gI, gG, None, None


def _dtype_of(t):
    from .. import _dtypes

    return _dtypes.from_np(t.data.dtype)


BN_BWD = _op("native_batch_norm_backward", "NativeBatchNormBackwardBackward0", 5,
             _bn_double_vjp, "in:0,1,2")


# ------------------------------------------------------------------------------ leaky relu
def _leaky_grad_fwd(grad, self, negative_slope=0.01):
    """``leaky_relu_backward``: ``self > 0 ? grad : grad * negval`` (negval in the dtype)."""
    return np.where(self > 0, grad, grad * grad.dtype.type(negative_slope))


def _leaky_grad_vjp(n, gg):
    """LeakyReluBackwardBackward0: grad_output's ``leaky_relu_backward(gg, self)``, self's
    ``zeros_like(gg)``."""
    from .._creation import zeros_like

    self = n.inputs[1]
    d_grad = apply(LEAKY_GRAD, (gg, self), n.attrs) if needs_grad(n, 0) else None
    d_self = zeros_like(gg) if needs_grad(n, 1) else None
    return d_grad, d_self


LEAKY_GRAD = OpDef("leaky_relu_backward", _leaky_grad_fwd, _leaky_grad_vjp,
                   diff_inputs=(0, 1))
LEAKY_GRAD.torch_name = "LeakyReluBackwardBackward0"
LEAKY_GRAD.torch_saves = "in:1"
LEAKY_GRAD.torch_inputs = None
LEAKY_GRAD.reads_inputs = True
LEAKY_GRAD.saves_inputs = False


def leaky_relu_vjp(n, g, from_result=False):
    """The first-order leaky ReLU gradient as torch's LeakyReluBackward0/1 formula
    (``leaky_relu_backward(grad, self or result, negative_slope)``): a node of its own under
    create_graph."""
    self = n.out() if from_result else n.inputs[0]
    return apply(LEAKY_GRAD, (g, self),
                 {"negative_slope": float(n.attrs.get("negative_slope", 0.01))})


# ------------------------------------------------------------------------------ relu
def _threshold_grad_fwd(grad, self, threshold=0.0):
    """``threshold_backward``: ``self <= threshold ? 0 : grad`` (+0). Of two arrays of one
    shape, an AND of ``grad``'s bits with a mask of all ones where kept (``np.where`` with a
    mask as unpredictable as a ReLU's took 1.3 ms for 16x8x28x28 floats, this 0.05 ms)."""
    fn = getattr(_native.lib, "threshold_grad_f32", None)
    if fn is not None and grad.dtype == np.float32 and self.dtype == np.float32 and \
            grad.shape == self.shape and grad.flags.c_contiguous and self.flags.c_contiguous \
            and np.float32(threshold) == threshold:   # (compiled: the same select)
        out = np.empty(grad.shape, np.float32)
        fn(grad, self, float(threshold), out)
        return out
    cut = np.less_equal(self, self.dtype.type(threshold))
    if (grad.shape == cut.shape and grad.dtype.kind == "f" and grad.dtype.itemsize in (2, 4, 8)
            and grad.flags.c_contiguous):
        u = np.dtype(f"u{grad.dtype.itemsize}")
        mask = np.empty(cut.shape, u)
        np.copyto(mask, cut)
        np.subtract(mask, u.type(1), out=mask)        # cut: 0, kept: all ones
        out = np.empty(grad.shape, grad.dtype)
        np.bitwise_and(grad.view(u), mask, out=out.view(u))
        return out
    return np.where(cut, grad.dtype.type(0), grad)


def _threshold_grad_vjp(n, gg):
    """ThresholdBackwardBackward0: grad_output's ``threshold_backward(gg, self, threshold)``,
    self's ``zeros_like(grad)``."""
    from .._creation import zeros_like

    d_grad = apply(THRESHOLD_GRAD, (gg, n.inputs[1]), n.attrs) if needs_grad(n, 0) else None
    d_self = zeros_like(gg) if needs_grad(n, 1) else None
    return d_grad, d_self


THRESHOLD_GRAD = OpDef("threshold_backward", _threshold_grad_fwd, _threshold_grad_vjp,
                       diff_inputs=(0, 1))
THRESHOLD_GRAD.torch_name = "ThresholdBackwardBackward0"
THRESHOLD_GRAD.torch_saves = "in:1"
THRESHOLD_GRAD.torch_inputs = None
THRESHOLD_GRAD.reads_inputs = True
THRESHOLD_GRAD.saves_inputs = False
_THRESHOLD_ZERO = {"threshold": 0.0}


def relu_vjp(n, g):
    """ReluBackward0's ``threshold_backward(grad, result, 0)``: a node of its own under
    create_graph."""
    return apply(THRESHOLD_GRAD, (g, n.out()), _THRESHOLD_ZERO)


# ------------------------------------------------------------------------------ layer norm
def layer_norm_first_order(n, g, vjp, mean, rstd):
    """Under create_graph: layer norm's (dx, dw, db) as values of one
    NativeLayerNormBackwardBackward0 node (inputs grad_out, input, mean, rstd, weight, bias as
    torch's next_functions); ``mean``/``rstd`` the forward's row statistics (M,)."""
    from .._tensor import Tensor

    values = _grads_without_graph(vjp, n, g)
    x, w, b = n.inputs[0], n.inputs[1], n.inputs[2]
    stats = (Tensor._wrap(np.asarray(mean), True), Tensor._wrap(np.asarray(rstd), True))
    meta = n.in_meta
    return _record(LN_BWD, (g, x) + stats + (w, b), values[:3],
                   {"begin_norm_axis": int(n.attrs.get("begin_norm_axis", 1))},
                   [meta[0], meta[1], meta[2]])


def _ln_double_vjp(n, ggI, ggG=None, ggB=None):
    """``layer_norm_double_backward``: (d grad_out, d input, None, None, d weight, None), its
    terms in its order, on (M, N) rows."""
    from .. import _ops as O
    from .._creation import ones

    gO_t, x_t, mean, rstd, gamma = (n.inputs[i] for i in range(5))
    shape = tuple(x_t.data.shape)
    axis = n.attrs["begin_norm_axis"]
    M = int(np.prod(shape[:axis], dtype=np.int64))
    N = int(np.prod(shape[axis:], dtype=np.int64))
    x = O.reshape(x_t, (M, N))
    gO = O.reshape(gO_t, (M, N))
    mu = O.reshape(mean, (M, 1))
    s12 = O.reshape(rstd, (M, 1))
    gamma_e = O.reshape(gamma, (1, N))
    ggG_e = O.reshape(ggG, (1, N)) if ggG is not None else None
    ggB_e = O.reshape(ggB, (1, N)) if ggB is not None else None
    ggI_e = O.reshape(ggI, (M, N)) if ggI is not None else None
    x_mu = x - mu
    s1 = O.pow(s12, 2)
    s32 = O.pow(s12, 3)
    x_mu_s32 = x_mu * s32

    gI = None
    if ggI_e is not None:
        gxhat = gO * gamma_e
        gxhat_mu_sum = O.sum(gxhat * x_mu, 1, True)
        gxhat_sum = O.sum(gxhat, 1, True)
        ggI_sum = O.sum(ggI_e, 1, True)
        ggI_mu_sum = O.sum(ggI_e * x_mu, 1, True)
        all_sub = ((ggI_sum * gxhat_sum) / N) - O.sum(ggI_e * gxhat, 1, True) + (
            (s1 * gxhat_mu_sum * ggI_mu_sum) * (3.0 / float(N)))
        gI_0t = (x_mu_s32 * all_sub) / N
        gI_1t = ((ggI_mu_sum * s32) / N) * (gxhat_sum / N - gxhat)
        gI_2t = ((gxhat_mu_sum * s32) / N) * (ggI_sum / N - ggI_e)
        gI = gI_0t + gI_1t + gI_2t
    if ggG_e is not None:
        t0 = gO * ggG_e * s12
        t1 = (s12 * O.sum(gO * ggG_e, 1, True)) / (-N)
        t2 = (x_mu_s32 * O.sum(gO * ggG_e * x_mu, 1, True)) / (-N)
        term = t0 + t1 + t2
        gI = term if gI is None else gI + term
    if gI is not None:
        gI = O.reshape(gI, shape)

    def first_bwd_fn_grad_input(g, gam):
        h0 = (gam * s12) / N
        h1 = (N * g - O.sum(g, 1, True)) - (x_mu * s1) * O.sum(g * x_mu, 1, True)
        return h0 * h1

    gG = None
    if ggI_e is not None and needs_grad(n, 4):
        gG = first_bwd_fn_grad_input(ggI_e, ones((), dtype=_dtype_of(x_t)))
        gG = O.reshape(O.sum(gO * gG, 0), tuple(gamma.data.shape))
    ggO = None
    if ggI_e is not None:
        ggO = first_bwd_fn_grad_input(ggI_e, gamma_e)
    if ggG_e is not None:
        term = ggG_e * x_mu * s12
        ggO = term if ggO is None else ggO + term
    if ggB_e is not None:
        ggO = ggB_e if ggO is None else ggO + ggB_e
    if ggO is not None:
        ggO = O.reshape(O.expand(ggO, (M, N)), shape)
    return ggO, gI, None, None, gG, None


LN_BWD = _op("native_layer_norm_backward", "NativeLayerNormBackwardBackward0", 6,
             _ln_double_vjp, "in:0,1,4")
LN_BWD.diff_inputs = (0, 1, 4, 5)


# ------------------------------------------------------------------------------ group norm
def group_norm_composite(n, dY, dmean=None, drstd=None):
    """torch 2.13 computes group norm's gradients with
    ``infinitely_differentiable_native_group_norm_backward`` (FunctionsManual.cpp) under
    create_graph, or when the mean/rstd outputs take a gradient (a second backward through
    this composite): Tensor ops (its nodes: ViewBackward0, AddBackward0, ...), not the kernel,
    so the values are the composite's (they differ from a plain backward's in the last bits,
    in real torch too). Term by term; the forward's mean and rstd are its outputs 1 and 2
    (differentiable: a second backward reaches this node again through them)."""
    from .. import _ops as O

    X, gamma = n.inputs[0], n.inputs[1]
    a = n.attrs
    G = int(a.get("groups", 1))
    shape = tuple(X.data.shape)
    N, C = shape[0], shape[1]
    D = C // G
    HxW = int(np.prod(shape[2:], dtype=np.int64))
    s = 1.0 / float(D * HxW)
    affine = a.get("torch_affine", True)
    X_t = O.reshape(X, (N, G, D, HxW))
    mean_t = O.reshape(n.out(1), (N, G, 1, 1))
    rstd_t = O.reshape(n.out(2), (N, G, 1, 1))
    ds = db = None
    if dY is not None:
        dY_t = O.reshape(dY, (N, G, D, HxW))
        ds = O.unsqueeze(O.sum(dY_t * X_t, 3), -1)
        db = O.unsqueeze(O.sum(dY_t, 3), -1)
    dX = dgamma = dbeta = None
    if needs_grad(n, 0):
        gamma_t = O.reshape(gamma, (1, G, D, 1)) if affine else None
        rstd_cube = rstd_t * rstd_t * rstd_t
        dvar = None
        if drstd is not None:
            dvar = -0.5 * rstd_cube * O.reshape(drstd, (N, G, 1, 1))
        both = dmean is not None and drstd is not None
        if dY is not None:
            a_ = rstd_t * gamma_t if affine else rstd_t
            b = O.unsqueeze(O.sum(ds * gamma_t, 2) if affine else O.sum(ds, 2), -2)
            c = O.unsqueeze(O.sum(db * gamma_t, 2) if affine else O.sum(db, 2), -2)
            b = (c * mean_t - b) * rstd_cube * s
            c = -b * mean_t - c * rstd_t * s
            dX = a_ * dY_t + b * X_t + c
            if both:
                dX = dX + _var_mean_backward(dvar, O.reshape(dmean, (N, G, 1, 1)), X_t)
            dX = O.reshape(dX, shape)
        elif both:
            dX = O.reshape(_var_mean_backward(dvar, O.reshape(dmean, (N, G, 1, 1)), X_t),
                           shape)
    if needs_grad(n, 1) and dY is not None:
        dgamma = O.reshape(O.sum((ds - db * mean_t) * rstd_t, 0), tuple(gamma.data.shape))
    if needs_grad(n, 2) and dY is not None:
        dbeta = O.reshape(O.sum(db, 0), tuple(gamma.data.shape))
    return dX, dgamma, dbeta


def _var_mean_backward(gvar, gmean, x):
    """var_mean_backward over dims (2, 3), correction 0, keepdim: var_backward's
    ``(2 / n) * gvar * (x - x.mean(dims, keepdim))`` plus mean_backward's
    ``gmean.expand(shape) / n``."""
    from .. import _ops as O

    n = x.data.shape[2] * x.data.shape[3]
    g = (2.0 / float(n)) * gvar * (x - O.mean(x, (2, 3), True))
    return g + O.expand(gmean, tuple(x.data.shape)) / n
