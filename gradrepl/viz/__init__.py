"""Pictures of the engine: the forward and backward graphs a tensor came from.

    >>> from gradrepl import viz
    >>> pic = viz.graph(e, view="both", namespace=globals())
    >>> pic.dot()            # DOT text (deterministic)
    >>> pic.svg()            # SVG text (system dot, else the graphviz-pure binary)
    >>> pic.render("e.png")  # .svg .png .pdf .dot .json .txt, by the extension
    >>> print(pic.text())    # the same picture as text for the terminal

In Jupyter a Picture shows itself inline (``_repr_svg_``). Modules: ``model`` (the data),
``dot`` (DOT text), ``render`` (Graphviz), ``terminal`` (text), ``transform`` (collapse, cuts),
``steps`` (the backward pass frame by frame), ``player`` (the HTML player of the frames),
``capture`` (running a script and recording where its nodes came from).
"""
from __future__ import annotations

import json
from pathlib import Path

from . import model as _model
from .model import VIEWS

EXTENSIONS = (".svg", ".png", ".pdf", ".dot", ".json", ".txt")


class Picture:
    """A drawn graph: the model plus how to show it."""

    def __init__(self, graph, view="both", chain=False, title=None, style=None, look="auto"):
        if view not in VIEWS:
            raise ValueError(f"unknown view {view!r}: choose one of {', '.join(VIEWS)}")
        from .dot import check_look

        self.look = check_look(look)  # full | compact | auto (dot.LOOKS)
        self._model = graph
        self._flat = None    # a plain picture's snapshot (fast.py): its DOT without the model
        self._build = None   # () -> the model, built when first asked for (plain pictures)
        self.view = view
        self.chain = chain
        self.title = title
        self.style = style  # slide options (theme.Style): rankdir, size, dpi, theme, font size

    @property
    def model(self):
        """The picture model (``model.Graph``); a plain picture builds it when first asked."""
        if self._model is None and self._build is not None:
            self._model = self._build()
        return self._model

    @model.setter
    def model(self, graph):
        self._model = graph
        self._flat = None

    def dot(self) -> str:
        if self._flat is not None and not self.chain:
            from .fast import to_dot as flat_dot

            return flat_dot(self._flat, view=self.view, title=self.title, style=self.style,
                            look=self.look)
        from .dot import to_dot

        return to_dot(self.model, view=self.view, chain=self.chain, title=self.title,
                      style=self.style, look=self.look)

    def svg(self, prefer=None) -> str:
        from . import render

        return render.svg(self.dot(), prefer)

    def png(self, prefer=None) -> bytes:
        from . import render

        return render.png(self.dot(), prefer)

    def pdf(self, prefer=None) -> bytes:
        from . import render

        return render.pdf(self.dot(), prefer)

    def text(self, color=False, width=None) -> str:
        from .terminal import render_text

        return render_text(self.model, view=self.view, color=color, width=width)

    def json(self) -> str:
        return json.dumps(self.model.to_dict(), indent=1, ensure_ascii=False) + "\n"

    def data(self, fmt: str, prefer=None):
        """The picture as ``fmt`` (svg, png, pdf, dot, json, txt): str or bytes."""
        makers = {"svg": self.svg, "png": self.png, "pdf": self.pdf}
        if fmt in makers:
            return makers[fmt](prefer)
        if fmt == "dot":
            return self.dot()
        if fmt == "json":
            return self.json()
        if fmt == "txt":
            return self.text(color=False)
        raise ValueError(f"unknown picture format {fmt!r}: use one of "
                         f"{', '.join(e[1:] for e in EXTENSIONS)}")

    def render(self, path, prefer=None) -> Path:
        """Write the picture to ``path``; the format follows the extension. Nothing is left
        half-written on failure."""
        from .render import write_atomic

        path = Path(path)
        ext = path.suffix.lower()
        if ext not in EXTENSIONS:
            raise ValueError(f"unknown picture extension {ext or '(none)'!r}: use one of "
                             f"{', '.join(EXTENSIONS)}")
        write_atomic(path, self.data(ext[1:], prefer))
        return path

    def _repr_svg_(self):
        from .sanitize import svg as clean_svg

        return clean_svg(self.svg())  # (inline in a notebook page: only what draws)

    def __repr__(self):
        m = self.model
        return (f"<gradrepl picture ({self.view}): {len(m.tensors)} tensors, {len(m.ops)} ops, "
                f"{len(m.backward_ops)} backward ops>")


def graph(tensor, view="both", names=None, namespace=None, recorder=None, chain=False,
          collapse=False, depth=None, to=None, title=None, layers=None, rankdir=None, size=None,
          dpi=None, theme=None, font_size=None, look="auto", heatmap=None) -> Picture:
    """The picture of everything ``tensor`` (or a list of tensors) was computed from.

    ``namespace``: a dict of variables (``globals()``) to name the tensors by; ``names``: a
    precomputed :func:`model.names_from_namespace`; ``recorder``: an engine provenance
    ``Recorder`` that watched the run (source statements, Layer calls; default: the active
    one, a notebook's); ``chain``: write the chain-rule arithmetic on each backward op;
    ``collapse``: each Layer call as one node;
    ``depth``: keep ops at most N steps from the target; ``to``: keep only what lies between
    the tensor named ``to`` and the target; ``layers``: Layer calls nested deeper than N as
    one box each (a whole model on one slide).

    Slide options (the defaults draw the picture as always): ``rankdir`` "TB" or "LR";
    ``size`` "16x9" (inches: the drawing scaled to fill it); ``dpi`` of PNG output; ``theme``
    "light", "dark" (projectors) or "print" (greyscale); ``font_size`` in points (default 12);
    ``look``: "full" (every tensor, gradient and backward op as its record), "compact" (the
    tensors without a name of their own, shown as tmp_N, and the parameters, their gradients and
    the backward ops on one line each, their rows in the SVG tooltips) or "auto" (compact when the picture would draw more than
    ``dot.LOOK_LIMIT`` (40) tensors and gradient variables after the cuts, or
    ``dot.LAYERS_LOOK_LIMIT`` (20) with ``layers``).

    ``heatmap``: True draws arrays of more than ``model.PREVIEW_ITEMS`` (12) elements as heat
    maps, the values and the gradients (``gradrepl graph --heatmap``); None: as
    ``heatmap.enable`` last set it (off by default).
    """
    if heatmap is not None:
        from . import heatmap as _heat

        old = _heat.enable(heatmap)
        try:
            return graph(tensor, view, names, namespace, recorder, chain, collapse, depth, to,
                         title, layers, rankdir, size, dpi, theme, font_size, look)
        finally:
            _heat.enable(old)
    from .dot import check_look
    from .theme import Style

    check_look(look)
    style = Style(rankdir, size, dpi, theme, font_size)
    if style.default:
        style = None
    if recorder is None:   # (in a notebook with %load_ext gradrepl: the kernel's statements)
        from ..engine import provenance

        recorder = provenance.ACTIVE
    from . import heatmap as _heat

    if not chain and to is None and depth is None and layers is None and not collapse \
            and not _heat.ON:   # (heat maps ride on the model's previews: not the flat path)
        pic = _plain(tensor, view, names, namespace, recorder, title, style)
        if pic is not None:
            pic.look = look
            return pic
    g = _model.build(tensor, names=names, namespace=namespace, recorder=recorder)
    if chain:
        fill_chain(g)
    from . import transform

    if to is not None:
        g = transform.cut_to(g, to)
    if depth is not None:
        g = transform.cut_depth(g, depth)
    if layers is not None:
        g = transform.layers(g, layers)
    if collapse:
        g = transform.collapse(g)
    return Picture(g, view=view, chain=chain, title=title, style=style, look=look)


def _plain(tensor, view, names, namespace, recorder, title, style):
    """A plain picture from a flat snapshot (``fast.py``), or None where it takes the model's
    path. Its model is built from the engine when first asked for (text, JSON, step frames)."""
    from ..engine.tensor import Tensor
    from .fast import snapshot

    targets = [tensor] if isinstance(tensor, Tensor) else list(tensor)
    if not targets:
        return None
    if names is None:
        names = _model.names_from_namespace(namespace)
    flat = snapshot(targets, names, recorder, _model.dialect_for(targets[0]))
    if flat is None:
        return None
    pic = Picture(None, view=view, title=title, style=style)
    pic._flat = flat
    pic._build = lambda: _model.build(targets, names=names, recorder=recorder)
    return pic


def fill_chain(g, contributions=None, values=None) -> None:
    """Write each backward op's chain-rule lines into the model (``BackwardInfo.chain``).
    ``contributions``: {backward op id: {input index: value delivered}}; ``values``: {grad var
    id: value} where the model keeps none (see ``chain.lines_for``)."""
    from .chain import lines_for

    b = getattr(g, "_builder", None)
    attrs_of = {}
    if b is not None:
        for node, bw in b.bw.items():
            if node.op is not None:
                attrs_of[bw.id] = node.attrs
    for bw in g.backward_ops:
        contrib = contributions.get(bw.id) if contributions is not None else None
        bw.chain = lines_for(bw, g, attrs_of.get(bw.id), contrib, values)


from .why import why  # noqa: E402  (the function; the module stays gradrepl.viz.why in sys.modules)

__all__ = ["graph", "Picture", "VIEWS", "EXTENSIONS", "fill_chain", "why"]
