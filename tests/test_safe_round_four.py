"""``replay --safe`` against round four of the red team (issue 32), and its leftovers.

- **Signals as a terminal sends them.** ``gradrepl replay --safe`` runs in a pseudo-terminal of
  its own (it is the session leader, the terminal its controlling one): Ctrl-C typed on the
  terminal (the line discipline's SIGINT to the foreground group), the terminal hung up (its
  master closed: SIGHUP to the controlling process) and SIGTERM must each leave no child
  process and no folder behind, with the exit status of the signal and no traceback.
- **The folder's measure** (``safe_budget.folder_usage``, used where the child has no private
  tmpfs): a folder the teacher's user cannot list (made ``0o300`` by the session: its owner
  may still fill it) or nested past PATH_MAX is not skipped but stops the file.
- The escapes ``tests/data/escapes/98..`` run with full Python in the child in
  ``tests/test_safe_kernel.py::test_round_three_with_full_python_in_the_child`` (files 80 and
  above); here, what they need besides.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from gradrepl.repl import kernel, safe_budget

WHY = kernel.probe()
needs_kernel = pytest.mark.skipif(WHY is not None, reason=WHY or "")


def _processes_in(folder) -> list:
    """The pids whose working directory is under ``folder``."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.readlink(f"/proc/{pid}/cwd").startswith(str(folder)):
                    found.append(int(pid))
            except OSError:
                pass
    return found


def _cpu_ticks(pids) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total


def _read_all(fd, until: float) -> bytes:
    import select

    got = b""
    while time.monotonic() < until:
        r, _, _ = select.select([fd], [], [], 0.1)
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:          # (EIO: the other side is gone)
            break
        if not chunk:
            break
        got += chunk
    return got


# ============================================================================ a real terminal
@needs_kernel
@pytest.mark.parametrize("how", ["ctrl_c", "hangup", "sigterm"])
def test_a_terminals_signals_leave_no_child_and_no_folder(tmp_path, how):
    import pty

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    f = tmp_path / "loop.pycon"
    f.write_text(">>> n = 0\n>>> while True:\n...     n += 1\n... \n")
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONIOENCODING": "utf-8"}
    argv = [sys.executable, "-m", "gradrepl", "replay", "--safe", "--check", str(f)]
    pid, master = pty.fork()
    if pid == 0:                      # the session leader, the pty its controlling terminal
        try:
            os.execve(sys.executable, argv, env)
        finally:
            os._exit(127)
    status = None
    try:
        end = time.monotonic() + 60
        while not _processes_in(tmp) and time.monotonic() < end:
            _read_all(master, time.monotonic() + 0.1)
        assert _processes_in(tmp), "the child did not start"
        # until the child is in the loop (past its imports and its first output): 3 s of CPU
        while time.monotonic() < end and _cpu_ticks(_processes_in(tmp)) < 3 * os.sysconf(
                "SC_CLK_TCK"):
            _read_all(master, time.monotonic() + 0.1)
        output = b""
        if how == "ctrl_c":
            os.write(master, b"\x03")         # the terminal's interrupt character
        elif how == "hangup":
            os.close(master)                  # the terminal goes away
            master = None
        else:
            os.kill(pid, signal.SIGTERM)
        end = time.monotonic() + 30
        while status is None and time.monotonic() < end:
            if master is not None:
                output += _read_all(master, time.monotonic() + 0.1)
            else:
                time.sleep(0.1)
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
        assert status is not None, "gradrepl did not end"
        end = time.monotonic() + 10
        while _processes_in(tmp) and time.monotonic() < end:
            time.sleep(0.1)
        assert _processes_in(tmp) == []                 # the child is gone
        assert os.listdir(tmp) == [], os.listdir(tmp)   # and its folder
        assert b"Traceback" not in output, output
        code = os.waitstatus_to_exitcode(status)
        if how == "hangup":
            # (its status after a hang-up: no terminal is left to tell, and the streams it
            # would flush at exit are gone with it)
            assert code != 0, code
        else:
            expected = {"ctrl_c": 130, "sigterm": 128 + signal.SIGTERM}[how]
            assert code == expected, (code, output)
    finally:
        if status is None:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        if master is not None:
            os.close(master)


# ============================================================================ the folder's measure
def _usage_as(uid, path, max_bytes, max_entries):
    """``folder_usage`` measured by a process of user ``uid`` (this one's, or another's when
    this is root: a forked copy of this process gives up root): what a teacher who is not
    root gets."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            if uid != os.getuid():
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            os.write(w, str(safe_budget.folder_usage(str(path), max_bytes,
                                                     max_entries)).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        got = fh.read().decode()
    os.waitpid(pid, 0)
    return got


def _chown_tree(path, uid):
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            os.chown(os.path.join(root, n), uid, uid, follow_symlinks=False)
    os.chown(path, uid, uid)


def test_a_folder_the_teacher_cannot_list_is_not_skipped():
    import tempfile

    from gradrepl.repl.safe_replay import remove_tree

    uid = 65534 if os.getuid() == 0 else os.getuid()     # (root lists anything: be another)
    base = tempfile.mkdtemp(prefix="gradrepl-measure-")   # (searchable by that user)
    try:
        os.chmod(base, 0o711)
        top = os.path.join(base, "child")
        os.mkdir(top)
        hidden = os.path.join(top, "hidden")
        os.mkdir(hidden)
        with open(os.path.join(hidden, "big"), "wb") as fh:
            fh.write(os.urandom(2 << 20))                 # 2 MB where the measure cannot look
        if uid != os.getuid():
            _chown_tree(top, uid)
        assert _usage_as(uid, top, 1 << 20, 100) == "bytes"     # a folder it may list
        assert _usage_as(uid, top, 8 << 20, 100) == "None"
        os.chmod(hidden, 0o300)      # write and search, no read: its owner may still fill it
        assert _usage_as(uid, top, 1 << 20, 100) == "unreadable"
        assert _usage_as(uid, top, 8 << 20, 100) == "unreadable"
    finally:
        remove_tree(base)
    assert not os.path.exists(base)
    assert safe_budget.disk_line("unreadable", 64) == (
        "disk limit (64 MB in the session's folder): it made a folder that cannot be measured")


def test_a_folder_nested_past_path_max_is_not_skipped(tmp_path):
    top = tmp_path / "child"
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    try:
        for _k in range(20):                      # 20 x 251 characters: past PATH_MAX (4096)
            os.mkdir("d" * 250, dir_fd=fd)
            nxt = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        big = os.open("big", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd)
        os.write(big, os.urandom(2 << 20))
        os.close(big)
    finally:
        os.close(fd)
    assert safe_budget.folder_usage(str(top), 1 << 20, 100) in ("bytes", "unreadable")
    from gradrepl.repl.safe_replay import remove_tree

    remove_tree(str(top))
    assert not top.exists()


# ============================================================================ the confinement's own failure
CONFINE_FAILS = """
import sys
from gradrepl.repl import kernel, safe_replay
def confine(*a, **k):
    raise kernel.KernelSandboxError("Landlock: restrict_self failed (stand-in)")
kernel.confine = confine
safe_replay.child_main(sys.argv[1:])
"""


@needs_kernel
def test_a_child_that_cannot_be_confined_says_why_in_one_line(tmp_path, monkeypatch):
    # (escapes/112: the same exit status from the session's first input is the session's own,
    # told apart by the child's READY line, written before any input is read)
    import io

    from gradrepl.repl import safe_replay
    from gradrepl.repl.replay_cli import replay_command

    monkeypatch.setattr(safe_replay, "CHILD_ARGS", ("-c", CONFINE_FAILS))
    f = tmp_path / "t.pycon"
    f.write_text(">>> print(1)\n1\n")
    out, err = io.StringIO(), io.StringIO()
    rc = replay_command([str(f)], out=out, err=err, check=True, safe=True)
    assert rc == 2, (out.getvalue(), err.getvalue())
    assert err.getvalue() == (f"gradrepl replay --safe: {f}: the sandbox could not be set up: "
                              "KernelSandboxError: Landlock: restrict_self failed "
                              "(stand-in)\n")


# ============================================================================ threads (escapes/113)
def test_the_parent_counts_the_childs_threads():
    import threading

    stop = threading.Event()
    ts = [threading.Thread(target=stop.wait) for _ in range(5)]
    for t in ts:
        t.start()
    try:
        n = safe_budget.thread_count(os.getpid())
        assert n is not None and n >= 6, n          # this one's, and the five
    finally:
        stop.set()
        for t in ts:
            t.join()
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    assert safe_budget.thread_count(p.pid) is None          # gone
    assert safe_budget.threads_line() == "thread limit (256 threads) exceeded"
    assert "256 threads" in safe_budget.help_text()
