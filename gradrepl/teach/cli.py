"""``gradrepl quiz`` and ``gradrepl gradcheck``: the commands' work, apart from typer."""
from __future__ import annotations

import sys


def _say(msg, stream=None):
    from ..viz.sanitize import for_terminal

    stream = stream or sys.stderr
    stream.write(for_terminal(stream, msg if msg.endswith("\n") else msg + "\n"))


def quiz_command(script, targets, answers=None, sheet=None, paddle=None, stdin=None,
                 stdout=None) -> int:
    from .quiz import QuizError, answer_source, load_exercise, run_quiz

    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    try:
        ex = load_exercise(script, targets, profile=paddle)
    except QuizError as exc:
        _say(f"gradrepl quiz: {exc}")
        return 2
    if sheet is not None:
        from .sheet import write_sheet

        try:
            path = write_sheet([ex], sheet)
        except (OSError, ValueError) as exc:
            _say(f"gradrepl quiz: cannot write {sheet}: {exc}")
            return 2
        _say(f"wrote {path}: {len(ex.questions)} exercise"
             f"{'s' if len(ex.questions) != 1 else ''} and the answer page")
        return 0
    interactive = False
    if answers is not None:
        try:
            with open(answers, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            _say(f"gradrepl quiz: cannot read {answers}: {exc}")
            return 2
        source = answer_source(lines, ex.questions)
    elif stdin is not None and hasattr(stdin, "isatty") and stdin.isatty():
        interactive = True

        def source(prompt):
            stdout.flush()
            return input(prompt)
    else:
        lines = stdin.read().splitlines() if stdin is not None else []
        source = answer_source(lines, ex.questions)

    class _Out:
        def write(self, s):
            from ..viz.sanitize import for_terminal

            stdout.write(for_terminal(stdout, s))

        def flush(self):
            stdout.flush()

    try:
        right, asked = run_quiz(ex, source, _Out(), interactive=interactive)
    except KeyboardInterrupt:
        stdout.write("\n")
        return 130
    return 0 if right == asked else 1


def gradcheck_command(script, names, h=1e-6, elements=16, paddle=None, stdout=None,
                      seconds=2.0) -> int:
    from .numeric import GradcheckError, gradcheck_file

    stdout = stdout if stdout is not None else sys.stdout
    if not h > 0:
        _say("gradrepl gradcheck: --h must be a positive step")
        return 2
    if elements < 1:
        _say("gradrepl gradcheck: --elements must be at least 1")
        return 2
    try:
        checks, text = gradcheck_file(script, names, profile=paddle, h=h, max_elements=elements,
                                      seconds=seconds)
    except GradcheckError as exc:
        _say(f"gradrepl gradcheck: {exc}")
        return 2
    from ..viz.sanitize import for_terminal

    stdout.write(for_terminal(stdout, text))
    bad = [c for c in checks if c.checked and not c.agrees()]
    return 1 if bad else 0
