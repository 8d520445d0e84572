"""``paddle.signal``: ``frame``, ``overlap_add`` (ops with each other as gradient:
``engine/ops/paddle_nn_gaps.py``) and ``stft`` / ``istft``, Paddle's compositions of them
with padding, the window and ``paddle.fft``'s r2c / c2c / c2r transforms, step for step."""
from __future__ import annotations

from ..engine.ops import paddle_nn_gaps as _G

__all__ = ["frame", "overlap_add", "stft", "istft"]


def _P():
    from .. import paddle

    return paddle


def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Frames of ``frame_length`` samples every ``hop_length``: [..., T] -> [..., L, n]
    (axis -1) or [T, ...] -> [n, L, ...] (axis 0)."""
    if axis not in [0, -1]:
        raise ValueError(f"Unexpected axis: {axis}. It should be 0 or -1.")
    if not isinstance(frame_length, int) or frame_length <= 0:
        raise ValueError(f"Unexpected frame_length: {frame_length}. It should be an positive "
                         "integer.")
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be an positive "
                         "integer.")
    if frame_length > x.shape[axis]:
        raise ValueError("Attribute frame_length should be less equal than sequence length, but "
                         f"got ({frame_length}) > ({x.shape[axis]}).")
    return _G.frame(x, frame_length, hop_length, axis)


def overlap_add(x, hop_length, axis=-1, name=None):
    """The frames added back at every ``hop_length`` (frame's adjoint)."""
    if axis not in [0, -1]:
        raise ValueError(f"Unexpected axis: {axis}. It should be 0 or -1.")
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be an positive "
                         "integer.")
    return _G.overlap_add(x, hop_length, axis)


def _padded_window(window, win_length, n_fft):
    P = _P()
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = P.nn.functional.pad(window, pad=[left, n_fft - win_length - left],
                                     mode="constant")
    return window


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, name=None):
    """Short-time Fourier transform of a 1-D or 2-D (batch) signal: [.., n_fft // 2 + 1 (or
    n_fft), frames]."""
    P = _P()
    from .fft import fft_c2c, fft_r2c

    rank = len(x.shape)
    assert rank in [1, 2], f"x should be a 1D or 2D real tensor, but got rank of x is {rank}"
    if rank == 1:
        x = x.unsqueeze(0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    assert hop_length > 0, f"hop_length should be > 0, but got {hop_length}."
    if win_length is None:
        win_length = n_fft
    assert 0 < n_fft <= x.shape[-1], (f"n_fft should be in (0, seq_length({x.shape[-1]})], but "
                                      f"got {n_fft}.")
    assert 0 < win_length <= n_fft, (f"win_length should be in (0, n_fft({n_fft})], but got "
                                     f"{win_length}.")
    if window is not None:
        assert len(window.shape) == 1 and len(window) == win_length, (
            f"expected a 1D window tensor of size equal to win_length({win_length}), but got "
            f"window with shape {window.shape}.")
    else:
        window = P.ones(shape=(win_length,), dtype=x.dtype)
    window = _padded_window(window, win_length, n_fft)
    if center:
        assert pad_mode in ["constant", "reflect"], (
            f'pad_mode should be "reflect" or "constant", but got "{pad_mode}".')
        half = n_fft // 2
        x = P.nn.functional.pad(x.unsqueeze(-1), pad=[half, half], mode=pad_mode,
                                data_format="NLC").squeeze(-1)
    frames = frame(x=x, frame_length=n_fft, hop_length=hop_length, axis=-1)
    frames = P.multiply(frames.transpose(perm=[0, 2, 1]), window)
    norm = "ortho" if normalized else "backward"
    if onesided is None:
        onesided = not P.is_complex(frames)
    if P.is_complex(frames):
        assert not onesided, "onesided should be False when input or window is a complex Tensor."
    if not P.is_complex(x):
        out = fft_r2c(x=frames, n=None, axis=-1, norm=norm, forward=True, onesided=onesided,
                      name=name)
    else:
        out = fft_c2c(x=frames, n=None, axis=-1, norm=norm, forward=True, name=name)
    out = out.transpose(perm=[0, 2, 1])
    if rank == 1:
        out.squeeze_(0)
    return out


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=True, length=None, return_complex=False, name=None):
    """Inverse of ``stft`` by windowed overlap-add, divided by the window's squared envelope."""
    P = _P()
    from .fft import fft_c2c, fft_c2r

    if x.dtype not in (P.complex64, P.complex128):
        raise TypeError("The data type of 'x' in istft must be ['complex64', 'complex128'], but "
                        f"received {str(x.dtype).split('.')[-1]}. ")
    rank = len(x.shape)
    assert rank in [2, 3], f"x should be a 2D or 3D complex tensor, but got rank of x is {rank}"
    if rank == 2:
        x = x.unsqueeze(0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    if win_length is None:
        win_length = n_fft
    assert 0 < hop_length <= win_length, (f"hop_length should be in (0, win_length("
                                          f"{win_length})], but got {hop_length}.")
    assert 0 < win_length <= n_fft, (f"win_length should be in (0, n_fft({n_fft})], but got "
                                     f"{win_length}.")
    n_frames, fft_size = x.shape[-1], x.shape[-2]
    assert x.size != 0, "x should not be an empty tensor."
    if onesided:
        assert fft_size == n_fft // 2 + 1, (f"fft_size should be equal to n_fft // 2 + 1("
                                            f"{n_fft // 2 + 1}) when onesided is True, but got "
                                            f"{fft_size}.")
    else:
        assert fft_size == n_fft, (f"fft_size should be equal to n_fft({n_fft}) when onesided "
                                   f"is False, but got {fft_size}.")
    if window is not None:
        assert len(window.shape) == 1 and len(window) == win_length, (
            f"expected a 1D window tensor of size equal to win_length({win_length}), but got "
            f"window with shape {window.shape}.")
    else:
        wdt = P.float32 if x.dtype in [P.float32, P.complex64] else P.float64
        window = P.ones(shape=(win_length,), dtype=wdt)
    window = _padded_window(window, win_length, n_fft)
    x = x.transpose(perm=[0, 2, 1])
    norm = "ortho" if normalized else "backward"
    if return_complex:
        assert not onesided, ("onesided should be False when input(output of istft) or window "
                              "is a complex Tensor.")
        out = fft_c2c(x=x, n=None, axis=-1, norm=norm, forward=False, name=None)
    else:
        assert not P.is_complex(window), ("Data type of window should not be complex when "
                                          "return_complex is False.")
        if onesided is False:
            x = x[:, :, :n_fft // 2 + 1]
        out = fft_c2r(x=x, n=None, axis=-1, norm=norm, forward=False, name=None)
    out = P.multiply(out, window).transpose(perm=[0, 2, 1])
    out = overlap_add(x=out, hop_length=hop_length, axis=-1)
    envelope = overlap_add(
        x=P.tile(x=P.multiply(window, window).unsqueeze(0), repeat_times=[n_frames, 1])
        .transpose(perm=[1, 0]), hop_length=hop_length, axis=-1)
    if length is None:
        if center:
            out = out[:, n_fft // 2:-(n_fft // 2)]
            envelope = envelope[n_fft // 2:-(n_fft // 2)]
    else:
        start = n_fft // 2 if center else 0
        out = out[:, start:start + length]
        envelope = envelope[start:start + length]
    if envelope.abs().min().item() < 1e-11:
        raise ValueError("Abort istft because Nonzero Overlap Add (NOLA) condition failed. For "
                         "more information about NOLA constraint please see "
                         "`scipy.signal.check_NOLA`(https://docs.scipy.org/doc/scipy/reference/"
                         "generated/scipy.signal.check_NOLA.html).")
    out = out / envelope
    if rank == 2:
        out = P.squeeze(out, axis=0)
    return out

from .names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
