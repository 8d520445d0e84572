"""The x86 ``cpuid`` instruction, asked from Python: what this process's CPU says it is.

``/proc/cpuinfo`` is the kernel's description of the machine. A process run by a user-mode
emulator (``qemu-x86_64 -cpu Haswell-v4 python ...``) sees another CPU: ``cpuid`` answers with the
emulated model (vendor GenuineIntel, AVX2, no AVX-512), and MKL, numpy and the frameworks choose
their kernels by that answer, while ``/proc/cpuinfo`` still describes the host. The CPU class of
``engine/cpu.py`` must be the one the libraries see, so it asks ``cpuid`` here.

The instruction runs from 27 bytes of machine code (x86-64 System V calling convention:
``void f(uint32 leaf, uint32 subleaf, uint32 out[4])``), mapped executable with ``mmap``. Where
that cannot be done (another OS or architecture, a kernel or sandbox refusing executable
mappings), ``query`` returns None and the caller keeps ``/proc/cpuinfo``.
"""
from __future__ import annotations

import functools
import platform
import sys

# push rbx; mov r8, rdx; mov eax, edi; mov ecx, esi; cpuid;
# mov [r8], eax; mov [r8+4], ebx; mov [r8+8], ecx; mov [r8+12], edx; pop rbx; ret
_CODE = bytes.fromhex("53" "4989d0" "89f8" "89f1" "0fa2"
                      "418900" "41895804" "41894808" "4189500c" "5b" "c3")
# at offset 32: uint64 xgetbv(uint32 index): mov ecx, edi; xgetbv; shl rdx, 32; or rax, rdx; ret
_XGETBV = bytes.fromhex("89f9" "0f01d0" "48c1e220" "4809d0" "c3")

# (leaf, subleaf, register index in eax/ebx/ecx/edx, bit) of the features the CPU rules ask for,
# named as /proc/cpuinfo names them
FEATURES = {
    "fma": (1, 0, 2, 12),
    "avx": (1, 0, 2, 28),
    "avx2": (7, 0, 1, 5),
    "avx512f": (7, 0, 1, 16),
    "avx512dq": (7, 0, 1, 17),
    "avx512bw": (7, 0, 1, 30),
    "avx512vl": (7, 0, 1, 31),
}


def _runner():
    import ctypes
    import mmap

    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(_CODE)
    page.seek(32)
    page.write(_XGETBV)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(page))
    fn = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint32,
                          ctypes.POINTER(ctypes.c_uint32))(addr)
    xgetbv = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint32)(addr + 32)

    def cpuid(leaf: int, subleaf: int = 0) -> tuple[int, int, int, int]:
        out = (ctypes.c_uint32 * 4)()
        fn(leaf, subleaf, out)
        return tuple(out)

    cpuid.xgetbv = xgetbv
    cpuid.page = page          # keep the mapping alive as long as the functions
    return cpuid


@functools.lru_cache(maxsize=None)
def query() -> tuple[str, frozenset] | None:
    """(vendor, features) as ``cpuid`` gives them to this process, features named as in
    ``/proc/cpuinfo`` (only those of ``FEATURES``); None where ``cpuid`` cannot be asked."""
    if platform.machine().lower() not in ("x86_64", "amd64") or sys.platform == "win32":
        return None
    try:
        cpuid = _runner()
        top, b, c, d = cpuid(0)
        vendor = b"".join(r.to_bytes(4, "little") for r in (b, d, c)).decode("ascii", "replace")
        regs = {1: cpuid(1), 7: cpuid(7) if top >= 7 else (0, 0, 0, 0)}
        # the register state the OS saves (XCR0), as the libraries check it before using AVX:
        # bits 1-2 (SSE, AVX), 5-7 (AVX-512's opmask and upper registers); OSXSAVE first
        xcr0 = cpuid.xgetbv(0) if regs[1][2] >> 27 & 1 else 0
    except Exception:          # no executable mapping here (SELinux execmem, a sandbox, ...)
        return None
    flags = {name for name, (leaf, _, reg, bit) in FEATURES.items() if regs[leaf][reg] >> bit & 1}
    if xcr0 & 0x6 != 0x6:
        flags = set()
    elif xcr0 & 0xE0 != 0xE0:
        flags = {f for f in flags if not f.startswith("avx512")}
    return vendor, frozenset(flags)
