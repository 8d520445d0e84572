"""A handout for teaching: a session file as one self-contained HTML page
(``gradrepl replay FILE --html OUT.html``).

The page shows the transcript as it ran: the ``#`` comments as prose, each input highlighted
(pygments; prompts are not selected when copying), its output preformatted (errors marked, long
outputs folded), and under an input the pictures of its tensors as inline SVG:

- an input that created a tensor with a graph, or changed what its picture shows
  (``backward()`` fills gradients and releases ops, an in-place op or ``opt.step()`` changes
  values), gets the picture of that tensor; when several changed, only those that no other
  changed tensor's picture already contains (at most three). "What it shows" is the picture
  model (``to_dict()``: every record, label, value and edge that is drawn), compared with the
  model after the previous input, so the rule needs no list of statements. One change does
  not count: gradients that only went back to zero or None (``clear_grad()``,
  ``opt.clear_grad()``) with nothing else changed; a note under the input says which were
  cleared, and the picture is not drawn again (``_only_cleared``);
- a ``%graph`` input gets the picture ``%graph`` drew, with every option it was given
  (``--view``, ``--chain``, ``--to``, ``--depth``, ``--collapse``: the shell's own
  ``commands.graph_picture``), named in its caption; a ``%step`` input gets the picture of the
  tensor it stepped through, after its backward;
- a comment's paragraphs, numbered lists and bulleted lists stay paragraphs and lists
  (``_prose_blocks``);
- pictures stay small: both views (forward and backward) for graphs under 12 ops, else the
  backward view with each Layer call collapsed; on the page a picture is fitted to the column
  (and to 720 px of height), its "full size" link (CSS ``:target``, no script) shows it at the
  column's full width; a picture that fails to render is replaced by a note, and the page is
  still written.

Under ``--safe`` the session runs in a confined child where Graphviz cannot run: the
``PictureTaker`` there (``as_data=True``) gives each figure its picture as data
(``safe_pictures.picture_data``: the model and the options it was drawn with); the parent
checks that data, draws it with its own code and writes the page (``replay_cli``), so the
handout has the same pictures as a plain one.

Everything is inline (CSS, SVG; no script, no network): the file can be mailed or printed.
Graphviz's element ids are prefixed per picture so several pictures never share an id.
"""
from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

MAX_PER_INPUT = 3
MAX_TENSORS = 40
SMALL_GRAPH = 12   # ops: under this, both views; else the backward view, collapsed
FOLD_LINES = 40    # outputs longer than this are folded

_ID = re.compile(r'(\sid=")([^"]+)(")')
_REF = re.compile(r'(url\(#|href="#)([^)"]+)')
_CODE = re.compile(r"`([^`]+)`")


@dataclass
class Figure:
    name: str
    caption: str
    svg: str | None = None       # inline SVG (no prolog), or None with a note
    note: str | None = None
    data: dict | None = None     # in the --safe child: the picture as data, for the parent


def _graph_tensors(namespace):
    """``[(name, tensor)]``: the namespace's tensors that have a graph, in binding order."""
    from ..engine.tensor import Tensor

    out = []
    for k, v in list(namespace.items()):
        if isinstance(k, str) and not k.startswith("_") and isinstance(v, Tensor) and \
                v.grad_node is not None and not v.stop_gradient:
            out.append((k, v))
    return out


def _command_target(source: str, session):
    """The tensor a ``%graph``/``%step`` line drew: its NAME argument, else the shell's
    default (the last tensor with a graph)."""
    import shlex

    try:
        args = shlex.split(source.strip()[1:])[1:]
    except ValueError:
        return None
    takes_value = {"-o", "--output", "--view", "--depth", "--to"}
    k = 0
    while k < len(args):
        a = args[k]
        if a in takes_value:
            k += 2
            continue
        if not a.startswith("-"):
            v = session.namespace.get(a)
            return (a, v) if v is not None and hasattr(v, "grad_node") else None
        k += 1
    found = _graph_tensors(session.namespace)
    return found[-1] if found else None


class PictureTaker:
    """The observer ``replay.run_transcript`` calls around each input: it puts on each run
    the ``Figure``s to show under it."""

    def __init__(self, as_data: bool = False):
        self._prev: dict = {}     # id(tensor) -> fingerprint, after the previous input
        self.as_data = as_data    # the --safe child: pictures as data (the parent draws them)

    def before(self, session, run):
        pass

    def after(self, session, run):
        try:
            self._after(session, run)
        except Exception as exc:  # noqa: BLE001 - a session's object that raises when looked
            # at (a __getattr__, a __len__): a note under that input, never a crash or stderr
            self._prev = {}
            run.pictures.append(Figure("", "", note=(
                f"no pictures for this input: looking at its names raised "
                f"{type(exc).__name__}")))

    def _after(self, session, run):
        src = run.block.source.strip()
        now = self._fingerprints(session)
        if src.startswith("%"):
            cmd = src[1:].split(None, 1)[0] if src[1:].strip() else ""
            if cmd == "graph" and run.error is None:
                fig = self.draw_command(session, src)
                if fig is not None:
                    run.pictures.append(fig)
            elif cmd == "step" and run.error is None:
                target = _command_target(src, session)
                if target is not None:
                    run.pictures.append(self.draw(session, target[0], target[1],
                                                  "after stepping through its backward"))
            self._prev = {k: v[2] for k, v in now.items()}
            return
        changed, cleared = [], []
        for k, (name, t, fp, names) in now.items():
            if self._prev.get(k) == fp:
                continue
            grads = _only_cleared(self._prev.get(k), fp)
            (cleared if grads else changed).append(k)
            if grads:
                now[k] = (name, t, fp, names, grads)
        keep = []
        for k in changed:
            name = now[k][0]
            if any(o != k and name in now[o][3] for o in changed):
                continue  # another changed tensor's picture contains it
            keep.append(k)
        for k in keep[:MAX_PER_INPUT]:
            name, t, fp, names = now[k][:4]
            was = "made" if k not in self._prev else "changed"
            run.pictures.append(self.draw(session, name, t, f"{was} by this input"))
        if len(keep) > MAX_PER_INPUT:
            run.pictures.append(Figure("", "", note=f"{len(keep) - MAX_PER_INPUT} more "
                                       "changed tensors not drawn"))
        for k in cleared:  # said once, for the pictures that contain the others
            name, grads = now[k][0], now[k][4]
            if any(o != k and name in now[o][3] for o in cleared + keep[:MAX_PER_INPUT]):
                continue
            run.pictures.append(Figure(name, "", note=(
                f"{name} is not drawn again: this input only cleared "
                f"{_and(grads)} in its picture")))
        self._prev = {k: v[2] for k, v in now.items()}

    def _fingerprints(self, session) -> dict:
        """``id -> (name, tensor, fingerprint, names in its picture)`` for the namespace's
        tensors with a graph (the fingerprint is the picture model: what would be drawn)."""
        from ..viz import model as _model

        ns = session.namespace
        names = _model.names_from_namespace(ns)
        first_names = names["tensors"]
        out = {}
        for name, t in _graph_tensors(ns)[-MAX_TENSORS:]:
            if id(t) in out or first_names.get(id(t), name) != name:
                continue  # an alias: the tensor is drawn under its first name
            try:
                g = _model.build(t, names=names, recorder=session.recorder)
                fp = json.loads(json.dumps(g.to_dict(), sort_keys=True, default=str))
                out[id(t)] = (name, t, fp, {x.name for x in g.tensors})
            except Exception:  # noqa: BLE001 - a tensor the model cannot walk: not drawn
                continue
        return out

    def draw(self, session, name, tensor, why) -> Figure:
        from .. import viz

        def make():
            pic = viz.graph(tensor, namespace=session.namespace, recorder=session.recorder)
            if len(pic.model.ops) < SMALL_GRAPH:
                return pic, "forward and backward graphs"
            pic = viz.graph(tensor, view="backward", namespace=session.namespace,
                            recorder=session.recorder, collapse=True)
            return pic, "backward graph, each Layer call as one node"
        return _figure(name, why, make, self.as_data)

    def draw_command(self, session, src) -> Figure | None:
        """The picture a ``%graph`` line drew, as it drew it: every option it was given (the
        shell's own ``commands.graph_picture``), ``-o FILE`` aside (the handout has its
        picture inline)."""
        import shlex

        from .commands import CommandError, graph_picture

        try:
            name, pic, a = graph_picture(session, shlex.split(src[1:])[1:])
        except (CommandError, ValueError):
            return None
        return _figure(name, f"as {' '.join(src.split())} drew it",
                       lambda: (pic, _graph_words(name, a)), self.as_data)


# what a %graph option shows, in the caption's words (in the caption's order)
GRAPH_VIEWS = {"both": "forward and backward graphs", "forward": "forward graph",
               "backward": "backward graph"}
GRAPH_OPTIONS = [
    ("chain", lambda name, v: "with the chain-rule arithmetic on each backward op"),
    ("to", lambda name, v: f"only what lies between {v} and {name}"),
    ("depth", lambda name, v: f"the ops at most {v} step{'' if v == 1 else 's'} from {name}"),
    ("layers", lambda name, v: f"each Layer call nested deeper than {v} as one box"),
    ("collapse", lambda name, v: "each Layer call as one node"),
]


def _and(words) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _graph_words(name, options) -> str:
    words = [GRAPH_VIEWS[options.view]]
    words += [say(name, getattr(options, key)) for key, say in GRAPH_OPTIONS
              if getattr(options, key) not in (None, False)]
    return ", ".join(words)


def _figure(name, why, make, as_data=False) -> Figure:
    """A figure: ``make()`` gives ``(picture, what it shows)``; a picture that cannot be drawn
    is a note (the page is written anyway). ``as_data`` (the --safe child, where Graphviz
    cannot run): the picture as data (``safe_pictures.picture_data``), drawn by the parent."""
    try:
        pic, view = make()
        if as_data:
            from .safe_pictures import picture_data

            return Figure(name, f"{name}: {view}, {why}", data=picture_data(pic))
        svg = pic.svg()
    except PermissionError:  # the --safe sandbox: no process, so no Graphviz
        return Figure(name, f"{name}: {why}", note=f"no picture of {name}: Graphviz does "
                      "not run inside the --safe sandbox")
    except Exception as exc:  # noqa: BLE001 - the page is written anyway, with a note
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return Figure(name, f"{name}: {why}",
                      note=f"no picture of {name}: {type(exc).__name__}: {msg}")
    return Figure(name, f"{name}: {view}, {why}", svg=svg)


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|nan|inf", re.I)


def _cleared(preview) -> bool:
    """Whether a gradient's shown value is what ``clear_grad()`` leaves: None, or zeros."""
    if preview is None:
        return True
    nums = _NUMBER.findall(str(preview))
    return bool(nums) and all(float(x) == 0 for x in nums)


def _only_cleared(old, new):
    """The gradient variables whose clearing is all that changed between two picture models
    (``to_dict()``s): their names, or None when anything else changed (or nothing was
    cleared). A picture is drawn again when what it shows changed, except for this: gradients
    that went back to zero or None (``clear_grad()``, ``opt.clear_grad()``) are said in a
    note, not drawn again."""
    if old is None:
        return None
    before = {g["id"]: g for g in old.get("grad_vars", [])}
    names, grads = [], []
    for g in new.get("grad_vars", []):
        was = before.get(g["id"])
        if was is not None and was.get("data") != g.get("data") and _cleared(g.get("data")):
            names.append(g["name"])
            g = dict(g, data=was.get("data"))
        grads.append(g)
    if not names or dict(new, grad_vars=grads) != old:
        return None
    return names


# ---------------------------------------------------------------------------- the page
CSS = """
:root { --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --code-bg: #f6f8fa;
        --accent: #0969da; --err: #cf222e; --err-bg: #fff5f5; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
       font: 16px/1.55 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
main { max-width: 980px; margin: 0 auto; padding: 28px 28px 48px; }
header.page { border-bottom: 1px solid var(--line); margin-bottom: 20px; padding-bottom: 10px; }
h1 { font-size: 28px; margin: 0 0 6px; font-weight: 650; }
h2 { font-size: 22px; margin: 36px 0 8px; padding-top: 12px; border-top: 1px solid var(--line); }
.meta { color: var(--muted); font-size: 14px; margin: 0; }
.badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 13px;
         background: #ddf4ff; color: #0550ae; border: 1px solid #b6e3ff; margin-right: 6px; }
.prose { margin: 18px 0 8px; }
.prose p { margin: 0 0 8px; }
.prose ol, .prose ul { margin: 0 0 8px; padding-left: 28px; }
.prose li { margin: 2px 0; }
code, pre { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas,
            monospace; font-size: 13.5px; }
.prose code { background: var(--code-bg); padding: 1px 5px; border-radius: 4px; }
.cell { margin: 10px 0 14px; border: 1px solid var(--line); border-radius: 8px; overflow: hidden;
        break-inside: avoid; }
.cell pre { margin: 0; padding: 9px 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
.in { position: relative; background: var(--code-bg); }
.in .ln { position: absolute; right: 10px; top: 8px; font-size: 12px; color: var(--muted);
          text-decoration: none; }
.out { border-top: 1px solid var(--line); background: #fff; }
.out.err { background: var(--err-bg); border-left: 4px solid var(--err); color: #82071e; }
details.fold > summary { cursor: pointer; padding: 6px 14px; color: var(--muted); font-size: 14px;
                         border-top: 1px solid var(--line); }
.hl .gp { color: #8c959f; user-select: none; -webkit-user-select: none; }
.hl .magic { color: #8250df; font-weight: 600; }
figure.pic { margin: 0; padding: 12px 14px 8px; border-top: 1px dashed var(--line);
             background: #fcfcfd; text-align: center; }
figure.pic svg { width: min(100%, var(--w, 100%)); height: auto; max-height: 720px; }
figure.pic:target svg { max-height: none; width: 100%; }
figure.pic:target { background: #fff; }
figure.pic a.zoom { margin-left: 8px; font-size: 12px; color: var(--accent); }
figure.pic:target a.zoom.in, figure.pic a.zoom.out { display: none; }
figure.pic:target a.zoom.out { display: inline; }
figure.pic figcaption { font-size: 13px; color: var(--muted); margin-top: 4px; }
.note { font-size: 13px; color: var(--muted); font-style: italic; padding: 6px 14px;
        border-top: 1px dashed var(--line); }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; text-align: center; }
pre.print-copy, pre.step-paper { display: none; }
/* On paper: every output open (a folded %step is its step sentences), an input kept with what
   follows it, a picture whole and at most a page high, no page left holding only the footer
   (it is not printed) or a heading. */
@page { margin: 14mm 12mm; }
@media print {
  main { max-width: none; padding: 0; }
  body { font-size: 12pt; }
  .cell { break-inside: auto; }
  .in, .out, .note { break-inside: avoid; }
  .in:not(:last-child) { break-after: avoid; }   /* (a lone input's would tie its cell to the next) */
  figure.pic { break-inside: avoid; }
  figure.pic svg { max-height: 200mm; width: auto; max-width: 100%; }
  figure.pic:target svg { width: auto; }
  details.fold > summary { display: none; }
  details.fold::details-content { content-visibility: visible; display: block; }
  details.fold > pre { display: block; }
  .prose, h2 { break-after: avoid; }
  .in .ln, figure.pic a.zoom, footer { display: none; }
  details.fold.steps { display: none; }
  pre.step-paper { display: block; }
}
/* a browser without ::details-content cannot open a closed details by CSS: a copy of the
   output, shown on paper only */
@supports not selector(::details-content) {
  @media print { details.fold { display: none; } pre.print-copy { display: block; } }
}
"""


def _pygments_css() -> str:
    from pygments.formatters import HtmlFormatter

    css = HtmlFormatter(style="default").get_style_defs(".hl")
    # the cell has its own background; keep the token colours only
    return "\n".join(ln for ln in css.splitlines()
                     if not ln.startswith(".hl {") and not ln.startswith("pre {")
                     and "td.linenos" not in ln and "span.linenos" not in ln)


def _highlight(source: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonConsoleLexer

    from .transcript import format_input

    lines = format_input(source)
    if source.lstrip().startswith("%"):
        first = source.strip()
        cmd, _, rest = first.partition(" ")
        return (f'<span class="gp">&gt;&gt;&gt; </span><span class="magic">{html.escape(cmd)}'
                f'</span>{" " + html.escape(rest) if rest else ""}')
    text = "\n".join(lines) + "\n"
    return highlight(text, PythonConsoleLexer(), HtmlFormatter(nowrap=True)).rstrip("\n")


# a list item in a comment: "1. x", "2) x" (numbered), "- x", "* x", "• x" (bulleted)
_ITEM = re.compile(r"^(\s*)(?:(\d{1,3})[.)]|([-*•]))\s+(\S.*)$")


def _prose_blocks(comments) -> list:
    """The comment lines as a reader takes them: ``("p", [lines])`` paragraphs and
    ``("ol"|"ul", start, [[lines] per item])`` lists. A blank comment line ends a paragraph or
    a list; a line starting ``1.``/``2)`` or ``-``/``*``/``•`` starts a list item (after a
    paragraph line too: a comment's list often follows its lead-in line directly); a line
    indented past an item's marker continues the item, and so does an unindented one that
    goes on with its sentence (``_wraps``); any other line after a list starts a paragraph."""
    blocks, cur = [], None
    for ln in comments:
        body = ln.lstrip()[1:]
        body = body[1:] if body.startswith(" ") else body
        if not body.strip():
            cur = None
            continue
        m = _ITEM.match(body)
        if m:
            kind = "ol" if m.group(2) else "ul"
            if cur is None or cur[0] != kind:
                cur = [kind, int(m.group(2)) if m.group(2) else 1, [], len(m.group(1))]
                blocks.append(cur)
            cur[2].append([m.group(4)])
            continue
        indent = len(body) - len(body.lstrip())
        if cur is not None and cur[0] in ("ol", "ul") and (
                indent > cur[3] or _wraps(cur[2][-1][-1], body.strip())):
            cur[2][-1].append(body.strip())
        elif cur is not None and cur[0] == "p":
            cur[1].append(body.strip())
        else:
            cur = ["p", [body.strip()]]
            blocks.append(cur)
    return [("p", b[1]) if b[0] == "p" else (b[0], b[1], b[2]) for b in blocks]


def _wraps(last: str, line: str) -> bool:
    """Whether an unindented ``line`` goes on with the list item that ended with ``last``:
    the item's sentence is not finished, or the line does not start one."""
    return not last.rstrip().endswith((".", "!", "?", ";", ":")) or line[:1].islower()


def _inline(lines) -> str:
    text = html.escape(" ".join(lines), quote=False)
    return _CODE.sub(r"<code>\1</code>", text)


def _prose(comments) -> str:
    out = []
    for b in _prose_blocks(comments):
        if b[0] == "p":
            out.append("<p>" + _inline(b[1]) + "</p>")
        else:
            kind, start, items = b
            attr = f' start="{start}"' if kind == "ol" and start != 1 else ""
            out.append(f"<{kind}{attr}>" + "".join(f"<li>{_inline(it)}</li>" for it in items)
                       + f"</{kind}>")
    return '<div class="prose">' + "".join(out) + "</div>\n" if out else ""


def _svg(svg: str, prefix: str) -> str:
    from ..viz.player import inline_svg

    from ..viz.sanitize import svg as clean_svg

    text = inline_svg(svg)
    text = _ID.sub(lambda m: m.group(1) + prefix + m.group(2) + m.group(3), text)
    text = _REF.sub(lambda m: m.group(1) + prefix + m.group(2), text)
    return clean_svg(text)  # only what draws: no script, handler or javascript: link


_STEP_LINE = re.compile(r"^step \d+ of \d+: ")


def _step_paper(output: str) -> str | None:
    """A ``%step`` output for paper: each step's sentence and ready queue, then the graph as
    the last step left it (the screen has every step's tree, folded); None when it is not
    ``%step``'s steps."""
    lines = output.rstrip("\n").split("\n")
    starts = [i for i, line in enumerate(lines) if _STEP_LINE.match(line)]
    if len(starts) < 2:
        return None
    out = []
    for i in starts:
        out.append(lines[i])
        if i + 1 < len(lines) and lines[i + 1].startswith("ready queue:"):
            out.append("    " + lines[i + 1])
    last = starts[-1] + 1
    while last < len(lines) and lines[last].startswith("ready queue:"):
        last += 1
    tree = lines[last:]
    if tree:
        out += ["", "the graph after the last step (every step's graph: in the handout's "
                "HTML page):"] + tree
    return "\n".join(out)


def _cell(run, anchor: str, fig_counter, keep=None) -> str:
    b = run.block
    parts = [f'<div class="cell" id="{anchor}">',
             f'<div class="in"><a class="ln" href="#{anchor}">line {b.line}</a>'
             f'<pre class="hl">{_highlight(b.source)}</pre></div>']
    output = run.output
    if output is None:
        parts.append('<div class="note">not run: the session ended before this input</div>')
    elif output:
        cls = "out err" if run.error is not None else "out"
        body = html.escape(output.rstrip("\n"), quote=False)
        n = output.count("\n")
        paper = _step_paper(output) if b.source.strip().startswith("%step") else None
        if n > FOLD_LINES and paper is not None:   # on paper: the sentences, the last tree
            parts.append(f'<details class="fold steps"><summary>output ({n} lines)</summary>'
                         f'<pre class="{cls}">{body}</pre></details>'
                         f'<pre class="{cls} step-paper">{html.escape(paper, quote=False)}'
                         '</pre>')
        elif n > FOLD_LINES:   # (printed open: see CSS's @media print)
            parts.append(f'<details class="fold"><summary>output ({n} lines)</summary>'
                         f'<pre class="{cls}">{body}</pre></details>'
                         f'<pre class="{cls} print-copy">{body}</pre>')
        else:
            parts.append(f'<pre class="{cls}">{body}</pre>')
    for fig in run.pictures:
        if keep is not None and fig.svg is not None and id(fig) not in keep:
            continue   # left out by --figures
        if fig.svg is not None:
            fig_counter[0] += 1
            k = fig_counter[0]
            parts.append(f'<figure class="pic" id="fig{k}">{_svg(fig.svg, f"p{k}-")}'
                         f'<figcaption>Figure {k}. {html.escape(fig.caption)}'
                         f'<a class="zoom in" href="#fig{k}">full size</a>'
                         f'<a class="zoom out" href="#{anchor}">fit</a></figcaption>'
                         '</figure>')
        else:
            parts.append(f'<div class="note">{html.escape(fig.note or "")}</div>')
    parts.append("</div>\n")
    return "".join(parts)


# ------------------------------------------------------------------ which pictures
DEFAULT_AUTO = 4   # pictures an input earns by itself, per file, by default (--figures auto)
_COMMANDS = ("%graph", "%step")
_BACKWARD = re.compile(r"\.backward\(|\bgrad\(|\.step\(\)")


def parse_figures(spec):
    """``--figures``: None or "auto" (every %graph/%step picture and at most ``DEFAULT_AUTO``
    others per file), "all", "none", N (at most N per file) or names (``a,e``: the pictures of
    those tensors only). Returns "auto", "all", an int or a frozenset of names; a ValueError
    says what is wrong."""
    if spec is None:
        return "auto"
    text = str(spec).strip()
    if text.lower() in ("auto", "all"):
        return text.lower()
    if text.lower() == "none":
        return 0
    if text.isdigit():
        return int(text)
    names = frozenset(n.strip() for n in text.split(",") if n.strip())
    if not names or not all(re.fullmatch(r"[A-Za-z_][\w.]*", n) for n in names):
        raise ValueError(f"--figures wants auto, all, none, a number or tensor names "
                         f"(a,e); got {spec!r}")
    return names


def choose_figures(runs, spec) -> set | None:
    """The pictures of one file's ``runs`` the page shows (ids of their ``Figure``s), None for
    all. A %graph or %step input's picture comes first (the teacher asked for it), then the
    pictures of inputs that ran a backward (the gradients filled in), then the others, the
    latest first (a later picture holds more of the graph); shown in the page's order."""
    spec = parse_figures(spec) if not isinstance(spec, (int, frozenset)) and \
        spec not in ("auto", "all") else spec
    if spec == "all":
        return None
    drawn = [(k, run, fig) for k, run in enumerate(runs) for fig in run.pictures
             if fig.svg is not None]
    if isinstance(spec, frozenset):
        return {id(fig) for _k, _r, fig in drawn if fig.name in spec}

    def rank(item):
        k, run, fig = item
        src = run.block.source.strip()
        if src.startswith(_COMMANDS):
            return (0, k)
        if _BACKWARD.search(src):
            return (1, k)
        return (2, -k)
    ordered = sorted(drawn, key=rank)
    if spec == "auto":
        explicit = [x for x in ordered if rank(x)[0] == 0]
        chosen = explicit + [x for x in ordered if rank(x)[0] > 0][:DEFAULT_AUTO]
    else:
        chosen = ordered[:spec]
    return {id(fig) for _k, _r, fig in chosen}


def handout_html(file_runs, title: str | None = None, figures=None) -> str:
    """The page for the replayed files (``replay.FileRun``s, with their pictures).
    ``figures``: which pictures to show (``parse_figures``; default "auto")."""
    figures = parse_figures(figures) if not isinstance(figures, (int, frozenset)) else figures
    import os

    from .transcript import HEADER

    if title is None:
        title = (os.path.splitext(os.path.basename(file_runs[0].path))[0]
                 if len(file_runs) == 1 else "gradrepl handout")
    fig_counter = [0]
    sections = []
    for fi, fr in enumerate(file_runs, 1):
        body = []
        if len(file_runs) > 1:
            name = os.path.splitext(os.path.basename(fr.path))[0]
            body.append(f'<h2 id="file{fi}">{html.escape(name)}</h2>')
        n_pics = sum(1 for r in fr.runs for f in r.pictures if f.svg is not None)
        keep = choose_figures(fr.runs, figures)
        shown = n_pics if keep is None else len(keep)
        pics = (f"{n_pics} pictures" if shown == n_pics else
                f"{shown} of {n_pics} pictures (<code>--figures all</code> shows every one)")
        body.append(f'<p class="meta"><span class="badge">Paddle {html.escape(fr.profile)} '
                    f'profile</span>{html.escape(fr.path)} · {len(fr.runs)} inputs · '
                    f'{pics}</p>')
        for k, run in enumerate(fr.runs):
            comments = [c for c in run.block.comments if not HEADER.match(c)]
            body.append(_prose(comments))
            body.append(_cell(run, f"f{fi}-L{run.block.line}", fig_counter, keep))
        trailing = [c for c in fr.transcript.trailing_comments if not HEADER.match(c)]
        body.append(_prose(trailing))
        sections.append(f'<section class="file">{"".join(body)}</section>')
    head = (f'<header class="page"><h1>{html.escape(title)}</h1>'
            '<p class="meta">a gradrepl session handout: inputs, outputs and the graphs '
            'the engine built</p></header>')
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{CSS}\n{_pygments_css()}\n</style>\n"
            f"</head>\n<body>\n<main>\n{head}\n{''.join(sections)}\n"
            "<footer>made with <code>gradrepl replay --html</code></footer>\n"
            "</main>\n</body>\n</html>\n")


def write_handout(path, file_runs, title: str | None = None, figures=None) -> None:
    """Write the handout page atomically (``figures``: see ``parse_figures``)."""
    from .replay import write_atomic

    from ..viz.sanitize import text

    write_atomic(str(path), text(handout_html(file_runs, title, figures)))  # (lone surrogates: U+FFFD)
