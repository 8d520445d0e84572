"""Convolution, pooling and normalisation: the engine ops against slow direct numpy references,
and the Paddle API against outputs recorded once from real Paddle 3.3.1 (``PADDLE`` below).

The references loop over output positions, windows and kernel taps the obvious way (float64);
the engine's ops are im2col / strided-window code, so the two share nothing but the definition.
The recorded cases use inputs built from a fixed integer formula (``grid``) so that the test can
rebuild them; they were produced by running the same calls under ``/tmp/pd3`` (Paddle 3.3.1,
CPU) and are kept as float32 literals (shortest round-trip form).

Gradients, first and second order, are checked by finite differences in ``test_gradcheck.py``
from each op's ``examples=``.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import gradrepl.paddle as paddle
import gradrepl.paddle.nn as nn
import gradrepl.paddle.nn.functional as F
# F.group_norm is Paddle 3 only (real 2.6.2 has nn.GroupNorm alone): the kernel both versions'
# GroupNorm layer calls
from gradrepl.paddle.nn.functional.norm import _group_norm  # noqa: E402
from gradrepl.engine.ops import conv as C
from gradrepl.paddle import profiles


def grid(shape, seed):
    """The recorded cases' inputs: ((i * 7919 + seed * 104729) % 1000 - 500) / 1000, float32."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    return (((i * 7919 + seed * 104729) % 1000 - 500) / 1000.0).astype(np.float32).reshape(shape)


def T(shape, seed, stop_gradient=False):
    return paddle.to_tensor(grid(shape, seed), stop_gradient=stop_gradient)


def recorded(name):
    shape, values = PADDLE[name]
    dt = np.int32 if name.endswith("_mask") else np.float32
    return np.array(values, dtype=dt).reshape(shape)


def grads(y, inputs):
    """The gradients of <y, grid(y.shape, 99)> for ``inputs`` (as the recording did)."""
    g = paddle.to_tensor(grid(list(y.shape), 99))
    return paddle.grad([y], inputs, grad_outputs=[g], allow_unused=True)


# ====================================================================== references
def conv2d_ref(x, w, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    pt, pb, pl, pr = pads
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, m, oh, ow))
    mg = m // groups
    for b in range(n):
        for o in range(m):
            g = o // mg
            for i in range(oh):
                for j in range(ow):
                    s = 0.0
                    for ci in range(cg):
                        for a in range(kh):
                            for e in range(kw):
                                r, q = i * sh + a * dh - pt, j * sw + e * dw - pl
                                if 0 <= r < h and 0 <= q < wd:
                                    s += w[o, ci, a, e] * x[b, g * cg + ci, r, q]
                    out[b, o, i, j] = s
    return out


def conv2d_transpose_ref(x, w, stride, pads, dilation, groups, out_hw):
    """Each input value scattered through the kernel (the definition of the transpose)."""
    n, cin, h, wd = x.shape
    _, mg, kh, kw = w.shape
    cig = cin // groups
    oh, ow = out_hw
    out = np.zeros((n, mg * groups, oh, ow))
    for b in range(n):
        for ci in range(cin):
            g = ci // cig
            for i in range(h):
                for j in range(wd):
                    for o in range(mg):
                        for a in range(kh):
                            for e in range(kw):
                                r = i * stride[0] + a * dilation[0] - pads[0]
                                q = j * stride[1] + e * dilation[1] - pads[2]
                                if 0 <= r < oh and 0 <= q < ow:
                                    out[b, g * mg + o, r, q] += x[b, ci, i, j] * w[ci, o, a, e]
    return out


def filter_grad_ref(x, dy, stride, pads, dilation, groups, ksize):
    n, c, h, wd = x.shape
    _, m, oh, ow = dy.shape
    kh, kw = ksize
    cg, mg = c // groups, m // groups
    out = np.zeros((m, cg, kh, kw))
    for o in range(m):
        g = o // mg
        for ci in range(cg):
            for a in range(kh):
                for e in range(kw):
                    s = 0.0
                    for b in range(n):
                        for i in range(oh):
                            for j in range(ow):
                                r = i * stride[0] + a * dilation[0] - pads[0]
                                q = j * stride[1] + e * dilation[1] - pads[2]
                                if 0 <= r < h and 0 <= q < wd:
                                    s += dy[b, o, i, j] * x[b, g * cg + ci, r, q]
                    out[o, ci, a, e] = s
    return out


def _windows_ref(n, k, s, p0, p1, ceil, adaptive, out):
    """Paddle's Pool2dFunctor windows along one axis: [(start, end, size counting padding)]."""
    if adaptive:
        return [(i * n // out, -(-(i + 1) * n // out), -(-(i + 1) * n // out) - i * n // out)
                for i in range(out)]
    span = n + p0 + p1 - k
    out = (-(-span // s) if ceil else span // s) + 1
    res = []
    for i in range(out):
        hs = i * s - p0
        he = min(hs + k, n + p1)
        res.append((max(hs, 0), min(he, n), he - hs))
    return res


def pool_ref(x, kind, ksize, stride=(1, 1), pads=(0, 0, 0, 0), ceil=False, exclusive=True,
             adaptive=False):
    n, c, h, w = x.shape
    rows = _windows_ref(h, ksize[0], stride[0], pads[0], pads[1], ceil, adaptive, ksize[0])
    cols = _windows_ref(w, ksize[1], stride[1], pads[2], pads[3], ceil, adaptive, ksize[1])
    out = np.zeros((n, c, len(rows), len(cols)))
    for i, (r0, r1, rs) in enumerate(rows):
        for j, (c0, c1, cs) in enumerate(cols):
            win = x[:, :, r0:r1, c0:c1]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                div = (r1 - r0) * (c1 - c0) if (exclusive or adaptive) else rs * cs
                out[:, :, i, j] = win.sum(axis=(2, 3)) / div
    return out


def _f64(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


# ====================================================================== engine ops vs references
CONV_CASES = [
    ((1, 2, 5, 5), (3, 2, 3, 3), {}),
    ((1, 2, 5, 5), (3, 2, 3, 3), {"padding": (1, 1, 1, 1)}),
    ((2, 4, 7, 6), (6, 2, 2, 3), {"stride": (2, 1), "padding": (1, 0, 0, 2), "dilation": (1, 2),
                                  "groups": 2}),
    ((1, 3, 6, 6), (3, 1, 3, 3), {"stride": (2, 2), "padding": (1, 1, 1, 1), "groups": 3}),
    ((2, 1, 4, 9), (2, 1, 1, 4), {"stride": (1, 3), "dilation": (1, 2)}),
]


@pytest.mark.parametrize("xs,ws,attrs", CONV_CASES)
def test_conv2d_matches_the_direct_definition(xs, ws, attrs):
    x, w = _f64(xs, 1), _f64(ws, 2)
    geo = {"stride": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1, **attrs}
    got = C._conv2d_fwd(x, w, **geo)
    want = conv2d_ref(x, w, geo["stride"], geo["padding"], geo["dilation"], geo["groups"])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    dy = _f64(want.shape, 3)
    np.testing.assert_allclose(
        C._conv2d_grad_filter_fwd(x, dy, ksize=ws[2:], **geo),
        filter_grad_ref(x, dy, geo["stride"], geo["padding"], geo["dilation"], geo["groups"],
                        ws[2:]), rtol=1e-12, atol=1e-12)
    # the input gradient is the transposed convolution back to x's size
    np.testing.assert_allclose(
        C._conv2d_transpose_fwd(dy, w, out_hw=xs[2:], **geo),
        conv2d_transpose_ref(dy, w, geo["stride"], geo["padding"], geo["dilation"],
                             geo["groups"], xs[2:]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("xs,ws,attrs,out_hw", [
    ((1, 2, 3, 3), (2, 3, 3, 3), {"stride": (2, 2), "padding": (1, 1, 1, 1)}, (5, 5)),
    ((1, 2, 3, 3), (2, 3, 3, 3), {"stride": (2, 2), "padding": (1, 1, 1, 1)}, (6, 6)),
    ((2, 4, 3, 2), (4, 1, 2, 2), {"groups": 2, "dilation": (2, 1)}, (5, 3)),
    ((1, 1, 2, 3), (1, 2, 3, 2), {"stride": (3, 1), "padding": (0, 1, 1, 0)}, (5, 3)),
])
def test_conv2d_transpose_matches_the_scatter_definition(xs, ws, attrs, out_hw):
    x, w = _f64(xs, 4), _f64(ws, 5)
    geo = {"stride": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1, **attrs}
    got = C._conv2d_transpose_fwd(x, w, out_hw=out_hw, **geo)
    want = conv2d_transpose_ref(x, w, geo["stride"], geo["padding"], geo["dilation"],
                                geo["groups"], out_hw)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


POOL_CASES = [
    ("max", (2, 2), {"stride": (2, 2)}, (1, 2, 6, 8)),
    ("max", (3, 3), {"stride": (2, 2), "padding": (1, 1, 1, 1)}, (2, 1, 7, 7)),
    ("max", (2, 3), {"stride": (2, 2), "ceil": True}, (1, 1, 7, 8)),
    ("max", (3, 2), {"stride": (1, 2), "padding": (0, 2, 1, 0)}, (1, 2, 5, 5)),
    ("avg", (3, 3), {"stride": (2, 2), "padding": (1, 1, 1, 1)}, (1, 2, 7, 7)),
    ("avg", (3, 3), {"stride": (2, 2), "padding": (1, 1, 1, 1), "exclusive": False}, (1, 1, 7, 7)),
    ("avg", (3, 3), {"stride": (2, 2), "ceil": True, "exclusive": False}, (1, 1, 6, 6)),
    ("avg", (2, 2), {"stride": (1, 1), "padding": (1, 0, 0, 1), "ceil": True}, (2, 1, 4, 5)),
    ("avg", (3, 4), {"adaptive": True}, (1, 2, 7, 9)),
    ("avg", (7, 7), {"adaptive": True}, (1, 1, 7, 7)),
    ("avg", (7, 7), {"adaptive": True}, (1, 2, 1, 2)),
    ("max", (3, 4), {"adaptive": True}, (1, 2, 7, 9)),
    ("max", (2, 2), {"adaptive": True}, (1, 1, 6, 4)),
]


@pytest.mark.parametrize("kind,ksize,kw,shape", POOL_CASES)
def test_pool2d_matches_paddles_windows(kind, ksize, kw, shape):
    x = _f64(shape, 6)
    attrs = C.pool_attrs(ksize, kw.get("stride", (1, 1)), kw.get("padding", (0, 0, 0, 0)),
                         kw.get("ceil", False), kw.get("exclusive", True),
                         kw.get("adaptive", False), kind)
    got = C._pool2d_fwd(x, **attrs)
    want = pool_ref(x, kind, ksize, kw.get("stride", (1, 1)), kw.get("padding", (0, 0, 0, 0)),
                    kw.get("ceil", False), kw.get("exclusive", True), kw.get("adaptive", False))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the gradient is the adjoint: <pool(x + t v) - pool(x), dy> = t <v, pool_grad(x, dy)>
    dy = _f64(got.shape, 7)
    dx = C._pool2d_grad_fwd(x, dy, **attrs)
    assert dx.shape == x.shape
    if kind == "avg":
        v = _f64(shape, 8)
        # (rtol 1e-7: Paddle's pool_grad scales by a float 1.0f / pool_size, float64 too)
        np.testing.assert_allclose(np.sum(C._pool2d_fwd(v, **attrs) * dy), np.sum(v * dx),
                                   rtol=1e-7)
    else:  # each dy goes to its window's (first) maximum
        np.testing.assert_allclose(dx.sum(), dy.sum(), rtol=1e-10)
        assert np.all((dx == 0) | np.isin(x, got))


@pytest.mark.parametrize("geo", [{"padding": (1, 1, 1, 1)},
                                 {"stride": (2, 1), "padding": (0, 1, 1, 0), "dilation": (1, 2),
                                  "groups": 2}])
def test_large_batches_are_laid_out_in_chunks_with_the_same_results(monkeypatch, geo):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 4, 20, 18)).astype(np.float32)
    w = rng.standard_normal((6, 4 // geo.get("groups", 1), 3, 3)).astype(np.float32)
    # (a batch is laid out in chunks only past 32 MB of columns, far past the exact chain's
    # limit: the whole product is BLAS's too there, as here with the limit lowered)
    token = C._CHAIN_LIMIT_NOW.set(0)
    whole = C._conv2d_fwd(x, w, **geo)
    dy = rng.standard_normal(whole.shape).astype(np.float32)
    whole_dx = C._conv2d_transpose_fwd(dy, w, out_hw=x.shape[2:], **geo)
    whole_dw = C._conv2d_grad_filter_fwd(x, dy, ksize=(3, 3), **geo)
    per_sample = 4 * 9 * whole.shape[2] * whole.shape[3] * 4
    monkeypatch.setattr(C, "CHUNK_BYTES", 2 * per_sample)   # chunks of 2, 2 and 1 samples
    assert C.sample_chunks(5, per_sample) == [(0, 2), (2, 4), (4, 5)]
    # every sample's product is the same BLAS call: the same bits
    assert C._conv2d_fwd(x, w, **geo).tobytes() == whole.tobytes()
    assert C._conv2d_transpose_fwd(dy, w, out_hw=x.shape[2:], **geo).tobytes() == \
        whole_dx.tobytes()
    # the filter gradient sums the chunks one after the other: equal to float32 rounding
    np.testing.assert_allclose(C._conv2d_grad_filter_fwd(x, dy, ksize=(3, 3), **geo), whole_dw,
                               rtol=1e-5, atol=1e-4)
    C._CHAIN_LIMIT_NOW.reset(token)


def _argmax_by_masked_copies(slabs):
    """The first-strict-maximum index by plain masked copies (the formulation that
    ``first_max_index`` replaces with faster whole-array passes)."""
    best = idx = None
    for k, s in slabs:
        if best is None:
            best, idx = np.array(s), np.zeros(s.shape, np.int32)
        else:
            m = s > best
            np.copyto(best, s, where=m)
            idx[m] = k
    return idx


def _awkward_values(shape, seed, dtype):
    """Small integers (ties), both zeros, infinities and NaNs (some at windows' first places)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape).astype(dtype)
    flat = x.reshape(-1)
    for value, share in ((-0.0, 0.1), (np.inf, 0.03), (-np.inf, 0.03), (np.nan, 0.08)):
        flat[rng.random(flat.size) < share] = value
    flat[0] = np.nan
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind,ksize,kw,shape", [c for c in POOL_CASES if c[0] == "max"])
def test_max_pool_index_and_gradient_keep_the_masked_copy_results(dtype, kind, ksize, kw, shape):
    x = _awkward_values(shape, 11, dtype)
    attrs = C.pool_attrs(ksize, kw.get("stride", (1, 1)), kw.get("padding", (0, 0, 0, 0)),
                         kw.get("ceil", False), kw.get("exclusive", True),
                         kw.get("adaptive", False), kind)
    p = C._Pool(x.shape[2:], attrs)
    xp = p.prepare(x, -np.inf)
    slabs = [(k, p.slab(xp, offs, -np.inf)) for k, offs in p.offsets()]
    want = _argmax_by_masked_copies(slabs)
    np.testing.assert_array_equal(C.first_max_index(slabs), want)
    # the gradient: dy (with -0 and NaN among it) at each window's chosen place, summed in the
    # windows' order where windows overlap
    dy = _awkward_values(want.shape, 12, dtype)
    dxp = p.zeros_like_input(x.shape, dtype)
    for k, offs in reversed(list(p.offsets())):
        p.scatter_add(dxp, offs, np.where(want == k, dy, np.zeros((), dtype)))
    got = C._pool2d_grad_fwd(x, dy, **attrs)
    assert got.tobytes() == p.crop(dxp).tobytes()


def test_max_pool_gradient_of_minus_zero_is_plus_zero_as_paddle():
    # Paddle 3.3.1 adds dy into zeros: -0 arrives as +0, with or without overlapping windows
    for stride, side in ((2, 2), (1, 3)):
        x = paddle.to_tensor(np.arange(side * side, dtype=np.float32).reshape(1, 1, side, side),
                             stop_gradient=False)
        y = F.max_pool2d(x, 2, stride=stride)
        (dx,) = paddle.grad(y, x, grad_outputs=paddle.to_tensor(np.full(y.shape, -0.0, np.float32)))
        assert not np.signbit(dx.numpy()).any()


def test_select_or_zero_keeps_every_bit():
    v = np.array([1.5, -0.0, np.nan, -np.inf, 7.0, -2.0], np.float32)
    v[2] = np.frombuffer(np.uint32(0x7FC00123).tobytes(), np.float32)[0]  # a NaN payload
    cond = np.array([True, True, True, False, False, True])
    out = np.full(6, 9.0, np.float32)
    C.select_or_zero(cond, v, out)
    want = np.where(cond, v, np.float32(0))
    assert out.tobytes() == want.tobytes()
    strided = np.full(12, 9.0)[::2]
    C.select_or_zero(cond, v.astype(np.float64), strided)
    assert strided.tobytes() == np.where(cond, v.astype(np.float64), 0.0).tobytes()


def test_max_pool_gradient_goes_to_the_first_maximum_of_a_tie():
    x = paddle.to_tensor([[[[1.0, 3.0], [3.0, 2.0]]]], stop_gradient=False)
    F.max_pool2d(x, 2).sum().backward()
    assert x.grad.numpy().tolist() == [[[[0.0, 1.0], [0.0, 0.0]]]]


def _norm_ref(x, axes, eps):
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


def test_norm_ops_match_their_formulas():
    x = _f64((4, 3, 2, 5), 9)
    s, b = _f64((3,), 10), _f64((3,), 11)
    y, mean, var = C._batch_norm_fwd(x, s, b, np.zeros(3), np.ones(3), 1e-5, True, 1)
    want = _norm_ref(x, (0, 2, 3), 1e-5) * s[None, :, None, None] + b[None, :, None, None]
    np.testing.assert_allclose(y, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mean, x.mean(axis=(0, 2, 3)), rtol=1e-12)
    np.testing.assert_allclose(var, x.var(axis=(0, 2, 3)), rtol=1e-12)  # biased
    rm, rv = _f64((3,), 12), np.abs(_f64((3,), 13)) + 0.5
    y, _, _ = C._batch_norm_fwd(x, s, b, rm, rv, 1e-5, False, 1)
    want = (x - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(y, want * s[None, :, None, None] + b[None, :, None, None],
                               rtol=1e-10, atol=1e-12)
    ls, lb = _f64((10,), 14), _f64((10,), 15)
    y = C._layer_norm_fwd(x, ls, lb, 1e-5, 2)
    want = _norm_ref(x, (2, 3), 1e-5) * ls.reshape(2, 5) + lb.reshape(2, 5)
    np.testing.assert_allclose(y, want, rtol=1e-10, atol=1e-12)
    x6 = _f64((2, 6, 3), 16)
    gs, gb = _f64((6,), 17), _f64((6,), 18)
    y = C._group_norm_fwd(x6, gs, gb, 1e-5, 3)
    want = _norm_ref(x6.reshape(2, 3, 6), (2,), 1e-5).reshape(2, 6, 3) * gs[:, None] + gb[:, None]
    np.testing.assert_allclose(y, want, rtol=1e-10, atol=1e-12)


# ====================================================================== against real Paddle
def _exact(got, name):
    np.testing.assert_array_equal(np.asarray(got.numpy() if hasattr(got, "numpy") else got),
                                  recorded(name), err_msg=name)


# Real Paddle 3.3.1 and 2.6.2 on the Intel Sapphire Rapids Xeon (MKL's AVX512_E1 path) compute
# these convolutions with MKL-ML's sgemm per sample and group, which fuses the multiply-adds: the
# records above (made where Paddle sums them unfused) do not hold there. sha256 (first 16 hex
# digits) of the bytes both versions printed there (/tmp script, same grid inputs and gradients).
INTEL_MKL_DIGESTS = {"conv": "48de6878fcb94b87", "conv.d0": "ffd9165e8a9b726d",
                     "conv_g": "a9c901a6a42e9648", "conv_g.d0": "b4ae65710520e7ef"}


def _exact_on_this_cpu(got, name):
    """Bit-equal to real Paddle on this machine: on Intel with MKL (computing as the CPU it runs
    on) the digest recorded there, elsewhere the unfused records."""
    import hashlib

    from gradrepl.engine import cpu, mkl

    if cpu.cpu_class() == cpu.detected() != "amd" and mkl.load():
        from conftest import skip_unless_mkl_path

        skip_unless_mkl_path(f"conv2d {name}")
        digest = hashlib.sha256(np.asarray(got.numpy()).tobytes()).hexdigest()[:16]
        assert digest == INTEL_MKL_DIGESTS[name], name
    else:
        _exact(got, name)


def _close(got, name, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got.numpy(), recorded(name), rtol=rtol, atol=atol, err_msg=name)


def test_conv2d_as_paddle_bit_for_bit_forward_and_input_gradient():
    x, w, b = T([1, 2, 5, 5], 1), T([3, 2, 3, 3], 2), T([3], 3)
    y = F.conv2d(x, w, b, padding=1)
    _exact_on_this_cpu(y, "conv")
    dx, dw, db = grads(y, [x, w, b])
    _exact_on_this_cpu(dx, "conv.d0")
    _close(dw, "conv.d1")  # Paddle sums the filter gradient in blocks: last bits may differ
    _close(db, "conv.d2")


def test_conv2d_groups_stride_dilation_and_asymmetric_padding_as_paddle():
    x, w = T([2, 4, 6, 5], 4), T([4, 2, 2, 3], 5)
    y = F.conv2d(x, w, stride=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2], groups=2)
    _exact_on_this_cpu(y, "conv_g")
    dx, dw = grads(y, [x, w])
    _exact_on_this_cpu(dx, "conv_g.d0")
    _close(dw, "conv_g.d1")


def test_conv2d_transpose_and_conv1d_as_paddle():
    x, w, b = T([1, 3, 4, 4], 6), T([3, 2, 3, 3], 7), T([2], 8)
    y = F.conv2d_transpose(x, w, b, stride=2, padding=1, output_padding=1)
    assert list(y.shape) == [1, 2, 8, 8]
    _close(y, "convT")
    for got, k in zip(grads(y, [x, w, b]), ("d0", "d1", "d2")):
        _close(got, f"convT.{k}")
    x, w = T([2, 3, 9], 9), T([4, 3, 3], 10)
    y = F.conv1d(x, w, stride=2, padding="same")
    assert list(y.shape) == [2, 4, 5]
    _close(y, "conv1d")
    for got, k in zip(grads(y, [x, w]), ("d0", "d1")):
        _close(got, f"conv1d.{k}")


def test_padding_forms_give_paddles_output_shapes():
    xs, ws = T([1, 1, 7, 6], 11), T([1, 1, 3, 3], 12)
    for p in ["same", "valid", 1, [1, 2], [1, 2, 0, 1], [[0, 0], [0, 0], [1, 0], [2, 1]]]:
        for s in (1, 2):
            assert list(F.conv2d(xs, ws, stride=s, padding=p).shape) == \
                PADDLE_SHAPES[f"conv {p} {s}"], (p, s)
            assert list(F.max_pool2d(xs, 3, s, padding=p).shape) == \
                PADDLE_SHAPES[f"max {p} {s}"], (p, s)


POOLS = [("max", lambda t: F.max_pool2d(t, 3, 2, padding=1)),
         ("max_ceil", lambda t: F.max_pool2d(t, 2, 2, ceil_mode=True)),
         ("avg", lambda t: F.avg_pool2d(t, 3, 2, padding=1)),
         ("avg_incl_ceil", lambda t: F.avg_pool2d(t, 3, 2, padding=1, exclusive=False,
                                                  ceil_mode=True)),
         ("aavg", lambda t: F.adaptive_avg_pool2d(t, [3, 4])),
         ("amax", lambda t: F.adaptive_max_pool2d(t, [3, 4]))]


@pytest.mark.parametrize("name,fn", POOLS, ids=[p[0] for p in POOLS])
def test_pooling_as_paddle(name, fn):
    x = T([2, 2, 7, 7], 13)
    y = fn(x)
    _exact(y, name)
    (dx,) = grads(y, [x])
    _close(dx, f"{name}.d0", rtol=1e-6, atol=1e-7)


def test_pooling_masks_as_paddle():
    x = T([2, 2, 7, 7], 13)
    _, m = F.max_pool2d(x, 3, 2, padding=1, return_mask=True)
    assert m.dtype == paddle.int32
    _exact(m, "max_mask")
    _, m = F.adaptive_max_pool2d(x, [3, 4], return_mask=True)
    _exact(m, "amax_mask")


def test_batch_norm_training_eval_and_running_statistics_as_paddle():
    x, w, b = T([4, 3, 2, 2], 14), T([3], 15), T([3], 16)
    rm, rv = paddle.zeros([3]), paddle.ones([3])
    y = F.batch_norm(x, rm, rv, w, b, training=True)
    _close(y, "bn")
    for got, k in zip(grads(y, [x, w, b]), ("d0", "d1", "d2")):
        _close(got, f"bn.{k}")
    _close(rm, "bn_rm", rtol=1e-6, atol=1e-8)   # running = 0.9 * running + 0.1 * batch
    _close(rv, "bn_rv", rtol=1e-6, atol=1e-8)   # (the batch's biased variance)
    _close(F.batch_norm(x, rm, rv, w, b, training=False), "bn_eval")


def test_layer_norm_and_group_norm_as_paddle():
    x, w, b = T([2, 3, 4], 17), T([12], 18), T([12], 19)
    y = F.layer_norm(x, [3, 4], w, b)
    _close(y, "ln")
    for got, k in zip(grads(y, [x, w, b]), ("d0", "d1", "d2")):
        _close(got, f"ln.{k}")
    x, w, b = T([2, 4, 3], 20), T([4], 21), T([4], 22)
    y = _group_norm(x, 2, 1e-5, w, b)
    _close(y, "gn")
    for got, k in zip(grads(y, [x, w, b]), ("d0", "d1", "d2")):
        _close(got, f"gn.{k}")


def test_batchnorm2d_layer_tracks_running_statistics_as_paddle():
    bn = nn.BatchNorm2D(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bn(T([2, 3, 2, 2], 23))
        bn(T([2, 3, 2, 2], 24))
    assert any("always track global mean and variance" in str(c.message) for c in caught)
    _close(bn._mean, "bnl_mean", rtol=1e-6, atol=1e-8)
    _close(bn._variance, "bnl_var", rtol=1e-6, atol=1e-8)
    bn.eval()
    before = bn._mean.numpy().copy()
    _close(bn(T([1, 3, 2, 2], 25)), "bnl_eval")
    np.testing.assert_array_equal(bn._mean.numpy(), before)  # eval leaves the statistics alone


# ====================================================================== layers
REPRS = [  # printed by Paddle 3.3.1 (the same strings as 2.x)
    (lambda: nn.Conv2D(3, 64, 3, padding=1),
     "Conv2D(3, 64, kernel_size=[3, 3], padding=1, data_format=NCHW)"),
    (lambda: nn.Conv2D(3, 64, (3, 5), stride=2, padding=[1, 2], dilation=2, bias_attr=False),
     "Conv2D(3, 64, kernel_size=[3, 5], stride=[2, 2], padding=[1, 2], dilation=[2, 2], "
     "data_format=NCHW)"),
    (lambda: nn.Conv1D(3, 4, 3, padding="same"),
     "Conv1D(3, 4, kernel_size=[3], padding=same, data_format=NCL)"),
    (lambda: nn.Conv2DTranspose(3, 4, 3, stride=2, output_padding=1),
     "Conv2DTranspose(3, 4, kernel_size=[3, 3], stride=[2, 2], output_padding=1, "
     "data_format=NCHW)"),
    (lambda: nn.MaxPool2D(2, 2), "MaxPool2D(kernel_size=2, stride=2, padding=0)"),
    (lambda: nn.AvgPool2D(3, padding=1), "AvgPool2D(kernel_size=3, stride=None, padding=1)"),
    (lambda: nn.AdaptiveAvgPool2D((7, 7)), "AdaptiveAvgPool2D(output_size=(7, 7))"),
    (lambda: nn.AdaptiveMaxPool2D(3), "AdaptiveMaxPool2D(output_size=3, return_mask=False)"),
    (lambda: nn.BatchNorm1D(5),
     "BatchNorm1D(num_features=5, momentum=0.9, epsilon=1e-05, data_format=NCL)"),
    (lambda: nn.BatchNorm2D(64), "BatchNorm2D(num_features=64, momentum=0.9, epsilon=1e-05)"),
    (lambda: nn.LayerNorm(8), "LayerNorm(normalized_shape=[8], epsilon=1e-05)"),
    (lambda: nn.GroupNorm(2, 4), "GroupNorm(num_groups=2, num_channels=4, epsilon=1e-05)"),
]


@pytest.mark.parametrize("make,text", REPRS, ids=[t.split("(")[0] + str(i)
                                                  for i, (_, t) in enumerate(REPRS)])
def test_layers_print_as_paddle(make, text):
    assert repr(make()) == text


def test_batchnorm1d_repr_drops_ncl_after_a_forward_as_paddle():
    bn = nn.BatchNorm1D(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bn(paddle.rand([2, 3]))
    assert repr(bn) == "BatchNorm1D(num_features=3, momentum=0.9, epsilon=1e-05)"


def test_layer_parameters_names_and_initialisation():
    conv = nn.Conv2D(64, 32, 3)
    assert conv.weight.name == "conv2d_0.w_0" and conv.bias.name == "conv2d_0.b_0"
    assert conv.full_name() == "conv2d_0"
    w = conv.weight.numpy()
    assert w.shape == (32, 64, 3, 3) and w.dtype == np.float32
    assert abs(w.std() / math.sqrt(2.0 / (64 * 9)) - 1) < 0.05  # He-normal, as Paddle
    assert not conv.bias.numpy().any()
    assert list(nn.Conv2DTranspose(3, 4, 3, groups=1).weight.shape) == [3, 4, 3, 3]
    bn = nn.BatchNorm2D(4)
    assert [(k, p.name, p.stop_gradient, p.trainable) for k, p in bn.named_parameters()] == [
        ("weight", "batch_norm2d_0.w_0", False, True), ("bias", "batch_norm2d_0.b_0", False, True),
        ("_mean", "batch_norm2d_0.w_1", True, False),
        ("_variance", "batch_norm2d_0.w_2", True, False)]
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    ln = nn.LayerNorm([4, 5])
    assert ln.weight.name == "layer_norm_0.w_0" and list(ln.weight.shape) == [20]


def test_conv_and_pool_layers_forward_backward():
    paddle.seed(1)
    net = nn.Sequential(nn.Conv2D(2, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                        nn.MaxPool2D(2, 2), nn.Conv2D(4, 4, 3, padding="same", groups=2),
                        nn.AvgPool2D(2), nn.AdaptiveAvgPool2D(1))
    x = paddle.rand([2, 2, 8, 8])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = net(x)
    assert list(y.shape) == [2, 4, 1, 1]
    y.sum().backward()
    for p in net.parameters():
        if not p.stop_gradient:
            assert p.grad is not None and list(p.grad.shape) == list(p.shape)
    c1 = nn.Conv1D(3, 5, 3, stride=2, padding=1, padding_mode="reflect")
    out = c1(paddle.rand([2, 3, 10]))
    assert list(out.shape) == [2, 5, 5]
    t = nn.Conv2DTranspose(4, 2, 3, stride=2, padding=1)
    assert list(t(paddle.rand([1, 4, 5, 5]), output_size=[10, 10]).shape) == [1, 2, 10, 10]


def test_conv_and_pool_are_one_node_each():
    x = paddle.rand([1, 2, 6, 6])
    x.stop_gradient = False
    w = paddle.rand([3, 2, 3, 3])
    y = F.conv2d(x, w)
    assert y.grad_node.op.name == "conv2d"
    assert y.grad_node.op.backward_name == "Conv2dGradNodeFinal"   # (real 3.3.1, 2.6.2)
    assert y.grad_node.op.legacy_name == "Conv2dBackward"
    p = F.max_pool2d(y, 2)
    assert p.grad_node.op.name == "pool2d" and p.grad_node.next_edges[0][0] is y.grad_node
    b = paddle.rand([3])
    b.stop_gradient = False
    z = F.conv2d(x, w, b)   # the bias is Paddle's separate add
    assert z.grad_node.op.name == "add"


def test_gradients_of_gradients_through_conv_and_pool():
    """paddle.grad with create_graph=True twice, against finite differences (float64)."""
    rng = np.random.default_rng(3)
    xv, wv = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((2, 2, 3, 3))

    def first(xa, wa, create):
        x = paddle.to_tensor(xa, stop_gradient=False)
        w = paddle.to_tensor(wa, stop_gradient=False)
        y = F.avg_pool2d(F.conv2d(x, w, padding=1), 2, 1)
        (gx,) = paddle.grad([(y * y).sum()], [x], create_graph=create)
        return x, w, gx

    x, w, gx = first(xv, wv, True)
    (gw,) = paddle.grad([(gx * gx).sum()], [w])
    eps = 1e-6
    num = np.zeros_like(wv)
    for idx in np.ndindex(wv.shape):
        wp, wm = wv.copy(), wv.copy()
        wp[idx] += eps
        wm[idx] -= eps
        fp = float((first(xv, wp, False)[2].numpy() ** 2).sum())
        fm = float((first(xv, wm, False)[2].numpy() ** 2).sum())
        num[idx] = (fp - fm) / (2 * eps)
    np.testing.assert_allclose(gw.numpy(), num, rtol=1e-5, atol=1e-6)


def test_argument_errors_as_paddle():
    x, w = paddle.rand([1, 3, 5, 5]), paddle.rand([4, 3, 3, 3])
    with pytest.raises(ValueError, match="Input x should be 4D tensor"):
        F.conv2d(paddle.rand([3, 5, 5]), w)
    with pytest.raises(ValueError, match="The channel of input must be divisible by groups"):
        F.conv2d(x, w, groups=2)
    with pytest.raises(ValueError, match="Unknown padding: 'HALF'"):
        F.conv2d(x, w, padding="half")
    with pytest.raises(ValueError, match="filter's channels"):
        F.conv2d(x, paddle.rand([4, 2, 3, 3]))
    with pytest.raises(ValueError, match="The stride's length must be 2"):
        F.conv2d(x, w, stride=[1, 1, 1])
    with pytest.raises(ValueError, match=r"Attr\(ceil_mode\) must be False"):
        F.max_pool2d(x, 2, padding="VALID", ceil_mode=True)
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2D(3)(paddle.rand([2, 3]))
    with pytest.raises(ValueError, match="expected input with shape"):
        F.layer_norm(paddle.rand([2, 3]), [4])


def test_same_results_under_every_profile():
    outs = []
    for key in ("2.2", "2.6", "3"):
        profiles.set_profile(key)
        x = T([1, 2, 5, 5], 1)
        w = T([3, 2, 3, 3], 2)
        y = F.max_pool2d(F.conv2d(x, w, padding=1), 2, 1)
        (dx,) = grads(y, [x])
        outs.append((y.numpy(), dx.numpy()))
    for y, dx in outs[1:]:
        np.testing.assert_array_equal(y, outs[0][0])
        np.testing.assert_array_equal(dx, outs[0][1])



def test_channel_last_layouts_agree_with_channel_first():
    x = T([2, 4, 6, 5], 30)
    xl = paddle.transpose(x, [0, 2, 3, 1])
    w, b = T([6, 2, 3, 3], 31), T([6], 32)

    def back(t):
        return paddle.transpose(t, [0, 3, 1, 2]).numpy()

    cases = [
        (lambda t, f: F.conv2d(t, w, b, stride=2, padding=1, groups=2, data_format=f)),
        (lambda t, f: F.conv2d_transpose(t, T([4, 3, 2, 2], 33), stride=2, data_format=f)),
        (lambda t, f: F.max_pool2d(t, 3, 2, padding=1, data_format=f)),
        (lambda t, f: F.avg_pool2d(t, 2, data_format=f)),
        (lambda t, f: F.adaptive_avg_pool2d(t, [3, 2], data_format=f)),
        (lambda t, f: F.batch_norm(t, paddle.zeros([4]), paddle.ones([4]), training=True,
                                   data_format=f)),
        (lambda t, f: _group_norm(t, 2, data_format=f)),
    ]
    for fn in cases:
        np.testing.assert_allclose(back(fn(xl, "NHWC")), fn(x, "NCHW").numpy(), rtol=1e-6,
                                   atol=1e-6)

# ====================================================================== recorded from Paddle 3.3.1
PADDLE = {
    'conv': ((1, 3, 5, 5), [
        -0.466388, -0.473584, -0.37443998, -0.694296, -0.70200396, -0.08061397, 0.20737997,
        0.30044898, 0.21751794, -0.0061620474, -0.657554, -0.710275, -0.61720604, -0.457137,
        -0.40976202, -0.262494, -0.27893, -0.132861, 0.175208, 0.035638034, 0.17223597, -0.23973602,
        -0.59478796, -0.78784, -0.611092, -0.22929199, -0.42335197, -0.527032, -0.507712, -0.451556,
        -0.56702995, -0.661862, -0.71102905, -0.394196, -0.10105002, 0.009909987, -0.038697004,
        -0.08786404, -0.528031, -0.54077, -0.44114998, -0.982532, -0.894699, -0.644866, -0.50549,
        -0.852908, -0.39286402, 0.21425998, -0.016616046, -0.14788398, -0.646196, -0.52712,
        -0.42862397, -0.665128, -0.542108, -0.13744608, -0.27710402, -0.22550705, -0.26591, -0.399938,
        -0.786626, -0.898119, -0.846522, -0.64392495, -0.470778, -0.46380597, -0.002134055,
        0.27046302, -0.29494, -0.440618, -0.15205199, -0.51799196, -0.786692, -0.893392, -0.762676
    ]),
    'conv.d0': ((1, 2, 5, 5), [
        0.24024001, 0.624988, 0.36723295, -0.13352199, -0.46988797, -0.35875598, -1.1581479,
        -0.25806004, 0.441028, 0.339238, 0.28095898, 0.540292, 0.56038, 0.37946802, 0.18944304,
        -0.378326, -0.7752681, -0.75518, -1.1790919, -0.418352, 0.375992, 0.58149797, 0.583037,
        0.584576, 0.477432, 0.118796036, -0.388737, 0.014389988, 0.17451699, 0.13543199, 0.11528301,
        0.514572, 0.282983, 0.12139399, -0.15207703, 0.056408003, -0.174373, -0.09896201, 0.046449043,
        -0.22146201, 0.072533, 0.22568202, 0.30109298, 0.20350404, 0.251153, -0.19463201, -0.41899702,
        -0.326576, -0.234155, -0.291428
    ]),
    'conv.d1': ((3, 2, 3, 3), [
        0.93171996, 1.2659, 0.883768, -0.75689995, -0.994625, -0.84094, 0.05444002, 0.35570002,
        0.722728, 0.94932, 0.80465, 0.48696798, -0.73614997, -1.0395, -0.81269, 0.060039975,
        0.70194995, 1.148928, 0.93172, 1.2861501, 0.91616803, -0.60765, -0.91325, -0.83819,
        -0.19056001, 0.040450007, 0.323128, 0.95931995, 0.8124, 0.50436807, -0.5994, -0.9925,
        -0.84743994, -0.19996, 0.34919995, 0.70932794, 0.51272, 0.8064001, 0.948568, -0.4304,
        -0.803875, -0.82144004, -0.40756, -0.24679995, 0.34252802, 0.52532005, 1.29515, 0.521768,
        -0.43465003, -0.9175, -0.84318995, -0.43196, 0.02444999, 0.71372795
    ]),
    'conv.d2': ((3,), [
        -0.5250001, -0.15000002, 0.2249999
    ]),
    'conv_g': ((2, 4, 3, 4), [
        -0.18989801, -0.202048, -0.26079002, -0.189412, 0.405934, 0.383902, 0.017171986, 0.001513984,
        0.22061399, 0.198582, 0.69303197, 0.587314, -0.176458, -0.19768, -0.25423798, -0.18504399,
        -0.010265994, 0.030557996, -0.234844, -0.0138299875, 0.600974, 0.641798, 0.25885603, 0.55853,
        0.012342004, -0.14095199, -0.093126, -0.082956, 0.604334, 0.18001401, 0.26838005, 0.14534602,
        0.16013402, 0.57381403, 0.45992002, 0.58126605, 0.013462005, -0.120904, -0.21705401,
        -0.107907996, 0.582494, 0.16803002, -0.051596016, -0.101637974, 0.152854, 0.57639, 0.92978394,
        0.158842, 0.291102, 0.018952005, 0.14725001, 0.041308, 0.245094, 0.22306201, 0.491492,
        0.580114, -0.038226, -0.060258023, 0.15035199, 0.148914, 0.27990198, 0.026680002, 0.14484198,
        0.049036004, 0.555614, 0.59643793, 0.941556, 0.57149, 0.09685401, 0.13767801, 0.446256,
        0.15484999, 0.321062, 0.290768, 0.458994, 0.277484, 0.13493398, 0.15761396, 0.46586,
        0.14238596, -0.348266, -0.325586, -0.113599986, -0.37969398, 0.325542, 0.286176, 0.04610601,
        -0.05210799, 0.14781399, 0.15234998, 0.87596405, 0.622122, -0.348826, -0.34429, 0.11434401,
        -0.103398
    ]),
    'conv_g.d0': ((2, 4, 6, 5), [
        0.18487, 0.057208, 0.313174, 0.04975599, 0.23507598, 0.120382, 0.08198801, 0.029662,
        0.017512001, -0.0008020003, -0.151778, -0.111439995, -0.24249798, -0.17591599, -0.097516,
        -0.033193998, -0.071588, -0.018938001, -0.031088004, 0.0011420001, 0.009574, 0.049912,
        0.02383, 0.090412006, 0.061892, 0, 0, 0, 0, 0, -0.629306, 0.104496, -0.501002, 0.097043976,
        -0.25528002, -0.42393798, -0.30486798, -0.16765799, -0.103344, -0.009229995, 0.423902,
        0.297704, 0.333182, 0.23322801, 0.10705601, 0.052341998, 0.17141199, 0.089598, 0.153912,
        -0.016358, -0.08089, -0.20708801, -0.066634, -0.16658801, -0.066608, 0, 0, 0, 0, 0,
        0.080822006, 0.061016005, 0.190982, 0.11642, 0.16037199, 0.22219, 0.165652, 0.113326,
        0.083032, 0.027422, -0.104402, -0.082208, -0.213266, -0.164828, -0.096508, -0.003961999,
        -0.060500007, -0.007850001, -0.038144, -0.006922, -0.015626002, 0.0065680007, -0.019513998,
        0.028924003, 0.026611999, 0, 0, 0, 0, 0, -0.211218, 0.19744, -0.508058, -0.235156, -0.272416,
        -0.43099397, -0.330068, -0.539858, -0.412688, -0.220438, 0.31741402, 0.254072, 0.47755,
        0.359452, 0.165632, -0.027290002, 0.073636, -0.031178001, 0.09599201, 0.060145997, 0.064046,
        0.0007040035, 0.0051580034, -0.11294001, -0.04432, 0, 0, 0, 0, 0, 0.129094, 0.169432,
        0.22110999, 0.287692, 0.179972, 0.17346999, 0.135076, 0.046462, 0.034312002, -0.0014740003,
        -0.207554, -0.167216, -0.334562, -0.26797998, -0.15261999, 0.019894002, -0.018499998,
        -0.0021380004, -0.014288001, 0.00047000003, -0.046201997, -0.005864002, -0.068234004,
        -0.0016520023, 0.006788, 0, 0, 0, 0, 0, -0.45481002, -0.581008, -0.362794, -0.46274802,
        -0.19524801, -0.588578, -0.469508, -0.256586, -0.19227198, -0.0067659914, 0.59839803,
        0.47219998, 0.47139, 0.371436, 0.167088, -0.112298, 0.0067719966, 0.0006700009, 0.064984,
        -0.013894, 0.093606, -0.032592, 0.071574, -0.028379995, -0.0065760007, 0, 0, 0, 0, 0,
        0.050134003, 0.072328, 0.124006, 0.172444, 0.117812, 0.032365993, 0.243828, 0.049213998,
        0.12492, 0.039294, 0.08291001, -0.112895995, 0.099758, -0.231804, -0.139068, 0.074214,
        0.017676, 0.034038, 0.0037440006, 0.00495, -0.046314, -0.02412, -0.086490005, -0.038052,
        -0.015948, 0, 0, 0, 0, 0, -0.12363401, -0.18697602, -0.344762, -0.46286002, -0.19984001,
        0.133454, -0.46962, 0.150302, -0.588528, -0.31743, -0.405002, 0.34165603, -0.0071540177,
        0.522748, 0.238208, -0.16684198, -0.065915994, -0.207018, -0.079848, -0.036846, 0.15163001,
        0.088288, 0.16845399, 0.050355997, 0.028256, 0, 0, 0, 0, 0
    ]),
    'conv_g.d1': ((4, 2, 2, 3), [
        0.016015999, 0.24846399, -0.032352, 0.122716025, -0.412848, -0.52548, -0.116423994,
        -0.28469598, -0.198952, -0.017864011, 0.23207197, 0.60624003, 0.062048007, 0.30424,
        -0.031343997, 0.07976402, -0.46918404, -0.5239679, -0.166712, -0.36556, -0.23042402,
        0.018703982, 0.30677596, 0.643032, 0.23692, 0.021135956, 0.06354399, 0.482732, -0.12151995,
        -0.350896, -0.111159995, -0.295304, -0.058016017, -0.47580802, -0.06552, 0.057383955,
        0.25831202, 0.08363201, 0.11159201, -0.016180024, -0.50877595, -0.418824, -0.130088,
        -0.341448, -0.09844802, -0.5212, 0.08026397, 0.10873601
    ]),
    'convT': ((1, 2, 8, 8), [
        0.47474998, 0.46231398, 0.258247, 0.127308, 0.22074398, 0.052301973, 0.18324098, 0.18283598,
        0.787292, -0.319788, -0.02571401, 0.6302, 0.061279982, 0.64218795, 0.14827399, 0.78719604,
        0.14573798, 0.26229, 0.38723502, 0.385284, 0.349732, 0.310278, 0.31222898, 0.30955598,
        0.235268, 0.783164, 0.358262, 0.43715197, 0.051256, -0.025860041, 0.13825, 0.12463598,
        0.27472597, 0.160266, 0.237223, 0.52926, 0.56272, 0.736254, 0.525217, 0.52027595, 0.22524399,
        -0.0018840134, 0.31223798, 0.356104, 0.583232, 0.39009202, 0.670226, 0.004075974, 0.487714,
        0.58624196, 0.450211, 0.413236, 0.23370798, 0.07822999, 0.19620498, 0.188996, 0.53194,
        0.33974296, 0.553486, -0.03916502, 0.15303198, 0.419927, 0.174578, 0.530369, 0.16566399,
        0.16628897, 0.31630796, 0.21357697, 0.37495196, 0.24986498, 0.43359596, 0.064190984, 0.569708,
        0.608338, 0.16699599, -0.0010859966, 0.12228398, -0.09051001, 0.07757199, 0.074493974,
        0.49223995, -0.046559036, 0.10088399, 0.458729, 0.15952797, 0.495017, 0.21817198, 0.52249897,
        0.03285998, 0.11864202, 0.295148, 0.213218, 0.12743598, -0.08020601, 0.08272399, 0.07510999,
        0.276816, 0.567593, 0.33545998, 0.318881, 0.028103992, -0.09183103, 0.08674799, 0.06480698,
        0.038011983, -0.25905406, -0.006700009, 0.539522, 0.67458797, 1.014098, 0.629876, 0.61772597,
        0.14539199, -0.019254982, 0.20403598, 0.19003297, 0.35468, 0.23732096, 0.413324, 0.065115005,
        0.401618, 0.488246, 0.35731098, 0.32963198, 0.162004, 0.009017989, 0.117696986, 0.11048798
    ]),
    'convT.d0': ((1, 3, 4, 4), [
        -0.302388, -0.6677241, -0.04831601, 0.356092, 0.16514298, 0.604693, 0.39501104, 0.428329,
        0.030694976, 0.44123697, -0.039444953, -0.933127, -0.357753, -0.551219, -0.517901, 0.30041695,
        0.256684, 0.248148, -0.102092005, 0.33266798, -0.336637, -0.019831046, -0.563985, 0.13486102,
        -0.15626898, 0.14093702, 0.325783, 0.55562896, 0.22809899, 0.38870496, 0.08755097, -0.428603,
        -0.73224396, -0.98598003, -0.115868, 0.539244, 0.10558304, 0.89164495, 1.013019, 0.37739304,
        0.600767, 0.37663698, -0.77298915, -1.419615, -0.242049, -1.1353711, -0.77099705, 0.378377
    ]),
    'convT.d1': ((3, 2, 3, 3), [
        -0.37606, -0.53700197, -0.10557599, 0.08214403, -0.24270396, -0.39008796, 0.509768, 0.737224,
        0.89684004, -0.03004399, -0.13173804, 0.46168798, -0.34886402, -0.63628, -0.512664, 0.66276,
        0.63164794, -0.046735972, -0.26743597, -0.40516996, -0.521032, 0.340976, 1.005072, 1.459304,
        -0.537704, -0.79407203, -0.32884005, -0.391244, -0.49033797, -0.44419998, 0.75553596, 0.19492,
        -0.079847984, -0.24314402, -0.020224035, 0.607008, 0.783188, 0.995662, 0.25151205,
        -0.39019203, -0.49615198, -0.359304, -0.279176, -0.426368, -0.57452, 0.0055559874, 0.23606196,
        -0.346088, 0.23793603, 0.46112, 0.868968, -0.475048, -0.58909595, -0.575248
    ]),
    'convT.d2': ((2,), [
        -1.3520004, 0.872
    ]),
    'conv1d': ((2, 4, 5), [
        0.08462896, 0.10522802, 0.37780002, -0.025627995, -0.26381502, -0.56639194, 0.46785802,
        0.102312, 0.06076599, 0.110222, 0.240587, -0.18951201, -0.35517603, -0.19683999, 0.24925898,
        0.11156599, 0.075118005, 0.109335996, 0.467554, -0.56370395, 0.346218, 0.37295, -0.030478008,
        -0.56290597, 0.194892, 0.307135, 0.11148699, 0.069941, 0.17039502, -0.090133004, -0.273948,
        -0.356976, -0.19863999, 0.37269598, 0.20284198, 0.021968994, 0.09656101, 0.45477903,
        -0.50300306, -0.269183
    ]),
    'conv1d.d0': ((2, 3, 9), [
        -0.16243798, 0.14845803, -0.11886001, 0.154614, -0.075281985, -0.04923001, -0.322704,
        -0.415074, -0.279126, -0.09715998, 0.14974602, -0.13685, 0.15136601, -0.17653999, -0.30001402,
        0.24977, 0.08660598, 0.21008, 0.107117996, -0.038966015, 0.06516, -0.041881993, 0.023201998,
        0.259202, 0.204244, 0.39828598, 0.162286, 0.131122, 0.115578, 0.17469999, 0.18273401,
        0.19827801, 0.087890014, 0.241856, 0.094046, 0.285434, 0.07304, 0.110146, 0.033350006,
        -0.070233986, -0.26934, -0.41261402, -0.30903003, -0.410994, -0.34872, -0.22604199, -0.085286,
        -0.268, -0.513202, 0.18404198, -0.103118, 0.14208399, -0.10603398, 0.10012598
    ]),
    'conv1d.d1': ((4, 3, 3), [
        -0.004942015, 0.027854979, 0.35104597, -0.08531399, -0.400855, -0.06771801, 0.12631398,
        -0.07256501, -0.03248201, 0.14011802, 0.11768001, 0.52110595, -0.248294, 0.027420014,
        -0.20569801, -0.154706, -0.30584, -0.288502, -0.12682198, -0.06749497, -0.11483398,
        0.09272601, 0.096695006, 0.037322, -0.015726008, 0.017885, 0.023477994, -0.23876202,
        -0.15367001, -0.22677402, 0.401746, 0.07797, 0.346342, -0.095746, 0.06661001, -0.05654199
    ]),
    'max': ((2, 2, 4, 4), [
        0.41, 0.329, 0.167, 0.491, 0.41, 0.329, 0.438, 0.438, 0.276, 0.466, 0.466, 0.304, 0.494,
        0.494, 0.332, 0.17, 0.441, 0.36, 0.198, 0.036, 0.441, 0.36, 0.469, 0.469, 0.307, 0.497, 0.497,
        0.335, 0.173, 0.444, 0.363, 0.201, 0.472, 0.391, 0.229, 0.067, 0.472, 0.391, 0.229, 0.419,
        0.338, 0.257, 0.447, 0.366, 0.204, 0.475, 0.394, 0.232, 0.422, 0.422, 0.26, 0.098, 0.422,
        0.422, 0.26, 0.45, 0.369, 0.288, 0.478, 0.397, 0.235, 0.425, 0.425, 0.263
    ]),
    'max.d0': ((2, 2, 7, 7), [
        0, 0, 0, 0, 0, 0, 0.428, 0.018000007, -0.144, 0, -0.491, 0, 0, 0, 0, 0, 0, 0, 0, 0.289, 0,
        0.023, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.197, 0, -0.22, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.68299997, 0,
        -0.463, 0, 0.456, 0, 0, 0, 0, 0, 0, 0, 0, 0.426, 0.264, 0, 0.213, 0, 0.132, 0, 0, 0, 0, 0, 0,
        -0.303, 0, -0.273, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.78900003, 0, 0.484, 0, 0.403, 0, 0, 0, 0, 0,
        0, 0, 0, 0.322, 0.241, 0, 0.16, 0, 0, 0, 0, 0, 0, 0, 0, -0.16600001, -0.328, 0, -0.49, 0,
        -0.164, 0, 0, 0, 0, 0, 0, 0, -0.488, 0.431, 0.35, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.269, 0.188, 0,
        0.107, 0, 0, 0, 0, 0, 0, 0, 0, 0.026, -0.055, 0, -0.136, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.322, 0,
        -0.08200002, 0, -0.46, 0, 0, 0, 0, 0, 0, 0, 0.216, 0.135, 0.054, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        -0.027, -0.108, 0, -0.189, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.62100005, 0, -0.432, 0
    ]),
    'max_ceil': ((2, 2, 4, 4), [
        0.41, 0.248, 0.086, 0.491, 0.276, 0.114, 0.438, 0.357, 0.142, 0.466, 0.385, 0.223, 0.494,
        0.413, 0.251, 0.089, 0.441, 0.279, 0.117, -0.045, 0.307, 0.145, 0.469, 0.388, 0.173, 0.497,
        0.416, 0.254, -0.394, 0.444, 0.282, 0.12, 0.472, 0.31, 0.148, -0.014, 0.338, 0.176, 0.014,
        0.419, 0.204, 0.042, 0.447, 0.285, -0.363, 0.475, 0.313, 0.151, 0.422, 0.341, 0.179, 0.017,
        0.369, 0.207, 0.045, 0.45, 0.235, 0.073, 0.478, 0.316, -0.332, 0.425, 0.344, 0.182
    ]),
    'max_ceil.d0': ((2, 2, 7, 7), [
        0, 0, 0, 0, 0, 0, 0.428, -0.329, 0, -0.41, 0, -0.491, 0, 0, 0, 0, 0, 0, 0, 0.185, 0.104,
        0.347, 0, 0.266, 0, 0, 0, 0, 0, 0, 0, -0.058, -0.139, 0, -0.22, 0.023, 0, 0, 0, 0, 0, 0, 0,
        -0.301, -0.382, 0, -0.463, 0, 0.456, 0, 0, 0, 0, 0, 0, 0, 0.375, 0, 0.294, 0, 0.213, 0, 0.132,
        0, 0, 0, 0, 0, -0.111, -0.192, 0.051, 0, -0.03, 0, 0, 0, 0, 0, 0, 0, -0.354, -0.435, 0, 0.484,
        -0.273, 0, 0, 0, 0, 0, 0, 0.403, 0, 0.322, 0, 0.241, 0, 0.16, 0, 0, 0, 0, 0, 0, 0, 0.079, 0,
        -0.002, 0, -0.083, 0, -0.164, 0, 0, 0, 0, 0, 0, -0.488, -0.245, 0, -0.326, 0, -0.407, 0, 0, 0,
        0, 0, 0, 0.269, 0, 0.188, 0.431, 0, 0.35, 0, 0, 0, 0, 0.107, 0, 0.026, 0, -0.055, 0, -0.136,
        0, 0, 0, 0, 0, 0, 0, 0, -0.217, -0.298, 0, -0.379, 0, -0.46, 0, 0, 0, 0, 0, 0, 0.216, 0.459,
        0, 0.378, 0, 0.297, 0, 0, 0, 0, 0, 0, -0.027, 0, -0.108, 0.135, 0, 0.054, 0, 0, 0, 0, -0.189,
        0, 0, -0.27, -0.351, 0, -0.432
    ]),
    'avg': ((2, 2, 4, 4), [
        0.153, 0.031499997, -0.1305, -0.0020000003, 0.13583332, 0.014333336, -0.036555562,
        0.064166665, 0.001833329, -0.008555561, 0.05166667, -0.06983334, 0.067999996, 0.1965,
        0.034499995, -0.087, 0.18400002, 0.0625, -0.0995, -0.221, 0.16683333, 0.04533334,
        -0.0055555496, 0.095166676, 0.032833334, 0.02244445, 0.082666665, -0.03883333, -0.151,
        0.060833335, 0.065500006, -0.055999987, 0.215, 0.093499996, -0.068500005, -0.18999998,
        0.19783334, 0.07633332, -0.08566666, -0.0405, 0.06383333, -0.05766666, 0.0025555524,
        -0.0078333365, -0.120000005, 0.09183333, 0.0965, -0.025000006, -0.004000008, 0.1245,
        -0.037499994, -0.15900001, 0.062166657, 0.10733333, -0.054666672, -0.009500007, 0.094833314,
        -0.026666675, 0.033555552, 0.023166677, -0.088999994, -0.043833327, 0.1275, 0.006000001
    ]),
    'avg.d0': ((2, 2, 7, 7), [
        -0.08225, -0.15058333, -0.068333335, -0.15016666, -0.08183333, 0.025166668, 0.107,
        -0.024416663, -0.06319444, -0.03877778, -0.100055546, -0.061277777, 0.06305556, 0.12433334,
        0.057833336, 0.08738889, 0.029555555, 0.05011111, 0.020555556, 0.037888892, 0.017333334,
        0.06166667, 0.08477777, 0.02311111, 0.028222224, 0.0051111113, -0.014222221, -0.019333335,
        0.0038333335, -0.002611111, -0.0064444444, -0.02188889, -0.0154444445, -0.05211111,
        -0.03666667, -0.07141667, -0.14152777, -0.07011112, -0.16272223, -0.09261111, -0.015277781,
        0.07733333, -0.07525, -0.13891667, -0.06366667, -0.14083335, -0.07716667, 0.03683333, 0.114,
        0.09375, 0.14275, 0.049000002, 0.0845, 0.0355, 0.0685, 0.033, 0.10225, 0.14791666, 0.04566667,
        0.068833336, 0.023166668, 0.024166662, 0.0009999983, 0.0085, 0.0051666675, -0.0033333332,
        -0.015666667, -0.0123333335, -0.044333335, -0.032, -0.037, -0.07966667, -0.042666666,
        -0.10333334, -0.06066667, -0.012000002, 0.048666667, -0.045500003, -0.08483334, -0.039333332,
        -0.08766667, -0.048333336, 0.032333333, 0.08066667, 0.055249996, 0.06958333, 0.014333334,
        0.0061666667, -0.008166667, 0.112500004, 0.12066667, 0.10075, 0.15441667, 0.053666666,
        0.093833335, 0.04016667, 0.08016667, 0.04, 0.01975, 0.019416668, -0.00033333336, -0.014166666,
        -0.013833333, -0.054833334, -0.041, -0.021083334, -0.05763889, -0.036555555, -0.09561111,
        -0.059055556, -0.1813889, -0.12233334, -0.040833335, -0.07705556, -0.036222223, -0.08144444,
        -0.045222223, -0.12655556, -0.08133334, 0.031, 0.033666667, 0.002666667, -0.012666663,
        -0.015333334, -0.06533334, -0.050000004, 0.071833335, 0.11072223, 0.03888889, 0.06877778,
        0.029888889, 0.061222225, 0.031333335, 0.09858333, 0.14180556, 0.043222222, 0.063944444,
        0.020722222, 0.018055558, -0.002666667, 0.02675, 0.031083334, 0.0043333336, -0.0048333337,
        -0.009166667, -0.043166667, -0.034, -0.05425, -0.10391667, -0.04966667, -0.112833336,
        -0.06316667, -0.17816667, -0.115, 0.02225, 0.014583331, -0.00766667, -0.03783334, -0.03016667,
        -0.10916667, -0.078999996, 0.0765, 0.118499994, 0.042, 0.075, 0.033, 0.069000006, 0.036000002,
        0.099, 0.147, 0.048, 0.078, 0.03, 0.048000008, 0.018000001, 0.0225, 0.028500002, 0.006, 0.003,
        -0.003, -0.021000002, -0.018000001, -0.024749998, -0.06375, -0.039, -0.1005, -0.0615, -0.1875,
        -0.126, -0.04725, -0.092250004, -0.045, -0.10350001, -0.058500003, -0.1665, -0.108
    ]),
    'avg_incl_ceil': ((2, 2, 4, 4), [
        0.067999996, 0.020999998, -0.087, -0.000888889, 0.09055555, 0.014333336, -0.036555562,
        0.042777777, 0.0012222193, -0.008555561, 0.05166667, -0.04655556, 0.03022222, 0.131,
        0.022999996, -0.038666666, 0.08177778, 0.041666668, -0.06633333, -0.098222226, 0.111222215,
        0.04533334, -0.0055555496, 0.06344445, 0.02188889, 0.02244445, 0.082666665, -0.025888886,
        -0.067111105, 0.040555555, 0.043666672, -0.024888882, 0.09555556, 0.06233333, -0.045666672,
        -0.08444443, 0.1318889, 0.07633332, -0.08566666, -0.027, 0.042555556, -0.05766666,
        0.0025555524, -0.0052222246, -0.053333335, 0.06122222, 0.064333335, -0.011111114,
        -0.0017777814, 0.083, -0.024999997, -0.07066667, 0.041444436, 0.10733333, -0.054666672,
        -0.006333338, 0.06322221, -0.026666675, 0.033555552, 0.015444451, -0.039555553, -0.029222216,
        0.085, 0.002666667
    ]),
    'avg_incl_ceil.d0': ((2, 2, 7, 7), [
        -0.036555555, -0.082111105, -0.045555554, -0.10011111, -0.054555554, -0.0069999993,
        0.047555555, 0.0020000003, -0.013999995, -0.015999999, -0.049999997, -0.033999998,
        0.025111113, 0.05911111, 0.038555555, 0.06811111, 0.029555555, 0.05011111, 0.020555556,
        0.032111112, 0.011555556, 0.04111111, 0.06422222, 0.02311111, 0.028222224, 0.0051111113,
        -0.0077777766, -0.012888888, 0.0025555557, -0.0038888888, -0.0064444444, -0.02188889,
        -0.0154444445, -0.03988889, -0.024444444, -0.030888889, -0.07977778, -0.04888889,
        -0.115777776, -0.06688889, -0.040666662, 0.026222223, -0.033444446, -0.07588889, -0.042444445,
        -0.09388889, -0.051444445, -0.0007777773, 0.050666668, 0.041666668, 0.07433334, 0.03266667,
        0.056333333, 0.023666667, 0.038333334, 0.014666666, 0.047333334, 0.076666676, 0.029333334,
        0.040666666, 0.011333333, 0.0046666674, -0.006666667, 0.0056666667, 0.0023333335,
        -0.0033333332, -0.015666667, -0.0123333335, -0.033666667, -0.021333333, -0.024666667,
        -0.06733333, -0.042666666, -0.10333334, -0.06066667, -0.028222226, 0.032444444, -0.030333335,
        -0.06966667, -0.039333332, -0.08766667, -0.048333336, 0.005444441, 0.053777777, 0.0144444425,
        0.010888886, -0.003555555, -0.025111113, -0.021555558, 0.049999997, 0.071555555, 0.044777777,
        0.08055556, 0.035777777, 0.06255555, 0.026777778, 0.044555556, 0.017777778, 0.008777779,
        0.008555557, -0.00022222224, -0.0094444435, -0.009222222, -0.027444445, -0.018222222,
        -0.018444445, -0.05488889, -0.036444444, -0.09088889, -0.054444443, -0.12688889, -0.07244445,
        -0.027222224, -0.06344445, -0.036222223, -0.08144444, -0.045222223, -0.09944445, -0.054222222,
        0.020666666, 0.02333333, 0.002666667, -0.012666663, -0.015333334, -0.04866667, -0.03333333,
        0.04788889, 0.08677778, 0.03888889, 0.06877778, 0.029888889, 0.050777778, 0.02088889,
        0.059777778, 0.101555556, 0.04177778, 0.06555556, 0.023777777, 0.029555555, 0.005777777,
        0.011888889, 0.014777778, 0.002888889, -0.003222222, -0.006111111, -0.021222223, -0.015111112,
        -0.02411111, -0.057222225, -0.033111114, -0.075222224, -0.042111114, -0.09322223,
        -0.051111113, 0.026888888, 0.035777774, 0.008888885, -0.00022222474, -0.009111114,
        -0.03622223, -0.027111113, 0.051, 0.092999995, 0.042, 0.075, 0.033, 0.057, 0.024, 0.066,
        0.11399999, 0.048, 0.078, 0.03, 0.042000003, 0.012, 0.015000001, 0.021000002, 0.006, 0.003,
        -0.003, -0.015000001, -0.012, -0.005999999, -0.03, -0.024, -0.066, -0.042, -0.102,
        -0.060000002, -0.021, -0.051, -0.030000001, -0.069000006, -0.039, -0.087, -0.048
    ]),
    'aavg': ((2, 2, 3, 4), [
        0.036166664, -0.08533333, -0.13622223, 0.13116667, -0.097833335, -0.10822223, 0.0631111,
        0.16383334, -0.06516667, 0.091111094, 0.15133332, 0.029833332, 0.06716668, -0.05433333,
        -0.10522221, -0.0044999965, -0.066833325, -0.07722221, 0.09411112, 0.19483332, -0.20083332,
        0.011000007, 0.18233334, 0.060833335, 0.09816667, -0.023333333, -0.18533334, -0.14016666,
        -0.035833333, -0.15733334, -0.0971111, 0.059166666, -0.16983335, -0.0691111, 0.10222222,
        0.09183333, -0.037500005, 0.007666664, -0.15433332, -0.109166674, -0.0048333383, -0.12633333,
        -0.0661111, 0.090166666, -0.13883333, -0.14922221, 0.13322222, 0.12283334
    ]),
    'aavg.d0': ((2, 2, 7, 7), [
        -0.054833334, -0.100388885, -0.045555554, -0.10011111, -0.054555554, 0.01677778, 0.071333334,
        -0.054833334, -0.100388885, -0.045555554, -0.10011111, -0.054555554, 0.01677778, 0.071333334,
        0.0030000024, -0.012999993, -0.015999999, -0.049999997, -0.033999998, 0.05466667, 0.08866667,
        0.057833336, 0.08738889, 0.029555555, 0.05011111, 0.020555556, 0.037888892, 0.017333334,
        0.06166667, 0.08477777, 0.02311111, 0.028222224, 0.0051111113, -0.014222221, -0.019333335,
        0.0038333335, -0.002611111, -0.0064444444, -0.02188889, -0.0154444445, -0.05211111,
        -0.03666667, 0.0038333335, -0.002611111, -0.0064444444, -0.02188889, -0.0154444445,
        -0.05211111, -0.03666667, -0.050166667, -0.09261111, -0.042444445, -0.09388889, -0.051444445,
        0.02455556, 0.076000005, -0.050166667, -0.09261111, -0.042444445, -0.09388889, -0.051444445,
        0.02455556, 0.076000005, 0.0123333335, 0.0025555566, -0.009777777, -0.03755556, -0.027777778,
        0.07022223, 0.098000005, 0.0625, 0.09516667, 0.03266667, 0.056333333, 0.023666667,
        0.045666665, 0.022, 0.071, 0.10033334, 0.029333334, 0.040666666, 0.011333333, 0.0013333298,
        -0.010000002, 0.0085, 0.0051666675, -0.0033333332, -0.015666667, -0.0123333335, -0.044333335,
        -0.032, 0.0085, 0.0051666675, -0.0033333332, -0.015666667, -0.0123333335, -0.044333335,
        -0.032, -0.045500003, -0.08483334, -0.039333332, -0.08766667, -0.048333336, 0.032333333,
        0.08066667, -0.045500003, -0.08483334, -0.039333332, -0.08766667, -0.048333336, 0.032333333,
        0.08066667, 0.021666668, 0.01811111, -0.003555555, -0.025111113, -0.021555558, 0.085777774,
        0.10733333, 0.06716667, 0.10294445, 0.035777777, 0.06255555, 0.026777778, 0.053444445,
        0.026666667, 0.08033334, 0.11588889, 0.035555556, 0.05311111, 0.017555557, 0.01688889,
        -0.0006666668, 0.013166668, 0.012944446, -0.00022222224, -0.0094444435, -0.009222222,
        -0.036555555, -0.027333334, 0.013166668, 0.012944446, -0.00022222224, -0.0094444435,
        -0.009222222, -0.036555555, -0.027333334, -0.040833335, -0.07705556, -0.036222223,
        -0.08144444, -0.045222223, -0.12655556, -0.08133334, -0.040833335, -0.07705556, -0.036222223,
        -0.08144444, -0.045222223, -0.12655556, -0.08133334, 0.031, 0.033666667, 0.002666667,
        -0.012666663, -0.015333334, -0.06533334, -0.050000004, 0.071833335, 0.11072223, 0.03888889,
        0.06877778, 0.029888889, 0.061222225, 0.031333335, 0.089666665, 0.13144445, 0.04177778,
        0.06555556, 0.023777777, 0.032444447, 0.008666666, 0.017833333, 0.020722222, 0.002888889,
        -0.003222222, -0.006111111, -0.02877778, -0.022666669, 0.017833333, 0.020722222, 0.002888889,
        -0.003222222, -0.006111111, -0.02877778, -0.022666669
    ]),
    'amax': ((2, 2, 3, 4), [
        0.41, 0.329, 0.438, 0.491, 0.276, 0.466, 0.466, 0.438, 0.494, 0.494, 0.466, 0.304, 0.441,
        0.36, 0.469, 0.469, 0.307, 0.497, 0.497, 0.469, 0.173, 0.497, 0.497, 0.335, 0.472, 0.391,
        0.229, 0.419, 0.338, 0.257, 0.447, 0.419, 0.204, 0.475, 0.447, 0.366, 0.422, 0.422, 0.26,
        0.45, 0.369, 0.288, 0.478, 0.45, 0.235, 0.425, 0.478, 0.397
    ]),
    'amax.d0': ((2, 2, 7, 7), [
        0, 0, 0, 0, 0, 0, 0.428, -0.329, -0.41, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.387, 0, 0.347, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0.312, 0, -0.22, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.034999996, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, -0.301, -0.382, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.125, 0, 0.375, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0.36599997, 0, -0.192, 0, 0.051, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, -0.273, -0.354, 0, -0.435, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.644, 0.403, 0.322,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0.15799999, -0.164, 0, 0.079, 0, 0, 0, 0, 0, 0, 0, 0, -0.002, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.571, 0, -0.407, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.3, 0.431, 0.35,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0.21399999, -0.136, 0, 0.107, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.026, 0,
        0, 0
    ]),
    'max_mask': ((2, 2, 4, 4), [
        7, 8, 10, 6, 7, 8, 19, 19, 21, 31, 31, 33, 43, 43, 45, 47, 7, 8, 10, 12, 7, 8, 19, 19, 21, 31,
        31, 33, 35, 44, 45, 47, 7, 8, 10, 12, 7, 8, 10, 20, 21, 22, 32, 33, 35, 44, 45, 47, 8, 8, 10,
        12, 8, 8, 10, 20, 21, 22, 32, 33, 35, 45, 45, 47
    ]),
    'amax_mask': ((2, 2, 3, 4), [
        7, 8, 19, 6, 21, 31, 31, 19, 43, 43, 31, 33, 7, 8, 19, 19, 21, 31, 31, 19, 35, 31, 31, 33, 7,
        8, 10, 20, 21, 22, 32, 20, 35, 44, 32, 33, 8, 8, 10, 20, 21, 22, 32, 20, 35, 45, 32, 33
    ]),
    'bn': ((4, 3, 2, 2), [
        0.09453827, -0.029119015, -0.15277624, 1.2501993, 0.37655067, 0.07746124, -0.22162813,
        -0.52071756, 0.22838229, -0.002271369, -0.23292503, -0.4635787, 0.13728398, 0.013626695,
        -0.11003053, 1.2929451, 0.47993958, 0.18085027, -0.118239224, -0.41732866, 0.30811444,
        0.077460766, -0.1531929, -0.38384658, 0.18002969, 0.056372434, -0.06728482, -0.19094211,
        0.5833286, 0.28423917, -0.014850259, -0.3139397, 0.38784656, 0.1571929, -0.07346077,
        -0.30411443, 0.22277543, 0.09911814, -0.024539113, -0.1481964, 0.6867175, 0.38762808,
        0.08853865, -0.21055073, 0.4675787, 0.23692504, 0.0062713623, -0.22438231
    ]),
    'bn.d0': ((4, 3, 2, 2), [
        -0.10785506, -0.13000193, -0.1521488, 0.09912258, 0.0003194851, -6.027915e-06, -0.0003315349,
        -0.00065707235, 0.00024627644, -4.6413525e-06, -0.00025554787, -0.0005064706, -0.10019935,
        -0.122346215, -0.1444931, 0.10677821, 0.000432005, 0.00010649503, -0.0002190287,
        -0.00054455246, 0.00033300783, 8.210099e-05, -0.0001688483, -0.00041973923, -0.09254365,
        -0.11469052, -0.13683738, 1.3676487, 0.00054455246, 0.00021901495, -0.00010649503,
        -0.000432005, 0.00041978166, 0.0001688377, -8.208508e-05, -0.00033302905, -0.08488795,
        -0.1070348, -0.12918167, -0.15132855, 0.00065707235, 0.0003315349, 6.027915e-06,
        -0.0003195401, 0.0005064706, 0.0002555691, 4.6466566e-06, -0.00024629766
    ]),
    'bn.d1': ((3,), [
        3.7425318, 1.5322665, 1.5322673
    ]),
    'bn.d2': ((3,), [
        -3.5360003, 4.28, -0.904
    ]),
    'bn_rm': ((3,), [
        -0.024850007, 0.030250007, -0.0021500003
    ]),
    'bn_rv': ((3,), [
        0.9081181, 0.9009181, 0.9009181
    ]),
    'bn_eval': ((4, 3, 2, 2), [
        0.041140124, 0.0041657537, -0.0328086, 0.38669068, 0.21418747, 0.18397798, 0.15376851,
        0.12355901, 0.019300284, -0.0039968565, -0.027293997, -0.05059114, 0.053921387, 0.016947016,
        -0.02002734, 0.39947194, 0.22463024, 0.19442075, 0.16421127, 0.13400179, 0.027353618,
        0.004056476, -0.019240664, -0.04253781, 0.06670265, 0.029728279, -0.007246077, -0.044220448,
        0.23507303, 0.20486355, 0.17465407, 0.14444458, 0.035406947, 0.012109809, -0.011187333,
        -0.034484472, 0.07948392, 0.04250954, 0.0055351853, -0.031439185, 0.2455158, 0.21530631,
        0.18509685, 0.15488738, 0.043460283, 0.020163143, -0.0031339994, -0.026431141
    ]),
    'ln': ((2, 3, 4), [
        0.5297041, 0.6145202, -0.2840709, -0.3870655, -0.4450522, 0.2862693, 0.040471956, -0.16031754,
        -0.31609914, -0.42687285, -0.4926387, 0.48660332, 0.42157984, 0.4830808, -0.15219925,
        -0.27829444, -0.35943323, -0.39561546, 0.07910004, -0.14467843, -0.3235004, -0.4573659,
        -0.5462749, 0.40977257
    ]),
    'ln.d0': ((2, 3, 4), [
        0.2456959, 0.44767076, -0.9894547, 0.3246627, 0.10600841, 0.14165013, 0.013011582,
        -0.07061909, -0.109241895, -0.10285683, -0.05146388, 0.04493695, 0.2215233, 0.40939143,
        -0.9440401, 0.35470065, 0.12241986, -0.064904466, 0.07715822, -0.020253105, -0.07270794,
        -0.0802063, -0.042748176, 0.039666437
    ]),
    'ln.d1': ((12,), [
        0.21174122, 0.48507655, 0.84837615, -1.0238477, -1.035955, -0.045729548, 0.5740119, 0.2764623,
        0.06887697, -0.048743956, -0.07640052, -0.014092719
    ]),
    'ln.d2': ((12,), [
        -0.63, -0.792, -0.954, 0.884, 0.722, 0.56, 0.398, 0.236, 0.074, -0.088, -0.25, -0.412
    ]),
    'gn': ((2, 4, 3), [
        -0.74152243, -0.6297134, -0.51790446, 0.53661263, 0.695838, 0.85506326, 0.82466483, 0.9029597,
        0.014651567, -0.05300355, 0.04325697, 0.13951747, -0.7415224, -0.6297134, -0.51790446,
        0.53661263, 0.695838, 0.8550632, 0.82466483, 0.9029597, 0.014651567, -0.05300355, 0.04325697,
        0.13951747
    ]),
    'gn.d0': ((2, 4, 3), [
        -0.21228646, 0.18932559, 0.59093755, -0.6383539, -0.18932556, 0.25970265, -0.08419045,
        0.016259994, -0.15681556, -0.04350079, 0.07491534, 0.19333145, -0.2146223, 0.19120213,
        0.5970265, -0.64444286, -0.19120209, 0.2620385, -0.08337457, 0.016676389, -0.1518666,
        -0.045161698, 0.07285493, 0.19087155
    ]),
    'gn.d1': ((4,), [
        -1.8966541, -1.7122573, -0.7824117, -0.36317712
    ]),
    'gn.d2': ((4,), [
        -2.376, 2.166, 0.70799994, -0.75
    ]),
    'bnl_mean': ((3,), [
        0.0032050004, -0.03335501, 0.025085008
    ]),
    'bnl_var': ((3,), [
        0.8115954, 0.82427037, 0.8268054
    ]),
    'bnl_eval': ((1, 3, 2, 2), [
        -0.30881083, -0.39872175, -0.4886327, 0.5314681, 0.4784178, 0.38920084, 0.29998386,
        0.21076688, 0.057093747, -0.031986367, -0.12106647, -0.21014659
    ]),
}
PADDLE_SHAPES = {
    'conv same 1': [1, 1, 7, 6],
    'max same 1': [1, 1, 7, 6],
    'conv same 2': [1, 1, 4, 3],
    'max same 2': [1, 1, 4, 3],
    'conv valid 1': [1, 1, 5, 4],
    'max valid 1': [1, 1, 5, 4],
    'conv valid 2': [1, 1, 3, 2],
    'max valid 2': [1, 1, 3, 2],
    'conv 1 1': [1, 1, 7, 6],
    'max 1 1': [1, 1, 7, 6],
    'conv 1 2': [1, 1, 4, 3],
    'max 1 2': [1, 1, 4, 3],
    'conv [1, 2] 1': [1, 1, 7, 8],
    'max [1, 2] 1': [1, 1, 7, 8],
    'conv [1, 2] 2': [1, 1, 4, 4],
    'max [1, 2] 2': [1, 1, 4, 4],
    'conv [1, 2, 0, 1] 1': [1, 1, 8, 5],
    'max [1, 2, 0, 1] 1': [1, 1, 8, 5],
    'conv [1, 2, 0, 1] 2': [1, 1, 4, 3],
    'max [1, 2, 0, 1] 2': [1, 1, 4, 3],
    'conv [[0, 0], [0, 0], [1, 0], [2, 1]] 1': [1, 1, 6, 7],
    'max [[0, 0], [0, 0], [1, 0], [2, 1]] 1': [1, 1, 6, 7],
    'conv [[0, 0], [0, 0], [1, 0], [2, 1]] 2': [1, 1, 3, 4],
    'max [[0, 0], [0, 0], [1, 0], [2, 1]] 2': [1, 1, 3, 4],
}


@pytest.mark.parametrize("geo", [dict(kh=3, kw=3, pads=(1, 1, 1, 1)),
                                 dict(kh=3, kw=2, pads=(0, 2, 1, 0)),
                                 dict(kh=1, kw=1, pads=(0, 0, 0, 0)),
                                 dict(kh=5, kw=3, pads=(2, 1, 0, 2))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_large_stride_1_input_gradient_runs_as_a_convolution(monkeypatch, geo, dtype):
    """Past DIRECT_DX_BYTES a stride-1 conv2d_transpose is a convolution with the filter
    turned half a turn: the same values as the product + col2im (float64: to 1e-12)."""
    rng = np.random.default_rng(geo["kh"] * 10 + geo["kw"])
    kh, kw, pads = geo["kh"], geo["kw"], geo["pads"]
    dy = rng.standard_normal((3, 5, 9, 8)).astype(dtype)
    w = rng.standard_normal((5, 4, kh, kw)).astype(dtype)
    out_hw = (9 + kh - 1 - pads[0] - pads[1], 8 + kw - 1 - pads[2] - pads[3])
    col2im = C._conv2d_transpose_fwd(dy, w, padding=pads, out_hw=out_hw)
    calls = []
    monkeypatch.setattr(C, "DIRECT_DX_BYTES", -1)
    monkeypatch.setattr(C, "_conv2d_fwd", lambda *a, _f=C._conv2d_fwd, **k: calls.append(1)
                        or _f(*a, **k))
    direct = C._conv2d_transpose_fwd(dy, w, padding=pads, out_hw=out_hw)
    assert calls and direct.shape == col2im.shape == (3, 4) + out_hw
    assert direct.dtype == dtype and direct.flags.c_contiguous
    tol = 1e-12 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(direct, col2im, rtol=tol, atol=tol)


def test_the_convolution_form_keeps_to_what_it_can_do(monkeypatch):
    """Stride, dilation, groups, output padding, padding past k - 1: the product + col2im."""
    monkeypatch.setattr(C, "DIRECT_DX_BYTES", -1)
    x = np.ones((1, 2, 5, 5), np.float32)
    w = np.ones((2, 2, 3, 3), np.float32)
    full = (7, 7)
    assert C._as_convolution(x, w, (1, 1), (1, 1), 1, (1, 1, 1, 1), (5, 5), full)
    assert not C._as_convolution(x, w, (2, 1), (1, 1), 1, (1, 1, 1, 1), (5, 5), full)
    assert not C._as_convolution(x, w, (1, 1), (1, 2), 1, (1, 1, 1, 1), (5, 5), full)
    assert not C._as_convolution(x, w, (1, 1), (1, 1), 2, (1, 1, 1, 1), (5, 5), full)
    assert not C._as_convolution(x, w, (1, 1), (1, 1), 1, (1, 1, 1, 1), (6, 6), full)
    assert not C._as_convolution(x, w, (1, 1), (1, 1), 1, (3, 0, 0, 0), (4, 7), full)
    monkeypatch.setattr(C, "DIRECT_DX_BYTES", 32 << 20)
    assert not C._as_convolution(x, w, (1, 1), (1, 1), 1, (1, 1, 1, 1), (5, 5), full)


@pytest.mark.parametrize("kind,ksize,kw,shape", POOL_CASES)
def test_large_pools_run_a_block_of_planes_at_a_time_with_the_same_bits(monkeypatch, kind, ksize,
                                                                       kw, shape):
    """Pooling is plane by plane: blocks of planes (forced small here) give every bit of the
    whole-array kernels, forward and gradient, NaN, infinities and -0 included."""
    shape = (3, 5) + shape[2:]
    x = _awkward_values(shape, 21, np.float32)
    attrs = C.pool_attrs(ksize, kw.get("stride", (1, 1)), kw.get("padding", (0, 0, 0, 0)),
                         kw.get("ceil", False), kw.get("exclusive", True),
                         kw.get("adaptive", False), kind)
    plane = shape[2] * shape[3] * 4
    blocks = []
    real = C._pool2d_planes
    with np.errstate(all="ignore"):  # (inf - inf in the averages)
        whole = C._pool2d_fwd(x, **attrs)
        dy = _awkward_values(whole.shape, 22, np.float32)
        whole_dx = C._pool2d_grad_fwd(x, dy, **attrs)
        monkeypatch.setattr(C, "TILE_BYTES", 4 * plane)  # blocks of 4 planes: 4, 4, 4, 3
        monkeypatch.setattr(C, "_pool2d_planes", lambda v, **a: blocks.append(v.shape[0])
                            or real(v, **a))
        tiled = C._pool2d_fwd(x, **attrs)
        tiled_dx = C._pool2d_grad_fwd(x, dy, **attrs)
    assert blocks == [4, 4, 4, 3]
    assert tiled.shape == whole.shape and tiled.tobytes() == whole.tobytes()
    assert tiled_dx.shape == whole_dx.shape and tiled_dx.tobytes() == whole_dx.tobytes()
