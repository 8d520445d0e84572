"""The quiz shows a small matrix gradient in its rows (issue 30: "a 2x3 gradient flattened to
[10., 20., 30., 10., ...] hides the shape the broadcast lesson is about"), as the student is
asked to type it ("2 rows of 3 numbers, [[...], [...]]"). The numbers: loss = (w * b).sum()
has dloss/dw = b repeated over w's rows (numpy here)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np

SCRIPT = """\
import paddle
b = paddle.to_tensor([10.0, 20.0, 30.0], stop_gradient=False)
w = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
loss = (w * b).sum()
loss.backward()
"""


def _rows(a):
    return "[" + ", ".join("[" + ", ".join(f"{v:g}" for v in r) + "]" for r in a) + "]"


def test_matrix_answers_in_rows(tmp_path):
    p = tmp_path / "bc.py"
    p.write_text(SCRIPT)
    want = np.broadcast_to(np.array([10.0, 20.0, 30.0]), (2, 3))
    wrong = want.copy()
    wrong[1, 2] += 1
    r = subprocess.run([sys.executable, "-m", "gradrepl", "quiz", str(p), "-t", "w"],
                       input=f"w = {_rows(wrong)}\n", capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1, r.stderr
    assert f"wrong: w.grad = {_rows(want)}, not {_rows(wrong)}" in r.stdout, r.stdout
    r = subprocess.run([sys.executable, "-m", "gradrepl", "quiz", str(p), "-t", "w"],
                       input=f"w = {_rows(want)}\n", capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and f"right: w.grad = {_rows(want)}" in r.stdout, r.stdout
