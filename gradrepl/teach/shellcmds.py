"""The shell's ``%quiz`` and ``%gradcheck`` (registered in ``repl/commands.py``'s table)."""
from __future__ import annotations


def _command_error(msg):
    from ..repl.commands import CommandError

    return CommandError(msg)


def cmd_quiz(session, args):
    from ..repl.result import Result
    from ..viz.sanitize import terminal
    from .quiz import AnswerError, QuizError, shell_quiz

    try:
        text = shell_quiz(session, args)
    except (QuizError, AnswerError) as exc:
        raise _command_error(str(exc)) from None
    return Result(output=terminal(text))


def cmd_gradcheck(session, args):
    """``%gradcheck [NAME ...]``: the session's inputs run again with every op recorded, then
    central differences beside each leaf's .grad."""
    from ..repl.result import Result
    from ..viz.sanitize import terminal
    from .numeric import GradcheckError, _lookup_all, check_leaves, report, rerun_session

    names = [a for a in args if not a.startswith("-")]
    bad = [a for a in args if a.startswith("-")]
    if bad:
        raise _command_error(f"unknown option {bad[0]}: %gradcheck [NAME ...]")
    tape, fresh = rerun_session(session)
    try:
        only = _lookup_all(fresh.namespace, names)
    except GradcheckError as exc:
        raise _command_error(str(exc)) from None
    checks = check_leaves(tape, fresh.namespace, only=only)
    n = fresh.rerun
    head = (f"(the session's {n} input{'s' if n != 1 else ''} ran again with every op "
            "recorded, then each leaf was nudged and the recorded ops rerun)\n")
    return Result(output=terminal(head + report(checks)), value=checks)
