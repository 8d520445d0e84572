"""``gradrepl replay FILE...``: run session files (transcripts, see ``transcript.py``) in a fresh
session each, and show, check, update or hand them out.

- ``gradrepl replay FILE...``: the session as the shell shows it (inputs with prompts, then
  outputs; a ``==> FILE <==`` line before each file when there are several).
- ``--check``: compare every output with the expected one; a unified diff (file and line) for
  each difference, a summary line per file; go on after a failure. Exit 0 if all matched, 1 if
  any block differed, 2 if a file could not be read or parsed (the error names the line).
- ``--update``: rewrite the expected outputs that differ, in place and atomically (a temporary
  file beside it, then ``os.replace``); comments, header, wildcards that still match and the
  layout stay. On any error the file is left untouched (exit 2).
- ``--html OUT.html``: a handout (``handout.py``): the transcript with highlighted inputs, the
  outputs, and the pictures of its tensors inline.
- ``--present``: a lesson in front of a class (``present.py``): each block's comments and
  input, Enter runs it, ``q`` quits; with ``--safe`` the session runs in the confined child.
  With ``--check``, ``--update`` or ``--html`` it is one line and exit 2.
- ``--paddle 3``: the profile for files without a ``# gradrepl: paddle=...`` header (the header
  wins: the expected outputs were made under it).
- ``--safe``: each file runs in its own child process that the kernel confines
  (``kernel.py``: Landlock, seccomp, no_new_privs, resource limits) behind the static check
  and the audit hook (``sandbox.py``); this process feeds the child one input at a time (its
  code only: never the expected outputs) and captures each input's output itself
  (``safe_replay.py``). This process parses the file, runs the static check, computes
  ``--check``'s verdict, and writes ``--update``'s file and the ``--html`` handout: the child
  can write nothing outside its temporary directory. A handout's pictures come
  from the child as data, checked and drawn here (``safe_pictures.py``). Refused lines are reported up
  front, numbered by file line; ``--update`` leaves a file with refused lines as it was.
- Files are read only if they are regular files (a fifo or a device is refused at once, never
  waited on); ``--update`` of a symbolic link rewrites its target; lone surrogates in outputs
  are written as their escapes (``\\udc80``); on a terminal, control characters in outputs
  and diffs are shown escaped (``\\x1b``).

Exit status: 0 all ran (and matched); 1 ``--check`` found differences or inputs that did not
run; 2 a file could not be read or parsed, ``--safe`` cannot sandbox here, a limit stopped a
session, or its results were tampered with; 3 ``--safe`` refused lines (2 outranks 3, 3
outranks 1).
"""
from __future__ import annotations

import contextlib
import os  # noqa: F401  (tests reach os.replace through it)
import sys

from .. import progress
from .replay import BlockRun, FileRun, ReplayError, clean_text, for_terminal, load, \
    profile_key as _profile_key, read_text, run_transcript, shown, write_atomic  # noqa: F401
from .transcript import Transcript, TranscriptError, diff, updated

PROG = "gradrepl replay"


def _esc(s) -> str:
    """``s`` for one line of this command's own reports (a file name, a message): every
    character a terminal would obey or that would break the line (an escape sequence, a
    carriage return, a newline, a bidi override, a lone surrogate) shown as its escape
    (``\\x1b``, ``\\u202e``), on a terminal or not: a file name cannot fake a verdict."""
    s = str(s)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else (f"\\x{ord(c):02x}" if ord(c) < 0x100 else
                                              f"\\u{ord(c):04x}" if ord(c) < 0x10000 else
                                              f"\\U{ord(c):08x}") for c in s)


def _shown_text(stream, text: str, safe: bool) -> str:
    """A session's own text (its outputs, a diff of them): under ``--safe`` escaped as
    ``sanitize.terminal`` does on any stream (a pipe into ``less -R`` obeys escapes too);
    else escaped on a terminal only (a diff saved to a file stays exact)."""
    if safe:
        from ..viz.sanitize import terminal

        return terminal(text)
    return for_terminal(stream, text)


# What the user typed for a file, where it differs from its path (``lesson:NAME``, set by the
# command line): reports name the file as the user named it, in a clone or from a wheel.
SHOWN_AS: dict[str, str] = {}


def _name(path) -> str:
    return _esc(SHOWN_AS.get(path, path))


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def _check(fr: FileRun, out, safe: bool = False) -> bool:
    """Print a diff for every block that differs; True if all matched."""
    bad = 0
    name = _name(fr.path)
    for run in fr.runs:
        if run.output is None:
            continue
        if not run.block.matches(run.output):
            bad += 1
            out.write(_shown_text(out, diff(run.block, run.output, name), safe))
    n = len(fr.runs)
    if fr.not_run:
        bad += fr.not_run
        if fr.exited_at is None:
            out.write(f"{name}: {_plural(fr.not_run, 'input')} did not run\n")
        else:
            out.write(f"{name}:{fr.exited_at}: the session exited here; "
                      f"{_plural(fr.not_run, 'input')} after it did not run\n")
    if bad:
        out.write(f"{name}: FAILED: {bad} of {_plural(n, 'block')} differ "
                  f"(profile {fr.profile})\n")
    else:
        out.write(f"{name}: ok, {_plural(n, 'block')} (profile {fr.profile})\n")
    return not bad


def _update(fr: FileRun, out) -> None:
    if fr.not_run:
        raise TranscriptError(f"the session exited here; {_plural(fr.not_run, 'input')} after "
                              "it did not run, so nothing was written", fr.exited_at, fr.path)
    text, changed = updated(fr.transcript, [r.output for r in fr.runs])
    n = len(fr.runs)
    if changed:
        try:
            write_atomic(fr.path, text)
        except OSError as exc:
            raise TranscriptError(f"cannot write: {exc.strerror or exc}", None, fr.path) \
                from None
        out.write(f"{_name(fr.path)}: updated {len(changed)} of {_plural(n, 'block')} "
                  f"(line{'s' if len(changed) > 1 else ''} "
                  f"{', '.join(str(fr.runs[k].block.line) for k in changed)})\n")
    else:
        out.write(f"{_name(fr.path)}: up to date, {_plural(n, 'block')}\n")


def _safe_unavailable() -> str | None:
    """Why ``--safe`` cannot run here (one line), or None."""
    from . import kernel

    return kernel.probe()


def _run_safe_file(t: Transcript, paddle, html, on_block, err, budget=None) -> tuple:
    """Run ``t`` in its own kernel-confined child (``safe_replay``): ``(FileRun, refused,
    ok)``. The outputs come back as data; the FileRun is built here, in the parent."""
    from . import safe_replay
    from .handout import Figure

    runs = [BlockRun(b) for b in t.blocks]
    drawer = None
    if html:   # the child's pictures, as data: checked and drawn here, while the child runs
        from .safe_pictures import Drawer

        drawer = Drawer(budget)

    def on_record(rec):
        run = runs[rec["k"]]
        run.output = clean_text(rec["output"])
        run.error = (safe_replay.SandboxedError(str(rec.get("error_name") or "Error"))
                     if rec.get("failed") else None)
        run.kind = str(rec.get("kind") or "statement")
        pictures = rec.get("pictures")
        run.pictures = []
        for p in pictures if isinstance(pictures, list) else ():
            if not isinstance(p, dict):
                continue
            name = clean_text(str(p.get("name", "")))[:200]
            fig = Figure(name, clean_text(str(p.get("caption", "")))[:1000],
                         note=None if p.get("note") is None
                         else clean_text(str(p["note"]))[:1000])
            if p.get("picture") is not None and drawer is not None:
                drawer.add(fig, p["picture"])
            elif fig.note is None:
                fig.note = f"no picture of {name}"
            run.pictures.append(fig)
        if on_block is not None:
            on_block(run)

    try:
        res = safe_replay.run_file(getattr(t, "text", None) or "\n".join(t.lines) + "\n",
                                   t.path, paddle, len(t.blocks), html=bool(html),
                                   on_record=on_record, budget=budget)
    finally:
        if drawer is not None:
            drawer.finish()
    if res.file_error:   # a file the parser or the profiles refuse: as plain replay says it
        raise ReplayError(clean_text(res.error or "not a session file"))
    for line, message in res.refusals:
        err.write(f"{PROG} --safe: {_esc(t.path)}:{line}: refused: {_esc(message)}\n")
    fr = FileRun(t.path, t, res.profile or "?", runs, exited_at=res.exited_at)
    ok = True
    for problem in (res.limit, res.error):
        if problem:
            err.write(f"{PROG} --safe: {_esc(t.path)}: {_esc(problem)}\n")
            ok = False
    return fr, bool(res.refusals), ok


def _report_refusals(t: Transcript, err) -> None:
    """In the sandbox: what the safe session will refuse, named by file line, up front."""
    from .sandbox import check_session_blocks

    for r in check_session_blocks(t.blocks, allow_syntax_errors=True):
        err.write(f"{PROG} --safe: {_esc(t.path)}:{r.line}: refused: {_esc(r.message)}\n")


def replay_command(files, check: bool = False, update: bool = False, html: str | None = None,
                   paddle: str | None = None, safe: bool = False, inside_sandbox: bool = False,
                   out=None, err=None, present: bool = False, figures: str | None = None,
                   budget: float | None = None) -> int:
    """The ``gradrepl replay`` command; returns the exit status (0, 1 or 2; ``--present``:
    130 after Ctrl-C). ``figures``: which pictures the ``--html`` handout shows
    (``handout.parse_figures``). ``budget``: ``--safe``'s total wall time in seconds (default
    ``safe_budget.BUDGET_SECONDS``)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    if not files:
        err.write(f"{PROG}: no FILE given\n")
        return 2
    if figures is not None:
        if not html:
            err.write(f"{PROG}: --figures chooses the pictures of the --html handout: give "
                      "--html OUT.html too\n")
            return 2
        from .handout import parse_figures

        try:
            parse_figures(figures)
        except ValueError as exc:
            err.write(f"{PROG}: {exc}\n")
            return 2
    if check and update:
        err.write(f"{PROG}: --check and --update do not go together: check, then update\n")
        return 2
    if paddle:
        from ..paddle import profiles

        try:
            profiles.resolve(paddle)
        except ValueError as exc:
            err.write(f"{PROG}: {exc}\n")
            return 2
    if budget is not None and not safe:
        err.write(f"{PROG}: --budget is the time of a --safe replay: give --safe too\n")
        return 2
    if budget is not None and not (0 < budget <= 86400):
        err.write(f"{PROG}: --budget takes seconds, more than 0 and at most 86400\n")
        return 2
    if safe and inside_sandbox:
        # --inside-sandbox is the old in-process mode, behind the Python layers only: never
        # what a teacher who typed --safe gets
        err.write(f"{PROG}: --safe and --inside-sandbox do not go together: --safe runs each "
                  "file in a kernel-confined child\n")
        return 2
    if present:  # a lesson shown live (present.py): one mode, alone
        other = next((o for o, on in (("--check", check), ("--update", update),
                                      ("--html", html)) if on), None)
        if other is not None:
            err.write(f"{PROG}: --present shows a session live, block by block; it does not go "
                      f"with {other}\n")
            return 2
        from .present import present_files

        return present_files(files, paddle, out=out, err=err, safe=safe)
    kernel_safe = safe and not inside_sandbox
    if kernel_safe:
        why = _safe_unavailable()
        if why:
            err.write(f"{PROG}: {why}\n")
            return 2
        from .safe_budget import BUDGET_SECONDS, Budget, BudgetExhausted

        clock = Budget(BUDGET_SECONDS if budget is None else budget)
        clock.arm()
        try:
            return _replay_files(files, check, update, html, paddle, False, True, out, err,
                                 figures, clock)
        except BudgetExhausted as exc:   # the backstop: the parent's own work past the budget
            err.write(f"{PROG} --safe: {exc}; stopped (nothing more was written)\n")
            return 2
        finally:
            clock.disarm()
    return _replay_files(files, check, update, html, paddle, inside_sandbox, False, out, err,
                         figures, None)


def _replay_files(files, check, update, html, paddle, inside_sandbox, kernel_safe, out, err,
                  figures, clock) -> int:
    """``replay_command`` once its options are checked: every file, then the handout."""
    if inside_sandbox:
        from .sandbox import install_runtime_guard

        install_runtime_guard()  # first: before any session file is read or run

    observer = None
    if html:
        from .handout import PictureTaker

        observer = PictureTaker()
    plain = not (check or update or html)
    status = 0
    refused = False
    done: list[FileRun] = []
    for k, path in enumerate(files):
        if clock is not None and clock.used_up():
            after = {1: "", 2: " and the file after it"}.get(
                len(files) - k, f" and the {len(files) - k - 1} files after it")
            err.write(f"{PROG} --safe: {clock.line()}: {_esc(path)}{after} did not run\n")
            status = 2
            break
        on_block = None
        # (a status line on the terminal while --check/--update/--html work silently; a plain
        # replay prints each block as it runs, which is its own progress)
        working = contextlib.nullcontext(None) if plain else progress.status(
            f"replaying {_esc(path)}")
        if plain:
            if len(files) > 1:
                out.write(f"{chr(10) if k else ''}==> {_esc(path)} <==\n")

            def on_block(run):
                out.write(_shown_text(out, clean_text(shown(run)), kernel_safe))
                out.flush()
        try:
            with working as say:
                t = load(path)
                if say is not None:
                    blocks, seen = len(t.blocks), [0]

                    def on_block(run, say=say, blocks=blocks, seen=seen, path=path):
                        seen[0] += 1
                        say(f"replaying {_esc(path)}: block {seen[0]} of {blocks}"
                            + (" (with its pictures)" if html else ""))
                if inside_sandbox:
                    _report_refusals(t, err)
                was_refused = False
                if kernel_safe:
                    fr, was_refused, ok = _run_safe_file(t, paddle, html, on_block, err, clock)
                    refused = refused or was_refused
                    if not ok:
                        status = 2
                else:
                    fr = run_transcript(t, paddle, safe=inside_sandbox, observer=observer,
                                        on_block=on_block)
            if check and not _check(fr, out, kernel_safe):
                status = max(status, 1)
            if update and kernel_safe and was_refused:
                err.write(f"{PROG} --safe: {_esc(path)}: not updated: lines were refused (their "
                          "refusals are not outputs to keep)\n")
            elif update:
                _update(fr, out)
            if plain and fr.not_run and fr.exited_at is not None:
                err.write(f"{PROG}: {_esc(path)}:{fr.exited_at}: the session exited here; "
                          f"{_plural(fr.not_run, 'input')} after it did not run\n")
            done.append(fr)
        except (TranscriptError, ReplayError) as exc:
            err.write(f"{PROG}: {_esc(exc)}\n")
            status = 2
        out.flush()
    if check and len(files) > 1:
        out.write(f"{PROG}: {_plural(len(files), 'file')}, "
                  f"{'all matched' if status == 0 else 'some differ or failed'}\n")
    if html:
        if status == 2:
            err.write(f"{PROG}: {_esc(html)} not written (a file failed)\n")
        else:
            from .handout import write_handout

            try:
                with progress.status(f"writing {_esc(html)}"):
                    write_handout(html, done, figures=figures)
            except OSError as exc:
                err.write(f"{PROG}: cannot write {_esc(html)}: {_esc(exc.strerror or exc)}\n")
                return 2
            err.write(f"wrote {_esc(html)}\n")
    if refused and status != 2:
        status = 3
    return status
