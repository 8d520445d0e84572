"""The fast path of plain pictures (``viz/fast.py``) writes the DOT the model's path writes.

``viz.graph(t).dot()`` draws a plain picture from a flat snapshot of the engine's graph; the
general path (``model.build`` then ``dot.to_dot``) is the reference. Every graph below is drawn
both ways, in every view and with slide options, and must give the same bytes; graphs outside
the fast path (2.6/3 accumulation nodes, several outputs, released or double-grad graphs, cuts,
--layers) must fall back to the general path, and then give its bytes too.
"""
from __future__ import annotations

import os

import pytest

from gradrepl import viz
from gradrepl.viz import dot as D
from gradrepl.viz import model as M
from helpers import vgg_like_model

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, os.pardir, "examples", "seeds")
VIEWS = ("forward", "backward", "both")
STYLES = ({}, {"rankdir": "LR", "theme": "dark"}, {"font_size": 16, "title": "a title"},
          {"theme": "print", "size": "16x9"})


@pytest.fixture(autouse=True)
def _profile():
    from gradrepl.paddle import state

    state.reset("2.2")
    yield
    state.reset(None)


def _paddle():
    import gradrepl.paddle as paddle

    return paddle


def general(targets, namespace=None, recorder=None, view="both", look="auto", **opts):
    from gradrepl.viz.theme import Style

    title = opts.pop("title", None)
    style = Style(opts.get("rankdir"), opts.get("size"), opts.get("dpi"), opts.get("theme"),
                  opts.get("font_size"))
    g = M.build(targets, namespace=namespace, recorder=recorder)
    return D.to_dot(g, view=view, title=title, style=None if style.default else style,
                    look=look)


def check(targets, namespace=None, recorder=None, fast=True, styles=STYLES,
          looks=("auto", "compact", "full")):
    """Both paths, every view, style and look: the same DOT; ``fast``: the snapshot was taken."""
    for view in VIEWS:
        for look in looks:
            for opts in styles:
                pic = viz.graph(targets, view=view, namespace=namespace, recorder=recorder,
                                look=look, **opts)
                assert (pic._flat is not None) == fast, (view, look, opts)
                want = general(targets, namespace, recorder, view, look, **dict(opts))
                assert pic.dot() == want, (view, look, opts)
    return pic


def chain(paddle, n):
    x = paddle.to_tensor(1.0, stop_gradient=False)
    y = x
    for i in range(n):
        y = paddle.tanh(y) if i % 2 else y * 1.0001
    return x, y


def test_chain():
    paddle = _paddle()
    x, y = chain(paddle, 60)
    pic = check(y, {"x": x, "y": y}, styles=STYLES[:2])
    assert len(pic._flat.ops) == 60 and "TanhBackward #30" in pic.dot()
    # the model is still there when asked for, and draws the same picture
    assert D.to_dot(pic.model, view=pic.view, style=pic.style, look=pic.look) == pic.dot()
    assert len(pic.model.backward_ops) == 60


def test_small_chain_draws_saved_edges():
    paddle = _paddle()
    x, y = chain(paddle, 5)
    pic = check(y, {"x": x, "y": y})
    assert 't0 -> b0 [arrowsize=0.6' in pic.dot()  # (40 ops or fewer: the saved tensors' edges)


def test_broadcast_and_repeated_inputs():
    paddle = _paddle()
    a = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
    b = paddle.to_tensor([10.0, 20.0, 30.0], stop_gradient=False)
    c = paddle.to_tensor(2.0)  # stops gradient
    d = a + b
    e = d * d * c
    f = (e - a).sum()
    check(f, {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f})


def test_diamond_and_several_targets():
    paddle = _paddle()
    x = paddle.to_tensor([1.0, -2.0], stop_gradient=False)
    h = paddle.exp(x)
    u, v = h * 2.0, paddle.tanh(h)
    out = u + v
    check([out, v], {"x": x, "out": out})
    check(out, None)  # no names: tmp_N throughout


def test_mlp_with_parameters():
    paddle = _paddle()
    paddle.seed(0)
    model = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(),
                                 paddle.nn.Linear(8, 3), paddle.nn.Tanh())
    x, target = paddle.randn([5, 4]), paddle.randn([5, 3])
    loss = paddle.nn.functional.mse_loss(model(x), target)
    check(loss, {"model": model, "x": x, "target": target, "loss": loss})


def test_names_that_need_escaping():
    paddle = _paddle()
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = a * 3.0
    a.name = 'a<b>&"c'
    check(b, {'w<&>"': a, "b": b})


def test_compact_tooltips_of_odd_names():
    """The compact look's tooltips (escStrings) of names with quotes, backslashes, a newline
    and markup, and of values that are not finite, as the model's path writes them."""
    paddle = _paddle()
    a = paddle.to_tensor([1.0, float("nan"), float("inf")], stop_gradient=False)
    h = paddle.exp(a * 2.0)
    k = paddle.tanh(h) * a
    out = (k - h).sum()
    for name in ('q"uote', "back\\slash\\", "new\nline", "<b>x</b>&amp;", "tab\there"):
        h.name = name
        pic = check(out, {"a": a, "out": out}, looks=("compact",), styles=STYLES[:1])
        assert "tooltip=" in pic.dot()


def test_seed_script_with_statements():
    """example two as ``gradrepl graph`` runs it: statements on the ops and leaves."""
    from gradrepl.viz.capture import run_for_pictures

    run = run_for_pictures(os.path.join(SEEDS, "s000_example_two.py"), at=8)
    assert run.error is None
    e = [v for k, v in run.namespace.items() if k == "e"][0]
    pic = check(e, run.namespace, run.recorder)
    assert "c = a * b" in pic.dot()


def test_fallbacks_give_the_general_pictures():
    paddle = _paddle()
    # released by a backward
    x, y = chain(paddle, 6)
    y.backward()
    check(y, {"x": x, "y": y}, fast=False)
    # an op of several outputs
    a = paddle.to_tensor([1.0, 2.0, 3.0, 4.0], stop_gradient=False)
    p, q = paddle.split(a, 2)
    check(p * q, {"a": a, "p": p, "q": q}, fast=False)
    # Paddle 3: the leaves' accumulation nodes
    from gradrepl.paddle import state

    state.reset("3")
    x, y = chain(paddle, 6)
    check(y, {"x": x, "y": y}, fast=False)


def test_transforms_take_the_general_path():
    paddle = _paddle()
    x, y = chain(paddle, 12)
    for opts in ({"depth": 3}, {"to": "x"}, {"collapse": True}, {"chain": True}):
        assert viz.graph(y, namespace={"x": x, "y": y}, **opts)._flat is None


def test_vgg_like_layers():
    """A small vgg-like network: plain (fast) and --layers 1 and 2 (general) pictures."""
    paddle = _paddle()
    from gradrepl.engine import Recorder

    model = vgg_like_model(paddle)
    rec = Recorder()
    with rec:
        x = paddle.rand([1, 3, 8, 8])
        predicts = model(x)
        loss = paddle.nn.functional.mse_loss(predicts, paddle.ones([1, 5]))
        # cross_entropy's op has two outputs (softmax, loss): the general path draws it
        ce = paddle.nn.functional.cross_entropy(predicts, paddle.to_tensor([2]))
    ns = {"model": model, "x": x, "loss": loss, "ce": ce}
    check(loss, ns, rec, styles=STYLES[:2])
    check(ce, ns, rec, fast=False, styles=STYLES[:1])
    for layers in (1, 2):
        for view in VIEWS:
            pic = viz.graph(loss, view=view, namespace=ns, recorder=rec, layers=layers)
            assert pic._flat is None
            from gradrepl.viz import transform

            g = transform.layers(M.build(loss, namespace=ns, recorder=rec), layers)
            assert pic.dot() == D.to_dot(g, view=view)


def test_picture_is_taken_when_made():
    """The DOT shows the graph as it stood when the picture was made."""
    paddle = _paddle()
    x, y = chain(paddle, 4)
    pic = viz.graph(y, namespace={"x": x, "y": y})
    before = pic.dot()
    y.backward()
    assert pic.dot() == before and "(freed)" not in before
