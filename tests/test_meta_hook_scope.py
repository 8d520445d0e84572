"""Issue 28 (order-dependent failures): the meta device's engine apply hook is on only while a
meta tensor is alive. It stayed on for the rest of the process after the first meta tensor, so
running the meta tests (test_lect4_r7a) before test_issue29_inplace_fast / _speed_paths turned
off the hook-free fast paths those files check (4 failures in that order, none alone)."""
from __future__ import annotations

import gc

import gradrepl.torch as torch
from gradrepl.engine import registry
from gradrepl.torch import _inplace, _ops


def _meta_work():
    conv = torch.nn.Conv2d(3, 5, 2, device="meta")
    out = conv(torch.rand(2, 3, 10, 10, device="meta"))
    x = torch.ones(2, 3, device="meta", requires_grad=True, dtype=torch.float64)
    y = x.t().reshape(6) * 2
    assert registry.apply_hook_active()
    return out, y


def test_the_meta_hook_goes_off_with_the_last_meta_tensor():
    gc.collect()
    assert not registry.apply_hook_active()
    out, y = _meta_work()
    del out
    assert registry.apply_hook_active()  # y (a float64 meta tensor) is alive
    view = y[:2]
    del y
    assert registry.apply_hook_active()  # a view of a meta tensor is meta
    assert repr(view * 3).startswith("tensor(..., device='meta', size=(2,)")
    del view
    assert not registry.apply_hook_active()  # no gc needed: nothing meta is left
    x = torch.ones(3)
    assert _inplace.plain_binary(x, torch.ones(3), _ops.add) is x  # the fast path is back
    # and on again for the next meta tensor, with the same results
    out, y = _meta_work()
    assert repr(out) == ("tensor(..., device='meta', size=(2, 5, 9, 9), "
                         "grad_fn=<ConvolutionBackward0>)")
    del out, y
    assert not registry.apply_hook_active()


def test_the_meta_hook_under_another_hook_stays_chained():
    seen = []

    def recorder(op, inputs, attrs):
        seen.append(op.name)
        return NotImplemented

    with registry.apply_hook(recorder):
        out, y = _meta_work()
        del out, y  # meta's hook is off; the recorder is the hook again
        torch.ones(2) * 3
    assert not registry.apply_hook_active()
    assert seen == ["multiply"]  # meta ops never reach it; the plain one does
