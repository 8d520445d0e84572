"""torch.distributions in the torch dialect: samples after ``manual_seed(0)`` as real torch 2.13
draws them, torch's densities, reprs, argument errors and the Gamma reparameterised gradient.
Expected literals were recorded from real torch 2.13.0 (CPU) in the session that wrote this."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gradrepl import torch
from gradrepl.torch import distributions as D
from gradrepl.torch.distributions import _samplers
from gradrepl.torch.distributions.kl import kl_divergence


def _seeded(fn):
    torch.manual_seed(0)
    return fn()


def test_doc_examples_sample_bits():
    # recorded from torch 2.13: the docstring examples of torch.distributions after seed 0
    cases = [
        (lambda: D.Bernoulli(torch.tensor([0.3])).sample(), [0.0]),
        (lambda: D.Exponential(torch.tensor([1.0])).sample(), [3.508326292037964]),
        (lambda: D.Gamma(torch.tensor([1.0]), torch.tensor([1.0])).sample(),
         [2.882432699203491]),
        (lambda: D.Cauchy(torch.tensor([0.0]), torch.tensor([1.0])).sample(),
         [10.597729682922363]),
    ]
    for make, want in cases:
        assert _seeded(make).tolist() == want
    assert _seeded(lambda: D.Categorical(torch.tensor([0.25] * 4)).sample()).item() == 2


def test_discrete_samplers_match_torch():
    got = _seeded(lambda: D.Poisson(torch.tensor([0.5, 4.0, 15.0, 100.0])).sample((2,)))
    assert got.tolist() == [[2.0, 5.0, 12.0, 89.0], [1.0, 5.0, 17.0, 101.0]]
    got = _seeded(lambda: D.Binomial(torch.tensor([10., 50., 100.]),
                                     torch.tensor([0.3, 0.5, 0.9])).sample((2,)))
    assert got.tolist() == [[6.0, 23.0, 92.0], [3.0, 24.0, 93.0]]
    got = _seeded(lambda: D.Multinomial(10, torch.ones(6) / 6).sample((3,)))
    assert got.tolist() == [[0.0, 3.0, 2.0, 1.0, 2.0, 2.0], [1.0, 0.0, 3.0, 3.0, 3.0, 0.0],
                            [0.0, 4.0, 2.0, 3.0, 1.0, 0.0]]
    assert got.sum(-1).tolist() == [10.0, 10.0, 10.0]


def test_dirichlet_sample_and_multinomial_kernel():
    got = _seeded(lambda: D.Dirichlet(torch.tensor([1.0, 2.0, 3.0])).sample())
    assert got.tolist() == [0.5282043814659119, 0.24112464487552643, 0.2306709587574005]
    torch.manual_seed(0)
    p = np.array([[0.1, 0.2, 0.3, 0.4]] * 2, np.float32)
    assert _samplers.multinomial(p, 5, True).tolist() == [[3, 3, 2, 3, 3], [3, 1, 2, 2, 1]]
    torch.manual_seed(0)  # without replacement: argmax of p / Exp(1) (torch 2.13: index 2)
    assert _samplers.multinomial(np.full((1, 4), 0.25, np.float32), 1).tolist() == [[2]]


def test_log_prob_entropy_and_kl():
    lp = D.Normal(0., 1.).log_prob(torch.tensor([0.5, -1.0]))
    assert lp.tolist() == [-1.0439385175704956, -1.4189385175704956]
    lp = D.Gamma(torch.tensor([2.0]), torch.tensor([3.0])).log_prob(torch.tensor([0.7]))
    np.testing.assert_allclose(lp.tolist(), [-0.25945019721984863], rtol=1e-6)
    assert kl_divergence(D.Normal(0., 1.), D.Normal(1., 2.)).item() == 0.4431471824645996
    ent = D.Normal(torch.zeros(2), torch.ones(2) * 2).entropy()
    np.testing.assert_allclose(ent.tolist(), [0.5 + 0.5 * math.log(2 * math.pi) + math.log(2)]
                               * 2, rtol=1e-6)
    c = D.Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))
    np.testing.assert_allclose(c.log_prob(torch.tensor(2)).item(), math.log(0.5), rtol=1e-6)


def test_shapes_and_repr():
    loc, scale = torch.zeros(3), torch.ones(3)
    mvn = D.MultivariateNormal(loc, scale_tril=torch.diag(scale))
    assert [tuple(mvn.batch_shape), tuple(mvn.event_shape)] == [(), (3,)]
    diagn = D.Independent(D.Normal(loc, scale), 1)
    assert [tuple(diagn.batch_shape), tuple(diagn.event_shape)] == [(), (3,)]
    assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(D.Normal(loc, scale)) == ("Normal(loc: torch.Size([3]), "
                                          "scale: torch.Size([3]))")
    assert repr(D.constraints.positive) == "GreaterThan(lower_bound=0.0)"
    assert D.Normal.__module__ == "torch.distributions.normal"
    assert tuple(D.Normal(loc, scale).sample((2,)).shape) == (2, 3)


def test_argument_and_sample_validation_errors():
    with pytest.raises(ValueError) as e:
        D.Normal(0.0, -1.0)
    assert str(e.value) == ("Expected parameter scale (Tensor of shape ()) of distribution "
                            "Normal(loc: 0.0, scale: -1.0) to satisfy the constraint "
                            "GreaterThan(lower_bound=0.0), but found invalid values:\n-1.0")
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="to be within the support"):
        D.Bernoulli(0.3).log_prob(torch.tensor(0.5))


def test_gamma_rsample_gradient():
    # torch 2.13: sample 4.5526227951049805, d sample / d concentration 1.5930845737457275
    g = torch.tensor([2.0], requires_grad=True)
    torch.manual_seed(0)
    x = D.Gamma(g, torch.tensor([1.0])).rsample()
    x.backward()
    assert x.tolist() == [4.5526227951049805]
    np.testing.assert_allclose(g.grad.tolist(), [1.5930845737457275], rtol=1e-6)
    assert type(x.grad_fn).__name__ == "DivBackward0"


def test_transforms_roundtrip():
    t = D.transforms.ComposeTransform([D.transforms.ExpTransform(),
                                       D.transforms.AffineTransform(1.0, 2.0)])
    x = torch.tensor([0.1, -0.4])
    y = t(x)
    np.testing.assert_allclose(y.tolist(), (1 + 2 * np.exp([0.1, -0.4])).tolist(), rtol=1e-6)
    np.testing.assert_allclose(t.inv(y).tolist(), x.tolist(), rtol=1e-6)
    ld = t.log_abs_det_jacobian(x, y)
    np.testing.assert_allclose(ld.tolist(), (np.array([0.1, -0.4]) + math.log(2)).tolist(),
                               rtol=1e-6)
