"""``torch.nn.utils.rnn``: ``PackedSequence`` and packing/padding of variable-length sequences
(``pack_padded_sequence``, ``pad_packed_sequence``, ``pad_sequence``, ``pack_sequence``,
``unpack_sequence``, ``unpad_sequence``), as torch 2.13 computes them: the packed data is one
gather of the padded steps (``PackPaddedSequenceBackward0``), padding is slice copies into a
filled tensor (``CopySlices``)."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..._base import EngineTensor, raw
from ..._tensor import Tensor
from ....engine.registry import apply

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]

PackedSequence_ = namedtuple("PackedSequence_",
                             ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])
PackedSequence_.__module__ = "torch.nn.utils.rnn"


def _long(a):
    return Tensor._wrap(np.asarray(a, np.int64))


class PackedSequence(PackedSequence_):
    """Holds the data and the list of ``batch_sizes`` of a packed sequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if raw(batch_sizes).dtype != np.int64:
                raise RuntimeError("batch_sizes should always be on CPU. Instances of "
                                   "PackedSequence should never be created manually. They "
                                   "should be instantiated by functions like pack_sequence "
                                   "and pack_padded_sequences in nn.utils.rnn. "
                                   "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn."
                                   "pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def pin_memory(self):
        return self

    def cuda(self, *args, **kwargs):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def cpu(self, *args, **kwargs):
        return self

    def _with_data(self, data):
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args, **kwargs):
        return self._with_data(self.data.to(*args, **kwargs))

    def double(self):
        return self._with_data(self.data.double())

    def float(self):  # noqa: A003
        return self._with_data(self.data.float())

    def half(self):
        return self._with_data(self.data.half())

    def long(self):
        return self._with_data(self.data.long())

    def int(self):  # noqa: A003
        return self._with_data(self.data.int())

    def short(self):
        return self._with_data(self.data.short())

    def char(self):
        return self._with_data(self.data.char())

    def byte(self):
        return self._with_data(self.data.byte())

    def bfloat16(self):
        return self._with_data(self.data.bfloat16())

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


PackedSequence.__module__ = "torch.nn.utils.rnn"


def invert_permutation(permutation):
    if permutation is None:
        return None
    p = raw(permutation).astype(np.int64)
    out = np.empty_like(p)
    out[p] = np.arange(p.size, dtype=np.int64)
    return _long(out)


def _lengths_list(lengths):
    if isinstance(lengths, EngineTensor):
        return [int(v) for v in raw(lengths).reshape(-1).tolist()]
    return [int(v) for v in lengths]


def _pack(input, lengths, batch_first):  # noqa: A002
    """ATen's ``_pack_padded_sequence`` on ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``)."""
    from ... import _ops

    a = raw(input)
    if batch_first:
        input = _ops.transpose(input, 0, 1)
        a = raw(input)
    lens = lengths
    if a.ndim < 2:
        raise RuntimeError("pack_padded_sequence(): input must be at least 2-D")
    batch = a.shape[1]
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={batch})")
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    for i in range(1, len(lens)):
        if lens[i - 1] < lens[i]:
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
    if lens and lens[0] > a.shape[0]:
        raise RuntimeError(f"Expected sequence length to be at most {a.shape[0]}, but got "
                           f"{lens[0]}")
    t_idx, b_idx, batch_sizes = [], [], []
    for t in range(lens[0] if lens else 0):
        bs = sum(1 for v in lens if v > t)
        batch_sizes.append(bs)
        t_idx.extend([t] * bs)
        b_idx.extend(range(bs))
    from ..._ops import top

    index = (np.asarray(t_idx, np.int64), np.asarray(b_idx, np.int64))
    data = apply(top("index_elementwise_get", "PackPaddedSequenceBackward0", "other"),
                 (input,), {"index": index})
    return data, _long(batch_sizes)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):  # noqa: A002
    """Packs a padded batch of variable-length sequences."""
    from ... import _ops

    lens = _lengths_list(lengths)
    if enforce_sorted:
        sorted_indices = None
    else:
        order = [int(i) for i in np.argsort(-np.asarray(lens, np.int64), kind="stable")]
        lens = [lens[i] for i in order]
        sorted_indices = _long(order)
        input = _ops.index_select(input, 0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack(input, lens, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Pads a packed batch of variable-length sequences (the inverse of
    ``pack_padded_sequence``); returns the padded tensor and the lengths."""
    from ... import _ops

    bs = [int(v) for v in raw(sequence.batch_sizes).tolist()]
    max_len = len(bs)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_len}")
        max_len = total_length
    data = sequence.data
    d = raw(data)
    batch = bs[0] if bs else 0
    out = Tensor._wrap(np.full((max_len, batch) + d.shape[1:], padding_value, d.dtype))
    offset = 0
    for t, b in enumerate(bs):
        out[t, :b] = _ops.narrow(data, 0, offset, b)
        offset += b
    lengths = np.zeros(batch, np.int64)
    for b in bs:
        lengths[:b] += 1
    if batch_first:
        out = _ops.transpose(out, 0, 1)
    lengths_t = _long(lengths)
    if sequence.unsorted_indices is not None:
        ui = sequence.unsorted_indices
        return (_ops.index_select(out, 0 if batch_first else 1, ui),
                _long(lengths[raw(ui).astype(np.int64)]))
    return out, lengths_t


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Pads a list of variable-length tensors with ``padding_value`` into one tensor."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if isinstance(sequences, EngineTensor):
        sequences = list(sequences.unbind(0))
    seqs = list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    first = raw(seqs[0])
    max_len = max(raw(s).shape[0] for s in seqs)
    trailing = first.shape[1:]
    shape = ((len(seqs), max_len) if batch_first else (max_len, len(seqs))) + trailing
    out = Tensor._wrap(np.full(shape, padding_value, first.dtype))
    for i, s in enumerate(seqs):
        n = raw(s).shape[0]
        start = 0 if padding_side == "right" else max_len - n
        if batch_first:
            out[i, start:start + n] = s
        else:
            out[start:start + n, i] = s
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Unpads a padded tensor into a list of variable-length tensors (with ``batch_first``
    False it transposes ``padded_sequences`` in place, as torch does)."""
    from ... import _creation

    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = raw(padded_sequences).shape[1]
    idx = _creation.arange(max_length)
    out = []
    for seq, length in zip(padded_sequences, lengths):
        mask = idx < length
        out.append(seq[mask])
    return out


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of variable-length tensors."""
    lengths = _long([raw(v).shape[0] for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Unpacks a PackedSequence into a list of variable-length tensors."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
