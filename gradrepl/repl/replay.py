"""Running a session file: each input in a fresh ``Session``, and what its outputs may show.

``run_transcript`` replays a parsed session file (``transcript.py``) and gives a ``FileRun``:
one ``BlockRun`` per input, with its output. ``gradrepl replay`` (``replay_cli.py``), the
confined child of ``--safe`` (``safe_replay.py``) and the presenter (``present.py``) all run
files through it; ``load`` reads a file (regular files only), ``clean_text`` and
``for_terminal`` make an output safe to write to a file or a terminal, ``write_atomic``
rewrites a file all at once (``--update``, the handout).
"""
from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass, field

from .transcript import Block, Transcript, TranscriptError, format_input, parse


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


def read_text(path: str) -> str:
    """A session file's text: a regular file (a fifo, a device or a directory is refused at
    once, never waited on), UTF-8; ``TranscriptError`` saying why not."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise TranscriptError("no such file", None, path) from None
    except OSError as exc:
        raise TranscriptError(f"cannot read: {exc.strerror or exc}", None, path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
            raise TranscriptError(f"not a session file: {kind} (only regular files are "
                                  "replayed)", None, path)
        with os.fdopen(fd, "rb") as f:
            fd = -1
            data = f.read()
    except OSError as exc:
        raise TranscriptError(f"cannot read: {exc.strerror or exc}", None, path) from None
    finally:
        if fd >= 0:
            os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise TranscriptError("not UTF-8 text", None, path) from None


_KINDS = {stat.S_IFIFO: "a fifo", stat.S_IFDIR: "a directory", stat.S_IFCHR: "a device",
          stat.S_IFBLK: "a device", stat.S_IFSOCK: "a socket"}


def load(path: str) -> Transcript:
    """Read and parse a session file; ``TranscriptError`` (with the line) if it is not one."""
    text = read_text(path)
    t = parse(text, path)
    t.text = text
    return t


def clean_text(text: str) -> str:
    """``text`` with lone surrogates (``'\\udc80'``, which no file or terminal can take) written
    as their escapes; everything else as it is."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


from ..viz.sanitize import for_terminal  # noqa: E402,F401  (one escape table, shared)


def profile_key(t: Transcript, default: str | None) -> str:
    """The profile ``t`` runs under: its header's, else ``default``, else the default one."""
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

    key = profile_key(t, profile)
    session = Session(profile=key, safe=safe)
    fr = FileRun(t.path, t, key, [BlockRun(b) for b in t.blocks])
    for run in fr.runs:
        b = run.block
        if observer is not None:
            observer.before(session, run)
        try:
            res = session.run(b.source, first_line=b.line)
        except Exception as exc:  # noqa: BLE001 - a gradrepl bug, not the user's error
            raise ReplayError(f"{t.path}:{b.line}: gradrepl failed on this input: "
                              f"{type(exc).__name__}: {exc}") from exc
        if isinstance(res.error, KeyboardInterrupt):
            raise KeyboardInterrupt
        run.output, run.error, run.kind = clean_text(res.output or ""), res.error, res.kind
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
    any failure the file is as it was and no temporary file is left. A symbolic link is
    written through (its target is replaced; the link stays a link)."""
    path = os.path.realpath(path)
    d = os.path.dirname(path)
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
