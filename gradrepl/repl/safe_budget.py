"""The one budget of ``gradrepl replay --safe``: every number that bounds what a session file can
cost the teacher's machine, in one table, and how each is enforced.

``replay --safe`` runs (for every file) a confined child, then (for ``--html``) one Graphviz
process per picture, then writes the handout, all in one command. The whole command lives
within ``BUDGET`` (``--budget SECONDS`` raises or lowers the total):

========================  ==========  =============================================================
what                      default     enforced by
========================  ==========  =============================================================
total wall time           300 s       ``Budget``: each child's wall clock is ``min(60 s, time
                                      left)``, each Graphviz call's ``min(30 s, time left)``; a
                                      file not started when the time is up is not run; an
                                      interval timer (SIGALRM) stops anything else 5 s after
child wall time           60 s        the parent's select loop (``safe_replay._Feeder``)
child CPU                 30 s        RLIMIT_CPU, set between fork and exec
child memory              2048 MB     RLIMIT_AS, set between fork and exec
child threads             256         the parent counting them (``/proc/PID/status``) every
                                      0.05 s and stopping the child (RLIMIT_NPROC bounds them
                                      too, but the kernel exempts root's user from it)
child's folder (disk)     64 MB and   a private tmpfs of that size (``fsview``, where user
                          10,000      namespaces are available), else the parent measuring the
                          entries     folder every 0.2 s and stopping the child; one file:
                                      RLIMIT_FSIZE 10 MB, open files: RLIMIT_NOFILE 64
outputs read              10 MB       ``safe_replay._Feeder`` (all inputs' outputs of a file)
acknowledgements read     64 KB;      ``safe_replay._ACK_LIMIT*``; the values are counted
                          --html:     before parsing (parsed, each costs the parent up to
                          65 MB, 5M   ~64 bytes: at most 320 MB)
                          values
pictures data             32 MB       the child, and the parent's schema check (per file)
Graphviz, per picture     30 s,       RLIMIT_CPU and a wall timeout, RLIMIT_AS, RLIMIT_FSIZE 0
                          1024 MB     (it writes no file), the parent-death signal
SVG kept for a handout    64 MB       ``safe_pictures.Drawer`` (a picture past it is a note)
========================  ==========  =============================================================

When one is exhausted, ``replay`` says so in one line naming it, keeps the verdicts of the files
already checked, runs nothing more, kills the child's process group, removes its folder, and
exits 2.
"""
from __future__ import annotations

import os
import signal
import threading
import time

BUDGET_SECONDS = 300          # the whole replay --safe command
CHILD_SECONDS = 60            # one file's child: wall clock (safe_replay.TIMEOUT_SECONDS)
CHILD_CPU_SECONDS = 30        # ... its CPU time
CHILD_MEMORY_MB = 2048        # ... its address space
CHILD_OUTPUT_MB = 10          # ... all of its outputs together (the bytes the parent reads)
GRAPHVIZ_SECONDS = 30         # one picture's layout (wall clock and CPU)
GRAPHVIZ_MEMORY_MB = 1024     # one Graphviz process's address space
DISK_MB = 64                  # the child's folder, all files together
DISK_ENTRIES = 10_000         # files and folders in it
DISK_CHECK_SECONDS = 0.2      # how often the parent measures it (without a private tmpfs)
CHILD_THREADS = 256           # ... its threads (the parent counts them)
THREADS_CHECK_SECONDS = 0.05  # how often
HANDOUT_SVG_MB = 64           # all pictures of one handout together
GRACE_SECONDS = 5             # the interval timer's margin past the budget


class BudgetExhausted(Exception):
    """The command's total wall time is used up (raised by the interval timer)."""


class Budget:
    """The command's wall-clock budget: ``left()`` seconds, never below 0."""

    def __init__(self, seconds: float = BUDGET_SECONDS):
        self.seconds = float(seconds)
        self.deadline = time.monotonic() + self.seconds
        self._old = None
        self._armed = False

    def left(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def used_up(self) -> bool:
        return self.left() <= 0

    def line(self) -> str:
        from .sandbox import _num

        return f"time budget ({_num(self.seconds)} s) used up"

    # the backstop: whatever the parent is doing (a diff, a handout, a join), it stops
    # GRACE_SECONDS after the budget (only in the main thread, only if SIGALRM is free)
    def arm(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        try:
            if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN, None):
                return          # someone else's timer: leave it
            self._old = signal.signal(signal.SIGALRM, self._ring)
            signal.setitimer(signal.ITIMER_REAL, self.left() + GRACE_SECONDS)
            self._armed = True
        except (ValueError, OSError, AttributeError):
            self._armed = False

    def disarm(self) -> None:
        if not self._armed:
            return
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old if self._old is not None else signal.SIG_DFL)
        except (ValueError, OSError):
            pass
        self._armed = False

    def _ring(self, signum, frame):
        raise BudgetExhausted(self.line())


def graphviz_preexec(seconds: float, memory_mb: int | None = None):
    """The ``preexec_fn`` of one Graphviz process: its CPU time, address space
    (``GRAPHVIZ_MEMORY_MB`` unless given), no file written, no core, and killed if this
    process dies."""
    import resource

    memory_mb = GRAPHVIZ_MEMORY_MB if memory_mb is None else memory_mb
    cpu = max(1, int(seconds + 0.999))
    prctl = _prctl()

    def preexec():
        for res, value in ((resource.RLIMIT_CPU, cpu),
                           (resource.RLIMIT_AS, int(memory_mb) * 1024 * 1024),
                           (resource.RLIMIT_FSIZE, 0), (resource.RLIMIT_CORE, 0)):
            try:
                _soft, hard = resource.getrlimit(res)
                v = value if hard == resource.RLIM_INFINITY else min(value, hard)
                resource.setrlimit(res, (v, v))
            except (ValueError, OSError):
                pass
        if prctl is not None:
            prctl(1, signal.SIGKILL, 0, 0, 0)       # PR_SET_PDEATHSIG

    return preexec


def _prctl():
    try:
        import ctypes

        f = ctypes.CDLL(None, use_errno=True).prctl
        f.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong]
        return f
    except (OSError, AttributeError):
        return None


def folder_usage(path: str, max_bytes: int, max_entries: int) -> str | None:
    """None while the folder ``path`` holds at most ``max_bytes`` (allocated blocks) in at most
    ``max_entries`` entries; else which limit it passed (``"bytes"``, ``"entries"``, or
    ``"unreadable"``: a folder in it this process cannot list, for its permissions or its
    path's length). Iterative, never follows a link, stops counting as soon as a limit is
    passed."""
    total, entries = 0, 0
    stack = [path]
    while stack:
        top = stack.pop()
        try:
            it = os.scandir(top)
        except (FileNotFoundError, NotADirectoryError):
            continue                  # (gone since it was listed)
        except OSError:
            # a folder made without read permission (mkdir(name, 0o300): its owner may still
            # fill it), or nested past PATH_MAX, cannot be measured: as good as over the budget
            return "unreadable"
        with it:
            for e in it:
                entries += 1
                if entries > max_entries:
                    return "entries"
                try:
                    st = e.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue              # (gone since it was listed)
                except OSError:
                    return "unreadable"   # (its path past PATH_MAX)
                total += st.st_blocks * 512
                if total > max_bytes:
                    return "bytes"
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
    return None


def thread_count(pid: int) -> int | None:
    """The number of threads of process ``pid`` (None when it cannot be read: gone, no /proc)."""
    try:
        with open(f"/proc/{int(pid)}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"Threads:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def threads_line() -> str:
    return f"thread limit ({CHILD_THREADS} threads) exceeded"


def disk_line(which: str, disk_mb: float = DISK_MB, entries: int = DISK_ENTRIES) -> str:
    from .sandbox import _num

    if which == "entries":
        return f"disk limit ({entries} files and folders in the session's folder) exceeded"
    if which == "unreadable":
        return (f"disk limit ({_num(disk_mb)} MB in the session's folder): it made a folder "
                "that cannot be measured")
    return f"disk limit ({_num(disk_mb)} MB in the session's folder) exceeded"


def help_text() -> str:
    """The budget as ``replay --help`` states it (the numbers of the table above)."""
    return (f"the whole command {BUDGET_SECONDS} s of wall time (--budget); each file's "
            f"child {CHILD_SECONDS} s wall, {CHILD_CPU_SECONDS} s CPU, {CHILD_MEMORY_MB} MB "
            f"memory, {CHILD_THREADS} threads, {DISK_MB} MB and {DISK_ENTRIES} entries of disk, {CHILD_OUTPUT_MB} MB of "
            f"output; each picture's Graphviz {GRAPHVIZ_SECONDS} s and {GRAPHVIZ_MEMORY_MB} MB; "
            f"{HANDOUT_SVG_MB} MB of pictures per handout")
