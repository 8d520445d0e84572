"""A camera for big-text slides: step frames that follow the active part of a large graph.

With ``--size 1080p`` (text at least 18 px on a 1920x1080 projector) a graph such as an MLP or
vgg11 is drawn far larger than one slide: shrunk to a page its text is unreadable, at its own
size it scrolls. ``--camera`` keeps the text at its size and moves a slide-sized viewport
instead: each step frame shows the part of the drawing where the step happens (the backward op
that runs and the gradients it changes; in a forward frame, what the statement made), under a
caption band holding the frame's sentence (the drawing's own header lines, moved there), with
a small map of the whole graph in a corner and the viewport outlined on it.

The camera works on the SVG Graphviz wrote (never on the layout): it reads each node's box
from the SVG (``node_boxes``), chooses the viewport (``viewport``: the focus nodes, as many as
fit, in priority order; the previous frame's view where a step changes nothing drawn), and
rewrites the root's ``viewBox`` (``camera_svg``), so the drawing's scale, and with it every
text's size, is unchanged. PDF pages come from these SVGs (``player.write_pdf``); a GIF's
frames are cut from Graphviz's PNG of the whole frame at the screen's dpi (``camera_png``).
"""
from __future__ import annotations

import html
import io
import re
import xml.etree.ElementTree as ET

SLIDE = (1152.0, 648.0)    # 16x9 in, in points: the 1080p slide (120 dpi -> 1920x1080 px)
MAP_SHARE = 0.18           # the corner map's width, as a share of the slide's
_SVG_NS = "{http://www.w3.org/2000/svg}"
_TRANSFORM = re.compile(r"scale\(([-0-9.e]+)(?:[ ,]+([-0-9.e]+))?\).*?translate\(([-0-9.e]+)"
                        r"[ ,]+([-0-9.e]+)\)", re.S)
_SVG_OPEN = re.compile(r"<svg\b[^>]*>", re.S)
_NUM = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


class Geometry:
    """Where things are in an SVG Graphviz wrote: its page size (points), its user units
    (``viewBox``), the graph's transform, and each node's box in user units."""

    def __init__(self, svg_text: str):
        m = _SVG_OPEN.search(svg_text)
        if m is None:
            raise ValueError("no <svg> element")
        tag = m.group(0)
        self.width = _length(re.search(r'\bwidth="([^"]+)"', tag).group(1))
        self.height = _length(re.search(r'\bheight="([^"]+)"', tag).group(1))
        vb = re.search(r'\bviewBox="([^"]+)"', tag)
        box = [float(x) for x in vb.group(1).replace(",", " ").split()] if vb else \
            [0.0, 0.0, self.width, self.height]
        self.view_box = box
        self.k = self.width / box[2] if box[2] else 1.0    # points per user unit
        root = ET.fromstring(_strip_doctype(svg_text))
        graph = next((g for g in root.iter(f"{_SVG_NS}g") if g.get("class") == "graph"), None)
        sx = sy = 1.0
        tx = ty = 0.0
        if graph is not None:
            t = _TRANSFORM.search(graph.get("transform") or "")
            if t is not None:
                sx = float(t.group(1))
                sy = float(t.group(2)) if t.group(2) else sx
                tx, ty = float(t.group(3)), float(t.group(4))
        self.scale = sx
        self.transform = (sx, sy, tx, ty)
        self.boxes = {}
        self.text_boxes = {}   # id -> the box of its text alone (a wide ellipse's table)
        self.fills = {}        # id -> the node's own fill (its outline's), for the corner map
        self.round = set()     # ids drawn as ellipses (rounded on the corner map)
        self.edges = []        # (x0, y0, x1, y1): each edge from its start to its end
        for g in root.iter(f"{_SVG_NS}g"):
            if g.get("class") == "edge":
                path = g.find(f"{_SVG_NS}path")
                nums = [float(v) for v in _NUM.findall(path.get("d") or "")] \
                    if path is not None else []
                if len(nums) >= 4:
                    self.edges.append((sx * (nums[0] + tx), sy * (nums[1] + ty),
                                       sx * (nums[-2] + tx), sy * (nums[-1] + ty)))
                continue
            if g.get("class") != "node":
                continue
            title = g.find(f"{_SVG_NS}title")
            if title is None or not title.text:
                continue
            xs, ys, tx0, tx1 = [], [], [], []
            fill = None
            for el in g.iter():
                tag = el.tag.replace(_SVG_NS, "")
                if fill is None and tag in ("polygon", "ellipse", "path") \
                        and el.get("fill") not in (None, "none", "transparent"):
                    fill = el.get("fill")   # (the first filled shape: the node's own)
                    if tag == "ellipse":
                        self.round.add(title.text.strip())
                if tag in ("polygon", "polyline", "path"):   # (path: a rounded box)
                    nums = [float(v) for v in _NUM.findall(el.get("points") or el.get("d")
                                                           or "")]
                    xs += nums[0::2]
                    ys += nums[1::2]
                elif tag == "ellipse":
                    cx, cy = float(el.get("cx")), float(el.get("cy"))
                    rx, ry = float(el.get("rx")), float(el.get("ry"))
                    xs += [cx - rx, cx + rx]
                    ys += [cy - ry, cy + ry]
                elif tag == "text" and el.get("x") is not None:
                    x0, y0 = float(el.get("x")), float(el.get("y"))
                    fs = float(el.get("font-size") or 14)
                    w = len("".join(el.itertext())) * fs * 0.55   # (Helvetica's mean width)
                    anchor = el.get("text-anchor") or "start"
                    x0 -= w / 2 if anchor == "middle" else w if anchor == "end" else 0
                    xs += [x0, x0 + w]
                    ys += [y0 - fs, y0]
                    tx0.append(x0)
                    tx1.append(x0 + w)
            if xs:
                i = title.text.strip()
                if fill and fill not in ("none", "transparent"):
                    self.fills[i] = fill
                self.boxes[i] = (sx * (min(xs) + tx), sy * (min(ys) + ty),
                                 sx * (max(xs) + tx), sy * (max(ys) + ty))
                if tx0:
                    b = self.boxes[i]
                    self.text_boxes[i] = (sx * (min(tx0) + tx), b[1], sx * (max(tx1) + tx), b[3])

    @property
    def user_size(self):
        return self.view_box[2], self.view_box[3]


def _length(text) -> float:
    return float(re.sub(r"[a-z%]+$", "", text.strip()))


def _strip_doctype(svg_text: str) -> str:
    text = re.sub(r"<!DOCTYPE\b(?:[^\[>]|\[[^\]]*\])*>", "", svg_text, flags=re.S | re.I)
    return re.sub(r"<\?xml\b.*?\?>", "", text, flags=re.S).strip()


def needs_camera(svg_text: str, slide=SLIDE) -> bool:
    """The drawing is larger than the slide (its text kept, it would scroll)."""
    from .render import svg_size

    w, h = svg_size(svg_text)
    return w > slide[0] + 0.5 or h > slide[1] + 0.5


def focus_of(frame) -> list:
    """The ids of a frame's active part, most important first: a forward frame's new ops,
    tensors and gradient records; a backward frame's running op, then the gradients it
    changed, then the ready ops."""
    fw = getattr(frame, "forward", None)
    if fw is not None:
        rank = {"f": 0, "t": 1, "b": 2, "g": 3}
        return sorted(fw["new"], key=lambda i: (rank.get(i[:1], 4), i))
    step = frame.step or {}
    running = [b.id for b in frame.backward_ops if b.state == "running"]
    ids = running + [i for i in step.get("changed") or () if i not in running]
    if not ids:
        ids = list(step.get("ready") or ())
    return ids


def viewport(geo: Geometry, focus, size, previous=None):
    """(x, y) of a ``size`` (user units) viewport on ``geo``'s drawing holding as many of the
    ``focus`` nodes as fit (the first always: its centre when it is larger), centred on them;
    where none of them is drawn, ``previous`` (else the top of the drawing). Kept inside the
    drawing; a drawing smaller than the viewport along an axis is centred on that axis."""
    vw, vh = size
    W, H = geo.user_size
    ox, oy = geo.view_box[0], geo.view_box[1]
    union = None
    left = False   # the first node's text wider than the viewport: its lines from their start
    for i in focus:
        b = geo.boxes.get(i)
        if b is None:
            continue
        if union is None and b[2] - b[0] > vw and i in geo.text_boxes:
            b = geo.text_boxes[i]   # (a wide ellipse: its table)
            left = b[2] - b[0] > vw
        cand = b if union is None else (min(union[0], b[0]), min(union[1], b[1]),
                                        max(union[2], b[2]), max(union[3], b[3]))
        if union is None or (cand[2] - cand[0] <= vw and cand[3] - cand[1] <= vh):
            union = cand
    if union is None:
        if previous is not None:
            return previous
        cx, cy = ox + W / 2, oy + vh / 2
    else:
        cx, cy = (union[0] + union[2]) / 2, (union[1] + union[3]) / 2
        if left:
            cx = union[0] - vw * 0.03 + vw / 2

    def place(c, v, lo, extent):
        if extent <= v:
            return lo + (extent - v) / 2
        return min(max(c - v / 2, lo), lo + extent - v)

    return place(cx, vw, ox, W), place(cy, vh, oy, H)


_LABEL_TEXT = re.compile(r"<text\b[^>]*>.*?</text>\n?", re.S)


def _split_label(svg_text: str):
    """The drawing's header lines (the graph label's ``<text>`` elements, before its first
    node or edge) and the SVG without them."""
    start = svg_text.find('class="graph"')
    first = min((p for p in (svg_text.find("<g id=\"node", start),
                             svg_text.find("<g id=\"edge", start),
                             svg_text.find("<!-- ", start)) if p != -1), default=-1)
    if start == -1 or first == -1:
        return [], svg_text
    head = svg_text[start:first]
    texts = _LABEL_TEXT.findall(head)
    return texts, svg_text[:start] + _LABEL_TEXT.sub("", head) + svg_text[first:]


def _background(svg_text: str) -> str:
    m = re.search(r'<polygon fill="(#[0-9a-fA-F]{6}|white|black)" stroke="(?:none|transparent)"',
                  svg_text)
    return m.group(1) if m else "white"


def _text_colour(svg_text: str) -> str:
    return "#f2f2f2" if _background(svg_text) not in ("white", "#ffffff", "#FFFFFF") else \
        "#1d232b"


def camera_svg(svg_text: str, focus, slide=SLIDE, previous=None, minimap=True, meta=None):
    """The frame ``svg_text`` seen through a slide-sized viewport on its ``focus`` nodes:
    (SVG text of exactly the slide's size in points, the viewport (x, y, w, h) in the
    drawing's user units, (x, y) to give as ``previous`` to the next frame). The drawing's
    scale is unchanged (its text keeps its size); its header lines move to a caption band at
    the top of the slide; a corner map shows the whole graph and the viewport on it.
    ``meta``: a list that gets the frame's ``Frame`` (what its GIF frame needs)."""
    geo = Geometry(svg_text)
    if meta is not None:
        meta.append(Frame.of(svg_text, geo))
    vw, vh = slide[0] / geo.k, slide[1] / geo.k
    texts, body = _split_label(svg_text)
    fs = [float(x) for t in texts for x in re.findall(r'font-size="([0-9.]+)"', t)]
    size = (max(fs) if fs else 14.0) * geo.scale     # (user units)
    line = size * 1.25
    band = (len(texts) * line + size * 0.6) if texts else 0.0
    x, y = viewport(geo, focus, (vw, vh - band), previous)
    top = y - band
    bg, fg = _background(svg_text), _text_colour(svg_text)
    parts = [f'<rect x="{x:.2f}" y="{top:.2f}" width="{vw:.2f}" height="{band:.2f}" '
             f'fill="{bg}"/>'] if band else []
    for k, t in enumerate(texts):
        inner = re.sub(r"^<text\b[^>]*>|</text>\n?$", "", t, flags=re.S)
        weight = ' font-weight="bold"' if k == 0 else ""
        parts.append(f'<text x="{x + size * 0.5:.2f}" y="{top + size * 0.3 + line * (k + 1) - size * 0.25:.2f}" '
                     f'font-family="Helvetica,sans-Serif" font-size="{size:.2f}" fill="{fg}"'
                     f'{weight}>{inner}</text>')
    if band:
        parts.append(f'<line x1="{x:.2f}" y1="{top + band:.2f}" x2="{x + vw:.2f}" '
                     f'y2="{top + band:.2f}" stroke="{fg}" stroke-opacity="0.35"/>')
    W, H = geo.user_size
    if minimap and (W > vw or H > vh - band):
        parts.append(_minimap(geo, (x, y, vw, vh - band), (x, top, vw, vh), bg, fg,
                              [geo.boxes[i] for i in focus if i in geo.boxes]))
    body = crop(body, geo, (x, top, vw, vh))
    new_tag = (f'<svg width="{slide[0]:g}pt" height="{slide[1]:g}pt" '
               f'viewBox="{x:.2f} {top:.2f} {vw:.2f} {vh:.2f}"')
    body = re.sub(r"<svg\b[^>]*?(?=\s+xmlns=|>)", new_tag, body, count=1)
    end = body.rfind("</svg>")
    out = body[:end] + "<g class=\"camera\">\n" + "\n".join(parts) + "\n</g>\n" + body[end:]
    return out, (x, y, vw, vh - band), (x, y)


_BLOCK = re.compile(r'(?:<!-- [^\n]*? -->\n)?<g id="(?:node|edge)\d+" class="(?:node|edge)">')
_G_TAG = re.compile(r"<g\b|</g>")
_PAIRS = re.compile(r'\b(?:points|d)="([^"]*)"')
_ELLIPSE = re.compile(r'<ellipse\b[^>]*?cx="([-0-9.e]+)" cy="([-0-9.e]+)" rx="([-0-9.e]+)" '
                      r'ry="([-0-9.e]+)"')
_TEXT = re.compile(r'<text\b(?: text-anchor="(\w+)")?[^>]*?x="([-0-9.e]+)" y="([-0-9.e]+)"'
                   r'[^>]*?font-size="([0-9.]+)"[^>]*>([^<]*)</text>')
MARGIN = 0.05   # of the viewport: a node or edge this near its edge is kept (half in view)


def _block_box(block: str, transform):
    """The box of one node's or edge's SVG (user units), from every point it draws (a text's
    extent estimated as in ``Geometry``); None when it draws nothing."""
    xs, ys = [], []
    for m in _PAIRS.finditer(block):
        nums = _NUM.findall(m.group(1))
        xs += nums[0::2]
        ys += nums[1::2]
    xs, ys = [float(v) for v in xs], [float(v) for v in ys]
    for m in _ELLIPSE.finditer(block):
        cx, cy, rx, ry = (float(v) for v in m.groups())
        xs += [cx - rx, cx + rx]
        ys += [cy - ry, cy + ry]
    for m in _TEXT.finditer(block):   # (as Geometry estimates a text's extent)
        anchor = m.group(1) or "start"
        x0, y0, fs = float(m.group(2)), float(m.group(3)), float(m.group(4))
        w = len(html.unescape(m.group(5))) * fs * 0.55
        x0 -= w / 2 if anchor == "middle" else w if anchor == "end" else 0
        xs += [x0, x0 + w]
        ys += [y0 - fs, y0]
    if not xs or not ys:
        return None
    sx, sy, tx, ty = transform
    return (sx * (min(xs) + tx), sy * (min(ys) + ty), sx * (max(xs) + tx), sy * (max(ys) + ty))


def crop(body: str, geo: Geometry, view) -> str:
    """``body`` without the nodes and edges that lie wholly outside ``view`` (x, y, w, h in
    user units, widened by ``MARGIN``): a slide of vgg11 holds a few dozen of its thousand
    records, so each frame's SVG, its PDF page and the player's copy hold only what is seen
    (the corner map is drawn from ``geo``, not from the drawing)."""
    x, y, w, h = view
    mx, my = w * MARGIN, h * MARGIN
    x0, y0, x1, y1 = x - mx, y - my, x + w + mx, y + h + my
    out, pos = [], 0
    for m in _BLOCK.finditer(body):
        if m.start() < pos:   # (inside a block already copied)
            continue
        depth, end = 0, None
        for t in _G_TAG.finditer(body, m.start()):
            depth += 1 if t.group(0) != "</g>" else -1
            if depth == 0:
                end = t.end()
                break
        if end is None:
            break
        if body.startswith("\n", end):
            end += 1
        box = _block_box(body[m.start():end], geo.transform)
        out.append(body[pos:m.start()])
        if box is None or not (box[2] < x0 or box[0] > x1 or box[3] < y0 or box[1] > y1):
            out.append(body[m.start():end])
        pos = end
    out.append(body[pos:])
    return "".join(out)


def _minimap(geo, seen, frame, bg, fg, focus_boxes=()) -> str:
    """The whole graph small in the slide's lower right corner (the left one where it would hide
    the centre of the step's main node), the part shown outlined: each node a box in its own
    fill, each edge a line from its start to its end (drawn from ``geo``, so the frame's SVG
    need not hold the whole drawing: see ``crop``)."""
    W, H = geo.user_size
    ox, oy = geo.view_box[0], geo.view_box[1]
    fx, fy, fw, fh = frame
    mw = fw * MAP_SHARE
    s = min(mw / W, fh * 0.45 / H)
    mw, mh = W * s, H * s
    pad = fw * 0.012
    mx, my = fx + fw - mw - pad, fy + fh - mh - pad
    for b in focus_boxes[:1]:   # the lower left where the first focus node's centre is under it
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        if mx <= cx <= mx + mw and my <= cy <= my + mh:
            mx = fx + pad
    x, y, w, h = seen

    def px(v, o, m):
        return f"{m + (v - o) * s:.1f}"

    lines = " ".join(f"M{px(a, ox, mx)},{px(b, oy, my)}L{px(c, ox, mx)},{px(d, oy, my)}"
                     for a, b, c, d in geo.edges)

    def inside(b):   # (a box as drawn: a text's estimated extent may pass the drawing's edge)
        return (max(b[0], ox), max(b[1], oy), min(b[2], ox + W), min(b[3], oy + H))

    boxes = {i: inside(b) for i, b in geo.boxes.items()}
    nodes = "".join(f'<rect x="{px(b[0], ox, mx)}" y="{px(b[1], oy, my)}" '
                    f'width="{max((b[2] - b[0]) * s, 0.5):.1f}" '
                    f'height="{max((b[3] - b[1]) * s, 0.5):.1f}" '
                    + (f'rx="{(b[3] - b[1]) * s / 2:.1f}" ' if i in geo.round else "")
                    + f'fill="{geo.fills.get(i, fg)}" stroke="{fg}" stroke-width="0.2" '
                      f'stroke-opacity="0.4"/>'
                    for i, b in boxes.items())
    return (f'<g class="camera-map"><rect x="{mx:.2f}" y="{my:.2f}" width="{mw:.2f}" '
            f'height="{mh:.2f}" fill="{bg}" fill-opacity="0.9" stroke="{fg}" '
            f'stroke-opacity="0.5"/>'
            f'<g opacity="0.75">'
            + (f'<path d="{lines}" fill="none" stroke="{fg}" stroke-width="0.4"/>'
               if lines else "")
            + nodes + '</g>'
            f'<rect x="{mx + (x - ox) * s:.2f}" y="{my + (y - oy) * s:.2f}" '
            f'width="{w * s:.2f}" height="{h * s:.2f}" fill="none" stroke="#ff7f00" '
            f'stroke-width="{max(1.5, 2 / geo.k):.2f}"/></g>')


def follow(svgs, focuses, slide=SLIDE, minimap=True):
    """Each frame seen through the camera: (the slide SVGs, the viewports)."""
    out, views, previous = [], [], None
    for svg_text, focus in zip(svgs, focuses):
        text, seen, previous = camera_svg(svg_text, focus, slide, previous, minimap)
        out.append(text)
        views.append(seen)
    return out, views


def camera_png(png: bytes, svg_text, camera_svg_text: str, dpi: float = 120.0) -> bytes:
    """A GIF frame: the slide cut out of Graphviz's PNG of the whole frame (``png``, drawn
    from the same layout as ``svg_text``, or its ``Frame`` as ``Follower`` keeps it), with
    the caption band drawn over its top (the camera SVG's band lines, in a TrueType font of
    the same height)."""
    from PIL import Image, ImageDraw

    meta = svg_text if isinstance(svg_text, Frame) else Frame.of(svg_text)
    cam = Geometry(camera_svg_text)
    im = Image.open(io.BytesIO(png))   # (the whole drawing: cut and shrunk before any copy)
    if im.mode not in ("RGB", "RGBA", "L", "LA"):
        im = im.convert("RGBA")
    px_per_unit = im.width / meta.user_size[0]     # (Graphviz's PNG of the whole drawing)
    x, top, vw, vh = cam.view_box
    ox, oy = meta.view_box[0], meta.view_box[1]
    left, upper = round((x - ox) * px_per_unit), round((top - oy) * px_per_unit)
    box = [left, upper, left + round(vw * px_per_unit),   # (the slide's own size in pixels:
           upper + round(vh * px_per_unit)]                # rounding each edge gave 1081 rows)
    bg = meta.background
    out = Image.new("RGB", (box[2] - box[0], box[3] - box[1]), _rgb(bg))
    out.paste(im.crop((max(box[0], 0), max(box[1], 0), min(box[2], im.width),
                       min(box[3], im.height))).convert("RGB"),
              (max(-box[0], 0), max(-box[1], 0)))
    texts = meta.texts
    band = re.search(r'<g class="camera">\n<rect [^>]*height="([0-9.]+)"', camera_svg_text)
    if texts and band:
        draw = ImageDraw.Draw(out)
        h = float(band.group(1)) * px_per_unit
        draw.rectangle([0, 0, out.width, h], fill=_rgb(bg))
        sizes = [float(v) for v in re.findall(
            r'<text x="[^"]*" y="[^"]*" font-family="[^"]*" font-size="([0-9.]+)"',
            camera_svg_text)]
        size = (sizes[0] if sizes else 14.0) * px_per_unit
        font = _font(size)
        fg = _rgb(meta.foreground)
        for k, t in enumerate(texts):
            inner = html.unescape(re.sub(r"<[^>]+>", "", t))
            draw.text((size * 0.5, size * 0.3 + size * 1.25 * (k + 1) - size * 0.25), inner,
                      fill=fg, font=font, anchor="ls")
        draw.line([0, h, out.width, h], fill=fg, width=1)
    else:
        h = 0.0
    if im.width > out.width or im.height > out.height - h:   # the map, as in the SVG
        s = min(out.width * MAP_SHARE / im.width, (out.height - h) * 0.45 / im.height)
        size = (max(1, round(im.width * s)), max(1, round(im.height * s)))
        k = max(1, int(1 / s) // 2)   # (a cheap box reduction first: a whole vgg11 is large)
        thumb = (im.reduce(k) if k > 1 else im).resize(size).convert("RGB")
        pad = round(out.width * 0.012)
        mx, my = out.width - thumb.width - pad, out.height - thumb.height - pad
        out.paste(thumb, (mx, my))
        d = ImageDraw.Draw(out)
        d.rectangle([mx, my, mx + thumb.width, my + thumb.height], outline=(128, 128, 128))
        d.rectangle([mx + box[0] * s, my + (box[1] + h) * s, mx + box[2] * s, my + box[3] * s],
                    outline=(255, 127, 0), width=2)
    del im
    buf = io.BytesIO()
    out.save(buf, format="PNG")
    return buf.getvalue()


class Frame:
    """What a GIF frame needs of a whole frame's SVG once the camera has seen it (its user
    units, header lines and colours), so the SVG itself can be let go (``Follower``)."""

    __slots__ = ("view_box", "user_size", "texts", "background", "foreground")

    def __init__(self, view_box, user_size, texts, background, foreground):
        self.view_box, self.user_size = view_box, user_size
        self.texts, self.background, self.foreground = texts, background, foreground

    @classmethod
    def of(cls, svg_text: str, geo: Geometry | None = None) -> "Frame":
        geo = geo if geo is not None else Geometry(svg_text)
        texts, _ = _split_label(svg_text)
        return cls(tuple(geo.view_box), geo.user_size, texts, _background(svg_text),
                   _text_colour(svg_text))


def _rgb(colour: str):
    named = {"white": (255, 255, 255), "black": (0, 0, 0)}
    if colour in named:
        return named[colour]
    c = colour.lstrip("#")
    return tuple(int(c[i:i + 2], 16) for i in (0, 2, 4))


def _font(px: float):
    from PIL import ImageFont

    for name in ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "Arial.ttf"):
        try:
            return ImageFont.truetype(name, max(1, round(px)))
        except OSError:
            continue
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                 "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"):
        try:
            return ImageFont.truetype(path, max(1, round(px)))
        except OSError:
            continue
    try:
        return ImageFont.load_default(size=max(1, round(px)))
    except TypeError:   # (Pillow before 10.1)
        return ImageFont.load_default()


# ------------------------------------------------------------------ on and off (graph --camera)
_ON = False


def enable(on: bool) -> bool:
    """Turn the camera on or off for the step frames written next; returns the old state."""
    global _ON
    old, _ON = _ON, bool(on)
    return old


def enabled() -> bool:
    return _ON


class Shot:
    """The step frames through the camera: ``svgs`` (one slide each), ``page`` (the slide in
    points), ``pngs()`` (GIF frames), ``note`` (what was done, for the command's message)."""

    def __init__(self, frames, sources, cam_svgs, views, page):
        self._frames, self._sources = frames, sources   # (Frame of each whole SVG)
        self.svgs, self.views, self.page = cam_svgs, views, page
        w, h = page
        self.note = (f"--camera: each frame is a {w / 72:g}x{h / 72:g} in slide following the "
                     "step (the text keeps its size; a map in the corner shows where)")

    def pngs(self):
        """The GIF frames, one at a time (each whole frame's PNG is let go once cut)."""
        from . import render

        for src, meta, cam in zip(self._sources, self._frames, self.svgs):
            yield camera_png(render.png(src), meta, cam)


def _page(style):
    from . import theme

    box = theme.size_inches(style.size) if style is not None and style.size else None
    return (box[0] * 72, box[1] * 72) if box else SLIDE


class Follower:
    """The camera fed one frame at a time as it is laid out (``add``), so that a large graph's
    whole SVG is let go as soon as its slide is cut: while every frame so far fits the slide
    the frames are kept as they are (small, since they fit); once one does not, those and
    every later frame go through the camera. ``finish`` gives the ``Shot`` (None when every
    frame fit)."""

    def __init__(self, style=None, minimap=True):
        self.page = _page(style)
        self.minimap = minimap
        self.on = False
        self.svgs, self.views, self.frames, self._held = [], [], [], []
        self._previous = None

    def _shoot(self, svg_text, focus):
        text, seen, self._previous = camera_svg(svg_text, focus, self.page, self._previous,
                                                self.minimap, meta=self.frames)
        self.svgs.append(text)
        self.views.append(seen)
        return text

    def add(self, svg_text: str, focus=()) -> str:
        """This frame as it will be shown: its slide once the camera is on, else itself."""
        if not self.on and needs_camera(svg_text, self.page):
            self.on = True
            held, self._held = self._held, []
            for text, f in held:
                self._shoot(text, f)
        if self.on:
            return self._shoot(svg_text, focus or ())
        self._held.append((svg_text, focus or ()))
        return svg_text

    def finish(self, sources) -> Shot | None:
        if not self.on:
            self._held = []
            return None
        return Shot(self.frames, sources, self.svgs, self.views, self.page)


def shoot(items, sources, style):
    """The camera on the frames of ``items`` (each with ``svg`` and ``focus``: see
    ``focus_of``), or None when every frame fits the slide (``style.size``'s box, else 16x9
    in) and there is nothing to follow."""
    f = Follower(style)
    for it in items:
        f.add(it["svg"], it.get("focus"))
    return f.finish(sources)
