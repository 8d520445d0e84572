"""Issue 28's second pass: what lecture-style torch code reached and stopped on or printed
differently. Expected literals were recorded from real torch 2.13.0+cpu in this session (AMD EPYC
Zen 4, CPU capability AVX512); values whose last bits come from SLEEF's AVX-512 kernels are
checked only where gradrepl runs those kernels (capability AVX512), values from MKL only where
the mkl wheel is installed. Other values are compared with an independent numpy computation."""
import importlib
import math
import warnings

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.importhook import torch_modules
from gradrepl.torch import _capability, _mkl

avx512 = pytest.mark.skipif(_capability.capability() != "AVX512",
                            reason="recorded under torch's AVX512 kernels (SLEEF blocks)")
needs_mkl = pytest.mark.skipif(not _mkl.available(), reason="the mkl wheel is not installed")


def _f32(values):
    return np.asarray(values, np.float32)


# --------------------------------------------------------------- modules lectures import
def test_import_torch_submodules_by_name():
    with torch_modules():
        cudnn = importlib.import_module("torch.backends.cudnn")
        amp = importlib.import_module("torch.amp")
        cuda_amp = importlib.import_module("torch.cuda.amp")
        windows = importlib.import_module("torch.signal.windows")
        checkpoint = importlib.import_module("torch.utils.checkpoint")
        rnd = importlib.import_module("torch.random")
        T = importlib.import_module("torch")
        cudnn.benchmark = True
        assert T.backends.cudnn.benchmark is True    # one object, however it is reached
        cudnn.benchmark = False
        assert amp.GradScaler is T.GradScaler
        assert callable(cuda_amp.GradScaler) and windows.hann is T.signal.windows.hann
        assert checkpoint.checkpoint is not None and rnd.manual_seed is T.manual_seed


def test_version_is_torch_cpu_wheel_and_compares_as_a_version():
    v = torch.__version__
    assert v == "2.13.0+cpu" and isinstance(v, str)   # real torch: '2.13.0+cpu'
    assert v >= "2.0" and v < "2.14" and v > "2.9" and v >= (2, 13)  # not string order
    assert torch.version.cuda is None and torch.version.__version__ == v


def test_cuda_answers_as_the_cpu_wheel():
    assert torch.cuda.is_available() is False and torch.cuda.device_count() == 0
    assert torch.cuda.memory_allocated() == 0 and torch.cuda.manual_seed_all(0) is None
    assert dict(torch.cuda.memory_stats()) == {} and torch.cuda.is_bf16_supported() is False
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        torch.cuda.synchronize()
    with pytest.raises(AttributeError, match="no attribute '_cuda_resetPeakMemoryStats'"):
        torch.cuda.reset_peak_memory_stats()
    with pytest.raises(ModuleNotFoundError, match="nvidia-ml-py"):
        torch.cuda.utilization()


def test_grad_scaler_on_cpu_scales_unscales_steps_and_updates():
    # real torch: scale(l) 131072., grads [2., 2.] after unscale_, x [0.8, 0.8],
    # get_scale() 65536.0, _growth_tracker tensor(1, dtype=torch.int32)
    s = torch.amp.GradScaler("cpu")
    x = torch.ones(2, requires_grad=True)
    opt = torch.optim.SGD([x], lr=0.1)
    loss = (x * x).sum()
    assert s.scale(loss).item() == 131072.0
    s.scale(loss).backward()
    s.unscale_(opt)
    assert x.grad.tolist() == [2.0, 2.0]
    assert s.step(opt) is None
    s.update()
    assert x.tolist() == pytest.approx([0.8, 0.8]) and s.get_scale() == 65536.0
    assert s.state_dict() == {"scale": 65536.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                              "growth_interval": 2000, "_growth_tracker": 1}
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        s.step(opt)
        s.unscale_(opt)


def test_grad_scaler_skips_a_step_with_inf_and_backs_off():
    s = torch.amp.GradScaler("cpu", init_scale=8.0)
    x = torch.ones(2, requires_grad=True)
    opt = torch.optim.SGD([x], lr=0.1)
    (x * torch.tensor([float("inf"), 1.0])).sum().backward()
    s.step(opt)
    s.update()
    assert x.tolist() == [1.0, 1.0] and s.get_scale() == 4.0


def test_grad_scaler_for_cuda_warns_and_is_disabled():
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        s = torch.amp.GradScaler()
    loss = torch.tensor(3.0)
    assert s.is_enabled() is False and s.scale(loss) is loss and s.state_dict() == {}


def test_autocast_disabled_is_a_noop_and_enabled_casts_matmul():
    with torch.autocast("cpu", enabled=False):
        assert (torch.ones(2) @ torch.ones(2)).dtype == torch.float32
    with torch.autocast("cpu", dtype=torch.bfloat16):  # (tests/test_torch_bfloat16.py: values)
        assert (torch.ones(2) @ torch.ones(2)).dtype == torch.bfloat16


# --------------------------------------------------------------- torch.signal.windows
@pytest.mark.skipif(not __import__("gradrepl.engine.mkl", fromlist=["load"]).load(),
                    reason="the windows' cosines are real torch's x86-64 MKL kernels "
                           "(gradrepl[exact], x86-64 only)")
def test_signal_windows_bits_as_torch():
    W = torch.signal.windows
    assert W.hann(5).tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]
    assert W.hann(5, sym=False).tolist() == _f32(
        [0.0, 0.34549152851104736, 0.9045084714889526, 0.9045084714889526,
         0.3454914391040802]).tolist()
    assert W.bartlett(6).tolist() == _f32([0.0, 0.3999999761581421, 0.800000011920929,
                                           0.800000011920929, 0.3999999761581421, 0.0]).tolist()
    assert W.blackman(5).tolist() == _f32([-1.4901161193847656e-08, 0.3400000333786011,
                                           0.9999999403953552, 0.3399999737739563,
                                           -1.4901161193847656e-08]).tolist()
    assert W.exponential(6, sym=False, tau=0.5, center=2.0).tolist() == _f32(
        [0.018315639346837997, 0.1353352814912796, 1.0, 0.1353352814912796,
         0.018315639346837997, 0.0024787522852420807]).tolist()
    g = W.gaussian(7, std=0.5, dtype=torch.float64)
    assert g.dtype == torch.float64
    assert np.allclose(g.numpy(), np.exp(-((np.arange(7) - 3) / (0.5 * math.sqrt(2))) ** 2),
                       rtol=1e-14)
    with pytest.raises(ValueError, match="hann expects float32 or float64 dtypes|"
                                         "general_cosine expects float32 or float64"):
        W.hann(4, dtype=torch.int64)
    assert W.kaiser(0).shape == (0,) and W.bartlett(1).tolist() == [1.0]


# --------------------------------------------------------------- stft / istft / low rank
def test_stft_against_numpy_frames_and_istft_roundtrip():
    torch.manual_seed(0)
    x = torch.randn(64)
    win = torch.hann_window(16)
    S = torch.stft(x, 16, window=win, return_complex=True)
    assert tuple(S.shape) == (9, 17) and S.dtype == torch.complex64   # real torch: [9, 17]
    padded = np.pad(x.numpy(), 8, mode="reflect")
    frames = np.stack([padded[i * 4:i * 4 + 16] * win.numpy() for i in range(17)])
    want = np.fft.rfft(frames.astype(np.float64), axis=1).T
    assert np.allclose(S.numpy(), want, atol=1e-5)
    y = torch.istft(S, 16, window=win, length=64)
    assert tuple(y.shape) == (64,) and np.allclose(y.numpy(), x.numpy(), atol=1e-5)
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter"):
        torch.stft(x, 16, window=win)
    assert tuple(x.stft(8, window=torch.ones(8), onesided=False,
                        return_complex=True).shape) == (8, 33)


def test_svd_and_pca_lowrank_approximate_the_svd():
    torch.manual_seed(0)
    A = torch.randn(10, 3) @ torch.randn(3, 6)          # rank 3
    U, S, V = torch.svd_lowrank(A, q=3)
    assert tuple(U.shape) == (10, 3) and tuple(V.shape) == (6, 3)
    assert np.allclose(S.numpy(), np.linalg.svd(A.numpy(), compute_uv=False)[:3], rtol=1e-4)
    assert np.allclose((U @ torch.diag(S) @ V.T).numpy(), A.numpy(), atol=1e-4)
    U, S, V = torch.pca_lowrank(A, q=3)
    centred = A.numpy() - A.numpy().mean(0)
    assert np.allclose(S.numpy(), np.linalg.svd(centred, compute_uv=False)[:3], rtol=1e-4)
    with pytest.raises(ValueError, match="must be non-negative integer and not greater"):
        torch.pca_lowrank(A, q=7)


# --------------------------------------------------------------- samplers and nn dispatchers
def test_poisson_and_binomial_draw_torch_samples():
    torch.manual_seed(0)   # real torch: [2., 3., 7., 29.] then [5., 6., 87.]
    assert torch.poisson(torch.tensor([0.5, 2.0, 7.5, 30.0])).tolist() == [2.0, 3.0, 7.0, 29.0]
    assert torch.binomial(torch.tensor([10., 20., 100.]),
                          torch.tensor([0.5, 0.2, 0.9])).tolist() == [5.0, 6.0, 87.0]


def test_embedding_bag_aten_tuple():
    w = torch.arange(10.).reshape(5, 2)
    out, o2b, size, maxi = torch.embedding_bag(w, torch.tensor([1, 2, 4, 4]),
                                               torch.tensor([0, 3]), False, 1)   # mean
    assert np.allclose(out.numpy(), [[14 / 3, 17 / 3], [8, 9]])
    assert o2b.tolist() == [0, 0, 0, 1] and size.tolist() == [3, 1] and maxi.tolist() == [3, 1]
    out, o2b, size, maxi = torch.embedding_bag(w, torch.tensor([1, 2, 4, 4]),
                                               torch.tensor([0, 3]), False, 0)   # sum
    assert out.tolist() == [[14.0, 17.0], [8.0, 9.0]]
    assert o2b.tolist() == [] and size.tolist() == [0, 0] and maxi.tolist() == [0, 0]


def test_convolution_segment_reduce_norm_except_dim():
    torch.manual_seed(1)
    x, w = torch.randn(1, 3, 8), torch.randn(4, 3, 3)
    got = torch.convolution(x, w, None, [1], [0], [1], False, [0], 1)
    assert torch.equal(got, torch.nn.functional.conv1d(x, w))
    # real torch: [1., 0., 14.], [1., -inf, 5.], [0.5, 3.5]
    assert torch.segment_reduce(torch.arange(6.), "sum",
                                lengths=torch.tensor([2, 0, 4])).tolist() == [1.0, 0.0, 14.0]
    assert torch.segment_reduce(torch.arange(6.), "max", lengths=torch.tensor(
        [2, 0, 4])).tolist() == [1.0, -math.inf, 5.0]
    assert torch.segment_reduce(torch.arange(6.), "mean",
                                lengths=torch.tensor([2, 4])).tolist() == [0.5, 3.5]
    v = torch.arange(12.).reshape(3, 4)
    assert torch.norm_except_dim(v, 2, 0).shape == (3, 1)
    assert np.allclose(torch.norm_except_dim(v, 2, 1).numpy().ravel(),
                       np.linalg.norm(v.numpy(), axis=0))


# --------------------------------------------------------------- checkpoint
def test_checkpoint_reentrant_recomputes_and_names_its_node():
    x = torch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
        y = torch.utils.checkpoint.checkpoint(lambda t: t.sin() * 2, x)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"   # as real torch
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), 2 * np.cos(1.0))
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(), torch.nn.Dropout(0.5),
                            torch.nn.Linear(2, 1))
    inp = torch.ones(3, 2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = torch.get_rng_state()
        out = torch.utils.checkpoint.checkpoint_sequential(m, 2, inp)
        torch.set_rng_state(state)
        ref = m(inp)
    assert torch.equal(out, ref)      # the recomputation draws the same dropout mask
    out.sum().backward()
    assert inp.grad is not None


# --------------------------------------------------------------- recurrent cells, init
def test_sigmoid_backward_is_torchs_order():
    torch.manual_seed(1)
    x = torch.randn(7, 16, requires_grad=True)
    g = torch.randn(7, 16)
    y = torch.sigmoid(x)
    y.backward(g)
    yy, gg = y.detach().numpy(), g.numpy()
    want = (gg * (np.float32(1) - yy)) * yy       # ATen's sigmoid_backward, left to right
    assert np.array_equal(x.grad.numpy(), want)


@avx512
@needs_mkl
def test_gru_cell_forward_and_backward_bits_as_torch():
    torch.manual_seed(3)
    cell = torch.nn.GRUCell(8, 16)
    x = torch.randn(7, 8, requires_grad=True)
    hx = torch.randn(7, 16, requires_grad=True)
    out = cell(x, hx)
    assert out[3].tolist() == _f32([
        -0.5425921082496643, -0.21824368834495544, -0.8359093070030212, 1.0189672708511353,
        0.5056743621826172, -0.3727737069129944, -1.4368438720703125, 0.04944226145744324,
        0.2800518572330475, 0.7322663068771362, 0.5864552855491638, 0.6017767786979675,
        0.4757654070854187, -0.29855045676231384, -0.4715574383735657,
        -0.3299711048603058]).tolist()
    (out * torch.randn(7, 16)).sum().backward()
    from conftest import record_for_mkl_branch

    # the gradients go through MKL's sgemm: real torch 2.13 on each MKL code path (AUTO: the
    # AMD EPYC Zen 4; AVX512_E1: the Intel Sapphire Rapids Xeon); the output is the same on both
    x_grad, w_grad = record_for_mkl_branch("GRUCell's gradients (MKL's sgemm)", {
        "AUTO": ([0.2566300630569458, 0.0004876479506492615, -0.2833487391471863,
                  -0.02608381398022175, -0.021131232380867004, 0.5614861845970154,
                  -0.09679105877876282, 0.35175472497940063],
                 [0.11861003935337067, 0.11081122606992722, 0.17657889425754547,
                  -0.2295459806919098, 0.0587870217859745, -0.05095108970999718]),
        "AVX512_E1": ([0.2566300630569458, 0.0004876626771874726, -0.2833487391471863,
                       -0.02608381025493145, -0.021131234243512154, 0.5614861845970154,
                       -0.09679107367992401, 0.35175469517707825],
                      [0.11861003935337067, 0.11081124097108841, 0.17657890915870667,
                       -0.22954601049423218, 0.05878704413771629, -0.05095110088586807])})
    assert x.grad[2].tolist() == _f32(x_grad).tolist()
    assert cell.weight_hh.grad[5, :6].tolist() == _f32(w_grad).tolist()


def test_block_kernel_runs_a_strided_view_row_by_row():
    from gradrepl.torch._sleef_more import _inner_rows

    big = np.zeros((7, 48), np.float32)
    assert _inner_rows(big[:, :16]) == 16 and _inner_rows(big) is None
    assert _inner_rows(big.T) is None and _inner_rows(big[:, ::2]) is None
    assert _inner_rows(np.zeros((2, 3, 8), np.float32)[:, :2]) == 16


def test_orthogonal_init_draws_torchs_stream():
    torch.manual_seed(5)
    w = torch.empty(3, 5)
    torch.nn.init.orthogonal_(w)
    assert np.allclose(w.numpy() @ w.numpy().T, np.eye(3), atol=1e-6)
    # real torch, the draws after it: [0.044166386127471924, 0.4884120225906372]
    assert torch.rand(2).tolist() == _f32([0.044166386127471924, 0.4884120225906372]).tolist()


def test_lr_scheduler_state_dict_keys_as_torch():
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
    s = torch.optim.lr_scheduler.StepLR(opt, 3, gamma=0.1)
    # real torch's keys, in order
    assert list(s.state_dict()) == ["step_size", "gamma", "base_lrs", "last_epoch",
                                    "_step_count", "_is_initial",
                                    "_get_lr_called_within_step", "_last_lr"]
    p = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)
    assert list(p.state_dict())[:10] == ["factor", "default_min_lr", "min_lrs", "patience",
                                         "cooldown", "eps", "last_epoch", "_last_lr",
                                         "mode_worse", "mode"]
    w = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 3)
    opt.step()
    w.step()
    assert w.state_dict()["_step_count"] == 0   # torch's override does not count


# --------------------------------------------------------------- linalg.lstsq shapes
def test_lstsq_rank_and_singular_values_have_As_batch():
    torch.manual_seed(0)
    A, B = torch.randn(1, 3, 3), torch.randn(2, 3, 3)
    r = torch.linalg.lstsq(A, B, driver="gelsd")      # real torch: rank (1,), sv (1, 3)
    assert tuple(r.rank.shape) == (1,) and tuple(r.singular_values.shape) == (1, 3)
    assert tuple(r.solution.shape) == (2, 3, 3)
    r = torch.linalg.lstsq(torch.randn(2, 4, 3), torch.randn(2, 4), driver="gelsd")
    assert tuple(r.residuals.shape) == (2, 1) and tuple(r.solution.shape) == (2, 3)
    with pytest.raises(RuntimeError, match=r"input.dim\(\) must be greater or equal"):
        torch.linalg.lstsq(torch.randn(3, 3), torch.randn(2, 3, 3))
    with pytest.raises(RuntimeError, match=r"should match other.size\(-2\)"):
        torch.linalg.lstsq(torch.randn(3, 3), torch.randn(4, 3))
    with pytest.raises(RuntimeError, match="The size of tensor a \\(5\\) must match the size "
                                           "of tensor b \\(4\\) at non-singleton dimension 0"):
        torch.linalg.lstsq(torch.randn(5, 3, 3), torch.randn(4, 3, 2))


# --------------------------------------------------------------- the gap tool
def test_gap_tool_measures_lecture_namespaces_and_skips_imported_names():
    import copy
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "tools"))
    try:
        import torch_api_gaps as tool
    finally:
        sys.path.pop(0)
    for name in ("torch.cuda", "torch.amp", "torch.signal.windows", "torch.utils.checkpoint",
                 "torch.nn.utils.rnn", "torch.autograd.functional", "torch.backends"):
        assert name in tool.TARGETS
    assert tool._foreign(copy.deepcopy, "function") and tool._foreign(math, "module")
    assert tool._foreign(len, "function")              # a Python builtin: not torch's
    assert not tool._foreign(torch.stft, "function") and not tool._foreign(1.5, "other")


# --------------------------------------------------------------- torch.fft through MKL's DFTI
def _c64(values):
    return np.asarray(values, np.complex64).tolist()


@needs_mkl
def test_fft_bits_as_torch_through_mkl_dfti():
    from gradrepl.torch import _dfti

    if not _dfti.available():
        pytest.skip("MKL's DFTI is not loadable")
    from conftest import record_for_mkl_branch

    # Recorded on the AMD EPYC (MKL's AUTO path). On the Intel Sapphire Rapids Xeon (AVX512_E1)
    # real torch 2.13's statically linked MKL 2024.2 gives other last bits for 1-D transforms
    # of 24, 32, 48, 96, 256, 512, 1024 values than the mkl wheel's libmkl_rt (2024.2.0 and
    # .2, same build; called the same way, same alignment and thread limit: MKL_VERBOSE), whose
    # DFTI there equals torch's MKL_ENABLE_INSTRUCTIONS=AVX2 result for 24: not emulated yet
    record_for_mkl_branch("torch.fft's MKL DFTI bits (the AVX512_E1 path of torch's static MKL "
                          "differs from the mkl wheel's)", {"AUTO": None})
    x = torch.sin(torch.arange(24, dtype=torch.float32) * 0.37) * torch.arange(24.)
    F = torch.fft
    # real torch 2.13 (MKL), this session
    assert F.rfft(x)[1:5].tolist() == _c64([
        127.06472778320312 + 29.003761291503906j, -50.84191131591797 + 85.0506591796875j,
        -20.95630645751953 + 24.200597763061523j, -14.062976837158203 + 14.01143741607666j])
    assert F.fft(x.reshape(4, 6), dim=0)[1].tolist() == _c64([
        11.557571411132812 + 1.8438940048217773j, 13.29973316192627 + 9.238481521606445j,
        13.845641136169434 + 16.52939224243164j, 12.725690841674805 + 22.61164093017578j,
        9.667579650878906 + 26.404605865478516j, 4.69052791595459 + 27.033157348632812j])
    assert F.irfft(F.rfft(x), n=24)[:4].tolist() == _f32(
        [0.0, 0.3616129755973816, 1.3485755920410156, 2.6870975494384766]).tolist()
    assert F.hfft2(F.ihfft2(x.reshape(4, 6)))[2].tolist() == _f32(
        [-11.557571411132812, -12.938117027282715, -12.497065544128418, -10.038595199584961,
         -5.684056282043457, 0.11584758758544922]).tolist()
    S = torch.stft(x, 8, hop_length=4, window=torch.hann_window(8), return_complex=True)
    assert S[2, :3].tolist() == _c64([-1.3485758304595947 - 2.384185791015625e-07j,
                                      0.9195389747619629 - 1.32466459274292j,
                                      1.704254388809204 + 2.5762102603912354j])


def test_fft_numpy_fallback_agrees_to_rounding(monkeypatch):
    from gradrepl.torch import _dfti

    x = torch.sin(torch.arange(24, dtype=torch.float32) * 0.37) * torch.arange(24.)
    got = {k: getattr(torch.fft, k)(x.reshape(4, 6)).numpy() for k in ("fft2", "rfft2", "ihfft2")}
    monkeypatch.setattr(_dfti, "available", lambda: False)
    for k, v in got.items():
        assert np.allclose(getattr(torch.fft, k)(x.reshape(4, 6)).numpy(), v, atol=1e-4), k
    a = x.numpy().astype(np.float64)
    assert np.allclose(got["rfft2"], np.fft.rfft2(a.reshape(4, 6)), atol=1e-4)


def test_assert_close_default_tolerances_by_dtype():
    a = torch.tensor([48.8419 + 0j], dtype=torch.complex64)
    torch.testing.assert_close(a, a + 3e-6)             # within complex64's (1.3e-6, 1e-5)
    with pytest.raises(AssertionError):
        torch.testing.assert_close(torch.tensor([1], dtype=torch.int64),
                                   torch.tensor([2], dtype=torch.int64))


# --------------------------------------------------------------- optim.swa_utils
def test_swa_and_ema_averaging_and_swalr_as_torch():
    from gradrepl.torch import nn
    from gradrepl.torch.optim.swa_utils import (SWALR, AveragedModel, get_ema_multi_avg_fn,
                                                update_bn)

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    swa = AveragedModel(model)
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = SWALR(opt, swa_lr=0.05, anneal_epochs=3)
    X, y = torch.randn(32, 4), torch.randn(32, 2)
    lrs, snapshots = [], []
    for _ in range(6):
        opt.zero_grad()
        ((model(X) - y) ** 2).mean().backward()
        opt.step()
        snapshots.append(model[0].weight.detach().clone())
        swa.update_parameters(model)
        ema.update_parameters(model)
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    # real torch: [0.08750000000000001, 0.06250000000000001, 0.05, 0.05, 0.05, 0.05]
    assert lrs == [0.08750000000000001, 0.06250000000000001, 0.05, 0.05, 0.05, 0.05]
    assert swa.n_averaged.item() == 6
    mean = np.mean([s.numpy() for s in snapshots], axis=0)
    assert np.allclose(swa.module[0].weight.detach().numpy(), mean, atol=1e-6)
    e = snapshots[0].numpy().copy()
    for s in snapshots[1:]:
        e = e + 0.1 * (s.numpy() - e)
    assert np.allclose(ema.module[0].weight.detach().numpy(), e, atol=1e-6)
    # real torch (rounded as printed): weight[0] [-0.0013, 0.2678, -0.4121, -0.3676]
    assert np.allclose(swa.module[0].weight[0].detach().numpy(),
                       [-0.0013, 0.2678, -0.4121, -0.3676], atol=6e-5)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, y), batch_size=8)
    update_bn(loader, swa)
    assert swa.module[1].num_batches_tracked.item() == 4   # real torch: tensor(4)
    assert np.allclose(swa.module[1].running_mean[:4].numpy(),
                       [-0.2514, -0.3207, -0.3454, -0.5185], atol=6e-5)


def test_biject_to_and_transform_to_as_torch_registers_them():
    from gradrepl.torch.distributions import biject_to, constraints, transform_to

    t = biject_to(constraints.positive)   # torch: greater_than's entry wins for positive
    assert type(t).__name__ == "ComposeTransform"
    u = torch.tensor([-1.0, 0.0, 2.0])
    assert np.allclose(t(u).numpy(), np.exp(u.numpy()))
    assert type(biject_to(constraints.simplex)).__name__ == "StickBreakingTransform"
    assert type(transform_to(constraints.simplex)).__name__ == "SoftmaxTransform"
    assert type(transform_to(constraints.unit_interval)).__name__ == "SigmoidTransform"
    y = transform_to(constraints.interval(-1.0, 3.0))(u)
    assert np.allclose(y.numpy(), -1 + 4 / (1 + np.exp(-u.numpy())))
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        biject_to(constraints.lower_cholesky)


def test_functional_rnn_ops_match_the_modules():
    torch.manual_seed(0)
    x, h = torch.randn(5, 2, 3), torch.zeros(2, 2, 4)
    g = torch.nn.GRU(3, 4, 2)
    out, hn = torch.gru(x, h, list(g._flat_weights), True, 2, 0.0, False, False, False)
    ref, ref_h = g(x, h)
    assert torch.equal(out, ref) and torch.equal(hn, ref_h)
    lstm = torch.nn.LSTM(3, 4, 1, bidirectional=True)
    res = torch.lstm(x, (h, h), list(lstm._flat_weights), True, 1, 0.0, False, True, False)
    assert len(res) == 3 and tuple(res[0].shape) == (5, 2, 8)   # real torch: 3, [5, 2, 8]
    r = torch.nn.RNN(3, 4, bias=False)
    o, _ = torch.rnn_tanh(x, h[:1], list(r._flat_weights), False, 1, 0.0, False, False, False)
    assert torch.equal(o, r(x, h[:1])[0])


def test_deprecated_assert_allclose_warns_and_uses_its_looser_defaults():
    with pytest.warns(FutureWarning, match="assert_allclose\\(\\)` is deprecated since 1.12"):
        torch.testing.assert_allclose(torch.tensor([1.0]), torch.tensor([1.00005]))  # rtol 1e-4
    with pytest.warns(FutureWarning), pytest.raises(AssertionError):
        torch.testing.assert_allclose(torch.tensor([1.0]), [1.01])


def test_generalized_pareto_as_torch():
    from gradrepl.torch.distributions import GeneralizedPareto

    torch.manual_seed(0)
    d = GeneralizedPareto(0.0, 1.0, 0.5)
    s = d.sample((3,))
    # real torch 2.13 (printed): [0.8179, 2.1543, 0.0948], log_prob [-1.0285, -2.1930, -0.1390]
    assert np.allclose(s.numpy(), [0.8179, 2.1543, 0.0948], atol=6e-5)
    assert np.allclose(d.log_prob(s).numpy(), [-1.0285, -2.1930, -0.1390], atol=6e-5)
    u = 1 - (1 + 0.5 * s.numpy()) ** -2.0              # the CDF, independently
    assert np.allclose(d.cdf(s).numpy(), u, atol=1e-6)
    assert d.mean.item() == 2.0 and math.isnan(d.variance.item())
    assert repr(d) == "GeneralizedPareto(loc: 0.0, scale: 1.0, concentration: 0.5)"
    e = GeneralizedPareto(0.0, 1.0, -0.3)
    assert e.support.upper_bound == pytest.approx(1 / 0.3)
