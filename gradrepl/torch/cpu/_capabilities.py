"""``torch.cpu.get_capabilities()``'s mapping, made from what gradrepl reads of the CPU
(``engine/cpu.py``: ``/proc/cpuinfo`` or ``GRADREPL_CPUINFO``'s file, with the AVX features
``cpuid`` gives this process; the caches from ``/sys``).

torch 2.13 fills it from its cpuinfo library (``torch._C._cpu._get_cpu_capability``); on x86-64
its keys come in the order of ``_X86_KEYS`` (a C++ unordered_map's order, printed by real torch
2.13 on this AMD EPYC machine). Each instruction-set key is read from the Linux flag the table
names; ``avx10_1`` and ``avx10_2`` have no flag in the kernels this was made on and read False
(cpuinfo asks ``cpuid`` leaf 0x24), as do the flags a kernel does not show. ``cpu_name`` is the
``model name`` with cpuinfo's simplest trims (Intel's "(R)"/"(TM)"/"CPU @ ...", AMD's
"N-Core Processor"), not its whole normalisation. On aarch64 the keys are cpuinfo's ARM ones
(``_ARM_KEYS``, the Linux ``Features`` names), not measured against real torch."""
from __future__ import annotations

import glob
import os
import platform
import re

from gradrepl.engine import cpu

# torch's key -> the /proc/cpuinfo flag (None: not shown there); in real torch 2.13's order
_X86_KEYS = (
    ("clflush", "clflush"), ("sha", "sha_ni"), ("aes", "aes"), ("lzcnt", "abm"),
    ("bmi2", "bmi2"), ("bmi", "bmi1"), ("fma3", "fma"), ("amx_fp16", "amx_fp16"),
    ("amx_tile", "amx_tile"), ("avx_vnni_int16", "avx_vnni_int16"),
    ("clflushopt", "clflushopt"), ("avx_vnni_int8", "avx_vnni_int8"), ("fma4", "fma4"),
    ("avx10_2", None), ("avx512_4vnniw", "avx512_4vnniw"),
    ("avx512_vp2intersect", "avx512_vp2intersect"), ("avx512_fp16", "avx512_fp16"),
    ("avx10_1", None), ("sse4_2", "sse4_2"), ("avx512_4fmaps", "avx512_4fmaps"), ("sse", "sse"),
    ("avx_ne_convert", "avx_ne_convert"), ("l1d_cache_size", "#l1d"),
    ("num_logical_cores", "#logical"), ("amx_int8", "amx_int8"), ("amx_bf16", "amx_bf16"),
    ("avx512_bw", "avx512bw"), ("sse2", "sse2"), ("l2_cache_size", "#l2"),
    ("num_sockets", "#sockets"), ("f16c", "f16c"), ("sse3", "pni"),
    ("num_physical_cores", "#physical"), ("avx2", "avx2"), ("cpu_name", "#name"),
    ("avx512_bf16", "avx512_bf16"), ("sse4_1", "sse4_1"), ("architecture", "#arch"),
    ("clwb", "clwb"), ("avx512_cd", "avx512cd"), ("sse4a", "sse4a"), ("popcnt", "popcnt"),
    ("avx_vnni", "avx_vnni"), ("avx", "avx"), ("avx512_vl", "avx512vl"), ("ssse3", "ssse3"),
    ("avx512_f", "avx512f"), ("avx512_dq", "avx512dq"), ("avx512_vbmi", "avx512vbmi"),
    ("avx512_ifma", "avx512ifma"), ("avx512_vpopcntdq", "avx512_vpopcntdq"),
    ("avx512_vbmi2", "avx512_vbmi2"), ("avx512_bitalg", "avx512_bitalg"),
    ("avx512_vnni", "avx512_vnni"),
)

_ARM_KEYS = (
    ("neon", "asimd"), ("fp16_arith", "asimdhp"), ("bf16", "bf16"), ("i8mm", "i8mm"),
    ("dot", "asimddp"), ("sve", "sve"), ("sve2", "sve2"), ("sve_bf16", "svebf16"),
    ("sme", "sme"), ("sme2", "sme2"), ("atomics", "atomics"), ("fhm", "asimdfhm"),
    ("rdm", "asimdrdm"), ("crc32", "crc32"), ("aes", "aes"), ("sha1", "sha1"), ("sha2", "sha2"),
    ("pmull", "pmull"), ("architecture", "#arch"),
)


def _read(path):
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _size(text):
    """``32K`` -> 32768 (sysfs cache sizes)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)\s*", text or "")
    if not m:
        return 0
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def _cache(level, kinds):
    for d in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        if _read(os.path.join(d, "level")).strip() == str(level) and \
                _read(os.path.join(d, "type")).strip() in kinds:
            return _size(_read(os.path.join(d, "size")))
    return 0


def _proc():
    """(model name, logical processors, sockets, physical cores) from the cpuinfo text."""
    path = os.environ.get("GRADREPL_CPUINFO") or "/proc/cpuinfo"
    text = _read(path)
    name, logical, sockets = "", 0, set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and not name:
            name = value.strip()
        elif key == "processor":
            logical += 1
        elif key == "physical id":
            sockets.add(value.strip())
    return name, logical or (os.cpu_count() or 1), max(len(sockets), 1), cpu.cpuinfo()[2]


def cpu_name(model):
    """cpuinfo's simplest trims of a brand string."""
    s = re.sub(r"\((R|TM|tm|r)\)", "", model)
    s = re.sub(r"\s+CPU\s+@.*$", "", s)
    s = re.sub(r"\s+@.*$", "", s)
    s = re.sub(r"\s+\d+-Core Processor\s*$", "", s)
    s = re.sub(r"\s+Processor\s*$", "", s)
    return " ".join(s.split())


def capabilities() -> dict:
    x86 = cpu.x86()
    vendor_flags = cpu._cpuinfo()[1] if x86 else cpu.cpuinfo()[1]
    name, logical, sockets, physical = _proc()
    special = {
        "#arch": "x86_64" if x86 else (platform.machine().lower() or "unknown"),
        "#l1d": _cache(1, ("Data", "Unified")), "#l2": _cache(2, ("Unified", "Data")),
        "#logical": logical, "#sockets": sockets, "#physical": physical or logical,
        "#name": cpu_name(name),
    }
    keys = _X86_KEYS if x86 else _ARM_KEYS
    return {key: (special[flag] if flag and flag.startswith("#") else
                  bool(flag) and flag in vendor_flags) for key, flag in keys}
