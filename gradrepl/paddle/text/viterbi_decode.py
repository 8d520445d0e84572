"""Viterbi decoding: the highest-scoring tag path of a linear-chain CRF.

``potentials[b, t, j]`` scores tag j at step t, ``transition_params[i, j]`` the move from tag i to
tag j. With ``include_bos_eos_tag`` the last tag is the start tag (every path starts from it)
and the one before it the stop tag (``transition_params[-2]`` is added at each sequence's end).
Scores are summed in float32 step by step, as Paddle's CPU kernel does; paths beyond a
sequence's length are 0.
"""
from __future__ import annotations

import numpy as np

from ..core import PaddleObject, Tensor
from ..nn.layer.layers import Layer

__all__ = []

_START, _STOP = -1, -2


def _decode_one(potentials, trans, length, include_bos_eos_tag):
    if include_bos_eos_tag:
        alpha = np.full(trans.shape[0], -1e4, trans.dtype)
        alpha[_START] = 0
        alpha = (alpha[:, None] + trans).max(0) + potentials[0]
    else:
        alpha = potentials[0].copy()
    history = []
    for t in range(1, length):
        scores = alpha[:, None] + trans            # [from, to]
        history.append(scores.argmax(0))
        alpha = scores.max(0) + potentials[t]
    if include_bos_eos_tag:
        alpha = alpha + trans[_STOP]
    best = int(alpha.argmax())
    path = [best]
    for back in reversed(history):
        best = int(back[best])
        path.append(best)
    return alpha.max(), path[::-1]


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True,
                   name=None):
    """The best path's score ``[batch]`` and its tags ``[batch, max(lengths)]`` (int64)."""
    pot = np.asarray(potentials.data if isinstance(potentials, Tensor) else potentials)
    trans = np.asarray(transition_params.data if isinstance(transition_params, Tensor)
                       else transition_params).astype(pot.dtype, copy=False)
    lens = np.asarray(lengths.data if isinstance(lengths, Tensor) else lengths).astype(np.int64)
    if pot.ndim != 3:
        raise ValueError(f"The rank of Input in viterbi_decode must be 3. But received "
                         f"Input's rank is {pot.ndim}.")
    if trans.shape != (pot.shape[2], pot.shape[2]):
        raise ValueError(f"viterbi_decode: transition_params must be [num_tags, num_tags] = "
                         f"[{pot.shape[2]}, {pot.shape[2]}], but received {list(trans.shape)}.")
    width = int(lens.max()) if lens.size else 0
    scores = np.zeros(pot.shape[0], pot.dtype)
    paths = np.zeros((pot.shape[0], width), np.int64)
    for b, length in enumerate(lens):
        length = int(min(length, pot.shape[1]))
        if length <= 0:
            continue
        scores[b], path = _decode_one(pot[b], trans, length, include_bos_eos_tag)
        paths[b, :length] = path
    return Tensor(scores), Tensor(paths)


class ViterbiDecoder(Layer):
    """A Layer holding the transition matrix: ``decoder(potentials, lengths)``."""

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag,
                              self.name)


del PaddleObject
