"""``gradrepl replay --safe``: each session file runs in a confined child; the parent decides
and writes.

**The child** (``python -m gradrepl.repl.safe_replay --child FD``, one per file, started by
``run_file``) imports what it needs, confines itself (``kernel.confine``: Landlock, seccomp,
no_new_privs; the resource limits were set between fork and exec), installs the audit hook
(``sandbox.install_runtime_guard``), and only then reads the request (the session's *text*,
its display path, the profile, a token) from its stdin, a pipe: the child never needs, and
cannot open, the session file's path. It runs the session (``Session(safe=True)``: the static
check refuses lines, naming file lines) and sends each input's output back as one JSON line on
the results pipe (inherited fd ``FD``): ``{"t": TOKEN, "k": index, "output": ..., "failed": bool,
"kind": ..., "pictures": [{"name", "caption", "note", "picture"}...]}``, framed by a ``start``
record (profile, refusals) and an ``end`` record. Under ``--html`` a picture travels as data
(``"picture"``: the picture model and the options it was drawn with,
``safe_pictures.picture_data``; at most ``PICTURES_LIMIT_MB`` for a file): Graphviz cannot run
in the child, and the parent trusts none of it: it checks the data against a schema, writes
the DOT with its own code, renders and cleans the SVG (``safe_pictures.draw``); a picture that
fails any of that is a note under its input, never a failed handout. Its own stdout/stderr go to a capped file that is only ever
shown as diagnostics (escaped), never parsed.

**The parent** (``run_file``) parses the file itself, reads the records, and builds the
``FileRun`` that ``replay_cli`` checks, prints, updates or hands out: the verdict of
``--check``, the updated transcript and the handout are computed and written by the parent,
from data. Nothing the child prints to fd 1/2, writes elsewhere (it can write nowhere but its
temporary directory) or exits with is a verdict: the child's exit status is read only to name
a limit (CPU, memory, timeout) or a crash, and an input without its record counts as not run
(``--check`` fails).

Why the framing cannot be forged by the session, and where that stops:

- The session's ``print``/``sys.stdout`` go to the ``Session``'s in-memory capture, which the
  runner sends as a JSON *string*: whatever it contains (an ``ok`` line, a fake record, control
  bytes) is data inside one record, compared with the expected output like any other output.
- Raw writes to fd 1 or 2 (``os.write(1, ...)``, if the session ever reached ``os``) land in the
  diagnostics file, which is not parsed. ``os._exit(0)`` ends the child before the ``end``
  record: the inputs after it have no record, so the file fails (and the parent says the child
  ended early).
- To write a record the session would need the results fd *and* the token. The token is 128
  random bits drawn by the parent for this child, read by the runner after confinement and kept
  only in a closure of the sender (not a module global); records are accepted strictly in
  order, once each, with that token, and anything else on the pipe (a wrong token, a
  record out of order, a second ``end``, bytes that are not JSON) fails the file as tampered.
  So code that can only write blindly to descriptors cannot forge; neither can code that can
  read globals and modules (the audit hook's and the checker's state is not where the token is).
- What no in-process design can stop: code that has the runner's full power (arbitrary memory
  access, or the frames of the runner) can send any records it likes, since it *is* the child.
  Such code can then lie only about its own file: each file has its own child and token, the
  child can read no other file (Landlock) and write nothing outside its temporary directory,
  so it cannot reach other students' results, the teacher's files, the session file or the
  handout; and the verdict is still the parent's comparison of the outputs reported with the
  expected outputs *the parent read from the file*. The static check and the audit hook are
  there so that a session does not get that power; the kernel is what bounds it if it does.
"""
from __future__ import annotations

import json
import os
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

OUTPUT_LIMIT_MB = 10       # all of a file's outputs together, as the old child's stdout file
PICTURES_LIMIT_MB = 32     # all of a handout's pictures' data together (safe_pictures checks each)
_CONFINE_FAILED = 97       # the child's status when the kernel could not confine it
# how the child is started (then the results fd); tests start a child with layers taken away
CHILD_ARGS = (*(("-P",) if sys.version_info >= (3, 11) else ()),  # no cwd on sys.path
              "-m", "gradrepl.repl.safe_replay", "--child")


class SandboxedError(Exception):
    """Stands for an error an input raised in the child (only its name travels)."""


@dataclass
class SafeRun:
    """What the parent learned from one file's child."""

    profile: str | None = None
    refusals: list = field(default_factory=list)     # [(file line, message)]
    records: list = field(default_factory=list)      # block records, in order
    exited_at: int | None = None
    ended: bool = False                              # the end record came
    error: str | None = None                         # one line: why the file failed (exit 2)
    file_error: bool = False                         # ... because the file is not a session
    limit: str | None = None                         # one line: the limit that stopped it
    diagnostics: str = ""


# ============================================================================ the parent
def run_file(text: str, path: str, paddle: str | None, blocks: int, html: bool = False,
             on_record=None, cpu_seconds: float = 30, memory_mb: int = 2048,
             timeout: float = 60, file_mb: float = OUTPUT_LIMIT_MB) -> SafeRun:
    """Run one session file's ``text`` (``blocks`` inputs) in a confined child and collect its
    records; ``on_record(record)`` gets each block record as it arrives."""
    import shutil

    from . import sandbox

    token = secrets.token_hex(16)
    workdir = os.path.realpath(tempfile.mkdtemp(prefix="gradrepl-safe-"))
    env = sandbox._child_env(workdir, (), ())
    nproc = None
    if os.geteuid() != 0:
        count = sandbox._user_task_count()
        nproc = None if count is None else count + 16
    preexec = sandbox._make_limits(cpu_seconds, memory_mb, file_mb, 64, nproc)
    request = json.dumps({"token": token, "text": text, "path": path, "paddle": paddle,
                          "html": bool(html)}).encode("utf-8")
    out = SafeRun()
    rfd, wfd = os.pipe()
    in_f = tempfile.TemporaryFile()
    diag_f = tempfile.TemporaryFile()
    cap = int(file_mb * 1024 * 1024)
    proc = None
    try:
        in_f.write(request)
        in_f.seek(0)
        cmd = [sys.executable, *CHILD_ARGS, str(wfd)]
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdin=in_f, stdout=diag_f,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=preexec, pass_fds=(wfd,), close_fds=True)
        os.close(wfd)
        wfd = -1
        reader = _Reader(token, blocks, on_record, out, cap)
        deadline = time.monotonic() + timeout
        timed_out = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([rfd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                break
            if not reader.feed(chunk):
                break          # tampered or over the limit: stop reading, kill the child
        rc, cpu_used = _reap(proc, 0 if (timed_out or out.error or out.limit) else 5)
        if timed_out and out.error is None:
            out.limit = f"wall-clock timeout ({sandbox._num(timeout)} s) exceeded"
        reader.close()
        diag_f.seek(0)
        out.diagnostics = diag_f.read(64 * 1024).decode("utf-8", "replace")
        _explain(out, rc, cpu_used, cpu_seconds, memory_mb, sandbox)
    finally:
        if proc is not None and proc.poll() is None:
            _kill(proc)
            proc.wait()
        for fd in (rfd, wfd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        in_f.close()
        diag_f.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return out


def _reap(proc, grace: float):
    """Wait for the child (killing its group after ``grace`` seconds): its exit status and
    the CPU seconds it used."""
    end = time.monotonic() + grace
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() >= end:
            _kill(proc)
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.005)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime


def _kill(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _explain(out: SafeRun, rc: int, cpu_used, cpu_seconds, memory_mb, sandbox) -> None:
    """Name what stopped the child, from facts the parent sees (its status, its records)."""
    if out.error or out.limit:
        return
    outputs = "".join(r.get("output") or "" for r in out.records)
    if rc == _CONFINE_FAILED and not out.records and out.profile is None:
        why = out.diagnostics.strip().splitlines()[-1:] or ["unknown reason"]
        out.error = f"the sandbox could not be set up: {why[0][:300]}"
        return
    sigxcpu = getattr(signal, "SIGXCPU", None)
    if not out.ended and (rc == -(sigxcpu or 0) or (
            rc == -signal.SIGKILL and cpu_used >= max(1, int(cpu_seconds)) - 0.05)):
        out.limit = f"CPU time limit ({sandbox._num(cpu_seconds)} s) exceeded"
        return
    if sandbox._MEMORY_ERROR.search(outputs) or sandbox._MEMORY_ERROR.search(out.diagnostics):
        out.limit = f"memory limit ({sandbox._num(memory_mb)} MB) exceeded"
        return
    if not out.ended:
        how = f"signal {-rc}" if rc < 0 else f"status {rc}"
        out.error = (f"the sandboxed session ended before its last input ({how}); the inputs "
                     "after it did not run")


class _Reader:
    """Accepts the child's records strictly in order, with the token; anything else fails."""

    def __init__(self, token, blocks, on_record, out: SafeRun, cap: int):
        self.token, self.blocks, self.on_record, self.out = token, blocks, on_record, out
        self.buf = b""
        self.total = 0
        self.cap = cap
        self.started = False

    def _tampered(self, why):
        self.out.error = f"the sandboxed session's results were tampered with ({why})"
        return False

    def feed(self, chunk: bytes) -> bool:
        self.total += len(chunk)
        # JSON escapes at most ~6x; the pictures' data (ASCII JSON) on top
        if self.total > 12 * self.cap + (1 << 20) + PICTURES_LIMIT_MB * 1024 * 1024 * 2:
            self.out.limit = f"output limit ({self.cap // (1024 * 1024)} MB) exceeded"
            return False
        self.buf += chunk
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            if not self._line(line):
                return False
        return True

    def close(self):
        if self.buf and self.out.error is None and self.out.limit is None:
            self._tampered("a partial record")

    def _line(self, line: bytes) -> bool:
        out = self.out
        if out.ended:
            return self._tampered("data after the end")
        try:
            rec = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):   # (nested past Python's stack)
            return self._tampered("not a record")
        if not isinstance(rec, dict) or rec.get("t") != self.token:
            return self._tampered("a record without this run's token")
        if "start" in rec:
            if self.started:
                return self._tampered("a second start")
            self.started = True
            start = rec["start"]
            out.profile = str(start.get("profile"))
            out.refusals = [(int(a), str(b)) for a, b in start.get("refusals", [])]
            return True
        if not self.started:
            if "error" in rec:
                out.error = str(rec["error"])[:2000]
                out.file_error = bool(rec.get("file"))
                return False
            return self._tampered("a record before the start")
        if "error" in rec and "k" not in rec:
            out.error = str(rec["error"])[:2000]
            return False
        if "limit" in rec:
            out.limit = f"output limit ({self.cap // (1024 * 1024)} MB) exceeded"
            return False
        if "end" in rec:
            out.ended = True
            ex = rec.get("exited_at")
            out.exited_at = int(ex) if isinstance(ex, int) else None
            return True
        k = rec.get("k")
        if k != len(out.records) or k >= self.blocks:
            return self._tampered("a record out of order")
        if not isinstance(rec.get("output"), str):
            return self._tampered("a record without its output")
        out.records.append(rec)
        if self.on_record is not None:
            self.on_record(rec)
        return True


# ============================================================================ the child
def child_main(argv) -> None:
    """The confined child (see the module docstring). Never returns."""
    fd = int(argv[0])
    workdir = os.getcwd()
    # the session may write files in its directory: never import from there
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and
                   os.path.realpath(p) != os.path.realpath(workdir)]
    try:
        # everything the run needs that must be loaded before the kernel narrows the reads
        from . import sandbox
        from .replay import run_transcript  # noqa: F401 - loaded before confinement
        from .transcript import parse  # noqa: F401
        import numpy  # noqa: F401
        import gradrepl.paddle  # noqa: F401
        from . import session, commands, handout, safe_pictures  # noqa: F401
        sandbox._reachable_denied()
        from . import kernel

        kernel.confine(workdir)
    except Exception as exc:  # noqa: BLE001 - one line for the parent's diagnostics
        sys.stderr.write(f"{type(exc).__name__}: {exc}\n")
        sys.stderr.flush()
        os._exit(_CONFINE_FAILED)
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    send = _sender(fd, request.pop("token"))
    sandbox.install_runtime_guard(workdir=workdir, read_paths=[], write_paths=[])
    try:
        _child_run(request, send)
    except BaseException as exc:  # noqa: BLE001 - reported as the file's error
        try:
            send({"error": f"gradrepl failed in the sandbox: {type(exc).__name__}: {exc}"})
        except OSError:
            pass
    os._exit(0)


def _sender(fd: int, token: str):
    """The only writer of records: the token lives in this closure."""
    write = os.write
    dumps = json.dumps

    def send(obj: dict) -> None:
        obj["t"] = token
        data = (dumps(obj, ensure_ascii=True) + "\n").encode("ascii")
        while data:
            n = write(fd, data)
            data = data[n:]

    return send


class _OutputLimit(Exception):
    pass


def _child_run(request: dict, send) -> None:
    from .replay import ReplayError, run_transcript
    from .safe_pictures import MAX_DATA
    from .sandbox import check_session_blocks
    from .transcript import TranscriptError, parse

    try:
        t = parse(request["text"], request["path"])
        from .replay import profile_key as _profile_key

        key = _profile_key(t, request.get("paddle"))
    except TranscriptError as exc:
        send({"error": str(exc), "file": True})   # the file's own fault, as plain replay says
        return
    refusals = check_session_blocks(t.blocks, allow_syntax_errors=True)
    send({"start": {"profile": key, "refusals": [[r.line, r.message] for r in refusals]}})
    observer = None
    if request.get("html"):
        from .handout import PictureTaker

        observer = PictureTaker(as_data=True)   # pictures as data: the parent draws them
    cap = OUTPUT_LIMIT_MB * 1024 * 1024
    used = [0]
    index = [0]
    pictures_left = [PICTURES_LIMIT_MB * 1024 * 1024]

    def picture(f) -> dict:
        data = getattr(f, "data", None)
        rec = {"name": str(getattr(f, "name", "")), "caption": str(getattr(f, "caption", "")),
               "note": getattr(f, "note", None), "picture": None}
        if data is not None:
            size = len(json.dumps(data, ensure_ascii=True))
            if size > min(MAX_DATA, pictures_left[0]):
                rec["note"] = (f"no picture of {rec['name']}: its data is over the --safe "
                               "limit for pictures")
            else:
                pictures_left[0] -= size
                rec["picture"] = data
        elif rec["note"] is None:
            rec["note"] = "a picture (not drawn in the --safe sandbox)"
        return rec

    def on_block(run):
        text = run.output or ""
        used[0] += len(text)
        if used[0] > cap:
            send({"limit": "output"})
            raise _OutputLimit
        pictures = [picture(f) for f in run.pictures]
        send({"k": index[0], "output": text, "failed": run.error is not None,
              "error_name": type(run.error).__name__ if run.error is not None else None,
              "kind": run.kind, "pictures": pictures})
        index[0] += 1

    try:
        fr = run_transcript(t, request.get("paddle"), safe=True, observer=observer,
                            on_block=on_block)
    except _OutputLimit:
        return
    except ReplayError as exc:
        send({"error": str(exc)})
        return
    send({"end": True, "exited_at": fr.exited_at})


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child_main(sys.argv[2:])
    sys.stderr.write("gradrepl.repl.safe_replay: the --safe child; run gradrepl replay --safe\n")
    sys.exit(2)
