"""torch.cpu (issue 28): the device-agnostic module, get_capabilities, the deprecated
torch.cpu.amp wrappers. Literals recorded from real torch 2.13 (/work/vtorch) in this session on
the project's AMD EPYC (Zen 4, AVX-512, 2 cores)."""
from __future__ import annotations

import warnings

import pytest

import gradrepl.torch as torch
from gradrepl.torch.cpu import _capabilities

# real torch 2.13: dict(torch.cpu.get_capabilities()) on the AMD EPYC (in its order)
RECORDED_CAPS = {
    'clflush': True, 'sha': True, 'aes': True, 'lzcnt': True, 'bmi2': True, 'bmi': True,
    'fma3': True, 'amx_fp16': False, 'amx_tile': False, 'avx_vnni_int16': False,
    'clflushopt': True, 'avx_vnni_int8': False, 'fma4': False, 'avx10_2': False,
    'avx512_4vnniw': False, 'avx512_vp2intersect': False, 'avx512_fp16': False,
    'avx10_1': False, 'sse4_2': True, 'avx512_4fmaps': False, 'sse': True,
    'avx_ne_convert': False, 'l1d_cache_size': 32768, 'num_logical_cores': 2,
    'amx_int8': False, 'amx_bf16': False, 'avx512_bw': True, 'sse2': True,
    'l2_cache_size': 1048576, 'num_sockets': 1, 'f16c': True, 'sse3': True,
    'num_physical_cores': 2, 'avx2': True, 'cpu_name': 'AMD EPYC', 'avx512_bf16': True,
    'sse4_1': True, 'architecture': 'x86_64', 'clwb': True, 'avx512_cd': True, 'sse4a': True,
    'popcnt': True, 'avx_vnni': False, 'avx': True, 'avx512_vl': True, 'ssse3': True,
    'avx512_f': True, 'avx512_dq': True, 'avx512_vbmi': True, 'avx512_ifma': True,
    'avx512_vpopcntdq': True, 'avx512_vbmi2': True, 'avx512_bitalg': True, 'avx512_vnni': True}
_SYS_KEYS = ("l1d_cache_size", "l2_cache_size")   # read from /sys, not from the cpuinfo file


def test_device_functions_as_torch():
    # real torch 2.13: True 1 cpu True / None None None
    assert (torch.cpu.is_available(), torch.cpu.device_count(), torch.cpu.current_device(),
            torch.cpu.is_initialized()) == (True, 1, "cpu", True)
    assert (torch.cpu.set_device(0), torch.cpu.synchronize(), torch.cpu.synchronize("cpu")) \
        == (None, None, None)
    assert torch.cpu.__all__ == [
        'is_available', 'is_initialized', 'synchronize', 'current_device', 'current_stream',
        'stream', 'set_device', 'device_count', 'Stream', 'StreamContext', 'Event',
        'get_capabilities']


def test_streams_and_events():
    s = torch.cpu.Stream()
    assert repr(type(s)) == "<class 'torch.cpu.Stream'>"
    before = torch.cpu.current_stream()
    assert before is torch.cpu.current_stream() and before is not s
    with torch.cpu.stream(s) as r:
        assert r is None and torch.cpu.current_stream() is s
    assert torch.cpu.current_stream() is before
    ctx = torch.cpu.StreamContext(None)
    assert (ctx.__enter__(), ctx.__exit__(None, None, None)) == (None, None)
    assert torch.cpu.current_stream() is before
    e = torch.cpu.Event()
    assert (e.query(), e.record(), e.synchronize(), e.wait(), s.wait_stream(s),
            s.record_event(), s.wait_event(e)) == (True, None, None, None, None, None, None)


def test_capabilities_from_the_avx2_cpuinfo_file(monkeypatch):
    """The project's AMD EPYC without its avx512* flags (tests/data): torch's keys in torch's
    order, the recorded values with every AVX-512 one False (any machine)."""
    import pathlib

    path = pathlib.Path(__file__).parent / "data" / "cpuinfo_amd_avx2.txt"
    monkeypatch.setenv("GRADREPL_CPUINFO", str(path))
    caps = _capabilities.capabilities()
    assert list(caps) == list(RECORDED_CAPS)
    want = {k: (False if k.startswith("avx512") else v) for k, v in RECORDED_CAPS.items()}
    for k in _SYS_KEYS:
        caps.pop(k), want.pop(k)
    assert caps == want


def test_capabilities_on_the_recorded_machine():
    caps = torch.cpu.get_capabilities()
    assert type(caps).__name__ == "mappingproxy" and caps is torch.cpu.get_capabilities()
    with pytest.raises(TypeError):
        caps["avx2"] = False  # immutable, as torch's
    from gradrepl.engine import cpu

    vendor, flags, cores = cpu.cpuinfo()
    if not (cpu.x86() and not cpu.emulated() and vendor == "AuthenticAMD" and "avx512_bf16" in flags
            and cores == 2 and caps["cpu_name"] == "AMD EPYC"
            and caps["l2_cache_size"] == 1048576):
        reason = ("torch.cpu.get_capabilities: recorded on the project's 2-core AMD EPYC "
                  "(Zen 4); this CPU differs, values not compared")
        print(reason)
        pytest.skip(reason)
    assert dict(caps) == RECORDED_CAPS and list(caps) == list(RECORDED_CAPS)
    # real torch 2.13 here: True True True True False False
    assert (torch.cpu._is_avx2_supported(), torch.cpu._is_avx512_supported(),
            torch.cpu._is_avx512_bf16_supported(), torch.cpu._is_vnni_supported(),
            torch.cpu._is_amx_tile_supported(), torch.cpu._is_amx_fp16_supported()) == \
        (True, True, True, True, False, False)


def test_cpu_name_trims():
    assert _capabilities.cpu_name("AMD EPYC") == "AMD EPYC"
    assert _capabilities.cpu_name("AMD EPYC 7B13 64-Core Processor") == "AMD EPYC 7B13"
    assert _capabilities.cpu_name("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz") == \
        "Intel Xeon Gold 6248"


_AUTOCAST_MSG = ("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                 "`torch.amp.autocast('cpu', args...)` instead.")
_SCALER_MSG = ("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
               "`torch.amp.GradScaler('cpu', args...)` instead.")


def test_cpu_amp_autocast_warns_at_the_callers_line_and_is_bfloat16():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a = torch.cpu.amp.autocast(); line = __import__("inspect").currentframe().f_lineno  # noqa: E702
    assert [(x.category, str(x.message), x.filename, x.lineno) for x in w] == \
        [(FutureWarning, _AUTOCAST_MSG, __file__, line)]
    # real torch 2.13: torch.bfloat16 cpu True / True True
    assert (a.fast_dtype, a.device, a._enabled) == (torch.bfloat16, "cpu", True)
    assert isinstance(a, torch.amp.autocast)
    assert repr(torch.cpu.amp.autocast) == "<class 'torch.cpu.amp.autocast_mode.autocast'>"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.cpu.amp.autocast():
            x = torch.ones(2, 3) @ torch.ones(3, 2)
            # real torch 2.13: torch.bfloat16 True torch.bfloat16
            assert (x.dtype, torch.is_autocast_enabled("cpu"),
                    torch.get_autocast_dtype("cpu")) == (torch.bfloat16, True, torch.bfloat16)
        assert not torch.is_autocast_enabled("cpu")
        with torch.cpu.amp.autocast(dtype=torch.float16, enabled=False):
            assert not torch.is_autocast_enabled("cpu")


def test_cpu_amp_grad_scaler():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        g = torch.cpu.amp.GradScaler(); line = __import__("inspect").currentframe().f_lineno  # noqa: E702
    assert [(x.category, str(x.message), x.filename, x.lineno) for x in w] == \
        [(FutureWarning, _SCALER_MSG, __file__, line)]
    # real torch 2.13: 65536.0 True cpu / True
    assert (g.get_scale(), g.is_enabled(), g._device) == (65536.0, True, "cpu")
    assert isinstance(g, torch.amp.GradScaler)
