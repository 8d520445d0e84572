"""Numerical against autograd on the picture (``gradrepl graph ... --numeric``).

``gradrepl gradcheck`` / ``why --numeric`` print central differences beside the engine's
gradients (``teach/numeric.py``: the script's forward ops recorded on a tape and replayed in
float64 with one input nudged by ``h`` either way). This puts the same check on the picture: each
leaf's gradient record gets three more rows, the teacher's classic slide in one box::

    numeric (h = 1e-06, central differences): 20.00000000
    autograd: 20.
    max abs error 2.8e-09, max rel error 1.4e-10: agree to 9 digits

A gradient of at most ``WHOLE`` elements with more than one axis is written whole in its shape
(``autograd (2x3): [[10., 20., 30.], [10., 20., 30.]]``): the broadcast lesson is about rows.

The numbers are :func:`teach.numeric.describe`'s own (the same values, the same formatting),
so the picture and the command never disagree. The rows ride on the model as ``Graph.numeric``
({gradient variable id: {"lines", "data": the .grad checked}}, not part of the JSON), which
``dot.DotWriter`` draws where the record holds that very value (in the step frames: once the
backward wrote it).
"""
from __future__ import annotations

import numpy as np

WHOLE = 12   # a gradient of at most this many elements (all checked) is shown in its shape


def _nested(fmt, a) -> str:
    """``a`` written as nested lists, each element by ``fmt``."""
    if a.ndim == 0:
        return fmt(a)
    return "[" + ", ".join(_nested(fmt, x) for x in a) + "]"


def lines(c) -> list:
    """The rows of one check (``teach.numeric.Check``), in plain words."""
    from ..teach import numeric as _num

    if not c.checked:
        return [f"numeric: {c.note}"]
    a = c.autograd.reshape(-1)[c.indices]
    where = ""
    if c.size > 1 and c.indices.size < c.size:
        where = f", {c.indices.size} of {c.size:,} elements"
    if 1 < c.size <= WHOLE and c.indices.size == c.size and len(c.shape) > 1:
        # a small matrix shown whole, in its shape (a broadcast's gradient: its rows)
        order = np.argsort(c.indices)
        num = np.asarray(c.numeric)[order].reshape(c.shape)
        auto = c.autograd.reshape(c.shape)
        shape = "x".join(str(d) for d in c.shape)
        out = [f"numeric (h = {c.h:g}, central differences, {shape}): {_nested(_num._g, num)}",
               f"autograd ({shape}): {_nested(_num._auto, auto)}"]
    else:
        out = [f"numeric (h = {c.h:g}, central differences{where}): "
               f"{_num._vals(_num._g, c.numeric, 4)}",
               f"autograd: {_num._vals(_num._auto, a, 4)}"]
    verdict = "agree" if c.agrees() else "DISAGREE"
    err = (f"max abs error {c.abs_err:.2g}, max rel error {c.rel_err:.2g}" if c.abs_err
           else "no difference")   # (as gradcheck says it)
    d = c.digits
    out.append(f"{err}: {verdict} to {d} digit{'s' if d != 1 else ''}")
    return out


def checks_by_grad_var(g, tape, namespace, namer, only=None) -> dict:
    """{gradient variable id of ``g``: the ``Check`` of that leaf's .grad} for the leaves of the
    picture that a recorded backward wrote (``only``: those tensors); ``namer`` names tensors
    as ``why`` does (``why.Namer(namespace)``: passed in, so this module sits below why)."""
    from ..teach import numeric as _num

    b = getattr(g, "_builder", None)
    if b is None:
        return {}
    want = {}
    for key, t in b.tensor_objs.items():
        gv = b.gvars.get(key)
        info = b.tensors.get(key)
        if gv is not None and info is not None and info.is_leaf \
                and (only is None or any(t is o for o in only)):
            want[id(t)] = (t, gv.id)
    if not want:
        return {}
    checks = _num.check_leaves(tape, namespace, only=[t for t, _g in want.values()])
    by_name = {f"{namer.tensor(t)}.grad": gid for t, gid in want.values()}
    return {by_name[c.name]: c for c in checks if c.what == "grad" and c.name in by_name}


def annotate(pic, tape, namespace, namer) -> dict:
    """Check the picture's leaves and write the rows into its model (``Graph.numeric``); the
    picture is drawn from the model from now on. Returns {grad var id: Check}."""
    g = pic.model
    found = annotate_model(g, tape, namespace, namer)
    pic.model = g   # (a plain picture's flat snapshot has no place for the rows)
    return found


def annotate_model(g, tape, namespace, namer, only=None) -> dict:
    """Write the rows of the checks of ``g``'s leaves (``only``: those tensors) into
    ``g.numeric``; returns {grad var id: Check}."""
    found = checks_by_grad_var(g, tape, namespace, namer, only)
    data = {v.id: v.data for v in g.grad_vars}
    g.numeric = {gid: {"lines": lines(c), "data": data.get(gid)} for gid, c in found.items()}
    return found


__all__ = ["annotate", "annotate_model", "checks_by_grad_var", "lines"]
