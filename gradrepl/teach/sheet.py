"""A printable exercise sheet: the code and a blank per hidden gradient, then the answer page
(each gradient with its steps, the ``why`` text). One HTML file, no scripts, no pictures:
it prints cleanly from any browser (``@page`` margins, no exercise split across pages, the
answers on a page of their own)."""
from __future__ import annotations

import html

import numpy as np

CSS = """
@page { size: A4; margin: 16mm 15mm 16mm 15mm; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Serif", Georgia, serif; font-size: 11pt; line-height: 1.45;
       color: #111; background: #fff; max-width: 46em; margin: 2em auto; padding: 0 1em; }
@media print { body { margin: 0; max-width: none; padding: 0; } }
h1 { font-size: 17pt; margin: 0 0 .2em 0; }
h2 { font-size: 13pt; margin: 1.2em 0 .4em 0; }
.who { margin: .6em 0 1.2em 0; }
.who span { display: inline-block; border-bottom: 1px solid #333; width: 14em;
            margin: 0 1.5em 0 .4em; }
p.how { margin: .3em 0 1em 0; }
pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 9.5pt;
      line-height: 1.35; background: #f5f5f5; border: 1px solid #ccc; border-radius: 3px;
      padding: .5em .8em; margin: .4em 0 .8em 0; white-space: pre-wrap;
      overflow-wrap: anywhere; break-inside: avoid; page-break-inside: avoid; }
.exercise { margin: 0 0 1.2em 0; }
h2 { break-after: avoid; page-break-after: avoid; }
.code { break-inside: avoid; page-break-inside: avoid; }
ol.questions { padding-left: 1.6em; margin: .4em 0; }
ol.questions li { break-inside: avoid; page-break-inside: avoid; margin: 0 0 1.1em 0; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 10pt; }
.form { color: #444; font-size: 9.5pt; }
.work { height: 4.2em; border-left: 2px solid #ddd; margin: .3em 0 0 0; }
table.blank { border-collapse: collapse; display: inline-table; vertical-align: middle;
              margin-left: .4em; }
table.blank td { border: 1px solid #333; width: 5.2em; height: 1.7em; }
span.line { display: inline-block; border-bottom: 1px solid #333; width: 10em;
            height: 1.2em; vertical-align: bottom; margin-left: .4em; }
.answers { break-before: page; page-break-before: always; }
.answer { break-inside: avoid; page-break-inside: avoid; margin: 0 0 .9em 0; }
.answer .value { font-weight: bold; }
.src { color: #555; font-size: 9pt; }
footer { color: #666; font-size: 8.5pt; margin-top: 1.5em; }
"""


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def _blank(q) -> str:
    """The space an answer goes in: one line for a number, a grid of the gradient's shape."""
    shape = q.shape
    n = int(np.prod(shape)) if shape else 1
    if q.element is not None or n == 1:
        return '<span class="line"></span>'
    rows, cols = (1, shape[0]) if len(shape) == 1 else (int(np.prod(shape[:-1])), shape[-1])
    cells = "".join("<tr>" + "<td></td>" * cols + "</tr>" for _ in range(rows))
    return f'<table class="blank" aria-label="answer grid">{cells}</table>'


def _num(v):
    from ..viz.why import _fmt

    return _fmt(v)


def render(exercises, title="Gradients by the chain rule") -> str:
    """The sheet and its answer page as one HTML document."""
    from ..viz.sanitize import text as clean

    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{_e(title)}</title><style>{CSS}</style></head><body>"]
    parts.append(f"<h1>{_e(title)}</h1>")
    parts.append('<div class="who">Name<span></span>Date<span></span></div>')
    parts.append('<p class="how">Each program below builds a graph and calls '
                 '<code>backward()</code>. Work out each gradient by the chain rule: follow '
                 'every path from the tensor backward() started from to the tensor asked '
                 'for, multiply the local derivatives along each path, and add the paths '
                 'up. Write a number, or one number per box.</p>')
    k = 0
    for ex_no, ex in enumerate(exercises, 1):
        parts.append('<section class="exercise">')
        head = f"Exercise {ex_no}" if len(exercises) > 1 else "The program"
        parts.append(f"<h2>{_e(head)} <span class=\"src\">({_e(_base(ex.path))})</span></h2>")
        parts.append(f'<pre class="code">{_e(clean(ex.code.rstrip()))}</pre>')
        parts.append('<ol class="questions" start="%d">' % (k + 1))
        for q in ex.questions:
            k += 1
            parts.append(f"<li><code>{_e(q.label)}</code> ={_blank(q)}"
                         f'<div class="form">{_e(q.prompt_words())}</div>'
                         '<div class="work"></div></li>')
        parts.append("</ol></section>")
    parts.append('<section class="answers"><h1>Answers</h1>')
    k = 0
    for ex_no, ex in enumerate(exercises, 1):
        if len(exercises) > 1:
            parts.append(f"<h2>Exercise {ex_no} <span class=\"src\">({_e(_base(ex.path))})"
                         "</span></h2>")
        for q in ex.questions:
            k += 1
            parts.append('<div class="answer">')
            parts.append(f"<div>{k}. <code>{_e(q.label)}</code> = "
                         f'<span class="value">{_e(_num(q.value))}</span></div>')
            parts.append(f"<pre>{_e(clean(q.explanation.text().rstrip()))}</pre>")
            parts.append("</div>")
    parts.append("</section>")
    parts.append("<footer>Made with gradrepl quiz --sheet: every number is the one the "
                 "engine computed.</footer>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _base(path):
    import os

    return os.path.basename(path)


def write_sheet(exercises, output) -> str:
    from ..viz.render import write_atomic

    if not str(output).lower().endswith((".html", ".htm")):
        raise ValueError("the sheet is HTML: give a file name ending in .html")
    write_atomic(output, render(exercises))
    return str(output)
