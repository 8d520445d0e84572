"""A Parameter's ``trainable`` is Paddle's property over stop_gradient (EagerParamBase in
base/framework.py): setting it sets stop_gradient, setting stop_gradient changes it, a non-bool
raises each version's ValueError. Found by PM14A's round-14 PaddleClas distillation script (a
teacher frozen with ``p.trainable = False`` still got a gradient; real: None)."""
from __future__ import annotations

import copy

import pytest

# real 3.3.1 and 2.6.2 printed the same lines for these steps but the last (the error's repr)
REAL_LINES = ["True False", "False True", "True", "True False", "False True"]
REAL_ERROR = {"3": "ValueError(\"The type of trainable MUST be bool, but the type is <class 'int'>\")",
              "2.6": "ValueError('The type of trainable MUST be bool, but the type is ', <class 'int'>)"}


def test_trainable_is_not_stop_gradient(profile):
    import gradrepl.paddle as paddle

    lines = []
    lin = paddle.nn.Linear(2, 2)
    w = lin.weight
    lines.append(f"{w.trainable} {w.stop_gradient}")
    w.trainable = False
    lines.append(f"{w.trainable} {w.stop_gradient}")
    w.stop_gradient = False
    lines.append(f"{w.trainable}")
    c = copy.deepcopy(lin)
    lines.append(f"{c.weight.trainable} {c.weight.stop_gradient}")
    b = paddle.create_parameter([2], "float32", attr=paddle.ParamAttr(trainable=False))
    lines.append(f"{b.trainable} {b.stop_gradient}")
    assert lines == REAL_LINES
    with pytest.raises(ValueError) as e:
        w.trainable = 1
    assert repr(e.value) == REAL_ERROR[profile]


def test_frozen_teacher_gets_no_gradient(profile):
    import gradrepl.paddle as paddle
    import gradrepl.paddle.nn.functional as F

    # real 3.3.1 and 2.6.2: the frozen layer's weight.grad is None after backward
    paddle.seed(8)
    t = paddle.nn.Linear(3, 2)
    s = paddle.nn.Linear(3, 2)
    for p in t.parameters():
        p.trainable = False
    x = paddle.randn([4, 3])
    loss = F.kl_div(F.log_softmax(s(x), -1), F.softmax(t(x), -1), reduction="batchmean")
    loss.backward()
    assert t.weight.grad is None and s.weight.grad is not None
