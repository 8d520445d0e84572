"""torch.var/std/var_mean/std_mean with torch 2.13's CPU kernels (``gradrepl/torch/_moments``):
one output -> two passes (torch's mean, then double squares added in memory order, per thread
from 32768 values on); over dims, and var_mean/std_mean always -> Welford in double. Round 11A
(EECS 498 A3 batch norm by hand): float64 ``x.var(dim=0, unbiased=False)`` differed from torch in
the last bits (a two-pass numpy sum). Literals: float.hex of what real torch 2.13 printed in this
session for the same inputs (IEEE double arithmetic only, no CPU-dependent kernels; the
70000-value cases use 2 threads, as conftest sets GRADREPL_TORCH_THREADS and the reference
torch ran)."""
import warnings

import gradrepl.torch as torch


def _data(n, dtype=torch.float64):
    i = torch.arange(n, dtype=torch.float64)
    return ((i * 0.37) % 1.3 * 7 + 2 - (i * 0.011) % 0.5 * 3).to(dtype)


def _h(t):
    return [float(v).hex() for v in t.reshape(-1).tolist()]


def test_var_std_over_a_dim_are_welford():
    x = _data(600).reshape(200, 3)
    assert _h(x.var(0)) == ['0x1.c84f253a73050p+2', '0x1.cac3942fcb24dp+2',
                            '0x1.c69e4eac093f1p+2']
    assert _h(x.var(0, unbiased=False)) == ['0x1.c60711d798d83p+2', '0x1.c8785c67dfe36p+2',
                                            '0x1.c45865519370ap+2']
    assert _h(x.std(0)) == ['0x1.55c845469e610p+1', '0x1.56b34ed1c4b06p+1',
                            '0x1.552604e3b101cp+1']
    assert _h(x.var(1)[:5]) == ['0x1.a272abef06b38p+2', '0x1.5beea6ee5d87ep+3',
                                '0x1.5beea6ee5d87ep+3', '0x1.5beea6ee5d87cp+3',
                                '0x1.a272abef06b3ep+2']
    w = _data(120).reshape(4, 5, 6)
    assert _h(w.var((0, 2))) == ['0x1.c963020eb8308p+2', '0x1.d5a64a0edca81p+2',
                                 '0x1.ae58fb536859ap+2', '0x1.eaa98c5c1db68p+2',
                                 '0x1.eaa98c5c1db56p+2']


def test_full_var_std_are_two_pass():
    y = _data(2100).reshape(300, 7)
    assert _h(y.var()) == ['0x1.c6b362219a7b8p+2']
    assert _h(y.std(correction=0)) == ['0x1.551920dbdcb72p+1']
    f = _data(2100, torch.float32).reshape(300, 7)
    assert _h(f.var()) == ['0x1.c6b3620000000p+2']
    assert _h(f.std()) == ['0x1.552dee0000000p+1']


def test_var_mean_and_std_mean_take_welford_and_its_mean():
    x = _data(600).reshape(200, 3)
    v, m = torch.var_mean(x, 0)
    assert _h(v) == ['0x1.c84f253a73050p+2', '0x1.cac3942fcb24dp+2', '0x1.c69e4eac093f1p+2']
    assert _h(m) == ['0x1.729fbe76c8b18p+2', '0x1.78083126e976ap+2', '0x1.78189374bc683p+2']
    v, m = torch.std_mean(_data(2100).reshape(300, 7))
    assert (_h(v), _h(m)) == (['0x1.552ded30ee8d7p+1'], ['0x1.749c09c09c009p+2'])
    w = _data(120).reshape(4, 5, 6)
    assert _h(torch.var_mean(w, (0, 2))[1]) == ['0x1.75d0369d03695p+2', '0x1.8508dfea2797cp+2',
                                                '0x1.7ffd44f30781ep+2', '0x1.6aad65b7a327ep+2',
                                                '0x1.75e60f04c7560p+2']


def test_threaded_ranges_from_32768_values():
    z = _data(70000)
    assert _h(z.var()) == ['0x1.c5b3bbc9440aep+2']
    v, m = torch.var_mean(z)
    assert (_h(v), _h(m)) == (['0x1.c5b3bbc9440c0p+2'], ['0x1.745b9628caaeep+2'])


def test_transposed_view_is_read_in_memory_order():
    t = _data(1200).reshape(30, 40).t()
    assert _h(t.var()) == ['0x1.c7ae691b45438p+2']
    v, m = torch.var_mean(t)
    assert (_h(v), _h(m)) == (['0x1.c7ae691b45442p+2'], ['0x1.75619f0fb385cp+2'])
    assert _h(t.var(1)[:4]) == ['0x1.c260d831874d6p+2', '0x1.ca35e839702a6p+2',
                                '0x1.ba003c435333ep+2', '0x1.ee3751cd636d7p+2']


def test_no_degrees_of_freedom_warns_as_torch():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        torch.ones(3, 1, dtype=torch.float64).var(1)
        torch.std_mean(torch.ones(2, dtype=torch.float64), correction=2)
    tail = (" degrees of freedom is <= 0. Correction should be strictly less than the reduction "
            "factor (input numel divided by output numel). (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")
    assert [str(r.message) for r in rec] == ["var():" + tail, "std_mean():" + tail]
    assert all(r.category is UserWarning for r in rec)
