"""The teaching handout (``gradrepl replay FILE --html OUT.html``, gradrepl/repl/handout.py):
the page's content, its pictures, that taking pictures changes no output, and the page in a
real headless Chromium (skipped where Debian's chromium is not installed)."""
from __future__ import annotations

import io
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import textwrap

import pytest

from gradrepl.repl.replay_cli import replay_command

ROOT = pathlib.Path(__file__).resolve().parent.parent
SESSIONS = ROOT / "sessions"
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"

LESSON = textwrap.dedent("""\
    # Example two: watch the gradients fill in.
    # Second line of the `intro`.
    >>> import paddle
    >>> a = paddle.to_tensor(2.0, stop_gradient=False)
    >>> b = paddle.to_tensor(5.0, stop_gradient=False)
    >>> c = a * b
    >>> d = paddle.to_tensor(4.0, stop_gradient=False)
    >>> e = c * d

    # After backward <the gradients> & the released ops.
    >>> e.backward()
    >>> print(a.grad.numpy())
    [20.]
    >>> %graph e --view backward
    ...
    >>> e.backward()
    Traceback (most recent call last):
    ...
""")


def _handout(tmp_path, text=LESSON, name="lesson.pycon", **kw):
    src = tmp_path / name
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out.html"
    o, e = io.StringIO(), io.StringIO()
    rc = replay_command([str(src)], html=str(out), out=o, err=e, **kw)
    return rc, out, o.getvalue(), e.getvalue()


def _figures(page):
    return re.findall(r'<figure class="pic" id="fig(\d+)">(.*?)</figure>', page, re.S)


def _captions(page):
    return re.findall(r'<figcaption>(.*?)<a class="zoom in" href="#fig\d+">full size</a>'
                      r'<a class="zoom out" href="#f1-L\d+">fit</a></figcaption>', page)


def test_handout_page(tmp_path):
    rc, out, o, e = _handout(tmp_path)
    assert rc == 0, e
    assert o == "" and e == f"wrote {out}\n"
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<title>lesson</title>" in page and "Paddle 2.2 profile" in page
    # comments as prose (escaped, `code` marked), inputs highlighted, outputs preformatted
    assert ("<p>Example two: watch the gradients fill in. Second line of the "
            "<code>intro</code>.</p>") in page
    assert "After backward &lt;the gradients&gt; &amp; the released ops." in page
    assert '<span class="gp">&gt;&gt;&gt; </span>' in page
    assert '<span class="magic">%graph</span> e --view backward' in page
    assert '<pre class="out">[20.]</pre>' in page
    assert '<pre class="out err">Traceback (most recent call last):' in page
    # pictures: c (made), e (made), e after backward (changed), and %graph's
    figs = _figures(page)
    captions = _captions(page)
    assert captions == [
        "Figure 1. c: forward and backward graphs, made by this input",
        "Figure 2. e: forward and backward graphs, made by this input",
        "Figure 3. e: forward and backward graphs, changed by this input",
        "Figure 4. e: backward graph, as %graph e --view backward drew it",
    ]
    for k, body in figs:
        assert body.startswith("<svg") and "</svg>" in body and "<?xml" not in body
        assert "viewBox=" in body
    # each picture sits under its input
    cells = re.findall(r'<div class="cell" id="f1-L(\d+)">(.*?)</div>\n', page, re.S)
    with_pics = [line for line, body in cells if "<figure" in body]
    assert with_pics == ["6", "8", "11", "14"]
    # the picture after backward shows the gradients (a_grad = 20) and released ops
    assert "20." in figs[2][1] and "released" in figs[2][1]
    # self-contained: no script, no external resource, no URL but the SVG namespaces
    assert "<script" not in page
    assert not re.search(r"<(link|img|iframe)\b", page)
    assert set(re.findall(r"https?://[^\s\"'<>)]*", page)) <= {SVG_NS, XLINK_NS}
    # ids are unique across the pictures
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1][:5]


@pytest.mark.slow
def test_pictures_change_no_output_in_any_session(tmp_path):
    """Replaying every session with pictures taken still matches every expected output."""
    files = sorted(str(p) for p in SESSIONS.glob("*.pycon"))
    out = tmp_path / "all.html"
    o, e = io.StringIO(), io.StringIO()
    rc = replay_command(files, check=True, html=str(out), out=o, err=e)
    assert rc == 0, o.getvalue() + e.getvalue()
    page = out.read_text(encoding="utf-8")
    assert page.count('<section class="file">') == len(files)
    assert "<title>gradrepl handout</title>" in page
    assert len(_figures(page)) >= 20
    assert "Paddle 3 profile" in page


def test_a_picture_that_fails_to_render_becomes_a_note(tmp_path, monkeypatch):
    from gradrepl import viz

    def broken(self, prefer=None):
        raise RuntimeError("no Graphviz here\nsecond line")

    monkeypatch.setattr(viz.Picture, "svg", broken)
    rc, out, o, e = _handout(tmp_path)
    assert rc == 0, e
    page = out.read_text(encoding="utf-8")
    assert not _figures(page)
    assert '<div class="note">no picture of c: RuntimeError: no Graphviz here</div>' in page
    assert page.count("no picture of") == 4


def test_a_big_graph_is_drawn_backward_and_collapsed(tmp_path):
    text = textwrap.dedent("""\
        >>> import paddle
        >>> net = paddle.nn.Sequential(paddle.nn.Linear(2, 4), paddle.nn.Tanh(), paddle.nn.Linear(4, 4), paddle.nn.Tanh(), paddle.nn.Linear(4, 4), paddle.nn.Tanh(), paddle.nn.Linear(4, 1))
        >>> x = paddle.to_tensor([[1.0, 2.0]])
        >>> loss = (net(x) ** 2).mean() + (net(x * 2) ** 2).mean()
    """)
    rc, out, o, e = _handout(tmp_path, text)
    assert rc == 0, e
    captions = _captions(out.read_text(encoding="utf-8"))
    assert captions == ["Figure 1. loss: backward graph, each Layer call as one node, made by "
                        "this input"]


def test_no_handout_when_a_file_fails(tmp_path):
    rc, out, o, e = _handout(tmp_path, ">>> 1\n1\n\n# c\nprose\n")
    assert rc == 2 and not out.exists()
    assert "not written" in e


def test_step_input_gets_its_picture_and_outputs_fold(tmp_path):
    text = textwrap.dedent("""\
        >>> import paddle
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> y = (x * x).sum()
        >>> %step y
        ...
    """)
    rc, out, o, e = _handout(tmp_path, text)
    assert rc == 0, e
    page = out.read_text(encoding="utf-8")
    captions = _captions(page)
    assert captions[-1] == ("Figure 2. y: forward and backward graphs, after stepping through "
                            "its backward")
    assert re.search(r'<details class="fold steps"><summary>output \(\d+ lines\)</summary>',
                     page)   # (on paper: its sentences, tests/test_handout_print.py)


# --- in a real browser -----------------------------------------------------------------------

def _chromium():
    for cand in (shutil.which("chromium"), "/usr/bin/chromium"):
        if cand and os.access(cand, os.X_OK):
            return cand
    pytest.skip("Debian's chromium is not installed (apt-get install chromium): the headless "
                "browser test of the handout is skipped")


def _run_chromium(chromium, root, url, *extra):
    profile = root / f"profile{len(list(root.glob('profile*')))}"
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage",
           "--hide-scrollbars", f"--user-data-dir={profile}", "--virtual-time-budget=3000",
           *extra, url]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


@pytest.fixture(scope="module")
def browser_handout(tmp_path_factory):
    chromium = _chromium()
    root = tmp_path_factory.mktemp("handout")
    src = root / "lesson.pycon"
    src.write_text(LESSON, encoding="utf-8")
    out = root / "lesson.html"
    assert replay_command([str(src)], html=str(out), out=io.StringIO(),
                          err=io.StringIO()) == 0
    return chromium, root, out


@pytest.mark.slow
def test_browser_builds_the_page(browser_handout):
    chromium, root, out = browser_handout
    dom = _run_chromium(chromium, root, out.as_uri(), "--dump-dom")
    figs = re.findall(r'<figure class="pic" id="fig\d+">(.*?)</figure>', dom, re.S)
    assert len(figs) == 4, dom[:3000]
    for body in figs:  # the browser parsed each SVG into its figure
        assert body.lstrip().startswith("<svg") and "<figcaption>" in body
        assert re.search(r"<text\b", body)
    assert dom.count('<div class="cell"') == 10
    assert "Example two: watch the gradients fill in." in dom


@pytest.mark.slow
def test_browser_screenshot(browser_handout):
    chromium, root, out = browser_handout
    png = root / "shot.png"
    _run_chromium(chromium, root, out.as_uri(), "--window-size=1100,1600",
                  f"--screenshot={png}")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1100, 1600)
    # a blank page of this size is a few KB; text, code cells and pictures are far more
    assert len(data) > 60_000, len(data)


@pytest.mark.slow
def test_safe_handout_has_the_pictures_the_parent_drew(tmp_path):
    pytest.importorskip("gradrepl.repl.sandbox")
    from gradrepl.repl import kernel

    why = kernel.probe()        # e.g. aarch64 under qemu-user: no Landlock, no seccomp
    if why:
        print(why)
        pytest.skip(why)
    src = tmp_path / "lesson.pycon"
    src.write_text(LESSON, encoding="utf-8")
    out = tmp_path / "safe.html"
    env = dict(os.environ)
    env.pop("GRADREPL_PADDLE", None)
    r = subprocess.run([sys.executable, "-m", "gradrepl", "replay", "--safe", "--check",
                        str(src), "--html", str(out)], capture_output=True, text=True,
                       timeout=180, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    page = out.read_text(encoding="utf-8")
    # (the child sends each picture as data; the parent checks and draws it: safe_pictures)
    assert page.count('<figure class="pic"') == 4
    assert "Graphviz does not run inside the --safe sandbox" not in page
    assert '<pre class="out">[20.]</pre>' in page
