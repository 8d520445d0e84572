"""``gradrepl replay --safe``: each session file runs in a confined child; the parent feeds
it one input at a time, captures what each input printed, and decides and writes.

**What the child has.** ``python -m gradrepl.repl.safe_replay --child CTRL OUT ACK`` (one per
file, started by ``run_file``) imports what it needs, confines itself (``kernel.confine``:
Landlock, seccomp, no_new_privs; the resource limits and the parent-death signal were set
between fork and exec), installs the audit hook, writes ``{"ready": true}`` on ``ACK`` (an
exit with the "could not confine" status after it is the session's own), and then reads
*requests* from the pipe ``CTRL``: first the profile and whether pictures are wanted, then one input at a time: its
source, its file line and a fresh random nonce. It never gets the session file, its expected
outputs, its comments, the inputs after the current one, or anything else of the parent's: no
token, no transcript, no verdict is ever in its memory. For each input it writes what the input
printed (the session's capture, as the shell shows it) on the pipe ``OUT``, then one JSON line
on the pipe ``ACK``: ``{"n": nonce, "kind", "failed", "error_name", "pictures", "exit"}``. Its
own stdout/stderr go to a capped file that is only ever shown as diagnostics, never parsed.

**What the parent observes** (``run_file``): it parses the file itself, computes the profile
and the static check's refusals itself, sends input *k* only after input *k - 1* was
acknowledged, and takes as input *k*'s output exactly the bytes it read from ``OUT`` between
sending input *k* and reading its acknowledgement (then draining ``OUT``). An acknowledgement
counts only with input *k*'s nonce, which did not exist before input *k* was sent; a byte on
``ACK`` after it (an acknowledgement written ahead for inputs not yet sent) fails the file as
tampered; every acknowledgement is checked against its schema, types exact. An input without
its acknowledgement (the child died, exited, hit a limit) did not run, and ``--check`` fails.
The verdict of ``--check``, the file ``--update`` writes and the ``--html`` handout are built
here from these outputs and the expected outputs the parent read from the file.

So code that gets full Python in the child (raw memory, frames, ``os``, raw system calls)
cannot make the parent take an output for an input it did not feed, cannot read the expected
outputs it would need to forge (they are not in the child), cannot write ahead, and cannot
end the file early with a verdict: leaving early (``os._exit``) leaves the inputs after it
not run. What it can still do is what any program can: print what it likes for the inputs it
is fed (an escape that rewires ``print`` changes what the later inputs print, as observed):
the parent can vouch for *what the child printed for each input*, not for how. The static
check and the audit hook are there so that a session does not get that power; the kernel
bounds what it can reach if it does (other files, processes, the teacher's terminal).

**The parent cannot be knocked over by the child**: every read is capped (``OUT``: the output
limit; ``ACK``: the pictures limit), nothing is rescanned (a line's end is searched for in the
new bytes only), a record that is not JSON, nested past the stack or of the wrong types fails
the file as tampered, a MemoryError while reading is one line; the file has a wall clock
(``timeout``), never more than what is left of the command's budget (``budget``,
``safe_budget.py``), and its folder a disk budget (a tmpfs of that size in the child's own view,
``fsview.py``, else measured here every 0.2 s, a folder it cannot measure stopping the file),
its threads counted every 0.05 s (``safe_budget.CHILD_THREADS``); the child's environment is its own
(``child_environment``: nothing of the teacher's); SIGHUP, SIGTERM and Ctrl-C kill the child's process group and remove its
folder before the parent leaves (the child also dies with its parent: ``PR_SET_PDEATHSIG``);
the folder is removed without recursion (``remove_tree``), however deep the child made it.
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
import threading
import time
from dataclasses import dataclass, field

from . import safe_budget

OUTPUT_LIMIT_MB = safe_budget.CHILD_OUTPUT_MB   # all of a file's outputs (the bytes read from OUT)
PICTURES_LIMIT_MB = 32     # all of a handout's pictures' data together (safe_pictures checks each)
CPU_SECONDS = safe_budget.CHILD_CPU_SECONDS      # the child's CPU time
MEMORY_MB = safe_budget.CHILD_MEMORY_MB          # the child's address space
TIMEOUT_SECONDS = safe_budget.CHILD_SECONDS      # one file's wall clock, start to last output
_CONFINE_FAILED = 97       # the child's status when the kernel could not confine it
_ACK_LIMIT = PICTURES_LIMIT_MB * 1024 * 1024 * 2 + (1 << 20)   # one acknowledgement's bytes
_ACK_LIMIT_NO_PICTURES = 1 << 16    # ... when no pictures are asked for (no --html)
# the JSON values one acknowledgement may hold (counted before parsing: what the parsed objects
# can cost the parent, ~64 bytes each at most: 320 MB; real pictures average 8.5 bytes of JSON
# a value, so the 32 MB of pictures data fit)
_ACK_VALUES = 5_000_000
_KINDS = frozenset({"statement", "command", "empty", "incomplete"})
_ACK_KEYS = frozenset({"n", "kind", "failed", "error_name", "pictures", "exit"})
_PICTURE_KEYS = frozenset({"name", "caption", "note", "picture"})
_PR_SET_PDEATHSIG = 1
# the child's first line on ACK once it is confined, before it reads any input: an exit with
# _CONFINE_FAILED after it is the session's own (os._exit(97)), not a sandbox that failed
_READY = b'{"ready": true}\n'
# how the child is started (then CTRL OUT ACK); tests start a child with layers taken away
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
    ended: bool = False                              # every input was acknowledged (or exit())
    error: str | None = None                         # one line: why the file failed (exit 2)
    file_error: bool = False                         # ... because the file is not a session
    limit: str | None = None                         # one line: the limit that stopped it
    ready: bool = False                              # the child said it was confined
    diagnostics: str = ""


class _Tampered(Exception):
    pass


# ============================================================================ the parent
def run_file(text: str, path: str, paddle: str | None, blocks: int | None = None,
             html: bool = False, on_record=None, cpu_seconds: float = CPU_SECONDS,
             memory_mb: int = MEMORY_MB, timeout: float = TIMEOUT_SECONDS,
             file_mb: float = OUTPUT_LIMIT_MB, budget=None,
             disk_mb: float = safe_budget.DISK_MB,
             disk_entries: int = safe_budget.DISK_ENTRIES) -> SafeRun:
    """Run one session file's ``text`` in a confined child, one input at a time, and collect
    what each input printed; ``on_record(record)`` gets each block record as it is complete
    (``{"k", "output", "failed", "error_name", "kind", "pictures"}``). ``blocks`` is not
    needed (the parent parses ``text`` itself); it is accepted for the callers that pass it.
    ``budget``: the command's ``safe_budget.Budget`` (the child gets at most what is left of
    it); ``disk_mb``/``disk_entries``: what the child's folder may hold."""
    from .replay import profile_key
    from .transcript import TranscriptError, parse

    out = SafeRun()
    try:
        t = parse(text, path)
        out.profile = profile_key(t, paddle)
    except TranscriptError as exc:
        out.error, out.file_error = str(exc), True
        return out
    except (RecursionError, MemoryError) as exc:
        out.error, out.file_error = f"{path}: not a session file ({type(exc).__name__})", True
        return out
    try:
        from .sandbox import check_session_blocks

        out.refusals = [(int(r.line), str(r.message)) for r in
                        check_session_blocks(t.blocks, allow_syntax_errors=True)]
    except (RecursionError, MemoryError) as exc:
        out.error = f"the static check could not read the file ({type(exc).__name__})"
        return out
    limit_line = None
    if budget is not None and budget.left() < timeout:
        timeout, limit_line = budget.left(), budget.line()
        if timeout <= 0:
            out.limit = limit_line
            return out
    with _Child(path, cpu_seconds, memory_mb, file_mb, disk_mb, disk_entries) as child:
        child.start()
        feeder = _Feeder(child, t, out, html, on_record, int(file_mb * 1024 * 1024), timeout)
        feeder.timeout_line = limit_line
        feeder.disk = (int(disk_mb * 1024 * 1024), int(disk_entries), disk_mb)
        feeder.run()
        finished = out.ended or out.error is not None or out.limit is not None
        rc, cpu_used = child.reap(0 if finished else 5)
        out.diagnostics = child.diagnostics()
    if out.limit is None and out.error is None and not out.ended and rc is not None:
        _explain(out, rc, cpu_used, cpu_seconds, memory_mb)
    if out.limit is None and out.error is None and any(
            _is_memory_error(r["error_name"]) for r in out.records):
        from .sandbox import _num

        out.limit = f"memory limit ({_num(memory_mb)} MB) exceeded"
    return out


def _is_memory_error(name) -> bool:
    return isinstance(name, str) and name.endswith("MemoryError")


def _explain(out: SafeRun, rc: int, cpu_used, cpu_seconds, memory_mb) -> None:
    """Name what stopped the child early, from facts the parent sees (its status, its CPU
    time, its diagnostics file), never from what an input printed."""
    from .sandbox import _MEMORY_ERROR, _num

    if rc == _CONFINE_FAILED and not out.ready:     # (after READY it is the session's doing)
        why = out.diagnostics.strip().splitlines()[-1:] or ["unknown reason"]
        out.error = f"the sandbox could not be set up: {why[0][:300]}"
        return
    sigxcpu = getattr(signal, "SIGXCPU", None)
    if rc == -(sigxcpu or 0) or (
            rc == -signal.SIGKILL and cpu_used >= max(1, int(cpu_seconds)) - 0.05):
        out.limit = f"CPU time limit ({_num(cpu_seconds)} s) exceeded"
        return
    if _MEMORY_ERROR.search(out.diagnostics[-4096:]):
        out.limit = f"memory limit ({_num(memory_mb)} MB) exceeded"
        return
    how = f"signal {-rc}" if rc < 0 else f"status {rc}"
    out.error = (f"the sandboxed session ended before its last input ({how}); the inputs "
                 "after it did not run")


class _Child:
    """The child process, its pipes and its folder; leaving the ``with`` (normally, by an
    exception, or by SIGHUP/SIGTERM/SIGINT, which the parent catches meanwhile) kills its
    process group and removes its folder."""

    def __init__(self, path, cpu_seconds, memory_mb, file_mb, disk_mb=safe_budget.DISK_MB,
                 disk_entries=safe_budget.DISK_ENTRIES):
        self.path = path
        self.limits = (cpu_seconds, memory_mb, file_mb)
        self.disk_mb, self.disk_entries = disk_mb, disk_entries
        self.proc = None
        self.workdir = None
        self.fds: dict = {}
        self.diag = None
        self._old: dict = {}
        self._done = False

    # -- signals: clean up, then leave as the signal asks
    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
                try:
                    self._old[sig] = signal.signal(sig, self._on_signal)
                except (ValueError, OSError):
                    pass
        return self

    def _restore(self):
        for sig, old in self._old.items():
            try:
                signal.signal(sig, old if old is not None else signal.SIG_DFL)
            except (ValueError, OSError, TypeError):
                pass
        self._old = {}

    def _on_signal(self, signum, frame):
        for sig in self._old:
            try:
                signal.signal(sig, signal.SIG_IGN)   # (cleaning up: not twice)
            except (ValueError, OSError):
                pass
        self.cleanup()
        self._restore()
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    def __exit__(self, *exc):
        self.cleanup()
        self._restore()
        return False

    # -- the child
    def start(self):
        from . import sandbox

        cpu_seconds, memory_mb, file_mb = self.limits
        self.workdir = os.path.realpath(tempfile.mkdtemp(prefix="gradrepl-safe-"))
        env = child_environment(self.workdir)
        env["GRADREPL_SAFE_DISK"] = f"{self.disk_mb},{self.disk_entries}"
        nproc = None
        if os.geteuid() != 0:
            count = sandbox._user_task_count()
            nproc = None if count is None else count + 16
        limits = sandbox._make_limits(cpu_seconds, memory_mb, min(file_mb, self.disk_mb), 64,
                                      nproc)
        parent = os.getpid()
        prctl = _libc_prctl()

        def preexec():
            limits()
            if prctl is not None:   # the child dies with this process, whatever kills it
                prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:
                os._exit(1)

        ctrl_r, ctrl_w = os.pipe()
        out_r, out_w = os.pipe()
        ack_r, ack_w = os.pipe()
        self.fds = {"ctrl": ctrl_w, "out": out_r, "ack": ack_r}
        child_ends = (ctrl_r, out_w, ack_w)
        self.diag = tempfile.TemporaryFile()
        try:
            for fd in (ctrl_w, out_r, ack_r):
                os.set_blocking(fd, False)
            cmd = [sys.executable, *CHILD_ARGS, *map(str, child_ends)]
            self.proc = subprocess.Popen(cmd, cwd=self.workdir, env=env,
                                         stdin=subprocess.DEVNULL, stdout=self.diag,
                                         stderr=subprocess.STDOUT, start_new_session=True,
                                         preexec_fn=preexec, pass_fds=child_ends,
                                         close_fds=True)
        finally:
            for fd in child_ends:
                os.close(fd)

    def close(self, name):
        fd = self.fds.pop(name, None)
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass

    def reap(self, grace: float):
        """Wait for the child (killing its group after ``grace`` seconds): its exit status
        and the CPU seconds it used; ``(None, 0)`` if it was not started."""
        proc = self.proc
        if proc is None:
            return None, 0.0
        for name in ("ctrl",):
            self.close(name)
        end = time.monotonic() + grace
        while True:
            try:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            except ChildProcessError:
                return proc.returncode, 0.0
            if pid:
                break
            if time.monotonic() >= end:
                self.kill()
                try:
                    pid, status, usage = os.wait4(proc.pid, 0)
                except ChildProcessError:
                    return proc.returncode, 0.0
                break
            time.sleep(0.005)
        proc.returncode = os.waitstatus_to_exitcode(status)
        return proc.returncode, usage.ru_utime + usage.ru_stime

    def kill(self):
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)   # (its group: the child leads it)
        except (ProcessLookupError, PermissionError):
            pass

    def diagnostics(self) -> str:
        try:
            self.diag.seek(0)
            return self.diag.read(64 * 1024).decode("utf-8", "replace")
        except (OSError, ValueError, AttributeError):
            return ""

    def cleanup(self):
        """Idempotent, and raises nothing: the child's group killed and waited for, the pipes
        closed, the folder removed."""
        if self._done:
            return
        self._done = True
        try:
            if self.proc is not None and self.proc.returncode is None:
                self.kill()
                try:
                    self.proc.wait()
                except (OSError, ChildProcessError):
                    pass
        except Exception:  # noqa: BLE001 - cleanup never raises
            pass
        for name in list(self.fds):
            self.close(name)
        if self.diag is not None:
            try:
                self.diag.close()
            except OSError:
                pass
        if self.workdir is not None:
            remove_tree(self.workdir)


# the environment variables the child keeps (their values: they change what gradrepl computes
# or how the C libraries it loads behave), besides those child_environment sets
_KEPT_VARIABLES = ("GRADREPL_PADDLE", "GRADREPL_CPU_CLASS", "GRADREPL_CPUINFO",
                   "GRADREPL_TORCH_THREADS", "GRADREPL_TORCH_CAPABILITY", "ATEN_CPU_CAPABILITY",
                   "GRADREPL_NO_NUMEXPR", "GRADREPL_NO_BLAS_FMA", "GRADREPL_MALLOC", "GRADREPL_GC",
                   "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS", "MKL_DEBUG_CPU_TYPE")


def child_environment(workdir: str) -> dict:
    """The child's whole environment: nothing of the teacher's but what gradrepl needs (no
    ``SSH_AUTH_SOCK``, no tokens, no ``PATH`` of theirs): ``PATH=/usr/bin:/bin`` (the child
    executes nothing anyway), ``HOME`` and ``TMPDIR`` its folder, ``LANG`` (a locale name only),
    one thread per library, ``PYTHONPATH`` only when gradrepl is not installed in a site
    directory (then the folder holding it), and ``_KEPT_VARIABLES``."""
    import re

    from . import sandbox

    lang = os.environ.get("LANG", "")
    env = {"PATH": "/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir,
           "LANG": lang if re.fullmatch(r"[A-Za-z0-9_.@-]{1,40}", lang) else "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
    for k in _KEPT_VARIABLES:
        if k in os.environ and len(os.environ[k]) <= 200:
            env[k] = os.environ[k]
    for k in sandbox._THREAD_VARS:
        env[k] = "1"
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not sandbox._importable_from_site(here):
        env["PYTHONPATH"] = here
    env["GRADREPL_SANDBOX"] = "1"
    return env


def _libc_prctl():
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        f = libc.prctl
        f.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong]
        return f
    except (OSError, AttributeError):
        return None


class _Feeder:
    """Feeds the child one input at a time and captures each one's output (see the module
    docstring: what is taken as an input's output, and when an acknowledgement counts)."""

    def __init__(self, child: _Child, t, out: SafeRun, html, on_record, cap, timeout):
        self.child, self.t, self.out = child, t, out
        self.html, self.on_record, self.cap, self.timeout = bool(html), on_record, cap, timeout
        self.k = 0
        self.nonce = None
        self.pending = bytearray()     # requests not yet written to CTRL
        self.output = bytearray()      # the current input's output so far
        self.total = 0                 # all outputs' bytes
        self.ack = bytearray()
        self.scan = 0                  # where to look for the acknowledgement's end
        self.timeout_line = None       # the line when the command's budget is what ran out
        self.disk = None               # (bytes, entries, MB) the child's folder may hold
        self.next_disk_check = 0.0

    def run(self):
        out = self.out
        try:
            self._request({"profile": out.profile, "html": self.html})
            self._send_block()
            self._loop()
        except _Tampered as exc:
            out.error = f"the sandboxed session's results were tampered with ({exc})"
        except MemoryError:
            self.output = self.ack = bytearray()
            out.limit = "memory exhausted in gradrepl reading the sandboxed session's output"

    def _request(self, obj):
        self.pending += (json.dumps(obj, ensure_ascii=True) + "\n").encode("ascii")
        self._flush()

    def _flush(self):
        fd = self.child.fds.get("ctrl")
        if fd is None:
            self.pending = bytearray()
            return
        while self.pending:
            try:
                n = os.write(fd, self.pending[:1 << 16])
            except BlockingIOError:
                return
            except OSError:          # the child is gone: what it did not read never runs
                self.pending = bytearray()
                self.child.close("ctrl")
                return
            del self.pending[:n]

    def _send_block(self):
        b = self.t.blocks[self.k]
        self.nonce = secrets.token_hex(16)
        self.output = bytearray()
        self._request({"source": b.source, "line": b.line, "n": self.nonce})

    def _loop(self):
        out, child = self.out, self.child
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                from .sandbox import _num

                out.limit = self.timeout_line or \
                    f"wall-clock timeout ({_num(self.timeout)} s) exceeded"
                return
            if self.disk is not None and time.monotonic() >= self.next_disk_check:
                if self._over_disk():
                    return
                self.next_disk_check = time.monotonic() + safe_budget.DISK_CHECK_SECONDS
            if self._too_many_threads():
                return
            reads = [child.fds[n] for n in ("out", "ack") if n in child.fds]
            if "ack" not in child.fds:
                return               # the child closed its acknowledgements: no more inputs
            writes = [child.fds["ctrl"]] if self.pending and "ctrl" in child.fds else []
            r, w, _ = select.select(reads, writes, [], min(left, safe_budget.THREADS_CHECK_SECONDS))
            if w:
                self._flush()
            if child.fds.get("out") in r and not self._read_output():
                return
            if child.fds.get("ack") in r:
                try:
                    chunk = os.read(child.fds["ack"], 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    child.close("ack")
                    return
                # (each input's end is measured too, so that a session writing faster than
                # the 0.2 s checks cannot finish inside the gap)
                if self.disk is not None and self._over_disk():
                    return
                if self._acknowledged(chunk):
                    return

    def _too_many_threads(self) -> bool:
        """Whether the child runs more threads than ``safe_budget.CHILD_THREADS`` (``out.limit``
        then says so). RLIMIT_NPROC bounds them for a teacher who is not root; the kernel exempts
        root's user from it, whose child could take every pid of the machine (32 KiB stacks fit
        60,000 threads in its address space)."""
        proc = self.child.proc
        n = safe_budget.thread_count(proc.pid) if proc is not None else None
        if n is None or n <= safe_budget.CHILD_THREADS:
            return False
        self.child.kill()
        self.out.limit = safe_budget.threads_line()
        return True

    def _over_disk(self) -> bool:
        """Whether the child's folder is past its disk budget (``out.limit`` then says so)."""
        over = safe_budget.folder_usage(self.child.workdir, self.disk[0], self.disk[1])
        if over is None:
            return False
        self.out.limit = safe_budget.disk_line(over, self.disk[2], self.disk[1])
        return True

    def _read_output(self) -> bool:
        """Read what OUT has now; False when the output limit is passed."""
        fd = self.child.fds.get("out")
        while fd is not None:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                return True
            if not chunk:
                self.child.close("out")
                return True
            self.total += len(chunk)
            if self.total > self.cap:
                self.out.limit = f"output limit ({self.cap // (1024 * 1024)} MB) exceeded"
                return False
            self.output += chunk
        return True

    def _acknowledged(self, chunk: bytes) -> bool:
        """Take ``chunk`` of ACK; True when the run is over (all inputs, exit, a limit)."""
        self.ack += chunk
        if not self.out.ready and not self.out.records and self.ack.startswith(_READY):
            del self.ack[:len(_READY)]         # (before any session code ran: see child_main)
            self.out.ready = True
            self.scan = 0
            if not self.ack:
                return False
        if len(self.ack) > (_ACK_LIMIT if self.html else _ACK_LIMIT_NO_PICTURES):
            if not self.html:
                raise _Tampered("an acknowledgement longer than one without pictures can be")
            self.out.limit = (f"pictures limit ({PICTURES_LIMIT_MB} MB) exceeded")
            return True
        end = self.ack.find(b"\n", self.scan)
        if end < 0:
            self.scan = len(self.ack)
            return False
        if end != len(self.ack) - 1:
            raise _Tampered("an acknowledgement for an input not sent yet")
        if self.ack.count(b",") + self.ack.count(b":") >= _ACK_VALUES:   # (before copying)
            raise _Tampered(f"an acknowledgement of more than {_ACK_VALUES} values")
        line = bytes(self.ack[:end])
        self.ack, self.scan = bytearray(), 0
        rec = _check_ack(line, self.nonce)
        if "error" in rec:
            self.out.error = rec["error"]
            return True
        if not self._read_output():          # what the input wrote before acknowledging
            return True
        out = self.out
        record = {"k": self.k, "output": bytes(self.output).decode("utf-8", "backslashreplace"),
                  "failed": rec["failed"], "error_name": rec["error_name"],
                  "kind": rec["kind"], "pictures": rec["pictures"]}
        self.output = bytearray()
        out.records.append(record)
        if self.on_record is not None:
            self.on_record(record)
        if rec["exit"]:
            out.exited_at = self.t.blocks[self.k].line
            out.ended = True
            return True
        self.k += 1
        if self.k == len(self.t.blocks):
            out.ended = True
            return True
        self._send_block()
        return False


def _check_ack(line: bytes, nonce: str) -> dict:
    """One acknowledgement, checked: its nonce, its keys and their exact types."""
    if line.count(b",") + line.count(b":") >= _ACK_VALUES:
        raise _Tampered(f"an acknowledgement of more than {_ACK_VALUES} values")
    try:
        rec = json.loads(line.decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError):   # (nested past Python's stack)
        raise _Tampered("not a record") from None
    if type(rec) is not dict or type(rec.get("n")) is not str or rec["n"] != nonce:
        raise _Tampered("an acknowledgement without this input's nonce")
    if set(rec) == {"n", "error"} and type(rec["error"]) is str:
        return {"error": " ".join(rec["error"].split())[:2000]}
    if set(rec) != _ACK_KEYS:
        raise _Tampered("an acknowledgement with other keys")
    if type(rec["kind"]) is not str or rec["kind"] not in _KINDS:
        raise _Tampered("an acknowledgement of an unknown kind")
    if type(rec["failed"]) is not bool or type(rec["exit"]) is not bool:
        raise _Tampered("an acknowledgement whose flags are not true or false")
    name = rec["error_name"]
    if name is not None and (type(name) is not str or len(name) > 200):
        raise _Tampered("an acknowledgement with a wrong error name")
    pictures = rec["pictures"]
    if type(pictures) is not list or len(pictures) > 1000:
        raise _Tampered("an acknowledgement with wrong pictures")
    for p in pictures:
        if (type(p) is not dict or set(p) != _PICTURE_KEYS or type(p["name"]) is not str
                or type(p["caption"]) is not str
                or (p["note"] is not None and type(p["note"]) is not str)):
            raise _Tampered("an acknowledgement with wrong pictures")
    return rec


def remove_tree(path: str) -> None:
    """Remove the folder ``path`` and everything in it, however deep (no recursion: one
    directory descriptor open at a time, a list of names for the way back), never following
    a symbolic link, making unreadable folders readable first; whatever cannot be removed is
    left and nothing is raised. Meant for the child's folder after its group was killed."""
    try:
        _remove_tree(path)
    except Exception:  # noqa: BLE001 - cleanup never raises (MemoryError included)
        pass
    except BaseException:
        pass


def _remove_tree(path: str) -> None:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        try:
            os.unlink(path)
        except OSError:
            pass
        return
    names: list = []        # the way down: the name of each folder entered
    stuck: set = set()      # (dev, ino) of folders that could not be emptied
    budget = 10_000_000     # entries looked at: an end, whatever the folder holds
    try:
        while True:
            sub = None
            try:
                with os.scandir(fd) as it:
                    for entry in it:
                        budget -= 1
                        if budget < 0:
                            return
                        try:
                            is_dir = entry.is_dir(follow_symlinks=False)
                        except OSError:
                            is_dir = False
                        if not is_dir:
                            try:
                                os.unlink(entry.name, dir_fd=fd)
                            except OSError:
                                pass
                            continue
                        try:
                            st = entry.stat(follow_symlinks=False)
                            if (st.st_dev, st.st_ino) in stuck:
                                continue
                        except OSError:
                            continue
                        sub = entry.name
                        break
            except OSError:
                pass
            if sub is not None:
                try:
                    os.chmod(sub, 0o700, dir_fd=fd)
                except OSError:
                    pass
                try:
                    new = os.open(sub, flags, dir_fd=fd)
                except OSError:
                    stuck.add((st.st_dev, st.st_ino))
                    continue
                os.close(fd)
                fd = new
                names.append(sub)
                continue
            # this folder is as empty as it gets: up one, and remove it there
            if not names:
                break
            me = os.fstat(fd)
            up = os.open("..", flags, dir_fd=fd)
            os.close(fd)
            fd = up
            try:
                os.rmdir(names.pop(), dir_fd=fd)
            except OSError:
                stuck.add((me.st_dev, me.st_ino))
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        pass


# ============================================================================ the child
def child_main(argv) -> None:
    """The confined child (see the module docstring). Never returns."""
    ctrl, out_fd, ack_fd = (int(a) for a in argv[:3])
    workdir = os.getcwd()
    # the session may write files in its directory: never import from there
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and
                   os.path.realpath(p) != os.path.realpath(workdir)]
    try:
        # everything the run needs that must be loaded before the kernel narrows the reads
        from . import sandbox
        from .replay import BlockRun, clean_text  # noqa: F401 - loaded before confinement
        from .transcript import Block  # noqa: F401
        import numpy  # noqa: F401
        import gradrepl.paddle  # noqa: F401
        from . import session, commands, handout, safe_pictures  # noqa: F401
        sandbox._reachable_denied()
        from . import kernel

        disk = os.environ.get("GRADREPL_SAFE_DISK", f"{safe_budget.DISK_MB},"
                              f"{safe_budget.DISK_ENTRIES}").split(",")
        why_no_view = kernel.confine(workdir, view=(float(disk[0]), int(disk[1])))
        if why_no_view:
            sys.stderr.write(f"no file system view of its own: {why_no_view}\n")
            sys.stderr.flush()
    except Exception as exc:  # noqa: BLE001 - one line for the parent's diagnostics
        sys.stderr.write(f"{type(exc).__name__}: {exc}\n")
        sys.stderr.flush()
        os._exit(_CONFINE_FAILED)
    sandbox.install_runtime_guard(workdir=workdir, read_paths=[], write_paths=[])
    try:
        _write_all(ack_fd, _READY)
    except OSError:
        os._exit(0)
    try:
        _child_loop(os.fdopen(ctrl, "rb", buffering=0), out_fd, ack_fd)
    except BaseException as exc:  # noqa: BLE001 - the parent sees the input not acknowledged
        try:
            sys.stderr.write(f"gradrepl failed in the sandbox: {type(exc).__name__}: "
                             f"{str(exc)[:500]}\n")
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(0)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _child_loop(ctrl, out_fd: int, ack_fd: int) -> None:
    import io

    from .replay import BlockRun, clean_text
    from .safe_pictures import MAX_DATA
    from .session import Session
    from .transcript import Block

    reader = io.BufferedReader(ctrl)
    setup = json.loads(reader.readline().decode("ascii"))
    session = Session(profile=setup["profile"], safe=True)
    observer = None
    if setup.get("html"):
        from .handout import PictureTaker

        observer = PictureTaker(as_data=True)   # pictures as data: the parent draws them
    pictures_left = [PICTURES_LIMIT_MB * 1024 * 1024]

    def picture(f) -> dict:
        data = getattr(f, "data", None)
        note = getattr(f, "note", None)
        rec = {"name": str(getattr(f, "name", "")), "caption": str(getattr(f, "caption", "")),
               "note": None if note is None else str(note), "picture": None}
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

    while True:
        line = reader.readline()
        if not line:
            return
        req = json.loads(line.decode("ascii"))
        source, first, nonce = str(req["source"]), int(req["line"]), str(req["n"])
        run = BlockRun(Block(source, first, [], 0, 0, []))
        try:
            if observer is not None:
                observer.before(session, run)
            res = session.run(source, first_line=first)
            run.output, run.error, run.kind = clean_text(res.output or ""), res.error, res.kind
            if observer is not None:
                observer.after(session, run)
            pictures = [picture(f) for f in run.pictures]
        except Exception as exc:  # noqa: BLE001 - a gradrepl bug, not the user's error
            ack = {"n": nonce, "error": f"line {first}: gradrepl failed on this input: "
                                        f"{type(exc).__name__}: {str(exc)[:2000]}"}
            _write_all(ack_fd, (json.dumps(ack, ensure_ascii=True) + "\n").encode("ascii"))
            return
        _write_all(out_fd, run.output.encode("utf-8"))
        ack = {"n": nonce, "kind": run.kind if run.kind in _KINDS else "statement",
               "failed": run.error is not None,
               "error_name": type(run.error).__name__ if run.error is not None else None,
               "pictures": pictures, "exit": res.exit_code is not None}
        _write_all(ack_fd, (json.dumps(ack, ensure_ascii=True) + "\n").encode("ascii"))
        if res.exit_code is not None:
            return


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child_main(sys.argv[2:])
    sys.stderr.write("gradrepl.repl.safe_replay: the --safe child; run gradrepl replay --safe\n")
    sys.exit(2)
