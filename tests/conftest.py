"""Shared test fixtures.

gradrepl keeps a little process-wide state: the emulated Paddle version (the profile), the print
options, the random generator, the default float dtype and the gradient-recording switch. Tests
that change any of them (a conformance case calling ``paddle.seed`` or ``set_printoptions``, a
test that selects ``--paddle 3``) must not leak the change into the next test, so every test ends
with ``reset_gradrepl_state()``.
"""
from __future__ import annotations

import os

import pytest

# The recorded Paddle outputs of this suite (conformance, layers, models, tutorials) were printed
# by real Paddle on an Intel AVX-512 machine, whose MKL fuses each multiply into the running sum
# of a float32 product; on AMD real Paddle adds the rounded products (engine/cpu.py). The suite
# checks those records under the rule of the CPU class they were made on, on any machine, and
# tests of another class's rule choose it themselves (tests/test_cpu_rules.py; records made on
# AMD, e.g. tests/test_lectures.py, set "amd"). Subprocesses inherit the choice.
os.environ.setdefault("GRADREPL_CPU_CLASS", "intel-avx512")
# the thread count the torch records were made with (a 2-core machine): reductions and MKL's
# products split their work by it (engine/cpu.threads)
os.environ.setdefault("GRADREPL_TORCH_THREADS", "2")
# the suite's Paddle 3 stderr records come from machines with ccache on PATH, where real Paddle 3
# says nothing at import (paddle/import_notes.py); tests of the warning unset this themselves
os.environ.setdefault("GRADREPL_CCACHE", "found")

import gradrepl.paddle  # noqa: F401  (the whole API, so every op is registered before collection)
from gradrepl.paddle import profiles, state


def pytest_report_header(config):
    """The CPU the suite runs on, as the rules see it: a record made on another class skips
    here with its reason (-rs lists them), so a log says which class it checked."""
    import platform

    from gradrepl.engine import cpu, mkl

    # (off x86 the vendor line of /proc/cpuinfo is not the CPU's: under qemu-user it is the host's)
    vendor = (cpu._cpuinfo()[0] or "?") if cpu.x86() else "-"
    return (f"gradrepl CPU: {platform.machine()} {vendor}, class {cpu.detected()} "
            f"(rules checked as {cpu.cpu_class()}), AVX-512 {'yes' if cpu.has_avx512f() else 'no'}, "
            f"emulated {'yes' if cpu.emulated() else 'no'}, MKL path {mkl.branch() or 'none (no MKL)'}")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Under -q (the README's command) pytest shows no header: the CPU line goes above the
    closing counts instead, so every log of the suite names the CPU class it checked."""
    if config.option.verbose < 0:
        terminalreporter.write_line(pytest_report_header(config))


def skip_without_avx512(what: str) -> None:
    """Skip, printing why, on a CPU without AVX-512: ``what`` was recorded on one with it, and
    the values depend on the CPU's kernels there (the framework's oneDNN/MKL, and gradrepl's
    numpy SIMD functions and OpenBLAS, all pick AVX-512 code). tests/test_cpu_avx2.py runs the
    suite as an AVX2 machine."""
    from gradrepl.engine import cpu

    if not cpu.has_avx512f():
        reason = (f"{what}: recorded on a CPU with AVX-512, this one has none: the last bits "
                  "follow the CPU's kernels, bytes not compared")
        print(reason)
        pytest.skip(reason)


def skip_unless_x86_64(what: str) -> None:
    """Skip, printing why, off x86-64: ``what`` was recorded from real torch's x86-64 build,
    whose vector kernels (SLEEF's x86 functions, ATen's AVX2/AVX-512 builds) the torch dialect
    follows there; an aarch64 build has other kernels (run under qemu's arm64 user mode)."""
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        reason = (f"{what}: recorded from real torch on x86-64; this is {platform.machine()}, "
                  "whose torch build has other vector kernels: bytes not compared")
        print(reason)
        pytest.skip(reason)


def skip_unless_onednn_avx512_core(what: str) -> None:
    """Skip, printing why, where oneDNN does not run its ``avx512_core`` kernels (the torch
    dialect's ``_onednn_conv.isa()``): ``what`` was recorded from them, and gradrepl emulates
    only their sums (other CPUs keep the general path, whose last bits differ)."""
    from gradrepl.torch.nn import _onednn_conv

    if _onednn_conv.isa() != "avx512_core":
        import platform

        other = ("8-channel blocks on AVX2" if platform.machine().lower() in ("x86_64", "amd64")
                 else f"{platform.machine()}'s, not x86's")
        reason = (f"{what}: recorded where oneDNN runs its avx512_core kernels; this CPU has "
                  f"other ones ({other}), whose sums are not emulated: bytes not compared")
        print(reason)
        pytest.skip(reason)


# MKL's code path where the torch dialect's MKL records were made (real torch 2.13 and gradrepl
# on the AMD EPYC Zen 4: mkl_cbwr_get_auto_branch() answers AUTO, no Intel path)
RECORDED_MKL_BRANCH = "AUTO"


def skip_unless_mkl_branch(what: str, approximations: bool = True) -> None:
    """Skip, printing why, where MKL takes another code path than the one ``what`` was recorded
    under (engine/mkl.branch): MKL's kernels, hence the last bits, follow its path (an Intel
    AVX2 CPU runs other products and math functions than the AMD one the records came from);
    the torch dialect still calls the same MKL as real torch there. ``approximations``: MKL's
    kernels for ``what`` start from approximate instructions (VML functions, vsSqrt), which an
    emulator (cpu.emulated(): qemu-x86_64 -cpu EPYC-Rome gave 852 of 1000 vsSqrt results
    correctly rounded, the EPYC itself 820) computes exactly: skipped there too."""
    from gradrepl.engine import cpu, mkl

    here = mkl.branch()
    if here is not None and here != RECORDED_MKL_BRANCH:
        reason = (f"{what}: recorded where MKL's code path is {RECORDED_MKL_BRANCH} (AMD EPYC); "
                  f"here it is {here}: MKL's kernels give other last bits, bytes not compared")
    elif here is not None and approximations and cpu.emulated():
        reason = (f"{what}: this CPU is emulated (cpuid and /proc/cpuinfo disagree), and an "
                  "emulator computes the approximate instructions MKL's kernels start from "
                  "exactly: bytes not compared")
    else:
        return
    print(reason)
    pytest.skip(reason)


def record_for_mkl_branch(what: str, records: dict):
    """The record of ``records`` (MKL code path -> expected value, e.g. ``{"AUTO": ...,
    "AVX512_E1": ...}``) made where MKL takes this machine's path (engine/mkl.branch: ``AUTO``
    on the AMD EPYC Zen 4, ``AVX512_E1`` on the Intel Sapphire Rapids Xeon); skipped, printing
    why, where none was made (MKL's kernels there give other last bits) or MKL is absent."""
    from gradrepl.engine import mkl

    here = mkl.branch()
    if here in records:
        return records[here]
    reason = (f"{what}: recorded where MKL's code path is {' or '.join(sorted(records))}; here "
              f"it is {here}: MKL's kernels give other last bits, bytes not compared")
    print(reason)
    pytest.skip(reason)


def skip_unless_mkl_path(what: str, path: str = "AVX512_E1") -> None:
    """Skip, printing why, unless MKL (the exact extra) is loaded, takes its ``path`` code path
    (``AVX512_E1``: the Intel Sapphire Rapids Xeon where ``what`` was recorded) and this process
    computes as the CPU it runs on (no other class chosen): Paddle's MKL calls on Intel give
    those bits only there."""
    from gradrepl.engine import cpu, mkl

    if mkl.load() and mkl.branch() == path and cpu.cpu_class() == cpu.detected():
        return
    here = "MKL is absent" if not mkl.load() else f"MKL's path is {mkl.branch()}, CPU class " \
        f"{cpu.detected()} (computing as {cpu.cpu_class()})"
    reason = f"{what}: recorded where MKL takes its {path} code path; here {here}: bytes not compared"
    print(reason)
    pytest.skip(reason)


def skip_unless_paddle_vsdiv(what: str) -> None:
    """Skip, printing why, unless the CPU class is Intel AVX-512, where Paddle's float32 divide
    is MKL's vsDiv (not correctly rounded): ``what`` was recorded there; elsewhere the divide
    is exact."""
    from gradrepl.engine import cpu

    if cpu.cpu_class() != "intel-avx512":
        reason = (f"{what}: recorded where Paddle's float32 divide is MKL's vsDiv (Intel "
                  f"AVX-512); this CPU class is {cpu.cpu_class()}, whose divide is exact: bytes "
                  "not compared")
        print(reason)
        pytest.skip(reason)


def skip_without_mkl(what: str) -> None:
    """Skip, printing why, where the MKL backend (the exact extra) is absent: the torch dialect
    computes ``what`` with the MKL real torch calls; without it, numpy's last bits."""
    from gradrepl.engine import mkl

    if not mkl.load():
        reason = (f"{what}: real torch computes it with MKL, which is not installed here (the "
                  "exact extra): bytes not compared")
        print(reason)
        pytest.skip(reason)


def expected_for_mkl_branch(data_dir, what: str, approximations: bool = True) -> dict:
    """The records of ``data_dir`` made where MKL takes this machine's code path:
    ``expected.json`` (made on the AMD EPYC, MKL's ``AUTO`` path) or ``expected_<path>.json``
    (e.g. ``expected_AVX512_E1.json``, made by the same record.py with real torch on the Intel
    Sapphire Rapids Xeon); skipped, printing why, where there is none, or (``approximations``:
    the kernels start from approximate instructions) where the CPU is emulated."""
    import json
    import pathlib

    from gradrepl.engine import mkl

    here = mkl.branch()
    path = pathlib.Path(data_dir) / ("expected.json" if here == RECORDED_MKL_BRANCH
                                     else f"expected_{here}.json")
    if here is None or not path.exists():
        reason = (f"{what}: recorded where MKL's code path is {RECORDED_MKL_BRANCH} (AMD EPYC) or "
                  f"one with an expected_<path>.json in {pathlib.Path(data_dir).name}; here it is "
                  f"{here}: MKL's kernels give other last bits, bytes not compared")
        print(reason)
        pytest.skip(reason)
    skip_unless_mkl_branch(what, approximations) if here == RECORDED_MKL_BRANCH else None
    from gradrepl.engine import cpu

    if here != RECORDED_MKL_BRANCH and approximations and cpu.emulated():
        reason = (f"{what}: this CPU is emulated (cpuid and /proc/cpuinfo disagree), and an "
                  "emulator computes the approximate instructions MKL's kernels start from "
                  "exactly: bytes not compared")
        print(reason)
        pytest.skip(reason)
    return json.loads(path.read_text())


def skip_if_strided_fmax_is_wrong(what: str) -> None:
    """Skip, printing why, on an emulated CPU without AVX-512 (``cpu.emulated()``), where
    numpy's AVX2 ``fmax`` over a strided float32 vector went wrong: under qemu 7.2's TCG with
    ``-cpu Haswell-v4``, ``np.fmax(np.full(8, -1), np.arange(16.)[::2])`` (float32) gave eight
    zeros in a fresh process and died of SIGSEGV later in a pytest process (a pooling probe's
    ``np.fmax``; probing it in-process crashed too). numpy's AVX2 loop on real silicon is right
    (this machine with numpy's AVX-512 switched off). ``what`` computes pooling maxima so."""
    from gradrepl.engine import cpu

    if cpu.emulated() and not cpu.has_avx512f():
        reason = (f"{what}: this CPU is emulated without AVX-512, where numpy's AVX2 fmax over "
                  "a strided float32 vector computed zeros and crashed (qemu 7.2 -cpu "
                  "Haswell-v4): pooling maxima cannot be computed here")
        print(reason)
        pytest.skip(reason)


def reset_gradrepl_state(profile: str = profiles.DEFAULT) -> None:
    """Profile, print options, RNG, default dtype, grad mode and layer names as in a fresh process."""
    state.reset(profile)


@pytest.fixture(params=["3", "2.6"])
def profile(request):
    """A test run under Paddle 3's and 2.6's profiles (a file may define its own ``profile``);
    ``_fresh_gradrepl_state`` puts the default back afterwards."""
    profiles.set_profile(request.param)
    return request.param


@pytest.fixture(params=["3", "2.6"])
def version(request):
    """``profile`` by the name the Paddle bit tests give it (real 3.3.1's and 2.6.2's records)."""
    profiles.set_profile(request.param)
    return request.param


@pytest.fixture(autouse=True)
def _fresh_gradrepl_state():
    """After every test, undo whatever global state the test changed."""
    yield
    reset_gradrepl_state()


#: the first words of the notice ``gradrepl run`` prints where the MKL backend (the ``exact``
#: extra) is absent: a lean install's output has it, real torch's never
LEAN_NOTICE = "gradrepl: torch's float math"


def without_lean_notice(text: str) -> str:
    """``text`` (a ``gradrepl run``'s output) without the lean install's notice line."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith(LEAN_NOTICE))
