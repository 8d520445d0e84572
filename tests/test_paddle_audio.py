"""``paddle.audio`` (gradrepl/paddle/audio): the functional pieces, the windows and the feature
layers, against real Paddle 3.3.1 and 2.6.2 on this project's Intel Sapphire Rapids machine
(2026-12-07): sha256 digests (first 12 hex digits) of each result's bytes, and the messages.

Known differences, not recorded here: float64 windows or matrices that go through a float64
``cos`` (real 3.3.1's differs from the C library's in about 1.8% of values, 2.6.2's does not) or a
float64 ``x ** p`` (real Paddle's differs from numpy's and glibc's pow in about 6-9% of values):
``create_dct(..., dtype='float64')`` (3.3.1), the float64 ``general_gaussian`` window,
``mel_to_hz`` of float64 mels (2.6.2), the float64 ``taylor`` window (2.6.2).
"""
from __future__ import annotations

import hashlib
import platform

import numpy as np
import pytest

from conftest import skip_unless_mkl_path

# real Paddle: the same for 3.3.1 and 2.6.2 unless a (3.3.1, 2.6.2) pair
_FUNCTIONAL = {
    "hz_to_mel": ("7840c21b03c6", "de50b5cda02f"),
    "hz_to_mel_htk": "dae8705c36bb",
    "hz_to_mel_float": "36.55005436260166 549.6386753811499",
    "mel_to_hz_htk": "e32a4db675f5",
    "mel_frequencies": ("55f945598b0d", "019c7a9741a9"),
    "fft_frequencies": "2c2e83dd78d3",
    "fbank_slaney": ("ad9f827e2927", "2dac0309fa2f"),
    "fbank_norm2_htk": ("4f1f3b437790", "2a9f4fa123c0"),
    "power_to_db": "01e71854a9f2",
    "create_dct": ("f6cc2d26ef40", "a0e1df1ec97e"),
}
# (periodic float64 of 31, symmetric float32 of 32)
_WINDOWS = {
    "hann": ("9ad9dd9b0467", ("2f9dd344855c", "65785be64c95")),
    "hamming": ("1a2d34d51a0f", ("af001bbc65d1", "f926c3ac75ec")),
    "blackman": ("ab6238a97449", ("e5c61c916754", "d7655de34300")),
    "bartlett": ("f4b717b41e17", "90e0f8f6edc6"),
    ("kaiser", 8.0): ("861fa5117a89", "f8c95406706c"),
    "nuttall": ("2aa3fdf31bf9", "ce10c176fece"),
    ("gaussian", 7.0): (("2809388683b9", "b0e603154712"), ("9965857909b1", "284ca411b4c6")),
    ("exponential", None, 3.0): (("df8d0187c876", "ed68f6865505"),
                                 ("a1c7dc45d837", "9cf4371a127e")),
    "triang": ("2b3b65575ece", "894e2c0d049b"),
    "bohman": ("04b8fd4d5d97", ("4b01a81ca0a0", "3f619de95826")),
    "cosine": ("c27e9abca3dd", ("e661c6d6adda", "4eed7039cb6b")),
    ("tukey", 0.5): (("ce3f0e1df8fe", "a7d8b005b351"), ("0bf6ff1746e1", "fffd3dd4767f")),
    "taylor": (("ea89ca4a8fcb", None), ("f19d5f8a8336", "f5cedff3f63c")),
    ("general_gaussian", 1.5, 7.0): ((None, None), ("621fb5fca78f", "91b86b080110")),
}
_SINCE3 = ("bartlett", ("kaiser", 8.0), "nuttall")
_FEATURES = {
    "Spectrogram": ("49a33528f7ab", "4ce7d68d8f95"),
    "MelSpectrogram": ("16131fba4af8", "a2a240ded0d6"),
    "LogMel": ("3b4b52da1364", "673a556a28d1"),
    "MFCC": ("69cd984c7a1e", "6d8fc729eec9"),
}


def _pick(rec, version):
    return rec if isinstance(rec, str) or rec is None else rec[0 if version == "3" else 1]


def h(t):
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:12]


@pytest.fixture(params=["3", "2.6"])
def version(request):
    from gradrepl.paddle import state

    state.reset(request.param)
    yield request.param
    state.reset()


def test_functional(version):
    import gradrepl.paddle as paddle

    AF = paddle.audio.functional
    f = paddle.to_tensor([0.0, 200.0, 999.0, 1000.0, 1001.0, 4400.0, 11025.0])
    m = paddle.to_tensor([0.0, 3.0, 15.0, 15.5, 40.0], dtype="float64")
    got = {
        "hz_to_mel": h(AF.hz_to_mel(f)),
        "hz_to_mel_htk": h(AF.hz_to_mel(f, htk=True)),
        "hz_to_mel_float": f"{AF.hz_to_mel(4400.0)!r} {AF.hz_to_mel(440.0, htk=True)!r}",
        "mel_to_hz_htk": h(AF.mel_to_hz(m, htk=True)),
        "mel_frequencies": h(AF.mel_frequencies(n_mels=40, f_min=20.0, f_max=8000.0)),
        "fft_frequencies": h(AF.fft_frequencies(sr=16000, n_fft=400, dtype="float64")),
        "fbank_slaney": h(AF.compute_fbank_matrix(sr=16000, n_fft=512, n_mels=40, f_min=20.0)),
        "fbank_norm2_htk": h(AF.compute_fbank_matrix(sr=16000, n_fft=256, n_mels=20, htk=True,
                                                     norm=2.0)),
        "power_to_db": h(AF.power_to_db(paddle.to_tensor([[1.0, 0.5, 1e-3], [1e-12, 30.0, 7.0]]),
                                        ref_value=2.0, top_db=40.0)),
        "create_dct": h(AF.create_dct(13, 40)),
    }
    assert got == {k: _pick(v, version) for k, v in _FUNCTIONAL.items()}


@pytest.mark.parametrize("window", list(_WINDOWS), ids=str)
def test_get_window(version, window):
    if window == "taylor":
        skip_unless_mkl_path("the taylor window's float64 cos (MKL's vdCos, as real Paddle on x86-64)")
    import gradrepl.paddle as paddle

    AF = paddle.audio.functional
    if version == "2.6" and window in _SINCE3:
        with pytest.raises(ValueError, match=r"^Unknown window type\.$"):
            AF.get_window(window, 31)
        return
    periodic64, symmetric32 = (_pick(r, version) for r in _WINDOWS[window])
    if periodic64 is not None:
        assert h(AF.get_window(window, 31)) == periodic64
    w = AF.get_window(window, 32, fftbins=False, dtype="float32")
    assert h(w) == symmetric32 and w.dtype == paddle.float32


def test_window_errors(version):
    import gradrepl.paddle as paddle

    AF = paddle.audio.functional
    kaiser = ("The 'kaiser' window needs one or more parameters -- pass a tuple." if version == "3"
              else "Unknown window type.")
    for name, message in (("kaiser", kaiser), ("nope", "Unknown window type.")):
        with pytest.raises(ValueError) as e:
            AF.get_window(name, 8)
        assert str(e.value) == message


def test_feature_layers(version):
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("recorded on x86-64 (numpy's pocketfft build there matches Paddle's stft)")
    skip_unless_mkl_path("paddle.audio features (the mel filter bank's MKL sgemm)")
    import gradrepl.paddle as paddle
    from gradrepl.paddle.audio.features import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

    x = paddle.to_tensor(np.random.RandomState(3).randn(2, 4000).astype("float32"))
    mfcc = MFCC(sr=16000, n_mfcc=20, n_fft=400, hop_length=160, n_mels=40, window="hamming")
    got = {
        "Spectrogram": h(Spectrogram(n_fft=256, hop_length=100, power=2.0)(x)),
        "MelSpectrogram": h(MelSpectrogram(sr=16000, n_fft=512, hop_length=160, n_mels=40)(x)),
        "LogMel": h(LogMelSpectrogram(sr=16000, n_fft=400, hop_length=160, n_mels=32,
                                      top_db=80.0)(x)),
        "MFCC": h(mfcc(x)),
    }
    assert got == {k: _pick(v, version) for k, v in _FEATURES.items()}
    assert sorted(k for k, _ in mfcc.named_buffers()) == [
        "_log_melspectrogram._melspectrogram._spectrogram.fft_window",
        "_log_melspectrogram._melspectrogram.fbank_matrix", "dct_matrix"]


def test_complex_abs_is_hypot(version):
    """Real 3.3.1 and 2.6.2: |z| of complex64 is the correctly rounded hypot (numpy's complex
    abs differed in 398 of 1000 values)."""
    import gradrepl.paddle as paddle

    rs = np.random.RandomState(3)
    rs.randn(2, 4000)
    z = paddle.to_tensor((rs.randn(50) + 1j * rs.randn(50)).astype("complex64"))
    assert h(paddle.abs(z)) == "74912484809c"


def test_not_emulated_parts(version):
    import gradrepl.paddle as paddle

    with pytest.raises(AttributeError, match=r"does not emulate paddle\.audio\.load"):
        paddle.audio.load  # noqa: B018
    with pytest.raises(AttributeError, match=r"does not emulate paddle\.audio\.datasets"):
        paddle.audio.datasets  # noqa: B018
