"""gradrepl's optional native kernels (``gradrepl/engine/_cnative.c``, loaded by
``gradrepl/engine/_native.py``): built wherever a C compiler is found (so that a broken build
cannot hide behind the numpy fallback), and equal to the numpy replays they stand for, bit for
bit, on many inputs: every special value, subnormals, strided sweeps of all float32 bit patterns,
random patterns, and softmax-like rows of many lengths under both of torch's lane widths. The
replays themselves are what tests/test_torch_softmax_bits.py checks against real torch's bits;
here each native kernel is checked against its replay (``monkeypatch`` of ``_NATIVE`` to None
runs the replay, as an install without a compiler does)."""
from __future__ import annotations

import os
import shutil
import sysconfig

import numpy as np
import pytest

from gradrepl.engine import _native
from gradrepl.torch import _softmax_kernels as K

F32 = np.float32
U32 = np.uint32


def _compiler():
    """The C compiler setup.py's build would use, if one is on PATH (and Python's headers)."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
    return shutil.which(cc) if headers else None


def test_the_native_kernels_were_built_where_a_compiler_is():
    if os.environ.get("GRADREPL_NATIVE", "").strip() == "0":
        pytest.skip("GRADREPL_NATIVE=0: the native kernels are switched off in this run")
    if not _compiler():
        pytest.skip("no C compiler or Python headers here: the install runs the numpy replays")
    assert _native.AVAILABLE, (
        f"a C compiler is here but the native kernels are {_native.why_not}: reinstall "
        "(pip install -e .) to build gradrepl/engine/_cnative.c, and read its build log")
    assert K._NATIVE is _native.lib
    assert _native.lib.variant() in ("generic", "fma")


needs_native = pytest.mark.skipif(not _native.AVAILABLE,
                                  reason=f"native kernels {_native.why_not}")


def _variants():
    """the float32 kernels' builds this CPU runs: plain C, and the FMA/SSE4.1 one on x86-64"""
    if not _native.AVAILABLE:
        return ["generic"]
    found = []
    before = _native.lib.variant()
    for name in ("generic", "fma"):
        try:
            _native.lib.variant(name)
            found.append(name)
        except ValueError:
            pass
    _native.lib.variant(before)
    return found


@pytest.fixture(params=_variants())
def variant(request):
    before = _native.lib.variant(request.param)
    yield request.param
    _native.lib.variant(before)


def _bits(a):
    return np.asarray(a, F32).view(U32).tobytes()


def _specials():
    """zeros, infinities, nans (signs and payloads), the smallest and largest subnormals and
    normals, ones, the limits of exp's range and their neighbours."""
    v = [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 2.0 ** -126, 2.0 ** -149, 3.4028235e38,
         -3.4028235e38, 100.0, -104.0, 88.72, -87.34, 89.0, -103.97, 0.34657, -0.34657]
    bits = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FA00123, 0x007FFFFF, 0x807FFFFF,
            0x00000001, 0x80000001, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF]
    a = np.concatenate([np.array(v, F32), np.array(bits, U32).view(F32)])
    with np.errstate(all="ignore"):
        near = np.concatenate([np.nextafter(a, F32(np.inf)), np.nextafter(a, F32(-np.inf))])
    return np.concatenate([a, near[np.isfinite(near)]]).astype(F32)


def _sweep(stride):
    """every stride-th float32 bit pattern (all of them when stride is 1), in chunks"""
    step = stride << 18
    for start in range(0, 1 << 32, step):
        yield np.arange(start, min(start + step, 1 << 32), stride, dtype=np.uint64) \
            .astype(U32).view(F32)


def _random_patterns(n, seed):
    return np.random.default_rng(seed).integers(0, 1 << 32, n, dtype=np.uint64) \
        .astype(U32).view(F32)


@needs_native
def test_vexp_native_equals_the_replay_on_every_kind_of_input(variant):
    inputs = [_specials(), _random_patterns(1 << 18, 1),
              np.random.default_rng(2).uniform(-110, 0, 1 << 18).astype(F32),   # softmax's range
              np.random.default_rng(3).uniform(-1, 1, 1 << 16).astype(F32) * F32(1e-30)]
    inputs += list(_sweep(4099))    # 1,048,000 patterns: every binade, both signs, nans
    for d in inputs:
        assert _bits(K.vexp(d)) == _bits(K._vexp_replay(d))
    for shape in ((), (3, 0), (2, 3, 5)):   # shapes, and a non-contiguous input
        d = np.random.default_rng(4).uniform(-9, 9, shape).astype(F32)
        assert K.vexp(d).shape == shape and _bits(K.vexp(d)) == _bits(K._vexp_replay(d))
    d = np.random.default_rng(5).uniform(-9, 9, (6, 8)).astype(F32)[:, ::3]
    assert _bits(K.vexp(d)) == _bits(K._vexp_replay(np.ascontiguousarray(d)))


@needs_native
def test_vlog_native_equals_the_replay_on_every_kind_of_input(variant):
    inputs = [_specials(), _random_patterns(1 << 18, 6),
              np.random.default_rng(7).uniform(1, 64, 1 << 18).astype(F32)]   # softmax sums
    inputs += list(_sweep(4099))
    for d in inputs:
        assert _bits(K.vlog(d)) == _bits(K._vlog_replay(d))
    # the native kernel computes positive finite values below 2**127 and leaves the others
    # (zeros, negatives, infinities, nans, the top binade) to the replay
    out = np.empty(4, F32)
    assert _native.lib.logf_u10(np.array([1, 2, 3, 2.0 ** -149], F32), out) == 0
    for odd in (0.0, -0.0, -1.0, np.inf, np.nan, 2.0 ** 127):
        assert _native.lib.logf_u10(np.array([1, 2, odd, 3], F32), out) == 1


def _rows_cases():
    """(name, rows) of float32 rows of many lengths: softmax inputs as training makes them,
    large and tiny logits, -inf (masks), zeros of both signs, and rows with a nan or +inf
    (which the native kernels leave to the replay)."""
    rng = np.random.default_rng(29)
    for n in list(range(1, 40)) + [47, 64, 65, 100, 127, 1000]:
        yield f"normal{n}", (rng.standard_normal((5, n)) * 3).astype(F32)
        yield f"wide{n}", rng.uniform(-120, 120, (3, n)).astype(F32)
    x = rng.standard_normal((4, 27)).astype(F32)
    x[0, 3] = x[1, :5] = -np.inf
    x[2, 0], x[2, 1] = 0.0, -0.0
    x[3, :] = -0.0
    yield "masked", x
    y = rng.standard_normal((3, 20)).astype(F32)
    y[1, 7] = np.nan
    yield "nan", y
    z = rng.standard_normal((3, 20)).astype(F32)
    z[2, 4] = np.inf
    yield "inf", z
    yield "subnormal", (rng.standard_normal((2, 33)) * 1e-39).astype(F32)


@needs_native
@pytest.mark.parametrize("capability", ["AVX512", "AVX2"])
def test_softmax_kernels_native_equal_the_replays(capability, variant, monkeypatch):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", capability)   # 16 or 8 float lanes
    rng = np.random.default_rng(11)
    for name, x in _rows_cases():
        g = rng.standard_normal(x.shape).astype(F32)
        out = np.empty_like(x)   # (the native kernel computes these rows itself, or leaves them)
        assert _native.lib.log_softmax_f32(x, out, x.shape[1], K._lanes()) == (name in ("nan", "inf"))
        got = {}
        for native in (True, False):
            if not native:
                monkeypatch.setattr(K, "_NATIVE", None)
            y = K.log_softmax(x, 1)
            s = K.softmax(x, 1)
            got[native] = [_bits(v) for v in (
                y, s, K.log_softmax_backward(y, g, 1), K.softmax_backward(s, g, 1),
                K.log_softmax(x.T, 0), K.softmax_backward(s.T, g.T, 0))]
            monkeypatch.undo()
            monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", capability)
        assert got[True] == got[False], name


@needs_native
def test_scatter_add_rows_native_equals_np_add_at():
    # the gradient of x[idx] (an embedding's lookup, C[X[ix]]): zeros with g added at idx,
    # each position's contributions in index order, as np.add.at adds them
    from gradrepl.engine.ops import index as IX

    rng = np.random.default_rng(3)
    cases = [((27, 10), (32, 3)), ((27,), (32,)), ((5, 2, 3), (40,)), ((4, 7), (0,)),
             ((1, 5), (9, 2)), ((100, 16), (1000,))]
    for dtype in (np.float32, np.float64):
        for shape, ishape in cases:
            idx = rng.integers(-shape[0], shape[0], ishape)       # repeats, negatives
            for scale in (1.0, 1e-40, 1e30):                      # (subnormals, overflow)
                g = (rng.standard_normal(ishape + shape[1:]) * scale).astype(dtype)
                g.reshape(-1)[::7] = -0.0
                want = np.zeros(shape, dtype)
                np.add.at(want, (idx,), g)
                out = np.zeros(shape, dtype)
                assert _native.lib.add_rows(out, idx.reshape(-1), g) == 0
                assert out.tobytes() == want.tobytes(), (dtype, shape, ishape, scale)
                assert IX._zeros_add_at(g, shape, (idx,)).tobytes() == want.tobytes()
    # an index out of range or a nan: left to np.add.at (its IndexError; its nan payloads)
    out = np.zeros((3, 2), F32)
    assert _native.lib.add_rows(out, np.array([0, 3]), np.ones((2, 2), F32)) == 1
    assert _native.lib.add_rows(out, np.array([0, 1]), np.full((2, 2), np.nan, F32)) == 1
    assert not out.any()
    with pytest.raises(IndexError):
        IX._zeros_add_at(np.ones((2, 2), F32), (3, 2), (np.array([0, 3]),))


@needs_native
def test_nll_loss_reduction_native_equals_the_replay(monkeypatch):
    # mean and sum of nll_loss (torch's cascade of partial sums, the weights' own cascade for a
    # weighted mean), float32 and float64, ignored positions, past 16 and 256 rows
    from gradrepl.torch.nn import _softmax_ops as SO

    rng = np.random.default_rng(17)
    cases = []
    for dtype in (np.float32, np.float64):
        for rows in (1, 2, 15, 16, 17, 33, 255, 256, 257, 600):
            C = int(rng.integers(1, 30))
            x = (rng.standard_normal((rows, C)) * 4).astype(dtype)
            t = rng.integers(0, C, rows)
            ones = np.ones(C, dtype)
            w = rng.uniform(0, 2, C).astype(dtype)
            ign = t.copy()
            ign[::3] = -100
            cases += [(x, t, ones, -100), (x, t, w, -100), (x, ign, ones, -100),
                      (x, ign, w, -100), (x, t, ones, int(t[0]))]
        x1 = rng.standard_normal(7).astype(dtype)
        cases += [(x1, np.array(3), np.ones(7, dtype), -100)]
        bad = rng.standard_normal((4, 5)).astype(dtype)
        bad[2, 1] = np.nan
        cases += [(bad, np.array([0, 1, 1, 2]), np.ones(5, dtype), -100),   # (replay: nan)
                  (bad, np.full(4, -100), np.ones(5, dtype), -100)]        # (all ignored)
    for x, t, w, ignore in cases:
        for red in ("mean", "sum"):
            with np.errstate(all="ignore"):   # (all ignored: 0 / 0, nan, in the replay)
                got = SO._nll_fwd(x, t, w, ignore, red)
            with monkeypatch.context() as m, np.errstate(all="ignore"):
                m.setattr(K, "_NATIVE", None)
                want = SO._nll_fwd(x, t, w, ignore, red)
            assert got.dtype == want.dtype and got.shape == want.shape == ()
            assert got.tobytes() == want.tobytes(), (x.shape, red, ignore)
    x = np.ones((3, 4), F32)
    assert _native.lib.nll_reduce(x, np.array([0, 1, 2]), np.ones(4, F32), -100, True) == -1.0
    assert _native.lib.nll_reduce(x, np.array([0, 1, 9]), np.ones(4, F32), -100, True) is None


@needs_native
def test_cross_entropy_gradients_native_equal_the_replays(monkeypatch):
    # F.cross_entropy / F.nll_loss forward and backward in the torch dialect, the native
    # kernels (log_softmax, nll_loss's sums and gradient) against the numpy replays
    from gradrepl.importhook import torch_modules

    with torch_modules():
        import torch
        import torch.nn.functional as F

        rng = np.random.default_rng(23)
        for dtype in (torch.float32, torch.float64):
            for rows, C in ((1, 3), (32, 27), (40, 5), (300, 10)):
                x0 = rng.standard_normal((rows, C)) * 3
                t = torch.tensor(rng.integers(0, C, rows))
                t_ign = t.clone()
                t_ign[::4] = -100
                w = torch.tensor(rng.uniform(0.1, 2, C), dtype=dtype)
                for target, weight, red, g in ((t, None, "mean", 1.0), (t, w, "mean", 0.5),
                                               (t_ign, None, "sum", 2.0), (t_ign, w, "mean", 1.0),
                                               (t, w, "sum", -3.0)):
                    got = []
                    for native in (True, False):
                        with monkeypatch.context() as m, np.errstate(all="ignore"):
                            if not native:   # (one row ignored: 0 / 0 in the replay)
                                m.setattr(K, "_NATIVE", None)
                            x = torch.tensor(x0, dtype=dtype, requires_grad=True)
                            loss = F.cross_entropy(x, target, weight=weight, reduction=red)
                            (loss * g).backward()
                            got.append((loss.detach().numpy().tobytes(), x.grad.numpy().tobytes()))
                    assert got[0] == got[1], (dtype, rows, C, red)


@needs_native
def test_tanh_backward_native_equals_the_replay(variant, monkeypatch):
    # torch's tanh_backward in float32: dout * (1 - out * out), the latter rounded once
    from gradrepl.torch import _ops as O

    rng = np.random.default_rng(31)
    outs = [np.tanh(rng.standard_normal((32, 200)) * 3).astype(F32), _specials(),
            _random_patterns(1 << 16, 8), np.array([1.0, -1.0, 0.0, -0.0, 1e-30], F32)]
    for o in outs:
        o = o[~np.isnan(o)]
        for d in (rng.standard_normal(o.shape).astype(F32), _random_patterns(o.size, 9)):
            d = np.where(np.isnan(d), F32(1), d).astype(F32)
            got = O._tanh_grad_fwd(o, d)
            with monkeypatch.context() as m, np.errstate(all="ignore"):
                m.setattr(O, "_NATIVE", None)
                want = O._tanh_grad_fwd(o, d)
            assert _bits(got) == _bits(want)
    res = np.empty(2, F32)   # (a nan: left to numpy, which keeps its payloads)
    assert _native.lib.tanh_grad_f32(np.array([0.5, np.nan], F32), np.ones(2, F32), res) == 1


@needs_native
@pytest.mark.parametrize("dtype,lanes", [(F32, 16), (F32, 8), (np.float64, 8), (np.float64, 4)])
def test_column_sums_native_equal_the_replay(dtype, lanes, monkeypatch):
    # torch's outer sum of a (n, m) matrix (a bias's gradient, mean(0)): every level of
    # multi_row_sum (n up to 5000: three levels of 16) and row_sum's 4 accumulators, the
    # vectorised (m >= lanes) and scalar orders; infinities, -0, subnormals, overflow
    from gradrepl.torch import _kernels as KS

    monkeypatch.setattr(KS, "_lanes", lambda dt: lanes)
    rng = np.random.default_rng(41)
    tiny = np.finfo(dtype).tiny
    for trial in range(160):
        n = int(rng.integers(2, 600)) if trial % 4 else int(rng.integers(2, 5000))
        m = int(rng.integers(2, 300))
        m = max(2, min(m, 32767 // n))
        kind = trial % 5
        a = (rng.standard_normal((n, m)) * 10.0 ** rng.integers(-5, 5, size=(1, m))).astype(dtype)
        if kind == 1:
            a = (rng.random((n, m)) * tiny).astype(dtype)
        elif kind == 2:
            a[rng.random((n, m)) < 0.05] = np.inf
            a[rng.random((n, m)) < 0.05] = -np.inf
        elif kind == 3:
            a[:] = -0.0
        elif kind == 4:
            a = (1e30 * rng.standard_normal((n, m))).astype(dtype)
        with np.errstate(all="ignore"):
            got = KS._matrix_columns(a)
            monkeypatch.setattr(KS, "_NATIVE", None)
            want = KS._matrix_columns(a)
            monkeypatch.undo()
            monkeypatch.setattr(KS, "_lanes", lambda dt: lanes)
        assert got.tobytes() == want.tobytes(), (n, m, kind)
    a = np.ones((40, 30), dtype)
    a[3, 4] = np.nan   # (a nan: left to the replay, which keeps its payload)
    assert _native.lib.column_sums(a, np.empty(30, dtype), lanes) == 1


@needs_native
def test_float32_var_std_over_dim0_native_equal_the_replay(monkeypatch):
    # torch.var/std of a float32 matrix over dim 0 (a hand-written batch norm's std): the
    # double two-pass of _ops_shape._moments_fwd, compiled; n = 1 (dof 0), constant columns,
    # subnormals, huge values, -0, corrections 0/1/2
    from gradrepl.torch import _moments
    from gradrepl.torch import _ops_shape as S

    rng = np.random.default_rng(43)
    for trial in range(120):
        n = int(rng.integers(1, 400)) if trial % 5 else int(rng.integers(1, 3000))
        m = int(rng.integers(2, 300))
        kind = trial % 6
        a = (rng.standard_normal((n, m)) * 10.0 ** rng.integers(-30, 30, size=(1, m))
             + rng.standard_normal((1, m)) * 10.0 ** rng.integers(-3, 5)).astype(F32)
        if kind == 1:
            a = (rng.random((n, m)) * 1e-38).astype(F32)
        elif kind == 2:
            a = np.full((n, m), F32(rng.standard_normal()))
        elif kind == 3:
            a = rng.integers(-3, 3, (n, m)).astype(F32)
        elif kind == 4:
            a = (rng.standard_normal((n, m)) * 3e37).astype(F32)
        elif kind == 5:
            a[:] = -0.0
        for corr in (1.0, 0.0, 2.0):
            for root in (True, False):
                with np.errstate(all="ignore"):
                    got = S._moments_fwd(a, (0,), False, corr, root)
                    with monkeypatch.context() as mp:
                        mp.setattr(_moments, "_NATIVE", None)
                        want = S._moments_fwd(a, (0,), False, corr, root)
                assert _bits(got) == _bits(want), (n, m, kind, corr, root)
    a = np.ones((4, 3), F32)
    a[1, 1] = np.inf   # (not finite: left to numpy)
    assert _native.lib.var_columns_f32(a, np.empty(3, F32), 1.0, True) == 1


@needs_native
def test_float32_fma_native_equals_the_replay():
    # _norm_kernels.fma (batch norm's backward, the SLEEF replays): fmaf of three float32
    # arrays against the replay's always-repaired double sum: random magnitudes, exact ties
    # (a * b half an ulp of c, both signs), near cancellation, subnormal products
    from gradrepl.torch import _norm_kernels as NK

    rng = np.random.default_rng(47)
    n = 4096
    for _ in range(40):
        e = rng.integers(-100, 100, n)
        c2 = np.ldexp(1.0 + rng.integers(0, 1 << 23, n) / 2.0 ** 23, e).astype(F32)
        a2 = np.ldexp(1.0, (e - 24) // 2).astype(F32)
        b2 = (np.ldexp(1.0, e - 24) / a2.astype(np.float64)).astype(F32)
        a3, b3 = rng.standard_normal(n).astype(F32), rng.standard_normal(n).astype(F32)
        sets = [
            [(rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20, n)).astype(F32)
             for _ in range(3)],
            [a2 * np.where(rng.random(n) < 0.5, -1, 1).astype(F32), b2, c2],
            [a3, b3, (-(a3.astype(np.float64) * b3)
                      * (1 + rng.standard_normal(n) * 1e-7)).astype(F32)],
            [(rng.standard_normal(n) * 1e-20).astype(F32),
             (rng.standard_normal(n) * 1e-20).astype(F32),
             (rng.standard_normal(n) * 1e-38).astype(F32)]]
        for a, b, c in sets:
            got = NK.fma(a, b, c)
            with np.errstate(all="ignore"):
                want = NK._fma_repaired(a, b, c)
            assert _bits(got) == _bits(want)
    out = np.empty(2, F32)   # (not finite: left to numpy, which keeps its NaN payloads)
    assert _native.lib.fma_f32(np.array([1, np.inf], F32), np.ones(2, F32), np.ones(2, F32),
                               out) == 1


@needs_native
def test_direct_convolution_chains_native_equal_the_replay(monkeypatch):
    # _onednn_conv's direct-kernel chains (forward and stride-1 input gradient, 16/8/4-channel
    # blocks, padding, dilation, bias) compiled (_cnative.conv_chains_f32) against the numpy
    # replay of the same fused multiply-add chains (no BLAS): zeros and exact cancellations,
    # magnitudes 1e-20..1e20, channels past one block, long spans (the chunked registers)
    from gradrepl.torch.nn import _onednn_conv as oc

    monkeypatch.setenv("GRADREPL_NO_BLAS_CHAINS", "1")
    rng = np.random.default_rng(53)
    lib = _native.lib
    for trial in range(24):
        n, c, o = int(rng.integers(1, 4)), int(rng.integers(1, 35)), int(rng.integers(1, 9))
        kh, kw = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        dh, dw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        pads = [tuple(int(rng.integers(0, (k - 1) * d + 1)) for _ in range(2))
                for k, d in ((kh, dh), (kw, dw))]
        h = int(rng.integers(max(1, (kh - 1) * dh + 1 - sum(pads[0])), 24))
        w_ = int(rng.integers(max(1, (kw - 1) * dw + 1 - sum(pads[1])), 24))
        scale = 10.0 ** rng.integers(-20, 20, (n, c, h, w_)) if trial % 4 == 3 else 1.0
        x = (rng.standard_normal((n, c, h, w_)) * scale).astype(F32)
        if trial % 3 == 0:
            x[x > 0.8] = 0
            x[:, :, ::2] = np.abs(x[:, :, ::2])
        wt = rng.standard_normal((o, c, kh, kw)).astype(F32)
        if trial % 3 == 0:
            wt[:, :, ::2] = -np.abs(wt[:, :, ::2])
        bias = rng.standard_normal(o).astype(F32) if trial % 2 else None
        block = (16, 8, 4)[trial % 3]
        got = oc.conv_forward(x, wt, bias, (1, 1), pads, (dh, dw), block)
        g = rng.standard_normal((n, o) + got.shape[2:]).astype(F32)
        got_dx = oc.conv_backward_data(g, wt, None, (1, 1), pads, (dh, dw), (h, w_), block)
        monkeypatch.setattr(_native, "lib", None)
        want = oc.conv_forward(x, wt, bias, (1, 1), pads, (dh, dw), block)
        want_dx = oc.conv_backward_data(g, wt, None, (1, 1), pads, (dh, dw), (h, w_), block)
        monkeypatch.setattr(_native, "lib", lib)
        assert _bits(got) == _bits(want), (trial, n, c, o, kh, kw, dh, dw, pads, h, w_)
        assert _bits(got_dx) == _bits(want_dx), (trial, n, c, o, kh, kw, dh, dw, pads, h, w_)


@needs_native
def test_filter_gradient_chains_native_equal_the_replay(monkeypatch):
    # _onednn_conv.conv_backward_weights' per-thread chains (filter: fma over the thread's
    # output positions in order; bias: the plain sum from +0) compiled
    # (_cnative.conv_wgrad_chains_f32 on its thread pool) against the numpy replay: strides,
    # dilations, padding, teams of 1-3 threads splitting samples or output rows, 8/16 channels
    # (the registers' path) and others, zeros and -0 gradients
    from gradrepl.torch.nn import _onednn_conv as oc

    monkeypatch.setenv("GRADREPL_NO_BLAS_CHAINS", "1")
    rng = np.random.default_rng(59)
    lib = _native.lib
    for trial in range(20):
        n, c, o = int(rng.integers(1, 5)), int(rng.integers(1, 12)), (8, 16, 3, 5, 20)[trial % 5]
        kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        dh, dw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        sh, sw = (1, 1) if trial % 3 else (2, int(rng.integers(1, 3)))
        ph, pw = int(rng.integers(0, (kh - 1) * dh + 1)), int(rng.integers(0, (kw - 1) * dw + 1))
        h, w_ = int(rng.integers((kh - 1) * dh + 1, 16)), int(rng.integers((kw - 1) * dw + 1, 16))
        oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
        ow = (w_ + 2 * pw - dw * (kw - 1) - 1) // sw + 1
        x = rng.standard_normal((n, c, h, w_)).astype(F32)
        g = rng.standard_normal((n, o, oh, ow)).astype(F32)
        if trial % 4 == 0:
            x[x > 0.7] = 0
            g[:, :1] = -0.0
        team = int(rng.integers(1, 4))
        rows = oh if trial % 2 else None
        args = (x, g, (kh, kw), (sh, sw), [(ph, ph), (pw, pw)], (dh, dw), team, team, rows)
        got = oc.conv_backward_weights(*args)
        monkeypatch.setattr(_native, "lib", None)
        want = oc.conv_backward_weights(*args)
        monkeypatch.setattr(_native, "lib", lib)
        assert _bits(got[0]) == _bits(want[0]), (trial, n, c, o, kh, kw, dh, dw, sh, sw)
        assert _bits(got[1]) == _bits(want[1]), (trial, n, c, o, kh, kw, dh, dw, sh, sw)


@needs_native
def test_threshold_backward_native_equals_numpy(monkeypatch):
    # ReLU's gradient (torch's threshold_backward: self <= threshold ? +0 : grad, grad's bits
    # kept) compiled (_cnative.threshold_grad_f32) against the numpy select: specials in both
    # arrays (nan self keeps grad, -0, inf, subnormals), sign-flipped gradients, thresholds
    from gradrepl.torch.nn import _double_backward as D

    rng = np.random.default_rng(61)
    lib = _native.lib
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1, -1, 3e38], F32)
    for t in (0.0, 0.5, -1.0, 1e-45):
        for n in (1, 7, 100, 1000, 100352):
            g, x = rng.standard_normal(n).astype(F32), rng.standard_normal(n).astype(F32)
            g[:10], x[-10:] = specials[:min(n, 10)][:len(g[:10])], specials[:len(x[-10:])]
            g.view(U32)[::5] ^= U32(0x80000000)
            got = D._threshold_grad_fwd(g, x, t)
            monkeypatch.setattr(_native, "lib", None)
            want = D._threshold_grad_fwd(g, x, t)
            monkeypatch.setattr(_native, "lib", lib)
            assert _bits(got) == _bits(want), (t, n)
