"""The torch dialect's pointwise math beyond the core (gradrepl/torch/_ops_math.py): values
against numpy / the C library / literals recorded from real torch 2.13 (CPU, x86-64) in the
session that wrote them, grad_fn names, gradients, errors, in-place twins."""
from __future__ import annotations

import math

import numpy as np
import pytest

import gradrepl.torch as torch


def _t(values, dtype=None):
    return torch.tensor(values, dtype=dtype)


def _bits(t):
    return [float.hex(v) for v in t.tolist()]


# ------------------------------------------------------------------------------ values
def test_inverse_hyperbolics_match_recorded_torch():
    a = _t([0.5, -1.25, 2.0, 3.5])
    # recorded from torch 2.13 (float32, printed with tolist())
    assert torch.asinh(a).tolist() == [0.4812118411064148, -1.0475929975509644,
                                       1.4436354637145996, 1.965720534324646]
    assert torch.acosh(a.abs() + 1).tolist() == [0.9624236822128296, 1.450574517250061,
                                                 1.7627471685409546, 2.1846437454223633]
    assert torch.atanh(a / 4).tolist() == [0.12565721571445465, -0.32331356406211853,
                                           0.5493061542510986, 1.35402512550354]
    # two builtins in real torch 2.13 (torch.arcsinh is torch.asinh: False), the same values
    assert torch.arcsinh is not torch.asinh and torch.arcsinh.__name__ == "arcsinh"
    assert torch.arcsinh(a).tolist() == torch.asinh(a).tolist() and a.arccosh is not None


def test_inverse_hyperbolics_close_to_numpy_float64():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(200) * 3
    for fn, npf, dom in ((torch.asinh, np.arcsinh, x), (torch.acosh, np.arccosh, 1 + np.abs(x)),
                         (torch.atanh, np.arctanh, np.tanh(x))):
        for dt in (torch.float32, torch.float64):
            got = fn(torch.tensor(dom.tolist(), dtype=dt))
            assert got.dtype == dt
            tol = 1e-6 if dt == torch.float32 else 1e-13
            held = dom.astype(np.float32 if dt == torch.float32 else np.float64)
            np.testing.assert_allclose(np.array(got.tolist()), npf(held.astype(np.float64)),
                                       rtol=tol, atol=tol)


def test_erfc_exp2_logaddexp2_recorded():
    a = _t([0.5, -1.25, 2.0, 3.5])
    assert torch.erfc(a).tolist() == [0.4795001149177551, 1.9229000806808472,
                                      0.004677734803408384, 7.430983828271565e-07]
    assert torch.exp2(a).tolist() == [1.4142135381698608, 0.4204482138156891, 4.0,
                                      11.313708305358887]
    assert torch.logaddexp2(a, a.flip(0)).tolist() == [3.6699249744415283, 2.144192695617676,
                                                       2.144192695617676, 3.6699249744415283]
    r = torch.logaddexp2(_t([math.inf, -math.inf]), _t([math.inf, -math.inf]))
    assert r.tolist() == [math.inf, -math.inf]


def test_deg2rad_rad2deg_float32_constant():
    x = _t([180.0, -90.0, 33.3])
    expect = (np.array([180.0, -90.0, 33.3], np.float32)
              * np.float32(0.017453292519943295)).tolist()
    assert torch.deg2rad(x).tolist() == expect
    assert torch.deg2rad(torch.tensor([180, -90])).dtype == torch.float32
    assert torch.rad2deg(_t([math.pi])).tolist() == [180.0]


def test_copysign_fmax_fmin_heaviside_nextafter():
    a, b = _t([1.0, -2.0, 3.0]), _t([-0.0, 1.0, -1.0])
    assert torch.copysign(a, b).tolist() == [-1.0, 2.0, -3.0]
    assert torch.copysign(torch.tensor([1, 2]), -1).tolist() == [-1.0, -2.0]
    n = _t([1.0, math.nan, 3.0])
    assert torch.fmax(n, _t([2.0, 0.5, math.nan])).tolist() == [2.0, 0.5, 3.0]
    assert torch.fmin(n, _t([2.0, 0.5, math.nan])).tolist() == [1.0, 0.5, 3.0]
    assert torch.heaviside(_t([-1.5, 0.0, 2.0]), _t([0.5])).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match="different dtypes"):
        torch.heaviside(_t([1.0]), torch.tensor([1]))
    d = torch.nextafter(_t([1.0, 2.0], torch.float64), _t([2.0, 1.0], torch.float64))
    assert (d - _t([1.0, 2.0], torch.float64)).tolist() == [2.220446049250313e-16,
                                                            -2.220446049250313e-16]


def test_ldexp_frexp_float_power():
    assert torch.ldexp(_t([1.0]), torch.tensor([1, 2, 3, 4])).tolist() == [2.0, 4.0, 8.0, 16.0]
    m, e = torch.frexp(_t([0.0, 1.0, -3.5, math.inf, 10.0]))
    assert m.tolist() == [0.0, 0.5, -0.875, math.inf, 0.625]
    assert e.tolist() == [0, 1, 2, 0, 4] and e.dtype == torch.int32
    assert repr(torch.frexp(_t([10.0]))).startswith("torch.return_types.frexp(\nmantissa=")
    with pytest.raises(RuntimeError, match="only supports floating-point"):
        torch.frexp(torch.tensor([1]))
    p = torch.float_power(torch.tensor([2, 3]), 2)
    assert p.dtype == torch.float64 and p.tolist() == [4.0, 9.0]
    assert torch.float_power(torch.arange(1, 5), torch.tensor([2, -3, 4, -5])).tolist() == \
        [1.0, 0.125, 81.0, 1.0 / 1024]
    with pytest.raises(RuntimeError, match="requires dtype Double"):
        _t([2.0]).float_power_(2)


def test_gcd_lcm_shifts():
    a, b = torch.tensor([5, 10, 15, -6, 0]), torch.tensor([3, 4, 5, 4, 0])
    assert torch.gcd(a, b).tolist() == [1, 2, 5, 2, 0]
    assert torch.lcm(a, b).tolist() == [15, 20, 15, 12, 0]
    with pytest.raises(NotImplementedError, match="gcd_cpu"):
        torch.gcd(_t([1.0]), _t([2.0]))
    i8 = torch.int8
    r = torch.bitwise_left_shift(torch.tensor([-1, -2, 3], dtype=i8),
                                 torch.tensor([1, 0, 3], dtype=i8))
    assert r.tolist() == [-2, -2, 24] and r.dtype == i8
    # torch: shifts past the width give 0 (left) or the sign (right)
    assert (torch.tensor([3, 3], dtype=i8) << torch.tensor([7, 9], dtype=i8)).tolist() == [-128, 0]
    assert (torch.tensor([-8, 8]) >> torch.tensor([70, -1])).tolist() == [-1, 0]
    assert (torch.tensor([12, 18, 3]) >> 1).tolist() == [6, 9, 1]
    assert (1 << torch.tensor([3, 4])).tolist() == [8, 16]
    with pytest.raises(NotImplementedError, match="lshift_cpu"):
        _t([1.5]) << 1


def test_predicates():
    assert torch.isposinf(_t([-math.inf, math.inf, 1.2])).tolist() == [False, True, False]
    assert torch.isneginf(_t([-math.inf, math.inf, 1.2])).tolist() == [True, False, False]
    assert torch.signbit(_t([0.7, -1.2, 0.0, -0.0])).tolist() == [False, True, False, True]
    assert torch.isreal(torch.tensor([1 + 0j, 1 + 1j])).tolist() == [True, False]
    assert torch.is_nonzero(_t([0.0])) is False and torch.is_nonzero(_t([[True]])) is True
    with pytest.raises(RuntimeError, match="more than one value"):
        torch.is_nonzero(_t([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="no values"):
        torch.is_nonzero(_t([]))
    assert torch.is_same_size(_t([1.0]), _t([2.0])) and not torch.is_storage(_t([1.0]))
    assert torch.is_inference_mode_enabled() is False
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() is True
    assert torch.is_inference_mode_enabled() is False


def test_round_decimals_and_rounding_modes():
    assert torch.round(_t([0.1234567]), decimals=3).tolist() == [np.float32(0.123).item()]
    assert torch.round(_t([1200.1234567]), decimals=-3).tolist() == [1000.0]
    assert torch.round(_t([-0.5, 0.5, 1.5, 2.5])).tolist() == [-0.0, 0.0, 2.0, 2.0]
    with pytest.raises(NotImplementedError, match="round_cpu"):
        torch.round(torch.tensor([12]), decimals=-1)
    assert torch.div(torch.tensor([7, -7]), 2, rounding_mode="trunc").tolist() == [3, -3]
    assert torch.div(torch.tensor([7, -7]), 2, rounding_mode="floor").tolist() == [3, -4]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.div(torch.tensor([7]), 0, rounding_mode="floor")
    with pytest.raises(RuntimeError, match="rounding_mode to be one of"):
        torch.div(_t([1.0]), 2, rounding_mode="x")
    assert torch.fmod(_t([-3.0, -2, -1, 1, 2, 3]), 2).tolist() == [-1.0, -0.0, -1.0, 1.0, 0.0,
                                                                    1.0]
    assert torch.remainder(_t([-3.0, -2, -1, 1, 2, 3]), -1.5).tolist() == [-0.0, -0.5, -1.0,
                                                                            -0.5, -1.0, 0.0]
    assert torch.remainder(-1.5, torch.tensor([1, 2, 3])).tolist() == [0.5, 0.5, 1.5]


def test_complex_views_of_real_and_complex_tensors():
    f = _t([1.5, -2.0])
    assert torch.real(f) is f and torch.conj(f) is f and torch.positive(f) is f
    assert f.real is f
    with pytest.raises(RuntimeError, match="imag is not implemented"):
        f.imag
    assert torch.angle(_t([-1.0, 0.0, 2.0])).tolist() == [np.float32(np.pi).item(), 0.0, 0.0]
    z = torch.tensor([1 + 2j])
    c = torch.conj(z)
    assert c.is_conj() and not c.resolve_conj().is_conj()
    assert c.tolist() == [1 - 2j] and z.imag.tolist() == [2.0]
    p = torch.polar(_t([1.0, 2.0], torch.float64), _t([np.pi / 2, 5 * np.pi / 4], torch.float64))
    assert repr(p) == ("tensor([ 6.1232e-17+1.0000j, -1.4142e+00-1.4142j], "
                       "dtype=torch.complex128)")
    with pytest.raises(RuntimeError, match="Half, Float or Double"):
        torch.polar(torch.tensor([1]), torch.tensor([1]))
    with pytest.raises(RuntimeError, match="on a bool tensor"):
        torch.positive(torch.tensor([True]))


# ------------------------------------------------------------------------------ autograd
@pytest.mark.parametrize("name, value, node", [
    ("asinh", 0.5, "AsinhBackward0"), ("acosh", 1.5, "AcoshBackward0"),
    ("atanh", 0.5, "AtanhBackward0"), ("erfc", 0.5, "ErfcBackward0"),
    ("exp2", 0.5, "Exp2Backward0"), ("deg2rad", 0.5, "Deg2RadBackward0"),
    ("rad2deg", 0.5, "Rad2DegBackward0"), ("sgn", 0.5, "SgnBackward0"),
])
def test_unary_grad_fn_and_gradient(name, value, node):
    x = _t([value, value + 0.25], torch.float64).requires_grad_()
    y = getattr(torch, name)(x)
    assert type(y.grad_fn).__name__ == node
    (g,) = torch.autograd.grad(y.sum(), x)
    h = 1e-6
    xs = np.array([value, value + 0.25])
    num = [(getattr(torch, name)(_t([v + h], torch.float64)).item()
            - getattr(torch, name)(_t([v - h], torch.float64)).item()) / (2 * h) for v in xs]
    np.testing.assert_allclose(g.tolist(), num, rtol=1e-6, atol=1e-8)


def test_recorded_gradients_float32():
    a = _t([0.5, -1.25, 2.0, 3.5])
    x = a.clone().requires_grad_()
    torch.asinh(x).sum().backward()
    # recorded from torch 2.13
    assert x.grad.tolist() == [0.8944271802902222, 0.6246950626373291, 0.4472135901451111,
                               0.2747211158275604]
    x.grad = None
    torch.erfc(x).sum().backward()
    assert x.grad.tolist() == [-0.8787826299667358, -0.2365211397409439,
                               -0.02066698670387268, -5.399426754593151e-06]


def test_binary_grad_fn_names():
    x = _t([0.5, -0.25, 2.0]).requires_grad_()
    y = _t([1.5, 0.75, -1.0]).requires_grad_()
    names = {
        "CopysignBackward0": torch.copysign(x, y), "CopysignBackward1": torch.copysign(x, -1.0),
        "FmaxBackward0": torch.fmax(x, y), "FminBackward0": torch.fmin(x, y),
        "LdexpBackward0": torch.ldexp(x, torch.tensor([1, 2, 3])),
        "Logaddexp2Backward0": torch.logaddexp2(x, y), "HypotBackward0": torch.hypot(x, y),
        "DivBackward2": torch.div(x, y, rounding_mode="floor"),
        "FmodBackward0": torch.fmod(x, 1.5), "FmodBackward1": torch.fmod(x, y),
        "RemainderBackward0": torch.remainder(x, 1.5), "RemainderBackward1": x % y,
        "NextafterBackward0": torch.nextafter(x, y), "RoundBackward1": x.round(decimals=2),
        "ClampMinBackward1": torch.clamp_min(x, y), "ClampMaxBackward1": torch.clamp_max(x, y),
        "NotImplemented": torch.heaviside(x, y), "FrexpBackward0": torch.frexp(x)[0],
        "AngleBackward0": torch.angle(x), "PowBackward0": torch.float_power(x, 2),
        "Atan2Backward0": torch.arctan2(x, y),
    }
    for name, t in names.items():
        assert type(t.grad_fn).__name__ == name, name
    assert torch.float_power(x, 2).dtype == torch.float64
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside"):
        torch.heaviside(x, y).sum().backward()
    g = torch.autograd.grad(torch.copysign(x, y).sum(), (x, y))
    assert g[0].tolist() == [1.0, -1.0, -1.0] and g[1].tolist() == [0.0, 0.0, 0.0]
    g = torch.autograd.grad(torch.fmod(x, y).sum(), (x, y))
    assert g[0].tolist() == [1.0, 1.0, 1.0] and g[1].tolist() == [-0.0, 0.0, 2.0]
    (g,) = torch.autograd.grad(torch.ldexp(x, torch.tensor([1, 2, 3])).sum(), x)
    assert g.tolist() == [2.0, 4.0, 8.0]


# ------------------------------------------------------------------------------ in place
def test_inplace_twins():
    a = _t([0.5, 0.7]).requires_grad_()
    c = a * 1
    c.exp2_()
    assert type(c.grad_fn).__name__ == "Exp2Backward0"
    np.testing.assert_allclose(c.tolist(), np.exp2([0.5, 0.7]), rtol=1e-6)
    c = a * 1
    c.asinh_()
    assert type(c.grad_fn).__name__ == "AsinhBackward1"
    with pytest.raises(RuntimeError, match="inplace version of asinh"):
        c.sum().backward()
    c = a * 1
    c.copysign_(-1.0)
    assert c.tolist() == [-0.5, -0.699999988079071]
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.tensor([1, 2]).asinh_()
    t = _t([1.0, 2.0])
    assert torch.exp_(t) is t and t.tolist() == [np.float32(math.e).item(),
                                                   np.float32(math.exp(2)).item()]
    t = _t([1.0, 2.0])
    t.eq_(_t([1.0, 3.0]))
    assert t.tolist() == [1.0, 0.0] and t.dtype == torch.float32
    i = torch.tensor([1, 2])
    i <<= 2
    assert i.tolist() == [4, 8]


# ------------------------------------------------------------------------------ switches
def test_legacy_tensor_types_and_default_tensor_type():
    assert repr(torch.DoubleTensor) == "<class 'torch.DoubleTensor'>"
    assert torch.FloatTensor.dtype == torch.float32
    assert isinstance(torch.zeros(1), torch.FloatTensor)
    assert not isinstance(torch.zeros(1), torch.DoubleTensor)
    assert torch.LongTensor([1, 2]).dtype == torch.int64
    assert torch.FloatTensor(2, 3).shape == (2, 3)
    assert torch.zeros(2).type(torch.DoubleTensor).dtype == torch.float64
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            torch.set_default_tensor_type(torch.DoubleTensor)
        assert torch.tensor([1.2, 3]).dtype == torch.float64
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.tensor([1.2, 3]).dtype == torch.float32


def test_set_flush_denormal():
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        assert torch.set_flush_denormal(True) is False
        return
    tiny = np.array([1e-323])
    try:
        assert torch.set_flush_denormal(True) is True
        assert bool((tiny * 1.0 == 0).all())  # denormals are zero for this thread now
    finally:
        assert torch.set_flush_denormal(False) is True
    assert bool((tiny * 1.0 != 0).all())


# ------------------------------------------------------------------------------ SLEEF kernels
def test_sleef_atanh_exp2_blocks_match_recorded_torch_bits():
    """The vector part (whole blocks of 32 floats / 16 doubles) is SLEEF's u10 atanh/exp2 in
    numpy: its bytes equal those torch 2.13 printed (md5 recorded from real torch)."""
    import hashlib

    from gradrepl.torch import _sleef_more as S

    x = np.linspace(-0.99, 0.99, 45)[:32]
    e = np.linspace(-140.0, 127.0, 45)[:32]
    expect = {np.float32: ("f5482250b9784ba5ea784f1b9c87acfb", "f25a58978024e0b6155281983e5209a1"),
              np.float64: ("9d9a8bc838b4c4dd8057cabb3cd269a3", "ca1463e61c875b65193ee72c1d105e3c")}
    for dt, (ha, hb) in expect.items():
        f_atanh = S.atanhf if dt == np.float32 else S.atanhd
        f_exp2 = S.exp2f if dt == np.float32 else S.exp2d
        a = f_atanh(x.astype(dt))
        b = f_exp2(e.astype(dt))
        assert a.dtype == dt and b.dtype == dt
        assert hashlib.md5(a.tobytes()).hexdigest() == ha
        assert hashlib.md5(b.tobytes()).hexdigest() == hb


def test_sleef_special_values():
    from gradrepl.torch import _sleef_more as S

    for f, dt in ((S.atanhf, np.float32), (S.atanhd, np.float64)):
        r = f(np.array([0.0, -0.0, 1.0, -1.0, 2.0, np.inf, np.nan, 0.5], dt))
        assert r[0] == 0 and np.signbit(r[1]) and r[2] == np.inf and r[3] == -np.inf
        assert np.isnan(r[4:7]).all()
        np.testing.assert_allclose(r[7], np.arctanh(0.5), rtol=1e-6)
    for f, dt, hi in ((S.exp2f, np.float32, 128), (S.exp2d, np.float64, 1024)):
        r = f(np.array([0.0, 1.0, -1.0, hi, -np.inf, np.inf, np.nan, 3.5], dt))
        assert r[:3].tolist() == [1.0, 2.0, 0.5] and r[3] == np.inf and r[4] == 0
        assert r[5] == np.inf and np.isnan(r[6])
        np.testing.assert_allclose(r[7], 2 ** 3.5, rtol=1e-6)
