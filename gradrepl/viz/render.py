"""DOT -> SVG / PNG / PDF with Graphviz's layout.

The layout program is the system ``dot`` when one is on PATH, else the ``graphviz-pure`` binary
that pip installs with gradrepl (a Rust port of Graphviz: SVG and PNG, no PDF). PDF comes from a
system Graphviz, else from the SVG through svglib + reportlab when those are installed, else a
clear error naming the fix. ``GRADREPL_DOT`` names another binary.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

FORMATS = ("svg", "png", "pdf")
# ``limits.preexec``: the preexec_fn of the layout processes this thread starts (replay --safe's
# resource limits for Graphviz, ``repl/safe_budget.graphviz_preexec``); None: none
limits = threading.local()


class RenderError(RuntimeError):
    pass


def pure_binary() -> str | None:
    """The ``graphviz-pure`` executable of this Python's environment (or on PATH)."""
    here = Path(sys.executable).parent / "graphviz-pure"
    if here.exists():
        return str(here)
    return shutil.which("graphviz-pure")


def find_dot(prefer: str | None = None) -> tuple[str, str]:
    """(path, kind) of the layout binary: kind is "system" or "pure".

    ``prefer``: "system" or "pure" to insist on one (tests and benchmarks compare both).
    """
    env = os.environ.get("GRADREPL_DOT")
    if env and prefer is None:
        return env, "pure" if "graphviz-pure" in os.path.basename(env) else "system"
    if prefer in (None, "system"):
        system = shutil.which("dot")
        if system:
            return system, "system"
        if prefer == "system":
            raise RenderError("no system Graphviz `dot` on PATH")
    pure = pure_binary()
    if pure:
        return pure, "pure"
    raise RenderError("no Graphviz layout program found: install Graphviz (apt-get install "
                      "graphviz) or `pip install graphviz-pure`")


# Raster and page formats are capped (inches, Graphviz's ``size``: a larger drawing is scaled
# down to fit): graphviz-pure allocates the whole PNG at once (a 300-op graph asked 20 GB), and
# PDF viewers refuse pages beyond 200 inches. SVG keeps its natural size.
MAX_INCHES = {"png": "100,100", "pdf": "200,200"}
_FIT_KEEP = re.compile(r'\bgradrepl_fit="?keep\b')   # theme.Style.keep_text: text not shrunk
_BOX = re.compile(r'\bsize="(\d+(?:\.\d+)?),(\d+(?:\.\d+)?)(!?)"')
_DPI = re.compile(r'\bdpi="?(\d+(?:\.\d+)?)')
_SCREEN_DPI = re.compile(r'\bgradrepl_dpi="?(\d+(?:\.\d+)?)')
_SVG_OPEN = re.compile(r"<svg\b[^>]*>", re.S)
_TRANSFORM_SCALE = re.compile(r'<g id="graph0"[^>]*?transform="scale\(([0-9.]+)(?:[ ,]+([0-9.]+))?\)')
_FONT = re.compile(r'<text\b[^>]*?\bfont-size="([0-9.]+)"')
NATURAL = "1000,1000"   # a -Gsize that lays a picture out at its own size (it never scales up)
_natural_cache: dict = {}


def _head(source: str) -> str:
    """The graph attribute line of gradrepl's DOT (where size, dpi and the fit mark are)."""
    m = re.search(r"\n\tgraph \[[^\n]*", source[:4000])
    return m.group(0) if m else ""


def own_box(source: str):
    """(width, height, scale up) in inches of the picture's own ``size`` (``--size``), else
    None."""
    m = _BOX.search(_head(source))
    return (float(m.group(1)), float(m.group(2)), bool(m.group(3))) if m else None


def keeps_text(source: str) -> bool:
    return _FIT_KEEP.search(_head(source)) is not None


def natural_size(source: str, prefer: str | None = None, tight: bool = False
                 ) -> tuple[float, float]:
    """(width, height) in points of the picture laid out at its own size (no ``size``);
    ``tight``: with the ranks and nodes closer (``TIGHT``)."""
    key = (hash(source), prefer, tight)
    if key not in _natural_cache:
        text = run_dot(source, "svg", prefer, _size=NATURAL,
                       _extra=TIGHT if tight else ()).decode("utf-8")
        if len(_natural_cache) > 64:
            _natural_cache.clear()
        _natural_cache[key] = svg_size(text)
    return _natural_cache[key]


# a picture whose text is kept and that does not fit its box is tried again with its ranks
# and nodes closer before it is drawn larger than the box
TIGHT = ("-Granksep=0.2", "-Gnodesep=0.15")


def _keep_layout(source, fmt, prefer) -> list:
    """The extra arguments of a picture whose text is kept (``keeps_text``): none when it fits
    its box (scaled up to fill it), closer ranks when that makes it fit, else its own size."""
    box = own_box(source)
    if _fits(natural_size(source, prefer), box):
        return []
    if _fits(natural_size(source, prefer, tight=True), box):
        return list(TIGHT)
    return [f"-Gsize={MAX_INCHES.get(fmt, NATURAL)}"]


def _fits(natural, box) -> bool:
    return natural[0] <= box[0] * 72 + 0.5 and natural[1] <= box[1] * 72 + 0.5


def run_dot(source: str, fmt: str, prefer: str | None = None, timeout: float = 120,
            _size: str | None = None, _extra=()) -> bytes:
    """Lay out ``source`` and return the bytes of format ``fmt`` (svg, png or pdf).

    A picture drawn with ``--size`` and ``--font-size`` (``gradrepl_fit=keep``) is laid out
    first at its own size: if it fits the box it is scaled up to fill it, else drawn at its own
    size (PNG and PDF within ``MAX_INCHES``): its text is never made smaller than asked."""
    binary, _kind = find_dot(prefer)
    args = [binary, f"-T{fmt}"]
    box = own_box(source)
    if _size is not None:
        args.append(f"-Gsize={_size}")
        args.extend(_extra)
    elif box is not None and keeps_text(source):
        args.extend(_keep_layout(source, fmt, prefer))
    elif fmt in MAX_INCHES and box is None:  # (a -G would override --size)
        args.append(f"-Gsize={MAX_INCHES[fmt]}")
    screen_dpi = _SCREEN_DPI.search(_head(source)) if fmt == "png" else None
    if screen_dpi is not None:   # --size 1080p: the screen's pixels
        args.append(f"-Gdpi={screen_dpi.group(1)}")
    try:
        proc = subprocess.run(args, input=source.encode("utf-8"),
                              capture_output=True, timeout=timeout,
                              preexec_fn=getattr(limits, "preexec", None))
    except subprocess.TimeoutExpired:
        raise RenderError(f"{os.path.basename(binary)} took longer than {timeout:.0f} s; "
                          "cut the picture with --depth N or --collapse") from None
    if proc.returncode != 0 or not proc.stdout:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RenderError(f"{os.path.basename(binary)} -T{fmt} failed: "
                          f"{err[-1] if err else 'exit ' + str(proc.returncode)}")
    if fmt == "svg" and _size is None and box is None:   # (its own size: remembered)
        try:
            _natural_cache[(hash(source), prefer)] = svg_size(proc.stdout.decode("utf-8"))
        except ValueError:
            pass
    return proc.stdout


# ------------------------------------------------------------------ sizes read from an SVG
def _num(text) -> float:
    return float(re.sub(r"[a-z%]+$", "", text.strip()))


def svg_size(svg_text: str) -> tuple[float, float]:
    """(width, height) in points of an SVG that Graphviz wrote."""
    m = _SVG_OPEN.search(svg_text)
    if m is None:
        raise ValueError("no <svg> element")
    tag = m.group(0)
    w = re.search(r'\bwidth="([^"]+)"', tag)
    h = re.search(r'\bheight="([^"]+)"', tag)
    if w is None or h is None:
        raise ValueError("an <svg> without width and height")
    return _num(w.group(1)), _num(h.group(1))


def svg_scale(svg_text: str) -> float:
    """How much the drawing's own units are enlarged on the page: the graph's ``scale()``
    transform times the root's width over its viewBox width."""
    m = _TRANSFORM_SCALE.search(svg_text)
    s = float(m.group(1)) if m else 1.0
    tag = _SVG_OPEN.search(svg_text)
    if tag is not None:
        vb = re.search(r'\bviewBox="([^"]+)"', tag.group(0))
        if vb is not None:
            parts = vb.group(1).replace(",", " ").split()
            if len(parts) == 4 and float(parts[2]) > 0:
                s *= svg_size(svg_text)[0] / float(parts[2])
    return s


def text_points(svg_text: str) -> list[float]:
    """The rendered size, in points of the page, of every text of an SVG Graphviz wrote (its
    ``font-size`` times ``svg_scale``), in document order."""
    s = svg_scale(svg_text)
    return [float(f) * s for f in _FONT.findall(svg_text)]


def fit_note(source: str, fmt: str = "svg", prefer: str | None = None) -> str | None:
    """One sentence when the picture is not drawn at the size one would expect: larger than
    ``--size`` because its text is kept (``keep_text``), shrunk to fit ``--size``, or shrunk to
    PNG/PDF's limit (``MAX_INCHES``: a long ``--rankdir LR`` strip); None otherwise."""
    w, h = natural_size(source, prefer)
    box = own_box(source)
    m = re.search(r'\n\tnode \[[^\n]*?fontsize="?([0-9.]+)', source[:4000])
    points = float(m.group(1)) if m else 12.0
    smallest = points * 9.0 / 12.0
    dm = _DPI.search(_head(source))
    dpi = float(dm.group(1)) if dm else 96.0
    if fmt == "png" and _SCREEN_DPI.search(_head(source)):
        dpi = float(_SCREEN_DPI.search(_head(source)).group(1))
    lr = re.search(r'\brankdir="?LR', _head(source)) is not None
    size_in = f"{w / 72:.1f} x {h / 72:.1f} in"
    cut = ("cut it (--layers 1, --collapse, --depth N)"
           + (" or draw it top to bottom (no --rankdir LR)" if lr else ""))
    if box is not None and keeps_text(source):
        if _fits((w, h), box) or _fits(natural_size(source, prefer, tight=True), box):
            return None
        capped = ""
        if fmt in MAX_INCHES:
            cw, ch = (float(x) for x in MAX_INCHES[fmt].split(","))
            s = min(cw * 72 / w, ch * 72 / h)
            if s < 1:
                capped = (f" (but {fmt.upper()} is at most {cw:g} x {ch:g} in: shrunk to "
                          f"{s:.0%}, text {points * s:.1f} pt)")
        return (f"the drawing is {size_in} with its text at {points:g} pt: larger than --size "
                f"{box[0]:g}x{box[1]:g}, so it is drawn at its own size, not shrunk{capped} (at "
                f"{box[0]:g}x{box[1]:g} its text would be "
                f"{points * min(box[0] * 72 / w, box[1] * 72 / h):.1f} pt); "
                f"it scrolls in the player and a PDF page grows to hold it; to fit, {cut}")
    if box is not None:
        s = min(box[0] * 72 / w, box[1] * 72 / h)
        if s >= 1:
            return None
        px = smallest * s * dpi / 72
        return (f"the drawing ({size_in}) was shrunk to {s:.0%} to fit --size "
                f"{box[0]:g}x{box[1]:g}: its smallest text is {smallest * s:.1f} pt "
                f"({px:.0f} px at {dpi:g} dpi); --font-size N keeps text at N points "
                f"(the drawing then grows past the box), or {cut}")
    cap = MAX_INCHES.get(fmt)
    if cap is None:
        return None
    cw, ch = (float(x) for x in cap.split(","))
    s = min(cw * 72 / w, ch * 72 / h)
    if s >= 1:
        return None
    px = smallest * s * dpi / 72
    return (f"{fmt.upper()} is at most {cw:g} x {ch:g} in: the drawing ({size_in}"
            f"{', left to right' if lr else ''}) was shrunk to {s:.0%}, its smallest text "
            f"{px:.0f} px at {dpi:g} dpi; SVG keeps its own size, or {cut}")


def svg(source: str, prefer: str | None = None) -> str:
    return run_dot(source, "svg", prefer).decode("utf-8")


def png(source: str, prefer: str | None = None) -> bytes:
    return run_dot(source, "png", prefer)


def pdf(source: str, prefer: str | None = None) -> bytes:
    binary, kind = find_dot(prefer)
    if kind == "system":
        return run_dot(source, "pdf", prefer)
    try:
        from reportlab.graphics import renderPDF
        from svglib.svglib import svg2rlg
    except ImportError:
        raise RenderError("PDF needs a system Graphviz (apt-get install graphviz) or "
                          "`pip install svglib reportlab`; SVG and PNG work without them") \
            from None
    import io

    if own_box(source) is not None:   # (--size, and the text kept: run_dot decides)
        svg_text = run_dot(source, "svg", prefer)
    else:
        svg_text = run_dot(source, "svg", prefer, _size=MAX_INCHES["pdf"])
    drawing = svg2rlg(io.BytesIO(svg_text))
    return renderPDF.drawToString(drawing)


def write_atomic(path, data) -> None:
    """Write ``data`` (str or bytes) to ``path`` through a temporary file: a failure leaves
    nothing half-written."""
    path = Path(path)
    if isinstance(data, str):  # (a name with a lone surrogate: written as U+FFFD, not a crash)
        from .sanitize import text

        data = text(data)
    mode = "w" if isinstance(data, str) else "wb"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent or "."))
    try:
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it owner-only; a picture is not secret
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
