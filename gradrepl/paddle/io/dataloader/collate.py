"""Collating samples into a batch, and what a DataLoader hands out.

``default_collate_fn`` stacks each field across the samples (numpy arrays with ``np.stack``,
numbers into a numpy array, tensors with ``paddle.stack``; dicts and sequences field by field;
strings stay lists). ``as_output`` is the step Paddle's loader takes after collating: every numpy
array or tensor of the batch becomes a fresh Tensor (stop_gradient=True, the array's dtype),
sequences become lists, dicts dicts, numbers and strings stay as they are.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np


def _tensor_type():
    from ...core import Tensor

    return Tensor


def default_collate_fn(batch):
    """Stack a list of samples field by field (see the module docstring)."""
    sample = batch[0]
    Tensor = _tensor_type()
    if isinstance(sample, np.ndarray):
        return np.stack(batch, axis=0)
    if isinstance(sample, Tensor):
        from ...tensor.manipulation import stack

        return stack(batch, axis=0)
    if isinstance(sample, numbers.Number):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return batch
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([d[key] for d in batch]) for key in sample}
    if isinstance(sample, Sequence):
        width = len(sample)
        if not all(len(s) == width for s in batch):
            from ... import profiles

            word = "fields" if profiles.current().api3 else "fileds"
            raise RuntimeError(f"{word} number not same among samples in a batch")
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError("batch data con only contains: tensor, numpy.ndarray, "
                    f"dict, list, number, but got {type(sample)}")


def default_convert_fn(batch):
    """The collate step without batching (``batch_size=None``): sequences become lists."""
    Tensor = _tensor_type()
    if isinstance(batch, (Tensor, np.ndarray, str, bytes)):
        return batch
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(batch[key]) for key in batch}
    if isinstance(batch, Sequence):
        return [default_convert_fn(d) for d in batch]
    return batch


def as_output(batch):
    """A collated batch as the loader yields it (see the module docstring)."""
    Tensor = _tensor_type()
    if isinstance(batch, (Tensor, np.ndarray)):
        from ...core import next_name

        data = batch.data if isinstance(batch, Tensor) else batch
        return Tensor(np.array(data), stop_gradient=True, name=next_name("eager_in_tmp"))
    if isinstance(batch, (str, bytes, numbers.Number)):
        return batch
    if isinstance(batch, Mapping):
        return {key: as_output(value) for key, value in batch.items()}
    if isinstance(batch, Sequence):
        return [as_output(field) for field in batch]
    return batch
