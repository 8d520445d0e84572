"""The fast paths of issue 29 (lecture loops at torch's speed) give the bits of the paths they
short-cut: the fused multiply-add's common case, torch's 2-D sums, the blocked sums by one numpy
reduction, the engine reading the torch dialect's array slot, MKL's small products and math on
one thread."""
from __future__ import annotations

import numpy as np
import pytest

from gradrepl.engine import registry
from gradrepl.engine.tensor import Tensor as EngineTensor
from gradrepl.torch import _kernels as K
from gradrepl.torch import _norm_kernels as NK


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


def _wide(rng, shape, lo, hi):
    return (rng.standard_normal(shape) * np.exp2(rng.integers(lo, hi, shape))).astype(np.float32)


def test_fma_fast_path_equals_the_repaired_one():
    rng = np.random.default_rng(29)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.17e-38, 3.4e38, 1.0],
                       np.float32)
    with np.errstate(all="ignore"):
        for t in range(60):
            a = np.concatenate([rng.choice(special, 20), _wide(rng, 200, -75, 20)])
            b = np.concatenate([rng.choice(special, 20), _wide(rng, 200, -75, 20)])
            c = np.concatenate([rng.choice(special, 20), _wide(rng, 200, -150, 20)])
            if t % 3 == 0:  # c cancelling the product: tiny and zero sums
                c = (-(a.astype(np.float64) * b)).astype(np.float32)
            for args in ((a, b, c), (a, np.float32(b[t]), c), (a, b, np.float32(c[t])),
                         (a.reshape(11, 20), b.reshape(11, 20), c.reshape(11, 20)[:, :1]),
                         (np.asarray(a[t]), np.asarray(b[t]), np.asarray(c[t]))):
                assert _bits(NK.fma(*args)) == _bits(NK._fma_repaired(*args))


def test_fma_fast_path_hands_ties_to_the_repair():
    # 1 + 2**-24 is a float32 tie: the double sum lands on it, the fused result must not
    a = np.full(5, 1 + 2 ** -12, np.float32)
    got = NK.fma(a, a, np.float32(-1))
    assert (got == np.float32(2 ** -11 + 2 ** -24)).all()
    a, b = np.float32(0.25 * (1 + 2 ** -15)), np.float32(0.25 * (1 - 2 ** -15))
    c = np.full(3, 2 ** 20 + 0.125, np.float32)
    assert (NK.fma(np.full(3, a), b, c) == np.float32(2 ** 20 + 0.125)).all()


@pytest.mark.parametrize("n", [2, 3, 5, 8, 16, 17, 32, 33, 64, 100, 257])
@pytest.mark.parametrize("m", [2, 7, 8, 9, 16, 27, 31, 33, 64, 200])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matrix_sums_equal_the_general_iterator(n, m, dtype):
    rng = np.random.default_rng(n * 1000 + m)
    a = _wide(rng, (n, m), -10, 10).astype(dtype)
    a[:, 0] = -0.0
    with np.errstate(all="ignore"):
        for axis in ((0,), (1,)):
            assert _bits(K.torch_sum(a, axis)) == _bits(K._iter_sum(a, axis))


@pytest.mark.parametrize("shape", [(2, 16, 192), (1, 16, 8), (3, 16, 40), (2, 32, 9)])
def test_block_sums_add_in_order(shape):
    rng = np.random.default_rng(3)
    full = _wide(rng, (shape[0], shape[1], shape[2] + 5), -12, 12)
    for blocks in (full[:, :, :shape[2]], np.ascontiguousarray(full[:, :, :shape[2]])):
        want = np.zeros((shape[0], shape[2]), np.float32)
        for k in range(shape[1]):  # the plain loop, value by value in order
            want = want + blocks[:, k]
        assert _bits(K._block_sums(blocks, blocks.dtype)) == _bits(want)


def test_apply_reads_the_array_slot_of_torch_tensors_only():
    import gradrepl.torch as torch

    class Odd(torch.Tensor):  # a subclass with its own .data goes through it
        @property
        def data(self):
            return np.zeros(1)

    assert registry._learn_class(torch.Tensor)
    assert registry._learn_class(torch.nn.Parameter)
    assert registry._learn_class(EngineTensor)
    assert not registry._learn_class(Odd)
    w = torch.nn.Parameter(torch.tensor([1.5, -2.0]))
    y = (w * torch.tensor([2.0, 3.0])).sum()
    y.backward()
    assert w.grad.tolist() == [2.0, 3.0]


_needs_mkl = pytest.mark.skipif(
    not __import__("gradrepl.engine.mkl", fromlist=["load"]).load(),
    reason="MKL (the exact extra) is not installed")


@_needs_mkl
@pytest.mark.parametrize("m,k,n", [(10, 32, 16), (7, 30, 27), (32, 30, 200), (200, 32, 27),
                                   (32, 200, 27), (5, 8, 200), (64, 20, 32)])
@pytest.mark.parametrize("tr", range(4))
def test_gemm_on_one_thread_keeps_the_threaded_bits(m, k, n, tr):
    from gradrepl.engine import mkl
    from gradrepl.torch import _gemm

    rng = np.random.default_rng(m * k * n + tr)
    a, b = _wide(rng, (m, k), -4, 4), _wide(rng, (k, n), -4, 4)
    if tr & 1:
        a = np.ascontiguousarray(a.T).T
    if tr & 2:
        b = np.ascontiguousarray(b.T).T
    got = _gemm.gemm(a, b)
    probe = _gemm._probe_one_thread
    try:  # every layout on MKL's threads, as torch runs it
        _gemm._probe_one_thread = lambda *args: False
        _gemm.forget_layouts()
        want = _gemm.gemm(a, b)
    finally:
        _gemm._probe_one_thread = probe
        _gemm.forget_layouts()
    assert mkl.THREADS >= 1
    assert _bits(got) == _bits(want)


@_needs_mkl
@pytest.mark.parametrize("name", ["exp", "tanh", "log"])
def test_vml_on_one_thread_keeps_the_bits(name):
    from gradrepl.engine import mkl
    from gradrepl.torch import _mkl

    f = _mkl.function(name)
    x = np.abs(np.random.default_rng(1).standard_normal(70000)).astype(np.float32) * 3
    whole = f(x)                      # above _ONE_THREAD: MKL's threads
    assert x.size >= _mkl._ONE_THREAD
    parts = np.concatenate([f(x[i:i + 5000]) for i in range(0, x.size, 5000)])  # one thread
    assert _bits(parts) == _bits(whole)
    assert mkl.load()


@_needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gemm_layout_met_again_gives_the_first_calls_bits(dtype):
    """A layout ``gemm`` met before is called from its cache (``_LAYOUTS``: the compiled
    ``blas_gemm`` where the native module is built, else ctypes): the same bits as the first
    call's full path (torch_layout, the probe, ctypes), char_mlp's six products and transposes."""
    from gradrepl.engine import _native
    from gradrepl.torch import _gemm

    rng = np.random.default_rng(29)
    for m, k, n in [(32, 30, 200), (32, 200, 27), (32, 27, 200), (200, 32, 27), (7, 5, 3)]:
        for tr in range(4):
            a, b = _wide(rng, (m, k), -4, 4).astype(dtype), _wide(rng, (k, n), -4, 4).astype(dtype)
            if tr & 1:
                a = np.ascontiguousarray(a.T).T
            if tr & 2:
                b = np.ascontiguousarray(b.T).T
            _gemm.forget_layouts()
            first = _gemm.gemm(a, b)
            known = _gemm._LAYOUTS[(a.shape, b.shape, a.strides, b.strides, a.dtype, b.dtype)]
            assert (known[-1] is not None) == hasattr(_native.lib, "blas_gemm")
            again = _gemm.gemm(a, b)
            assert _bits(again) == _bits(first)
    _gemm.forget_layouts()
