"""Round eight's torch lecture fixes (issue 28): the avg-pool family's backward divides by the
divisor as ATen does (grad / divide_factor, not grad * (1 / divisor)), divisor_override is the
divisor of the forward and backward, and ceil_mode's last window starts inside the input
(ATen's pooling_output_shape). Literals recorded from real torch 2.13 (CPU) in this session."""
import numpy as np

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F


def _leaf(shape, seed):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32),
                        requires_grad=True)


def test_avg_pool2d_backward_divides_by_nine():
    x = _leaf((20, 8, 3, 3), 0)
    g = np.random.default_rng(1).standard_normal((20, 8, 1, 1)).astype(np.float32)
    F.avg_pool2d(x, 3).backward(torch.tensor(g))
    got = x.grad.numpy()
    want = np.broadcast_to(g / np.float32(9), got.shape)
    assert np.array_equal(got, want)
    # the multiplication by the reciprocal differs in some elements (so the test can fail)
    assert not np.array_equal(got, np.broadcast_to(g * np.float32(1 / 9), got.shape))


def test_avg_pool1d_3d_backward_divide():
    x = _leaf((3, 2, 9), 2)
    g = np.random.default_rng(3).standard_normal((3, 2, 3)).astype(np.float32)
    F.avg_pool1d(x, 3).backward(torch.tensor(g))
    assert np.array_equal(x.grad.numpy(), np.repeat(g / np.float32(3), 3, axis=2))
    x3 = _leaf((2, 2, 3, 3, 3), 4)
    g3 = np.random.default_rng(5).standard_normal((2, 2, 1, 1, 1)).astype(np.float32)
    F.avg_pool3d(x3, 3).backward(torch.tensor(g3))
    assert np.array_equal(x3.grad.numpy(), np.broadcast_to(g3 / np.float32(27), (2, 2, 3, 3, 3)))


def test_avg_pool2d_ceil_exclusive_grad_recorded():
    x = _leaf((1, 1, 5, 5), 1)
    F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False).backward(
        torch.ones(1, 1, 3, 3))
    a, b, c, d = 0.25, 0.4166666865348816, 0.1666666716337204, 0.694444477558136
    e, f = 0.2777777910232544, 0.1111111119389534
    want = [a, b, c, b, a, b, d, e, d, b, c, e, f, e, c, b, d, e, d, b, a, b, c, b, a]
    assert x.grad.reshape(-1).tolist() == want   # real torch 2.13


def test_divisor_override_forward_and_backward():
    x = _leaf((1, 1, 5, 5), 1)
    y = F.avg_pool2d(x, 2, 2, 1, ceil_mode=True, divisor_override=3)
    assert type(y.grad_fn).__name__ == "AvgPool2DBackward0"
    y.backward(torch.ones(1, 1, 3, 3))
    assert x.grad.reshape(-1).tolist() == [0.3333333432674408] * 25   # real torch 2.13
    xp = np.pad(x.detach().numpy()[0, 0], 1)[:6, :6]
    sums = xp.reshape(3, 2, 3, 2).sum((1, 3), dtype=np.float32)
    assert np.allclose(y.detach().numpy()[0, 0], sums / np.float32(3), rtol=1e-6)


def test_ceil_mode_last_window_starts_inside_input():
    x = _leaf((1, 1, 5, 5), 1)
    # shapes recorded from real torch 2.13 (sweep cases in /tmp/m8fix)
    assert tuple(F.max_pool2d(x, 2, 2, 1, ceil_mode=True).shape) == (1, 1, 3, 3)
    assert tuple(F.avg_pool1d(x[0], 3, 3, 1, ceil_mode=True).shape) == (1, 5, 2)
    assert tuple(F.avg_pool1d(torch.zeros(3, 2, 11), 3, 3, 1, ceil_mode=True).shape) == (3, 2, 4)
    assert tuple(F.avg_pool2d(torch.zeros(2, 3, 9, 10), 2, 2, 1, ceil_mode=True).shape) == \
        (2, 3, 5, 6)
    assert tuple(F.avg_pool3d(torch.zeros(2, 2, 7, 8, 6), 2, None, 1, ceil_mode=True,
                              count_include_pad=False).shape) == (2, 2, 4, 5, 4)


# ---- torch.cuda.amp on a CPU-only machine: warnings as real torch 2.13 shows them (recorded)
import warnings  # noqa: E402


def _caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(x.category.__name__, str(x.message), x.filename.replace("\\", "/"), x.lineno)
            for x in w]


_NO_CUDA = "CUDA is not available or torch_xla is imported. Disabling autocast."
_NO_CUDA_SCALER = "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."


def test_autocast_cuda_warns_at_caller():
    def run():
        with torch.autocast("cuda"):
            pass
    (cat, msg, fname, _line), = _caught(run)
    assert (cat, msg) == ("UserWarning", _NO_CUDA)
    assert fname == __file__.replace("\\", "/")


def test_cuda_amp_autocast_deprecated_then_library_site():
    def run():
        with torch.cuda.amp.autocast():
            pass
    (c1, m1, f1, _), (c2, m2, f2, l2) = _caught(run)
    assert (c1, m1) == ("FutureWarning", "`torch.cuda.amp.autocast(args...)` is deprecated. "
                        "Please use `torch.amp.autocast('cuda', args...)` instead.")
    assert f1 == __file__.replace("\\", "/")
    assert (c2, m2, l2) == ("UserWarning", _NO_CUDA, 54)
    assert f2.endswith("torch/cuda/amp/autocast_mode.py")


def test_cuda_amp_grad_scaler_library_site():
    got = []
    got += _caught(lambda: got.append(torch.cuda.amp.GradScaler()))
    scaler = got.pop(0)
    (c1, _m1, _f1, _), (c2, m2, f2, l2) = got
    assert c1 == "FutureWarning"
    assert (c2, m2, l2) == ("UserWarning", _NO_CUDA_SCALER, 31)
    assert f2.endswith("torch/cuda/amp/grad_scaler.py")
    assert scaler.is_enabled() is False and scaler.get_scale() == 1.0
    (c, m, f, _), = _caught(lambda: torch.amp.GradScaler("cuda"))
    assert (c, m, f) == ("UserWarning", _NO_CUDA_SCALER, __file__.replace("\\", "/"))
