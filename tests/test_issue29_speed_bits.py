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
    assert _bits(K.vlog(d)) == _bits(K._vlog_each(d))
    for sums in (rng.uniform(1, 30, 4096), rng.uniform(0.5, 2, 4096)):
        s = sums.astype(F32)
        assert _bits(K.vlog(s)) == _bits(K._vlog_each(s))
    # the exponent table is the replay's e * ln2 pair
    e = np.arange(-K._E_OFF, K._E_OFF, dtype=F32)
    sx = K._LN2_HI * e
    assert _bits(K._SX) == _bits(sx)
    assert _bits(K._SY) == _bits(fma32(K._LN2_LO, e, fma32(K._LN2_HI, e, -sx)))
    # anything but a positive finite float takes the replay, nan signs included
    odd = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 2.5], F32)
    assert _bits(K.vlog(odd)) == _bits(K._vlog_each(odd))


def test_vexp_scaling_by_the_exponent_field_is_ldexp():
    rng = np.random.default_rng(7)
    x = rng.uniform(-86.5, 88.0, 200_000).astype(F32)
    q = np.rint(x * K._R_LN2)
    assert q.min() == -125 and q.max() == 127   # (the shortcut's whole range: results normal)
    assert _bits(K.vexp(x)) == _bits(K._vexp_each(x))


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
