"""``paddle.save`` and ``paddle.load`` in Paddle's own file format, so files go both ways.

Paddle (2.1 and later, dygraph) writes a pickle:

* a *state dict* (a dict whose values are all tensors, e.g. ``layer.state_dict()``) becomes a dict
  of numpy arrays plus ``"StructuredToParameterName@@"``, the table of each key's tensor name;
* anything else (a tensor, nested lists/tuples/dicts of tensors and plain values) is pickled as
  it is, each tensor reduced to the tuple ``(name, ndarray)``; a Layer is refused.

``load`` reverses both: arrays of a state dict come back as tensors carrying their saved names,
``(name, ndarray)`` tuples anywhere become tensors, and with ``return_numpy=True`` arrays stay
arrays. Only numpy and the standard library are involved, so real Paddle reads what gradrepl
writes and the other way round (tests check the bytes of both directions against files made
by Paddle 3.3.1). Like any pickle, a file from an untrusted source can run code when loaded.
"""
from __future__ import annotations

import collections
import copyreg
import io as _io
import os
import pickle
import warnings
from collections.abc import Iterable

import numpy as np

NAME_TABLE = "StructuredToParameterName@@"


def _tensor_type():
    from ..core import Tensor

    return Tensor


def _layer_type():
    from ..nn.layer.layers import Layer

    return Layer


def _is_memory_buffer(path):
    return isinstance(path, _io.BytesIO)


def _is_file_path(path):
    return isinstance(path, str)


def _check_protocol(protocol):
    if not isinstance(protocol, int):
        raise ValueError(f"The 'protocol' MUST be `int`, but received {type(protocol)}")
    if protocol < 2 or protocol > 4:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")


def _prepare_path(path):
    if _is_file_path(path):
        if os.path.basename(path) == "":
            raise ValueError(
                "The input path MUST be format of dirname/filename [dirname\\filename in Windows "
                "system], but received filename is empty string.")
        dirname = os.path.dirname(path)
        if dirname and not os.path.exists(dirname):
            os.makedirs(dirname, exist_ok=True)
    elif not _is_memory_buffer(path):
        raise ValueError(
            f"only supports saving objects to file and `BytesIO`, but got {type(path)}")


def _contains(obj, condition):
    if condition(obj):
        return True
    if type(obj) in (dict, collections.OrderedDict):
        return any(_contains(v, condition) for v in obj.values())
    if type(obj) in (list, tuple):
        return any(_contains(v, condition) for v in obj)
    return False


def _is_state_dict(obj):
    """Paddle's rule: a dict whose values are tensors, or dicts holding no tensor or Layer."""
    if not isinstance(obj, dict):
        return False
    T, L = _tensor_type(), _layer_type()
    for value in obj.values():
        if isinstance(value, dict):
            if any(_contains(v, lambda o: isinstance(o, (T, L))) for v in value.values()):
                return False
        elif not isinstance(value, T):
            return False
    return True


def _open(path, mode):
    if _is_memory_buffer(path):
        return _NoClose(path)
    return open(path, mode)


class _NoClose:
    """A BytesIO used as a context manager without being closed (Paddle leaves it open)."""

    def __init__(self, buf):
        self.buf = buf

    def __enter__(self):
        return self.buf

    def __exit__(self, *exc):
        return False


class _Pickler(pickle.Pickler):
    """Tensors (parameters included) as ``(name, ndarray)``; a Layer is refused."""

    def reducer_override(self, obj):
        if isinstance(obj, _tensor_type()):
            return (tuple, ((obj.name, np.array(obj.data)),))
        if isinstance(obj, _layer_type()):
            raise ValueError("paddle do not support saving `paddle.nn.Layer` object.")
        return NotImplemented


def save(obj, path, protocol=4, **configs):
    """Save ``obj`` (a state dict, a tensor, or a nested structure of them) to ``path`` (a file
    name or a ``BytesIO``), in Paddle's format."""
    _prepare_path(path)
    if configs.get("use_binary_format"):
        raise NotImplementedError(
            "paddle.save(..., use_binary_format=True) (Paddle's C++ tensor stream) is not part "
            "of gradrepl: save without it (the pickle format real Paddle also reads)")
    if configs.get("pickle_protocol") is not None:
        protocol = configs["pickle_protocol"]
        warnings.warn("'pickle_protocol' is a deprecated argument. Please use 'protocol' "
                      "instead.")
    _check_protocol(protocol)
    if _is_state_dict(obj):
        if len(obj) == 0:
            warnings.warn("The input state dict is empty, no need to save.")
        saved, names = {}, {}
        T = _tensor_type()
        for key, value in obj.items():
            if isinstance(value, T):
                saved[key] = np.array(value.data)
                names[key] = value.name
            else:
                saved[key] = value
        saved[NAME_TABLE] = names
        with _open(path, "wb") as f:
            pickle.dump(saved, f, protocol=protocol)
        return
    _check_iterables(obj)
    with _open(path, "wb") as f:
        pickler = _Pickler(f, protocol)
        pickler.dispatch_table = copyreg.dispatch_table.copy()
        pickler.dump(obj)


def _check_iterables(obj):
    T = _tensor_type()
    if type(obj) in (dict, collections.OrderedDict):
        for v in obj.values():
            _check_iterables(v)
    elif type(obj) in (list, tuple, set):
        for v in obj:
            _check_iterables(v)
    elif isinstance(obj, Iterable) and not isinstance(obj, (str, bytes, np.ndarray, T)):
        raise NotImplementedError(
            "The iterable objects supported are tuple, list, dict, OrderedDict, string. But "
            f"received {type(obj)}.")


def _from_saved_tensor(obj):
    return (isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str)
            and isinstance(obj[1], np.ndarray))


def _map(obj, condition, convert):
    if condition(obj):
        return convert(obj)
    if type(obj) in (dict, collections.OrderedDict):
        for key in list(obj):
            obj[key] = _map(obj[key], condition, convert)
        return obj
    if type(obj) is list:
        return [_map(v, condition, convert) for v in obj]
    if type(obj) is tuple:
        return tuple(_map(v, condition, convert) for v in obj)
    if type(obj) is set:
        return {_map(v, condition, convert) for v in obj}
    return obj


def _to_tensor(arr, name=None):
    from ..tensor.creation import to_tensor

    t = to_tensor(arr)
    if name:
        t.name = name
    return t


def load(path, **configs):
    """Load what ``save`` (gradrepl's or Paddle's) wrote: tensors come back as tensors (with
    their saved names), or as numpy arrays with ``return_numpy=True``."""
    return_numpy = bool(configs.get("return_numpy", False))
    keep_name_table = bool(configs.get("keep_name_table", False))
    if not _is_memory_buffer(path):
        if not isinstance(path, (str, os.PathLike)) or not os.path.exists(path):
            raise ValueError(f"The ``path`` ({path}) to load model not exists.")
        if not os.path.isfile(path):
            raise ValueError(f"`paddle.load` can not parse the file:{path}.")
    try:
        with _open(path, "rb") as f:
            result = pickle.load(f, encoding="latin1")
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError) as exc:
        raise ValueError(f"`paddle.load` can not parse the file:{path}.") from exc
    if isinstance(result, dict) and NAME_TABLE in result:
        for key, name in result[NAME_TABLE].items():
            if isinstance(result.get(key), np.ndarray):
                result[key] = result[key] if return_numpy else _to_tensor(result[key], name)
        if not keep_name_table:
            del result[NAME_TABLE]
        return result
    if _contains(result, _from_saved_tensor):
        return _map(result, _from_saved_tensor,
                    lambda o: o[1] if return_numpy else _to_tensor(o[1], o[0]))
    return _map(result, lambda o: isinstance(o, np.ndarray),
                lambda o: o if return_numpy else _to_tensor(o))
