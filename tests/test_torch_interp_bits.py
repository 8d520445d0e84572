"""torch dialect: F.interpolate (every mode, forward and backward, float32/float64, channels-last,
antialias) and adaptive average pooling bit for bit as torch 2.13's CPU kernels
(nn/_interp_kernels.py).

The records are sha256 prefixes of the output and input-gradient bytes printed by real torch
2.13.0 in this session (/work/vtorch, x86-64 AMD Zen 4: ATEN_CPU_CAPABILITY avx512 and avx2 printed the same,
these kernels have no AVX-512 build; ATEN_CPU_CAPABILITY=default the second set). The kernels are
emulated, so each build's record is checked on any machine through GRADREPL_TORCH_CAPABILITY."""

import hashlib
from fractions import Fraction

import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F
from gradrepl.torch.nn import _interp_kernels as K


F32, F64 = "float32", "float64"
# (mode, input shape, interpolate kwargs, dtype, channels-last)
CASES = [
    ("bilinear", (12, 3, 11, 11), {"size": (16, 16), "align_corners": False}, F32, False),
    ("bilinear", (2, 3, 8, 8), {"scale_factor": 2.0}, F32, False),
    ("bilinear", (1, 12, 7, 9), {"size": (12, 14), "align_corners": False}, F32, False),
    ("bilinear", (2, 20, 7, 9), {"size": (12, 14), "align_corners": True}, F32, False),
    ("bilinear", (2, 5, 7, 9), {"size": (12, 14), "align_corners": False}, F64, False),
    ("bilinear", (2, 3, 11, 11), {"size": (70, 70), "align_corners": False}, F32, False),
    ("bilinear", (2, 6, 9, 7), {"size": (70, 66), "align_corners": False}, F32, True),
    ("bilinear", (2, 3, 13, 21),
     {"scale_factor": (0.75, 1.7), "recompute_scale_factor": False}, F32, False),
    ("bilinear", (2, 3, 17, 19), {"size": (12, 9), "antialias": True}, F32, False),
    ("bilinear", (2, 3, 19, 1), {"size": (7, 1), "antialias": True}, F32, False),
    ("bilinear", (2, 3, 17, 19),
     {"size": (5, 30), "antialias": True, "align_corners": True}, F64, False),
    ("bicubic", (2, 3, 7, 8), {"size": (12, 9), "align_corners": False}, F32, False),
    ("bicubic", (2, 3, 7, 8), {"size": (12, 9), "align_corners": True}, F64, False),
    ("bicubic", (2, 3, 1, 8), {"size": (1, 13)}, F32, False),
    ("bicubic", (2, 3, 17, 19), {"size": (12, 9), "antialias": True}, F32, False),
    ("bicubic", (1, 4, 7, 9), {"scale_factor": 1.5, "antialias": True}, F64, False),
    ("linear", (2, 3, 9), {"size": 31, "align_corners": False}, F32, False),
    ("linear", (2, 3, 11), {"size": 70, "align_corners": False}, F64, False),
    ("trilinear", (1, 2, 4, 5, 6), {"size": (7, 9, 5)}, F32, False),
    ("trilinear", (2, 12, 4, 5, 6), {"size": (7, 9, 5), "align_corners": True}, F32, True),
    ("trilinear", (1, 5, 3, 4, 5), {"scale_factor": 1.5}, F64, True),
    ("nearest", (2, 3, 7, 8), {"size": (12, 9)}, F32, False),
    ("nearest", (2, 3, 5, 4), {"scale_factor": 2.1, "recompute_scale_factor": False}, F32, True),
    ("nearest", (2, 3, 4, 5, 3), {"size": (7, 9, 5)}, F64, False),
    ("nearest-exact", (2, 3, 7, 8), {"size": (12, 17)}, F32, False),
    ("nearest-exact", (1, 3, 9), {"size": 4}, F32, False),
    ("area", (2, 3, 7, 23), {"size": (13, 4)}, F32, False),
    ("area", (1, 20, 7, 23), {"size": (3, 5)}, F32, True),
    ("area", (1, 5, 5, 5, 6), {"size": (3, 1, 8)}, F64, False),
    ("area", (2, 4, 30), {"scale_factor": 0.33}, F32, False),
]


# case: (output sha256[:16], input-gradient sha256[:16], grad_fn, output shape, out[0], grad[-1])
RECORDED_FMA = {
    0: ("fd2be28f5f3204bf", "a4c2c157c22f6b07", "UpsampleBilinear2DBackward0", (12, 3, 16, 16),
        0.6535896062850952, 1.0520999431610107),
    1: ("61760239ec6a4f5c", "74a0465590b75138", "UpsampleBilinear2DBackward0", (2, 3, 16, 16),
        0.30623218417167664, 1.9264519214630127),
    2: ("850f82f7c1f557ea", "07b6d16419ed6a4a", "UpsampleBilinear2DBackward0", (1, 12, 12, 14),
        0.12898829579353333, 1.6165049076080322),
    3: ("53c83f4cf8004edf", "4d6823c94f789c3b", "UpsampleBilinear2DBackward0", (2, 20, 12, 14),
        0.5978057980537415, 0.8560764789581299),
    4: ("6048496602532db7", "dd69dd50216dddb5", "UpsampleBilinear2DBackward0", (2, 5, 12, 14),
        0.038951638486158124, 1.5076945497533685),
    5: ("cec6589ce68170ff", "ef3a49b62648ac50", "UpsampleBilinear2DBackward0", (2, 3, 70, 70),
        0.659214437007904, 18.771936416625977),
    6: ("6f4eae5a9a05f365", "f1968a81b0155762", "UpsampleBilinear2DBackward0", (2, 6, 70, 66),
        0.7431273460388184, 39.41747283935547),
    7: ("44aaf6dcb3555180", "7fa97c778fbf5337", "UpsampleBilinear2DBackward0", (2, 3, 9, 35),
        0.5728744268417358, 0.0),
    8: ("d82f1406b749085c", "2ad95e99209d70bc", "UpsampleBilinear2DAaBackward0", (2, 3, 12, 9),
        0.5943085551261902, 0.16153188049793243),
    9: ("1b7664cbd37d2f17", "8bb5a6f581c0f679", "UpsampleBilinear2DAaBackward0", (2, 3, 7, 1),
        0.3339236378669739, 0.21419239044189453),
    10: ("a1be49af4b364508", "1b8409a26c434668", "UpsampleBilinear2DAaBackward0", (2, 3, 5, 30),
        0.3571502403216417, 0.11274348000297812),
    11: ("019a3c5438989ee2", "30081280dcda6bf4", "UpsampleBicubic2DBackward0", (2, 3, 12, 9),
        0.6326494812965393, 0.88753741979599),
    12: ("990bfbd8890c6b97", "cd4837e5e45a6fcb", "UpsampleBicubic2DBackward0", (2, 3, 12, 9),
        0.026729353221241814, 0.453310502645457),
    13: ("0f1c2a63675e5161", "59fef69a945ab82e", "UpsampleBicubic2DBackward0", (2, 3, 1, 13),
        0.6042602062225342, 0.6576160788536072),
    14: ("3156997a6fdc0dc5", "5dcfcde1341a18e7", "UpsampleBicubic2DAaBackward0", (2, 3, 12, 9),
        0.4086318910121918, 0.10662762820720673),
    15: ("98b157cad32f8f0d", "bc32b6226b2aca0a", "UpsampleBicubic2DAaBackward0", (1, 4, 10, 13),
        0.6729705165232063, 0.21842493562738058),
    16: ("9d48545c1702390e", "ac823132fcd8f565", "UpsampleLinear1DBackward0", (2, 3, 31),
        0.838636040687561, 1.406754493713379),
    17: ("74afe87b596ab872", "41ece724c478a2be", "UpsampleLinear1DBackward0", (2, 3, 70),
        0.11253548828874316, 3.241126203239614),
    18: ("2ecc70f525ad45cd", "32e3ebc5f71c7f55", "UpsampleTrilinear3DBackward0", (1, 2, 7, 9, 5),
        0.1673610359430313, 1.5711522102355957),
    19: ("0ee2cb812ba68738", "0821e95f459858de", "UpsampleTrilinear3DBackward0", (2, 12, 7, 9, 5),
        0.3239193260669708, 0.8993600606918335),
    20: ("a6857dfec53e08d3", "462423235ae28d52", "UpsampleTrilinear3DBackward0", (1, 5, 4, 6, 7),
        0.7589530465963981, 0.5910977965801901),
    21: ("08d6186c2c61fafc", "2c61b1a91cdd4cbd", "UpsampleNearest2DBackward0", (2, 3, 12, 9),
        0.7002785801887512, 0.9126098155975342),
    22: ("dd27699e6d4d31b8", "1a35d61595d7aa8b", "UpsampleNearest2DBackward0", (2, 3, 10, 8),
        0.13680347800254822, 1.7114838361740112),
    23: ("e25dcc5c2bdbbd43", "c3c3ef59550c31f3", "UpsampleNearest3DBackward0", (2, 3, 7, 9, 5),
        0.9140697930834536, 0.2389374423668339),
    24: ("755dba7b5a0aa4e4", "7583875f60da11df", "UpsampleNearestExact2DBackward0", (2, 3, 12, 17),
        0.6476912498474121, 2.9179439544677734),
    25: ("26515d29975be078", "191ff6edbd0ccc86", "UpsampleNearestExact1DBackward0", (1, 3, 4),
        0.615465521812439, 0.0),
    26: ("4f0126e9da85e7ae", "40a1e3a8a8ab4685", "AdaptiveAvgPool2DBackward0", (2, 3, 13, 4),
        0.5017461776733398, 0.1300555318593979),
    27: ("89ae839e805b0114", "925bbc82c35373b3", "AdaptiveAvgPool2DBackward0", (1, 20, 3, 5),
        0.5072617530822754, 0.005140967667102814),
    28: ("9bb83b6eaedc374e", "0a141a561c9b004d", "AdaptiveAvgPool3DBackward0", (1, 5, 3, 1, 8),
        0.5166960774473528, 0.05641558764120139),
    29: ("8fd5c5a847ea0b33", "f3b2d2b0081171e5", "SqueezeBackward1", (2, 4, 9),
        0.4848642349243164, 0.2235788255929947),
}
# the same cases under ATEN_CPU_CAPABILITY=default (no fused multiply-add): output, gradient
RECORDED_DEFAULT = {
    0: ("464ec98d5fff816a", "ffd447b5dc7df386"),
    1: ("b4e421ae25358eb6", "541b59522de7fb30"),
    2: ("d7afb4a6256fc9a5", "480f8b93064fb790"),
    3: ("912e0296a7bca253", "80bdcbc9f0195d97"),
    4: ("2c06f86297d61eb9", "2da6e86143bd5a9d"),
    5: ("2dca955e7c4135db", "9a3a8a9c596a3e2a"),
    6: ("d2907828c693279d", "c0589507435a4085"),
    7: ("13836d46a35d95f2", "d993843a72145dbd"),
    8: ("61f0b4f833ec3533", "0b0f37b5a6bc1c8c"),
    9: ("84a25a071bdcb8ee", "7fa816cf6020b47d"),
    10: ("5798b48aabe7ecca", "eb4fc97fd925d9ec"),
    11: ("d2f5bdf6a1c28543", "30081280dcda6bf4"),
    12: ("e60fe060a0c1e02e", "cd4837e5e45a6fcb"),
    13: ("1f63d006c056382a", "59fef69a945ab82e"),
    14: ("40340bd95b7fcb2a", "44587baf79ac8820"),
    15: ("b460ea4bf5495bb2", "ec4898bc66627bcf"),
    16: ("9c2db76d3ab54a8c", "a2733a7105433c38"),
    17: ("383897d261eeacc6", "0ff85e33ec9c21ec"),
    18: ("f755300b5e0a21ec", "7cec507450d2ca6c"),
    19: ("733af70d29168b32", "a851ef5e424d32cf"),
    20: ("46dab2afd04c9760", "b68c20a4e54e7e1a"),
    21: ("08d6186c2c61fafc", "2c61b1a91cdd4cbd"),
    22: ("dd27699e6d4d31b8", "1a35d61595d7aa8b"),
    23: ("e25dcc5c2bdbbd43", "c3c3ef59550c31f3"),
    24: ("755dba7b5a0aa4e4", "7583875f60da11df"),
    25: ("26515d29975be078", "191ff6edbd0ccc86"),
    26: ("4f0126e9da85e7ae", "40a1e3a8a8ab4685"),
    27: ("89ae839e805b0114", "925bbc82c35373b3"),
    28: ("9bb83b6eaedc374e", "0a141a561c9b004d"),
    29: ("8fd5c5a847ea0b33", "f3b2d2b0081171e5"),
}


def _digest(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def _run(k):
    mode, shape, kw, dt, cl = CASES[k]
    rs = np.random.RandomState(1000 + k)
    x = torch.from_numpy(rs.rand(*shape).astype(dt)).requires_grad_()
    xi = x
    if cl:
        xi = x.contiguous(memory_format=torch.channels_last if len(shape) == 4
                          else torch.channels_last_3d)
    y = F.interpolate(xi, mode=mode, **kw)
    g = rs.rand(*tuple(y.shape)).astype(dt)
    y.backward(torch.from_numpy(g))
    return y, np.asarray(y.detach().numpy()), np.asarray(x.grad.numpy())


@pytest.fixture
def build(monkeypatch):
    def use(cap):
        monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", cap)
        monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    return use


@pytest.mark.parametrize("k", sorted(RECORDED_FMA))
def test_interpolate_bits_fma_build(k, build):
    build("avx2")
    y, yn, gn = _run(k)
    hy, hg, name, shape, y0, g1 = RECORDED_FMA[k]
    assert type(y.grad_fn).__name__ == name
    assert tuple(yn.shape) == shape
    assert float(yn.reshape(-1)[0]) == y0 and float(gn.reshape(-1)[-1]) == g1
    assert (_digest(yn), _digest(gn)) == (hy, hg)


@pytest.mark.parametrize("k", sorted(RECORDED_DEFAULT))
def test_interpolate_bits_default_build(k, build):
    build("default")
    _, yn, gn = _run(k)
    assert (_digest(yn), _digest(gn)) == RECORDED_DEFAULT[k]


def test_channels_last_input_gives_channels_last_output(build):
    build("avx2")
    x = torch.rand(2, 5, 4, 4).contiguous(memory_format=torch.channels_last)
    y = F.interpolate(x, size=(7, 7), mode="bilinear")
    # real torch 2.13: the output keeps the input's memory format
    assert not y.is_contiguous() and y.is_contiguous(memory_format=torch.channels_last)


def test_errors_as_torch():
    x = torch.rand(1, 2, 5, 5)
    # messages recorded from real torch 2.13
    with pytest.raises(RuntimeError, match=r"^Input and output sizes should be greater than 0, "
                       r"but got input \(H: 5, W: 5\) output \(H: 0, W: 3\)$"):
        F.interpolate(x, size=(0, 3), mode="bilinear")
    with pytest.raises(RuntimeError, match=r"input \(W: 1\) and output \(W: 0\)$"):
        F.interpolate(torch.rand(1, 2, 1), scale_factor=0.5)
    with pytest.raises(ValueError, match="^Anti-alias option is restricted to bilinear, bicubic, "
                       "and lanczos modes and requires a 4-D tensor as input$"):
        F.interpolate(x, size=(3, 3), mode="nearest", antialias=True)
    y = F.adaptive_avg_pool2d(torch.rand(2, 2, 8, 1, requires_grad=True), (10, 0))
    assert tuple(y.shape) == (2, 2, 10, 0)
    with pytest.raises(RuntimeError, match=r"^adaptive_avg_pool2d_backward\(\): Expected "
                       r"grad_output to have non-zero size for non-batch dimensions, but "
                       r"grad_output has sizes \[2, 2, 10, 0\] with dimension 3 being empty$"):
        y.sum().backward()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_fma_emulation_rounds_once(dt):
    rs = np.random.RandomState(5)
    n = 4000
    a = rs.standard_normal(n).astype(dt)
    b = rs.standard_normal(n).astype(dt)
    c = -(a.astype(np.float64) * b).astype(dt)  # hard cases: near-cancellation
    c[::2] = rs.standard_normal(n // 2).astype(dt)
    got = K.fma(a, b, c, dt)
    for i in range(0, n, 7):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        want = _round(exact, dt)
        assert got[i] == want, (i, a[i], b[i], c[i])


def _round(q, dt):
    """The float of ``dt`` nearest the rational ``q`` (ties to even), by bisection on ulps."""
    f = dt(float(q))  # within an ulp or two of q
    for _ in range(4):
        lo, hi = np.nextafter(f, dt(-np.inf)), np.nextafter(f, dt(np.inf))
        best = min((abs(Fraction(float(v)) - q), v) for v in (lo, f, hi))
        f = best[1]
    cands = [v for v in (np.nextafter(f, dt(-np.inf)), f, np.nextafter(f, dt(np.inf)))
             if abs(Fraction(float(v)) - q) == abs(Fraction(float(f)) - q)]
    if len(cands) > 1:  # a tie: the even one
        cands.sort(key=lambda v: int(np.asarray(v).view(np.int32 if dt == np.float32
                                                          else np.int64)) & 1)
    return cands[0]


def test_upsample_functions_warn_deprecated():
    x = torch.rand(1, 1, 2, 2)
    # real torch 2.13: a UserWarning from the caller's line, then interpolate's result
    for fn, mode, kw in [(F.upsample, "bilinear", {"mode": "bilinear"}),
                         (F.upsample_nearest, "nearest", {}),
                         (F.upsample_bilinear, "bilinear", {})]:
        with pytest.warns(UserWarning, match=f"^`nn.functional.{fn.__name__}` is deprecated. "
                          "Use `nn.functional.interpolate` instead.$"):
            y = fn(x, scale_factor=2, **kw)
        ac = {"align_corners": True} if fn is F.upsample_bilinear else {}
        want = F.interpolate(x, scale_factor=2, mode=mode, **ac)
        assert np.array_equal(y.numpy(), want.numpy())


U8 = [((2, 3, 17, 19), dict(size=(5, 7), mode="bilinear", antialias=True)),
      ((2, 4, 5, 6), dict(size=(7, 9), mode="bicubic", align_corners=True)),
      ((1, 5, 8, 8), dict(scale_factor=2.0, mode="bicubic", antialias=True)),
      ((2, 1, 5, 6), dict(size=(2, 13), mode="bilinear"))]
# recorded from real torch 2.13: sha256[:16] of the output bytes, its shape, its first value
U8_RECORDED = [("63cb3a6157876635", (2, 3, 5, 7), 154), ("15f888c1d87b2076", (2, 4, 7, 9), 192),
               ("13130eaf99648a05", (1, 5, 16, 16), 95), ("cde5f6f0a959680d", (2, 1, 2, 13), 29)]


@pytest.mark.parametrize("k", range(len(U8)))
def test_uint8_resize_bits(k):
    shape, kw = U8[k]
    x = np.random.RandomState(40 + k).randint(0, 256, shape).astype(np.uint8)
    y = F.interpolate(torch.from_numpy(x), **kw)
    assert y.dtype == torch.uint8
    yn = np.asarray(y.numpy())
    assert (_digest(yn), tuple(yn.shape), int(yn.reshape(-1)[0])) == U8_RECORDED[k]


def test_integer_dtypes_raise_as_torch():
    # messages recorded from real torch 2.13
    cases = [(torch.int64, (1, 2, 5, 5), dict(size=(7, 7), mode="nearest"),
              '"upsample_nearest2d_channels_last" not implemented for \'Long\''),
             (torch.int32, (1, 2, 5, 5), dict(size=(70, 70), mode="bilinear"),
              '"compute_indices_weights_linear" not implemented for \'Int\''),
             (torch.uint8, (1, 2, 5), dict(size=7, mode="linear"),
              '"compute_indices_weights_linear" not implemented for \'Byte\''),
             (torch.bool, (1, 2, 5, 5), dict(size=(7, 7), mode="bicubic"),
              '"compute_indices_weights_cubic" not implemented for \'Bool\''),
             (torch.uint8, (1, 2, 5, 5), dict(size=(3, 3), mode="area"),
              '"adaptive_avg_pool2d" not implemented for \'Byte\'')]
    for dt, shape, kw, msg in cases:
        with pytest.raises(NotImplementedError) as e:
            F.interpolate(torch.zeros(*shape, dtype=dt), **kw)
        assert str(e.value) == msg
