"""numpy's ``axis=`` / ``keepdims=`` on every Tensor method and torch function that takes
``dim`` / ``keepdim`` (torch's argument parser accepts both spellings; karpathy's makemore
writes ``counts.sum(1, keepdims=True)``). A change in import order once left the methods
unaliased (``_sum() got an unexpected keyword argument 'keepdims'``)."""
import inspect

import numpy as np
import pytest

import gradrepl.torch as torch

REDUCTIONS = ["sum", "mean", "std", "var", "prod", "amax", "amin", "logsumexp", "nansum",
              "norm", "count_nonzero", "argmax", "argmin", "all", "any"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_method_and_function_take_numpy_keywords(name):
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 7 + 0.5
    if name in ("all", "any"):
        t = t > 1
    method = getattr(t, name)
    ps = inspect.signature(getattr(torch.Tensor, name)).parameters
    want = method(dim=1, keepdim=True) if "keepdim" in ps or "keepdims" in ps else None
    if want is None:
        pytest.skip(f"Tensor.{name} takes no keepdim")
    got = method(axis=1, keepdims=True)
    assert got.shape == want.shape
    assert np.array_equal(np.asarray(got.tolist()), np.asarray(want.tolist()))
    f = getattr(torch, name)
    got_f = f(t, axis=1, keepdims=True)
    assert np.array_equal(np.asarray(got_f.tolist()), np.asarray(want.tolist()))


def test_makemore_counts_row_normalisation():
    counts = torch.tensor([[1, 2, 3], [4, 5, 6]]).float()
    p = counts / counts.sum(1, keepdims=True)
    assert p.sum(axis=1).tolist() == pytest.approx([1.0, 1.0])
    assert counts.sum(1, keepdims=True).tolist() == [[6.0], [15.0]]
    with pytest.raises(TypeError, match="multiple values for argument 'keepdim'"):
        counts.sum(1, keepdim=True, keepdims=True)
