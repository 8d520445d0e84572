"""What the backward engine does, step by step, as data.

``iter_backward(..., trace=True)`` yields these; ``backward()`` runs the same generator without
building them. The shell's ``%step`` and the pictures consume them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DepsCounted:
    """PrepareDeps: for each backward op, how many grad_pending edges point at it."""
    deps: dict  # node -> count


@dataclass(frozen=True)
class Seeded:
    """A root's gradient (ones, or the given grad_tensor) was placed in its node's buffer."""
    node: Any
    slot: int
    grad: Any


@dataclass(frozen=True)
class Ready:
    """A node's dependency count reached zero: it joins the ready queue."""
    node: Any


@dataclass(frozen=True)
class Run:
    """A backward op ran: ``out_grads`` in (the gradients of its forward outputs), ``in_grads`` out."""
    node: Any
    out_grads: tuple
    in_grads: tuple


@dataclass(frozen=True)
class Accumulate:
    """A gradient was summed into a variable: a node's input buffer, or a leaf's ``.grad``."""
    target: Any      # GradNode/AccumulateNode receiving it
    slot: int
    grad: Any        # the gradient that arrived
    total: Any       # the buffer (or .grad) after summing


@dataclass(frozen=True)
class DepDec:
    """The dependency count of ``node`` went down by one (an edge into it was used)."""
    node: Any
    remaining: int


@dataclass(frozen=True)
class Released:
    """A node's saved tensors were freed (backward without retain_graph)."""
    node: Any


@dataclass(frozen=True)
class Captured:
    """paddle.grad: the gradient of one of the requested inputs."""
    index: int
    grad: Any
