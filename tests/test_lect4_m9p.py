"""Round nine of unseen Paddle lectures (measured only, helper M9P): three of its findings.

* ``F.temporal_shift`` moved the channel groups the wrong way: Paddle's first ``shift_ratio * C``
  channels come from frame t - 1, the next ones from frame t + 1 (NCHW and NHWC);
* ``Optimizer.state_dict()`` is a plain dict in Paddle 2.6 and 3.x (gradrepl gave an OrderedDict,
  which a lecture printing ``type(...)`` or the dict itself shows);
* ``ReduceOnPlateau.step(metrics)`` keeps the metric object as ``best`` (a Tensor stays a Tensor,
  an ndarray an ndarray) and ``state_dict()`` turns a Tensor into a number, keeps an ndarray.

Literals printed by real Paddle 3.3.1 and 2.6.2 in this session (both gave the same).
"""
from __future__ import annotations

import collections

import numpy as np
import pytest

import gradrepl.paddle as paddle
import gradrepl.paddle.nn.functional as F

pytestmark = pytest.mark.usefixtures("profile")  # conftest: Paddle 3 and 2.6

SHIFTED = [0.0, 5.0, 2.0, 3.0, 0.0, 0.0, 6.0, 7.0, 0.0, 13.0, 10.0, 11.0, 8.0, 0.0, 14.0, 15.0]


def test_temporal_shift_directions_nchw_and_nhwc():
    x = paddle.arange(16, dtype="float32").reshape([4, 4, 1, 1])
    assert F.temporal_shift(x, seg_num=2, shift_ratio=0.25).flatten().numpy().tolist() == SHIFTED
    xh = paddle.arange(16, dtype="float32").reshape([4, 1, 1, 4])
    got = F.temporal_shift(xh, seg_num=2, shift_ratio=0.25, data_format="NHWC")
    assert got.flatten().numpy().tolist() == SHIFTED


def test_optimizer_state_dict_is_a_plain_dict():
    lin = paddle.nn.Linear(2, 2)
    for opt in (paddle.optimizer.SGD(parameters=lin.parameters()),
                paddle.optimizer.Adam(parameters=lin.parameters())):
        sd = opt.state_dict()
        assert type(sd) is dict and not isinstance(sd, collections.OrderedDict)


def test_reduce_on_plateau_keeps_the_metric_object(capsys):
    s = paddle.optimizer.lr.ReduceOnPlateau(learning_rate=0.1, patience=0, verbose=True)
    s.step(paddle.to_tensor(1.5))
    assert type(s.best).__name__ == "Tensor" and float(s.best) == 1.5
    assert s.state_dict() == {"cooldown_counter": 0, "best": 1.5, "num_bad_epochs": 0,
                              "last_epoch": 1, "last_lr": 0.1}
    s.step(paddle.to_tensor(2.5))
    assert capsys.readouterr().out == ("Epoch 2: ReduceOnPlateau set learning rate to "
                                       "0.010000000000000002.\n")
    assert type(s.best).__name__ == "Tensor" and s.num_bad_epochs == 0
    s.step(np.array([0.5]))
    assert isinstance(s.best, np.ndarray) and s.best.tolist() == [0.5]
    sd = s.state_dict()
    assert isinstance(sd["best"], np.ndarray) and sd["last_epoch"] == 3
    s.step(np.float32(0.25))
    assert type(s.best) is np.float32
    with pytest.raises(AssertionError, match="the size of metrics must be 1"):
        s.step(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="metrics must be"):
        s.step("0.1")
