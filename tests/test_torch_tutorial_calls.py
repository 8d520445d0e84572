"""Calls of PyTorch's jacobians/hessians tutorial, in our own small cases, against torch 2.13.

- ``tanh``'s backward is torch's kernel: ``dout * (1 - t*t)`` with ``1 - t*t`` one fused
  multiply-add (bits recorded from /opt/oracle/tv: plain rounding gives other bits here);
- ``torch.func.vmap`` batches: a vmapped 1-D ``F.linear`` is the batched product, and
  ``vmap(jacrev(f))`` equals ``jacrev`` of the batch-summed ``f`` bit for bit (torch prints
  True for each ``torch.equal`` asserted here; a per-sample loop gives False for the first).
"""
import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F
from gradrepl.torch import _vmap
from gradrepl.torch.func import hessian, jacfwd, jacrev, vmap

# x, torch's x.grad after x.tanh().backward(full(1.7)), as float.hex; the plain two-rounding
# value differs in each case (listed third)
TANH_GRADS = [
    ("-0x1.8000000000000p+1", "0x1.12cb940000000p-6", "0x1.12cbb40000000p-6"),
    ("-0x1.38624e0000000p+1", "0x1.a06dd80000000p-5", "0x1.a06df00000000p-5"),
    ("-0x1.cf7cee0000000p+0", "0x1.61725c0000000p-3", "0x1.6172580000000p-3"),
    ("-0x1.0fdf3c0000000p-2", "0x1.95e8a40000000p+0", "0x1.95e8a20000000p+0"),
    ("0x1.ce56040000000p+0", "0x1.6479760000000p-3", "0x1.6479700000000p-3"),
    ("0x1.379db20000000p+1", "0x1.a560d40000000p-5", "0x1.a560de0000000p-5"),
]


def _hex32(t):
    return [float(v).hex() for v in t.detach().numpy().ravel()]


def test_tanh_backward_is_torchs_fused_kernel():
    xs = [float.fromhex(x) for x, _, _ in TANH_GRADS]
    x = torch.tensor(xs, requires_grad=True)
    x.tanh().backward(torch.full((len(xs),), 1.7))
    assert _hex32(x.grad) == [g for _, g, _ in TANH_GRADS]
    assert all(g != plain for _, g, plain in TANH_GRADS)


def test_tanh_double_backward_uses_the_same_kernel():
    # d/d(dout) of tanh_backward is tanh_backward again: the columns of a Jacobian (jacfwd,
    # the double VJP) carry the same bits as its rows (jacrev)
    xs = [float.fromhex(x) for x, _, _ in TANH_GRADS]
    x = torch.tensor(xs)
    rows = jacrev(torch.tanh)(x)
    cols = jacfwd(torch.tanh)(x)
    assert torch.equal(rows, cols)
    assert _hex32(torch.diagonal(rows) * 1.7) == [g for _, g, _ in TANH_GRADS]


def _data(shape, seed):
    n = int(np.prod(shape))
    v = np.sin(np.arange(n, dtype=np.float64) * 0.7 + seed) * (1.5 + seed)
    return torch.from_numpy(v.astype(np.float32).reshape(shape))


W, B, X = _data((9, 7), 1), _data((9,), 2), _data((6, 7), 3)


def _predict(w, b, x):
    return F.linear(x, w, b).tanh()


def test_vmapped_linear_is_the_batched_product():
    lin_v = vmap(lambda v: F.linear(v, W, B))(X)
    lin_b = F.linear(X, W, B)
    lin_1 = torch.stack([F.linear(X[i], W, B) for i in range(6)])
    assert torch.equal(lin_v, lin_b)          # torch: True
    assert not torch.equal(lin_1, lin_b)      # torch: False (1-D products round otherwise)


def test_vmap_jacrev_equals_jacrev_of_the_summed_function():
    j0 = vmap(jacrev(_predict, argnums=2), in_dims=(None, None, 0))(W, B, X)
    j1 = jacrev(lambda w, b, x: _predict(w, b, x).sum(0), argnums=2)(W, B, X).movedim(1, 0)
    jf = vmap(jacfwd(_predict, argnums=2), in_dims=(None, None, 0))(W, B, X)
    assert tuple(j0.shape) == (6, 9, 7)
    assert torch.equal(j0, j1)                # torch: True
    assert torch.equal(j0, jf)                # torch: True
    h = vmap(hessian(_predict, argnums=2), in_dims=(None, None, 0))(W, B, X)
    assert tuple(h.shape) == (6, 9, 7, 7)


def test_vmap_replays_one_batched_program(monkeypatch):
    calls = []
    real = _vmap.replay
    monkeypatch.setattr(_vmap, "replay", lambda *a: calls.append(1) or real(*a))
    out = vmap(lambda v: (v * 2).sum(), in_dims=1)(X)
    assert calls == [1]
    assert torch.allclose(out, (X * 2).sum(0))


@pytest.mark.parametrize("fn", [
    # (reading a sample's value, ``float(v[0].item())``, is refused as torch refuses it:
    # tests/test_torch_vmap_refusals.py)
    lambda v: v * (1 + (v.sum() > 0).float()),                # a comparison of samples
])
def test_vmap_falls_back_to_the_loop_when_f_reads_values(fn):
    out = vmap(fn)(X)
    ref = torch.stack([fn(X[i]) for i in range(6)])
    assert torch.equal(out, ref)


def test_vmap_out_dims_and_nested():
    out = vmap(lambda v: (v, v.sum()), out_dims=(1, 0))(X)
    assert torch.equal(out[0], X.t()) and torch.equal(out[1], X.sum(1))
    nested = vmap(vmap(lambda a: a * a))(X)
    assert torch.equal(nested, X * X)


def test_vmap_too_large_a_trace_loops(monkeypatch):
    from gradrepl.torch import func as func_mod

    monkeypatch.setattr(_vmap, "BUDGET", 64)
    monkeypatch.setattr(func_mod, "_UNBATCHED", set())

    def f(v):
        return F.linear(v, W, B).tanh()

    out = vmap(f)(X)
    assert torch.equal(out, torch.stack([f(X[i]) for i in range(6)]))
    assert func_mod._code_key(f) in func_mod._UNBATCHED
