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
  input, Enter runs it, ``q`` quits. Alone: with ``--check``, ``--update``, ``--html`` or
  ``--safe`` it is one line and exit 2.
- ``--paddle 3``: the profile for files without a ``# gradrepl: paddle=...`` header (the header
  wins: the expected outputs were made under it).
- ``--safe``: run the whole replay again in the sandbox's limited child
  (``sandbox.run_safe(["replay", ..., "--inside-sandbox"])``), where sessions are
  ``Session(safe=True)``.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from dataclasses import dataclass, field

from .transcript import Block, Transcript, TranscriptError, diff, format_input, parse, \
    updated

PROG = "gradrepl replay"


@dataclass
class BlockRun:
    block: Block
    output: str | None = None    # None: not run (the session exited before it)
    error: BaseException | None = None
    kind: str = "statement"
    pictures: list = field(default_factory=list)   # filled by the handout's observer


@dataclass
class FileRun:
    path: str
    transcript: Transcript
    profile: str                 # the profile it ran under
    runs: list
    exited_at: int | None = None  # the line of the input that ended the session (exit())

    @property
    def not_run(self) -> int:
        return sum(r.output is None for r in self.runs)


class ReplayError(Exception):
    """A file that cannot be replayed: one line for the user (exit 2)."""


def load(path: str) -> Transcript:
    """Read and parse a session file; ``TranscriptError`` (with the line) if it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise TranscriptError("not UTF-8 text", None, path) from None
    except OSError as exc:
        raise TranscriptError(f"cannot read: {exc.strerror or exc}", None, path) from None
    return parse(text, path)


def _profile_key(t: Transcript, default: str | None) -> str:
    from ..paddle import profiles

    if t.profile is not None:
        try:
            return profiles.resolve(t.profile).key
        except ValueError as exc:
            raise TranscriptError(str(exc), 1, t.path) from None
    return profiles.resolve(default or profiles.DEFAULT).key


def run_transcript(t: Transcript, profile: str | None = None, safe: bool = False,
                   observer=None, on_block=None) -> FileRun:
    """Run every input of ``t`` in a fresh ``Session``; ``observer.before/after(session, run)``
    see each input (the handout takes its pictures there), ``on_block(run)`` gets each run as
    it finishes (the plain replay prints it at once)."""
    from .session import Session

    key = _profile_key(t, profile)
    session = Session(profile=key, safe=safe)
    fr = FileRun(t.path, t, key, [BlockRun(b) for b in t.blocks])
    for run in fr.runs:
        b = run.block
        if observer is not None:
            observer.before(session, run)
        try:
            res = session.run(b.source)
        except Exception as exc:  # noqa: BLE001 - a gradrepl bug, not the user's error
            raise ReplayError(f"{t.path}:{b.line}: gradrepl failed on this input: "
                              f"{type(exc).__name__}: {exc}") from exc
        if isinstance(res.error, KeyboardInterrupt):
            raise KeyboardInterrupt
        run.output, run.error, run.kind = res.output, res.error, res.kind
        if observer is not None:
            observer.after(session, run)
        if on_block is not None:
            on_block(run)
        if res.exit_code is not None:
            fr.exited_at = b.line
            break
    return fr


def shown(run: BlockRun) -> str:
    """One input and its output as the shell shows them."""
    text = "".join(ln + "\n" for ln in format_input(run.block.source))
    return text + (run.output or "")


def write_atomic(path: str, text: str) -> None:
    """Replace ``path`` by ``text`` through a temporary file beside it (same permissions); on
    any failure the file is as it was and no temporary file is left."""
    d = os.path.dirname(os.path.abspath(path))
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def _check(fr: FileRun, out) -> bool:
    """Print a diff for every block that differs; True if all matched."""
    bad = 0
    for run in fr.runs:
        if run.output is None:
            continue
        if not run.block.matches(run.output):
            bad += 1
            out.write(diff(run.block, run.output, fr.path))
    n = len(fr.runs)
    if fr.not_run:
        bad += fr.not_run
        out.write(f"{fr.path}:{fr.exited_at}: the session exited here; "
                  f"{_plural(fr.not_run, 'input')} after it did not run\n")
    if bad:
        out.write(f"{fr.path}: FAILED: {bad} of {_plural(n, 'block')} differ "
                  f"(profile {fr.profile})\n")
    else:
        out.write(f"{fr.path}: ok, {_plural(n, 'block')} (profile {fr.profile})\n")
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
        out.write(f"{fr.path}: updated {len(changed)} of {_plural(n, 'block')} "
                  f"(line{'s' if len(changed) > 1 else ''} "
                  f"{', '.join(str(fr.runs[k].block.line) for k in changed)})\n")
    else:
        out.write(f"{fr.path}: up to date, {_plural(n, 'block')}\n")


def _safe(files, check, update, html, paddle, out, err) -> int:
    """Run this replay again in the sandbox's limited child: it may read the files, and write
    beside them (``--update``: the temporary file, then the rename) or the handout."""
    try:
        from . import sandbox
    except ImportError:
        err.write(f"{PROG}: --safe needs the sandbox (gradrepl/repl/sandbox.py), which this "
                  "gradrepl does not have\n")
        return 2
    absolute = [os.path.abspath(f) for f in files]
    argv = ["replay", *absolute]
    writes = []
    if check:
        argv.append("--check")
    if update:
        argv.append("--update")
        writes += sorted({os.path.dirname(f) for f in absolute})
    if html:
        argv += ["--html", os.path.abspath(html)]
        writes.append(os.path.dirname(os.path.abspath(html)))
    if paddle:
        argv += ["--paddle", paddle]
    argv.append("--inside-sandbox")
    out.flush()
    n = max(1, len(files))
    res = sandbox.run_safe(argv, cpu_seconds=30 * n, timeout=60 * n,
                           read_paths=[f for f in absolute if os.path.exists(f)],
                           write_paths=writes)
    for name, stream in (("stdout", out), ("stderr", err)):
        data = getattr(res, name, None) or ""
        if not isinstance(data, str):
            data = data.decode("utf-8", "replace")
        for a, f in zip(absolute, files):  # the paths as the user wrote them
            data = data.replace(a, f)
        if html:
            data = data.replace(os.path.abspath(html), html)
        stream.write(data)
    if getattr(res, "limit", None):
        err.write(f"{PROG} --safe: {res.message}\n")
        return 2
    code = getattr(res, "returncode", None)
    return code if isinstance(code, int) and code >= 0 else 2


def _report_refusals(t: Transcript, err) -> None:
    """In the sandbox: what the safe session will refuse, named by file line, up front."""
    from .sandbox import check_session_blocks

    for r in check_session_blocks(t.blocks, allow_syntax_errors=True):
        err.write(f"{PROG} --safe: {t.path}:{r.line}: refused: {r.message}\n")


def replay_command(files, check: bool = False, update: bool = False, html: str | None = None,
                   paddle: str | None = None, safe: bool = False, inside_sandbox: bool = False,
                   out=None, err=None, present: bool = False) -> int:
    """The ``gradrepl replay`` command; returns the exit status (0, 1 or 2; ``--present``:
    130 after Ctrl-C)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    if not files:
        err.write(f"{PROG}: no FILE given\n")
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
    if present:  # a lesson shown live (present.py): one mode, alone
        other = next((o for o, on in (("--check", check), ("--update", update),
                                      ("--html", html), ("--safe", safe or inside_sandbox))
                      if on), None)
        if other is not None:
            err.write(f"{PROG}: --present shows a session live, block by block; it does not go "
                      f"with {other}" + (" (a presented session runs in this process, outside "
                                         "the sandbox: present only files you trust)"
                                         if other == "--safe" else "") + "\n")
            return 2
        from .present import present_files

        return present_files(files, paddle, out=out, err=err)
    if safe and not inside_sandbox:
        return _safe(files, check, update, html, paddle, out, err)
    if inside_sandbox:
        from .sandbox import install_runtime_guard

        install_runtime_guard()  # first: before any session file is read or run

    observer = None
    if html:
        from .handout import PictureTaker

        observer = PictureTaker()
    plain = not (check or update or html)
    status = 0
    done: list[FileRun] = []
    for k, path in enumerate(files):
        on_block = None
        if plain:
            if len(files) > 1:
                out.write(f"{chr(10) if k else ''}==> {path} <==\n")

            def on_block(run):
                out.write(shown(run))
                out.flush()
        try:
            t = load(path)
            if inside_sandbox:
                _report_refusals(t, err)
            fr = run_transcript(t, paddle, safe=inside_sandbox, observer=observer,
                                on_block=on_block)
            if check and not _check(fr, out):
                status = max(status, 1)
            if update:
                _update(fr, out)
            if plain and fr.not_run:
                err.write(f"{PROG}: {path}:{fr.exited_at}: the session exited here; "
                          f"{_plural(fr.not_run, 'input')} after it did not run\n")
            done.append(fr)
        except (TranscriptError, ReplayError) as exc:
            err.write(f"{PROG}: {exc}\n")
            status = 2
        out.flush()
    if check and len(files) > 1:
        out.write(f"{PROG}: {_plural(len(files), 'file')}, "
                  f"{'all matched' if status == 0 else 'some differ or failed'}\n")
    if html:
        if status == 2:
            err.write(f"{PROG}: {html} not written (a file failed)\n")
        else:
            from .handout import write_handout

            try:
                write_handout(html, done)
            except OSError as exc:
                err.write(f"{PROG}: cannot write {html}: {exc.strerror or exc}\n")
                return 2
            err.write(f"wrote {html}\n")
    return status
