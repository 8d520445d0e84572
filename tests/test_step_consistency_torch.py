"""torch step frames agree with the static picture and with what torch keeps (issue 30, item 1).

Beside ``test_step_consistency.py`` (every number of a frame is the engine's at that moment), this
checks the torch frames of ``gradrepl graph SCRIPT --tensor e --steps DIR`` as a whole, against
the static picture (``-o``, ``--chain``) of the same run and against the tensors themselves:

- every record has the same title in every frame and in the static picture (``tmp_0``,
  ``grad(tmp_0)``, ``MulBackward0 (tmp_0.grad_fn)``: one naming throughout);
- an intermediate torch keeps no ``.grad`` of (``tensor.grad is None``: a non-leaf without
  ``retain_grad()``) never shows one: its gradient's record is the dashed "the gradient reaching
  it ... not kept: c.grad is None" in every frame and in the static picture, no ``data =`` row,
  and no picture or sentence writes ``c.grad`` as if it held a value;
- a leaf's ``.grad`` record holds None until the step whose sentence says its AccumulateGrad
  ran, and from then on what the tensor holds after the run (one backward);
- what reached an intermediate, in the last frame, is what the static ``--chain`` picture says.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradrepl import viz
from gradrepl.viz import capture, steps
from gradrepl.viz.dot import to_dot
from gradrepl.viz.model import preview

ROOT = Path(__file__).resolve().parent.parent

HEAD = "import torch\n" \
       "a = torch.tensor(2.0, requires_grad=True)\n" \
       "b = torch.tensor(5.0, requires_grad=True)\n" \
       "d = torch.tensor(4.0, requires_grad=True)\n"
SCRIPTS = {
    # the guide's example two in torch, c named (examples/quiz/torch_example_two.py)
    "named": (ROOT / "examples" / "quiz" / "torch_example_two.py", "e"),
    # the same in one statement: the intermediate is the picture's tmp_0
    "unnamed": (HEAD + "e = (a * b) * d\ne.backward()\n", "e"),
    # two intermediates of the same op type, a leaf reached by two paths
    "shared": (HEAD + "f = (a + b) * 2\ne = (a * b) * d + f\ne.backward()\n", "e"),
    # c.retain_grad(): torch keeps c.grad, so the picture does too (it said "not kept" before:
    # the torch dialect's flag is _retains, not the engine's _retain)
    "retained": (HEAD + "c = a * b\nc.retain_grad()\ne = c * d\ne.backward()\n", "e"),
    # a vector: the gradients are arrays
    "vector": ("import torch\nx = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)\n"
               "h = torch.tanh(x * 2.0)\ne = (h * h).sum()\ne.backward()\n", "e"),
}

_NODE = re.compile(r"^\t(\w+) \[label=(<.*>)\s[^\n]*$", re.M)
_LINE = re.compile(r"^\t(\w+) \[label=<[^\n]*$", re.M)
_TITLE = re.compile(r"<b>(.*?)</b>")


def labels(dot) -> dict:
    """{node id: its HTML label} of a DOT text (records and ops drawn with HTML labels); a
    compact look's one-line node: its label and its tooltip (where its rows are)."""
    out = {m.group(1): m.group(2) for m in _NODE.finditer(dot)}
    for m in _LINE.finditer(dot):
        if "tooltip=" in m.group(0):
            out[m.group(1)] = m.group(0).replace("\\n", "</td>")
    return out


def titles(dot) -> dict:
    out = {}
    for nid, label in labels(dot).items():
        m = _TITLE.search(label)
        if m:
            out[nid] = m.group(1)
    return out


@pytest.fixture(scope="module", params=[(s, look) for s in sorted(SCRIPTS)
                                        for look in ("full", "compact")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def case(request, tmp_path_factory):
    name, look = request.param
    src, tensor = SCRIPTS[name]
    if isinstance(src, Path):
        path = src
    else:
        path = tmp_path_factory.mktemp("torch_steps") / f"{name}.py"
        path.write_text(src)
    run = capture.run_for_pictures(str(path), steps=True)
    assert run.error is None, run.error
    t = run.namespace[tensor]
    logged = run.log.run_for(t)
    pic = viz.graph(t, namespace=run.namespace, recorder=run.recorder, chain=True)
    g = pic.model
    steps.fill_final_chain(g, logged, run.log.runs)   # as `gradrepl graph --chain` does
    static = to_dot(g, view="both", chain=True, look=look)
    fr = steps.frames(g, logged, chain=True, history=run.log.runs)   # as --steps does
    frame_dots = [to_dot(f, view="both", chain=True, look=look) for f in fr]
    return name, run, g, static, fr, frame_dots


def test_one_naming_in_every_frame_and_the_static_picture(case):
    _name, _run, _g, static, _fr, frame_dots = case
    want = titles(static)
    assert want
    for k, dot in enumerate(frame_dots):
        assert titles(dot) == want, f"frame {k}"
    assert not any(re.search(r"Backward0? #\d|AccumulateGrad #\d", d)
                   for d in [static] + frame_dots)


def _tensors(run, g):
    """{model tensor id: the live tensor} of the picture's named tensors."""
    by_name = {t.name: t.id for t in g.tensors}
    return {by_name[k]: v for k, v in run.namespace.items()
            if k in by_name and hasattr(v, "grad_fn")}


def test_what_torch_does_not_keep_is_never_shown_kept(case):
    name, run, g, static, fr, frame_dots = case
    by_id = g.by_id()
    not_kept = [v for v in g.grad_vars if not v.kept]
    assert not_kept, "every case has an intermediate"
    live = _tensors(run, g)
    for v in g.grad_vars:   # the model's "kept" is what torch keeps
        t = live.get(v.tensor)
        if t is not None:
            assert v.kept == (t.grad is not None), by_id[v.tensor].name
    for v in not_kept:
        tname = by_id[v.tensor].name
        for k, dot in enumerate([static] + frame_dots):
            label = labels(dot)[v.id]
            assert f"not kept: {tname}.grad is None" in label, (k, label)
            assert "data = " not in label, (k, label)
            # c.grad written anywhere only as torch has it: None (or c.grad_fn)
            for m in re.finditer(rf"(?<![\w.]){re.escape(tname)}\.grad(?!_fn)", dot):
                assert dot[m.end():m.end() + 8] == " is None", (k, dot[m.start() - 40:
                                                                       m.end() + 20])
        for f in fr:
            assert f"{tname}.grad =" not in f.step["event"], f.step["event"]
    if name == "retained":   # the one non-leaf torch keeps: its .grad is shown kept
        c = next(v for v in g.grad_vars if by_id[v.tensor].name == "c")
        assert c.kept and "data = 4." in re.sub(r"</?(b|font)[^>]*>", "", labels(static)[c.id])
        # held from the step whose sentence says so ("kept as c.grad: c.retain_grad()")
        k = next(k for k, f in enumerate(fr) if "kept as c.grad" in f.step["event"])
        for j, dot in enumerate(frame_dots):
            label = re.sub(r"</?(b|font)[^>]*>", "", labels(dot)[c.id])
            assert ("data = 4." if j >= k else "data = None") in label, (j, label)


def test_a_leaf_grad_appears_when_its_accumulate_runs(case):
    _name, run, g, static, fr, frame_dots = case
    by_id = g.by_id()
    live = _tensors(run, g)
    for v in g.grad_vars:
        t = live.get(v.tensor)
        if t is None or not t.is_leaf or t.grad is None:
            continue
        tname = by_id[v.tensor].name
        value = preview(t.grad.data)
        ran = [k for k, f in enumerate(fr)
               if f.step["event"].startswith(f"AccumulateGrad ({tname}) ran:")
               or f.step["event"].startswith("AccumulateGrad ran:")
               and f"{tname}.grad =" in f.step["event"]]
        assert len(ran) == 1, [f.step["event"] for f in fr]
        for k, (f, dot) in enumerate(zip(fr, frame_dots)):
            label = labels(dot)[v.id]
            if k < ran[0]:
                assert "data = None" in label, (tname, k, label)
            else:
                assert re.sub(r"</?(b|font)[^>]*>", "", label).count(f"data = {value}") == 1, \
                    (tname, k, value, label)
        assert f"data = {value}" in re.sub(r"</?(b|font)[^>]*>", "", labels(static)[v.id])


def test_what_reached_an_intermediate_matches_the_static_picture(case):
    _name, _run, g, static, fr, frame_dots = case
    by_id = g.by_id()
    last = labels(frame_dots[-1])
    stat = labels(static)
    for v in g.grad_vars:
        if v.kept:
            continue
        tname = by_id[v.tensor].name
        words = re.compile(rf"the gradient reaching {re.escape(tname)} = (.*?)</td>")
        plain = lambda s: re.sub(r"</?(b|font)[^>]*>", "", s)   # noqa: E731
        a, b = words.search(plain(last[v.id])), words.search(plain(stat[v.id]))
        assert a and b, (last[v.id], stat[v.id])
        assert a.group(1) == b.group(1) and a.group(1) != "(not reached yet)"
