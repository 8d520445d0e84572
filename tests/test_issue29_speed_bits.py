"""The issue-29 shortcuts in the torch dialect's exact kernels give the bits of the replays they
stand for (``_softmax_kernels``): the facts they rest on checked by exhaustion where that is
cheap, the kernels against their fma-by-fma replays, and the backward engine's one-walk plan.
No real torch here: the replays are what tests/test_torch_softmax_bits.py checks against
torch's recorded bits."""
from __future__ import annotations

import numpy as np

from gradrepl.torch import _softmax_kernels as K
from gradrepl.torch._norm_kernels import fma as fma32

F32, F64 = np.float32, np.float64


def _bits(a):
    return np.asarray(a, F32).tobytes()


def _mantissas():
    """Every float32 m in [0.75, 1.5) (vlog's reduced mantissa), 12.6 M values, in chunks."""
    lo, hi = np.float32(0.75).view(np.int32), np.float32(1.5).view(np.int32)
    for start in range(int(lo), int(hi), 1 << 22):
        yield np.arange(start, min(start + (1 << 22), int(hi)), dtype=np.int32).view(F32)


def test_vlog_fmas_left_unchecked_are_exact_for_every_mantissa():
    # -1 + m is exact (its error term +0), t * nx - qx and 1 - dx * t are float32 values when
    # computed in double: their fmas round nothing, for each of the 12.6 M mantissas
    for m in _mantissas():
        nx = m - F32(1)
        assert np.array_equal(nx.astype(F64), m.astype(F64) - 1.0)
        dx = F32(1) + m
        t = F32(1) / dx
        qx = nx * t
        e1 = 1.0 - dx.astype(F64) * t.astype(F64)
        assert np.array_equal(e1.astype(F32).astype(F64), e1)
        u = t.astype(F64) * nx.astype(F64) - qx.astype(F64)
        assert np.array_equal(u.astype(F32).astype(F64), u)
        assert not np.signbit(u[u == 0]).any()   # never -0: fma(+0, t, u) is u


def test_vlog_equals_its_replay_in_every_binade():
    rng = np.random.default_rng(29)
    k = np.arange(-149, 128)
    d = (np.exp2(k.astype(F64)) * rng.uniform(1, 2, k.size)).astype(F32)
    d = d[d > 0]
    assert _bits(K._vlog_replay(d)) == _bits(K._vlog_each(d))
    for sums in (rng.uniform(1, 30, 4096), rng.uniform(0.5, 2, 4096)):
        s = sums.astype(F32)
        assert _bits(K._vlog_replay(s)) == _bits(K._vlog_each(s))
    # the exponent table is the replay's e * ln2 pair
    e = np.arange(-K._E_OFF, K._E_OFF, dtype=F32)
    sx = K._LN2_HI * e
    assert _bits(K._SX) == _bits(sx)
    assert _bits(K._SY) == _bits(fma32(K._LN2_LO, e, fma32(K._LN2_HI, e, -sx)))
    # anything but a positive finite float takes the replay, nan signs included
    odd = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 2.5], F32)
    assert _bits(K._vlog_replay(odd)) == _bits(K._vlog_each(odd))


def test_vexp_scaling_by_the_exponent_field_is_ldexp():
    rng = np.random.default_rng(7)
    x = rng.uniform(-86.5, 88.0, 200_000).astype(F32)
    q = np.rint(x * K._R_LN2)
    assert q.min() == -125 and q.max() == 127   # (the shortcut's whole range: results normal)
    assert _bits(K._vexp_replay(x)) == _bits(K._vexp_each(x))


def test_vexp_reduction_fmas_round_nothing_where_q_fits():
    # vexp's fast path computes fma(q, -L2U, d) as the float32 d - q * L2U and fma(q, -L2L, s)
    # as one double sum, unchecked: for q = rint(d / ln 2) in [-125, 127] both are exact.
    # Here every 97th float32 of that range (the whole range, 2,237,578,116 values, was
    # checked the same way once: 0 inexact); then the kernel against its replay near zero.
    bad = 0
    for sign in (0, 0x80000000):
        for start in range(0, 0x43000000, 97 << 20):
            b = (np.arange(start, min(start + (97 << 20), 0x43000000), 97, dtype=np.int64)
                 | sign).astype(np.uint32)
            d = b.view(F32)
            qf = np.rint(d * K._R_LN2)
            keep = (qf >= -125) & (qf <= 127)
            d, qf = d[keep], qf[keep]
            s = d - qf * K._L2U
            p = qf.astype(F64) * -float(K._L2U)
            ex = p + d.astype(F64)
            bb = ex - p
            bad += np.count_nonzero((p - (ex - bb)) + (d.astype(F64) - bb))
            bad += np.count_nonzero(s.astype(F64) != ex)
            p2, s1 = qf.astype(F64) * K._NL2L, s.astype(F64)
            ex2 = p2 + s1
            bb = ex2 - p2
            bad += np.count_nonzero((p2 - (ex2 - bb)) + (s1 - bb))
    assert bad == 0
    tiny = np.array([0.0, -0.0, 1e-45, -1e-45, 2.0 ** -126, -(2.0 ** -124), 1e-30, -0.34657,
                     0.34658, -86.5, 88.3, -87.0, 89.0, np.inf, -np.inf, np.nan], F32)
    assert _bits(K._vexp_replay(tiny)) == _bits(K._vexp_each(tiny))
    assert _bits(K._vexp_replay(tiny[:13])) == _bits(K._vexp_each(tiny[:13]))


def test_vlog_fast_path_facts_for_every_mantissa():
    # vlog of a normal d: (1 + m)'s error term as m - ((1 + m) - 1) equals the two-sum's, the
    # fma 1 - dx * t - dy * t is exact in double, the three checked fmas' sums are never
    # subnormal (so only midpoints are tested), for each of the 12.6 M mantissas; the one
    # exponent index gives getexp(d / 0.75) and getmant's m in every binade
    for m in _mantissas():
        dx, dy_two_sum = K._two_sum(F32(1), m)
        dy = m - (dx - F32(1))
        assert np.array_equal(dy.view(np.int32), dy_two_sum.view(np.int32))
        t = F32(1) / dx
        nx = m - F32(1)
        qx = nx * t
        t64 = t.astype(F64)
        c, p = 1.0 - dx.astype(F64) * t64, dy.astype(F64) * t64
        s1 = c - p
        bb = s1 - c
        assert not np.count_nonzero((c - (s1 - bb)) + (-p - bb))
        u64 = t64 * nx.astype(F64) - qx.astype(F64)
        x64 = (qx * qx).astype(F64)
        r3 = x64 * K._LP0 + K._LP1
        for r in (qx.astype(F64) * s1.astype(F32).astype(F64) + u64, r3,
                  r3.astype(F32).astype(F64) * x64 + K._LP2):
            a = np.abs(r)
            assert not np.count_nonzero((a > 0) & (a < 2.0 ** -125))
    m = _mantissas().__next__()[::7]
    for k in (-125, -100, -1, 0, 1, 30, 126):
        d = (m.astype(F64) * 2.0 ** k).astype(F32)
        d = d[(d >= K._MIN_NORMAL) & (d < K._VLOG_HI)]
        _f, ex = np.frexp(d * F32(1.0 / 0.75))
        ge = (d.view(np.int32) + 0x400000) >> 23
        assert np.array_equal(ex - 1, ge - 127)
        f, _e = np.frexp(d)
        mm = f * F32(2)
        mm = np.where(mm >= F32(1.5), mm * F32(0.5), mm)
        assert _bits(d * K._P2NEG[ge]) == _bits(mm)
        assert _bits(K._vlog_replay(d[:4096])) == _bits(K._vlog_each(d[:4096]))
    edge = np.array([2.0 ** -126, 2.0 ** 127 * 0.99, 1.5, 1.4999999, 0.75, 1.0, 3e38], F32)
    assert _bits(K._vlog_replay(edge)) == _bits(K._vlog_each(edge))
    assert K._vlog_replay(np.zeros(0, F32)).shape == (0,) and K._vexp_replay(np.zeros((2, 0), F32)).shape == (2, 0)


def test_one_walk_plan_is_collect_nodes_and_walk_deps():
    from gradrepl.engine import backward as bw
    from gradrepl.importhook import torch_modules

    with torch_modules():
        import torch

        w = torch.ones(3, 4, requires_grad=True)
        b = torch.zeros(4, requires_grad=True)
        h = torch.tanh(w * 2 + b)
        y = (h * h + h).sum() + (w @ torch.ones(4)).sum()   # shared nodes, diamonds
        nodes = [y.gradient_edge()[0]]
        order, deps = bw.collect_with_deps(nodes)
        assert len(order) > 8
        assert order == bw.collect_nodes(nodes)
        assert deps == bw.walk_deps(nodes)
        y.backward()
        # the one-walk counts drive the same backward: w's gradient from both branches
        t = torch.tanh(torch.ones(3, 4) * 2)
        want = ((2 * t + 1) * (1 - t * t) * 2 + 1).numpy()
        assert np.allclose(w.grad.numpy(), want)
