"""Slide options of the pictures (gradrepl/viz/theme.py): --rankdir, --size, --dpi, --theme,
--font-size, in ``viz.graph``, ``gradrepl graph`` and ``%graph``; without them the DOT is byte for
byte the snapshot it always was."""
from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from gradrepl import viz
from gradrepl.repl.session import Session
from gradrepl.viz import capture, render, theme
from gradrepl.viz.cli import GraphError, draw

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "examples" / "seeds" / "s000_example_two.py"
SNAP = Path(__file__).resolve().parent / "data" / "viz"


@pytest.fixture(scope="module")
def run2():
    run = capture.run_for_pictures(str(SEED))
    assert run.error is None, run.error
    return run


def pic(run, **kw):
    return viz.graph(run.namespace["e"], namespace=run.namespace, recorder=run.recorder, **kw)


def has_layout():
    try:
        render.find_dot()
    except render.RenderError:
        return False
    return True


needs_layout = pytest.mark.skipif(not has_layout(), reason="no Graphviz layout program")


def graph_line(dot):
    return next(line for line in dot.splitlines() if line.startswith("\tgraph ["))


def colours(dot):
    return re.findall(r'(?:color|bgcolor|fillcolor|fontcolor)="?(#[0-9a-fA-F]{6}|white)', dot)


def luminance(hex_colour):
    if hex_colour == "white":
        hex_colour = "#ffffff"
    c = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def contrast(a, b):
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


# ------------------------------------------------------------------ defaults unchanged
def test_no_option_is_the_snapshot(run2):
    snap = (SNAP / "example_two_after.dot").read_text()
    assert pic(run2, chain=True).dot() == snap
    # the default values given explicitly draw the same bytes
    assert pic(run2, chain=True, theme="light", rankdir="TB").dot() == snap
    assert theme.Style().default and pic(run2).style is None


# ------------------------------------------------------------------ rankdir
def svg_size(svg):
    m = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    return float(m.group(1)), float(m.group(2))


@needs_layout
def test_rankdir_lr_makes_example_two_landscape(run2):
    w0, h0 = svg_size(pic(run2, chain=True).svg())  # top to bottom: about square (1029 x 1016)
    lr = pic(run2, rankdir="LR", chain=True)
    assert "rankdir=LR" in graph_line(lr.dot())
    w, h = svg_size(lr.svg())
    assert w > 2 * h and h < 0.75 * h0  # left to right: a slide's shape (1539 x 512)
    assert pic(run2, rankdir="lr", chain=True).dot() == lr.dot()  # any case


# ------------------------------------------------------------------ themes
def test_dark_theme_dark_background_light_text(run2):
    dot = pic(run2, theme="dark").dot()
    pal = theme.PALETTES["dark"]
    head = dot.splitlines()[1:4]  # graph, node, edge defaults
    bg = re.search(r'bgcolor="(#\w+)"', head[0]).group(1)
    assert luminance(bg) < 0.05
    for line in head:  # graph label, node text and edge labels: light
        fc = re.search(r'fontcolor="(#\w+)"', line).group(1)
        assert luminance(fc) > 0.8 and contrast(fc, bg) > 10
    assert luminance(re.search(r'\bcolor="(#\w+)"', head[2]).group(1)) > 0.7  # edges
    assert luminance(re.search(r'\bcolor="(#\w+)"', head[1]).group(1)) > 0.6  # op outlines
    # every fill under the (light) text is dark enough to read it: contrast >= 4.5 (WCAG AA)
    fills = set(re.findall(r'(?:bgcolor|fillcolor)="(#\w+)"', dot)) - {bg}
    assert fills and all(contrast(pal["text"], f) >= 4.5 for f in fills), fills
    # the computed gradients, red on their cells, and the edges against the background
    assert contrast(pal["grad_data"], pal["cell"]) >= 4.5
    for part in ("pending", "saved", "link", "edge", "accumulate"):
        assert contrast(pal[part], bg) >= 4.5, part
    assert "white" not in colours(dot) and "#333333" not in dot


def test_print_theme_greys_only_and_edges_by_line(run2):
    dot = pic(run2, theme="print").dot()
    for c in colours(dot):
        c = "#ffffff" if c == "white" else c.lower()
        assert c[1:3] == c[3:5] == c[5:7], f"{c} is not a grey"
    lines = [line for line in dot.splitlines() if " -> " in line]

    def kinds(pattern):
        found = {(re.search(r"\bstyle=(\w+)", line) or [None, None])[1] if "style=" in line
                 else None for line in lines if re.search(pattern, line)}
        widths = {(re.search(r"penwidth=([\d.]+)", line) or [None, "1"])[1]
                  for line in lines if re.search(pattern, line)}
        return found, widths

    data = [line for line in lines if re.fullmatch(r"\t\w+ -> \w+", line)]
    pending = kinds(r"constraint=false dir=back")
    saved = kinds(r"arrowsize=0.6")
    link = kinds(r"arrowhead=vee")
    assert data and pending[0] == {"bold"} and pending[1] == {"2.5"}
    assert saved[0] == {"dashed"} and link[0] == {"dotted"}
    # four kinds of edges, four different lines (style, width); data flow plain and solid
    assert len({("solid", "1"), (next(iter(pending[0])), next(iter(pending[1]))),
                (next(iter(saved[0])), next(iter(saved[1]))),
                (next(iter(link[0])), next(iter(link[1])))}) == 4
    # the light theme tells pending edges by colour: print must not rely on it
    assert "#e8473f" not in dot


@needs_layout
def test_dark_theme_renders(run2, tmp_path):
    out = pic(run2, theme="dark").render(tmp_path / "e.svg").read_text()
    assert 'fill="#1b1d23"' in out  # the background polygon


# ------------------------------------------------------------------ size, dpi, font size
def png_size(data):
    return struct.unpack(">II", data[16:24])


def test_size_and_dpi_in_dot(run2):
    dot = pic(run2, size="16x9", dpi=150).dot()
    line = graph_line(dot)
    assert 'size="16,9!"' in line and "dpi=150" in line
    assert 'size="4.5,3!"' in graph_line(pic(run2, size="4.5x3").dot())


@needs_layout
def test_size_and_dpi_set_the_png(run2):
    w, h = png_size(pic(run2, size="4x3", dpi=100).png())
    assert (w <= 401 and h <= 301) and (w >= 399 or h >= 299)  # filled to one side
    w2, h2 = png_size(pic(run2, size="4x3", dpi=200).png())
    assert abs(w2 - 2 * w) <= 2 and abs(h2 - 2 * h) <= 2


def test_font_size_scales_every_size(run2):
    dot = pic(run2, font_size=24).dot()
    head = dot.splitlines()[1:4]
    assert "fontsize=24" in head[1] and "fontsize=20" in head[2]  # nodes 12 -> 24, edges 10
    assert "fontsize=28" in dot  # ops: 14 -> 28
    sizes = set(re.findall(r'point-size="([\d.]+)"', dot))
    assert sizes == {"18", "20", "22"}  # 9, 10, 11 doubled
    base = pic(run2).dot()
    assert re.sub(r'(point-size="|fontsize=)[\d.]+', "", dot) == \
        re.sub(r'(point-size="|fontsize=)[\d.]+', "", base)  # nothing else changes


@pytest.mark.parametrize("kw, message", [
    ({"theme": "neon"}, "unknown theme 'neon'"),
    ({"rankdir": "up"}, "unknown rankdir 'up'"),
    ({"size": "16 by 9"}, "--size wants WIDTHxHEIGHT"),
    ({"size": "0x9"}, "--size wants WIDTHxHEIGHT"),
    ({"size": "500x9"}, "at most 100"),
    ({"dpi": 0}, "--dpi must be"),
    ({"font_size": -1}, "--font-size must be"),
])
def test_bad_options(run2, kw, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        pic(run2, **kw)


# ------------------------------------------------------------------ the command and %graph
def test_gradrepl_graph_options(tmp_path, capsys):
    out = tmp_path / "e.dot"
    draw(str(SEED), tensor="e", output=str(out), rankdir="LR", theme="print", size="10x5",
         dpi=120, font_size=14)
    line = graph_line(out.read_text())
    assert all(x in line for x in ("rankdir=LR", 'size="10,5!"', "dpi=120"))
    assert "fontsize=14" in out.read_text().splitlines()[2]
    with pytest.raises(GraphError, match="unknown theme 'neon'"):
        draw(str(SEED), tensor="e", output=str(out), theme="neon")
    with pytest.raises(GraphError, match="--size wants"):
        draw(str(SEED), tensor="e", size="big")


def test_shell_graph_options(tmp_path):
    s = Session()
    for src in ("import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
                "b = paddle.to_tensor(5.0, stop_gradient=False)", "c = a * b"):
        s.run(src)
    out = tmp_path / "c.dot"
    res = s.run(f"%graph c --rankdir lr --theme dark --size 8x4.5 --dpi 200 --font-size 16 "
                f"-o {out}")
    assert res.output == f"wrote {out}\n"
    line = graph_line(out.read_text())
    assert all(x in line for x in ("rankdir=LR", 'size="8,4.5!"', "dpi=200", "bgcolor="))
    assert s.run("%graph c --theme neon").output.startswith("%graph: argument --theme")
    assert "--size wants" in s.run("%graph c --size huge").output
