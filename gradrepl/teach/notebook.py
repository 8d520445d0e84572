"""``%quiz`` in a Jupyter notebook (``%load_ext gradrepl``): the shell's quiz, one magic per step,
no widget, so it works in plain Jupyter, JupyterLab, VS Code and Colab alike.

    %quiz                 the gradients there are to work out (every named leaf a backward gave
                          a gradient)
    %quiz a               asks for a.grad: what form the answer takes
    %quiz a 20            marks the answer (also ``%quiz a = 20``, ``%quiz a.grad = 2*5*2``):
                          right, or wrong and which step of the chain rule went astray (a
                          forgotten path, a missing broadcast sum, ...), then the steps

The marking is ``teach.quiz.shell_quiz`` on the notebook's namespace and the extension's ``%why``
log, so a notebook and the shell say the same. Each answer is shown as a small HTML block
(the verdict in colour, the steps in a folded ``<details>``) with the same text as its plain
text form (what nbconvert, a terminal frontend and Colab's text view show).
"""
from __future__ import annotations

import html
import re


class _View:
    """What ``shell_quiz`` reads of a session: the user's names and the backward log; no
    terminal to read an answer from (so ``%quiz NAME`` says how to answer)."""

    interactive = False
    quiz_input = None

    def __init__(self, ext):
        from ..notebook.names import user_namespace

        self.namespace = user_namespace(ext.shell)
        self.why_log = getattr(ext, "why_log", None)


def quiz_text(ext, line: str) -> str:
    """The text ``%quiz LINE`` shows (a QuizError or AnswerError: the shell's CommandError)."""
    from ..repl.commands import CommandError
    from .quiz import AnswerError, QuizError, shell_quiz

    args = line.split()
    try:
        text = shell_quiz(_View(ext), args)
    except (QuizError, AnswerError) as exc:
        raise CommandError(str(exc)) from None
    return text.replace("answer with %quiz", "answer in a cell: %quiz")


_VERDICT = re.compile(r"^(right|wrong): ", re.M)


def quiz_html(text: str) -> str:
    """The quiz's text as HTML: the verdict line in colour and bold, the diagnosis under it,
    the steps folded (open on a wrong answer), everything else as preformatted text."""
    head, sep, steps = text.partition("the steps:\n")
    lines = head.rstrip("\n").split("\n")
    out = ['<div class="gradrepl-quiz" style="font-family: ui-monospace, \'DejaVu Sans Mono\', '
           'monospace; font-size: 13px; line-height: 1.45">']
    for k, ln in enumerate(lines):
        m = _VERDICT.match(ln)
        if m and k == 0:
            colour = "#1a7f37" if m.group(1) == "right" else "#c8102e"
            mark = "&#x2714;" if m.group(1) == "right" else "&#x2718;"
            out.append(f'<div style="color: {colour}; font-weight: bold">{mark} '
                       f"{html.escape(ln)}</div>")
        else:
            out.append(f'<div style="white-space: pre-wrap">{html.escape(ln)}</div>')
    if sep:
        out.append('<details open><summary style="cursor: pointer">the steps</summary>'
                   f'<pre style="margin: 4px 0 0 0">{html.escape(steps.rstrip())}</pre></details>')
    out.append("</div>")
    return "".join(out)


def show_quiz(ext, line: str) -> None:
    """``%quiz LINE`` in a notebook: the text as HTML, and as plain text for other frontends."""
    from IPython.display import display

    text = quiz_text(ext, line)
    display({"text/plain": text.rstrip("\n"), "text/html": quiz_html(text)}, raw=True)
