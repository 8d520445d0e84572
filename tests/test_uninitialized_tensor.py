"""Layer.create_tensor gives a tensor with no memory: it prints as real Paddle prints one
(recorded from paddlepaddle 3.3.1 and 2.6.2) until paddle.assign fills it."""
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import profiles

REPR = {
    "3": "Tensor(Not initialized)",
    "2.6": "Tensor(shape=[], dtype=float32, place=Place(undefined:0), stop_gradient=True,\n"
           "       [])",
}


class WithBuffer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("saved_tensor", self.create_tensor(name="saved_tensor0"),
                             persistable=True)


@pytest.mark.parametrize("key", ["3", "2.6"])
def test_uninitialized_buffer_prints_as_paddle(key):
    profiles.set_profile(key)
    m = WithBuffer()
    t = m.saved_tensor
    assert repr(t) == REPR[key]
    assert repr(m.buffers()) == f"[{REPR[key]}]"
    assert t.name.endswith(".saved_tensor0") and t.name.startswith("with_buffer_")
    assert list(t.shape) == [] and t.size == 1 and t.ndim == 0
    assert t.numpy().shape == (0,)
    assert t._is_initialized() is False
    paddle.assign(paddle.ones([2, 3]), t)
    assert t._is_initialized() is True
    assert repr(t).startswith("Tensor(shape=[2, 3], dtype=float32,")
    assert list(t.shape) == [2, 3]


def test_unnamed_tensors_are_numbered_per_layer():
    profiles.set_profile("3")
    lin = paddle.nn.Linear(2, 2)
    a = lin.create_tensor()
    b = lin.create_tensor(dtype="float64")
    assert a.name == f"{lin.full_name()}._generated_var_0"
    assert b.name == f"{lin.full_name()}._generated_var_1"
    assert str(b.dtype) == "paddle.float64"
