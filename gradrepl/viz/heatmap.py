"""Heat maps of arrays too large to show whole (``gradrepl graph --heatmap``).

Small arrays are written out whole with their shape (``--values N``, ``model.preview``); with
heat maps on, an array of more than N elements is drawn as a grid of coloured cells inside its
record, the tensor's value and its gradient alike, so an MLP's weight and its gradient can be
seen at a glance:

- a diverging scale: zero white, positive red, negative blue, each map scaled to its own largest
  magnitude (written under the map: ``±0.53``), NaN grey; min, max and the shape written above;
  under ``--theme print`` a greyscale instead (``SCALES``, chosen by ``THEME_SCALE``): black
  the most negative, mid grey zero, white the most positive, written the same way, so that a
  handout printed in black and white still tells the sign (red and blue print as about the
  same grey); NaN there is a blank cell with a black frame;
- a matrix as its rows and columns; a vector as one row (a long one wrapped into rows); an
  array of more axes as (its first axes) x (the rest), as square as can be, axes of size 1
  dropped (``as_matrix``); more than ``MAX_ROWS`` x ``MAX_COLS`` cells are block means (said:
  ``2x4 blocks``).

The grid rides on the preview text itself (:class:`Preview`, a ``str`` with a ``heat``
attribute), so it goes wherever the value's text goes (the model's records, the step frames'
values, copies) and nothing else changes: text, JSON and the terminal show the words. The cells
are Graphviz HTML-table cells (``bgcolor``), which the system ``dot`` and graphviz-pure draw
alike in SVG, PNG and PDF, and which the player and handouts show as any other SVG.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

MAX_ROWS = 24          # cells of a map, at most (larger arrays: block means)
MAX_COLS = 32
MAP_WIDTH = 160.0      # points: the width a map aims at (cells between MIN_CELL and MAX_CELL)
MIN_CELL = 4.0
MAX_CELL = 12.0
POSITIVE = (0xb2, 0x18, 0x2b)   # the far ends of the scale (ColorBrewer's RdBu ends)
NEGATIVE = (0x21, 0x66, 0xac)
WHITE = (0xff, 0xff, 0xff)
NAN_COLOR = "#9a9a9a"
FRAME_COLOR = "#8c8c8c"


@dataclass(frozen=True)
class Scale:
    """A map's colours: ``negative`` at -scale, ``zero`` at 0, ``positive`` at +scale, linear
    in between; ``nan`` a cell holding no finite value (None: left blank, framed in black);
    ``note`` the words under the map (``{s}``: the scale), ``nan_word`` how the caption names
    the NaN cells."""

    negative: tuple
    zero: tuple
    positive: tuple
    nan: str | None
    note: str
    nan_word: str


SCALES = {
    "diverging": Scale(NEGATIVE, WHITE, POSITIVE, NAN_COLOR,
                       "blue -{s} \u00b7 white 0 \u00b7 red +{s}", "grey"),
    # greyscale for print: one ramp of lightness, so the sign survives a black-and-white printer
    "grey": Scale((0x00, 0x00, 0x00), (0x80, 0x80, 0x80), WHITE, None,
                  "greyscale: black -{s} \u00b7 mid grey 0 \u00b7 white +{s}",
                  "blank, framed"),
}
THEME_SCALE = {"light": "diverging", "dark": "diverging", "print": "grey"}


def scale_of(theme: str | None) -> Scale:
    """The colour scale of a picture theme (light and dark: diverging; print: greyscale)."""
    return SCALES[THEME_SCALE.get(theme or "light", "diverging")]

ON = False   # heat maps for arrays larger than model.PREVIEW_ITEMS (``enable``)


def enable(on=True) -> bool:
    """Turn heat maps on or off for the previews made from now on; returns the old setting."""
    global ON
    old = ON
    ON = bool(on)
    return old


@dataclass(frozen=True)
class Heat:
    """An array as a grid of cells: ``cells`` row-major (``rows`` x ``cols``), each the mean of a
    ``block`` of the array seen as a matrix (``matrix``, see :func:`as_matrix`), None past the
    end of a wrapped vector; ``lo``/``hi`` the array's own smallest
    and largest finite values, ``scale`` the largest magnitude (the map's red and blue ends)."""

    shape: tuple
    matrix: tuple        # the array as (rows, columns)
    rows: int
    cols: int
    block: tuple         # elements per cell, (down, across)
    cells: tuple         # floats, NaN where a block holds no finite value
    lo: float
    hi: float
    scale: float
    wrapped: bool = False   # a long vector drawn in rows of MAX_COLS (None: past its end)
    nonfinite: int = 0      # NaN and inf elements (grey where a cell holds only those)


class Preview(str):
    """A value's preview text that carries its heat map (``heat``)."""

    heat: Heat


def as_matrix(shape) -> tuple:
    """How an array of ``shape`` is laid out as a map: (rows, columns, wrapped). Axes of size 1
    are dropped (a batch of one); a vector is one row, wrapped into rows of ``MAX_COLS`` when
    longer (read like text); an array of more axes is (the first k axes) x (the rest), the k
    whose map is closest to square (a weight [out, in]: out x in; a conv weight [out, in, kh,
    kw]: out x in*kh*kw; an image [C, H, W]: C*H x W)."""
    dims = [int(d) for d in shape if d != 1] or [1]
    if len(dims) == 1:
        n = dims[0]
        return (1, n, False) if n <= MAX_COLS else (-(-n // MAX_COLS), MAX_COLS, True)
    best = None
    for k in range(1, len(dims)):
        r, c = math.prod(dims[:k]), math.prod(dims[k:])
        ratio = max(r / c, c / r)
        if best is None or ratio < best[0]:
            best = (ratio, r, c)
    return (best[1], best[2], False)


def heat_of(arr) -> Heat | None:
    """The heat map of a real array (None for complex, strings, objects or an empty array)."""
    a = np.asarray(arr)
    if a.size == 0 or a.dtype.kind not in "fiub":
        return None
    r, c, wrapped = as_matrix(a.shape)
    v = a.reshape(-1).astype(np.float64)
    step = 1
    if wrapped and v.size > MAX_ROWS * MAX_COLS:   # a long vector: means of runs, then wrapped
        step = -(-v.size // (MAX_ROWS * MAX_COLS))
        runs = -(-v.size // step)
        pad = np.full(runs * step, np.nan)
        pad[:v.size] = v
        with warnings.catch_warnings():   # (a run of NaN only: NaN, said grey)
            warnings.simplefilter("ignore", RuntimeWarning)
            v = np.nanmean(pad.reshape(runs, step), axis=1)
        r = -(-runs // MAX_COLS)
    n = v.size
    flat = np.full(r * c, np.nan)
    flat[:n] = v
    there = np.zeros(r * c, bool)   # (a wrapped vector's last row: cells past its end)
    there[:n] = True
    m, there = flat.reshape(r, c), there.reshape(r, c)
    br, bc = -(-r // MAX_ROWS), -(-c // MAX_COLS)   # block sizes (ceil)
    rows, cols = -(-r // br), -(-c // bc)
    finite = np.isfinite(m) & there
    # block means over the finite values (a ragged last block: its own count)
    pad = np.zeros((rows * br, cols * bc))
    cnt = np.zeros((rows * br, cols * bc))
    inn = np.zeros((rows * br, cols * bc))
    pad[:r, :c] = np.where(finite, m, 0.0)
    cnt[:r, :c] = finite
    inn[:r, :c] = there
    s = pad.reshape(rows, br, cols, bc).sum(axis=(1, 3))
    k = cnt.reshape(rows, br, cols, bc).sum(axis=(1, 3))
    present = inn.reshape(rows, br, cols, bc).sum(axis=(1, 3)) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(k > 0, s / np.maximum(k, 1), np.nan)
    if finite.any():
        lo, hi = float(m[finite].min()), float(m[finite].max())
    else:
        lo = hi = float("nan")
    scale = max(abs(lo), abs(hi)) if finite.any() else 0.0
    cells = tuple(float(v) if p else None for v, p in zip(means.reshape(-1),
                                                           present.reshape(-1)))
    if step > 1:   # (min and max of the elements themselves, not of the runs' means)
        fin = a[np.isfinite(a)] if a.dtype.kind == "f" else a.reshape(-1)
        lo, hi = (float(fin.min()), float(fin.max())) if fin.size else (lo, hi)
        scale = max(abs(lo), abs(hi)) if fin.size else scale
        br = step
    bad = int(a.size - np.count_nonzero(np.isfinite(a))) if a.dtype.kind == "f" else 0
    return Heat(tuple(int(d) for d in a.shape), (r, c), rows, cols, (br, bc), cells, lo, hi,
                scale, wrapped, bad)


def attach(text: str, arr) -> str:
    """``text`` as a :class:`Preview` carrying ``arr``'s heat map (``text`` itself when the
    array has none)."""
    heat = heat_of(arr)
    if heat is None:
        return text
    p = Preview(text)
    p.heat = heat
    return p


def of(preview) -> Heat | None:
    """The heat map a preview carries, else None."""
    return getattr(preview, "heat", None)


def color(v: float, scale: float, theme: str | None = None) -> str | None:
    """The cell colour of ``v`` on a map whose ends are ``±scale``: by default white at 0, red
    positive, blue negative, linear in between, grey for NaN; under ``theme="print"`` black
    to mid grey to white, None (a blank cell) for NaN (``SCALES``)."""
    sc = scale_of(theme)
    if v != v:
        return sc.nan
    mid = sc.zero
    if scale <= 0 or v == 0:
        r, g, b = mid
    else:
        t = min(1.0, abs(v) / scale)
        end = sc.positive if v > 0 else sc.negative
        r, g, b = (round(w + (e - w) * t) for w, e in zip(mid, end))
    return f"#{r:02x}{g:02x}{b:02x}"


def cell_size(heat: Heat) -> float:
    """Points per cell: the map about ``MAP_WIDTH`` wide, cells square."""
    return max(MIN_CELL, min(MAX_CELL, MAP_WIDTH / max(heat.cols, 1)))


def _num(v: float) -> str:
    from .fmt import fmt_number

    return fmt_number(v)


def caption(heat: Heat, what: str = "data", theme: str | None = None) -> str:
    """The words above a map: ``data (4x8): min -0.528, max 0.447`` (and how it was binned)."""
    shape = "x".join(str(s) for s in heat.shape) or "scalar"
    laid = ""
    if heat.wrapped:
        laid = f", in rows of {heat.matrix[1]}"
    elif tuple(heat.shape) != heat.matrix and len(heat.shape) != 1:
        laid = f", drawn as {heat.matrix[0]}x{heat.matrix[1]}"
    if heat.wrapped and heat.block[0] > 1:
        laid += f", cells are means of {heat.block[0]} consecutive elements"
    elif heat.block != (1, 1):
        laid += f", cells are means of {heat.block[0]}x{heat.block[1]} blocks"
    if heat.nonfinite:
        laid += f", {heat.nonfinite} NaN or inf ({scale_of(theme).nan_word})"
    return f"{what} ({shape}{laid}): min {_num(heat.lo)}, max {_num(heat.hi)}"


def scale_note(heat: Heat, theme: str | None = None) -> str:
    """The scale written under a map: ``blue -4. · white 0 · red +4.`` (print: greyscale)."""
    return scale_of(theme).note.format(s=_num(heat.scale))


def grid(heat: Heat, theme: str | None = None) -> str:
    """The map as a Graphviz HTML table (one ``<td bgcolor>`` a cell, no text; under the print
    theme a NaN cell is blank with a black frame)."""
    size = cell_size(heat)
    s = f"{size:g}"
    w = f"{size * heat.cols:g}"
    h = f"{size * heat.rows:g}"
    out = [f'<table border="1" color="{FRAME_COLOR}" cellborder="0" cellspacing="0" '
           f'cellpadding="0" fixedsize="true" width="{w}" height="{h}">']
    cells = heat.cells
    scale = heat.scale
    blank = f'<td width="{s}" height="{s}" fixedsize="true"></td>'
    framed = f'<td border="1" color="#000000" width="{s}" height="{s}" fixedsize="true"></td>'
    for i in range(heat.rows):
        row = cells[i * heat.cols:(i + 1) * heat.cols]
        tds = []
        for v in row:
            c = color(v, scale, theme) if v is not None else None
            tds.append(blank if v is None else framed if c is None else
                       f'<td bgcolor="{c}" width="{s}" height="{s}" fixedsize="true"></td>')
        out.append("<tr>" + "".join(tds) + "</tr>")
    out.append("</table>")
    return "".join(out)


def rows(preview, cell: str, what: str = "data", text_color: str | None = None,
         bold: bool = False, theme: str | None = None) -> list | None:
    """A record's rows for a value whose preview carries a heat map: the caption (in
    ``text_color``, bold if asked), the map and its scale, coloured for the picture's
    ``theme``; None when it carries none."""
    heat = of(preview)
    if heat is None:
        return None
    from .sanitize import esc

    words = esc(caption(heat, what, theme))
    if bold:
        words = f"<b>{words}</b>"
    if text_color:
        words = f'<font color="{text_color}">{words}</font>'
    return [f'<tr><td align="left" bgcolor="{cell}">{words}<br/>'
            f'<font point-size="9">{esc(scale_note(heat, theme))}</font></td></tr>',
            f'<tr><td bgcolor="{cell}">{grid(heat, theme)}</td></tr>']
