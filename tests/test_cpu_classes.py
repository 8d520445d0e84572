"""The CPU a process sees, and how the suite was run on other CPU classes (issue 28).

Detection. MKL, numpy and the frameworks choose their kernels by the ``cpuid`` instruction;
``/proc/cpuinfo`` describes the machine. The two differ under a user-mode emulator:
``qemu-x86_64-static -cpu Haswell-v4 python`` answers ``cpuid`` as an Intel Haswell (AVX2, FMA,
no AVX-512; numpy reports X86_V3 and MKL runs its Intel AVX2 code) while /proc/cpuinfo still
names the host (here an AMD EPYC with AVX-512). ``engine/cpu.py`` therefore takes the vendor and
the AVX flags from ``cpuid`` (``engine/_cpuid.py``) and says ``emulated()`` when they disagree
with /proc/cpuinfo: there the approximate instructions (``rsqrtps``, ``rcp14ps``) are computed
exactly by the emulator, so the tables read from real silicon (``ops/_kernels.py``) do not
describe what a framework computes, and tests comparing with such silicon skip, saying so.

How the README's command (``python -m pytest -q``) was run on other CPU classes (commands, from a
checkout; each test file alone, so that partial results survive; see the report of issue 28 for
the counts):

- aarch64 (no MKL; numpy's NEON kernels, OpenBLAS), Debian 12 arm64 rootfs under qemu-user
  (binfmt_misc), project installed with ``pip install -e ".[dev]"`` into its venv::

      mount -t proc proc ROOTFS/proc; mount --bind /dev/pts ROOTFS/dev/pts
      chroot ROOTFS /usr/bin/env -i HOME=/root PATH=/opt/venv/bin:/usr/bin:/bin LANG=C.UTF-8 \\
          sh -c 'cd /root/gradrepl && python -m pytest -q -rfEs tests/test_X.py'

  A machine has /proc and /dev/pts; a bare chroot does not, and fails tests no aarch64 machine
  fails: without /proc ``kernel._emulated_on()`` cannot read the host's cpuinfo (so
  test_safe_budget's RLIMIT_AS guard let 2 tests run and fail), without /dev/pts the pty tests
  raise 'out of pty devices' (test_present_typeahead: 10 failed). ``env -i`` also drops
  PYTHONUNBUFFERED, with which the host ran and real torch's merged stdout+stderr records were
  made: tests/test_torch_legacy_names.py's 4 failures on aarch64 were that (the same 4 failed on
  x86-64 with the variable unset); its runs now set the variable themselves.

- Intel x86-64 without AVX-512 (Haswell: AVX2 + FMA; Skylake-Client), and AMD without AVX-512
  (EPYC-Rome), emulated by qemu 7.2's TCG on any x86-64 Linux machine::

      qemu-x86_64-static -cpu Haswell-v4 $(which python) -m pytest -q -rfEs tests/test_X.py

  Only the pytest process is emulated: a subprocess a test starts (``sys.executable ...``: the
  CLI, ``replay``, the pty shell, ``--safe``'s child) runs natively on the host CPU. Check the CPU
  seen first: ``qemu-x86_64-static -cpu Haswell-v4 $(which python) -c "import numpy;
  numpy.show_runtime()"`` lists X86_V3 found and X86_V4 not found.

- The AVX2 class without an emulator: ``GRADREPL_CPUINFO`` and the libraries' own switches
  (``tests/test_cpu_avx2.py`` gives the command line).

What these runs found, and how the tests choose now (each skip prints its reason, ``-rs``):

- MKL's code path is its own answer, ``engine/mkl.branch()`` (``mkl_cbwr_get_auto_branch``):
  ``AUTO`` on the AMD EPYC where the torch MKL records were made (and under ``-cpu EPYC-Rome``,
  where all 38 gemm records still agreed), ``AVX2`` on Intel Haswell / Skylake client, whose
  gemm, VML and vsSqrt give other last bits (49 records differed): ``conftest.
  skip_unless_mkl_branch`` compares them only under the recorded path.
- Under an emulator (``cpu.emulated()``) MKL's kernels that start from approximate instructions
  (VML functions, vsSqrt, float32 Cholesky's reciprocal) give no silicon's bits: skipped there.
- On aarch64 qemu-user: no Landlock/seccomp (``kernel.probe()``) and no ``RLIMIT_AS``.
- torch's aarch64 build fuses ``a * b + c`` (real torch 2.9.1 there, capability DEFAULT, printed
  the x86-64 AVX512 build's normal_/addcmul/linspace/uniform_ bits): ``_capability.fused()``
  says so (tests/test_torch_fused_builds.py); float64 ``uniform_`` was unfused everywhere.
- Run in chunks of files (one pytest per chunk, ``-m "not slow"``), one emulated process at a
  time. Held the runs: the vgg11 session's numeric gradient check (now slow). Under
  ``-cpu Haswell-v4``, tests/test_layer_probes.py's unpool probe died in ``np.fmax`` over a
  strided slice (SIGSEGV) after the other eight probes in the same process, twice; in a fresh
  process ``np.fmax`` over a strided float32 vector of 8 gave eight zeros there (right on real
  AVX2 silicon): qemu's fault, so that probe skips on an emulated CPU without AVX-512
  (``conftest.skip_if_strided_fmax_is_wrong``).
- On aarch64 under qemu-user (slow): ``replay --present`` lost a Ctrl-D sent right after its
  status line (tests/test_present.py timed out): ``tty.setcbreak``'s default TCSAFLUSH dropped
  keys typed before the presenter switched mode, a real race, fixed (TCSANOW;
  tests/test_present_typeahead.py); ``kernel.probe()`` answers the emulator before Landlock, so
  tests of the Landlock line set ``_emulated_on`` aside.
- tests/test_lect4_r7b.py's float32 LBFGS (strong Wolfe) on Rosenbrock: its line search takes a
  float32 sqrt, MKL's vsSqrt in real torch; under Haswell emulation, on aarch64 and without MKL
  the second loss was 3.1747049433761276e-11 (recorded: 3.3097080631705467e-11): compared only
  on the recorded MKL path.
- On the Intel Sapphire Rapids host (qemu 7.2.22, ``-cpu Haswell-v4``: MKL's AVX2 path), the 48
  test files changed since 704ec13, each alone with ``-m "not slow"``: three failed, records of
  MKL's AVX512_E1 path compared there (test_numerics_more's dot count, test_torch_matrix_exp,
  test_torch_vmap_closure_grad: the last recorded from real torch 2.13 under the same emulation).
  ``MKL_ENABLE_INSTRUCTIONS=AVX2`` natively reproduced all three: a quick check of MKL's path.
"""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys

import pytest

from gradrepl.engine import _cpuid, cpu
from gradrepl.torch import _capability

X86_LINUX = platform.machine().lower() in ("x86_64", "amd64") and sys.platform.startswith("linux")


@pytest.fixture
def fresh(monkeypatch):
    """Detection is cached per process: clear it before and after; no overrides."""
    for var in ("GRADREPL_CPU_CLASS", "GRADREPL_TORCH_CAPABILITY", "ATEN_CPU_CAPABILITY",
                "GRADREPL_CPUINFO"):
        monkeypatch.delenv(var, raising=False)
    clear = (cpu.detected.cache_clear, _capability.detected.cache_clear,
             cpu._flag_avx512f.cache_clear)
    for c in clear:
        c()
    yield monkeypatch
    for c in clear:
        c()


AMD_AVX512 = ("AuthenticAMD", {"fpu", "sse2", "avx", "fma", "avx2", "avx512f", "avx512dq",
                               "avx512bw", "avx512vl"}, 2)


def _as_machine(monkeypatch, cpuinfo, asked):
    monkeypatch.setattr(cpu, "x86", lambda: True)
    monkeypatch.setattr(cpu, "cpuinfo", lambda: cpuinfo)
    monkeypatch.setattr(_cpuid, "query", lambda: asked)


def test_an_emulated_haswell_on_an_amd_host_is_intel_avx2(fresh):
    """qemu-x86_64 -cpu Haswell-v4 on the AMD EPYC: what cpuid answered there (measured)."""
    _as_machine(fresh, AMD_AVX512, ("GenuineIntel", frozenset({"avx", "fma", "avx2"})))
    assert cpu.detected() == "intel-avx2" and cpu.fused_products()
    assert not cpu.has_avx512f() and not cpu.avx512f()
    assert _capability.detected() == "AVX2"
    assert cpu.emulated()
    assert cpu._cpuinfo()[1] >= {"fpu", "sse2", "avx2"}     # the other flags kept


def test_an_emulated_epyc_rome_is_amd_without_avx512(fresh):
    _as_machine(fresh, AMD_AVX512, ("AuthenticAMD", frozenset({"avx", "fma", "avx2"})))
    assert cpu.detected() == "amd" and not cpu.has_avx512f() and cpu.emulated()
    assert _capability.detected() == "AVX2"


def test_a_native_cpu_agrees_and_is_not_emulated(fresh):
    _as_machine(fresh, AMD_AVX512, ("AuthenticAMD", frozenset(AMD_AVX512[1] & set(_cpuid.FEATURES))))
    assert cpu.detected() == "amd" and cpu.has_avx512f() and not cpu.emulated()
    assert _capability.detected() == "AVX512"


def test_without_cpuid_proc_cpuinfo_answers(fresh):
    _as_machine(fresh, AMD_AVX512, None)
    assert cpu.detected() == "amd" and cpu.has_avx512f() and not cpu.emulated()


def test_a_simulated_machine_is_judged_by_its_file_alone(fresh, tmp_path):
    """GRADREPL_CPUINFO (tests/test_cpu_avx2.py's simulation) wins over cpuid."""
    p = tmp_path / "cpuinfo"
    p.write_text("processor\t: 0\nvendor_id\t: GenuineIntel\nphysical id\t: 0\ncore id\t\t: 0\n"
                 "flags\t\t: fpu avx fma avx2 avx512f avx512dq avx512bw avx512vl\n")
    fresh.setenv("GRADREPL_CPUINFO", str(p))
    fresh.setattr(_cpuid, "query", lambda: ("AuthenticAMD", frozenset({"avx2"})))
    assert cpu.detected() == "intel-avx512" and _capability.detected() == "AVX512"
    assert not cpu.emulated()


@pytest.mark.skipif(not X86_LINUX, reason="cpuid is an x86-64 instruction (asked on Linux here)")
def test_cpuid_agrees_with_numpys_own_detection():
    """numpy reads cpuid and XCR0 in C (``__cpu_features__``): an independent reading."""
    if os.environ.get("NPY_DISABLE_CPU_FEATURES") or os.environ.get("NPY_ENABLE_CPU_FEATURES"):
        pytest.skip("numpy's CPU features are switched by NPY_*_CPU_FEATURES here")
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as npf
    except ImportError:
        from numpy.core._multiarray_umath import __cpu_features__ as npf
    asked = _cpuid.query()
    assert asked is not None
    vendor, flags = asked
    assert vendor in ("GenuineIntel", "AuthenticAMD", "HygonGenuine")
    for ours, theirs in (("avx", "AVX"), ("fma", "FMA3"), ("avx2", "AVX2"),
                         ("avx512f", "AVX512F")):
        assert (ours in flags) == bool(npf.get(theirs)), ours


QEMU = shutil.which("qemu-x86_64-static") or shutil.which("qemu-x86_64")
PROBE = ("from gradrepl.engine import cpu; from gradrepl.torch import _capability; "
         "print(cpu.detected(), _capability.detected(), cpu.emulated())")


@pytest.mark.slow
@pytest.mark.skipif(not (X86_LINUX and QEMU), reason="needs qemu-x86_64 on an x86-64 Linux")
@pytest.mark.parametrize("model, seen, vendor", [("Haswell-v4", "intel-avx2 AVX2", "GenuineIntel"),
                                                 ("EPYC-Rome", "amd AVX2", "AuthenticAMD")])
def test_under_qemu_the_emulated_cpu_is_seen(model, seen, vendor, monkeypatch):
    if cpu.emulated():
        pytest.skip("this process is emulated already: qemu is not nested")
    # the host as the child (whose environment drops GRADREPL_CPUINFO) sees it: the real
    # /proc/cpuinfo, also when this suite runs as a simulated machine
    monkeypatch.delenv("GRADREPL_CPUINFO", raising=False)
    host_vendor, host_flags, _ = cpu.cpuinfo()
    differs = host_vendor != vendor or "avx512f" in host_flags   # TCG (qemu 7.2) has no AVX-512
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GRADREPL_CPU", "GRADREPL_TORCH_CAP", "ATEN_CPU"))}
    out = subprocess.run([QEMU, "-cpu", model, sys.executable, "-c", PROBE], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[0] == f"{seen} {differs}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="--safe's probe is Linux's")
def test_the_safe_probe_names_user_mode_emulation_in_one_line(monkeypatch):
    """An aarch64 Python under qemu-user on an x86-64 kernel (measured in the arm64 chroot):
    Landlock and seccomp calls do not reach the host kernel, so --safe refuses, saying why."""
    from gradrepl.repl import kernel

    monkeypatch.setattr(kernel, "_emulated_on", lambda: "x86-64")
    monkeypatch.setattr(kernel.platform, "machine", lambda: "aarch64")
    why = kernel.probe()
    assert why == ("--safe cannot run under user-mode emulation (this aarch64 Python runs on an "
                   "x86-64 kernel through qemu-user, which passes neither Landlock nor seccomp "
                   "through)")


def test_an_x86_python_is_not_taken_for_an_emulated_one(monkeypatch):
    from gradrepl.repl import kernel

    monkeypatch.setattr(kernel.platform, "machine", lambda: "x86_64")
    assert kernel._emulated_on() is None
