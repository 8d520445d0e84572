"""gradrepl gradcheck / %gradcheck: central differences (float64) beside autograd's gradients.

The numeric side replays the ops the engine recorded, nudged, about the engine's own forward
values; it must agree with every gradient of every session in sessions/ to the digits a float32
gradient carries."""
from __future__ import annotations

import glob
import os

import numpy as np
import pytest

from gradrepl.teach import numeric as N

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SESSIONS = sorted(glob.glob(os.path.join(ROOT, "sessions", "*.pycon")))


def _ex(*parts):
    return os.path.join(ROOT, "examples", *parts)


def _by_name(checks):
    return {c.name: c for c in checks}


def test_example_two_values_and_words():
    checks, text = N.gradcheck_file(_ex("seeds", "s000_example_two.py"))
    c = _by_name(checks)
    assert list(c) == ["a.grad", "b.grad", "d.grad"]          # creation order
    for name, want in (("a.grad", 20.0), ("b.grad", 8.0), ("d.grad", 10.0)):
        assert c[name].checked and c[name].agrees()
        assert abs(float(c[name].numeric[0]) - want) < 1e-6
        assert c[name].digits >= 8
    assert "a.grad: autograd 20., numeric 20.0000000" in text
    assert "(h = 1e-06, central differences in float64)" in text
    assert "max abs error" in text and "agree to" in text
    assert text.rstrip().endswith("3 gradients checked: all agree with the numeric slopes")


def test_broadcast_gradient_is_summed():
    checks, _ = N.gradcheck_file(_ex("graphs", "broadcast.py"))
    c = _by_name(checks)
    assert np.allclose(c["b.grad"].numeric, [2, 2, 2], atol=1e-6)
    assert np.allclose(c["x.grad"].numeric, np.ones(6), atol=1e-6)


def test_accumulation_counts_both_backward_calls():
    checks, text = N.gradcheck_file(_ex("quiz", "accumulate.py"))
    c = _by_name(checks)["x.grad"]
    assert c.runs == [1, 2]
    assert abs(float(c.numeric[0]) - 8.0) < 1e-6 and c.agrees()
    assert "2 backward() calls added into x.grad" in text


def test_mlp_samples_large_leaves_and_agrees():
    checks, text = N.gradcheck_file(_ex("graphs", "mlp.py"))
    c = _by_name(checks)
    assert set(c) == {"model.fc1.weight.grad", "model.fc1.bias.grad",
                      "model.fc2.weight.grad", "model.fc2.bias.grad"}
    assert all(x.agrees() for x in checks)
    w = c["model.fc1.weight.grad"]
    assert w.indices.size == 16 and w.size == 32
    assert "checked 16 of 32 elements (the 4 largest and 12 at random)" in text


def test_second_order_capture_results():
    checks, text = N.gradcheck_file(_ex("graphs", "second_order.py"))
    vals = {c.name: float(c.numeric[0]) for c in checks}
    assert abs(vals["d(y)/dx"] - 27) < 1e-6 and abs(vals["d(dx)/dx"] - 18) < 1e-6
    assert "returned by the gradient call" in text


def test_a_wrong_gradient_is_caught():
    """A VJP that lies is found: the numeric side does not read the engine's gradients."""
    from gradrepl.engine.registry import OPS

    op = OPS["multiply"]
    real = op.vjp

    def wrong(node, g):
        gx, gy = real(node, g)
        return (gx * 2 if gx is not None else None), gy

    op.vjp = wrong
    try:
        checks, text = N.gradcheck_file(_ex("seeds", "s000_example_two.py"))
    finally:
        op.vjp = real
    assert not all(c.agrees() for c in checks)
    assert "DISAGREE" in text and "disagree" in text


def test_leaf_names_and_bad_arguments():
    checks, _ = N.gradcheck_file(_ex("seeds", "s000_example_two.py"), names=["b"])
    assert [c.name for c in checks] == ["b.grad"]
    with pytest.raises(N.GradcheckError, match="no variable named 'zz'"):
        N.gradcheck_file(_ex("seeds", "s000_example_two.py"), names=["zz"])
    with pytest.raises(N.GradcheckError, match="no such file"):
        N.gradcheck_file("no_such_script.py")


# vgg11's forward and backward take seconds (36 s of CPU natively, tens of minutes under qemu):
# slow, as in tests/test_seeds.py and tests/test_shell_stdin.py
@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if "vgg11" in p else p
                                  for p in SESSIONS], ids=[os.path.basename(p) for p in SESSIONS])
def test_every_session_agrees(path):
    big = "vgg11" in path
    checks, text = N.gradcheck_file(path, max_elements=1 if big else N.MAX_ELEMENTS,
                                    seconds=0 if big else N.SECONDS)
    done = [c for c in checks if c.checked]
    assert all(c.checked for c in checks), text
    with open(path, encoding="utf-8") as f:   # (a session that runs a backward: checked, not
        ran = any(line.startswith((">>> ", "... ")) and ".backward(" in line for line in f)
    assert done or not ran, f"{path}: a backward ran and nothing was checked"   # vacuous)
    for c in done:
        assert c.agrees(), text
        assert c.digits >= N.printed_digits(c.autograd_dtype), text


def test_cli_exit_status_and_output():
    from typer.testing import CliRunner

    from gradrepl.cli import app

    r = CliRunner().invoke(app, ["gradcheck", _ex("quiz", "square_plus.py")])
    assert r.exit_code == 0, r.output
    assert "x.grad: autograd 7., numeric 7.0000000" in r.output
    r = CliRunner().invoke(app, ["gradcheck", "no_such_script.py"])
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["gradcheck", _ex("quiz", "square_plus.py"), "--h", "0"])
    assert r.exit_code == 2


def test_shell_gradcheck_reruns_the_session():
    from gradrepl.repl.session import Session

    s = Session()
    for src in ["import paddle", "x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)",
                "y = (x * x).sum()", "y.backward()", "%vars"]:
        s.run(src)
    res = s.run("%gradcheck")
    assert res.error is None, res.output
    assert "the session's 4 inputs ran again" in res.output
    assert "x.grad (shape [2]): autograd [2., 4.]" in res.output
    assert "all agree" in res.output
    assert s.run("%gradcheck nope").output.startswith("%gradcheck: no variable named 'nope'")
