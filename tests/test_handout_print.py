"""The handout on paper (issue 30 item 7): ``gradrepl replay lecture.pycon --html out.html``
prints cleanly from Chromium: folded outputs (a ``%step``) printed open, no page holding only
the footer; ``--figures`` chooses the pictures (default: every %graph/%step picture and a few
others). The Chromium checks print the page to PDF with Debian's chromium and read its pages
with poppler's pdftotext (skipped where they are not installed)."""
from __future__ import annotations

import io
import re
import shutil
import subprocess
import textwrap

import pytest

from gradrepl.repl import handout
from gradrepl.repl.replay_cli import replay_command

# a lecture: nine assignments (each earns a picture), a backward, a long %step output
LECTURE = textwrap.dedent("""\
    # A lecture: a chain of assignments, then the backward step by step.
    >>> import paddle
    >>> a = paddle.to_tensor(2.0, stop_gradient=False)
    >>> b = paddle.to_tensor(5.0, stop_gradient=False)
    >>> c = a * b
    >>> d = paddle.to_tensor(4.0, stop_gradient=False)
    >>> e = c * d
    >>> f = e + a
    >>> g = f * b
    >>> h = g - d
    >>> k = h * c
    >>> m = k + e
    >>> n = m * a

    # Every step of n's backward, one sentence each.
    >>> %step n
    >>> %graph n --view backward --chain
    >>> print(a.grad.numpy())
    >>> print("\\n".join(f"row {i}" for i in range(60)))
    # That is all.
""")


def _handout(tmp_path, text=LECTURE, **kw):
    src = tmp_path / "lecture.pycon"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out.html"
    o, e = io.StringIO(), io.StringIO()
    rc = replay_command([str(src)], html=str(out), out=o, err=e, **kw)
    return rc, out, e.getvalue()


def _captions(page):
    return re.findall(r"<figcaption>Figure \d+\. (.*?)<a ", page)


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lecture")
    rc, out, err = _handout(tmp, figures="all")
    assert rc == 0, err
    return tmp, out.read_text(encoding="utf-8")


# ------------------------------------------------------------------ which pictures
def test_every_picture_with_all(lecture):
    _tmp, page = lecture
    caps = _captions(page)
    assert len(caps) == 10   # c e f g h k m n (made), n stepped, n as %graph drew it
    assert '<p class="meta">' in page
    assert "of" not in re.search(r'<p class="meta">.*?</p>', page).group(0).split("·")[-1]


def test_default_is_a_few(tmp_path, lecture):
    rc, out, err = _handout(tmp_path)
    assert rc == 0, err
    page = out.read_text(encoding="utf-8")
    caps = _captions(page)
    everything = _captions(lecture[1])
    # the two the teacher asked for (%step, %graph) and at most DEFAULT_AUTO others
    asked = [c for c in caps if "%graph" in c or "stepping" in c]
    assert len(asked) == 2
    assert len(caps) - len(asked) == handout.DEFAULT_AUTO < len(everything) - 2
    assert f"{len(caps)} of {len(everything)} pictures" in page
    assert "--figures all</code> shows every one" in page
    # in the page's order, numbered without gaps
    nums = [int(x) for x in re.findall(r'<figure class="pic" id="fig(\d+)">', page)]
    assert nums == list(range(1, len(caps) + 1))


@pytest.mark.parametrize("spec, count", [("2", 2), ("none", 0), ("0", 0), ("n", 3),
                                         ("c,e", 2), ("all", 10)])
def test_figures_option(tmp_path, spec, count):
    rc, out, err = _handout(tmp_path, figures=spec)
    assert rc == 0, err
    page = out.read_text(encoding="utf-8")
    caps = _captions(page)
    assert len(caps) == count, caps
    if spec == "2":   # the teacher's own pictures first
        assert all("%graph" in c or "stepping" in c for c in caps)
    if spec == "c,e":
        assert [c.split(":")[0] for c in caps] == ["c", "e"]


def test_figures_option_errors(tmp_path):
    rc, _out, err = _handout(tmp_path, figures="e; rm")
    assert rc == 2 and "--figures wants" in err
    src = tmp_path / "l.pycon"
    src.write_text(LECTURE, encoding="utf-8")
    e = io.StringIO()
    assert replay_command([str(src)], figures="2", out=io.StringIO(), err=e) == 2
    assert "give --html" in e.getvalue()


def test_parse_figures():
    assert handout.parse_figures(None) == "auto"
    assert handout.parse_figures("ALL") == "all"
    assert handout.parse_figures("3") == 3
    assert handout.parse_figures("a, model.w") == frozenset({"a", "model.w"})
    with pytest.raises(ValueError):
        handout.parse_figures("")


# ------------------------------------------------------------------ the print CSS
def test_print_css_opens_folded_outputs(lecture):
    _tmp, page = lecture
    assert '<details class="fold"><summary>output (' in page   # folded on screen
    css = page[page.index("<style>"):page.index("</style>")]
    media = css[css.index("@media print"):]
    assert re.search(r"details\.fold::details-content\s*\{[^}]*content-visibility:\s*visible",
                     media)
    assert re.search(r"details\.fold > summary\s*\{\s*display:\s*none", media)
    # where ::details-content is unknown: a copy of the output for paper only
    assert "@supports not selector(::details-content)" in css
    assert page.count('print-copy">') == page.count('<details class="fold">') == 2
    # a %step on paper: its sentences and the last graph, the screen's trees folded
    assert page.count('<details class="fold steps">') == page.count('step-paper">') == 1
    assert re.search(r"details\.fold\.steps\s*\{\s*display:\s*none", media)
    assert re.search(r"pre\.step-paper\s*\{\s*display:\s*block", media)
    paper = re.search(r'step-paper">(.*?)</pre>', page, re.S).group(1)
    assert paper.count("step 0 of 13: ") == 1 and "step 13 of 13: " in paper
    assert paper.count("(engine order") == 0 and "the graph after the last step" in paper
    assert re.search(r"[ ,]footer\s*\{\s*display:\s*none", media)   # never a page of its own


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PDFTOTEXT = shutil.which("pdftotext")


@pytest.mark.skipif(not (CHROMIUM and PDFTOTEXT), reason="needs chromium and pdftotext")
def test_printed_from_chromium(lecture):
    tmp, page = lecture
    out = tmp / "out.html"
    pdf = tmp / "out.pdf"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    f"--print-to-pdf={pdf}", "--no-pdf-header-footer", out.as_uri()],
                   capture_output=True, timeout=120)
    assert pdf.exists() and pdf.stat().st_size > 0
    text = subprocess.run([PDFTOTEXT, "-layout", str(pdf), "-"], capture_output=True,
                          text=True, timeout=60).stdout
    pages = text.split("\f")
    if pages and not pages[-1].strip():
        pages = pages[:-1]
    # the %step output on paper, open, once; no "output (N lines)" line
    assert text.count("step 0 of") == 1 and "step 3 of" in text
    assert not re.search(r"output \(\d+ lines\)", text)
    assert "row 0" in text and "row 59" in text   # a long output printed open too
    assert text.count("(engine order") <= 2   # not every step's whole tree
    # no page holds only the footer (or nothing); the footer is not printed
    for k, p in enumerate(pages, 1):
        words = p.split()
        assert words, f"page {k} is empty"
        assert "made with gradrepl replay" not in p, f"page {k}: {p[:200]!r}"
    assert len(pages) >= 2
