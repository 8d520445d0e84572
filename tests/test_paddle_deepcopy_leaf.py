"""copy.deepcopy of a Paddle tensor or Parameter is a fresh leaf (Tensor.__deepcopy__ /
EagerParamBase.__deepcopy__: copy_ into a new tensor named name + unique_name "_deepcopy"):
no gradient, no graph, its own accumulation. Before, gradrepl copied every slot: the copy of a
trained Layer kept the gradient and sent its own into the original's (a HW14-style EWC script
penalising (p - deepcopy(state_dict)[n])**2 trained as if the penalty were 0). Expectations are
what real Paddle 3.3.1 and 2.6.2 printed here for the same steps (both the same)."""
from __future__ import annotations

import copy

import pytest


@pytest.fixture
def paddle(profile):  # conftest's profile: Paddle 3 and 2.6
    import gradrepl.paddle as p

    return p


def test_deepcopy_is_a_fresh_leaf(paddle):
    from gradrepl.paddle.utils import unique_name

    unique_name.switch()
    paddle.seed(0)
    m = paddle.nn.Linear(2, 2)
    q = copy.deepcopy(m.weight)
    assert (q.name, q.stop_gradient, type(q).__name__, q.trainable) == \
        (m.weight.name + "_deepcopy_0", False, "EagerParamBase", True)
    (m.weight * 3 - q).sum().backward()
    assert m.weight.grad.numpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert q.grad.numpy().tolist() == [[-1.0, -1.0], [-1.0, -1.0]]
    sd = copy.deepcopy(m.state_dict())
    assert [v.name for v in sd.values()] == [m.weight.name + "_deepcopy_1",
                                            m.bias.name + "_deepcopy_2"]
    m2 = copy.deepcopy(m)                     # a trained layer: its copy starts without .grad
    assert m2.weight.grad is None
    (m2.weight * 5 - m.weight).sum().backward()
    assert m2.weight.grad.numpy().tolist() == [[5.0, 5.0], [5.0, 5.0]]
    assert m.weight.grad.numpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_deepcopy_of_a_result_has_no_graph(paddle):
    x = paddle.ones([2])
    x.stop_gradient = False
    z = copy.deepcopy(x * 2)
    assert (z.stop_gradient, z.is_leaf) == (False, True)
    (z * 3).sum().backward()
    assert x.grad is None
    assert z.grad.numpy().tolist() == [3.0, 3.0]
