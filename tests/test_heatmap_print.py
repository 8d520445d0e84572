"""Heat maps under ``--theme print`` (issue 30: greyscale handouts): the cells are greys only,
one ramp of lightness (black = the most negative, mid grey = 0, white = the most positive) so
that a black-and-white printout still tells the sign, and the scale is written under the map.

The expected greys are computed here from the numbers, independently of heatmap.color."""
from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from gradrepl.viz import heatmap, render

BINARIES = [k for k, ok in (("system", shutil.which("dot") is not None),
                            ("pure", render.pure_binary() is not None)) if ok]

SCRIPT = """\
import numpy as np
import paddle
W = paddle.to_tensor((np.arange(20, dtype='float32').reshape(4, 5) - 8) / 4, stop_gradient=False)
C = paddle.to_tensor(np.array([[1, -1, 0, 2, -2]] * 4, dtype='float32')
                     * np.array([[1], [2], [-1], [0.5]], dtype='float32'))
loss = (W * C).sum()
loss.backward()
"""


def grey(v, scale):
    """Black at -scale, 0x80 at 0, white at +scale, linear: written out independently."""
    if v == 0:
        g = 0x80
    else:
        t = min(1.0, abs(v) / scale)
        g = 0x80 + ((0xff if v > 0 else 0x00) - 0x80) * t
    g = int(round(g))
    return f"#{g:02x}{g:02x}{g:02x}"


def fills(svg):
    return re.findall(r'<polygon fill="(#[0-9a-f]{6})"', svg)


def cells_in(svg, colors):
    f = fills(svg)
    n = len(colors)
    return any(f[i:i + n] == colors for i in range(len(f) - n + 1))


def gg(*args):
    return subprocess.run([sys.executable, "-m", "gradrepl", "graph", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    p = tmp_path_factory.mktemp("heatprint") / "w.py"
    p.write_text(SCRIPT)
    return p


def _w_and_grad():
    w = (np.arange(20, dtype="float32").reshape(4, 5) - 8) / 4
    c = np.array([[1, -1, 0, 2, -2]] * 4, "float32") * np.array([[1], [2], [-1], [0.5]],
                                                                  "float32")
    return w, c


def test_print_scale_is_grey_and_tells_the_sign():
    m = np.array([[-2.0, 0.0, 1.0], [2.0, -1.0, 0.5]])
    h = heatmap.heat_of(m)
    got = [heatmap.color(v, h.scale, "print") for v in h.cells]
    assert got == [grey(v, 2.0) for v in m.reshape(-1)]
    assert got[:4] == ["#000000", "#808080", "#c0c0c0", "#ffffff"]
    for c in got:   # greys only
        assert c[1:3] == c[3:5] == c[5:7], c
    # +v and -v differ in lightness (red and blue of the colour scale print alike)
    assert heatmap.color(1.0, 2.0, "print") != heatmap.color(-1.0, 2.0, "print")
    # the other themes keep the diverging colour scale
    assert heatmap.color(2.0, 2.0, "dark") == heatmap.color(2.0, 2.0) == "#b2182b"
    assert heatmap.scale_note(h, "print") == \
        "greyscale: black -2. \u00b7 mid grey 0 \u00b7 white +2."
    assert heatmap.scale_note(h) == "blue -2. \u00b7 white 0 \u00b7 red +2."


def test_print_nan_is_a_framed_blank_and_said():
    a = np.arange(20.0).reshape(4, 5)
    a[0, 0] = np.nan
    h = heatmap.heat_of(a)
    assert heatmap.color(h.cells[0], h.scale, "print") is None
    g = heatmap.grid(h, "print")
    assert g.count('border="1" color="#000000"') == 1 and g.count("bgcolor=") == 19
    assert "1 NaN or inf (blank, framed)" in heatmap.caption(h, theme="print")
    assert "1 NaN or inf (grey)" in heatmap.caption(h)


@pytest.mark.parametrize("binary", BINARIES)
def test_print_picture_cells_are_grey(script, tmp_path, binary, monkeypatch):
    if binary == "pure":
        monkeypatch.setenv("GRADREPL_DOT", render.pure_binary())
    out = tmp_path / "w.svg"
    r = gg(script, "--tensor", "loss", "--heatmap", "--theme", "print", "-o", out)
    assert r.returncode == 0, r.stderr
    svg = html.unescape(out.read_text())
    w, g = _w_and_grad()
    assert cells_in(svg, [grey(v, np.abs(w).max()) for v in w.reshape(-1)])
    assert cells_in(svg, [grey(v, np.abs(g).max()) for v in g.reshape(-1)])
    assert "greyscale: black -2.75 · mid grey 0 · white +2.75" in svg
    assert "greyscale: black -4. · mid grey 0 · white +4." in svg
    assert "red +" not in svg
    for c in fills(svg):   # the whole print picture: greys only
        assert c[1:3] == c[3:5] == c[5:7], c


@pytest.mark.parametrize("binary", BINARIES)
def test_print_png_has_no_colour(script, tmp_path, binary, monkeypatch):
    pytest.importorskip("PIL")
    from PIL import Image

    if binary == "pure":
        monkeypatch.setenv("GRADREPL_DOT", render.pure_binary())
    out = tmp_path / "w.png"
    r = gg(script, "--tensor", "loss", "--heatmap", "--theme", "print", "--dpi", "120",
           "-o", out)
    assert r.returncode == 0, r.stderr
    colors = {c for _n, c in Image.open(out).convert("RGB").getcolors(1 << 22)}
    assert (0, 0, 0) in colors and (0x80, 0x80, 0x80) in colors
    # (anti-aliased edges may mix two greys, still grey): no pixel has a hue
    assert max(max(c) - min(c) for c in colors) <= 2


def test_print_step_frames_and_shell(script, tmp_path):
    out = tmp_path / "steps"
    r = gg(script, "--tensor", "loss", "--heatmap", "--theme", "print", "--steps", out)
    assert r.returncode == 0, r.stderr
    last = html.unescape(sorted(out.glob("*.svg"))[-1].read_text())
    assert last.count("greyscale: black -4. · mid grey 0 · white +4.") == 2   # C and W_grad
    assert "red +" not in last

    import ast

    from gradrepl.repl.session import Session

    s = Session()
    lines = SCRIPT.splitlines()
    for node in ast.parse(SCRIPT).body:
        s.run("\n".join(lines[node.lineno - 1:node.end_lineno]))
    dot = tmp_path / "w.dot"
    r = s.run(f"%graph loss --heatmap --theme print -o {dot}")
    assert "wrote" in r.output, r.output
    text = html.unescape(dot.read_text())
    assert "greyscale: black -2.75 · mid grey 0 · white +2.75" in text
    w, _g = _w_and_grad()
    for v in w.reshape(-1):
        assert f'bgcolor="{grey(v, 2.75)}"' in text
