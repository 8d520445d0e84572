"""paddle.summary's returned counts print as real Paddle prints them: np.int64 counts, so on
numpy 2 (3.3.1 here, and 2.6.2 on this project's machines, numpy 2.4.6) ``np.int64(7850)``, on
numpy 1 (2.6.2 as installed when the first record was made, numpy 1.26) ``{'total_params': 7850,
...}``: ``GRADREPL_PADDLE_NUMPY=1`` says the compared Paddle runs numpy 1. Lines recorded from
each."""
import os
import subprocess
import sys

import pytest

SCRIPT = """import paddle
from paddle.static import InputSpec
net = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 10))
print(paddle.summary(net, (1, 1, 28, 28)))
m = paddle.Model(net, InputSpec([None, 1, 28, 28], 'float32', 'image'))
print(m.summary())
"""
NUMPY2 = ["{'total_params': np.int64(7850), 'trainable_params': np.int64(7850)}"] * 2
REAL = {  # (Paddle, its numpy): the lines real Paddle printed
    ("2.6", "1"): ["{'total_params': 7850, 'trainable_params': 7850}"] * 2,  # 2.6.2, numpy 1.26
    ("2.6", "2"): NUMPY2,  # 2.6.2, numpy 2.4.6
    ("3", "2"): NUMPY2,  # 3.3.1, numpy 2.4.6
}


@pytest.mark.parametrize("version, numpy_major", sorted(REAL))
def test_summary_counts_print_as_the_version_does(tmp_path, version, numpy_major):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, GRADREPL_PADDLE_NUMPY=numpy_major)
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", version, str(script)],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert [ln for ln in r.stdout.splitlines() if "total_params" in ln] == REAL[version, numpy_major]
