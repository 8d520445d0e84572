"""paddle.distribution, paddle.metric, paddle.summary, paddle.device.cuda, static mode and the
import hook's messages, against real Paddle: the scripts in tests/data/paddle_extras printed
the recorded bytes under Paddle 3.3.1 and 2.6.2; gradrepl must print the same."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest
from helpers import run_source

DATA = pathlib.Path(__file__).parent / "data" / "paddle_extras"


def _numpy1_reprs(text):
    """The 2.6 oracle runs numpy 1.x (``0.75`` where numpy 2 prints ``np.float64(0.75)``)."""
    return re.sub(r"np\.(?:float|int)\d+\(([^()]*)\)", r"\1", text)


@pytest.mark.parametrize("name", ["dist", "metric_summary", "device"])
@pytest.mark.parametrize("profile,suffix", [("3", "paddle3"), ("2.6", "paddle26")])
def test_script_prints_what_paddle_printed(tmp_path, name, profile, suffix):
    out = run_source((DATA / f"{name}_script.py").read_text(), profile, tmp_path)
    want = (DATA / f"{name}.{suffix}.txt").read_text()
    if profile == "2.6":
        out = _numpy1_reprs(out)
    assert out == want


def test_summary_table_bytes(tmp_path, capsys):
    import gradrepl.paddle as paddle

    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 2))
    info = paddle.summary(net, (1, 4))
    text = capsys.readouterr().out
    want = (DATA / "metric_summary.paddle3.txt").read_text()
    start = want.index("-" * 75)
    assert want[start:].startswith(text.split("Linear-")[0])  # same header bytes
    assert " Layer (type)       Input Shape          Output Shape         Param #    \n" in text
    assert info == {"total_params": 58, "trainable_params": 58}
    assert net.training  # summary switches to eval and back


def test_summary_draws_its_input_from_paddles_generator():
    import gradrepl.paddle as paddle

    net = paddle.nn.Linear(3, 2)
    paddle.seed(5)
    paddle.summary(net, (2, 3))
    after_summary = paddle.rand([3]).numpy()
    paddle.seed(5)
    paddle.rand([2, 3])
    assert (paddle.rand([3]).numpy() == after_summary).all()


def test_accuracy_metric_streams():
    import gradrepl.paddle as paddle

    m = paddle.metric.Accuracy(topk=(1, 2))
    pred = paddle.to_tensor([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1]])
    assert m.update(m.compute(pred, paddle.to_tensor([[2], [0]]))) == [0.5, 1.0]
    assert m.update(m.compute(pred, paddle.to_tensor([[1], [1]]))) == [0.5, 1.0]
    assert m.accumulate() == [0.5, 1.0] and m.name() == ["acc_top1", "acc_top2"]
    with pytest.raises(ValueError, match="The 'preds' must be a numpy ndarray or Tensor."):
        paddle.metric.Precision().update([0.5], paddle.to_tensor([1]))


def test_static_mode_switches_on_and_off():
    import gradrepl.paddle as paddle

    paddle.enable_static()
    try:
        assert not paddle.in_dynamic_mode() and callable(paddle.static.Executor)
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode() and paddle.disable_signal_handler() is None
    assert repr(paddle.static.InputSpec([None, 4], "float32", "x")) == (
        "InputSpec(shape=(-1, 4), dtype=paddle.float32, name=x, stop_gradient=False)")


def test_distributions_paddle_lacks_here_say_so():
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    assert paddle.distribution.Beta.__name__ == "Beta"
    if not profiles.current().api3:  # Gamma is Paddle 3's (tests/test_paddle_distribution.py)
        with pytest.raises(AttributeError, match="no attribute 'Gamma'"):
            paddle.distribution.Gamma


def test_missing_submodule_is_named_as_paddle(tmp_path):
    from gradrepl.importhook import _Alias

    err = _Alias().renamed(ModuleNotFoundError("No module named 'gradrepl.paddle.xyz'",
                                               name="gradrepl.paddle.xyz"))
    assert str(err) == "No module named 'paddle.xyz'" and err.name == "paddle.xyz"
    script = tmp_path / "m.py"
    script.write_text("try:\n    import paddle.xyz\nexcept ModuleNotFoundError as e:\n"
                      "    print(e)\nimport paddle.device.cuda, paddle.io, paddle.hapi\n")
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", "3", str(script)],
                       capture_output=True, text=True, timeout=120)
    assert r.stdout == "No module named 'paddle.xyz'\n", r.stderr
