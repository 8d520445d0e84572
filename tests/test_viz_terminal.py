"""The terminal picture (gradrepl.viz.terminal): one line per node, DAG-aware, plain or coloured."""
from __future__ import annotations

import cProfile
import io
import pstats
import random
import re

import pytest

import gradrepl.paddle as paddle
from gradrepl.engine.provenance import Recorder
from gradrepl.paddle import state
from gradrepl.viz import model
from gradrepl.viz.terminal import engine_order, gutter, print_graph, render_text

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def text(g, view="both", **kw):
    kw.setdefault("color", False)
    kw.setdefault("unicode", True)
    return render_text(g, view=view, **kw)


def example_two(profile="2.2", backward=False, recorder=None):
    """The guide's example two, names as a script's globals would give them."""
    state.reset(profile)
    rec = recorder or Recorder()
    ns = {}
    with rec:
        for stmt in ("a = paddle.to_tensor(2.0, stop_gradient=False)",
                     "b = paddle.to_tensor(5.0, stop_gradient=False)",
                     "c = a * b",
                     "d = paddle.to_tensor(4.0, stop_gradient=False)",
                     "e = c * d"):
            rec.statement(stmt)
            exec(stmt, {"paddle": paddle}, ns)
    if backward:
        ns["e"].backward()
    return model.build(ns["e"], namespace=ns, recorder=rec), ns


def line_of(out, start):
    """The one line whose text (after the gutter) starts with ``start``."""
    found = [ln for ln in out.splitlines() if re.sub(r"^[^A-Za-z_]*", "", ln).startswith(start)]
    assert len(found) == 1, (start, found, out)
    return found[0]


# ---------------------------------------------------------------------------- example two
def test_example_two_before_backward():
    g, _ = example_two()
    out = text(g)
    fwd, bwd = out.split("\nbackward")
    # every tensor once, with its value, leaf flag and grad_var
    for name, value in (("a", "2."), ("b", "5."), ("c", "10."), ("d", "4."), ("e", "40.")):
        ln = line_of(fwd, f"{name}  float32[1] = {value}  (")
        assert f"grad_var={name}_grad" in ln
    assert "(leaf, grad_var=a_grad)" in line_of(fwd, "a  ")
    assert "leaf" not in line_of(fwd, "c  ")
    # the forward ops with their statements and inputs -> outputs
    assert "Mul  c = a * b  [a, b -> c]" in out
    assert "Mul  e = c * d  [c, d -> e]" in out
    # inputs first: a, b before their Mul, c after it
    order = [re.sub(r"^[^A-Za-z_]*", "", ln).split()[0] for ln in fwd.splitlines()[1:]
             if re.search(r"[A-Za-z]", ln)]
    assert order == ["a", "b", "Mul", "c", "d", "Mul", "e"]
    # no gradients yet
    for name in ("a", "b", "c", "d", "e"):
        assert f"{name}_grad = None" in bwd
    assert "(released)" not in bwd


def test_example_two_after_backward():
    g, _ = example_two(backward=True)
    out = text(g)
    bwd = out.split("\nbackward")[1]
    for name, value in (("a", "20."), ("b", "8."), ("c", "4."), ("d", "10."), ("e", "1.")):
        assert f"{name}_grad = {value}  grad_op" in bwd
    # grad_op as the guide's records say it
    assert "c_grad = 4.  grad_op = MulBackward #1" in bwd
    assert "a_grad = 20.  grad_op = None" in bwd
    # the two MulBackward, numbered as the forward made them (no internal ids), the engine's
    # order (e's first), the grad_pending_ops relation
    ops = [ln for ln in bwd.splitlines() if "MulBackward #" in ln and "input =" in ln]
    assert len(ops) == 2 and "(b" not in bwd
    assert "MulBackward #2  input = c, d, e_grad  output = c_grad, d_grad  " \
           "grad_pending_ops = MulBackward #1  (released)" in ops[0]
    assert "MulBackward #1  input = a, b, c_grad  output = a_grad, b_grad  " \
           "grad_pending_ops = None  (released)" in ops[1]
    # each gradient listed once, under the op that wrote it
    assert bwd.count("a_grad = ") == 1 and bwd.count("c_grad = ") == 1
    lines = bwd.splitlines()
    assert lines.index(line_of(bwd, "c_grad = 4.")) > lines.index(ops[0])
    assert lines.index(line_of(bwd, "a_grad = 20.")) > lines.index(ops[1])


@pytest.mark.parametrize("profile", ["2.6", "3"])
def test_eager_profiles_name_grad_nodes(profile):
    g, _ = example_two(profile, backward=True)
    out = text(g, view="backward")
    assert "MulBackward" not in out
    assert "MultiplyGradNode #2  input = c, d, e_grad" in out
    assert "grad_pending_ops = MultiplyGradNode #1, GradNodeAccumulation #3" in out
    # the engine's FIFO order: b1, then what it released (b0, d's accumulation), then a, b
    assert engine_order(g) == ["b1", "b0", "b4", "b2", "b3"]
    assert "a_grad = 20." in out and "d_grad = 10." in out
    # eager Paddle keeps no non-leaf gradient: c_grad is the gradient that reached c, not c.grad
    assert "c_grad = (not recorded)  (the gradient reaching c; not kept: c.grad is None)" in out


def test_views():
    g, _ = example_two(backward=True)
    fwd = text(g, view="forward")
    bwd = text(g, view="backward")
    assert fwd.startswith("forward") and "MulBackward" not in fwd and "_grad =" not in fwd
    assert bwd.startswith("backward") and "float32[1] = 2." not in bwd
    assert text(g) == fwd + "\n" + bwd
    with pytest.raises(ValueError):
        render_text(g, view="sideways")


def test_deterministic():
    g1, _ = example_two(backward=True)
    g2, _ = example_two(backward=True)
    assert text(g1) == text(g2) == text(g1)


# ---------------------------------------------------------------------------- DAG shapes
def test_diamond_lists_x_once():
    state.reset("2.2")
    x = paddle.to_tensor(3.0, stop_gradient=False)
    y = x * x + x
    out = text(model.build(y, namespace={"x": x, "y": y}), view="forward")
    assert len([ln for ln in out.splitlines() if re.match(r"^[│├┘┐● ]*x  float32", ln)]) == 1
    assert "Mul  x, x -> tmp_" in out
    assert re.search(r"Add  tmp_\d+, x -> y", out)
    # x forks to two consumers, then the two lanes merge into Add
    assert "├─┐" in out and "├─┘" in out
    y.backward()
    bwd = text(model.build(y, namespace={"x": x, "y": y}), view="backward")
    assert bwd.count("x_grad = ") == 1 and "x_grad = 7." in bwd  # 2x + 1


def test_shared_input_and_stop_gradient():
    state.reset("2.2")
    x = paddle.to_tensor(1.0, stop_gradient=False)
    z = paddle.to_tensor(3.0)
    a = x * z
    b = z + a
    out = text(model.build(b, namespace={"x": x, "z": z, "a": a, "b": b}))
    assert "z  float32[1] = 3.  (leaf, stop_gradient)" in out
    assert out.count("z  float32") == 1
    assert "output = x_grad, None" in out  # no gradient variable for z
    assert "z_grad" not in out


def test_multi_output_op():
    state.reset("2.2")
    w = paddle.to_tensor([1.0, 2.0, 3.0, 4.0, 5.0], stop_gradient=False)
    u, v = paddle.split(w, [2, 3])
    s = u.sum() * v.sum()
    out = text(model.build(s, namespace={"w": w, "u": u, "v": v, "s": s}))
    assert "Split  w -> u, v" in out
    assert out.count("u  float32[2]") == 1 and out.count("v  float32[3]") == 1


def _gutter_part(line):
    m = re.match(r"^[│├┤┼┘└┐┌─┴┬● ]*", line)
    return m.group(0)


_CONN = {"│": "NS", "├": "NSE", "┤": "NSW", "┼": "NSEW", "┘": "NW", "└": "NE", "┐": "SW",
         "┌": "SE", "─": "EW", "┴": "NEW", "┬": "SEW", " ": "", "●": "*"}


def _rows_to_lines(rows):
    lines = []
    for conn, prefix, below in rows:
        if conn:
            lines.append(conn)
        lines.append(prefix)
        lines.append(below)
    return lines


def _check_gutter(lines):
    """Lines join up: what leaves a cell downwards enters the cell below, and sideways too."""
    for ln in lines:
        cells = ln[0::2]
        for j, c in enumerate(cells):
            e = "E" in _CONN[c]
            nxt = cells[j + 1] if j + 1 < len(cells) else " "
            gap = ln[2 * j + 1] if 2 * j + 1 < len(ln) else " "
            assert e == ("W" in _CONN[nxt]), ln
            assert (gap == "─") == e, ln
    for up, down in zip(lines, lines[1:]):
        for j in range(0, max(len(up), len(down)), 2):
            cu = up[j] if j < len(up) else " "
            cd = down[j] if j < len(down) else " "
            if "*" in (_CONN[cu], _CONN[cd]):
                continue
            assert ("S" in _CONN[cu]) == ("N" in _CONN[cd]), (up, down)


@pytest.mark.parametrize("seed", range(30))
def test_gutter_lines_join_up_on_random_dags(seed):
    rnd = random.Random(seed)
    n = rnd.randint(2, 25)
    order = [f"n{i}" for i in range(n)]
    succ = {m: sorted(rnd.sample(order[i + 1:], min(len(order) - i - 1, rnd.randint(0, 3))))
            for i, m in enumerate(order)}
    rows = gutter(order, succ, uni=True)
    assert len(rows) == n
    lines = _rows_to_lines(rows)
    assert sum(ln.count("●") for ln in lines) == n
    _check_gutter(lines)


def test_gutter_on_model_graphs():
    state.reset("3")
    x = paddle.to_tensor(1.0, stop_gradient=False)
    y = paddle.to_tensor(2.0, stop_gradient=False)
    z = paddle.to_tensor(3.0)
    d = (x * y + x) * (y * z) * z
    out = text(model.build(d, namespace={"x": x, "y": y, "z": z, "d": d}))
    fwd, bwd = out.split("\n\n")
    for section in (fwd, bwd):
        lines = [_gutter_part(ln) for ln in section.splitlines()[1:]]
        assert all(ln.count("●") <= 1 for ln in lines)
        _check_gutter([ln for ln in lines if ln.strip()])
    assert sum(ln.startswith("●") or " ●" in _gutter_part(ln) for ln in fwd.splitlines()) \
        == 3 + 5 + 5  # leaves x, y, z; five ops and their five outputs


# ---------------------------------------------------------------------------- details
def test_order_released_and_chain_lines():
    g, _ = example_two(backward=True)
    g.backward_ops[0].order = 1
    g.backward_ops[0].chain = ["a_grad = c_grad * b = 4. * 5. = 20."]
    out = text(g, view="backward")
    assert "(order 1)" in line_of(out, "MulBackward #1")
    assert "(order" not in line_of(out, "MulBackward #2")
    chain = line_of(out, "a_grad = c_grad * b")
    lines = out.splitlines()
    assert lines.index(chain) > lines.index(line_of(out, "MulBackward #1"))


def test_step_frame():
    g, _ = example_two()
    b0, b1 = g.backward_ops
    b1.state, b1.deps = "running", 0
    b0.state, b0.deps = None, 1
    g.step = {"index": 3, "total": 9, "event": "MulBackward #2 ran: it sent c_grad = 4.",
              "ready": ["b0"]}
    out = text(g, view="backward")
    assert "step 3 of 9: MulBackward #2 ran: it sent c_grad = 4." in out
    assert "ready queue: MulBackward #1" in out
    run = line_of(out, "MulBackward #2")
    assert run.startswith("▶") and "deps=0" in run and "[running]" in run
    assert "deps=1" in line_of(out, "MulBackward #1")
    assert line_of(text(g, view="backward", unicode=False), "MulBackward #2").startswith(">")
    # in colour the running op stands out (reverse video)
    col = render_text(g, view="backward", color=True)
    assert "\x1b[1;7;33mMulBackward #2" in col
    g.step["ready"] = []   # an empty queue says so (never "None")
    assert "ready queue: (empty)" in text(g, view="backward")
    g.step = None
    b1.state = b0.state = None
    assert "step" not in text(g, view="backward")


def test_width_crops_lines():
    g, _ = example_two(backward=True)
    out = text(g, width=40)
    assert max(len(ln) for ln in out.splitlines()) <= 40
    assert "…" in out


# ---------------------------------------------------------------------------- colour
def test_plain_has_no_escape_codes():
    g, _ = example_two(backward=True)
    assert "\x1b" not in render_text(g, color=False)
    col = render_text(g, color=True, unicode=True)
    assert "\x1b[" in col
    assert ANSI.sub("", col) == text(g)


class _FakeTTY(io.StringIO):
    def __init__(self, tty, encoding="utf-8"):
        super().__init__()
        self._tty, self._enc = tty, encoding

    def isatty(self):
        return self._tty

    @property
    def encoding(self):
        return self._enc


def test_auto_color_follows_stdout_and_no_color(monkeypatch):
    g, _ = example_two()
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")   # (TERM=dumb, as some CI runners and chroots set it, is plain)
    monkeypatch.setattr("sys.stdout", _FakeTTY(True))
    assert "\x1b[" in render_text(g)
    monkeypatch.setenv("TERM", "dumb")
    assert "\x1b" not in render_text(g)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b" not in render_text(g)
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setattr("sys.stdout", _FakeTTY(False))  # a pipe
    assert "\x1b" not in render_text(g)


def test_ascii_fallback(monkeypatch):
    state.reset("2.2")
    x = paddle.to_tensor(3.0, stop_gradient=False)
    y = x * x + x
    g = model.build(y, namespace={"x": x, "y": y})
    monkeypatch.setattr("sys.stdout", _FakeTTY(False, encoding="ascii"))
    out = render_text(g)
    out.encode("ascii")  # nothing outside ASCII
    assert "+-+" in out and "*  x  float32" in out


def test_print_graph():
    g, _ = example_two(backward=True)
    buf = _FakeTTY(False)
    print_graph(g, "both", file=buf)
    assert buf.getvalue() == text(g)
    buf = _FakeTTY(False, encoding="latin-1")
    print_graph(g, "forward", file=buf)
    buf.getvalue().encode("ascii")


# ---------------------------------------------------------------------------- size
def _chain_graph(n):
    state.reset("2.2")
    x = paddle.to_tensor(1.0, stop_gradient=False)
    for _ in range(n):
        x = x * 1.01
    x.backward(retain_graph=True)
    return model.build(x, namespace={"x": x})


def _render_calls(g, color):
    """(output, Python function calls made by render_text): a count, not a time (no timed
    asserts: under qemu-user on aarch64 the 1 s this test once allowed took 8 s)."""
    prof = cProfile.Profile()
    out = prof.runcall(render_text, g, color=color, unicode=True)
    return out, pstats.Stats(prof).total_calls


def test_long_chain_renders_fast():
    g1000, g = _chain_graph(1000), _chain_graph(2000)
    for color in (False, True):
        _, calls1000 = _render_calls(g1000, color)
        out, calls = _render_calls(g, color)
        # linear in the chain's length (measured 2.00 plain, 1.94 coloured; quadratic would be 4)
        assert calls < 2.2 * calls1000
    plain = ANSI.sub("", out)
    assert plain.count("Backward") >= 2000
    # a chain needs one lane only
    assert "├" not in plain and "┐" not in plain
