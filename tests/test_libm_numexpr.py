"""numexpr's loops over the C library's math functions: the same bits as one ctypes call an
element, for every function gradrepl routes through it, at any array size."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gradrepl.engine.ops import _glibc
from gradrepl.engine.ops import _kernels as K
from gradrepl.engine.ops import _libm_numexpr as L

pytest.importorskip("numexpr")
needs_libm = pytest.mark.skipif(K._LIBM is None, reason="no C library to compare with")


def _values(dtype, n=20_000, seed=7):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.standard_normal(n // 2) * 30, rng.random(n // 2) * 2])
    return x.astype(dtype)


@needs_libm
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(L.NE_NAMES))
def test_numexpr_function_equals_the_c_library_element_by_element(name, dtype):
    fn = L.function(K._LIBM, name, dtype)
    if fn is None:
        pytest.skip(f"{name} ({np.dtype(dtype)}): numexpr's result differs on the probe here")
    ref = L._reference(K._LIBM, name, np.dtype(dtype))
    x = _values(dtype)
    with np.errstate(all="ignore"):
        got, want = fn(x), ref(x)
    assert got.dtype == np.dtype(dtype) and got.shape == x.shape
    assert (got.view(np.uint8) == want.view(np.uint8)).all(), name


@needs_libm
def test_exp_and_log_are_used_and_agree_with_the_glibc_replay():
    for name, replay in (("exp", _glibc.expf), ("log", _glibc.logf)):
        fn = L.function(K._LIBM, name, np.float32)
        assert fn is not None, f"numexpr's {name} should pass the probe on glibc"
        x = _values(np.float32, 50_000, seed=3)
        if name == "log":
            x = np.abs(x)
        assert (fn(x).view(np.uint32) == replay(x).view(np.uint32)).all()


@needs_libm
def test_kernels_past_the_old_ctypes_limit_are_exact():
    """Beyond LIBM_LIMIT elements the kernels used float64 rounding (off by one ulp in rare
    elements); through numexpr every size is the C library's result."""
    x = _values(np.float32, 4096, seed=11)
    ref = L._reference(K._LIBM, "tan", np.dtype(np.float32))
    assert x.size > K.LIBM_LIMIT
    assert (K.tan(x).view(np.uint32) == ref(x).view(np.uint32)).all()


def test_shapes_strides_and_small_sizes():
    fn = L.function(K._LIBM, "exp", np.float32)
    if fn is None:
        pytest.skip("numexpr not usable here")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2] / 7
    out = K.exp(a)
    assert out.shape == (3, 2)
    assert (out.view(np.uint32) == _glibc.expf(np.ascontiguousarray(a)).view(np.uint32)).all()
    two = np.array([0.5, -0.25], np.float32)
    assert (K.log(np.abs(two)).view(np.uint32) == _glibc.logf(np.abs(two)).view(np.uint32)).all()


def _run(code, **env):
    import os
    e = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e,
                          check=True).stdout.split()


def test_switch_off_and_thread_count():
    code = ("import numpy as np, sys\n"
            "from gradrepl.engine.ops import _libm_numexpr as L, _kernels as K\n"
            "f = L.function(K._LIBM, 'exp', np.float32)\n"
            "x = np.linspace(0.01, 50, 3000).astype(np.float32)\n"
            "print(f is None, K.log(x).view(np.uint32).sum(dtype=np.uint64))\n"
            "print(sys.modules['numexpr'].get_num_threads() if 'numexpr' in sys.modules "
            "else 'none')\n")
    off = _run(code, GRADREPL_NO_NUMEXPR="1")
    on = _run(code)
    assert off[0] == "True" and off[2] == "none"    # never imported when switched off
    assert on[1] == off[1]                          # the same bits either way
    if on[0] == "False":
        assert on[2] == "1"                         # gradrepl imported it: one thread

