"""paddle.summary's returned counts print as real Paddle prints them: 2.6.2 (numpy 1) shows
``{'total_params': 7850, ...}``, 3.3.1 (numpy 2) ``np.int64(7850)``. Lines recorded from both."""
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
REAL = {
    "2.6": ["{'total_params': 7850, 'trainable_params': 7850}"] * 2,
    "3": ["{'total_params': np.int64(7850), 'trainable_params': np.int64(7850)}"] * 2,
}


@pytest.mark.parametrize("version", sorted(REAL))
def test_summary_counts_print_as_the_version_does(tmp_path, version):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", version, str(script)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert [ln for ln in r.stdout.splitlines() if "total_params" in ln] == REAL[version]
