"""torch.cdist recorded as torch records it (round ten, measured only: CS224W node embeddings):
``CdistBackward0``, or ``ViewBackward0`` over ``EuclideanDistBackward0`` on the matrix-product
path; ATen's backward formulas, where a zero distance contributes nothing (the composite gave an
all-NaN gradient for ``cdist(a, a)`` and no graph for p = 0). Literals printed by real torch 2.13
in this session (float64: the same on any CPU)."""
import math

import numpy as np
import pytest

import gradrepl.torch as torch

A = [[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]]


def _a():
    return torch.tensor(A, dtype=torch.float64, requires_grad=True)


def test_self_distance_gradient_is_finite_as_torch():
    a = _a()
    d = torch.cdist(a, a)
    d.sum().backward()
    assert d.grad_fn.name() == "CdistBackward0"
    want = [[-2.82842712474619, 2.82842712474619], [2.82842712474619, -2.82842712474619],
            [-2.220446049250313e-16, 2.220446049250313e-16]]
    assert np.allclose(a.grad.tolist(), want, rtol=1e-14, atol=1e-15)


def test_matrix_product_path_names_and_gradient():
    a = _a()
    d = torch.cdist(a, a, compute_mode="use_mm_for_euclid_dist")
    (d * torch.arange(3.0)).sum().backward()
    assert d.grad_fn.name() == "ViewBackward0"
    assert d.grad_fn.next_functions[0][0].name() == "EuclideanDistBackward0"
    want = [[-2.1213203435596424, 2.121320343559643], [2.8284271247461903, -2.8284271247461903],
            [-0.7071067811865478, 0.707106781186548]]
    assert np.allclose(a.grad.tolist(), want, rtol=1e-14)
    big = torch.randn(30, 3, dtype=torch.float64, requires_grad=True)
    e = torch.cdist(big, big)
    assert e.grad_fn.name() == "ViewBackward0"
    e.sum().backward()
    assert np.isfinite(big.grad.numpy()).all()


def test_p0_has_a_graph_and_zero_gradient():
    a = _a()
    d = torch.cdist(a, a, p=0)
    assert d.tolist() == [[0.0, 2.0, 2.0], [2.0, 0.0, 2.0], [2.0, 2.0, 0.0]]
    d.sum().backward()
    assert a.grad.tolist() == [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, 3.0, math.inf])
def test_gradcheck_against_finite_differences(p):
    g = torch.Generator().manual_seed(3)
    x1 = torch.randn(4, 3, dtype=torch.float64, generator=g, requires_grad=True)
    x2 = torch.randn(5, 3, dtype=torch.float64, generator=g, requires_grad=True)
    assert torch.autograd.gradcheck(lambda u, v: torch.cdist(u, v, p=p), (x1, x2))
    if p in (2.0, 3.0):
        assert torch.autograd.gradgradcheck(lambda u, v: torch.cdist(u, v, p=p), (x1, x2))


def test_matrix_product_path_gradcheck():
    g = torch.Generator().manual_seed(4)
    x1 = torch.randn(27, 2, dtype=torch.float64, generator=g, requires_grad=True)
    x2 = torch.randn(3, 2, dtype=torch.float64, generator=g, requires_grad=True)
    assert torch.autograd.gradcheck(lambda u, v: torch.cdist(u, v), (x1, x2))
