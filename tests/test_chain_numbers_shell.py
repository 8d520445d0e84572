"""``%graph NAME --chain`` after a ``backward()`` in the shell and the notebook has the numbers
that flowed, as ``gradrepl graph SCRIPT --chain`` has them: the session keeps the last
backwards' events (``Session.backward_log``, fed through the ``%why`` log) and
``commands.graph_picture`` fills the chain lines from them (``steps.fill_final_chain``).

y = (a * b + a) ** 2 as d * d at a = 2, b = 3. torch's chain lines name the gradients that
flow ``grad(d)`` (torch keeps no d.grad), Paddle's ``d_grad``. Real torch 2.13.0 (the oracle venv) printed
``tensor(64.) tensor(32.)`` for ``a.grad, b.grad``; real Paddle 3.3.1 printed 64.0 and 32.0."""
from __future__ import annotations

import re

import pytest

from gradrepl.repl.session import Session

TORCH = ["import torch", "a = torch.tensor(2.0, requires_grad=True)",
         "b = torch.tensor(3.0, requires_grad=True)", "c = a * b", "d = c + a", "y = d * d",
         "y.backward()"]
PADDLE = ["import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
          "b = paddle.to_tensor(3.0, stop_gradient=False)", "c = a * b", "d = c + a",
          "y = d * d", "y.backward()"]

# (dialect, profile): the chain lines (the gradient, the rule, its numbers)
EXPECTED = {
    "torch": ["grad(d) = grad(y) * d = 1. * 8. = 8.", "grad(c) = grad(d) = 16.",
              "grad(a) = grad(d) = 16.", "grad(a) = grad(c) * b = 16. * 3. = 48.",
              "grad(b) = grad(c) * a = 16. * 2. = 32."],
    "paddle": ["d_grad = y_grad * d = 1. * 8. = 8.", "c_grad = d_grad = 16.",
               "a_grad = d_grad = 16.", "a_grad = c_grad * b = 16. * 3. = 48.",
               "b_grad = c_grad * a = 16. * 2. = 32."],
}
LEAVES = {"torch": ("a.grad = 64.", "b.grad = 32."), "paddle": ("a_grad = 64.", "b_grad = 32.")}


def _chain_lines(text):
    return [m.group(1) for m in re.finditer(r"^[│ ]*((?:\w+[._]grad|grad\(\w+\)) = .+ = \S+)$", text, re.M)
            if " grad_" not in m.group(1)]


def _session(lines, profile):
    s = Session(profile=profile)
    for ln in lines:
        res = s.run(ln)
        assert res.error is None, res.output
    return s


@pytest.mark.parametrize("dialect,lines,profile", [("torch", TORCH, "2.2"),
                                                   ("paddle", PADDLE, "2.2"),
                                                   ("paddle", PADDLE, "3")])
def test_graph_chain_after_backward_has_the_numbers(dialect, lines, profile):
    s = _session(lines, profile)
    out = s.run("%graph y --view backward --chain").output
    got = _chain_lines(out)
    for line in EXPECTED[dialect]:
        assert line in got, (line, got)
    for leaf in LEAVES[dialect]:
        assert leaf in out
    # and the same lines as the script path draws (gradrepl graph SCRIPT --chain)
    from gradrepl import viz
    from gradrepl.viz import capture
    from gradrepl.viz.steps import fill_final_chain

    import tempfile
    import os

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.py")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        run = capture.run_for_pictures(path, profile=profile, steps=True)
    pic = viz.graph(run.namespace["y"], view="backward", namespace=run.namespace,
                    recorder=run.recorder, chain=True)
    fill_final_chain(pic.model, run.log.run_for(run.namespace["y"]))
    script = [ln for b in pic.model.backward_ops for ln in b.chain]
    shell = [ln for b in s.run("%graph y --chain").value.model.backward_ops for ln in b.chain]
    assert shell == script and any("= 48." in ln for ln in shell)


def test_chain_numbers_come_from_the_backward_of_that_tensor_after_step_and_why():
    s = _session(TORCH, "2.2")
    s.run("%why a")       # (the %why log passes every event on; nothing is lost)
    lines = _chain_lines(s.run("%graph y --view backward --chain").output)
    assert "grad(a) = grad(c) * b = 16. * 3. = 48." in lines
    # a second backward with retain_graph: the numbers are the last run's
    s2 = _session(TORCH[:-1] + ["y.backward(retain_graph=True)", "y.backward()"], "2.2")
    assert "b.grad = 64." in s2.run("%graph y --view backward --chain").output
    assert "grad(b) = grad(c) * a = 16. * 2. = 32." in _chain_lines(
        s2.run("%graph y --view backward --chain").output)


def test_without_a_backward_the_chain_has_its_rules_only():
    s = _session(TORCH[:-1], "2.2")
    out = s.run("%graph y --view backward --chain").output
    assert "grad(a) = grad(c) * b" in out and "= 48." not in out


def test_the_log_keeps_the_last_runs_only():
    s = _session(TORCH, "2.2")
    for _ in range(5):
        s.run("y2 = (a * b) * 2")
        s.run("y2.backward()")
    assert len(s.backward_log.runs) == 2


def test_notebook_graph_chain_has_the_numbers():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    from gradrepl.notebook import _LOADED
    from gradrepl.notebook.magics import _View
    from gradrepl.repl.commands import cmd_graph

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "gradrepl")
    try:
        for ln in TORCH:
            shell.run_cell(ln, store_history=True)
        res = cmd_graph(_View(_LOADED[id(shell)]), ["y", "--view", "backward", "--chain"])
        assert "grad(a) = grad(c) * b = 16. * 3. = 48." in _chain_lines(res.output)
    finally:
        shell.run_line_magic("unload_ext", "gradrepl")
        InteractiveShell.clear_instance()


def test_a_training_loop_is_not_logged_and_gets_no_other_runs_numbers():
    s = _session(TORCH, "2.2")
    s.run("for i in range(20):\n    y = (a * b + a) * (a * b + a)\n    y.backward()\n")
    assert len(s.backward_log.runs) == 0
    out = s.run("%graph y --view backward --chain").output
    numbers = re.compile(r"= [^=\n]*\* \S+ = -?\d")   # a rule with its numbers
    assert "grad(y) * " in out and not numbers.search(out)
    s.run("y = (a * b + a) * (a * b + a)")
    s.run("y.backward()")
    assert numbers.search(s.run("%graph y --view backward --chain").output)


def test_step_after_a_loop_gives_graph_chain_its_numbers():
    s = _session(TORCH[:-1], "2.2")
    s.run("for i in range(12):\n    (a * b).backward()\n")
    s.run("%step y")
    assert "grad(a) = grad(c) * b = 16. * 3. = 48." in _chain_lines(
        s.run("%graph y --view backward --chain").output)
