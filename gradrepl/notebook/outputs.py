"""What the notebook shows: MIME bundles for pictures, players and tensors.

- :func:`picture_bundle`: a picture's SVG inline, as wide as the cell at most (``width: 100%``,
  ``max-width`` its own width, ``height: auto``): a wide graph shrinks to fit, nothing is cut
  off; ``text/plain`` is the terminal picture.
- :func:`player_bundle`: the step-through player (``viz.player.player_fragment``), scoped, so
  two players in one notebook work.
- :func:`tensor_html`: a tensor's exact text repr (the same bytes as ``text/plain``) in a
  ``<pre>``, with a one-line caption beside it: where it came from, its gradient.
"""
from __future__ import annotations

import html
import re

_SVG_OPEN = re.compile(r"<svg\b[^>]*>", re.S)
_SIZE_ATTR = re.compile(r"""\s(?:width|height|style)\s*=\s*(?:"[^"]*"|'[^']*')""")
_WIDTH = re.compile(r"""\swidth\s*=\s*["']\s*([0-9]*\.?[0-9]+)\s*(pt|px)?\s*["']""")


def fit_svg(svg: str) -> str:
    """SVG text for inline HTML, scaled to its container's width (never wider than it is)."""
    from ..viz.player import inline_svg

    text = inline_svg(svg)        # no prolog, a viewBox
    m = _SVG_OPEN.search(text)
    tag = m.group(0)
    w = _WIDTH.search(tag)
    max_w = f"max-width: {w.group(1)}{w.group(2) or 'px'}; " if w else ""
    new_tag = (tag[:4] + ' width="100%"' + f' style="{max_w}height: auto; display: block"'
               + _SIZE_ATTR.sub("", tag[4:]))
    return text[:m.start()] + new_tag + text[m.end():]


def picture_html(svg: str) -> str:
    return ('<div class="gradrepl-graph" style="width: 100%; max-width: 100%; overflow: visible">'
            f"\n{fit_svg(svg)}\n</div>")


def picture_bundle(picture) -> dict:
    """``{mime: data}`` for a ``viz.Picture``: inline SVG in HTML, the text picture as plain."""
    return {"text/html": picture_html(picture.svg()),
            "text/plain": picture.text(color=False).rstrip("\n")}


# The player in a notebook: the picture in a box of at most STAGE_PX (it scrolls when kept
# larger), so the controls above it and the step's sentence under it are on the screen together.
# Pixels, not the page's height: a frontend that puts each output in its own iframe (Colab, VS
# Code) grows the iframe to its content, where 100vh would grow with the picture.
STAGE_PX = 460


def player_bundle(frames, title: str, text: str) -> dict:
    import secrets

    from ..viz.player import player_fragment

    p = f"gp{secrets.token_hex(4)}-"
    page = player_fragment(frames, title, scope=p)
    r, st = f"#{p}root", f"#{p}stage"
    fit = ", ".join(f"{r} {st}.fit{extra} svg" for extra in ("", ".has-code", ".with-code"))
    style = (f"<style>\n{r} {st} {{ max-height: {STAGE_PX + 20}px; overflow: auto; }}\n"
             f"{fit} {{ max-height: {STAGE_PX}px; }}\n"
             f"{r} {{ max-width: 100%; }}\n</style>\n")
    head = page.index("</style>") + len("</style>\n")   # after the player's own CSS: it wins
    return {"text/html": page[:head] + style + page[head:], "text/plain": text.rstrip("\n")}


def tensor_html(tensor, caption: str = "") -> str:
    """The tensor's exact repr, and ``caption`` under it in small print."""
    pre = ('<pre style="margin: 0; white-space: pre; overflow-x: auto; background: none; '
           'font-family: var(--jp-code-font-family, monospace); '
           'font-size: var(--jp-code-font-size, 13px)">'
           f"{html.escape(repr(tensor))}</pre>")
    if not caption:
        return pre
    return (f'<div class="gradrepl-tensor">{pre}<div style="font-size: 11px; opacity: .65; '
            f'margin-top: 2px; font-family: sans-serif">{html.escape(caption)}</div></div>')
