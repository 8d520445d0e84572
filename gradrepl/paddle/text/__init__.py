"""``paddle.text``: the NLP datasets and Viterbi decoding of a linear-chain CRF."""
from . import datasets
from .datasets import (Conll05st, Imdb, Imikolov, Movielens, UCIHousing, WMT14,  # noqa: F401
                       WMT16)
from .viterbi_decode import ViterbiDecoder, viterbi_decode  # noqa: F401

__all__ = ['Conll05st', 'Imdb', 'Imikolov', 'Movielens', 'UCIHousing', 'WMT14', 'WMT16',
           'ViterbiDecoder', 'viterbi_decode']

from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
