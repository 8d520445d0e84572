"""torch float64 atan2 as torch 2.13 computes it on x86-64 with AVX-512: SLEEF's xatan2_u1
(Sleef_atan2d8_u10, gradrepl/torch/_sleef_more.atan2d) on the vector loop's blocks of 16
doubles, the C library's atan2 on the rest. Digests of atan2(y, x), its two gradients and a
transposed (strided) call, from real torch 2.13 on this Intel Sapphire Rapids machine."""
import hashlib

import numpy as np
import pytest

from conftest import skip_unless_x86_64, skip_without_avx512

REAL = [
    ((7,), ['4a329693b3033985', 'f73ff94d625ef595', '6039a6c34f52fb68', '4a329693b3033985']),
    ((37,), ['eb8eafe160730f17', '8c1c1a72603952cd', '11df801c1f480e34', 'eb8eafe160730f17']),
    ((64, 10), ['6400992159fa52ef', '3a1a8c35eb8168dd', '6ddfc83382014d0e', '931a585cd713e164']),
    ((3, 33), ['c2f1933f4da7ef0b', '84c89a38e6ec4938', 'eb98192259b2aaac', '86e8b5d1c88394d9']),
    ((1000,), ['5983be03cd708bd0', '650252e8fa7c5ecc', 'b496663173f56fc4', '5983be03cd708bd0']),
]


def test_atan2_float64_bits():
    skip_unless_x86_64("real torch 2.13's float64 atan2 (SLEEF's x86 double functions)")
    skip_without_avx512("real torch 2.13's float64 atan2 (its AVX-512 vector loop)")
    import gradrepl.torch as torch

    rng = np.random.default_rng(7)
    for shape, want in REAL:
        y = torch.tensor(rng.standard_normal(shape), requires_grad=True)
        x = torch.tensor(rng.standard_normal(shape) * 3, requires_grad=True)
        r = torch.atan2(y, x)
        r.backward(torch.ones(shape, dtype=torch.float64))
        two = len(shape) == 2
        rt = torch.atan2(y.detach().t() if two else y.detach(), x.detach().t() if two else x.detach())
        got = [hashlib.sha1(t.numpy().tobytes()).hexdigest()[:16]
               for t in (r.detach(), y.grad, x.grad, rt.contiguous())]
        assert got == want, shape


def test_atan2_float64_special_values():
    from gradrepl.torch._sleef_more import atan2d

    y = np.array([0.0, -0.0, 1.0, -1.0, np.inf, np.nan, 0.0, 1.0])
    x = np.array([-1.0, -1.0, 0.0, 0.0, np.inf, 1.0, 0.0, -np.inf])
    got = atan2d(y, x)
    want = np.arctan2(y, x)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
