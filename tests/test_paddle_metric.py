"""paddle.metric's Precision, Recall and Auc as Paddle computes them (Precision rounds a
prediction half up, Recall half to even; Auc from histograms of the positive column). The
expected text was printed by real Paddle 3.3.1 (2.6.2 prints the same) on this project's machine."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

SCRIPT = "import paddle, numpy as np\nfor cls in (paddle.metric.Precision, paddle.metric.Recall):\n    m = cls()\n    print(m.name(), m.accumulate())\n    print(m.update(paddle.to_tensor([0.2, 0.8, 0.6, 0.5, 0.49]), paddle.to_tensor([[0], [1], [0], [1], [1]])))\n    print(m.accumulate(), type(m.accumulate()), m.tp, getattr(m, 'fp', None), getattr(m, 'fn', None))\n    try: m.update([0.1], np.array([1]))\n    except Exception as e: print(type(e).__name__, e)\n    try: m.update(np.array([0.1]), [1])\n    except Exception as e: print(type(e).__name__, e)\n    m.reset(); print(m.accumulate())\na = paddle.metric.Auc()\nprint(a.name(), a.accumulate())\nrng = np.random.default_rng(0)\np = rng.uniform(0, 1, 50); preds = np.stack([1 - p, p], 1); labels = (rng.uniform(0, 1, 50) < p).astype('int64').reshape(-1, 1)\nprint(a.update(preds, labels)); print(a.accumulate())\na2 = paddle.metric.Auc(num_thresholds=10); a2.update(paddle.to_tensor(preds), paddle.to_tensor(labels)); print(a2.accumulate())\nprint(a2._stat_pos[:5] if hasattr(a2, '_stat_pos') else None)\ntry: a.update([0.1], labels)\nexcept Exception as e: print(type(e).__name__, e)\na.reset(); print(a.accumulate())\nprint(paddle.metric.Precision(name='p1').name(), paddle.metric.Auc(name='x').name())\n"
REAL = "precision 0.0\nNone\n0.6666666666666666 <class 'float'> 2 1 None\nValueError The 'preds' must be a numpy ndarray or Tensor.\nValueError The 'labels' must be a numpy ndarray or Tensor.\n0.0\nrecall 0.0\nNone\n0.3333333333333333 <class 'float'> 1 None 2\nValueError The 'preds' must be a numpy ndarray or Tensor.\nValueError The 'labels' must be a numpy ndarray or Tensor.\n0.0\nauc 0.0\nNone\n0.7608333333333334\n0.7791666666666667\n[0. 0. 2. 0. 1.]\nValueError The 'preds' must be a numpy ndarray or Tensor.\n0.0\np1 x\n"


def test_precision_recall_auc_print_as_paddle(tmp_path):
    path = tmp_path / "metrics.py"
    path.write_text(SCRIPT)
    done = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", "3", str(path)],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout == REAL


def test_auc_of_a_perfect_and_an_inverted_ranking():
    import gradrepl.paddle as paddle

    p = np.array([0.1, 0.4, 0.6, 0.9])
    preds = np.stack([1 - p, p], 1)
    good = paddle.metric.Auc()
    good.update(preds, np.array([[0], [0], [1], [1]]))
    assert good.accumulate() == 1.0
    bad = paddle.metric.Auc()
    bad.update(preds, np.array([[1], [1], [0], [0]]))
    assert bad.accumulate() == 0.0


def test_precision_in_a_model_fit_loop_uses_update_and_accumulate():
    import gradrepl.paddle as paddle

    m = paddle.metric.Precision()
    for preds, labels in [([0.9, 0.1], [1, 0]), ([0.7, 0.6], [0, 1])]:
        m.update(np.array(preds), np.array(labels))
    assert (m.tp, m.fp) == (2, 1)
    assert m.accumulate() == pytest.approx(2 / 3)
