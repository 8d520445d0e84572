"""glibc's expf/logf replayed in numpy (engine/ops/_glibc.py) against the C library itself."""
import ctypes
import ctypes.util

import numpy as np
import pytest

from gradrepl.engine.ops import _glibc, _kernels

_NAME = ctypes.util.find_library("m")
_LIBM = ctypes.CDLL(_NAME) if _NAME else None


def _glibc_version():
    try:
        fn = ctypes.CDLL("libc.so.6").gnu_get_libc_version
    except (OSError, AttributeError):
        return (0,)
    fn.restype = ctypes.c_char_p
    return tuple(int(p) for p in fn().decode().split(".")[:2])


_GLIBC = _LIBM is not None and _glibc_version() >= (2, 28)  # expf/logf of this design


def _c(name):
    f = getattr(_LIBM, name)
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    return np.frompyfunc(f, 1, 1)


def _samples():
    rng = np.random.default_rng(2026)
    bits = rng.integers(0, 2**32, 300_000, dtype=np.uint64).astype(np.uint32)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40,
                        88.72283, 88.72284, -103.97208, -103.97209, -87.33655, 3.4e38], np.float32)
    return np.concatenate([bits.view(np.float32), special,
                           rng.uniform(-110, 90, 200_000).astype(np.float32),
                           np.exp(rng.uniform(-87, 88, 200_000)).astype(np.float32)])


def _same(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


@pytest.mark.skipif(not _GLIBC, reason="needs glibc's libm to compare with")
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["expf", "logf"])
def test_replay_equals_the_c_library(name):
    x = _samples()
    want = np.asarray(_c(name)(x), np.float32)
    got = getattr(_glibc, name)(x)
    bad = ~_same(want, got)
    assert not bad.any(), (x[bad][:5], want[bad][:5], got[bad][:5])


@pytest.mark.skipif(not _GLIBC, reason="needs glibc's libm to compare with")
@pytest.mark.parametrize("name", ["expf", "logf"])
def test_replay_of_ordinary_values_equals_the_c_library(name):
    """Arrays without a special value take the short path (no zero, subnormal, negative, inf
    or nan for logf; nothing past +-87 for expf)."""
    x = _samples()
    with np.errstate(all="ignore"):
        if name == "logf":
            x = x[np.isfinite(x) & (x >= np.finfo(np.float32).tiny)]
        else:
            x = x[np.abs(x) <= 87]
    assert x.size > 300_000
    want = np.asarray(_c(name)(x), np.float32)
    assert _same(want, getattr(_glibc, name)(x)).all()
    for part, w in zip(np.array_split(x, 7), np.array_split(want, 7)):
        assert _same(w, getattr(_glibc, name)(part)).all()


def test_differs_from_correct_rounding_where_glibc_does():
    # glibc's logf is not correctly rounded: some results are one ulp off the float64 log,
    # and the replay keeps those (a float64 log rounded to float32 would not)
    x = np.random.default_rng(0).uniform(0.1, 10, 100_000).astype(np.float32)
    rounded = np.log(x.astype(np.float64)).astype(np.float32)
    assert 50 < (~_same(_glibc.logf(x), rounded)).sum() < 1000


def test_kernels_use_the_replay_past_the_threshold_and_keep_shape():
    x = np.linspace(0.5, 3.0, 2 * 3 * 40, dtype=np.float32).reshape(2, 3, 40)
    assert x.size > _kernels.VECTOR_MIN
    out = _kernels.libm("log", np.log)(x)
    assert out.shape == x.shape and out.dtype == np.float32
    small = x.reshape(-1)[:10]  # below the threshold: the C library element by element
    assert _same(_kernels.libm("log", np.log)(small), _glibc.logf(small)).all()
