"""Ops of the Paddle nn names issue 28's gap list named (``paddle/nn/gaps.py``).

* ``gumbel_softmax(x, noise)``: Paddle's CPU kernel after its noise is drawn: softmax of
  ``(x + noise) / temperature`` along ``axis`` (the softmax kernel's own paths), with ``hard`` the
  one-hot of each slice's first maximum. Its VJP is Paddle's gumbel_softmax_grad: the softmax
  gradient of the *output* (``out * (g - sum(g * out))``); it does not divide by the temperature
  and, with ``hard``, uses the one-hot output (so the gradient is zero), as the real kernel.
* ``temporal_shift(x)``: the channel groups moved one frame back / forward (zeros where nothing
  arrives); its VJP is the opposite shift of the gradient (Paddle's temporal_shift_grad).
"""
from __future__ import annotations

import numpy as np

from . import _kernels as K
from ..registry import apply, exact_first_order, needs_grad, register


# ======================================================================= gumbel_softmax
def _one_hot_of_max(y, axis):
    idx = np.argmax(y, axis=axis)
    out = np.zeros_like(y)
    np.put_along_axis(out, np.expand_dims(idx, axis), y.dtype.type(1), axis=axis)
    return out


def _gumbel_fwd(x, noise, temperature=1.0, hard=False, axis=-1):
    from .nn import softmax_kernel

    t = x.dtype.type
    with np.errstate(all="ignore"):
        z = (x + noise) / t(np.float32(temperature))
    y = softmax_kernel(z, axis)
    return _one_hot_of_max(y, axis % max(x.ndim, 1)) if hard and x.ndim else y


def _gumbel_vjp(n, g):
    from .nn import softmax_grad

    return softmax_grad(n.out(), g, n.attrs["axis"]), None


GUMBEL_SOFTMAX = register(
    "gumbel_softmax", _gumbel_fwd, _gumbel_vjp, diff_inputs=(0,), saves_inputs=False,
    legacy_name="GumbelSoftmaxBackward",
    examples=[([(2, 5), (2, 5)], {"temperature": 1.0, "hard": False, "axis": -1}),
              ([(3, 2, 4), (3, 2, 4)], {"temperature": 1.0, "hard": False, "axis": 1})])


def gumbel_softmax(x, noise, temperature, hard, axis):
    return apply(GUMBEL_SOFTMAX, (x, noise), {"temperature": float(temperature),
                                             "hard": bool(hard), "axis": int(axis)})


# ======================================================================= temporal_shift
def _shift(a, seg_num, shift_ratio, nhwc, back):
    """Move channel groups in time; ``back`` is the gradient's (opposite) direction."""
    if nhwc:
        a = np.transpose(a, (0, 3, 1, 2))
    nt, c, h, w = a.shape
    v = a.reshape(nt // seg_num, seg_num, c, h, w)
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    out = np.zeros_like(v)
    if not back:
        out[:, 1:, :c1] = v[:, :-1, :c1]      # the first channels: from frame t - 1
        out[:, :-1, c1:c2] = v[:, 1:, c1:c2]  # the next ones: from frame t + 1
    else:
        out[:, :-1, :c1] = v[:, 1:, :c1]
        out[:, 1:, c1:c2] = v[:, :-1, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]
    out = out.reshape(nt, c, h, w)
    return np.ascontiguousarray(np.transpose(out, (0, 2, 3, 1))) if nhwc else out


def _ts_fwd(x, seg_num=1, shift_ratio=0.25, nhwc=False):
    return _shift(x, seg_num, shift_ratio, nhwc, False)


def _ts_grad_fwd(g, seg_num=1, shift_ratio=0.25, nhwc=False):
    return _shift(g, seg_num, shift_ratio, nhwc, True)


def _ts_vjp(n, g):
    return apply(TEMPORAL_SHIFT_GRAD, (g,), dict(n.attrs))


def _ts_grad_vjp(n, g):
    return apply(TEMPORAL_SHIFT, (g,), dict(n.attrs))


_TS_EXAMPLES = [([(4, 4, 2, 2)], {"seg_num": 2, "shift_ratio": 0.25, "nhwc": False}),
                ([(6, 2, 3, 8)], {"seg_num": 3, "shift_ratio": 0.25, "nhwc": True})]
TEMPORAL_SHIFT = register("temporal_shift", _ts_fwd, _ts_vjp, saves_inputs=False,
                          saves_output=False, legacy_name="TemporalShiftBackward",
                          examples=_TS_EXAMPLES)
TEMPORAL_SHIFT_GRAD = register("temporal_shift_grad", _ts_grad_fwd, _ts_grad_vjp,
                               saves_inputs=False, saves_output=False,
                               legacy_name="TemporalShiftGradBackward", examples=_TS_EXAMPLES)


def temporal_shift(x, seg_num, shift_ratio, nhwc):
    return apply(TEMPORAL_SHIFT, (x,), {"seg_num": int(seg_num), "shift_ratio": float(shift_ratio),
                                        "nhwc": bool(nhwc)})


# ======================================================================= hsigmoid_loss
# Paddle's hierarchical sigmoid (phi's hsigmoid_loss kernel and MatrixBitCodeFunctor). Each
# sample i walks a path of code_length nodes: with the default tree (num_classes given) class c
# is coded as c + num_classes and step j uses node (code >> (j + 1)) - 1 and bit code & (1 << j),
# the path ending where the code's highest bit is; with a custom tree, row i of path_table /
# path_code gives the nodes and bits, ended by the first negative node.
def _hs_codes(label, num_classes, path_table, path_code):
    """(node index [N, L] (0 outside the path), bit [N, L], in-path mask [N, L])."""
    label = np.asarray(label).reshape(-1).astype(np.int64)
    if path_table is None or not np.size(path_table):
        width = int(num_classes - 1).bit_length()  # FindLastSet(num_classes - 1)
        code = label + int(num_classes)
        j = np.arange(width)
        length = np.array([int(c).bit_length() - 1 for c in code], np.int64)
        mask = j[None, :] < length[:, None]
        idx = (code[:, None] >> (j[None, :] + 1)) - 1
        bit = (code[:, None] >> j[None, :]) & 1
    else:
        table, pcode = np.asarray(path_table, np.int64), np.asarray(path_code, np.int64)
        neg = table < 0
        first_neg = np.where(neg.any(1), neg.argmax(1), table.shape[1])
        mask = np.arange(table.shape[1])[None, :] < first_neg[:, None]
        idx, bit = table, pcode != 0
    idx = np.where(mask, idx, 0)
    return idx, (bit != 0) & mask, mask


_BLAS = {}


def _blas(name, ctype):
    """MKL's ``cblas_<name>`` (what Paddle's CPU blas.DOT / blas.AXPY call), or None."""
    if name not in _BLAS:
        import ctypes

        from .. import mkl

        lib = mkl.load()
        f = getattr(lib, "cblas_" + name, None) if lib else None
        if f is not None:
            P, I = ctypes.c_void_p, ctypes.c_int
            f.argtypes = [I, P, I, P, I] if name.endswith("dot") else [I, ctype, P, I, P, I]
            f.restype = ctype if name.endswith("dot") else None
        _BLAS[name] = f
    return _BLAS[name]


def _row_dots(a, b):
    """Row-by-row dot products of a [M, D] and b [M, D] as MKL's ?dot (in order elsewhere)."""
    import ctypes

    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    f32 = a.dtype == np.float32
    f = _blas("sdot" if f32 else "ddot", ctypes.c_float if f32 else ctypes.c_double)
    if f is None or a.dtype not in (np.float32, np.float64):
        acc = np.zeros(a.shape[0], a.dtype)
        for k in range(a.shape[1]):
            acc += a[:, k] * b[:, k]
        return acc
    from ..mkl import address

    d, item = a.shape[1], a.dtype.itemsize
    pa, pb = address(a), address(b)
    return np.array([f(d, pa + i * d * item, 1, pb + i * d * item, 1)
                     for i in range(a.shape[0])], a.dtype)


_EXP64 = K.libm64("exp", np.exp)
_LOG64 = K.libm64("log", np.log)


def _hs_fwd(x, w, bias, label, path_table=None, path_code=None, num_classes=2):
    from .nn import eigen_exp, eigen_log

    t = x.dtype.type
    idx, bit, mask = _hs_codes(label, num_classes, path_table, path_code)
    n, width = idx.shape
    pre = np.zeros((n, width), x.dtype)
    ii, jj = np.nonzero(mask)  # (i, j) in the kernel's order
    rows = idx[ii, jj]
    if bias is not None and bias.size:
        pre[ii, jj] += bias.reshape(-1)[rows]
    pre[ii, jj] += _row_dots(w[rows], x[ii])
    np.clip(pre, t(-40.0), t(40.0), out=pre)
    picked = np.where(bit, pre, t(0))
    out = np.zeros(n, x.dtype)
    for j in range(width):
        out = out + picked[:, j]
    out = t(-1) * out
    with np.errstate(all="ignore"):
        soft = eigen_log(t(1) + eigen_exp(pre)) if x.dtype == np.float32 \
            else _LOG64(t(1) + _EXP64(pre))  # (float64: the C library's, value by value)
    total = np.zeros(n, x.dtype)
    for j in range(width):
        total = total + soft[:, j]
    return (total + out).reshape(n, 1), soft


def _hs_pre_grad(soft, bit, mask, dout):
    """The gradient of the clipped logits: (1 - 1/exp(pre_out) - bit) * dout (VML exp, inv)."""
    from .nn import _vexp

    t = soft.dtype.type
    with np.errstate(all="ignore"):
        g = t(1) - t(1) / _vexp(soft)
    g = g - bit.astype(soft.dtype)
    return g * dout.reshape(-1, 1)


def _hs_grad_kernel(x, w, soft, idx, bit, mask, dout, want_bias):
    """Paddle's hsigmoid_loss_grad: bias / weight rows gather their (i, j) terms in order,
    x's rows theirs in j order."""
    pg = _hs_pre_grad(soft, bit, mask, dout)
    ii, jj = np.nonzero(mask)
    rows = idx[ii, jj]
    terms = pg[ii, jj]
    db = None
    if want_bias:
        db = np.zeros(w.shape[0], x.dtype)
        np.add.at(db, rows, terms)
    dw = _axpy_rows(rows, terms, x, ii, np.zeros_like(w))
    dx = np.zeros_like(x)
    for j in range(idx.shape[1]):
        sel = mask[:, j]
        if sel.any():
            dx[sel] = dx[sel] + pg[sel, j][:, None] * w[idx[sel, j]]
    return dx, dw, db


def _axpy_rows(rows, scales, x, ii, dw):
    """dw[rows[k]] += scales[k] * x[ii[k]] for each k in turn, as MKL's ?axpy (it fuses the
    multiply into the add on Intel AVX-512), numpy's rounded products elsewhere."""
    import ctypes

    f32 = dw.dtype == np.float32
    f = _blas("saxpy" if f32 else "daxpy", ctypes.c_float if f32 else ctypes.c_double) \
        if dw.dtype in (np.float32, np.float64) else None
    if f is None:
        np.add.at(dw, rows, scales[:, None] * x[ii])
        return dw
    from ..mkl import address

    x = np.ascontiguousarray(x)
    d, item = x.shape[1], x.dtype.itemsize
    px, pw = address(x), address(dw)
    for r, s, i in zip(rows.tolist(), scales.tolist(), ii.tolist()):
        f(d, s, px + i * d * item, 1, pw + r * d * item, 1)
    return dw


def _one_hot_rows(like, idx, mask, n_rows):
    """A constant [N * L, n_rows] one-hot of the in-path nodes (zero rows off the path)."""
    from ._util import const

    flat = idx.reshape(-1)
    m = np.zeros((flat.size, n_rows), like.data.dtype)
    keep = mask.reshape(-1)
    m[np.nonzero(keep)[0], flat[keep]] = 1
    return const(like, m)


@exact_first_order
def _hs_vjp(n, g, _g_pre=None):
    from ..grad_mode import is_grad_enabled
    from ._util import const
    from .linalg import matmul
    from .math import add, clip, multiply, sigmoid, subtract
    from .reduce import sum as rsum
    from .shape import reshape

    x, w, bias, label, table, pcode = n.inputs  # (empty bias / paths: none)
    a = n.attrs
    idx, bit, mask = _hs_codes(label.data, a["num_classes"], table.data, pcode.data)
    has_bias = bool(bias.data.size)
    if not is_grad_enabled():
        dx, dw, db = _hs_grad_kernel(x.data, w.data, n.out(1).data, idx, bit, mask, g.data,
                                     bool(has_bias) and needs_grad(n, 2))
        return (const(g, dx), const(g, dw),
                const(g, db.reshape(bias.data.shape)) if db is not None else None,
                None, None, None)
    # create_graph: the same gradient with Tensor ops (one-hot products select the nodes)
    nb, width = idx.shape
    d = x.data.shape[1]
    sel = _one_hot_rows(x, idx, mask, w.data.shape[0])             # [N*L, C]
    x_rep = reshape(matmul(const(x, np.repeat(np.eye(nb), width, axis=0)), x), [nb * width, d])
    z = rsum(multiply(matmul(sel, w), x_rep), (1,), True)           # [N*L, 1]
    if has_bias:
        z = add(z, matmul(sel, reshape(bias, [-1, 1])))
    p = sigmoid(clip(z, -40.0, 40.0))
    pg = multiply(subtract(p, const(x, bit.reshape(-1, 1))), const(x, mask.reshape(-1, 1)))
    pg = multiply(pg, reshape(matmul(const(x, np.repeat(np.eye(nb), width, axis=0)), g),
                              [nb * width, 1]))
    dx = reshape(rsum(reshape(multiply(pg, matmul(sel, w)), [nb, width, d]), (1,)), [nb, d])
    dw = matmul(sel, multiply(pg, x_rep), transpose_x=True)
    db = reshape(matmul(sel, pg, transpose_x=True), list(bias.data.shape)) if has_bias else None
    return dx, dw, db, None, None, None


_HS_LABEL = np.array([0, 3, 2, 1], np.int64)
_NO_PATH = np.zeros((0,), np.int64)  # the default tree (no path_table / path_code)
HSIGMOID_LOSS = register(
    "hsigmoid_loss", _hs_fwd, _hs_vjp, n_outputs=2, diff_inputs=(0, 1, 2), diff_outputs=(0,),
    legacy_name="HsigmoidLossBackward",
    examples=[([(4, 3), (3, 3), (3, 1), _HS_LABEL, _NO_PATH, _NO_PATH], {"num_classes": 4}),
              ([(4, 5), (4, 5), (4, 1), _HS_LABEL, np.array([[0, 1, -1], [0, 2, 3], [1, -1, -1],
                                                             [3, 2, 0]]),
                np.array([[1, 0, -1], [0, 1, 1], [1, -1, -1], [0, 0, 1]])],
               {"num_classes": 4})])


def hsigmoid_loss(x, w, bias, label, path_table, path_code, num_classes):
    """The loss [N, 1]; ``bias`` / ``path_table`` / ``path_code`` are Tensors, empty for none."""
    return apply(HSIGMOID_LOSS, (x, w, bias, label, path_table, path_code),
                 {"num_classes": int(num_classes)})[0]


# ======================================================================= fractional_max_pool
# Paddle's FractionalMaxPool{2,3}dFunctor: per spatial axis alpha = (in - pool) / (out - (pool >
# 0)), u scaled by FractionalRationalU when no kernel size is given, window k = [int((k + u) *
# alpha) - int(u * alpha), int((k + 1 + u) * alpha) - int(u * alpha)) (or start + pool), all in
# float32; each output is the window's first maximum (a strict > scan from -FLT_MAX), its mask
# the flat index in the plane. The gradient adds each output's gradient at its mask, in order.
_F32 = np.float32


def _frac_windows(size_in, size_out, pool, u):
    alpha = _F32(size_in - pool) / _F32(size_out - (1 if pool > 0 else 0))
    if pool <= 0:
        base = size_in // size_out
        max1 = _F32(base + 2) / alpha - _F32(1)
        max2 = _F32(size_in + 1 - base) / alpha - _F32(size_out - 1)
        u = _F32(u) * min(max1, max2)
    u = _F32(u)
    shift = int(u * alpha)
    wins = []
    for k in range(size_out):
        start = int((_F32(k) + u) * alpha) - shift
        end = start + pool if pool > 0 else int((_F32(k + 1) + u) * alpha) - shift
        wins.append((max(start, 0), min(end, size_in)))
    return wins


def _frac_pool_fwd(x, output_size=(), kernel_size=(), u=0.0):
    nd = len(output_size)
    lead = x.shape[:2]
    spatial = x.shape[2:]
    planes = x.reshape((-1,) + spatial)
    wins = [_frac_windows(spatial[d], output_size[d], kernel_size[d], u) for d in range(nd)]
    out = np.empty((planes.shape[0],) + tuple(output_size), x.dtype)
    mask = np.empty(out.shape, np.int32)
    flat_index = np.arange(int(np.prod(spatial))).reshape(spatial)
    low = x.dtype.type(-np.finfo(np.float32).max)
    for pos in np.ndindex(*output_size):
        sl = tuple(slice(*wins[d][pos[d]]) for d in range(nd))
        vals = planes[(slice(None),) + sl].reshape(planes.shape[0], -1)
        idx = flat_index[sl].reshape(-1)
        if vals.shape[1] == 0:
            out[(slice(None),) + pos], mask[(slice(None),) + pos] = low, -1
            continue
        k = np.argmax(vals, axis=1)
        best = vals[np.arange(vals.shape[0]), k]
        found = best > low
        out[(slice(None),) + pos] = np.where(found, best, low)
        mask[(slice(None),) + pos] = np.where(found, idx[k], -1)
    return out.reshape(lead + tuple(output_size)), mask.reshape(lead + tuple(output_size))


def _frac_pool_vjp(n, g, _g_mask=None):
    from ._util import const
    from .index import gather_grad
    from .shape import reshape

    shape = list(n.in_meta[0][0])
    plane = int(np.prod(shape[2:]))
    mask = n.out(1).data.reshape(-1, int(np.prod(n.out(1).data.shape[2:])))
    where = (mask.astype(np.int64) + (np.arange(mask.shape[0]) * plane)[:, None]).reshape(-1)
    keep = np.nonzero(mask.reshape(-1) >= 0)[0]
    flat_g = reshape(g, [-1])
    if keep.size != where.size:
        from .index import gather

        flat_g, where = gather(flat_g, const(g, keep, np.int64)), where[keep]
    dx = gather_grad(flat_g, const(g, where, np.int64), (int(np.prod(shape)),), 0)
    return reshape(dx, shape)


FRACTIONAL_MAX_POOL = register(
    "fractional_max_pool", _frac_pool_fwd, _frac_pool_vjp, n_outputs=2, diff_outputs=(0,),
    saves_inputs=False, legacy_name="FractionalMaxPoolBackward", domain="distinct",
    examples=[([(1, 2, 5, 5)], {"output_size": (3, 2), "kernel_size": (0, 0), "u": 0.3}),
              ([(1, 1, 4, 5, 4)], {"output_size": (2, 2, 2), "kernel_size": (2, 2, 2),
                                   "u": 0.6})])


def fractional_max_pool(x, output_size, kernel_size, u):
    return apply(FRACTIONAL_MAX_POOL, (x,), {"output_size": tuple(int(v) for v in output_size),
                                             "kernel_size": tuple(int(v) for v in kernel_size),
                                             "u": float(u)})


# ======================================================================= frame / overlap_add
# paddle.signal's two ops: frame cuts [..., T] into [..., L, n] (axis -1) or [T, ...] into
# [n, L, ...] (axis 0), frame k being samples k*hop .. k*hop + L - 1; overlap_add is its
# adjoint, adding the frames back frame by frame. Each one's gradient is the other.
def _frame_fwd(x, frame_length=1, hop_length=1, axis=-1, count=0):
    """(``count``: the number of frames when fewer than fit: overlap_add's gradient)"""
    a = np.moveaxis(x, 0, -1) if axis == 0 else x
    n = count or 1 + (a.shape[-1] - frame_length) // hop_length
    idx = np.arange(frame_length)[:, None] + hop_length * np.arange(n)[None, :]  # [L, n]
    out = a[..., idx]
    if axis == 0:  # [..., L, n] -> [n, L, ...]
        out = np.moveaxis(np.moveaxis(out, -1, 0), -1, 1)
    return np.ascontiguousarray(out)


def _overlap_add_fwd(x, hop_length=1, axis=-1, total=0):
    """(``total``: the output's length when longer than the frames reach: frame's gradient of a
    sequence whose tail no frame covers)"""
    a = np.moveaxis(np.moveaxis(x, 0, -1), 0, -2) if axis == 0 else x  # -> [..., L, n]
    length, n = a.shape[-2], a.shape[-1]
    out = np.zeros(a.shape[:-2] + (max((n - 1) * hop_length + length, total),), x.dtype)
    for k in range(n):
        out[..., k * hop_length:k * hop_length + length] += a[..., :, k]
    if axis == 0:
        out = np.moveaxis(out, -1, 0)
    return out


def _frame_vjp(n, g):
    a = n.attrs
    total = n.in_meta[0][0][0 if a["axis"] == 0 else -1]
    return apply(OVERLAP_ADD, (g,), {"hop_length": a["hop_length"], "axis": a["axis"],
                                     "total": int(total)})


def _overlap_add_vjp(n, g):
    a = n.attrs
    shape = n.in_meta[0][0]
    length, count = (shape[1], shape[0]) if a["axis"] == 0 else (shape[-2], shape[-1])
    return apply(FRAME, (g,), {"frame_length": int(length), "hop_length": a["hop_length"],
                               "axis": a["axis"], "count": int(count)})


FRAME = register("frame", _frame_fwd, _frame_vjp, saves_inputs=False, saves_output=False,
                 legacy_name="FrameBackward",
                 examples=[([(2, 9)], {"frame_length": 4, "hop_length": 2, "axis": -1}),
                           ([(7, 3)], {"frame_length": 3, "hop_length": 2, "axis": 0})])
OVERLAP_ADD = register("overlap_add", _overlap_add_fwd, _overlap_add_vjp, saves_inputs=False,
                       saves_output=False, legacy_name="OverlapAddBackward",
                       examples=[([(2, 4, 3)], {"hop_length": 2, "axis": -1}),
                                 ([(3, 4, 2)], {"hop_length": 1, "axis": 0}),
                                 ([(2, 4, 2)], {"hop_length": 2, "axis": -1, "total": 9})])


def frame(x, frame_length, hop_length, axis):
    return apply(FRAME, (x,), {"frame_length": int(frame_length), "hop_length": int(hop_length),
                               "axis": int(axis)})


def overlap_add(x, hop_length, axis):
    return apply(OVERLAP_ADD, (x,), {"hop_length": int(hop_length), "axis": int(axis)})


# ====================================================================== embedding, scale_grad_by_freq
def _scaled_embedding_grad_fwd(ids, g, rows=1, padding_idx=-1):
    """EmbeddingWithScaledGradientGradKernel (3.x): the embedding gradient summed per id as
    usual, then each id's row divided by how often the id occurs (in T); the padding row
    untouched."""
    from .nn import _embedding_grad_fwd

    out = _embedding_grad_fwd(ids, g, rows=rows, padding_idx=padding_idx)
    idx = ids.astype(np.int64).reshape(-1)
    counts = np.bincount(idx, minlength=rows)
    for i in np.unique(idx):
        if i != padding_idx:
            out[i] = out[i] / out.dtype.type(counts[i])
    return out


def _scaled_embedding_vjp(n, g):
    rows = n.in_meta[1][0][0]
    return None, apply(EMBEDDING_SCALED_GRAD, (n.inputs[0], g),
                       {"rows": int(rows), "padding_idx": n.attrs.get("padding_idx", -1)})


def _scaled_embedding_fwd(ids, weight, padding_idx=-1):
    from .nn import _embedding_fwd

    return _embedding_fwd(ids, weight, padding_idx=padding_idx)


EMBEDDING_SCALED = register(   # (its "gradient" is scaled on purpose: no finite-difference check)
    "embedding_with_scaled_gradient", _scaled_embedding_fwd, _scaled_embedding_vjp,
    diff_inputs=(1,), second_order=False, legacy_name="EmbeddingWithScaledGradientBackward",
    examples=[([np.array([[0, 2], [1, 2]]), (3, 4)], {}),
              ([np.array([0, 1, 1, 2, 1]), (3, 2)], {"padding_idx": 2})], check=False)
EMBEDDING_SCALED_GRAD = register("embedding_with_scaled_gradient_grad",
                                 _scaled_embedding_grad_fwd, None, diff_inputs=(1,), check=False)


def embedding_scaled_grad(ids, weight, padding_idx=-1):
    """Paddle 3.x's embedding with ``scale_grad_by_freq``: the weight gradient's rows divided
    by their ids' counts in the batch."""
    return apply(EMBEDDING_SCALED, (ids, weight), {"padding_idx": int(padding_idx)})
