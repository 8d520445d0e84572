"""From the picture to the code (issue 22): each step frame names the engine functions of
gradrepl/engine/backward.py that made it, with their lines; the step player shows them in a
folded panel, `%step --code` in one line per frame. The browser test needs Debian's chromium and
skips without it."""
from __future__ import annotations

import html
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradrepl.engine import backward as bw
from gradrepl.repl.session import Session
from gradrepl.viz.player import code_summary, player_fragment, player_html
from gradrepl.viz.steps import BackwardLog, code_line, frames

from test_viz_player import _chromium, _run_chromium, _stage, _text

SEEDS = Path(__file__).resolve().parent.parent / "examples" / "seeds"
ENGINE = "gradrepl/engine/backward.py"

EXAMPLE_TWO = ["import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
               "b = paddle.to_tensor(5.0, stop_gradient=False)", "c = a * b",
               "d = paddle.to_tensor(4.0, stop_gradient=False)", "e = c * d"]

# example two's frames: which engine functions made each, and how its sentence starts
EXPECTED = [
    ([], "Before backward"),
    (["count_dependencies"], "Before anything runs, each backward op counts"),
    (["seed_roots"], "The backward starts at e: e_grad = 1."),
    (["run_node", "send_gradients", "release"], "MulBackward #2 ran: it sent c_grad"),
    (["run_node", "send_gradients", "release"], "MulBackward #1 ran: it sent a_grad"),
    (["accumulate_into_leaf"], "d's gradient is stored: d.grad = 10."),
    (["accumulate_into_leaf"], "a's gradient is stored: a.grad = 20."),
    (["accumulate_into_leaf"], "b's gradient is stored: b.grad = 8."),
]


def _span(fn):
    lines, first = inspect.getsourcelines(fn)
    return first, first + len(lines) - 1, [x.rstrip("\n") for x in lines]


@pytest.fixture(scope="module")
def example_two():
    """The frames of example two, as `gradrepl graph --steps` and `%step` make them."""
    import gradrepl.paddle as paddle
    from gradrepl.viz import model

    log = BackwardLog()
    old, bw.TRACE_SINK = bw.TRACE_SINK, log
    try:
        a = paddle.to_tensor(2.0, stop_gradient=False)
        b = paddle.to_tensor(5.0, stop_gradient=False)
        c = a * b
        d = paddle.to_tensor(4.0, stop_gradient=False)
        e = c * d
        g = model.build(e, namespace={"a": a, "b": b, "c": c, "d": d, "e": e})
        e.backward()
    finally:
        bw.TRACE_SINK = old
    return frames(g, log.runs[-1])


def test_example_two_frames_name_the_engine_functions_in_order(example_two):
    got = [([c["name"] for c in f.step["code"]], f.step["event"]) for f in example_two]
    assert [names for names, _s in got] == [names for names, _s in EXPECTED]
    for (_n, sentence), (_e, start) in zip(got, EXPECTED):
        assert sentence.startswith(start), sentence


def test_line_numbers_and_source_are_the_functions_own(example_two):
    seen = set()
    for f in example_two:
        for c in f.step["code"]:
            first, last, lines = _span(getattr(bw, c["name"]))
            assert (c["file"], c["first"], c["last"]) == (ENGINE, first, last), c["name"]
            assert list(c["lines"]) == lines
            assert c["lines"][0].startswith(f"def {c['name']}(")
            # the lines marked are those that emit the step's events
            for m in c["marks"]:
                assert re.search(r"\bemit\(ev\.\w+\(", lines[m - first]), (c["name"], m)
            seen.add(c["name"])
    assert seen == {"count_dependencies", "seed_roots", "run_node", "send_gradients", "release",
                    "accumulate_into_leaf"}


def test_a_step_lists_what_phase_source_says_of_its_events():
    """A retained graph: the backward ops do not release, so their steps are run_node and
    send_gradients only; a root's Ready is seed_roots', a leaf's .grad accumulate_into_leaf's."""
    import gradrepl.paddle as paddle
    from gradrepl.viz import model

    log = BackwardLog()
    old, bw.TRACE_SINK = bw.TRACE_SINK, log
    try:
        x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        y = (x * x).sum()
        g = model.build(y, namespace={"x": x, "y": y})
        y.backward(retain_graph=True)
    finally:
        bw.TRACE_SINK = old
    run = log.runs[-1]
    fs = frames(g, run)
    evs = [e for e, _v in run.events]
    for f in fs[1:]:
        start, end = f.step["events"]
        want = []
        for i in range(start, end):
            name = bw.phase_source(evs[i], evs[i - 1] if i else None,
                                   evs[i + 1] if i + 1 < len(evs) else None)[0]
            if name not in want:
                want.append(name)
        assert [c["name"] for c in f.step["code"]] == want
    assert [[c["name"] for c in f.step["code"]] for f in fs] == [
        [], ["count_dependencies"], ["seed_roots"], ["run_node", "send_gradients"],
        ["run_node", "send_gradients"], ["accumulate_into_leaf"]]


def test_marks_are_the_lines_that_emitted_the_steps_events(example_two):
    def emitting(fn, kind):
        first, _last, lines = _span(fn)
        return [first + j for j, line in enumerate(lines) if f"emit(ev.{kind}(" in line]

    marks = [[(c["name"], c["marks"]) for c in f.step["code"]] for f in example_two]
    assert marks[1] == [("count_dependencies", emitting(bw.count_dependencies, "DepsCounted"))]
    assert marks[2] == [("seed_roots", emitting(bw.seed_roots, "Seeded")
                         + emitting(bw.seed_roots, "Ready"))]
    assert marks[3] == marks[4] == [
        ("run_node", emitting(bw.run_node, "Run")),
        ("send_gradients", sorted(emitting(bw.send_gradients, "Accumulate")
                                  + emitting(bw.send_gradients, "DepDec")
                                  + emitting(bw.send_gradients, "Ready"))),
        ("release", emitting(bw.release, "Released"))]
    assert marks[5] == [("accumulate_into_leaf", emitting(bw.accumulate_into_leaf, "Accumulate"))]
    assert all(len(m) == 1 for _n, m in marks[1] + marks[5] + marks[3][::2])


def test_code_line_for_the_shell(example_two):
    f = example_two[3]
    r, s_, rel = _span(bw.run_node), _span(bw.send_gradients), _span(bw.release)
    assert code_line(f.step) == (
        f"engine: run_node ({ENGINE}:{r[0]}-{r[1]}), send_gradients ({ENGINE}:{s_[0]}-{s_[1]}), "
        f"release ({ENGINE}:{rel[0]}-{rel[1]})")
    assert code_line(example_two[0].step) == "engine: (nothing ran yet)"


def test_shell_step_code_prints_the_functions_after_each_frame():
    s = Session()
    for line in EXAMPLE_TWO:
        assert s.run(line).output == ""
    res = s.run("%step e --code")
    assert len(res.frames) == 8
    engine_lines = [ln for ln in res.output.splitlines() if ln.startswith("engine: ")]
    assert len(engine_lines) == 8
    for frame_text, line, (names, start) in zip(res.frames, engine_lines, EXPECTED):
        assert frame_text.rstrip("\n").endswith(line)     # after the frame, its engine line
        assert start in frame_text
        named = re.findall(r"(\w+) \(" + re.escape(ENGINE) + r":(\d+)-(\d+)\)", line)
        assert [n for n, _a, _b in named] == names
        for n, a, b in named:
            first, last, _l = _span(getattr(bw, n))
            assert (int(a), int(b)) == (first, last)
    # the source itself is not printed, only where it is
    assert "def run_node(" not in res.output
    # without --code, no engine line
    s2 = Session()
    for line in EXAMPLE_TWO:
        s2.run(line)
    assert "engine: " not in s2.run("%step e").output


def _items(frames_):
    """Player frames as gradrepl graph --steps makes them, with a stand-in picture."""
    svg = '<svg width="10pt" height="10pt" xmlns="http://www.w3.org/2000/svg"><g/></svg>'
    return [{"svg": svg, "title": f.step["event"], "code": f.step["code"]} for f in frames_]


def test_player_page_has_the_folded_panel_with_escaped_numbered_source(example_two):
    page = player_html(_items(example_two))
    m = re.search(r'<details id="code" class="code"( hidden)?>(.*?)</details>', page, re.S)
    assert m, "no code panel"
    assert m.group(1) == " hidden"      # frame 1 (before backward) has no code
    assert "<details id=\"code\" class=\"code\" open" not in page   # folded by default
    # one template per distinct set of functions: count, seed, a backward op, a leaf
    sets = re.findall(r'<template class="code-set" id="code-set-(\d)" data-summary="([^"]*)">'
                      r'(.*?)</template>', page, re.S)
    assert [k for k, _s, _b in sets] == ["0", "1", "2", "3"]
    assert re.findall(r'<template class="frame"[^>]*?(?: data-code="(\d)")?>', page) == [
        "", "0", "1", "2", "2", "3", "3", "3"]
    r, s_, rel = _span(bw.run_node), _span(bw.send_gradients), _span(bw.release)
    summary, body = sets[2][1], sets[2][2]
    assert html.unescape(summary) == (
        f"engine code: run_node, send_gradients, release (backward.py lines "
        f"{r[0]}-{r[1]}, {s_[0]}-{s_[1]}, {rel[0]}-{rel[1]})")
    assert code_summary(example_two[3].step["code"]) == html.unescape(summary)
    # the source, escaped, each line after its number, the emitting lines highlighted
    emitting = re.findall(r'<span class="ln">\s*(\d+)  </span><span class="emit">', body)
    assert [int(n) for n in emitting] == [
        first + j for first, _l, lines in (r, s_, rel) for j, line in enumerate(lines)
        if re.search(r"emit\(ev\.(Run|Accumulate|DepDec|Ready|Released)\(", line)]
    assert len(emitting) == 5     # Run; Accumulate, DepDec, Ready; Released
    text = re.sub(r'<span class="(?:ln|emit)">(.*?)</span>', r"\1", body)
    assert "<" not in text        # nothing but those spans is markup
    rows = html.unescape(text).split("\n")
    for first, _last, lines in (r, s_, rel):
        for j, line in enumerate(lines):
            assert f"{first + j:>3}  {line}" in rows
    assert "i = j &gt;&gt; 1" in body and "&quot;&quot;&quot;Phase 3:" in body


def test_panel_text_is_escaped_and_absent_without_code():
    svg = '<svg width="10pt" height="10pt" xmlns="http://www.w3.org/2000/svg"><g/></svg>'
    hostile = [{"name": "f</summary><script>x()</script>", "file": "a/<b>.py", "first": 7,
                "lines": ["def f():", "    return '</pre><script>alert(1)</script>' & 1"],
                "marks": [8]}]
    page = player_html([{"svg": svg, "title": "t", "code": hostile}])
    assert page.count("<script>") == 1       # the player's own
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<details id=\"code\" class=\"code\">" in page   # frame 1 has code: not hidden
    assert "7  </span>def f():" in page
    assert '8  </span><span class="emit">    return &#x27;&lt;/pre&gt;' in page
    assert html.unescape(re.search(r'<summary id="code-summary">(.*?)</summary>', page).group(1)
                         ) == "engine code: f</summary><script>x()</script> (<b>.py lines 7-8)"
    plain = player_html([{"svg": svg, "title": "t"}])
    assert '<template class="code-set"' not in plain and "<details" not in plain


def test_fragments_keep_the_panel_scoped(example_two):
    items = _items(example_two)
    one, two = player_fragment(items, scope="pa-"), player_fragment(items, scope="pb-")
    for p, frag in (("pa-", one), ("pb-", two)):
        for el in ("code", "code-summary", "code-src", "code-set-0", "code-set-3"):
            assert f'id="{p}{el}"' in frag
        assert f"#{p}root #{p}code-src" in frag          # CSS scoped under the root
        assert 'id="code' not in frag                       # no unscoped id
        assert "location.search" in frag and f'("{p}", false)' in frag
    assert not set(re.findall(r'id="([^"]+)"', one)) & set(re.findall(r'id="([^"]+)"', two))


# --- gradrepl graph --steps, and the page in a real browser --------------------------------------

@pytest.fixture(scope="module")
def steps_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("code") / "steps"
    r = subprocess.run([sys.executable, "-m", "gradrepl", "graph",
                        str(SEEDS / "s000_example_two.py"), "-t", "e", "--steps", str(out)],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    return out / "index.html"


def test_graph_steps_writes_the_code_panels(steps_page):
    page = steps_page.read_text(encoding="utf-8")
    assert '<details id="code" class="code" hidden>' in page
    assert page.count('<template class="code-set"') == 4
    seed = _span(bw.seed_roots)
    assert (f'data-summary="engine code: seed_roots (backward.py lines {seed[0]}-{seed[1]})"'
            in page)
    assert "def accumulate_into_leaf(state, node, buf):" in page
    # still self-contained
    assert not re.search(r"<(script|link|img|iframe)\b[^>]*\b(src|href)=", page)


def test_browser_steps_twice_opens_the_panel_and_reads_the_function(steps_page, tmp_path):
    chromium = _chromium()
    dom = _run_chromium(chromium, tmp_path, steps_page.as_uri() + "?autotest=1", "--dump-dom")
    seen = json.loads(_text(dom, "selftest"))
    steps = dict((k, st) for k, st in seen["steps"] if k == "open code")
    assert steps, seen["steps"]
    st = steps["open code"]
    seed = _span(bw.seed_roots)
    assert (st["frame"], st["counter"]) == ("3", "step 2 of 7")   # load, Next, ArrowRight
    assert st["codeOpen"] is True and st["codeVisible"] is True
    assert st["code"] == f"engine code: seed_roots (backward.py lines {seed[0]}-{seed[1]})"
    assert f"{seed[0]}  def seed_roots(state, seeds):" in st["codeText"]
    assert "def run_node(" not in st["codeText"]
    after = seen["steps"][[k for k, _s in seen["steps"]].index("open code") + 1][1]
    assert after["frame"] == "4" and after["codeOpen"] is True   # stays open while stepping
    assert after["code"].startswith("engine code: run_node, send_gradients, release")
    # before any step the panel is hidden; the other self-test steps saw it folded
    assert seen["steps"][0][1]["code"] is None and seen["steps"][0][1]["codeOpen"] is False
    # ?code=1 opens it at load, on the frame of the hash
    dom = _run_chromium(chromium, tmp_path, steps_page.as_uri() + "?code=1#frame=4",
                        "--dump-dom")
    frame, _stage_html = _stage(dom)
    assert frame == 4
    m = re.search(r'<details id="code" class="code"( open="")?>\s*<summary id="code-summary">'
                  r"(.*?)</summary>", dom, re.S)
    assert m and m.group(1) and html.unescape(m.group(2)).startswith(
        "engine code: run_node, send_gradients, release")
    assert "def send_gradients(state, node, in_grads" in dom
    png = tmp_path / "code.png"
    _run_chromium(chromium, tmp_path, steps_page.as_uri() + "?code=1#frame=4",
                  f"--screenshot={png}", "--window-size=1300,1000")
    assert png.stat().st_size > 30_000
