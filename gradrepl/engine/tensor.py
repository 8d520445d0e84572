"""The engine's Tensor: a numpy array plus the autograd bookkeeping.

Dialects (``gradrepl.paddle``, later ``gradrepl.torch``) subclass it to add their API and printing;
ops create results of ``inputs[0]._result_type`` so a dialect's tensors stay in that dialect.
"""
from __future__ import annotations

import itertools

import numpy as np

_uids = itertools.count()


class Tensor:
    __slots__ = (
        "data",           # numpy.ndarray holding the values
        "stop_gradient",  # True: no gradient is computed for (or through) this tensor
        "grad_node",      # the backward op that produced it (None for a leaf)
        "out_slot",       # which output of grad_node this tensor is
        "_grad",          # accumulated gradient (a Tensor) or None
        "_accum",         # the leaf's AccumulateNode, made on first use
        "_retain",        # keep .grad of a non-leaf after backward
        "_hooks",         # gradient hooks (list) or None
        "_uid",           # creation order: deterministic ids for pictures and names
        "_name",          # explicit name, else derived from _uid by the dialect
        "_version",       # bumped by every in-place write; backward checks saved inputs' versions
        "__weakref__",
    )

    _result_type = None  # set below; dialect subclasses override it

    def __init__(self, data, stop_gradient: bool = True, name: str | None = None):
        self.data = data if type(data) is np.ndarray else np.asarray(data)
        self.stop_gradient = stop_gradient
        self.grad_node = None
        self.out_slot = 0
        self._grad = None
        self._accum = None
        self._retain = False
        self._hooks = None
        self._uid = next(_uids)
        self._name = name
        self._version = 0

    @classmethod
    def _wrap(cls, data, stop_gradient=True, grad_node=None, out_slot=0):
        """Fast constructor used by the op machinery (no conversions)."""
        t = object.__new__(cls)
        t.data = data
        t.stop_gradient = stop_gradient
        t.grad_node = grad_node
        t.out_slot = out_slot
        t._grad = None
        t._accum = None
        t._retain = False
        t._hooks = None
        t._uid = next(_uids)
        t._name = None
        t._version = 0
        return t

    # -- autograd structure -------------------------------------------------------------
    @property
    def is_leaf(self) -> bool:
        return self.grad_node is None

    @property
    def shape_tuple(self) -> tuple:
        return self.data.shape

    def accumulate_node(self):
        """The node that writes this leaf's ``.grad`` (Paddle's GradNodeAccumulation)."""
        acc = self._accum
        if acc is None:
            from .node import AccumulateNode

            acc = self._accum = AccumulateNode(self)
        return acc

    def gradient_edge(self):
        """Where a gradient for this tensor goes: (node, slot), or None if it stops gradient."""
        if self.stop_gradient:
            return None
        node = self.grad_node
        if node is None:
            return (self.accumulate_node(), 0)
        return (node, self.out_slot)

    def bump_version(self):
        """Record an in-place write: backward ops that saved this tensor will refuse to run."""
        self._version += 1

    def add_hook(self, hook):
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return len(self._hooks) - 1

    def __repr__(self):  # dialects print their own way
        return f"engine.Tensor(shape={list(self.data.shape)}, dtype={self.data.dtype}, stop_gradient={self.stop_gradient})"


Tensor._result_type = Tensor
