"""The handout as a teacher reads it (issue 19, found item 5; gradrepl/repl/handout.py):

- a ``%graph`` input's picture is the one ``%graph`` drew, with every option the shell honours
  (``--view``, ``--chain``, ``--to``, ``--depth``, ``--collapse``), and its caption says so;
- a picture is drawn under an input only when what it shows changed; gradients that were only
  cleared (``clear_grad()``: back to zero or None) are said in a note, not drawn again;
- a comment's numbered and bulleted lists stay lists, its paragraphs paragraphs.
"""
from __future__ import annotations

import html as _html
import io
import pathlib
import re
import textwrap

from gradrepl.repl.replay_cli import replay_command

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _handout(tmp_path, text, name="lesson.pycon", check=True, figures="all"):
    """The handout page of ``text``; ``check``: its outputs must match too (the %graph
    lessons here write no expected text pictures: those are the terminal's business);
    ``figures``: every picture taken (the default limit is tests/test_handout_print.py's)."""
    src = tmp_path / name
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out.html"
    o, e = io.StringIO(), io.StringIO()
    rc = replay_command([str(src)], check=check, html=str(out), out=o, err=e,
                        figures=figures)
    assert rc == 0, o.getvalue() + e.getvalue()
    return out.read_text(encoding="utf-8")


def _cells(page):
    """``[(line, input text, [captions], [notes], [svg bodies])]`` for every cell."""
    out = []
    for line, body in re.findall(r'<div class="cell" id="f1-L(\d+)">(.*?)</div>\n', page,
                                 re.S):
        src = re.search(r'<pre class="hl">(.*?)</pre>', body, re.S).group(1)
        src = _html.unescape(re.sub(r"<[^>]+>", "", src))
        caps = [_html.unescape(c) for c in re.findall(r"<figcaption>(.*?)<a class", body)]
        notes = [_html.unescape(n) for n in re.findall(r'<div class="note">(.*?)</div>', body)]
        svgs = re.findall(r'<figure class="pic" id="fig\d+">(<svg.*?</svg>)', body, re.S)
        out.append((int(line), src, caps, notes, svgs))
    return out


def _texts(svg):
    """The words a picture shows: its ``<text>`` elements, in order."""
    return [_html.unescape(t) for t in re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.S)]


GRAPH = """\
>>> import paddle
>>> a = paddle.to_tensor(2.0, stop_gradient=False)
>>> b = paddle.to_tensor(5.0, stop_gradient=False)
>>> c = a * b
>>> y = c * c + a
>>> %graph y --view backward -o {svg}
wrote {svg}
>>> %graph y --view backward
>>> %graph y --view forward --to c
>>> %graph y --depth 1 --chain
>>> y.backward()
>>> %graph y --view backward --chain -o {svg2}
wrote {svg2}
"""


def test_graph_inputs_are_drawn_as_graph_drew_them(tmp_path):
    svg, svg2 = tmp_path / "backward.svg", tmp_path / "chain.svg"
    page = _handout(tmp_path, GRAPH.format(svg=svg, svg2=svg2), check=False)
    cells = {src: (caps, svgs) for _, src, caps, _, svgs in _cells(page)}
    caps, svgs = cells[f">>> %graph y --view backward -o {svg}"]
    assert caps == [f"Figure 3. y: backward graph, as %graph y --view backward -o {svg} drew it"]
    # the handout's picture is the very picture %graph wrote to the file
    assert _texts(svgs[0]) == _texts(svg.read_text(encoding="utf-8"))
    back = _texts(svgs[0])
    assert "MulBackward" in " ".join(back) and "grad_pending_ops = None" in back
    assert not any("stop_gradient" in t for t in back)   # no forward records in it
    assert not any("c = a * b" == t for t in back)        # no forward op labels

    caps, svgs = cells[">>> %graph y --view backward"]
    assert caps == ["Figure 4. y: backward graph, as %graph y --view backward drew it"]
    assert _texts(svgs[0]) == back

    caps, svgs = cells[">>> %graph y --view forward --to c"]
    assert caps == ["Figure 5. y: forward graph, only what lies between c and y, as %graph y "
                    "--view forward --to c drew it"]
    fwd = " ".join(_texts(svgs[0]))
    assert "stop_gradient" in fwd and "grad_pending_ops" not in fwd
    assert "b = paddle.to_tensor" not in fwd           # b lies before c: cut away

    caps, svgs = cells[">>> %graph y --depth 1 --chain"]
    assert caps == ["Figure 6. y: forward and backward graphs, with the chain-rule arithmetic "
                    "on each backward op, the ops at most 1 step from y, as %graph y --depth 1 "
                    "--chain drew it"]

    caps, svgs = cells[f">>> %graph y --view backward --chain -o {svg2}"]
    chained = _texts(svgs[0])
    assert chained == _texts(svg2.read_text(encoding="utf-8"))
    # the chain-rule lines are in it (and were not without --chain)
    assert any(t.startswith("b_grad = c_grad * a") for t in chained), chained
    assert not any(t.startswith("b_grad = c_grad * a") for t in back)


def test_collapse_is_honoured(tmp_path):
    text = textwrap.dedent("""\
        >>> import paddle
        >>> paddle.seed(1)
        >>> net = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Tanh())
        >>> loss = net(paddle.ones([1, 2])).sum()
        >>> %graph loss --collapse --view backward
    """)
    page = _handout(tmp_path, text.replace(">>> paddle.seed(1)\n", ">>> _ = paddle.seed(1)\n"),
                    check=False)
    cells = {src: (caps, svgs) for _, src, caps, _, svgs in _cells(page)}
    caps, svgs = cells[">>> %graph loss --collapse --view backward"]
    assert caps == ["Figure 2. loss: backward graph, each Layer call as one node, as %graph "
                    "loss --collapse --view backward drew it"]


CLEAR = """\
>>> import paddle
>>> w = paddle.to_tensor([1.0, -2.0], stop_gradient=False)
>>> loss = (3 * w).sum()
>>> loss.backward()
>>> w.clear_grad()
>>> w.grad
Tensor(shape=[2], dtype=float32, place=CPUPlace, stop_gradient=False,
       [0., 0.])
>>> loss = (3 * w).sum()
>>> loss.backward(retain_graph=True)
>>> loss.backward()
>>> w.clear_grad()
>>> w.stop_gradient = False
>>> w.grad.set_value(w.grad + 1)
"""


def test_a_picture_is_drawn_only_when_what_it_shows_changed(tmp_path):
    page = _handout(tmp_path, CLEAR)
    got = [(line, src, caps, notes) for line, src, caps, notes, _ in _cells(page)]
    assert got == [
        (1, ">>> import paddle", [], []),
        (2, ">>> w = paddle.to_tensor([1.0, -2.0], stop_gradient=False)", [], []),
        (3, ">>> loss = (3 * w).sum()",
         ["Figure 1. loss: forward and backward graphs, made by this input"], []),
        (4, ">>> loss.backward()",
         ["Figure 2. loss: forward and backward graphs, changed by this input"], []),
        # the gradient went back to zero: nothing else in the picture changed
        (5, ">>> w.clear_grad()", [],
         ["loss is not drawn again: this input only cleared w_grad in its picture"]),
        (6, ">>> w.grad", [], []),
        (9, ">>> loss = (3 * w).sum()",
         ["Figure 3. loss: forward and backward graphs, made by this input"], []),
        # from cleared to filled: drawn (retain_graph: only the gradients changed)
        (10, ">>> loss.backward(retain_graph=True)",
         ["Figure 4. loss: forward and backward graphs, changed by this input"], []),
        # twice the gradient, and the saved tensors released
        (11, ">>> loss.backward()",
         ["Figure 5. loss: forward and backward graphs, changed by this input"], []),
        (12, ">>> w.clear_grad()", [],
         ["loss is not drawn again: this input only cleared w_grad in its picture"]),
        # nothing it shows changed: no picture, no note
        (13, ">>> w.stop_gradient = False", [], []),
        # a gradient that changed to something else than zero is drawn
        (14, ">>> w.grad.set_value(w.grad + 1)",
         ["Figure 6. loss: forward and backward graphs, changed by this input"], []),
    ]


def test_only_cleared_is_exactly_a_clear():
    from gradrepl.repl.handout import _only_cleared

    old = {"tensors": [{"id": "t0", "preview": "[1., 2.]"}],
           "grad_vars": [{"id": "g0", "name": "w_grad", "data": "[3., 3.]"},
                         {"id": "g1", "name": "b_grad", "data": "[-1.5]"},
                         {"id": "g2", "name": "c_grad", "data": None}]}

    def new(**changes):
        d = {"tensors": [dict(t) for t in old["tensors"]],
             "grad_vars": [dict(g) for g in old["grad_vars"]]}
        for g in d["grad_vars"]:
            if g["name"] in changes:
                g["data"] = changes[g["name"]]
        return d

    assert _only_cleared(old, new(w_grad="[0., 0.]")) == ["w_grad"]
    assert _only_cleared(old, new(w_grad=None, b_grad="[-0.]")) == ["w_grad", "b_grad"]
    assert _only_cleared(old, new(w_grad="[0., 0.]", b_grad="[-1.]")) is None  # not a clear
    assert _only_cleared(old, new(w_grad="[0., 1e-08]")) is None
    assert _only_cleared(old, new()) is None                 # nothing cleared
    assert _only_cleared(None, new(w_grad=None)) is None     # a new picture
    moved = new(w_grad=None)
    moved["tensors"][0]["preview"] = "[0.9, 2.]"             # the weights moved too
    assert _only_cleared(old, moved) is None


def test_optimizer_clear_grad_in_the_training_lesson(tmp_path):
    page = (ROOT / "sessions" / "lesson_training_loop.pycon").read_text(encoding="utf-8")
    page = _handout(tmp_path, page, name="lesson_training_loop.pycon")
    cells = {src: (caps, notes) for _, src, caps, notes, _ in _cells(page)}
    assert cells[">>> opt.clear_grad()"] == (
        [], ["loss is not drawn again: this input only cleared model.weight_grad and "
             "model.bias_grad in its picture"])
    assert cells[">>> opt.step()"][0] == [     # the weights moved: drawn
        "Figure 3. loss: forward and backward graphs, changed by this input"]


def test_comments_keep_their_lists_and_paragraphs():
    from gradrepl.repl.handout import _prose

    got = _prose([
        "# Example two, by the chain rule:",
        "# 1. the forward pass records `c = a * b`;",
        "# 2. backward seeds e_grad = 1",
        "#    and runs the ready queue;",
        "# 3) the leaves accumulate a.grad.",
        "# Then a new paragraph <here> & there.",
        "#",
        "# What to look for:",
        "# - the released ops,",
        "#   drawn grey;",
        "# * the gradients, which",
        "# fill in as it runs.",
        "#",
        "# 4. numbering may start anywhere.",
        "# 5. like this.",
        "#",
        "# Two lines of",
        "# one paragraph.",
    ])
    assert got == (
        '<div class="prose">'
        "<p>Example two, by the chain rule:</p>"
        "<ol><li>the forward pass records <code>c = a * b</code>;</li>"
        "<li>backward seeds e_grad = 1 and runs the ready queue;</li>"
        "<li>the leaves accumulate a.grad.</li></ol>"
        "<p>Then a new paragraph &lt;here&gt; &amp; there.</p>"
        "<p>What to look for:</p>"
        "<ul><li>the released ops, drawn grey;</li>"
        "<li>the gradients, which fill in as it runs.</li></ul>"
        '<ol start="4"><li>numbering may start anywhere.</li><li>like this.</li></ol>'
        "<p>Two lines of one paragraph.</p>"
        "</div>\n")


def test_a_session_with_a_list_in_its_comments(tmp_path):
    text = (ROOT / "sessions" / "lesson_profile3.pycon").read_text(encoding="utf-8")
    page = _handout(tmp_path, text, name="lesson_profile3.pycon")
    assert ("(Paddle 2.2):</p><ul><li>a scalar is a 0-D tensor: shape=[], printed without "
            "brackets;</li><li>the place prints as Place(cpu);</li>") in page
    assert ("has new wording.</li></ul><p>The numbers are the same: a_grad = 20, b_grad = 8, "
            "d_grad = 10.</p>") in page
