"""torch's tensor repr, rule for rule (``torch/_tensor_str.py`` of torch 2.13).

- Values: 4 decimals (``precision``) when any non-zero finite value is not an integer, else
  integral floats end in ``.`` (``tensor([1., 2.])``); scientific notation (``1.0000e-04``) when
  the largest non-zero finite magnitude over the smallest exceeds 1000, or the largest exceeds
  1e8, or (non-integral values only) the smallest is below 1e-4. One width for every element:
  the widest of the (non-zero finite) values, right-aligned.
- More than ``threshold`` (1000) elements: ``edgeitems`` (3) first and last of each dimension
  with ``...``; the width comes from the shown items only.
- Lines wrap at ``linewidth`` (80) with the brackets' indentation; 2-D blocks of a 3-D tensor
  are separated by a blank line (one more per extra dimension).
- Suffixes after the values: ``dtype=torch.float64`` unless the dtype is the default float,
  int64 or bool; ``size=(0, 3)`` for an empty tensor that is not 1-D; ``grad_fn=<MulBackward0>``
  or else ``requires_grad=True``; a suffix goes on a new line when it would pass the line width.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from . import _dtypes


@dataclasses.dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTS = PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """``torch.set_printoptions``: ``profile`` is "default", "short" or "full"."""
    if profile is not None:
        if profile == "default":
            OPTS.precision, OPTS.threshold, OPTS.edgeitems, OPTS.linewidth = 4, 1000, 3, 80
        elif profile == "short":
            OPTS.precision, OPTS.threshold, OPTS.edgeitems, OPTS.linewidth = 2, 1000, 2, 80
        elif profile == "full":
            OPTS.precision, OPTS.threshold, OPTS.edgeitems, OPTS.linewidth = 4, math.inf, 3, 80
    if precision is not None:
        OPTS.precision = precision
    if threshold is not None:
        OPTS.threshold = threshold
    if edgeitems is not None:
        OPTS.edgeitems = edgeitems
    if linewidth is not None:
        OPTS.linewidth = linewidth
    OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    return dataclasses.asdict(OPTS)


def reset():
    fresh = PrintOptions()
    for f in dataclasses.fields(fresh):
        setattr(OPTS, f.name, getattr(fresh, f.name))


# ------------------------------------------------------------------------------ values
def _py(v):
    """One element as the Python value ``tolist()`` / ``item()`` gives."""
    return v.item()


class _Formatter:
    def __init__(self, arr: np.ndarray):
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = arr.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return
        absd = np.abs(vals).astype(np.float64)
        vmin, vmax = float(absd.min()), float(absd.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        if OPTS.sci_mode is None:
            self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
        else:
            self.sci_mode = OPTS.sci_mode
        p = OPTS.precision
        pylist = vals.tolist()
        if self.sci_mode:
            w = max(len(f"{v:.{p}e}") for v in pylist)
        elif self.int_mode:
            w = max(len(f"{v:.0f}") for v in pylist) + 1
        else:
            w = max(len(f"{v:.{p}f}") for v in pylist)
        self.max_width = max(self.max_width, w)

    def format(self, value) -> str:
        if self.floating:
            p = OPTS.precision
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized(a: np.ndarray) -> np.ndarray:
    """The elements the summarised repr shows (edge items of every dimension)."""
    e = OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        if a.shape[0] > 2 * e:
            return np.concatenate((a[:e], a[a.shape[0] - e:]))
        return a
    if not e:
        return np.empty([0] * a.ndim, a.dtype)
    if a.shape[0] > 2 * e:
        rows = [a[i] for i in range(e)] + [a[i] for i in range(a.shape[0] - e, a.shape[0])]
    else:
        rows = [a[i] for i in range(a.shape[0])]
    return np.stack([_summarized(r) for r in rows])


def _vector_str(a, indent, summarize, fmt):
    element_length = fmt.max_width + 2
    per_line = max(1, math.floor((OPTS.linewidth - indent) / element_length))
    e = OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = ([fmt.format(v) for v in a[:e].tolist()] + [" ..."]
                + [fmt.format(v) for v in a[a.shape[0] - e:].tolist()])
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _str_with(a, indent, summarize, fmt):
    dim = a.ndim
    if dim == 0:
        return fmt.format(a.item())
    if dim == 1:
        return _vector_str(a, indent, summarize, fmt)
    e = OPTS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * e:
        slices = ([_str_with(a[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."]
                  + [_str_with(a[i], indent + 1, summarize, fmt) for i in range(n - e, n)])
    else:
        slices = [_str_with(a[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _complex_str(a, indent, summarize):
    re_fmt = _Formatter(_summarized(a.real) if summarize else a.real)
    im_fmt = _Formatter(_summarized(a.imag) if summarize else a.imag)

    class _C:
        max_width = re_fmt.max_width + im_fmt.max_width + 1

        @staticmethod
        def format(v):
            r = re_fmt.format(v.real)
            i = (im_fmt.format(v.imag) + "j").lstrip()
            return r + i if i[0] in "+-" else r + "+" + i

    return _str_with(a, indent, summarize, _C)


def values_str(a: np.ndarray, indent: int) -> str:
    """The bracketed values of the repr (``_tensor_str``)."""
    if a.size == 0:
        return "[]"
    summarize = a.size > OPTS.threshold
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    elif a.dtype == np.uint16:  # torch.bfloat16's bits: the float32 values they hold
        a = (a.astype(np.uint32) << 16).view(np.float32)
    if a.dtype.kind == "c":
        return _complex_str(a, indent, summarize)
    fmt = _Formatter(_summarized(a) if summarize else a)
    return _str_with(a, indent, summarize, fmt)


def _add_suffixes(text, suffixes, indent):
    out = [text]
    last_len = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last_len + len(s) + 2 > OPTS.linewidth:
            out.append(",\n" + " " * indent + s)
            last_len = indent + len(s)
        else:
            out.append(", " + s)
            last_len += len(s) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(a: np.ndarray, grad_fn_name: str | None, requires_grad: bool,
                prefix: str = "tensor(", tangent=None) -> str:
    indent = len(prefix)
    suffixes = []
    dflt = _dtypes.DEFAULTS.float.np
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        if a.dtype != dflt:
            suffixes.append(f"dtype={_dtypes.from_np(a.dtype)}")
        body = "[]"
    else:
        if not OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(a.shape)))
        if a.dtype not in (dflt, _dtypes.default_complex(), np.dtype(np.int64),
                           np.dtype(np.bool_)):
            suffixes.append(f"dtype={_dtypes.from_np(a.dtype)}")
        body = values_str(a, indent)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:  # a dual tensor of forward AD (a 0-d tangent formats as a number)
        suffixes.append(f"tangent={tangent}")
    return _add_suffixes(prefix + body, suffixes, indent)


def meta_repr(a: np.ndarray, grad_fn_name, requires_grad: bool) -> str:
    """A meta tensor as torch prints one: no values, ``tensor(..., device='meta', size=(2, 5),
    grad_fn=<...>)`` (the device even inside ``with torch.device('meta')``: torch compares
    with its C++ default device; the dtype unless it is the default float)."""
    suffixes = ["device='meta'", "size=" + str(tuple(a.shape))]
    if a.dtype != _dtypes.DEFAULTS.float.np:
        suffixes.append(f"dtype={_dtypes.from_np(a.dtype)}")
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes("tensor(...", suffixes, len("tensor("))
