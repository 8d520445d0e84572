"""What differs when gradrepl runs on aarch64 (issue 28), checked on any machine.

The suite was run on aarch64 Linux under qemu-user (Debian bookworm arm64 rootfs, binfmt_misc;
docs in the report of issue 28). There, the ``--safe`` kernel sandbox cannot work: qemu-user
passes neither Landlock nor seccomp to the host kernel (``landlock_create_ruleset`` and
``seccomp`` answer ENOSYS, ``prctl(PR_SET_SECCOMP)`` EINVAL), so ``kernel.probe()`` must say so
(the sandbox tests skip with that line, and ``replay --safe`` refuses with it) rather than blame
the kernel, or pass and fail later in ``confine``.

The slow tests ran there too (``-m slow``, a file at a time; the commands and the other CPU
classes are in tests/test_cpu_classes.py's docstring). qemu-user also ignores its guest's
``RLIMIT_AS`` (``setrlimit`` succeeds, ``getrlimit`` reads -1), so --safe's memory limit is not
applied there: tests/test_sandbox.py probes it and skips that part, saying so.
"""
from __future__ import annotations

import platform

from gradrepl.repl import kernel


def _cpuinfo_vendor() -> str:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.split(":")[0].strip() == "vendor_id":
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def test_probe_names_user_mode_emulation(monkeypatch):
    x86_host = _cpuinfo_vendor() in ("GenuineIntel", "AuthenticAMD", "HygonGenuine")
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert kernel._emulated_on() is None      # a native x86-64 process is not emulated
        # the same /proc/cpuinfo seen by an aarch64 Python: qemu-user on this x86 host
        monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    why = kernel.probe()
    if x86_host:
        assert kernel._emulated_on() == "x86-64"
        assert why is not None and "qemu-user" in why and "aarch64" in why
    else:                                         # a real aarch64 (or other) machine
        assert kernel._emulated_on() is None
        assert why is None or "emulation" not in why


def test_console_transcript_of_python_3_11_2_matches():
    """Found on the aarch64 rootfs (Debian 12, Python 3.11.2): its code.InteractiveConsole
    reports an unfinished line as ``SyntaxError: incomplete input`` (codeop), where python's own
    REPL of the same Python, run there on a pty, printed ``SyntaxError: invalid syntax`` as
    gradrepl's shell does; a transcript recorded in that console still checks."""
    from gradrepl.repl import transcript

    console = ['  File "<console>", line 1', "    y = 1 +", "SyntaxError: incomplete input"]
    shell = '  File "<stdin>", line 1\n    y = 1 +\n           ^\nSyntaxError: invalid syntax\n'
    assert transcript.matches(console, shell)
    assert not transcript.matches(console[:2] + ["SyntaxError: unexpected EOF"], shell)
    assert not transcript.matches(console[:2] + ["NameError: incomplete input"], shell)


def test_torch_float_to_uint8_wraps_on_every_cpu():
    """Real torch 2.9.1 on aarch64 (qemu-user) and 2.13 on x86-64 both print
    tensor([  1, 254,   0]) and tensor([253,  44]): c10 casts a float to uint8 through int64;
    numpy's direct cast gave [1, 0, 0] and [0, 44] on aarch64."""
    import gradrepl.torch as torch

    assert torch.tensor([1.5, -2, 0]).to(torch.uint8).tolist() == [1, 254, 0]
    assert torch.tensor([-3.7, 300.0]).byte().tolist() == [253, 44]
    assert torch.tensor([-2.0], dtype=torch.float64).to(torch.uint8).tolist() == [254]
