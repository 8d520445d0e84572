"""The C library's math functions on whole arrays, through numexpr.

Paddle's CPU kernels call the C library (glibc) for ``expf``, ``logf``, ``tanf`` ... element by
element. gradrepl reproduces them three ways, fastest first:

1. here: numexpr's virtual machine, built without Intel's VML (as its PyPI wheels are), calls
   the C library's own ``expf``/``logf``/... in a compiled loop over the array: the same
   function Paddle calls, so the same bits, at ~5 ns an element and one call per array.
2. ``_glibc``: glibc's ``expf``/``logf`` replayed with ~20 numpy calls an array (the same bits,
   but each numpy call costs 1-5 us; in a training step with caches cold, ~100 us a softmax).
3. ``ctypes``: one C call per element (~0.4 us each).

numexpr is used for a function only after a probe on first use: its results on a fixed set of
values (ordinary ones, both signs, tiny, huge, zero, subnormal, inf, nan) must equal the C
library's, called through ``ctypes`` one element at a time, bit for bit. Otherwise (a numexpr
built with VML, another C library, no numexpr at all), or with ``GRADREPL_NO_NUMEXPR=1``,
``function`` returns None and the caller keeps its other paths.

numexpr is imported on first use (~12 ms). When gradrepl is the one importing it, it runs on
one thread: by default it splits arrays of 2048 elements and more across threads, which made a
2560-element exp 6x slower here (10 us -> 58 us) for the thread handoff.
"""
from __future__ import annotations

import ctypes
import os
import sys

import numpy as np

#: numexpr's name of each C library function gradrepl calls (``<name>f`` / ``<name>``).
NE_NAMES = {"exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
            "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "arcsin",
            "acos": "arccos", "atan": "arctan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
            "sqrt": "sqrt", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh"}
#: numexpr's expression for each two-argument C library function (``atan2f``, ``pow`` ...).
NE_NAMES2 = {"atan2": "arctan2(x, y)", "pow": "x ** y"}

_KINDS = {np.dtype(np.float32): (float, ctypes.c_float, "f"),
          np.dtype(np.float64): (np.float64, ctypes.c_double, "")}
_CACHE: dict = {}
_NE = []  # [numexpr module] once imported, [None] when it cannot be used


def _numexpr():
    if not _NE:
        mod = None
        if os.environ.get("GRADREPL_NO_NUMEXPR") != "1":
            ours = "numexpr" not in sys.modules
            try:
                import numexpr as mod
            except Exception:  # noqa: BLE001 - missing or broken (a wheel for another numpy)
                mod = None
            else:
                if getattr(mod, "use_vml", False):  # VML's functions are not the C library's
                    mod = None
                elif ours:
                    mod.set_num_threads(1)
        _NE.append(mod)
    return _NE[0]


def probe_values(dtype):
    """The values a numexpr function must reproduce before it is trusted."""
    rng = np.random.default_rng(20261202)
    ordinary = np.concatenate([rng.standard_normal(600) * s for s in (0.01, 1.0, 10.0, 100.0)])
    info = np.finfo(dtype)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.pi, 88.7, -103.9, 709.0, -745.0, 1e30, -1e30,
               float(info.tiny), float(info.tiny) / 8, float(info.max), float(-info.max),
               np.inf, -np.inf, np.nan]
    with np.errstate(all="ignore"):
        return np.concatenate([ordinary, np.abs(ordinary), special]).astype(dtype)


def _reference(libm, name, dtype):
    """The C library's ``name`` for ``dtype``, one ctypes call an element (None: not there)."""
    _, ctype, suffix = _KINDS[dtype]
    fn = getattr(libm, name + suffix, None) if libm is not None else None
    if fn is None:
        return None
    fn.restype = ctype
    fn.argtypes = [ctype]
    ufunc = np.frompyfunc(fn, 1, 1)
    return lambda x: np.asarray(ufunc(x), dtype=dtype)


def _same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and bool(
        (a.view(np.uint8) == b.view(np.uint8)).all())


def function(libm, name, dtype):
    """numexpr's compiled ``name`` for arrays of ``dtype`` (float32/float64), or None."""
    key = (name, dtype)
    if key in _CACHE:  # (np.float32 and np.dtype(np.float32) are distinct keys: both kept)
        return _CACHE[key]
    dtype = np.dtype(dtype)
    fn = None
    ne = _numexpr()
    if ne is not None and name in NE_NAMES and dtype in _KINDS:
        ref = _reference(libm, name, dtype)
        if ref is not None:
            try:
                compiled = ne.NumExpr(f"{NE_NAMES[name]}(x)", [("x", _KINDS[dtype][0])])
                x = probe_values(dtype)
                with np.errstate(all="ignore"):
                    ok = _same_bits(compiled(x), ref(x))
            except Exception:  # noqa: BLE001 - any failure means: not usable here
                ok = False
            fn = compiled if ok else None
    _CACHE[key] = fn
    return fn


def _reference2(libm, name, dtype):
    _, ctype, suffix = _KINDS[dtype]
    fn = getattr(libm, name + suffix, None) if libm is not None else None
    if fn is None:
        return None
    fn.restype = ctype
    fn.argtypes = [ctype, ctype]
    ufunc = np.frompyfunc(fn, 2, 1)
    return lambda x, y: np.asarray(ufunc(x, y), dtype=dtype)


def function2(libm, name, dtype):
    """numexpr's compiled two-argument ``name`` (``atan2``, ``pow``) for same-shape arrays of
    ``dtype``, or None; trusted after the same probe as ``function`` (the probe values against
    a shuffled copy, and a few integral and negative exponents)."""
    key = ("2", name, np.dtype(dtype))
    if key in _CACHE:
        return _CACHE[key]
    dtype = np.dtype(dtype)
    fn = None
    ne = _numexpr()
    if ne is not None and name in NE_NAMES2 and dtype in _KINDS:
        ref = _reference2(libm, name, dtype)
        if ref is not None:
            try:
                kind = _KINDS[dtype][0]
                compiled = ne.NumExpr(NE_NAMES2[name], [("x", kind), ("y", kind)])
                x = probe_values(dtype)
                y = np.random.default_rng(7).permutation(x)
                extra = np.array([2, 3, -1, 0.5, -2.5, 1, 0], dtype)
                x = np.concatenate([x, np.repeat(x[:300], extra.size)])
                y = np.concatenate([y, np.tile(extra, 300)])
                with np.errstate(all="ignore"):
                    ok = _same_bits(compiled(x, y), ref(x, y))
            except Exception:  # noqa: BLE001 - any failure means: not usable here
                ok = False
            fn = compiled if ok else None
    _CACHE[key] = fn
    return fn


def expression(libm, text, names, dtype, uses):
    """numexpr's compiled ``text`` over the arrays ``names`` (all of ``dtype``), or None.

    Only when every C library function in ``uses`` passed its probe (``function``), so that the
    expression's calls are the C library's; its arithmetic is numexpr's plain loops in ``dtype``
    (no reordering: ``(a + b) + c`` adds as written). Compiled once per text and kept.
    """
    dtype = np.dtype(dtype)
    key = ("expression", text, tuple(names), dtype)
    if key not in _CACHE:
        fn, ne = None, _numexpr()
        if ne is not None and dtype in _KINDS and all(
                function(libm, name, dtype) is not None for name in uses):
            fn = ne.NumExpr(text, [(name, _KINDS[dtype][0]) for name in names])
        _CACHE[key] = fn
    return _CACHE[key]
