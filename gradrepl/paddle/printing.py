"""Paddle's tensor printing, rule for rule (``python/paddle/tensor/to_string.py``).

Values are formatted one by one: floats with 8 decimals, whole floats as ``N.``, ``nan``,
``inf.``; every item is padded to the widest item of the (summarised) tensor, with a sign
column when any item is negative. Past ``threshold`` elements each dimension shows its first
and last ``edgeitems`` entries around ``...``. Lines wrap at ``linewidth``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import bf16, profiles


@dataclass
class PrintOptions:
    precision: int = 8
    threshold: int = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool = False


OPTIONS = PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None,
                     linewidth=None):
    """Paddle's set_printoptions: the python options are set as given, then the C++ side
    (pybind) refuses a non-int count with RuntimeError, leaving the python options set."""
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
             "linewidth": linewidth}
    for key, value in given.items():
        if value is not None:
            setattr(OPTIONS, key, value)
    if sci_mode is not None:
        OPTIONS.sci_mode = sci_mode
    for value in given.values():
        if value is not None and not isinstance(value, int):
            raise RuntimeError(
                f"Unable to cast Python instance of type {type(value)} to C++ type '?' (#define "
                "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)")


def _to_summary(a):
    e = OPTIONS.edgeitems
    if a.size == 0 and a.ndim:
        return np.array([])
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:e], a[-e:]]) if a.shape[0] > 2 * e else a
    rows = list(a[:e]) + list(a[-e:]) if a.shape[0] > 2 * e else list(a)
    return np.stack([_to_summary(r) for r in rows])


def _format_item(v, max_width=0, signed=False):
    if v.dtype.kind == "f":
        if OPTIONS.sci_mode:
            s = "{{:.{}e}}".format(OPTIONS.precision).format(v)
        elif np.ceil(v) == v:
            s = "{:.0f}.".format(v)
        else:
            s = "{{:.{}f}}".format(OPTIONS.precision).format(v)
    elif v.dtype.kind == "c" and profiles.current().complex_fixed:
        # real and imaginary parts formatted apart: a -0. imaginary part reads "+-0.00000000j"
        kind = "e" if OPTIONS.sci_mode else "f"
        re, im = np.real(v), np.imag(v)
        fmt = "{{:.{}{}}}".format(OPTIONS.precision, kind)
        s = "(" + fmt.format(re) + ("+" if im >= 0 else "") + fmt.format(im) + "j)"
    else:
        s = "{}".format(v)
    if max_width > len(s):
        if signed:
            return s.ljust(max_width) if v < 0 else " " + s.ljust(max_width - 1)
        return s.ljust(max_width)
    return s


def _max_width(a):
    width = 0
    signed = False
    for v in a.flatten():
        if not signed and v < 0:
            signed = True
        width = max(width, len(_format_item(v)))
    return width, signed


def _format(a, summary, indent, width, signed):
    e = OPTIONS.edgeitems
    if a.ndim == 0:
        return _format_item(a[()] if isinstance(a, np.ndarray) else a, width, signed)
    if a.ndim == 1:
        per_line = max(1, (OPTIONS.linewidth - indent) // (width + 2))
        if summary and a.shape[0] > 2 * e:
            items = [_format_item(v, width, signed) for v in a[:e]] + ["..."] + [
                _format_item(v, width, signed) for v in a[-e:]]
        else:
            items = [_format_item(v, width, signed) for v in a]
        lines = [items[i:i + per_line] for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(", ".join(ln) for ln in lines) + "]"
    if summary and a.shape[0] > 2 * e:
        parts = [_format(x, summary, indent + 1, width, signed) for x in a[:e]] + ["..."] + [
            _format(x, summary, indent + 1, width, signed) for x in a[-e:]]
    else:
        parts = [_format(x, summary, indent + 1, width, signed) for x in a]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_data(a: np.ndarray, indent: int) -> str:
    """The values part of a tensor's repr (what follows the header line)."""
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    elif a.dtype == np.uint16:  # bfloat16 bits print as the float32 values they hold
        a = bf16.to_float32(a)
    size = int(np.prod(a.shape)) if a.ndim else 0
    summary = size > OPTIONS.threshold
    width, signed = _max_width(_to_summary(a))
    return _format(a, summary, indent, width, signed)


def tensor_repr(a: np.ndarray, shape, dtype_name: str, place: str, stop_gradient: bool,
                prefix: str = "Tensor") -> str:
    indent = len(prefix) + 1
    data = format_data(a, indent)
    return (f"{prefix}(shape={shape}, dtype={dtype_name}, place={place}, "
            f"stop_gradient={stop_gradient},\n{' ' * indent}{data})")
