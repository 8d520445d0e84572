"""Heat maps of values and gradients too large to show whole (``gradrepl graph --heatmap``;
issue 30: "a heatmap of a matrix and its gradient for larger tensors").

The colours are checked against the scale computed here from the numbers (zero white, positive
towards ColorBrewer's red #b2182b, negative towards its blue #2166ac, linear in |v| / max|v|), in
the SVG that the system ``dot`` and the graphviz-pure binary draw, and in PNG and PDF output.
"""
from __future__ import annotations

import copy
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gradrepl.viz import heatmap, model, render

ROOT = Path(__file__).resolve().parent.parent
RED, BLUE = (0xb2, 0x18, 0x2b), (0x21, 0x66, 0xac)

BINARIES = [k for k, ok in (("system", shutil.which("dot") is not None),
                            ("pure", render.pure_binary() is not None)) if ok]


def expected_color(v, scale):
    """The scale, written out independently of heatmap.color."""
    if v == 0:
        return "#ffffff"
    t = min(1.0, abs(v) / scale)
    end = RED if v > 0 else BLUE
    return "#" + "".join(f"{int(round(255 + (e - 255) * t)):02x}" for e in end)


def fills(svg):
    """The fills of the SVG's polygons, in document order."""
    return re.findall(r'<polygon fill="(#[0-9a-f]{6})"', svg)


def cells_in(svg, colors):
    """The run of ``len(colors)`` consecutive polygon fills equal to ``colors``, found?"""
    f = fills(svg)
    n = len(colors)
    return any(f[i:i + n] == colors for i in range(len(f) - n + 1))


def gg(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "gradrepl", "graph", *map(str, args)],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


# ---------------------------------------------------------------------------- the module
def test_colours_of_a_known_matrix():
    m = np.array([[-2.0, 0.0, 1.0], [2.0, -1.0, 0.5]], np.float32)
    h = heatmap.heat_of(m)
    assert (h.rows, h.cols, h.block, h.lo, h.hi, h.scale) == (2, 3, (1, 1), -2.0, 2.0, 2.0)
    want = [expected_color(v, 2.0) for v in m.reshape(-1)]
    assert want[:3] == ["#2166ac", "#ffffff", "#d88c95"]   # (blue end, white, half red)
    assert [heatmap.color(v, h.scale) for v in h.cells] == want
    assert heatmap.color(float("nan"), 1.0) == heatmap.NAN_COLOR


def test_large_arrays_are_block_means():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((50, 70))
    h = heatmap.heat_of(a)
    assert h.block == (3, 3) and (h.rows, h.cols) == (17, 24)
    cells = np.array(h.cells).reshape(h.rows, h.cols)
    assert np.isclose(cells[0, 0], a[:3, :3].mean())
    assert np.isclose(cells[16, 23], a[48:, 69:].mean())   # (the ragged last block: its own)
    assert (h.lo, h.hi) == (a.min(), a.max())
    assert "cells are means of 3x3 blocks" in heatmap.caption(h)
    conv = heatmap.heat_of(np.ones((4, 3, 2, 2)))
    assert conv.matrix == (4, 12) and "drawn as 4x12" in heatmap.caption(conv)


def test_layouts_images_weights_and_long_vectors():
    # axes of size 1 dropped; the split closest to square
    assert heatmap.as_matrix((1, 3, 64, 64)) == (192, 64, False)     # an image: C*H x W
    assert heatmap.as_matrix((64, 3, 7, 7)) == (64, 147, False)      # a conv weight: out x rest
    assert heatmap.as_matrix((1, 1000)) == (32, 32, True)            # logits: wrapped
    assert heatmap.as_matrix((20,)) == (1, 20, False)
    # a 100-vector: rows of 32, its last row's cells past the end left blank (None)
    v = np.arange(100.0) - 50
    h = heatmap.heat_of(v)
    assert (h.rows, h.cols, h.block) == (4, 32, (1, 1)) and "in rows of 32" in heatmap.caption(h)
    assert h.cells[:100] == tuple(v) and h.cells[100:] == (None,) * 28
    grid = heatmap.grid(h)
    assert grid.count("bgcolor=") == 100 and grid.count("<td ") == 128
    # longer than 24 x 32: means of consecutive runs, then wrapped; min/max of the elements
    h = heatmap.heat_of(np.arange(2000.0))
    assert h.block[0] == 3 and h.cells[0] == 1.0 and h.cells[1] == 4.0
    assert (h.lo, h.hi) == (0.0, 1999.0)
    assert "cells are means of 3 consecutive elements" in heatmap.caption(h)


def test_preview_carries_the_map_only_when_on_and_past_values():
    a = np.arange(20.0).reshape(4, 5)
    assert heatmap.of(model.preview(a)) is None            # off: the words only
    old = heatmap.enable(True)
    try:
        p = model.preview(a)
        assert p == "[0., 1., 2., 3., ...] (4x5)" and heatmap.of(p).shape == (4, 5)
        assert heatmap.of(copy.deepcopy(p)) == heatmap.of(p)   # (frames copy the model)
        assert heatmap.of(model.preview(np.arange(6.0))) is None   # shown whole (<= 12)
        assert heatmap.of(model.preview(np.ones(20, np.complex64))) is None   # (real only)
    finally:
        heatmap.enable(old)


# ---------------------------------------------------------------------------- pictures
SCRIPT = """\
import numpy as np
import paddle
W = paddle.to_tensor((np.arange(20, dtype='float32').reshape(4, 5) - 8) / 4, stop_gradient=False)
C = paddle.to_tensor(np.array([[1, -1, 0, 2, -2]] * 4, dtype='float32')
                     * np.array([[1], [2], [-1], [0.5]], dtype='float32'))
loss = (W * C).sum()
loss.backward()
"""


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    p = tmp_path_factory.mktemp("heat") / "w.py"
    p.write_text(SCRIPT)
    return p


def _w_and_grad():
    w = (np.arange(20, dtype="float32").reshape(4, 5) - 8) / 4
    c = np.array([[1, -1, 0, 2, -2]] * 4, "float32") * np.array([[1], [2], [-1], [0.5]],
                                                                  "float32")
    return w, c   # d loss / dW = C


@pytest.mark.parametrize("binary", BINARIES)
def test_value_and_gradient_drawn_as_cells(script, tmp_path, binary, monkeypatch):
    if binary == "pure":
        monkeypatch.setenv("GRADREPL_DOT", render.pure_binary())
    out = tmp_path / "w.svg"
    r = gg(script, "--tensor", "loss", "--heatmap", "-o", out)
    assert r.returncode == 0, r.stderr
    svg = html.unescape(out.read_text())   # (system dot writes "-" as &#45;)
    w, grad = _w_and_grad()
    assert cells_in(svg, [expected_color(v, np.abs(w).max()) for v in w.reshape(-1)])
    assert cells_in(svg, [expected_color(v, np.abs(grad).max()) for v in grad.reshape(-1)])
    assert "data (4x5): min -2., max 2.75" in svg          # W: (0 - 8) / 4 .. (19 - 8) / 4
    assert "data (4x5): min -4., max 4." in svg            # W_grad = C
    assert "blue -4. · white 0 · red +4." in svg
    # without --heatmap: the words, no cells
    r = gg(script, "--tensor", "loss", "-o", tmp_path / "plain.svg")
    plain = html.unescape((tmp_path / "plain.svg").read_text())
    assert not cells_in(plain, [expected_color(v, np.abs(w).max()) for v in w.reshape(-1)])
    assert "[-2., -1.75, -1.5, -1.25, ...] (4x5)" in plain


def test_values_sets_the_threshold(script, tmp_path):
    out = tmp_path / "w.dot"
    r = gg(script, "--tensor", "loss", "--heatmap", "--values", "20", "-o", out)
    assert r.returncode == 0, r.stderr
    dot = out.read_text()
    assert 'fixedsize="true"' not in dot    # 20 elements shown whole, with their shape
    assert "[[-2., -1.75, -1.5, -1.25, -1.], " in dot and "(4x5)" in dot


@pytest.mark.parametrize("binary", BINARIES)
@pytest.mark.parametrize("ext", ["png", "pdf"])
def test_png_and_pdf(script, tmp_path, ext, binary, monkeypatch):
    if binary == "pure":
        monkeypatch.setenv("GRADREPL_DOT", render.pure_binary())
        if ext == "pdf":   # (graphviz-pure writes no PDF: gradrepl goes through svglib)
            pytest.importorskip("svglib")
            pytest.importorskip("reportlab")
    out = tmp_path / f"w.{ext}"
    r = gg(script, "--tensor", "loss", "--heatmap", "-o", out)
    assert r.returncode == 0, r.stderr
    head = out.read_bytes()[:8]
    assert head.startswith(b"\x89PNG" if ext == "png" else b"%PDF")


@pytest.mark.parametrize("binary", BINARIES)
def test_png_pixels_show_the_colours(script, tmp_path, binary, monkeypatch):
    pytest.importorskip("PIL")
    from PIL import Image

    if binary == "pure":
        monkeypatch.setenv("GRADREPL_DOT", render.pure_binary())
    out = tmp_path / "w.png"
    assert gg(script, "--tensor", "loss", "--heatmap", "--dpi", "150", "-o", out).returncode == 0
    colors = {c for _n, c in Image.open(out).convert("RGB").getcolors(1 << 20)}
    assert RED in colors and BLUE in colors   # the ends of the scale: W_grad's +-4 cells


def test_step_frames_show_the_gradient_map_once_written(script, tmp_path):
    out = tmp_path / "steps"
    r = gg(script, "--tensor", "loss", "--heatmap", "--steps", out)
    assert r.returncode == 0, r.stderr
    frames = sorted(out.glob("*.svg"))
    first, last = (html.unescape(f.read_text()) for f in (frames[0], frames[-1]))
    # W's value is a map in every frame; its gradient's only once the backward wrote it
    assert first.count("data (4x5): min -2., max 2.75") == 1
    assert last.count("data (4x5): min -2., max 2.75") == 1
    # C's value is a map throughout; W_grad (= C) is one more map in the last frame only
    assert first.count("data (4x5): min -4., max 4.") == 1
    assert last.count("data (4x5): min -4., max 4.") == 2


def test_torch_mlp_weight_and_gradient(tmp_path):
    p = tmp_path / "mlp.py"
    p.write_text("import torch\ntorch.manual_seed(0)\nx = torch.randn(16, 8)\n"
                 "model = torch.nn.Sequential(torch.nn.Linear(8, 12), torch.nn.ReLU(), "
                 "torch.nn.Linear(12, 3))\nloss = model(x).pow(2).mean()\nloss.backward()\n")
    out = tmp_path / "mlp.dot"
    r = gg(p, "--tensor", "loss", "--heatmap", "--look", "full", "-o", out)
    assert r.returncode == 0, r.stderr
    dot = out.read_text()
    # model.0.weight (12x8) and its gradient both as maps; a 12-element bias stays words
    assert dot.count("data (12x8): min") == 2
    assert "data = [" in dot


def test_shell_graph_heatmap_and_values(tmp_path):
    """``%graph NAME --heatmap`` / ``--values N`` in the shell, so a session's handout figure
    shows the maps (the handout draws a %graph line through the same parser)."""
    from gradrepl.repl.session import Session

    import ast

    s = Session()
    lines = SCRIPT.splitlines()
    for node in ast.parse(SCRIPT).body:   # (one input per statement, as typed)
        s.run("\n".join(lines[node.lineno - 1:node.end_lineno]))
    out = tmp_path / "w.dot"
    r = s.run(f"%graph loss --heatmap -o {out}")
    assert "wrote" in r.output, r.output
    dot = html.unescape(out.read_text())
    assert dot.count('fixedsize="true"></td>') == 2 * 20 + 20   # W, C and W_grad: 20 cells each
    assert "data (4x5): min -4., max 4." in dot
    s.run(f"%graph loss --values 20 -o {out}")
    dot = out.read_text()
    assert 'fixedsize="true"' not in dot and "[[-2., -1.75, -1.5, -1.25, -1.], " in dot
    assert heatmap.ON is False and model.PREVIEW_ITEMS == 12   # (restored after the command)
    assert "--values must be 1 or more" in s.run("%graph loss --values 0").output


def test_compact_look_keeps_the_parameters_maps(tmp_path):
    """A model big enough for the compact look draws parameters on one line: with --heatmap
    they (and their gradients) keep their records, so their maps are seen."""
    p = tmp_path / "mlp.py"
    p.write_text("import torch\ntorch.manual_seed(0)\nx = torch.randn(8, 6)\n"
                 "model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), "
                 "torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))\n"
                 "loss = model(x).pow(2).mean()\nloss.backward()\n")
    out = tmp_path / "mlp.dot"
    assert gg(p, "--tensor", "loss", "--heatmap", "--look", "compact", "-o", out).returncode == 0
    dot = html.unescape(out.read_text())
    for shape in ("16x6", "16x16", "4x16"):   # each weight and its gradient
        assert dot.count(f"data ({shape}): min") == 2, shape
    assert "<b>tmp_0</b>&#160;" in out.read_text()   # (intermediates stay one line)


def test_nan_and_inf_are_grey_and_counted():
    a = np.arange(20.0).reshape(4, 5)
    a[0, 0], a[1, 1] = np.nan, np.inf
    h = heatmap.heat_of(a)
    assert heatmap.color(h.cells[0], h.scale) == heatmap.NAN_COLOR
    assert heatmap.color(h.cells[6], h.scale) == heatmap.NAN_COLOR
    assert (h.lo, h.hi, h.scale) == (1.0, 19.0, 19.0)   # the finite elements' range
    assert heatmap.caption(h) == "data (4x5, 2 NaN or inf (grey)): min 1., max 19."


def test_python_api():
    import gradrepl.paddle as paddle
    from gradrepl import viz

    W = paddle.to_tensor(np.arange(20, dtype="float32").reshape(4, 5), stop_gradient=False)
    loss = (W * W).sum()
    loss.backward()
    dot = viz.graph(loss, namespace={"W": W, "loss": loss}, heatmap=True).dot()
    assert "data (4x5): min 0., max 19." in dot and "data (4x5): min 0., max 38." in dot
    assert heatmap.ON is False   # (the setting restored)
    assert "fixedsize" not in viz.graph(loss, namespace={"W": W, "loss": loss}).dot()
