"""The torch dialect checks saved-tensor versions itself, but its nodes must still keep the
inputs their VJPs read when those inputs are large (the registry drops large inputs of ops whose
VJP does not read them). A CNN's conv -> relu -> max_pool2d backward on a 64-image batch
failed with a TypeError (PyTorch's per-sample-gradients tutorial)."""
import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn as nn
import gradrepl.torch.nn.functional as F
from gradrepl.engine import registry


def _grads():
    torch.manual_seed(0)
    conv = nn.Conv2d(1, 4, 3, 1)
    x = torch.randn(3, 1, 10, 10, requires_grad=True)
    y = F.avg_pool2d(F.max_pool2d(F.relu(conv(x)), 2), 2)
    loss = F.log_softmax(torch.flatten(y, 1), dim=1).sum()
    loss.backward()
    return x.grad.numpy().copy(), conv.weight.grad.numpy().copy()


def test_large_inputs_are_kept_when_the_vjp_reads_them(monkeypatch):
    want = _grads()
    monkeypatch.setattr(registry, "DROP_BYTES", 0)  # every input counts as large
    got = _grads()
    for g, w in zip(got, want):
        assert np.array_equal(g, w)


def test_per_sample_grads_tutorial_model_runs_backward():
    torch.manual_seed(0)
    conv1, conv2 = nn.Conv2d(1, 32, 3, 1), nn.Conv2d(32, 64, 3, 1)
    x = torch.randn(64, 1, 28, 28)
    h = F.max_pool2d(F.relu(conv2(F.relu(conv1(x)))), 2)
    F.relu(torch.flatten(h, 1)).sum().backward()
    assert conv1.weight.grad.shape == (32, 1, 3, 3)
    assert np.isfinite(conv1.weight.grad.numpy()).all()
