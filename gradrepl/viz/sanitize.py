"""Cleaning what goes into a page or a file: text that always encodes, SVG that runs nothing.

The pictures gradrepl draws quote every name and statement (``dot.py``), so Graphviz never sees
a link or a script in them. This module is the second line, for whatever SVG reaches a page
(the step player, the handout), whoever made it:

- :func:`text`: a string that UTF-8 can always write: lone surrogates (``'\\udc80'``, from a
  file name or ``surrogateescape``) become U+FFFD.
- :func:`one_line`: text for one line of a picture (DOT labels, the terminal view): control
  characters shown escaped, line breaks as spaces, surrogates replaced.
- :func:`svg`: the SVG with only the elements and attributes a drawing needs, well nested:

  - an element not on the list (``script``, ``foreignObject``, ``style``, ``animate``/``set``,
    ``iframe``, an HTML element that would break out of the SVG in an HTML page ...) goes with
    everything inside it; an end tag that closes nothing open goes; whatever follows the end of
    the root ``<svg>`` goes;
  - ``on*`` event handlers and ``xml:base`` go; a link (``href``, ``xlink:href``) stays on ``<a>``
    and ``<image>`` only as ``http(s)://``, elsewhere only as a ``#fragment``; an attribute whose
    value names a script scheme (``javascript:``, ...) or CSS that loads or runs something
    (``url(`` of anything but a ``#fragment``, ``expression(``, ``@import``) goes;
  - a ``<`` that starts no well-formed tag becomes ``&lt;``; comments stay only when plain,
    CDATA becomes text, processing instructions and declarations go (but the prolog of an SVG
    document: its XML declaration and a DOCTYPE without an internal subset).

  A clean SVG (every picture Graphviz draws from gradrepl's DOT) comes back byte for byte.
"""
from __future__ import annotations

import html
import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def text(s) -> str:
    """``s`` with lone surrogates replaced by U+FFFD (so it always encodes as UTF-8)."""
    s = str(s)
    return _SURROGATE.sub("\ufffd", s) if _SURROGATE.search(s) else s


# control characters, lone surrogates and the XML non-characters: never drawn as they are
_ODD = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_ODD_NAMES = {"\t": " ", "\n": " ", "\r": " "}


def _odd(m) -> str:
    c = m.group(0)
    if c in _ODD_NAMES:
        return _ODD_NAMES[c]
    if "\ud800" <= c <= "\udfff" or c in "\ufffe\uffff":
        return "\ufffd"
    return f"\\x{ord(c):02x}"


def is_one_line(s: str) -> bool:
    """Whether :func:`one_line` leaves ``s`` as it is."""
    return _ODD.search(s) is None


def one_line(s) -> str:
    """``s`` as one line of text to draw or print: tabs and line breaks as spaces, other control
    characters (an escape sequence, a bell) shown as ``\\x1b``, lone surrogates and XML
    non-characters as U+FFFD. A picture's names and statements pass through it (DOT, SVG, the
    terminal), so nothing a session names reaches Graphviz's parser or a terminal raw."""
    s = str(s)
    return _ODD.sub(_odd, s) if _ODD.search(s) is not None else s


# the SVG elements a static drawing needs (all Graphviz writes, and more), by local name
ELEMENTS = frozenset("""
svg g defs title desc metadata text tspan textpath a path polygon polyline line rect circle
ellipse image use symbol marker clippath mask pattern lineargradient radialgradient stop
""".split())
# HTML elements that never have content: dropped without skipping what follows them
_VOID = frozenset("area base br col embed hr img input keygen link meta param source track "
                  "wbr".split())

_TOKEN = re.compile(r"""
    (?P<comment><!--(?P<cbody>.*?)-->)
  | (?P<cdata><!\[CDATA\[(?P<cdbody>.*?)\]\]>)
  | (?P<pi><\?.*?\?>)
  | (?P<decl><!(?:[^\[>]|\[[^\]]*\])*>)
  | (?P<end></(?P<ename>[A-Za-z_][\w:.-]*)\s*>)
  | (?P<start><(?P<sname>[A-Za-z_][\w:.-]*)
        (?P<attrs>(?:\s+[^\s"'<>/=]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)
        \s*(?P<selfclose>/?)>)
  | (?P<lt><)
""", re.S | re.X)
_ATTR = re.compile(r"""\s+([^\s"'<>/=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_SCRIPTY = re.compile(r"(?:java|vb|live|ecma)script:|expression\(|@import|behavior:|"
                      r"url\((?!['\"]?#)", re.I)
# what browsers ignore inside a URL or a scheme name (blanks, controls, soft hyphen, zero widths)
_INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064"
                        r"\ufeff]+")
_WEB_LINK = re.compile(r"https?://", re.I)


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1].lower()


def _attr_ok(element: str, name: str, value: str) -> bool:
    local = _local(name)
    if local.startswith("on") or name.lower() == "xml:base":
        return False
    plain = _INVISIBLE.sub("", html.unescape(value))
    if _SCRIPTY.search(plain):
        return False
    if local in ("href", "src"):
        if element in ("a", "image"):
            return _WEB_LINK.match(plain) is not None
        return plain.startswith("#")
    return True


# attributes that need a closer look (the rest, most of a Graphviz SVG, pass as written)
_SUSPECT_WORDS = ("href", "src", "script", "url(", "expression", "@import", "behavior",
                  "xml:base", "&")
_HANDLER = re.compile(r"\son", re.I).search


def _suspect(attrs: str) -> bool:
    low = attrs.lower()
    return any(w in low for w in _SUSPECT_WORDS) or _HANDLER(attrs) is not None


def _start_tag(m, element: str) -> str:
    """The start tag as written when all its attributes are allowed, else rebuilt without the
    others."""
    if not _suspect(m.group("attrs")):
        return m.group(0)
    attrs = [(k, v if v or not v2 else v2) for k, v, v2 in _ATTR.findall(m.group("attrs"))]
    kept = [(k, v) for k, v in attrs if _attr_ok(element, k, v)]
    if len(kept) == len(attrs):
        return m.group(0)
    rebuilt = "".join(f' {k}="{html.escape(html.unescape(v), quote=True)}"' for k, v in kept)
    return f"<{m.group('sname')}{rebuilt}{'/' if m.group('selfclose') else ''}>"


_XML_DECL = re.compile(r"<\?xml\s[^<>]*\?>$").match
_DOCTYPE = re.compile(r"<!DOCTYPE\s+svg\b[^<>\[\]]*>$", re.I).match   # (no internal subset)


def svg(s: str) -> str:
    """``s`` (SVG text) keeping only what draws (see the module doc); unchanged when clean."""
    s = text(s)
    out = []
    open_ = []      # names of the allowed elements open, as written
    skipping = []   # names of the dropped elements open (their content goes too)
    pos = 0
    done = False
    prolog = True   # before the root element: an XML declaration, a DOCTYPE, comments, blanks
    for m in _TOKEN.finditer(s):
        if not skipping and m.start() > pos and (
                open_ or prolog and not s[pos:m.start()].strip()):
            out.append(s[pos:m.start()])
        pos = m.end()
        kind = m.lastgroup  # (the outermost group of the alternative that matched)
        if kind == "start":
            name = m.group("sname")
            element = _local(name)
            selfclose = bool(m.group("selfclose"))
            if skipping or element not in ELEMENTS:
                if not selfclose and element not in _VOID:
                    skipping.append(name)
                continue
            out.append(_start_tag(m, element))
            if not selfclose:
                open_.append(name)
            elif not open_:     # a root that closed itself: nothing after it
                done = True
                break
            prolog = False
        elif kind == "end":
            name = m.group("ename")
            if skipping:
                if name == skipping[-1]:
                    skipping.pop()
                continue
            if open_ and name == open_[-1]:
                out.append(m.group(0))
                open_.pop()
                if not open_:   # the root closed: nothing after it
                    done = True
                    break
        elif skipping:
            continue
        elif kind == "comment":
            body = m.group("cbody")
            if "--" not in body and "<" not in body and ">" not in body \
                    and not body.endswith("-"):
                out.append(m.group(0))
        elif kind == "cdata":
            out.append(html.escape(m.group("cdbody"), quote=False))
        elif kind == "lt":
            out.append("&lt;")
        elif prolog and not out and _XML_DECL(m.group(0)) or prolog and _DOCTYPE(m.group(0)):
            out.append(m.group(0))
        # any other processing instruction or declaration: dropped
    if done and not s[pos:].strip():
        out.append(s[pos:])     # (the blank line after the root)
    if not done and not skipping and pos < len(s) and open_:
        out.append(s[pos:])
    out.extend(f"</{name}>" for name in reversed(open_) if not done)
    return "".join(out)


# what a terminal would obey: C0 controls but tab and newline, DEL, C1, the bidi overrides
TERMINAL_ESCAPES = {c: f"\\x{c:02x}" for c in [*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f,
                                                *range(0x80, 0xa0)]}
TERMINAL_ESCAPES.update({c: f"\\u{c:04x}" for c in (0x200e, 0x200f, *range(0x202a, 0x202f),
                                                     *range(0x2066, 0x206a))})


def terminal(s) -> str:
    """``s`` (lines of text) as a terminal may show it: its lines and tabs kept, every control
    character a terminal would obey (an escape sequence, a carriage return, a bell, a bidi
    override) shown escaped (``\\x1b``), lone surrogates as U+FFFD. For text gradrepl writes
    about a session (``why``'s explanation), never for the data itself."""
    return text(s).translate(TERMINAL_ESCAPES)


def for_terminal(stream, s) -> str:
    """``s`` as :func:`terminal` escapes it when ``stream`` is a terminal; else unchanged."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return terminal(s) if tty else s


_NEEDS_ESC = re.compile("[&<>\"\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]").search


def esc(s) -> str:
    """Text for a Graphviz HTML-like label: one line (see :func:`one_line`), ``& < > "`` as
    entities (``dot.esc``)."""
    s = str(s)
    if _NEEDS_ESC(s) is None:
        return s
    return (one_line(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))
