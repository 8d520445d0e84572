"""``replay --present`` keeps the keys typed before it asks (gradrepl/repl/present.py).

Found running the suite on aarch64 under qemu-user (issue 28, tests/test_cpu_classes.py): the
presenter prints its status line, then switches the terminal to cbreak mode; ``tty.setcbreak``'s
default ``TCSAFLUSH`` threw away what had been typed in between, so a Ctrl-D sent right after the
status line (tests/test_present.py's test_ctrl_c_and_ctrl_d_end_cleanly) was lost on a slow
(emulated) CPU and the presenter waited for ever. Natively the gap is short but real: a key
typed while a block runs was dropped the same way. Here the keys are in the pseudo-terminal
before the presenter reads, whatever the CPU's speed: a Ctrl-D typed in canonical mode reaches
the reader as the line discipline's EOF mark (a NUL byte), Enter as a newline.
"""
from __future__ import annotations

import os
import sys
import threading

import pytest

if not sys.platform.startswith("linux"):
    pytest.skip("pseudo-terminal line discipline checked on Linux", allow_module_level=True)

import pty  # noqa: E402
import termios  # noqa: E402

from gradrepl.repl import present  # noqa: E402


def _keys_typed_before(typed: bytes, ask: str = "key"):
    """Write ``typed`` to a terminal in canonical mode, then ask the presenter's reader."""
    master, slave = pty.openpty()
    result = []
    try:
        attrs = termios.tcgetattr(slave)
        assert attrs[3] & termios.ICANON   # a fresh terminal: canonical mode, echo on
        os.write(master, typed)
        with os.fdopen(os.dup(slave), "rb", buffering=0) as stream:
            read = present.terminal_keys(stream)
            assert read.interactive
            call = read if ask == "key" else (lambda: read.number(lambda text: None))
            t = threading.Thread(target=lambda: result.append(call()), daemon=True)
            t.start()
            t.join(20)
            # the mode the presenter found is back
            assert termios.tcgetattr(slave)[3] & termios.ICANON
    finally:
        os.close(master)   # a reader still waiting gets an error and ends
        os.close(slave)
    assert result, f"the presenter lost the keys {typed!r} typed before it asked"
    return result[0]


@pytest.mark.parametrize("typed, key", [(b"\x04", "eof"), (b"q", "quit"), (b"\r", "next"),
                                        (b"b", "back"), (b" ", "next")])
def test_a_key_typed_before_the_presenter_asks_is_read(typed, key):
    assert _keys_typed_before(typed) == key


def test_keys_typed_ahead_are_taken_one_by_one():
    master, slave = pty.openpty()
    try:
        os.write(master, b"nnq")
        with os.fdopen(os.dup(slave), "rb", buffering=0) as stream:
            read = present.terminal_keys(stream)
            got = []
            t = threading.Thread(target=lambda: got.extend(read() for _ in range(3)),
                                 daemon=True)
            t.start()
            t.join(20)
    finally:
        os.close(master)
        os.close(slave)
    assert got == ["next", "next", "quit"]


def test_a_go_to_number_typed_before_it_is_asked_is_read():
    assert _keys_typed_before(b"7\r", ask="number") == 7
    assert _keys_typed_before(b"\x04", ask="number") is None


@pytest.mark.parametrize("typed, key", [(b"\x04", "stop"), (b"q", "finish"), (b"\r", "next")])
def test_a_step_key_typed_before_the_shell_asks_is_read(typed, key, monkeypatch):
    """The shell's %step reads its keys the same way (gradrepl/repl/shell.py _read_step_key)."""
    from gradrepl.repl import shell

    master, slave = pty.openpty()
    result = []
    try:
        os.write(master, typed)
        with os.fdopen(os.dup(slave), "rb", buffering=0) as stream:
            monkeypatch.setattr(sys, "stdin", stream)
            t = threading.Thread(target=lambda: result.append(shell._read_step_key()),
                                 daemon=True)
            t.start()
            t.join(20)
    finally:
        os.close(master)
        os.close(slave)
    assert result == [key]
