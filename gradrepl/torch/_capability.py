"""Which of torch's CPU kernel builds real torch would run here, and with how many threads.

torch compiles its vectorised CPU kernels (``aten/src/ATen/native/cpu/*``) several times and
picks one build at start-up (``ATen/native/DispatchStub.cpp``, ``torch.backends.cpu.
get_cpu_capability()``): ``AVX512`` on a CPU with avx512f, avx512bw, avx512vl and avx512dq,
``AVX2`` on one with avx2 and fma, ``DEFAULT`` otherwise. The build decides how many values one
``Vectorized<float>`` holds (16 floats / 8 doubles with AVX512, 8 / 4 in the other two), hence
the order of the additions of a sum, a norm, ... and which values go through a vector block or
the scalar tail, and whether ``a * b + c`` is fused (the AVX2/AVX512 builds are compiled with
FMA): the last bits of torch's results depend on it. Most kernels (``REGISTER_DISPATCH``) have no
AVX512 build and run their AVX2 build on an AVX512 CPU (``lanes``).

``GRADREPL_TORCH_CAPABILITY`` (``avx512``, ``avx2``, ``default``) overrides the detection, as
``ATEN_CPU_CAPABILITY`` does for real torch (which gradrepl also honours: a script run with
``ATEN_CPU_CAPABILITY=avx2`` prints what real torch prints under it). Tests use the override to
check each build's rule on any machine.

``threads()`` is torch's ``at::get_num_threads()`` (the physical cores; override
``GRADREPL_TORCH_THREADS``): reductions of 32768 values or more are split between the threads.
"""
from __future__ import annotations

import functools
import os

from gradrepl.engine import cpu

CAPABILITIES = ("DEFAULT", "AVX2", "AVX512")


def _cpuinfo():
    _, _, cores = cpu.cpuinfo()         # /proc/cpuinfo, or GRADREPL_CPUINFO's file
    return cpu._cpuinfo()[1], cores     # the flags cpuid gives this process (as torch's cpuinfo)


@functools.lru_cache(maxsize=None)
def detected() -> str:
    """The capability torch would pick on this CPU."""
    if not cpu.x86():
        return "DEFAULT"
    flags, _ = _cpuinfo()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"


def _env_reader():
    """``get(name)``: ``os.environ.get(name, "")`` without its KeyError for a variable that is
    not set (the kernels ask several times an op; the raise and catch cost ~3k instructions),
    reading the mapping os.environ keeps (it sees every change made through os.environ)."""
    env = os.environ
    data, encode, decode = (getattr(env, "_data", None), getattr(env, "encodekey", None),
                            getattr(env, "decodevalue", None))
    if data is None or encode is None or decode is None:
        return lambda name: env.get(name, "")
    keys = {}

    def get(name):
        key = keys.get(name)
        if key is None:
            key = keys[name] = encode(name)
        v = data.get(key)
        return "" if v is None else decode(v)
    return get


_getenv = _env_reader()


def capability() -> str:
    """``AVX512``, ``AVX2`` or ``DEFAULT``: the override, else the detected one (an override
    asking for more than the CPU has is honoured too: the kernels here are emulated)."""
    for var in ("GRADREPL_TORCH_CAPABILITY", "ATEN_CPU_CAPABILITY"):
        forced = _getenv(var).strip().upper()
        if forced in CAPABILITIES:
            return forced
    return detected()


def lanes(dtype, avx512_kernel=False) -> int:
    """Values of one ``Vectorized<T>`` for a numpy dtype in the kernel torch runs here: a
    kernel registered with ``REGISTER_DISPATCH`` has no AVX512 build (DispatchStub.h registers
    nullptr for it and torch falls back to the AVX2 build), so its vectors are 32 bytes on every
    capability (DEFAULT's generic ``Vectorized`` is 32 bytes too); only the kernels registered
    with ``ALSO_REGISTER_AVX512_DISPATCH`` (softmax, some unary functions, ...) run 64-byte
    vectors under AVX512."""
    width = 64 if avx512_kernel and capability() == "AVX512" else 32
    return width // max(int(getattr(dtype, "itemsize", 4)), 1)


def fused() -> bool:
    """Whether the kernel builds torch runs here contract ``a * b + c`` into one fused
    multiply-add (the AVX2 and AVX512 builds are compiled with -mfma; x86-64's DEFAULT is not).
    torch's aarch64 build (DEFAULT, its only one) is compiled with contraction, as GCC does by
    default there: real torch 2.9.1 on aarch64 printed the fused addcmul, addcdiv, linspace,
    float64 uniform_ and normal_ bits of the x86-64 AVX512 build (qemu-user, measured). A
    ``GRADREPL_TORCH_CAPABILITY`` override stands for x86-64's builds."""
    cap = capability()
    if cap != "DEFAULT":
        return True
    return not cpu.x86() and not _getenv("GRADREPL_TORCH_CAPABILITY").strip()


@functools.lru_cache(maxsize=None)
def _detected_threads() -> int:
    return cpu.cores()


def threads() -> int:
    """torch's intra-op thread count: ``GRADREPL_TORCH_THREADS`` (tests), else
    ``MKL_NUM_THREADS`` or ``OMP_NUM_THREADS`` (MKL's first, as ATen reads them) but not more
    than the cores found (real torch 2.13 on 2 cores: OMP_NUM_THREADS=3 or 8 gives 2 threads,
    OMP_NUM_THREADS=2 with MKL_NUM_THREADS=1 gives 1), else the cores found."""
    forced = _getenv("GRADREPL_TORCH_THREADS").strip()
    if forced.isdigit() and int(forced) > 0:
        return int(forced)
    for var in ("MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        forced = _getenv(var).strip()
        if forced.isdigit() and int(forced) > 0:
            return min(int(forced), _detected_threads())
    return _detected_threads()
