"""How a picture looks on a slide or a page: palettes and the slide options, as tables.

``PALETTES`` holds one row per theme, one column per part of the picture. ``light`` is the Paddle
guide's palette (every picture drawn without options uses it, byte for byte as before);
``dark`` is for a projector's dark background: dark fills under light text, bright edges;
``print`` survives a greyscale printer: greys only, and the kinds of edges told apart by line
style and weight (``EDGE_STYLES``), never by colour alone.

``Style`` gathers the slide options of ``gradrepl graph``, ``%graph`` and ``viz.graph``:
``rankdir`` (TB, LR), ``size`` (inches, ``WxH``, or a screen: ``1080p``, the big-text look for
projectors), ``dpi``, ``theme`` and ``font_size``. The default ``Style()`` changes nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

THEMES = ("light", "dark", "print")
RANKDIRS = ("TB", "LR", "BT", "RL")

# part of the picture -> colour, per theme. ``op`` and ``backward`` are lists by derivative
# order (0: the forward's own ops, 1: made by a first create_graph backward, ...).
PALETTES = {
    "light": {
        "background": None,             # Graphviz's default (white)
        "text": None,                   # Graphviz's default (black)
        "tensor": "#e3f9c9", "tensor_stop": "#cfcf1f", "param": "#d3efb0",
        "op": ["#ccccff", "#ffc58a", "#d2adff", "#a8e6d6"],
        "grad_var": "#66b2ff",
        "backward": ["#cce5ff", "#ffd9a8", "#e3c9ff", "#c9f2e7"],
        "released": "#e4e4e4", "released_border": "#9a9a9a", "released_text": "#7a7a7a",
        "running": "#fff08a", "ready": "#e08a00",
        "pending": "#e8473f", "grad_data": "#c8102e", "saved": "#8c8c8c",
        "border": "#333333", "edge": "#333333", "statement": "#333333",
        "cell": "white", "link": "#555555", "accumulate": "#1f5fbf", "highlight": "#ff7f00",
        "layer": "#efe3ff",             # a Layer call drawn as one box (--layers N)
    },
    "dark": {
        "background": "#1b1d23", "text": "#f2f2f2",
        "tensor": "#2f5a1e", "tensor_stop": "#6a6a10", "param": "#3f6e26",
        "op": ["#3e3e96", "#8a551a", "#5e3a92", "#23695b"],
        "grad_var": "#1d5396",
        "backward": ["#24476b", "#6e4a17", "#4c2f78", "#1f5a4f"],
        "released": "#44464d", "released_border": "#8d8f96", "released_text": "#c4c6cc",
        "running": "#7a6400", "ready": "#ffb74d",
        "pending": "#ff6e63", "grad_data": "#ffa199", "saved": "#a9abb2",
        "border": "#d6d8de", "edge": "#e6e8ee", "statement": "#d6d8de",
        "cell": "#2a2d35", "link": "#b9bcc4", "accumulate": "#7fb2ff", "highlight": "#ffa040",
        "layer": "#4a3870",
    },
    "print": {
        "background": None, "text": None,
        "tensor": "#f4f4f4", "tensor_stop": "#b8b8b8", "param": "#e2e2e2",
        "op": ["#d4d4d4", "#a8a8a8", "#8c8c8c", "#707070"],
        "grad_var": "#c4c4c4",
        "backward": ["#ececec", "#bdbdbd", "#a0a0a0", "#848484"],
        "released": "#fafafa", "released_border": "#8a8a8a", "released_text": "#6a6a6a",
        "running": "#dcdcdc", "ready": "#000000",
        "pending": "#000000", "grad_data": "#000000", "saved": "#6e6e6e",
        "border": "#000000", "edge": "#000000", "statement": "#333333",
        "cell": "white", "link": "#444444", "accumulate": "#000000", "highlight": "#000000",
        "layer": "#e8e8e8",
    },
}

# kinds of edges -> the attributes that set them apart besides colour, per theme. ``light`` and
# ``dark`` keep the guide's lines (colour carries the kind); ``print`` gives each kind its own
# line: data flow solid, grad_pending_ops bold and thick, saved tensors dashed, the links from a
# tensor to its gradient variable and from an op to its backward op dotted.
EDGE_STYLES = {
    "light": {"pending": {"penwidth": "1.5"}, "saved": {"style": "solid"},
              "saved_released": {"style": "dashed"},
              "link": {"style": "dotted"}, "accumulate": {}},
    "print": {"pending": {"penwidth": "2.5", "style": "bold"},
              "saved": {"style": "dashed", "penwidth": "0.8"},
              "saved_released": {"style": "dashed", "penwidth": "0.8"},
              "link": {"style": "dotted", "penwidth": "1.2"},
              "accumulate": {"penwidth": "2.5", "style": "bold"}},
}
EDGE_STYLES["dark"] = EDGE_STYLES["light"]


def palette(theme: str | None) -> dict:
    """The colours of ``theme`` (default light); a ValueError names the themes."""
    try:
        return PALETTES[theme or "light"]
    except KeyError:
        raise ValueError(f"unknown theme {theme!r}: choose one of {', '.join(THEMES)}") from None


def edge_styles(theme: str | None) -> dict:
    return EDGE_STYLES[theme or "light"]


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[x,X]\s*(\d+(?:\.\d+)?)\s*$")

# screens by name (``--size 1080p``): (width, height) in inches and the dpi that makes their
# pixels. Such a size is the big-text look for projectors: text is never shrunk to fit the
# screen (the drawing grows past it and scrolls, a PDF page grows with it) and the font is
# BIG_TEXT points unless asked otherwise, so that the smallest text of a picture (9 of the
# default 12 points: 14.25 points, which Graphviz draws at 14, 18.7 CSS px) stays at least
# MIN_TEXT_PX on that screen.
SCREENS = {"1080p": ("16", "9", 120), "720p": ("13.333", "7.5", 96),
           "projector": ("16", "9", 120)}
BIG_TEXT = 19.0
MIN_TEXT_PX = 18
SMALLEST = 9.0   # points of the smallest text of a default picture (its records' small rows)


def _screen(text):
    return SCREENS.get(str(text).strip().lower()) if text is not None else None


def parse_size(text) -> str | None:
    """``16x9`` (inches, width x height) -> Graphviz's ``16,9!`` (the drawing scaled to fill
    that box, up or down, keeping its proportions); a screen's name (``1080p``, ``720p``,
    ``projector``) -> its inches; None stays None."""
    if text is None:
        return None
    screen = _screen(text)
    if screen is not None:
        return f"{screen[0]},{screen[1]}!"
    m = _SIZE.match(str(text))
    if m is None or not (0 < float(m.group(1)) <= 100 and 0 < float(m.group(2)) <= 100):
        raise ValueError(f"--size wants WIDTHxHEIGHT in inches, each at most 100 (like 16x9), "
                         f"or a screen: {', '.join(SCREENS)}; got {text!r}")
    return f"{m.group(1)},{m.group(2)}!"


def size_inches(text) -> tuple[float, float] | None:
    """``--size`` as (width, height) in inches."""
    spec = parse_size(text)
    if spec is None:
        return None
    w, h = spec.rstrip("!").split(",")
    return float(w), float(h)


@dataclass(frozen=True)
class Style:
    """Slide options; every field None means the picture as gradrepl always drew it.

    With ``size`` and ``font_size`` both given (or a screen's name as ``size``), the text keeps
    at least ``font_size`` points at that size (``keep_text``): a drawing smaller than the box
    is scaled up to fill it, a larger one is drawn at its own size (it scrolls; a PDF page is
    as large as it), never shrunk, and ``render.fit_note`` says so. With ``size`` alone the
    drawing is scaled to the box, up or down (a whole model on one slide)."""

    rankdir: str | None = None      # "TB" (top to bottom, the default) or "LR"
    size: str | None = None         # "16x9": inches, width x height; or "1080p", "720p"
    dpi: float | None = None        # pixels per inch of PNG output (Graphviz's default 96)
    theme: str | None = None        # "light" (default), "dark", "print"
    font_size: float | None = None  # points of the node text (default 12); the rest scales

    def __post_init__(self):
        if self.rankdir is not None and str(self.rankdir).upper() not in RANKDIRS:
            raise ValueError(f"unknown rankdir {self.rankdir!r}: choose one of TB, LR")
        if self.rankdir is not None:
            object.__setattr__(self, "rankdir", str(self.rankdir).upper())
        palette(self.theme)
        parse_size(self.size)
        if self.dpi is not None and not 0 < float(self.dpi) <= 600:
            raise ValueError(f"--dpi must be more than 0 and at most 600, got {self.dpi}")
        if self.font_size is not None and not float(self.font_size) > 0:
            raise ValueError(f"--font-size must be more than 0, got {self.font_size}")
        if self.screen is not None and self.font_size is None:   # the big-text look
            object.__setattr__(self, "font_size", BIG_TEXT)

    @property
    def default(self) -> bool:
        return self == DEFAULT

    @property
    def screen(self):
        """(width, height, dpi) of a size given by a screen's name, else None."""
        return _screen(self.size)

    @property
    def keep_text(self) -> bool:
        """Text is never shrunk below ``font_size`` to fit ``size`` (see the class doc)."""
        return self.size is not None and self.font_size is not None

    @property
    def points(self) -> float:
        """The node text's points (12 unless asked)."""
        return float(self.font_size) if self.font_size is not None else 12.0

    def graph_attrs(self) -> dict:
        """What the options add to the graph's attributes (none by default)."""
        out = {}
        if self.size is not None:
            out["size"] = parse_size(self.size)
            if self.keep_text:   # (read by render.run_dot: lay out, then scale up only)
                out["gradrepl_fit"] = "keep"
        if self.dpi is not None:
            out["dpi"] = _num(self.dpi)
        elif self.screen is not None:   # the screen's pixels in PNG only (Graphviz scales an
            out["gradrepl_dpi"] = _num(self.screen[2])   # SVG by dpi too): render.run_dot
        return out

    def scale(self, points) -> str:
        """A font size of the default picture (``points``), scaled to ``font_size``."""
        if self.font_size is None:
            return str(points)
        return _num(float(points) * float(self.font_size) / 12.0)


def _num(v) -> str:
    v = float(v)
    return str(int(v)) if v == int(v) else f"{v:.2f}".rstrip("0").rstrip(".")


DEFAULT = Style()
