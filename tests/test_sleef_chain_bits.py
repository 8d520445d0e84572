"""Issue 29's faster exact paths of torch's softmax kernels give the bits of the paths they
short-cut (which tests/test_torch_softmax_bits.py checks against records of real torch):

- SLEEF's expf/logf replays with their fused multiply-adds checked once per chain
  (``_softmax_kernels._Chain``) against the replays checking and repairing each fma on its own
  (``_vexp_each``, ``_vlog_each``), including the inputs where an fma's double sum lands on a
  float midpoint (exact or not) or in the subnormal range;
- the log_softmax backward's one fma checked the same way;
- nll_loss's cascade sum in whole-array levels against the position-by-position loop.
"""
from __future__ import annotations

import numpy as np
import pytest

from gradrepl.torch import _norm_kernels as NK
from gradrepl.torch import _softmax_kernels as K

F32 = np.float32
SPECIAL = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, 1.17e-38, -1.17e-38, 88.7, 88.8,
                    -87.3, -103.9, -104.1, 100.1, 1e30, -1e30, np.inf, -np.inf, np.nan, 3.4e38,
                    -3.4e38, 0.5, 1.5, 2.0, 0.75], F32)


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


def _inputs(rng, trial):
    shape = tuple(int(v) for v in rng.integers(1, 40, size=rng.integers(1, 3)))
    kind = trial % 6
    if kind == 0:
        x = rng.standard_normal(shape) * 3
    elif kind == 1:
        x = rng.standard_normal(shape) * 30
    elif kind == 2:
        x = -np.abs(rng.standard_normal(shape)) * 1e-3
    elif kind == 3:
        x = rng.uniform(-110, 110, shape)
    elif kind == 4:   # every binade, subnormals included
        x = (np.exp2(rng.integers(-150, 128, shape)) * rng.choice([-1, 1], shape)
             * rng.uniform(1, 2, shape))
    else:
        x = rng.choice(SPECIAL, shape)
    with np.errstate(all="ignore"):
        return x.astype(F32)


def test_vexp_vlog_chains_equal_the_fma_by_fma_replays():
    rng = np.random.default_rng(2029)
    with np.errstate(all="ignore"):
        for trial in range(600):
            x = _inputs(rng, trial)
            assert _bits(K.vexp(x)) == _bits(K._vexp_each(x))
            d = np.abs(x) if trial % 6 == 5 else np.where(
                np.isfinite(x) & (x != 0), np.abs(x), F32(1.5)).astype(F32)
            assert _bits(K.vlog(d)) == _bits(K._vlog_each(d))
        # sums of softmax rows (vlog's input in log_softmax): its midpoint sums are exact ones
        for n in (27, 100, 1000):
            s = K.vsum(K.vexp(rng.standard_normal((64, n)).astype(F32) * 3))
            assert _bits(K.vlog(s)) == _bits(K._vlog_each(s))
        assert _bits(K.vexp(np.float32(1.0))) == _bits(K._vexp_each(np.float32(1.0)))


def test_chain_sends_a_wrongly_rounded_midpoint_to_the_repair():
    # the double sum of a * b + c lands on a float midpoint 2**-34 above the exact value: the
    # plain rounding goes up, the fused result down (tests/test_torch_norm_bits.py's case)
    a, b = F32(0.25 * (1 + 2 ** -15)), F32(0.25 * (1 - 2 ** -15))
    c = np.full(3, 2 ** 20 + 0.125, F32)
    ch = K._Chain(1, (3,))
    got = ch.fma(np.full(3, float(a)), float(b), c.astype(np.float64))
    assert (got == F32(2 ** 20 + 0.25)).all()     # the plain rounding
    assert not ch.exact()
    assert (NK.fma(np.full(3, a), b, c) == F32(2 ** 20 + 0.125)).all()


def test_chain_accepts_midpoints_that_are_exact_sums():
    # 0.5 + 2**-25 is a float midpoint, and the exact value of 1 * 0.5 + 2**-25: ties to even
    ch = K._Chain(2, (2,))
    got = ch.fma(np.ones(2), 0.5, np.full(2, 2.0 ** -25))
    ch.fma(np.ones(2), 1.0, np.ones(2))
    assert (got == F32(0.5)).all()
    assert ch.exact()
    # a subnormal sum is checked against the repair too (here it agrees)
    ch = K._Chain(1, (1,))
    ch.fma(np.array([2.0 ** -140]), 1.0, 0.0)
    assert ch.exact()


@pytest.mark.parametrize("shape", [(32, 27), (5, 3), (8, 1000), (1, 17)])
def test_log_softmax_backward_equals_the_plain_fma(shape):
    rng = np.random.default_rng(shape[0] * 7 + shape[1])
    x = (rng.standard_normal(shape) * 4).astype(F32)
    y = K.log_softmax(x, 1)
    for g in (rng.standard_normal(shape).astype(F32), np.full(shape, F32(1 / 3))):
        want = NK.fma(-K._vexp_each(y), K.vsum(g)[:, None], g)
        assert _bits(K.log_softmax_backward(y, g, 1)) == _bits(want)
    hot = np.zeros(shape, F32)
    hot[np.arange(shape[0]), rng.integers(0, shape[1], shape[0])] = F32(-1 / shape[0])
    want = NK.fma(-K._vexp_each(y), K.vsum(hot)[:, None], hot)
    assert _bits(K.log_softmax_backward(y, hot, 1)) == _bits(want)


def test_cascade_sum_levels_equal_the_loop():
    rng = np.random.default_rng(29)
    sizes = list(range(1, 70)) + [255, 256, 257, 272, 273, 4095, 4096, 4097, 4113, 65537]
    for n in sizes:
        for dt in (np.float32, np.float64):
            for v in (rng.standard_normal(n),
                      rng.standard_normal(n) * np.exp2(rng.integers(-30, 30, n)),
                      rng.choice([0.0, -0.0, 1e-8, -1.0, 1.0, 3.0, 1e8], n)):
                v = v.astype(dt)
                ones = np.ones(n, bool)
                got, want = K.cascade_sum(v, ones), K._cascade_loop(v, ones)
                assert type(got) is type(want) and _bits(got) == _bits(want)
    # a masked position keeps the loop (it carries nothing, and no carry happens there)
    v = rng.standard_normal(40).astype(F32)
    mask = np.ones(40, bool)
    mask[16] = False
    assert _bits(K.cascade_sum(v, mask)) == _bits(K._cascade_loop(v, mask))
    assert K.cascade_sum(np.zeros(0, F32), np.zeros(0, bool)) == 0
