"""``optimizer.fma.axpy``: numpy's own OpenBLAS ``saxpy`` stands in for the float64 fused
multiply-add only where it gives the same bits."""
import ctypes
import glob
import os

import numpy as np
import pytest

from gradrepl.paddle.optimizer import fma


def _numpy_ships_openblas():
    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    return bool(glob.glob(os.path.join(libs, "libscipy_openblas*.so*")))


@pytest.mark.skipif(not _numpy_ships_openblas(), reason="numpy without its bundled OpenBLAS")
def test_the_bundled_blas_is_found_and_fuses():
    saxpy = fma._numpy_openblas()
    assert saxpy is not None
    if not fma._fuses(saxpy):
        lib = fma._numpy_openblas_lib()
        get = getattr(lib, "scipy_openblas_get_corename64_", None) or \
            getattr(lib, "scipy_openblas_get_corename", None)
        core = ""
        if get is not None:
            get.restype = ctypes.c_char_p
            core = get().decode()
        reason = (f"numpy's OpenBLAS runs its {core or 'other'} kernels on this CPU (AVX2: no "
                  "AVX-512), whose saxpy rounds the product: gradrepl keeps its own fused form "
                  "(test_axpy_gives_the_float64_formulas_bits)")
        print(reason)
        pytest.skip(reason)
    assert fma.blas_saxpy() is not None


@pytest.mark.parametrize("n", list(range(1, 70)) + [1000, 4097, 65539, 200704])
def test_axpy_gives_the_float64_formulas_bits(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3, n)).astype(np.float32)
    for alpha in (np.float32(-0.1), np.float32(0.9), np.float32(-1e-3)):
        want = y.copy()
        fma.axpy_reference(alpha, x, want)
        got = y.copy()
        fma.axpy(alpha, x, got)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_one_rounding_not_two():
    """On this probe ``y - f32(0.1*x)`` (two roundings) differs from the fused result."""
    alpha, x, y = fma._probe_values()
    got = y.copy()
    fma.axpy(alpha, x, got)
    assert not np.array_equal(got, y + np.float32(alpha * x))
    wide = (x.astype(np.float64) * np.float64(alpha) + y).astype(np.float32)
    assert np.array_equal(got, wide)


def test_x_may_be_y():
    """AdamW's decay ``p = fma(-decay, p, p)`` passes the parameter twice."""
    p = np.random.default_rng(1).standard_normal(5000).astype(np.float32)
    want = p.copy()
    fma.axpy_reference(np.float32(-0.01), want.copy(), want)
    fma.axpy(np.float32(-0.01), p, p)
    assert np.array_equal(p, want)


def test_without_blas_the_reference_runs(monkeypatch):
    monkeypatch.setattr(fma, "_SAXPY", None)
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(77).astype(np.float32), rng.standard_normal(77).astype(np.float32)
    want = y.copy()
    fma.axpy_reference(np.float32(0.5), x, want)
    fma.axpy(0.5, x, y)
    assert np.array_equal(y, want)


def test_a_blas_that_does_not_fuse_is_refused():
    def unfused_saxpy(n, alpha, xp, incx, yp, incy):
        import ctypes

        buf = (ctypes.c_float * n)
        x = np.frombuffer(buf.from_address(xp), np.float32)
        y = np.frombuffer(buf.from_address(yp), np.float32)
        y[:] = y + np.float32(np.float32(alpha) * x)

    assert not fma._fuses(unfused_saxpy)


def test_mismatched_arrays_are_an_error():
    if fma.blas_saxpy() is None:
        pytest.skip("no BLAS: the reference broadcasts like numpy")
    with pytest.raises(ValueError, match="axpy"):
        fma.axpy(1.0, np.ones(3, np.float32), np.ones(4, np.float32))


def _blas_threads():
    import ctypes

    lib = fma._numpy_openblas_lib()
    fn = getattr(lib, "scipy_openblas_get_num_threads64_", None) if lib is not None else None
    if fn is None:
        pytest.skip("no OpenBLAS thread count to read")
    fn.restype = ctypes.c_int
    return fn()


def test_one_blas_thread_restores_the_process_wide_count():
    before = _blas_threads()
    with fma.one_blas_thread():
        inside = _blas_threads()
    assert _blas_threads() == before
    assert fma.blas_saxpy() is None or inside == 1


def test_sgd_and_adam_leave_the_blas_thread_count_alone(monkeypatch):
    """An update that runs on the optimizer's worker threads must not leave every later matmul
    on one thread (OpenBLAS's per-thread setter is process-wide)."""
    from gradrepl.paddle.optimizer import kernels
    from gradrepl.paddle.optimizer.adam import adam_step_sizes

    monkeypatch.setattr(kernels, "BLOCK", 1024)  # several parts over the pool's workers
    before = _blas_threads()
    dt = np.float32
    n = 64 * 1024
    rng = np.random.default_rng(0)
    p, g = rng.standard_normal(n).astype(dt), rng.standard_normal(n).astype(dt)
    m, v = np.zeros(n, dt), np.zeros(n, dt)
    neg_lr, eps_t = adam_step_sizes(np.asarray(0.001, dt), np.asarray(0.9, dt),
                                    np.asarray(0.999, dt), 1e-8, dt)
    kernels.adam_update(p, g, m, v, kernels.AdamConstants(dt, 0.9, 0.999, neg_lr, eps_t))
    kernels.sgd_update(p, g, np.float32(0.1))
    assert _blas_threads() == before


def test_the_reference_in_blocks_equals_the_whole_array_formula():
    rng = np.random.default_rng(9)
    n = 3 * fma._BLOCK + 17
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    want = (x.astype(np.float64) * np.float64(np.float32(-0.1)) + y).astype(np.float32)
    fma.axpy_reference(np.float32(-0.1), x, y)
    assert np.array_equal(y.view(np.uint32), want.view(np.uint32))
