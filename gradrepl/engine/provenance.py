"""Where backward nodes came from, recorded without touching the op hot path.

Backward nodes take increasing uids as they are made. A :class:`Recorder` notes *marks*, uid
boundaries, when something of interest begins or ends: a source statement (the script's line
tracer, or the shell before each statement), a ``Layer``'s forward call. Which statement made a
node, and inside which Layers, is then a bisection over the marks by the node's uid: nothing is
written per op, so recording costs nothing while ops run.

Derivative order (nodes made while a VJP ran with ``create_graph=True``) is set on the nodes by
the backward engine itself (``node.order``, 0 for the forward's own nodes), see ``set_order``.
"""
from __future__ import annotations

import bisect

from .node import _node_uids
from .tensor import _uids as _tensor_uids

ACTIVE: "Recorder | None" = None  # the recorder that Layer calls and statements report to


def mark() -> int:
    """A uid boundary: every node made after this call has a larger uid."""
    return next(_node_uids)


def tensor_mark() -> int:
    """A tensor uid boundary: every tensor made after this call has a larger ``_uid``."""
    return next(_tensor_uids)


class Recorder:
    """Statement and Layer marks of one run (a script under ``gradrepl graph``, a shell session)."""

    def __init__(self):
        self._stmt_uids: list[int] = []
        self._stmt_tensor_uids: list[int] = []
        self._stmt_labels: list = []
        # Layer calls: spans [layer, parent span index, start, end]; the boundaries (a uid
        # and the innermost span from there on) make "which calls was node N made in" a
        # bisection, however many calls a session made
        self.spans: list[list] = []
        self._bound_uids: list[int] = []
        self._bound_span: list[int] = []
        self._open: list[int] = []

    # -- statements ---------------------------------------------------------------------
    def statement(self, label) -> None:
        """Nodes made from now on belong to ``label`` (a source text, or a (file, line) key)."""
        if self._stmt_labels and self._stmt_labels[-1] == label:
            return
        self._stmt_uids.append(mark())
        self._stmt_tensor_uids.append(next(_tensor_uids))
        self._stmt_labels.append(label)

    def statement_of(self, uid: int):
        """The statement that was running when backward node ``uid`` was made."""
        i = bisect.bisect_right(self._stmt_uids, uid) - 1
        return self._stmt_labels[i] if i >= 0 else None

    def statement_of_tensor(self, tensor_uid: int):
        """The statement that was running when the tensor with ``_uid`` was made (leaves)."""
        i = bisect.bisect_right(self._stmt_tensor_uids, tensor_uid) - 1
        return self._stmt_labels[i] if i >= 0 else None

    # -- layers ---------------------------------------------------------------------------
    def enter_layer(self, layer) -> None:
        parent = self._open[-1] if self._open else -1
        uid = mark()
        self.spans.append([layer, parent, uid, None])
        k = len(self.spans) - 1
        self._open.append(k)
        self._bound_uids.append(uid)
        self._bound_span.append(k)

    def exit_layer(self) -> None:
        k = self._open.pop()
        uid = mark()
        self.spans[k][3] = uid
        self._bound_uids.append(uid)
        self._bound_span.append(self._open[-1] if self._open else -1)

    @property
    def layer_spans(self):
        """(start, end, layer) of every finished Layer call."""
        return [(st, en, layer) for layer, _p, st, en in self.spans if en is not None]

    def layers_of(self, uid: int) -> list:
        """The Layer calls (span start, layer) running when node ``uid`` was made, outermost
        first. The start tells two calls of one Layer apart."""
        i = bisect.bisect_right(self._bound_uids, uid) - 1
        k = self._bound_span[i] if i >= 0 else -1
        out = []
        while k >= 0:
            layer, parent, start, _end = self.spans[k]
            out.append((start, layer))
            k = parent
        out.reverse()
        return out

    # -- installing -----------------------------------------------------------------------
    def __enter__(self):
        global ACTIVE
        self._prev = ACTIVE
        ACTIVE = self
        return self

    def __exit__(self, *exc):
        global ACTIVE
        ACTIVE = self._prev
        return False


def set_order(tensors, start_uid: int, order: int) -> None:
    """Mark the nodes made since ``start_uid`` that ``tensors`` depend on as derivative ``order``.

    Called by the backward engine after a VJP ran with ``create_graph=True``: its results'
    nodes (and what they were built from, back to older nodes) are double-backward nodes.
    """
    stack = [t.grad_node for t in tensors if t is not None and t.grad_node is not None]
    while stack:
        n = stack.pop()
        if n.uid <= start_uid or n.order:
            continue
        n.order = order
        for e in n.next_edges:
            if e is not None and e[0].op is not None:
                stack.append(e[0])


def order_of(node) -> int:
    """The derivative order of a backward node: 0 for the forward's own, 1 for nodes made by
    a first backward with ``create_graph=True``, and so on."""
    return node.order
