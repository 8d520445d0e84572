"""``paddle.audio``: audio feature extraction (``functional``: mel scales, filter banks, windows,
decibels, DCT; ``features``: the Spectrogram / MelSpectrogram / LogMelSpectrogram / MFCC
layers). Reading and writing audio files (``load``, ``save``, ``info``, ``backends``) and the
downloaded datasets (``datasets``) are not emulated: they raise an AttributeError saying so."""
from . import features, functional  # noqa: F401

__all__ = ["functional", "features", "datasets", "backends", "load", "info", "save"]

_NOT_EMULATED = {
    "datasets": "the ESC50 and TESS datasets (downloads)",
    "backends": "audio file backends",
    "load": "reading audio files",
    "info": "reading audio files",
    "save": "writing audio files",
}


def __getattr__(name):
    if name in _NOT_EMULATED:
        raise AttributeError(f"module 'paddle.audio' has no attribute '{name}' (gradrepl's "
                             f"paddle does not emulate paddle.audio.{name}: "
                             f"{_NOT_EMULATED[name]})")
    raise AttributeError(f"module 'paddle.audio' has no attribute '{name}'")

from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
