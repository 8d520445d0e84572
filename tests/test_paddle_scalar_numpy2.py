"""float()/int()/complex() of a one-element tensor with dimensions under Paddle 2.6 follow the
numpy the compared Paddle runs (2.x converts ``np.array(x)``): this machine's real 2.6.2 runs
numpy 2.4.6, which refuses (TypeError); under GRADREPL_PADDLE_NUMPY=1 (a 2.6.2 on numpy 1.26, as
the shared probes were recorded) they convert. Found by PM15A's round-15 probes."""
from __future__ import annotations

import numpy as np
import pytest

# printed by real 2.6.2 (/work/vpaddle26, numpy 2.4.6) for v = paddle.to_tensor([[0.5]]):
# float(v), int(v), complex(v) each in try/except (type name and message), then
# float(paddle.to_tensor([0.25])) raising the same
REAL_26_NUMPY2 = ["TypeError only 0-dimensional arrays can be converted to Python scalars"] * 4


def _refuses():
    try:
        float(np.ones(1))
        return False
    except TypeError:
        return True


def test_one_element_conversions_as_numpy_2(monkeypatch):
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    if not _refuses():
        pytest.skip("this numpy converts float(np.ones(1)) (numpy < 2.4): the record is numpy 2.4.6's")
    monkeypatch.delenv("GRADREPL_PADDLE_NUMPY", raising=False)
    profiles.set_profile("2.6")
    got = []
    for f, v in ((float, [[0.5]]), (int, [[0.5]]), (complex, [[0.5]]), (float, [0.25])):
        try:
            f(paddle.to_tensor(v))
            got.append("converted")
        except TypeError as e:
            got.append(f"TypeError {e}")
    assert got == REAL_26_NUMPY2
    monkeypatch.setenv("GRADREPL_PADDLE_NUMPY", "1")
    assert float(paddle.to_tensor([0.25])) == 0.25


def test_grad_setter_message_ends_with_a_newline(version):
    """x.grad = 3 (and x.grad = None under 2.6.2): real Paddle's ValueError message ends with a
    newline (3.3.1: '... but got int (at /paddle/paddle/utils/pybind.cc:51)\\n', 2.6.2: :56), which
    an uncaught traceback shows as a blank line after it."""
    import gradrepl.paddle as paddle

    t = paddle.to_tensor([1.0], stop_gradient=False)
    line = 51 if version == "3" else 56
    with pytest.raises(ValueError) as err:
        t.grad = 3
    assert str(err.value) == ("(InvalidArgument) argument (position 1) must be Tensor, but got "
                              f"int (at /paddle/paddle/utils/pybind.cc:{line})\n")
