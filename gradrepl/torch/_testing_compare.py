"""``torch.testing.assert_close`` as torch 2.13 compares and words its failures.

The inputs are walked as torch walks them: sequences (not strings) and mappings item by item,
each leaf pair handled by the first kind that takes it (None, booleans, Python numbers, tensor-
likes); anything else is a TypeError. Tensors are compared in their own (or promoted) dtype with
the dialect's own ops, so the differences printed carry torch's bits (a float32 difference
prints as the float32 value it is). The first failing pair raises, its item path appended.
"""
from __future__ import annotations

import cmath
import collections.abc

import numpy as np

# torch's default (rtol, atol) by dtype name; other dtypes compare exactly
_PRECISIONS = {"float16": (1e-3, 1e-5), "bfloat16": (0.016, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5),
               "complex128": (1e-7, 1e-7)}
# the dtype a Python number stands for, for its default tolerances
_NUMBER_DTYPE = {int: "int64", float: "float64", complex: "complex128"}


class _Failure(Exception):
    """One comparison's failure: the exception type, its message and the item path."""

    def __init__(self, kind, msg, path=()):
        super().__init__(msg)
        self.kind, self.msg, self.path = kind, msg, path

    def error(self, msg=None):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.msg
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(str([k]) for k in self.path)
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """This kind of pair does not take these inputs: try the next kind."""


def _tolerances(dtype_names, rtol, atol, path):
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                       f"but got no {'rtol' if rtol is None else 'atol'}.", path)
    if rtol is not None:
        return rtol, atol
    pairs = [_PRECISIONS.get(name, (0.0, 0.0)) for name in dtype_names]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch_msg(what, rtol, atol, extra, abs_diff, abs_idx, rel_diff, rel_idx):
    equality = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if equality else 'close'}!", "", extra]
    for kind, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol),
                                 ("relative", rel_diff, rel_idx, rtol)):
        line = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        lines.append(line if equality else f"{line} (up to {tol} allowed)")
    return "\n".join(lines)


def _scalar_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", rtol, atol, f"Expected {expected} but got {actual}.",
                         abs_diff, None, rel_diff, None)


# ---- the kinds of leaf pairs, tried in torch's order --------------------------------------------

def _none_pair(actual, expected, path, opts):
    if actual is not None and expected is not None:
        raise _Unsupported

    def compare():
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)
    return compare


def _bool_pair(actual, expected, path, opts):
    if not all(isinstance(v, (bool, np.bool_)) for v in (actual, expected)):
        raise _Unsupported
    a, e = bool(actual), bool(expected)

    def compare():
        if a is not e:
            raise _Failure(AssertionError, f"Booleans mismatch: {a} is not {e}", path)
    return compare


def _number_pair(actual, expected, path, opts):
    if not all(isinstance(v, (int, float, complex, np.number)) for v in (actual, expected)):
        raise _Unsupported
    a, e = (v.item() if isinstance(v, np.number) else v for v in (actual, expected))
    for v in (a, e):
        if type(v) not in _NUMBER_DTYPE:
            raise _Failure(TypeError, f"Unknown number type {type(v)}.", path)
    rtol, atol = _tolerances([_NUMBER_DTYPE[type(v)] for v in (a, e)], opts["rtol"],
                             opts["atol"], path)

    def compare():
        if opts["check_dtype"] and type(a) is not type(e):
            raise _Failure(AssertionError,
                           f"The (d)types do not match: {type(a)} != {type(e)}.", path)
        if a == e or (opts["equal_nan"] and cmath.isnan(a) and cmath.isnan(e)):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= atol + rtol * abs(e):
            return
        raise _Failure(AssertionError, _scalar_msg(a, e, rtol, atol), path)
    return compare


def _tensor_pair(actual, expected, path, opts):
    from .. import torch as T

    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or (not opts["allow_subclasses"] and type(actual) is not type(expected)):
        raise _Unsupported
    try:
        a, e = (v if isinstance(v, T.Tensor) else T.as_tensor(v) for v in (actual, expected))
    except Exception:
        raise _Unsupported from None
    rtol, atol = _tolerances([str(t.dtype)[6:] for t in (a, e)], opts["rtol"], opts["atol"], path)

    def compare():
        _compare_tensors(T, a.detach(), e.detach(), rtol, atol, path, opts)
    return compare


_PAIR_KINDS = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _attribute_mismatch(name, actual, expected, path):
    return _Failure(AssertionError, f"The values for attribute '{name}' do not match: "
                    f"{actual} != {expected}.", path)


def _compare_tensors(T, a, e, rtol, atol, path, opts):
    if a.shape != e.shape:
        raise _attribute_mismatch("shape", a.shape, e.shape, path)
    if opts["check_device"] and a.device != e.device:
        raise _attribute_mismatch("device", a.device, e.device, path)
    if a.dtype != e.dtype:
        if opts["check_dtype"]:
            raise _attribute_mismatch("dtype", a.dtype, e.dtype, path)
        dtype = T.promote_types(a.dtype, e.dtype)
        a, e = a.to(dtype), e.to(dtype)
    inexact = a.dtype.is_floating_point or a.dtype.is_complex
    if inexact and not (rtol == 0 and atol == 0):
        matches = T.isclose(a, e, rtol=rtol, atol=atol, equal_nan=opts["equal_nan"])
    else:
        matches = a == e
        if inexact and opts["equal_nan"]:
            matches = matches | (T.isnan(a) & T.isnan(e))
    if bool(matches.all()):
        return
    if a.dim() == 0:
        raise _Failure(AssertionError, _scalar_msg(a.item(), e.item(), rtol, atol), path)
    raise _Failure(AssertionError, _tensor_msg(T, a, e, matches, rtol, atol), path)


def _tensor_msg(T, a, e, matches, rtol, atol):
    total = matches.numel()
    wrong = total - int(matches.sum())
    extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    af, ef, mf = a.flatten(), e.flatten(), matches.flatten()
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        af, ef = af.to(T.int64), ef.to(T.int64)
    abs_diff = (af - ef).abs()
    abs_diff[mf] = 0
    max_abs, abs_at = T.max(abs_diff, 0)
    rel_diff = abs_diff / ef.abs()
    rel_diff[mf] = 0
    max_rel, rel_at = T.max(rel_diff, 0)
    shape = tuple(a.shape)

    def unravel(flat):
        return tuple(int(i) for i in np.unravel_index(int(flat), shape))
    return _mismatch_msg("Tensor-likes", rtol, atol, extra, max_abs.item(), unravel(abs_at),
                         max_rel.item(), unravel(rel_at))


# ---- walking the inputs ---------------------------------------------------------------------------

def _is_sequence(v):
    return isinstance(v, collections.abc.Sequence) and not isinstance(v, str)


def _pairs(actual, expected, path, opts):
    """The comparisons of the leaves, made before any runs (as torch: a bad structure or a
    tolerance error raises at once)."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, "The length of the sequences mismatch: "
                           f"{len(actual)} != {len(expected)}", path)
        return [c for i in range(len(actual))
                for c in _pairs(actual[i], expected[i], (*path, i), opts)]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        keys_a, keys_e = set(actual.keys()), set(expected.keys())
        if keys_a != keys_e:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {sorted(keys_e - keys_a)}\n"
                           f"Additional keys in the actual mapping: {sorted(keys_a - keys_e)}",
                           path)
        keys = keys_a
        try:
            keys = sorted(keys)
        except Exception:
            pass
        return [c for k in keys for c in _pairs(actual[k], expected[k], (*path, k), opts)]
    for kind in _PAIR_KINDS:
        try:
            return [kind(actual, expected, path, opts)]
        except _Unsupported:
            continue
    raise _Failure(TypeError, "No comparison pair was able to handle inputs of type "
                   f"{type(actual)} and {type(expected)}.", path)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    opts = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                check_device=check_device, check_dtype=check_dtype)
    try:
        comparisons = _pairs(actual, expected, (), opts)
    except _Failure as failure:
        raise failure.error() from None
    for compare in comparisons:
        try:
            compare()
        except _Failure as failure:
            raise failure.error(msg) from None


__all__ = ["assert_close"]
