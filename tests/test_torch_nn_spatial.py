"""torch dialect: convolutions of every rank, pools, pads, shuffles, resampling (nn._spatial_more).
Values against numpy computations or literals recorded from real torch 2.13 (said where)."""
import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn as nn
import gradrepl.torch.nn.functional as F


def _np(t):
    return np.asarray(t.detach().numpy())


def _conv1d_ref(x, w, b, stride=1, pad=0, dil=1):
    n, c, length = x.shape
    m, _, k = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad)))
    out = (length + 2 * pad - dil * (k - 1) - 1) // stride + 1
    y = np.zeros((n, m, out))
    for o in range(out):
        win = xp[:, :, o * stride:o * stride + dil * (k - 1) + 1:dil]
        y[:, :, o] = np.einsum("nck,mck->nm", win, w)
    return y + b[None, :, None]


def test_conv1d_values_grad_fn_and_gradients():
    torch.manual_seed(0)
    m = nn.Conv1d(3, 4, 3, stride=2, padding=1, dilation=2)
    x = torch.randn(2, 3, 9, requires_grad=True)
    y = m(x)
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"
    ref = _conv1d_ref(_np(x), _np(m.weight), _np(m.bias), 2, 1, 2)
    np.testing.assert_allclose(_np(y), ref, rtol=1e-5, atol=1e-5)
    y.sum().backward()
    # the bias gradient is the count of outputs per channel
    np.testing.assert_allclose(_np(m.bias.grad), np.full(4, 2 * y.shape[-1]), rtol=0)
    # input gradient by finite differences of the (linear) map
    eps = 1e-2
    xs = _np(x).astype(np.float64)
    d = np.zeros_like(xs)
    d[0, 1, 4] = eps
    num = (_conv1d_ref(xs + d, _np(m.weight), _np(m.bias), 2, 1, 2).sum()
           - _conv1d_ref(xs - d, _np(m.weight), _np(m.bias), 2, 1, 2).sum()) / (2 * eps)
    assert abs(_np(x.grad)[0, 1, 4] - num) < 1e-3


def test_conv3d_layer_init_matches_torch_and_repr():
    torch.manual_seed(0)
    m = nn.Conv3d(2, 3, 3, padding=1)
    assert repr(m) == "Conv3d(2, 3, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))"
    # recorded from real torch 2.13: torch.manual_seed(0); nn.Conv3d(2, 3, 3, padding=1)
    np.testing.assert_allclose(_np(m.weight).reshape(-1)[:3], [-0.0010, 0.0730, -0.1120],
                               atol=1e-4)
    x = torch.randn(1, 2, 3, 4, 5)
    y = m(x)
    assert tuple(y.shape) == (1, 3, 3, 4, 5)


def test_conv_transpose_output_size_and_adjoint():
    torch.manual_seed(0)
    down = nn.Conv2d(4, 4, 3, stride=2, padding=1)
    up = nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1)
    x = torch.randn(1, 4, 12, 12)
    h = down(x)
    assert tuple(up(h, output_size=x.size()).shape) == (1, 4, 12, 12)
    # <conv_transpose(g, w), x> == <g, conv(x, w)> (no bias)
    w = torch.randn(2, 3, 3)
    xx = torch.randn(1, 3, 7)
    g = torch.randn(1, 2, 5)
    lhs = float((F.conv_transpose1d(g, w) * xx).sum())
    rhs = float((g * F.conv1d(xx, w)).sum())
    assert abs(lhs - rhs) < 1e-4
    assert type(F.conv_transpose1d(g.requires_grad_(), w).grad_fn).__name__ == \
        "ConvolutionBackward0"


def test_lazy_conv_becomes_plain():
    lz = nn.LazyConvTranspose1d(5, 3)
    assert repr(lz) == "LazyConvTranspose1d(0, 5, kernel_size=(3,), stride=(1,))"
    out = lz(torch.randn(2, 4, 6))
    assert type(lz).__name__ == "ConvTranspose1d"
    assert tuple(lz.weight.shape) == (4, 5, 3) and tuple(out.shape) == (2, 5, 8)


def test_max_pool_indices_dilation_and_unpool():
    x = torch.tensor(np.arange(2 * 7 * 9, dtype=np.float32).reshape(1, 2, 7, 9) % 11,
                     requires_grad=True)
    o, i = F.max_pool2d(x, 3, 2, 1, dilation=2, return_indices=True)
    assert type(o.grad_fn).__name__ == "MaxPool2DWithIndicesBackward0"
    a = _np(x)
    flat = a.reshape(1, 2, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, _np(i).reshape(1, 2, -1), 2)
                                  .reshape(o.shape), _np(o))
    o.sum().backward()
    counts = np.zeros(flat.shape)
    np.add.at(counts, (0, np.arange(2)[:, None], _np(i).reshape(2, -1)), 1)
    np.testing.assert_array_equal(_np(x.grad).reshape(counts.shape), counts)
    o2, i2 = F.max_pool2d(x.detach(), 2, return_indices=True)
    u = F.max_unpool2d(o2, i2, 2, output_size=(7, 9))
    assert type(u.grad_fn).__name__ if u.grad_fn else True
    np.testing.assert_array_equal(_np(u).reshape(1, 2, -1)[0, 0, _np(i2)[0, 0].ravel()],
                                  _np(o2)[0, 0].ravel())


def test_pool3d_family_shapes_and_names():
    torch.manual_seed(0)
    x = torch.randn(1, 2, 5, 6, 7, requires_grad=True)
    assert type(F.max_pool3d(x, 2).grad_fn).__name__ == "MaxPool3DWithIndicesBackward0"
    avg = F.avg_pool3d(x, 2)
    assert type(avg.grad_fn).__name__ == "AvgPool3DBackward0"
    ref = _np(x)[:, :, :4, :6, :6].reshape(1, 2, 2, 2, 3, 2, 3, 2).mean((3, 5, 7))
    np.testing.assert_allclose(_np(avg), ref, rtol=1e-5, atol=1e-6)
    assert type(F.adaptive_avg_pool3d(x, 1).grad_fn).__name__ == "MeanBackward1"
    o, i = F.adaptive_max_pool3d(x, (2, 3, 4), return_indices=True)
    assert type(o.grad_fn).__name__ == "AdaptiveMaxPool3DBackward0" and i.dtype == torch.int64
    lp = F.lp_pool3d(x, 2, 2)
    assert type(lp.grad_fn).__name__ == "PowBackward0"
    sq = _np(x)[:, :, :4, :6, :6] ** 2
    ref = np.sqrt(sq.reshape(1, 2, 2, 2, 3, 2, 3, 2).sum((3, 5, 7)))
    np.testing.assert_allclose(_np(lp), ref, rtol=1e-5)


def test_fractional_max_pool_matches_recorded_torch():
    # recorded from real torch 2.13: torch.manual_seed(0); x = torch.arange(64.).view(1,1,8,8)
    # F.fractional_max_pool2d(x, 2, output_size=3, return_indices=True)
    torch.manual_seed(0)
    x = torch.arange(64.).view(1, 1, 8, 8)
    o, i = F.fractional_max_pool2d(x, 2, output_size=3, return_indices=True)
    assert tuple(o.shape) == (1, 1, 3, 3)
    np.testing.assert_array_equal(_np(o).ravel(), _np(i).ravel().astype(np.float32))
    np.testing.assert_array_equal(_np(o)[0, 0], [[9, 12, 15], [33, 36, 39], [57, 60, 63]])


@pytest.mark.parametrize("mode,npmode", [("reflect", "reflect"), ("replicate", "edge"),
                                         ("circular", "wrap"), ("constant", "constant")])
def test_pad_modes(mode, npmode):
    x = torch.arange(24.).view(1, 2, 3, 4).requires_grad_()
    y = F.pad(x, (1, 2, 2, 1), mode=mode)
    ref = np.pad(_np(x), ((0, 0), (0, 0), (2, 1), (1, 2)), mode=npmode)
    np.testing.assert_array_equal(_np(y), ref)
    names = {"reflect": "ReflectionPad2DBackward0", "replicate": "ReplicationPad2DBackward0",
             "circular": "CopySlices", "constant": "ConstantPadNdBackward0"}
    assert type(y.grad_fn).__name__ == names[mode]
    y.sum().backward()
    want = 24.0 if mode == "constant" else float(np.prod(y.shape))
    assert float(x.grad.sum()) == want


def test_pad_layers_reprs():
    assert repr(nn.ReflectionPad2d((1, 2, 3, 4))) == "ReflectionPad2d((1, 2, 3, 4))"
    assert repr(nn.ConstantPad1d(2, 3.5)) == "ConstantPad1d(padding=(2, 2), value=3.5)"
    assert repr(nn.ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))"
    assert repr(nn.CircularPad3d(1)) == "CircularPad3d((1, 1, 1, 1, 1, 1))"


def test_shuffles():
    x = torch.arange(2 * 8 * 2 * 3.).view(2, 8, 2, 3)
    y = F.pixel_shuffle(x, 2)
    ref = _np(x).reshape(2, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 6)
    np.testing.assert_array_equal(_np(y), ref)
    np.testing.assert_array_equal(_np(F.pixel_unshuffle(y, 2)), _np(x))
    c = torch.channel_shuffle(x, 2)
    np.testing.assert_array_equal(_np(c)[:, 1], _np(x)[:, 4])
    xr = x.clone().requires_grad_()
    assert type(torch.native_channel_shuffle(xr, 2).grad_fn).__name__ == "NotImplemented"


def test_upsample_docstring_values():
    # the values real torch 2.13 prints for nn.Upsample's docstring example
    inp = torch.arange(1, 5, dtype=torch.float32).view(1, 1, 2, 2)
    bil = nn.Upsample(scale_factor=2, mode="bilinear")(inp)
    np.testing.assert_array_equal(_np(bil)[0, 0, 0], [1.0, 1.25, 1.75, 2.0])
    ac = nn.UpsamplingBilinear2d(scale_factor=2)(inp)
    np.testing.assert_allclose(_np(ac)[0, 0, 0], [1.0, 4 / 3, 5 / 3, 2.0], rtol=1e-6)
    near = F.interpolate(inp, scale_factor=2)
    np.testing.assert_array_equal(_np(near)[0, 0], np.repeat(np.repeat([[1, 2], [3, 4]], 2, 0),
                                                             2, 1))
    assert repr(nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"


def test_interpolate_linear_adjoint_gradient():
    torch.manual_seed(0)
    x = torch.randn(1, 2, 5, requires_grad=True)
    y = F.interpolate(x, size=8, mode="linear", align_corners=False)
    assert type(y.grad_fn).__name__ == "UpsampleLinear1DBackward0"
    g = torch.randn(1, 2, 8)
    (y * g).sum().backward()
    # the map is linear: <A x, g> == <x, A^T g>
    assert abs(float((y * g).sum()) - float((x * x.grad).sum())) < 1e-4


def test_fold_unfold_roundtrip():
    x = torch.randn(1, 2, 4, 5)
    cols = F.unfold(x, 2, padding=1, stride=1)
    assert tuple(cols.shape) == (1, 8, 30)
    ones = torch.ones(1, 2, 4, 5)
    div = F.fold(F.unfold(ones, 2, padding=1), (4, 5), 2, padding=1)
    back = F.fold(cols, (4, 5), 2, padding=1)
    np.testing.assert_allclose(_np(back) / _np(div), _np(x), rtol=1e-5)
    assert repr(nn.Unfold(2, dilation=2, padding=1, stride=2)) == \
        "Unfold(kernel_size=2, dilation=2, padding=1, stride=2)"


def test_torch_level_names():
    for name in ("conv1d", "conv3d", "conv_transpose2d", "pixel_shuffle", "channel_shuffle",
                 "native_channel_shuffle", "max_pool3d"):
        assert callable(getattr(torch, name))
