"""Nothing a session names gets into a picture or a page as markup (issue 20, "DOT and HTML
injection"), and no odd text crashes a writer.

Hostile names, statements, labels and outputs (a ``javascript:`` URL shaped as a Graphviz HTML
label, ``"]; x [URL=...``, a trailing backslash, ``<b>``, ``<a href=javascript:...>``,
``</script>``, lone surrogates, control bytes) go through ``to_dot``, both Graphviz renderers,
``gradrepl graph -o`` of every format, the step player, and the handout of the
``tests/data/escapes/6x_*.pycon`` sessions (``replay --html``, also in headless Chromium). Each
check asserts what must hold: the DOT parses, the SVG has only gradrepl's own nodes and no link,
script or event handler, the page has no script but the player's own, and the hostile text is
still there, shown as text.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gradrepl import viz
from gradrepl.viz import capture, render, sanitize
from gradrepl.viz.dot import HtmlLabel, esc, quote, to_dot
from gradrepl.viz.player import inline_svg, player_html

HERE = Path(__file__).resolve().parent
INJECTIONS = sorted(glob.glob(str(HERE / "data" / "escapes" / "6*.pycon")))

HOSTILE = [
    '"]; x [URL="javascript:alert(1)"',
    '<x> URL="javascript:alert(2)" target=<y>',
    "trail\\",
    "two\\\\",
    '\\"; y [URL="javascript:alert(3)"',
    "<b>bold</b>",
    "<a href=javascript:alert(4)>click</a>",
    "</script><script>alert(5)</script>",
    "sur\udc80rogate",
    "ctl\x1b[31m\x00\x07",
    "new\nline\r\ttab",
    "&amp; &lt;b&gt; &#106;",
    "node",
    "",
]


def _renderers():
    out = []
    if shutil.which("dot"):
        out.append("system")
    if render.pure_binary():
        out.append("pure")
    if not out:
        pytest.skip("no Graphviz layout program")
    return out


def _dot_errors(source: str, prefer: str) -> str:
    """Graphviz's complaints (stderr) about ``source``, which must lay out (exit 0)."""
    binary, _kind = render.find_dot(prefer)
    r = subprocess.run([binary, "-Tsvg"], input=source.encode("utf-8"), capture_output=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout, r.stderr.decode("utf-8", "replace")[-2000:]
    return r.stderr.decode("utf-8", "replace")


class _Markup(HTMLParser):
    """What a page or an SVG would run or follow: scripts, handlers, links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts = []
        self.handlers = []
        self.links = []
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "script":
            self.scripts.append(self.getpos())
        for k, v in attrs:
            if k.startswith("on"):
                self.handlers.append((tag, k, v))
            if k.split(":")[-1] in ("href", "src", "action", "formaction") and v is not None:
                self.links.append((tag, k, v))

    handle_startendtag = handle_starttag


def _markup(text: str) -> _Markup:
    p = _Markup()
    p.feed(text)
    p.close()
    return p


def _assert_inert(text: str, scripts: int = 0, where: str = "") -> _Markup:
    m = _markup(text)
    assert len(m.scripts) == scripts, (where, m.scripts)
    assert m.handlers == [], (where, m.handlers[:3])
    bad = [x for x in m.links if not re.match(r"(#|https?://)", x[2].strip(), re.I)]
    assert bad == [], (where, bad[:3])
    assert not {"foreignobject", "iframe", "object", "embed", "img"} & set(m.tags), where
    return m


# ============================================================================ quoting
def _dot_string_ok(q: str) -> bool:
    """``q`` is one DOT ID: a plain name/number, or one quoted string whose quotes inside are
    all escaped and which does not end in an escaped quote."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)", q):
        return True
    if len(q) < 2 or q[0] != '"' or q[-1] != '"':
        return False
    body = q[1:-1]
    i = 0
    while i < len(body):
        if body[i] == "\\":
            i += 2
            continue
        if body[i] == '"':
            return False
        i += 1
    return i == len(body)   # (a lone trailing backslash would have skipped past the end)


@pytest.mark.parametrize("s", HOSTILE, ids=range(len(HOSTILE)))
def test_text_is_always_one_quoted_dot_id(s):
    q = quote(s)
    assert _dot_string_ok(q), q
    assert not re.search("[\x00-\x1f\ud800-\udfff]", q)
    assert q.encode("utf-8")


def test_only_dot_py_html_labels_pass_unquoted():
    assert quote(HtmlLabel("<<b>a</b>>")) == "<<b>a</b>>"
    assert quote("<<b>a</b>>") == '"<<b>a</b>>"'       # the shape alone is not enough
    assert quote("<x> URL=<y>") == '"<x> URL=<y>"'
    assert quote("trail\\") == '"trail\\\\"'
    assert quote('a"b') == '"a\\"b"'
    assert quote("node") == '"node"' and quote("c") == "c"   # keywords quoted, names bare


@pytest.mark.parametrize("s", HOSTILE, ids=range(len(HOSTILE)))
def test_esc_leaves_no_markup_and_no_odd_character(s):
    e = esc(s)
    assert not re.search(r"[<>\"\x00-\x1f\ud800-\udfff]", e)
    assert not re.search(r"&(?!(amp|lt|gt|quot);)", e)


# ============================================================================ to_dot and SVG
def _hostile_picture():
    """A graph whose every user-given string is hostile: tensor names (namespace keys and
    ``.name``), the statements' labels (``grad_node.label``), the title; chain lines on."""
    import gradrepl.paddle as paddle
    from gradrepl.paddle import state

    state.reset("2.2")
    a = paddle.to_tensor(2.0, stop_gradient=False)
    ns = {}
    t = a
    for k, s in enumerate(HOSTILE[:-2]):
        t = t * 1.5 if k % 2 else t + a
        t.grad_node.label = s
        ns[f"{s}{k}"] = t
    t.name = HOSTILE[0]
    t.backward(retain_graph=True)
    return viz.graph(t, namespace=ns, chain=True, title=" | ".join(HOSTILE)), t


def test_hostile_picture_dot_parses_and_draws_only_our_nodes():
    pic, _t = _hostile_picture()
    dot = pic.dot()
    g = pic.model
    n_nodes = len(g.tensors) + len(g.ops) + len(g.grad_vars) + len(g.backward_ops)
    for prefer in _renderers():
        errors = _dot_errors(dot, prefer)
        assert "syntax error" not in errors.lower(), errors
        svg = render.svg(dot, prefer)
        titles = re.findall(r'<g id="node\d+" class="node">\s*<title>([^<]*)</title>', svg)
        assert len(titles) == n_nodes and all(re.fullmatch(r"[tfgb]\d+", x) for x in titles), \
            (prefer, titles[:5])
        assert "<a " not in svg and "<a>" not in svg and "URL" not in re.sub(
            r"<text[^>]*>.*?</text>", "", svg, flags=re.S), prefer
        _assert_inert(svg, where=prefer)
        # the hostile text is still there, as text: escaped by Graphviz in <text>
        texts = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
        assert "trail\\" in texts and "&lt;b&gt;bold&lt;/b&gt;" in texts, prefer
        assert "\\x1b[31m\\x00\\x07" in texts, prefer       # control bytes shown, not sent


def test_statement_labels_are_the_statements_own_source():
    src = ('s = """\n<x>"""; c = a * b  # > URL="javascript:alert(1)" a=<y>\n'
           'd = c + a  # \\\n'
           'for i in range(2): e = d * 2  # tail\n'
           'f = (a +\n     b)\n'
           f"g = a + {'1 + ' * 40}1\n")
    labels = capture.statement_labels(src)
    assert labels[1] == 's = """ <x>"""'
    assert labels[2] == "c = a * b"      # (the longer of the two statements on line 2)
    assert labels[3] == "d = c + a"
    assert labels[4] == "for i in range(2): e = d * 2"
    assert labels[5] == "f = (a + b)"
    assert len(labels[7]) == capture.LABEL_WIDTH and labels[7].endswith("...")


def test_shell_labels_ops_with_the_statements_own_source():
    from gradrepl.repl.session import Session

    s = Session()
    for src in ("import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
                's = """\n<x>"""; c = a * a  # > URL="javascript:alert(1)" a=<y>',
                "d = c + a  # \\", "e = d * 2.0; f = 1"):
        assert s.run(src).error is None, src
    g = viz.graph(s.namespace["e"], namespace=s.namespace, recorder=s.recorder).model
    assert [o.label for o in g.ops] == ["c = a * a", "d = c + a", "e = d * 2.0"]


# ============================================================================ the SVG backstop
SVG_CASES = [
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    '<svg><a href="&#106;avascript:alert(1)">x</a><a href=" java\tscript:x">q</a></svg>',
    '<svg><a href="data:text/html,<b>">x</a><a href="JAVASCRIPT:1">y</a></svg>',
    '<svg><script>alert(1)</script><svg:script>alert(2)</svg:script></svg>',
    '<svg><g onload="alert(1)" ONCLICK="x" fill="red"><rect onmouseover="y"/></g></svg>',
    '<svg><foreignObject><div onclick="x">hi</div></foreignObject><style>*{}</style></svg>',
    '<svg></svg><img src=x onerror=alert(1)><script>alert(2)</script>',
    '<svg><title><img src="x" onerror="alert(1)"/></title></svg>',
    '<svg><set attributeName="href" to="javascript:alert(1)"/><animate values="javascript:1"/>'
    '</svg>',
    '<svg><g style="fill:url(javascript:alert(1))"/><use href="http://x/y#a"/></svg>',
    '<svg><!--> <script>alert(1)</script> --><![CDATA[<script>alert(2)</script>]]></svg>',
    '<svg><g></text></g><text>a < b <script>alert(1)</script></text></svg>',
    '<svg><iframe src="javascript:alert(1)"></iframe><embed src="x"/><object data="x"/></svg>',
    '<svg><g xml:base="javascript:/"><a href="x">y</a></g></svg>',
]


@pytest.mark.parametrize("svg", SVG_CASES, ids=range(len(SVG_CASES)))
def test_sanitize_svg_keeps_no_script_handler_or_bad_link(svg):
    out = sanitize.svg(svg)
    _assert_inert(out, where=out)
    assert not re.search(r"(?i)\son\w+\s*=|<script|foreignobject|xml:base", out), out
    assert sanitize.svg(out) == out     # clean stays clean


def test_sanitize_svg_keeps_what_draws():
    svg = ('<svg width="10pt" height="10pt" xmlns="http://www.w3.org/2000/svg" '
           'xmlns:xlink="http://www.w3.org/1999/xlink"><!-- n1 --><g id="n1" class="node">'
           '<title>t0</title><polygon fill="url(#g)" points="0,0 1,1"/><text x="1">a &amp; b'
           '</text><a xlink:href="https://example.org/x" target="_top"><path d="M0 0"/></a>'
           '<use xlink:href="#n1"/></g></svg>')
    assert sanitize.svg(svg) == svg


def test_sanitize_leaves_every_picture_unchanged():
    pic, _t = _hostile_picture()
    for prefer in _renderers():
        doc = render.svg(pic.dot(), prefer)
        assert sanitize.svg(doc) == doc                   # the whole document, prolog and all
        svg = inline_svg(doc)                             # (inline_svg sanitizes)
        assert sanitize.svg(svg) == svg


def test_text_replaces_lone_surrogates_only():
    assert sanitize.text("a\udc80b\ud800") == "a\ufffdb\ufffd"
    assert sanitize.text("ok \U0001f600 \x1b") == "ok \U0001f600 \x1b"
    assert sanitize.one_line("a\nb\x1b\udc80") == "a b\\x1b\ufffd"


def test_player_page_of_hostile_frames_is_inert():
    evil = ('<svg width="10pt" height="10pt"><a xlink:href="javascript:alert(1)"><text>x</text>'
            '</a><script>alert(2)</script><g onclick="alert(3)"/></svg>')
    page = player_html([{"svg": evil, "title": HOSTILE[7], "description": HOSTILE[8]},
                        {"svg": evil, "title": HOSTILE[0]}], title=HOSTILE[6])
    _assert_inert(page, scripts=1)
    assert page.encode("utf-8")
    assert "&lt;/script&gt;&lt;script&gt;alert(5)&lt;/script&gt;" in page


# ============================================================================ the CLI
HOSTILE_SCRIPT = '''import paddle
a = paddle.to_tensor(2.0, stop_gradient=False)
b = paddle.to_tensor(3.0, stop_gradient=False)
s = """
<x>"""; c = a * b  # > URL="javascript:alert(1)" a=<y>
d = c + a  # \\
globals()['sur\\udc80</script><a href=javascript:alert(2)>'] = d * 2.0
e = globals()['sur\\udc80</script><a href=javascript:alert(2)>'] + 1.0
e.grad_node.label = '<x> URL="javascript:alert(3)" target=<y>'
e.name = 'trail\\\\'
print('out\\udc80 \\x1b[2J')
e.backward()
'''


def _gradrepl(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "gradrepl", *args], capture_output=True,
                          text=True, timeout=300, env=env, cwd=cwd, errors="replace")


@pytest.fixture()
def hostile_script(tmp_path):
    p = tmp_path / "hostile.py"
    p.write_text(HOSTILE_SCRIPT, encoding="utf-8")
    return p


def test_graph_o_of_a_hostile_script_writes_valid_files(tmp_path, hostile_script):
    for ext in ("dot", "svg", "json", "txt", "png"):
        out = tmp_path / f"e.{ext}"
        r = _gradrepl("graph", str(hostile_script), "--tensor", "e", "-o", str(out))
        assert r.returncode == 0 and "Traceback" not in r.stderr, (ext, r.stderr[-1500:])
        assert out.stat().st_size > 0
        if ext in ("dot", "svg", "json", "txt"):
            text = out.read_text(encoding="utf-8")     # valid UTF-8 (surrogates replaced)
            assert "\x1b" not in text, ext                  # no raw escape sequence
        if ext == "dot":
            for prefer in _renderers():
                assert "syntax error" not in _dot_errors(text, prefer).lower()
            assert "xlabel" not in text and 'URL="' not in text.replace('URL=\\"', "")
        if ext == "svg":
            _assert_inert(text, where="svg")
            assert "<a " not in text
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["hostile.py"] + [f"e.{x}" for x in ("dot", "svg", "json", "txt", "png")])


def test_graph_o_writes_nothing_half_done_when_rendering_fails(tmp_path, hostile_script):
    out = tmp_path / "e.svg"
    out.write_text("old picture")
    env = dict(os.environ, GRADREPL_DOT=shutil.which("false") or "/bin/false")
    for target in (out, tmp_path / "new.png"):
        r = _gradrepl("graph", str(hostile_script), "--tensor", "e", "-o", str(target), env=env)
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert out.read_text() == "old picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.svg", "hostile.py"]


def test_steps_player_of_a_hostile_script_is_inert(tmp_path, hostile_script):
    _renderers()
    out = tmp_path / "steps"
    r = _gradrepl("graph", str(hostile_script), "--tensor", "e", "--steps", str(out))
    assert r.returncode == 0, r.stderr[-1500:]
    page = (out / "index.html").read_text(encoding="utf-8")
    _assert_inert(page, scripts=1, where="player")
    assert "<a " not in page
    for f in sorted(out.glob("frame_*.svg")):
        _assert_inert(f.read_text(encoding="utf-8"), where=f.name)


# ============================================================================ handouts
def test_the_corpus_has_the_injection_class():
    names = [os.path.basename(p) for p in INJECTIONS]
    assert len(names) >= 5 and all(re.fullmatch(r"6\d_\w+\.pycon", n) for n in names)


@pytest.mark.parametrize("path", INJECTIONS, ids=lambda p: os.path.basename(p)[:-6])
def test_handout_of_each_injection_session_is_inert_and_complete(tmp_path, path):
    _renderers()
    out = tmp_path / "h.html"
    session = tmp_path / os.path.basename(path)
    shutil.copy(path, session)
    r = _gradrepl("replay", str(session), "--html", str(out))
    assert r.returncode == 0 and "Traceback" not in r.stdout + r.stderr, r.stderr[-1500:]
    page = out.read_text(encoding="utf-8")
    m = _assert_inert(page, where=path)
    # every picture was drawn (a broken DOT used to lose them), inline
    assert "no picture of" not in page
    assert m.tags.count("svg") >= 2 and page.count('<figure class="pic"') == m.tags.count("svg")
    # --update rewrites the session without a traceback, whatever its outputs hold
    r = _gradrepl("replay", str(session), "--update")
    assert r.returncode == 0 and "Traceback" not in r.stdout + r.stderr, r.stderr[-1500:]
    assert session.read_text(encoding="utf-8")


# ============================================================================ in a browser
def _chromium():
    for cand in (shutil.which("chromium"), "/usr/bin/chromium"):
        if cand and os.access(cand, os.X_OK):
            return cand
    pytest.skip("chromium is not installed (apt-get install chromium): the browser check of "
                "hostile pages is skipped")


def _dump_dom(chromium, root: Path, page: Path) -> str:
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-extensions", "--disable-dev-shm-usage", f"--user-data-dir={root / 'prof'}",
           "--virtual-time-budget=3000", "--dump-dom", page.as_uri()]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def test_hostile_handout_and_player_in_headless_chromium(tmp_path, hostile_script):
    chromium = _chromium()
    _renderers()
    pages = []
    for path in INJECTIONS:
        out = tmp_path / (os.path.basename(path)[:-6] + ".html")
        r = _gradrepl("replay", path, "--html", str(out))
        assert r.returncode == 0, r.stderr[-1500:]
        pages.append((out, 0))
    steps = tmp_path / "steps"
    r = _gradrepl("graph", str(hostile_script), "--tensor", "e", "--steps", str(steps))
    assert r.returncode == 0, r.stderr[-1500:]
    pages.append((steps / "index.html", 1))
    for page, scripts in pages:
        dom = _dump_dom(chromium, tmp_path, page)
        assert "<svg" in dom, page.name
        m = _assert_inert(dom, scripts=scripts, where=page.name)
        assert not any("javascript:" in v.lower() for _t, _k, v in m.links), page.name
        # the hostile strings are on the page as text
        if page.name.startswith("62_"):
            assert "&lt;a href=javascript:alert(1)&gt;click&lt;/a&gt;" in dom


# ============================================================================ labels over arrows
def _arrowheads(svg):
    for body in re.findall(r'<g id="edge\d+" class="edge">(.*?)</g>', svg, re.S):
        for pts in re.findall(r'<polygon[^>]*points="([^"]*)"', body):
            yield [tuple(map(float, p.split(","))) for p in pts.split()]


def test_op_statements_sit_in_their_op_not_on_an_arrowhead():
    """Issue 19 item 6: ``c = a * b`` sat on the arrowhead into ``Mul`` (an xlabel) in every
    system-dot picture; it is now the op's second line. No arrowhead point falls in the box of
    the statement's text, and the text belongs to its op's node."""
    seeds = HERE.parent / "examples" / "seeds"
    run = capture.run_for_pictures(str(seeds / "s000_example_two.py"))
    pic = viz.graph(run.namespace["e"], namespace=run.namespace, recorder=run.recorder)
    for prefer in _renderers():
        svg = render.svg(pic.dot(), prefer)
        for stmt, op in (("c = a * b", "f0"), ("e = c * d", "f1")):
            node = re.search(rf'<g id="node\d+" class="node">\s*<title>{op}</title>(.*?)</g>',
                             svg, re.S).group(1)
            m = re.search(rf'<text[^>]*x="([-\d.]+)" y="([-\d.]+)"[^>]*>{re.escape(stmt)}</text>',
                          node)
            assert m, (prefer, stmt)
            x, y = float(m.group(1)), float(m.group(2))
            half = len(stmt) * 11 * 0.6 / 2
            for poly in _arrowheads(svg):
                for px, py in poly:
                    assert not (x - half - 2 <= px <= x + half + 2 and y - 13 <= py <= y + 3), \
                        (prefer, stmt, px, py)
