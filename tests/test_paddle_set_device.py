"""paddle.set_device as a CPU-only Paddle answers it (d2l's evaluate_accuracy_gpu calls
``set_device("gpu:" + ...)`` and fails so on a CPU machine). Expected outputs recorded from real
Paddle 3.3.1 and 2.6.2 running SCRIPT."""
import pathlib
import subprocess
import sys

import pytest

DATA = pathlib.Path(__file__).parent / "data" / "paddle_device"
SCRIPT = """import paddle
print(str(paddle.CPUPlace()))
for d in ["gpu:u", "gpu:0", "gpu", "cpu", "xyz", "cpu:0"]:
    try:
        r = paddle.set_device(d); print(d, "->", r)
    except Exception as e: print(d, type(e).__name__, e)
print(paddle.get_device())
"""


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_set_device_answers_as_a_cpu_only_paddle(tmp_path, version):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", version, str(script)],
                       capture_output=True, text=True, timeout=120)
    assert r.stdout == (DATA / f"set_device_{version}.txt").read_text()


def test_set_device_place_objects_by_version():
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    old = profiles.current()
    try:
        profiles.set_profile("3")
        place = paddle.CPUPlace()
        assert paddle.set_device(place) is place
        with pytest.raises(ValueError, match="not compiled with CUDA"):
            paddle.set_device("cuda:0")
        profiles.set_profile("2.6")
        with pytest.raises(AttributeError, match="no attribute 'lower'"):
            paddle.set_device(place)
        with pytest.raises(ValueError, match="'cpu', 'gpu', 'gpu:x', 'xpu', 'xpu:x', 'npu', 'npu:x'$"):
            paddle.set_device("dcu")
    finally:
        profiles.set_profile(old)
