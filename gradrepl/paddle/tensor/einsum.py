"""``paddle.einsum``: Einstein summation over one or more tensors, differentiable.

The equation is first written out in full (implicit outputs get their indices in alphabetical
order, ``...`` becomes letters of its own), then runs as the engine's one ``einsum`` op, whose
VJP is again an einsum, so gradients of any order work.
"""
from __future__ import annotations

import string

from ...engine.ops import fused

__all__ = ["einsum"]
__methods__: list = []

_FREE = list(string.ascii_letters)  # letters for the axes "..." stands for


def _explicit(equation, ranks):
    """``'ij,jk'`` -> ``'ij,jk->ik'``; ``'...j,j->...'`` with ranks (2, 1) -> ``'Aj,j->A'``."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(ranks):
        raise ValueError(f"Invalid equation: the number of operands is {len(ranks)}, but found "
                         f"{len(specs)} segments in the label equation.")
    used = set(c for c in eq if c.isalpha())
    spare = [c for c in _FREE if c not in used]
    width = max((r - len(s.replace("...", "")) for s, r in zip(specs, ranks) if "..." in s),
                default=0)
    ell = "".join(spare[:width])
    full = []
    for s, r in zip(specs, ranks):
        if "..." in s:
            n = r - len(s.replace("...", ""))
            s = s.replace("...", ell[width - n:] if n else "")
        if len(s) != r:
            raise ValueError(f"Invalid equation: the number of labels in '{s}' does not match "
                             f"the rank {r} of its operand.")
        full.append(s)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {}
        for s in full:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    return ",".join(full) + "->" + out


def einsum(equation, *operands):
    """Sum products of ``operands`` over the indices the ``equation`` names (``'ij,jk->ik'`` is
    a matrix product, ``'i,i->'`` a dot product, ``'ij->ji'`` a transpose)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    full = _explicit(equation, [len(o.shape) for o in operands])
    ins, out = full.split("->")
    if len(operands) == 1 and len(set(ins)) == len(ins):
        return _one_operand(operands[0], ins, out)
    return fused.einsum(full, operands, sequential=True)


def _one_operand(x, spec, out):
    """A sum and a transpose, as Paddle runs a one-operand einsum (its sum kernel's order)."""
    from ... import paddle

    axes = [i for i, c in enumerate(spec) if c not in out]
    if axes:
        x = paddle.sum(x, axis=axes)
        spec = "".join(c for c in spec if c in out)
    perm = [spec.index(c) for c in out]
    return paddle.transpose(x, perm) if perm != sorted(perm) else x
