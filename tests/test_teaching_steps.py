"""The step-through as a student reads it (issue 19, found items 1-4 and "one numbering and one
voice"). Each test failed on the code before the fix: unreduced broadcast gradients in chain
lines and sentences, event class names and internal ids (b0, b1) in the narration, three
numberings ("6 / 23", "event 5 of 22", "step 5 / 22"), a ready queue that never emptied under
Paddle 3, ``ready queue: None``, torch pictures in Paddle's words, and --steps crashing with
--collapse, --depth, --to and on a torch model."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradrepl import viz
from gradrepl.viz import capture, steps
from gradrepl.viz.dot import to_dot
from gradrepl.viz.terminal import render_text

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "examples" / "seeds"
GRAPHS = ROOT / "examples" / "graphs"


def step_frames(script, tensor, profile=None, at=None, **kw):
    run = capture.run_for_pictures(str(script), profile=profile, steps=True, at=at)
    assert run.error is None, run.error
    t = run.namespace[tensor]
    pic = viz.graph(t, view="backward", namespace=run.namespace, recorder=run.recorder,
                    chain=True, **kw)
    return steps.frames(pic.model, run.log.run_for(t)), run


def sentences(fr):
    return [f.step["event"] for f in fr]


def chain_lines(f):
    return [line for b in f.backward_ops for line in b.chain]


def gg(*args):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "gradrepl", "graph", *map(str, args)],
                          capture_output=True, text=True, timeout=180, env=env)


# ---------------------------------------------------------------------------- found item 1
def test_broadcast_chain_line_and_sentence_show_the_reduced_gradient():
    fr, _run = step_frames(GRAPHS / "broadcast.py", "loss")
    for f in fr:   # never the unreduced [2, 3] gradient after sum_to, in any frame
        for line in chain_lines(f) + [f.step["event"]]:
            assert not re.search(r"broadcast to \[2, 3\]\) = \[1\., 1\., 1\., 1\.", line), line
            assert "sum_to(" not in line and "expand(" not in line, line
            assert "b_grad += [1., 1., 1., 1., ...]" not in line
    ran = next(f for f in fr if f.step["event"].startswith("AddBackward ran"))
    said = "b_grad = y_grad (summed over the 2 broadcast rows: b [3] was broadcast to [2, 3])"
    assert said + " = [2., 2., 2.]" in chain_lines(ran)
    assert said + " = [2., 2., 2.] to b" in ran.step["event"]
    box = {v.name: v.flow for v in ran.grad_vars}   # reached b; b.grad is written after
    assert box["b_grad"] == "[2., 2., 2.]"


def test_mlp_bias_chain_lines_equal_the_bias_gradients():
    fr, run = step_frames(GRAPHS / "mlp.py", "loss")
    last = fr[-1]
    by_name = {v.name: v.data for v in last.grad_vars}
    for bias in ("model.fc1.bias", "model.fc2.bias"):
        line = next(x for x in chain_lines(last) if x.startswith(bias + "_grad = ") and "(summed over the 5 broadcast rows" in x)
        assert line.endswith(" = " + by_name[bias + "_grad"]), line
        from gradrepl.viz.model import preview

        assert by_name[bias + "_grad"] == preview(run.namespace["model"].__getattr__(
            bias.split(".")[1]).bias.grad.data)


# ---------------------------------------------------------------------------- found item 2
EXAMPLE_TWO = [
    "Before backward: the graph as the forward pass left it.",
    "Before anything runs, each backward op counts the gradients it waits for "
    "(Paddle: PrepareDeps): MulBackward #2 waits for 0, MulBackward #1 waits for 1.",
    "The backward starts at e: e_grad = 1. (de/de = 1), so MulBackward #2 can run.",
    "MulBackward #2 ran: it sent c_grad = e_grad * d = 1. * 4. = 4. to MulBackward #1 and "
    "d_grad = e_grad * c = 1. * 10. = 10. to d, then freed its saved tensors (no retain_graph).",
    "MulBackward #1 ran: it sent a_grad = c_grad * b = 4. * 5. = 20. to a and "
    "b_grad = c_grad * a = 4. * 2. = 8. to b, then freed its saved tensors (no retain_graph).",
    "d's gradient is stored: d.grad = 10.",
    "a's gradient is stored: a.grad = 20.",
    "b's gradient is stored: b.grad = 8.",
]


def test_example_two_is_told_in_plain_sentences():
    fr, _run = step_frames(SEEDS / "s000_example_two.py", "e")
    assert sentences(fr) == EXAMPLE_TWO
    for text in sentences(fr):
        assert not re.search(r"DepsCounted|DepDec|Seeded|Ready:|\(b\d\)", text)


def test_one_numbering_of_shared_names_in_picture_text_and_sentence():
    fr, _run = step_frames(SEEDS / "s000_example_two.py", "e")
    f = fr[3]
    dot = to_dot(f, view="backward", chain=True)
    text = render_text(f, view="backward", color=False)
    for where in (dot, text, f.step["event"]):
        assert "MulBackward #1" in where and "MulBackward #2" in where
        assert "(b0)" not in where and "(b1)" not in where
    # a name used once is not numbered
    fr, _run = step_frames(GRAPHS / "broadcast.py", "loss")
    dot = to_dot(fr[-1], view="backward")
    assert "AddBackward" in dot and "AddBackward #" not in dot


def test_one_numbering_in_frame_header_player_and_step(tmp_path):
    r = gg(SEEDS / "s000_example_two.py", "-t", "e", "--steps", tmp_path / "s", "--chain")
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "s" / "index.html").read_text()
    # the counter, the picture's header and the sentence: "step k of n", once each way
    assert 'data-counter="step 3 of 7"' in html
    assert "step 3 of 7: MulBackward #2 ran" in (tmp_path / "s" / "frame_003.svg").read_text()
    assert "event 3 of" not in html and "3 / 8" not in html and "step 3 / " not in html
    from gradrepl.repl.session import Session

    s = Session()
    for src in ["import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
                "b = paddle.to_tensor(5.0, stop_gradient=False)", "c = a * b",
                "d = paddle.to_tensor(4.0, stop_gradient=False)", "e = c * d"]:
        s.run(src)
    res = s.run("%step e")
    assert [t.splitlines()[1] for t in res.frames] == [
        f"step {k} of 7: {x}" for k, x in enumerate(EXAMPLE_TWO)]
    assert "ready queue: None" not in res.output
    assert res.frames[0].splitlines()[2] == "ready queue: (empty)"


def test_leaf_accumulation_reads_as_a_sum_distinct_from_a_first_write():
    from gradrepl.repl.session import Session

    s = Session()
    for src in ["import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
                "b = paddle.to_tensor(5.0, stop_gradient=False)", "c = a * b",
                "c.backward(retain_graph=True)"]:
        s.run(src)
    res = s.run("%step c")
    last = res.frames[-1]
    assert "a's gradient is stored: a.grad = 5. + 5. = 10. (a new gradient is added to what " \
           "a.grad held)." in last or "b's gradient is stored: b.grad = 2. + 2. = 4." in last
    assert "a.grad = 5. + 5. = 10." in res.output and "b.grad = 2. + 2. = 4." in res.output


def test_paddle3_ready_queue_empties():
    fr, _run = step_frames(SEEDS / "s000_example_two.py", "e", profile="3")
    assert fr[-1].step["ready"] == []   # (it kept the three accumulation nodes)
    queues = [f.step["ready_names"] for f in fr]
    assert queues[-1] == []
    assert "ready queue: (empty)" in render_text(fr[-1], view="backward", color=False)
    # each accumulation node leaves the queue when it runs
    assert queues[-2] == ["GradNodeAccumulation #2"]
    assert fr[-1].step["event"] == "GradNodeAccumulation #2 ran: b.grad = 8."


def test_one_spelling_of_a_gradient_per_sentence():
    for script, tensor in ((SEEDS / "s000_example_two.py", "e"), (GRAPHS / "mlp.py", "loss"),
                           (GRAPHS / "broadcast.py", "loss")):
        fr, run = step_frames(script, tensor)
        names = [t.name for t in fr[0].tensors]
        for text in sentences(fr):
            for n in names:
                assert not (f"{n}_grad" in text and f"{n}.grad" in text), text


# ---------------------------------------------------------------------------- found item 3
def test_torch_pictures_speak_torch():
    script = ROOT / "examples" / "torch" / "s003_example_two.py"
    r = gg(script, "--tensor", "y", "--at", "34", "--chain", "--view", "backward")
    assert r.returncode == 0, r.stderr
    # after backward the chain lines have the numbers that flowed
    # the gradient that flows is grad(y): torch keeps no y.grad (a non-leaf)
    assert "grad(a) = grad(y) * b = 1. * 2. = 2." in r.stdout
    assert "grad(w) = grad(b) = 3." in r.stdout
    assert "grad(y) = 1.  (the gradient reaching y; not kept: y.grad is None)" in r.stdout
    # torch's queue runs the node made last first: b's AddBackward0 before a's (real torch
    # 2.13's node hooks print b, then a), so grad(w) sums b's 3. first
    assert "w.grad = 5." in r.stdout and "grad(w) = 3. + 2. = 5.  (2 paths reach w)" in r.stdout
    # two nodes of one torch name told apart as torch reaches them (torch numbers none)
    assert "next_functions = AddBackward0 (a.grad_fn), AddBackward0 (b.grad_fn)" in r.stdout
    assert " #1" not in r.stdout and " #2" not in r.stdout
    assert "grad_pending_ops" not in r.stdout
    run = capture.run_for_pictures(str(script), at=34)
    pic = viz.graph(run.namespace["y"], namespace=run.namespace, recorder=run.recorder)
    dot = pic.dot()
    for word in ("requires_grad=True", "next_functions", "grad_fn = MulBackward0",
                 "AccumulateGrad", "w.grad"):
        assert word in dot, word
    for word in ("stop_gradient", "grad_pending_ops", "grad_op", "w_grad"):
        assert word not in dot, word
    text = pic.text()
    assert "requires_grad=True" in text and "stop_gradient" not in text


def test_torch_step_sentences_use_torch_words():
    script = ROOT / "examples" / "torch" / "s003_example_two.py"
    fr, _run = step_frames(script, "y", at=34)   # y = (w + x) * (w + 1)
    said = sentences(fr)
    assert "(torch: compute_dependencies)" in said[1]
    assert "MulBackward0 ran: it sent grad(a) = grad(y) * b = 1. * 2. = 2. to AddBackward0 " \
           "(a.grad_fn) and grad(b) = grad(y) * a = 1. * 3. = 3. to AddBackward0 (b.grad_fn)." \
        in said
    # torch's order (backward.SequenceQueue): b's AddBackward0, made last, runs first
    assert "AddBackward0 (b.grad_fn) ran: it sent grad(w) = grad(b) = 3. to w." in said
    assert "AddBackward0 (a.grad_fn) ran: it sent grad(w) = grad(a) = 2. to w (added to the 3. that " \
           "reached it before: grad(w) = 3. + 2. = 5.) and grad(x) = grad(a) = 2. to x." \
        in said   # (retain_graph=True)
    assert said[-2:] == ["AccumulateGrad (w) ran: w.grad = 5.",
                         "AccumulateGrad (x) ran: x.grad = 2."]
    for s in said:
        assert "_grad" not in s and "Paddle" not in s


# ---------------------------------------------------------------------------- found item 4
@pytest.mark.parametrize("opts", [["--collapse"], ["--depth", "2"], ["--to", "x"]])
def test_steps_work_with_cuts_and_collapse(tmp_path, opts):
    out = tmp_path / "s"
    r = gg(GRAPHS / "mlp.py", "--tensor", "loss", "--steps", out, "--chain", *opts)
    assert r.returncode == 0, r.stderr
    assert len(list(out.glob("frame_*.svg"))) == 14
    html = (out / "index.html").read_text()
    assert "Traceback" not in r.stderr and "step 13 of 13" in html


def test_steps_on_a_torch_model(tmp_path):
    script = tmp_path / "net.py"
    script.write_text(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "torch.manual_seed(0)\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc1 = nn.Linear(4, 8)\n"
        "        self.fc2 = nn.Linear(8, 3)\n"
        "    def forward(self, x):\n"
        "        return self.fc2(F.relu(self.fc1(x)))\n"
        "model = Net()\nx = torch.rand(5, 4)\nlabel = torch.tensor([0, 2, 1, 1, 0])\n"
        "loss = F.cross_entropy(model(x), label)\nloss.backward()\n")
    for opts in ([], ["--collapse"], ["--depth", "3"]):
        out = tmp_path / ("s" + "".join(opts))
        r = gg(script, "--steps", out, *opts)
        assert r.returncode == 0, (opts, r.stderr)
        assert (out / "index.html").is_file()
