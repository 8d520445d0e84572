"""paddle.add_n is one node, AddNGradNodeFinal, whose gradients leave in input order, so a leaf
used in several inputs accumulates them as real Paddle does (found by PM13's round-12 scripts:
``add_n([x * a, x * b, x * c])`` summed x's gradient as (a + c) + b, real Paddle (a + b) + c).
Expected bytes and messages printed by real Paddle 3.3.1 (/work/vpaddle) and 2.6.2
(/work/vpaddle26) on this machine; the sums are plain float32 additions (any CPU)."""
import numpy as np
import pytest

import gradrepl.paddle as paddle


def _digest(t):
    return int(np.frombuffer(t.numpy().tobytes(), np.uint32).sum() % 1000003)


def test_a_leaf_in_several_inputs_accumulates_in_input_order(version):
    paddle.seed(1)
    x = paddle.randn([1000])
    x.stop_gradient = False
    a, b, c = paddle.randn([1000]), paddle.randn([1000]), paddle.randn([1000])
    paddle.add_n([x * a, x * b, x * c]).sum().backward()
    assert _digest(x.grad) == 256895          # real: (a + b) + c
    x.clear_grad()
    (x * a + x * b + x * c).sum().backward()
    assert _digest(x.grad) == 256917          # real: (c + a) + b, the chain of adds


def test_one_node_named_as_paddle_names_it(version):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = paddle.add_n([x * 2, x, x * 3])
    assert y.grad_fn.name() == "AddNGradNodeFinal"
    assert [n.name() for n in y.grad_fn.next_functions] == [
        "ScaleGradNode", "GradNodeAccumulation", "ScaleGradNode"]   # (x * 2 is a scale)
    lone = paddle.add_n(x)                     # a lone tensor: a new one, with the node
    assert lone is not x and lone.grad_fn.name() == "AddNGradNodeFinal"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])
    w = paddle.add_n([x, x])
    (g,) = paddle.grad([w.sum()], [x], create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])
    assert g.stop_gradient is False


def test_integers_add(version):
    y = paddle.to_tensor([1, 2])
    out = paddle.add_n([y, y])
    assert out.dtype == paddle.int64 and out.numpy().tolist() == [2, 4]


ERRORS = {
    "3": [
        "(InvalidArgument) The input tensor X of AddNOp must have same shape. But received X[0]'s "
        "shape = [2], X[1]'s shape = [3].\n  [Hint: Expected in_dim == x_dim, but received "
        "in_dim:2 != x_dim:3.] (at /paddle/paddle/phi/infermeta/multiary.cc:423)\n",
        "(InvalidArgument) add_n(): argument 'inputs' (position 0) must be list of Tensors, but got "
        "empty list (at /paddle/paddle/fluid/pybind/eager_utils.cc:1562)\n",
        "(InvalidArgument) add_n(): argument 'inputs' (position 0) must be list of Tensors\n  "
        "[Hint: Expected PyObject_TypeCheck(((PyObject*)((tensor_obj))), p_tensor_type) == true, "
        "but received PyObject_TypeCheck(((PyObject*)((tensor_obj))), p_tensor_type):0 != "
        "true:1.] (at /paddle/paddle/fluid/pybind/eager_utils.cc:1571)\n"],
    "2.6": [
        "(InvalidArgument) The input tensor X of SumOp must have same shape. But received X[0]'s "
        "shape = [2], X[1]'s shape = [3].\n  [Hint: Expected in_dim == x_dim, but received "
        "in_dim:2 != x_dim:3.] (at /paddle/paddle/phi/infermeta/multiary.cc:418)\n",
        "(InvalidArgument) add_n(): argument 'inputs' (position 0) must be list of Tensors, but got "
        "empty list (at /paddle/paddle/fluid/pybind/eager_utils.cc:1383)\n"],
}


def test_errors_as_paddle_words_them(version):
    x = paddle.to_tensor([1.0, 2.0])
    bad = [[x, paddle.ones([3])], [], [x, 3]]
    for inputs, message in zip(bad, ERRORS[version]):   # (2.6.2 faults on [x, 3])
        with pytest.raises(ValueError) as e:
            paddle.add_n(inputs)
        assert str(e.value) == message
    with pytest.raises(ValueError, match="does not match the type of data"):
        paddle.add_n([x, paddle.ones([2], dtype="float64")])
