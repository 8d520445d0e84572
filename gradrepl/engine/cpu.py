"""Which class of CPU this is, for the rules whose last bits depend on it.

The frameworks' BLAS (MKL) chooses its kernels by the processor: real Paddle's float32 matrix
products are one fused multiply-add chain per element on an Intel CPU with AVX-512 (measured in
the project's first sessions), and the rounded products added in order, unfused, on AMD EPYC
(Zen 4 with AVX-512, and an AVX2 Zen, both measured against real Paddle 2.6.2/3.3.1). A rule
that is emulated rather than computed by the library itself asks ``cpu_class()`` which of its
forms to take.

``GRADREPL_CPU_CLASS`` (``intel-avx512``, ``intel-avx2``, ``amd``, ``other``) overrides the
detection: tests use it to check each class's rule on any machine.

``GRADREPL_CPUINFO`` names a file read instead of ``/proc/cpuinfo`` (here and by the torch
dialect's capability, ``gradrepl/torch/_capability.py``): with a copy of this machine's cpuinfo
without its ``avx512*`` flags (``tests/data/cpuinfo_amd_avx2.txt``), and numpy's and MKL's own
switches, the whole suite runs as on an AVX2 machine (tests/test_cpu_avx2.py says how).
"""
from __future__ import annotations

import functools
import os
import platform

CLASSES = ("intel-avx512", "intel-avx2", "amd", "other")


def cpuinfo() -> tuple[str, set, int]:
    """(vendor, flags of the first processor, physical cores) from ``/proc/cpuinfo`` or the file
    ``GRADREPL_CPUINFO`` names; ("", set(), 0) where there is none."""
    path = os.environ.get("GRADREPL_CPUINFO") or "/proc/cpuinfo"
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            text = f.read()
    except OSError:
        return "", set(), 0
    vendor, flags, cores = "", set(), set()
    phys = None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "vendor_id" and not vendor:
            vendor = value.strip()
        elif key == "flags" and not flags:
            flags = set(value.split())
        elif key == "physical id":
            phys = value.strip()
        elif key == "core id":
            cores.add((phys, value.strip()))
    return vendor, flags, len(cores)


def _cpuinfo() -> tuple[str, set]:
    """(vendor, flags) as the libraries see them: the ``cpuid`` instruction's vendor and AVX
    features where it can be asked (``engine/_cpuid.py``; under a user-mode emulator such as
    ``qemu-x86_64 -cpu Haswell-v4`` they name the emulated CPU, /proc/cpuinfo the host), the
    other flags from /proc/cpuinfo; ``GRADREPL_CPUINFO``'s file alone where it is set."""
    vendor, flags, _ = cpuinfo()
    if os.environ.get("GRADREPL_CPUINFO"):
        return vendor, flags
    from . import _cpuid

    asked = _cpuid.query()
    if asked is None:
        return vendor, flags
    return asked[0], (flags - set(_cpuid.FEATURES)) | set(asked[1])


def emulated() -> bool:
    """Whether this process's CPU (``cpuid``) is not the machine /proc/cpuinfo describes: a
    user-mode emulator (qemu-user, TCG) runs it. Such an emulator computes the approximate
    instructions (``rsqrtps``, ``rcp14ps``) exactly, so the tables read from real silicon
    (``ops/_kernels.py``) do not describe it; the libraries still choose their kernels by
    ``cpuid``, which is what ``detected()`` reads."""
    if os.environ.get("GRADREPL_CPUINFO") or not x86():
        return False
    from . import _cpuid

    asked = _cpuid.query()
    if asked is None:
        return False
    vendor, flags, _ = cpuinfo()
    return (vendor, flags & set(_cpuid.FEATURES)) != (asked[0], set(asked[1]))


def x86() -> bool:
    """Whether the CPU described is an x86-64 one: this machine's, or the one a
    ``GRADREPL_CPUINFO`` file describes (a simulated machine is judged by its file alone; under
    qemu-user /proc/cpuinfo would describe the x86 host of an aarch64 Python)."""
    if os.environ.get("GRADREPL_CPUINFO"):
        vendor = cpuinfo()[0]
        return vendor in ("GenuineIntel", "AuthenticAMD", "HygonGenuine")
    return platform.machine().lower() in ("x86_64", "amd64")


@functools.lru_cache(maxsize=None)
def detected() -> str:
    """The class of the CPU this process runs on."""
    if not x86():
        return "other"
    vendor, flags = _cpuinfo()
    if vendor == "AuthenticAMD" or vendor == "HygonGenuine":
        return "amd"
    if vendor == "GenuineIntel":
        return "intel-avx512" if "avx512f" in flags else "intel-avx2"
    return "other"


def cpu_class() -> str:
    forced = os.environ.get("GRADREPL_CPU_CLASS")
    if forced in CLASSES:
        return forced
    return detected()


def fused_products() -> bool:
    """Whether Paddle's float32 matrix products fuse each multiply into the running sum here
    (Intel, and any CPU not measured: the rule of the first measurements); AMD adds the
    rounded products unfused."""
    return cpu_class() != "amd"


@functools.lru_cache(maxsize=None)
def _flag_avx512f() -> bool:
    return x86() and "avx512f" in _cpuinfo()[1]


def has_avx512f() -> bool:
    """Whether this CPU (its flags, ``GRADREPL_CPUINFO``'s file if set) has AVX-512F."""
    return _flag_avx512f()


def avx512f() -> bool:
    """Whether Paddle's JIT kernels that need AVX-512 run here (``phi/kernels/funcs/jit/gen``:
    Adam's and AdamW's ``CanBeUsed`` is ``MayIUse(avx512f)``; elsewhere Paddle takes the
    reference kernels, ``jit/refer``). A forced Intel class says it; else the CPU's flags (AMD
    has AVX-512 from Zen 4 on)."""
    forced = os.environ.get("GRADREPL_CPU_CLASS")
    if forced in ("intel-avx512", "intel-avx2", "other"):
        return forced == "intel-avx512"
    return _flag_avx512f()


def threads() -> int:
    """The frameworks' intra-op thread count here (torch's ``at::get_num_threads()``, the
    threads MKL is given): ``GRADREPL_TORCH_THREADS`` where set, else ``MKL_NUM_THREADS`` or
    ``OMP_NUM_THREADS`` (MKL's first, as ATen reads them) up to the cores (real torch 2.13 on 2
    cores: OMP_NUM_THREADS=3 gives 2), else the physical cores this process may run on.
    Reductions and MKL's products split their work between these threads, so their sums' order
    (last bits) follows it; the suite's records were made with 2 (``tests/conftest.py`` sets
    it)."""
    forced = os.environ.get("GRADREPL_TORCH_THREADS", "").strip()
    if forced.isdigit() and int(forced) > 0:
        return int(forced)
    for var in ("MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        forced = os.environ.get(var, "").strip()
        if forced.isdigit() and int(forced) > 0:
            return min(int(forced), cores())
    return cores()


def cores() -> int:
    """The physical cores this process may run on."""
    n = cpuinfo()[2] or os.cpu_count() or 1
    try:
        n = min(n, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        pass
    return max(n, 1)
