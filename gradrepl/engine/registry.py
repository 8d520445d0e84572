"""The op table: every op is one entry with its numpy forward beside its VJP.

``apply(op, inputs, attrs)`` runs the forward and, when any input needs a gradient and recording
is on, makes the backward node. VJPs are written with Tensor ops (see ``ops/``), so running them
with recording on (``create_graph=True``) differentiates them again.

Broadcast gradients are reduced here, in one place, after every VJP (``reduce_grad``).
"""
from __future__ import annotations

import contextlib

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import grad_mode
from .node import GradNode
from .node import new_node as _new_node

OPS: dict[str, "OpDef"] = {}


@dataclass(eq=False)
class OpDef:
    name: str                           # Paddle's op name: "multiply", "matmul", ...
    forward: Callable                   # (*arrays, **attrs) -> array | tuple of arrays
    vjp: Callable | None                # (node, *out_grads) -> input grads (Tensors or None)
    n_outputs: int = 1
    broadcast: bool = False             # inputs broadcast: gradients are summed back to shape
    legacy_name: str | None = None      # the 2.2 guide's name of the backward op (MulBackward)
    node_name: str | None = None        # Paddle 2.6+'s node name where it is not the op's name
                                        # + GradNode (add_n: AddNGradNodeFinal, measured)
    diff_inputs: tuple | None = None    # indices of inputs that take gradients (None: all)
    diff_outputs: tuple | None = None   # outputs that carry gradients (None: all)
    saves_inputs: bool = True           # the VJP reads its inputs' values; False (only shapes,
                                        # attrs or the output): an in-place write to an input
                                        # after the op ran is no error (no TensorWrapper in Paddle)
    reads_inputs: bool = False          # with saves_inputs False: the VJP still reads an input
                                        # (a mask, an index), so the node keeps the tensors
    saves_output: bool = True           # the VJP reads the forward output (``n.out()``); False
                                        # (single-output ops): a large output is not kept by
                                        # the node (DROP_BYTES)
    double_grad_zeros: bool = True      # its create_graph gradient links every saved input
                                        # (zeros where unused), as Paddle's double-grad node
                                        # (matmul's gives None instead; measured on 3.3.1)
    # for the automatic gradient check (tests/test_gradcheck.py):
    examples: list = field(default_factory=list)  # [(input shapes or arrays, attrs)]
    domain: str = "real"                # "real" | "positive" | "unit" | "away0" | "distinct"
    check: bool = True                  # finite differences meaningful (False: piecewise const)
    second_order: bool = True

    # a dialect's view op (its output shares the input's memory): 1 one view, 2 several (the
    # torch dialect's select/view/unbind ...; 0 for Paddle's ops). ``apply`` hands such an
    # op's unrecorded outputs to ``VIEW_HOOK[0]`` (a class attribute, not a dataclass field)
    view_kind = 0

    def __repr__(self):
        return f"<op {self.name}>"

    @property
    def backward_name(self) -> str:
        """CamelCase name of the backward op as Paddle 2.6+ calls it (MultiplyGradNode); the
        node of a gradient op ``x_grad`` is ``XDoubleGradNode``, of ``x_double_grad``
        ``XTripleGradNode`` (real 3.3.1: TanhDoubleGradNode, PowTripleGradNode)."""
        if self.node_name:
            return self.node_name
        name, suffix = self.name, "GradNode"
        for tail, node in (("_double_grad", "TripleGradNode"), ("_grad", "DoubleGradNode")):
            if name.endswith(tail):
                name, suffix = name[:-len(tail)], node
                break
        return "".join(p.capitalize() for p in name.split("_")) + suffix


def needs_grad(node, i) -> bool:
    """Whether input ``i`` of ``node`` takes a gradient (a VJP may skip the others: the engine
    drops what it returns for them)."""
    return node.edges[2 * i] is not None


def exact_first_order(vjp):
    """Mark a VJP that computes exact values (a framework's own kernel: oneDNN, MKL or torch's
    summation order) only with grad mode off, and Tensor ops otherwise. Under ``create_graph``
    the engine runs it both ways and gives the recorded gradients the exact values, as the
    real framework computes the same first-order values with or without create_graph
    (``backward.exact_values``). Put it outermost over any other decorator."""
    vjp.exact_first_order = True
    return vjp


def register(name, forward, vjp, **kw) -> OpDef:
    if name in OPS:
        raise ValueError(f"op {name!r} registered twice")
    op = OpDef(name, forward, vjp, **kw)
    OPS[name] = op
    return op


def defop(name, **kw):
    """Decorator form: ``@defop("exp", vjp=...)`` over the numpy forward."""

    def deco(fwd):
        return register(name, fwd, kw.pop("vjp", None), **kw)

    return deco


_ndarray = np.ndarray
_asarray = np.asarray
_EMPTY: dict = {}

#: Dtypes the engine does not compute on as they are: a dialect that keeps a number format numpy
#: lacks in another dtype's bits (Paddle's bfloat16 in uint16) registers, under that numpy dtype,
#: an object with ``apply(op, inputs, attrs)`` (the op's result, or NotImplemented to run the op
#: on the bits) and ``add(a, b)`` (two gradient arrays summed). Looked up by the first input.
STORAGE: dict = {}
_STATE = grad_mode.STATE
#: The op recorder (static graph mode's program, vmap's trace): None when nothing records,
#: else called first with ``(op, inputs, attrs)``; it returns the op's result or NotImplemented.
#: Set only through ``set_apply_hook`` / ``apply_hook``.
_HOOK = None


#: Told when backward's ``exact_values`` gives a recorded gradient the exact kernel's values
#: (computed outside the ops): called with ``(node, recorded array, exact array)``; vmap's
#: trace follows the values there. None: nobody listens.
EXACT_LISTENER = None
#: Told of the constant arrays the engine makes from Python numbers (``ops._util.const``: a
#: mean's count, a power's factor: numbers from the code, the attributes, the shapes): called
#: with the array; vmap's trace takes them as the same for every sample. None: nobody listens.
SHAPE_CONST = None


def set_apply_hook(hook):
    """Route every ``apply`` through ``hook`` (None: plain); returns the hook it replaces."""
    global _HOOK
    before, _HOOK = _HOOK, hook
    return before


def apply_hook_active() -> bool:
    return _HOOK is not None


#: ``[hook(op, input, outputs) -> outputs]``: set by a dialect whose view ops (``view_kind``)
#: made without a record keep something of their base (torch's views made under no_grad
#: still require grad when the base does: ``torch/_view_meta.py``)
VIEW_HOOK: list = [lambda op, x, outs: outs]


@contextlib.contextmanager
def apply_hook(hook):
    """``hook`` for the ``with`` block (None: ops run plainly inside), then the one before."""
    before = set_apply_hook(hook)
    try:
        yield before
    finally:
        set_apply_hook(before)


#: ``data`` descriptors that answer the engine with the array slot itself: the engine's slot, and
#: a dialect's property that does so for gradrepl's own code (the torch dialect's, which looks at
#: its caller's frame: 0.5 us a read). ``apply`` reads the slot directly for a class whose
#: ``data`` is one of these (learned per class in ``_SLOT_CLASS``), ``.data`` for any other.
SLOT_DATA: set = set()
_SLOT_CLASS: dict = {}


def _slot_reader():
    from .tensor import Tensor

    SLOT_DATA.add(Tensor.__dict__["data"])
    return Tensor.__dict__["data"].__get__


_slot = _slot_reader()


def _learn_class(tp) -> bool:
    d = None
    for k in tp.__mro__:
        if "data" in k.__dict__:
            d = k.__dict__["data"]
            break
    ok = _SLOT_CLASS[tp] = d is not None and d in SLOT_DATA
    return ok


def apply(op: OpDef, inputs, attrs=None):
    """Run ``op`` on Tensors; record a backward node when a gradient is needed.

    This is the hot path of every forward op: plain loops, no helper calls when nothing is
    recorded.
    """
    if attrs is None:
        attrs = _EMPTY
    if _HOOK is not None:
        out = _HOOK(op, inputs, attrs)
        if out is not NotImplemented:
            return out
    first = inputs[0]
    # (each input's array read once: a dialect may answer .data in Python)
    tp = type(first)
    fast = _SLOT_CLASS.get(tp)
    if fast is None:
        fast = _learn_class(tp)
    a0 = _slot(first) if fast else first.data
    if STORAGE and a0.dtype in STORAGE:
        out = STORAGE[a0.dtype].apply(op, inputs, attrs)
        if out is not NotImplemented:
            return out
    n_in = len(inputs)
    if n_in == 1:
        out = op.forward(a0, **attrs)
        record = not first.stop_gradient and _STATE.enabled and op.vjp is not None
        arrays = None
    else:
        if n_in == 2:
            second = inputs[1]
            if type(second) is tp and fast:
                arrays = (a0, _slot(second))
            else:
                arrays = (a0, second.data)
        else:
            arrays = (a0,) + tuple([t.data for t in inputs[1:]])
        out = op.forward(*arrays, **attrs)
        record = False
        if _STATE.enabled and op.vjp is not None:  # (a backward without create_graph: off)
            diff = op.diff_inputs
            if diff is None and n_in == 2:
                record = not first.stop_gradient or not second.stop_gradient
            else:
                for i, t in enumerate(inputs):
                    if not t.stop_gradient and (diff is None or i in diff):
                        record = True
                        break
    cls = first._result_type
    if op.n_outputs == 1:
        if type(out) is not _ndarray:
            out = _asarray(out)
        if not record:
            if op.view_kind:
                return VIEW_HOOK[0](op, first, (cls._wrap(out, True),))[0]
            return cls._wrap(out, True)
        if arrays is None:
            arrays = (a0,)
        node = _new_node(op, attrs, inputs, (out,), arrays)
        if not op.saves_inputs and not op.reads_inputs and (
                a0.nbytes > DROP_BYTES or (n_in > 1 and _large(arrays))):
            node.drop_inputs()
        if not op.saves_output and out.nbytes > DROP_BYTES:
            node.drop_outputs()
        t = cls._wrap(out, False, node, 0)
        node._out_refs = _weakref(t)
        return t
    outs = tuple(o if type(o) is _ndarray else _asarray(o) for o in out)
    if not record:
        if op.view_kind:
            return VIEW_HOOK[0](op, first, tuple(cls._wrap(o, True) for o in outs))
        return tuple(cls._wrap(o, True) for o in outs)
    if arrays is None:
        arrays = (a0,)
    node = _new_node(op, attrs, inputs, outs, arrays)
    if not op.saves_inputs and not op.reads_inputs and _large(arrays):
        node.drop_inputs()
    dout = op.diff_outputs
    res = []
    for k, o in enumerate(outs):
        if dout is None or k in dout:
            res.append(cls._wrap(o, False, node, k))
        else:
            res.append(cls._wrap(o, True))
    node.out_refs = tuple(_weakref(t) for t in res)
    return tuple(res)


def apply_one(op: OpDef, x, a):
    """``apply(op, (x,))`` for a dialect's fast entry (``x.tanh()``) that checked what ``apply``
    looks at first: no apply hook, ``a`` the array of x (the engine's slot) of a dtype without
    a stored format (float32/float64); ``op`` has one output. The same node and tensor."""
    out = op.forward(a)
    if type(out) is not _ndarray:
        out = _asarray(out)
    cls = x._result_type
    if x.stop_gradient or not _STATE.enabled or op.vjp is None:
        return cls._wrap(out, True)
    node = _new_node(op, _EMPTY, (x,), (out,), (a,))
    if not op.saves_inputs and not op.reads_inputs and a.nbytes > DROP_BYTES:
        node.drop_inputs()
    if not op.saves_output and out.nbytes > DROP_BYTES:
        node.drop_outputs()
    t = cls._wrap(out, False, node, 0)
    node._out_refs = _weakref(t)
    return t


def apply_pair(op: OpDef, x, y, a, b, out=None):
    """``apply(op, (x, y))`` for a dialect's fast entry (``x + y``, ``x * 2.0``) that checked
    what ``apply`` looks at first: no apply hook, ``a`` and ``b`` the arrays of x and y (read
    from the engine's slot), of a dtype without a stored format (float32/float64); ``op`` has
    one output, a VJP and no ``diff_inputs``. The same node and tensor as ``apply`` makes.
    ``out``: what ``op.forward(a, b)`` gives, when the caller computed it itself."""
    if out is None:
        out = op.forward(a, b)
    if type(out) is not _ndarray:
        out = _asarray(out)
    cls = x._result_type
    if (x.stop_gradient and y.stop_gradient) or not _STATE.enabled:
        return cls._wrap(out, True)
    node = _new_node(op, _EMPTY, (x, y), (out,), (a, b))
    if not op.saves_inputs and not op.reads_inputs and (
            a.nbytes > DROP_BYTES or b.nbytes > DROP_BYTES):
        node.drop_inputs()
    if not op.saves_output and out.nbytes > DROP_BYTES:
        node.drop_outputs()
    t = cls._wrap(out, False, node, 0)
    node._out_refs = _weakref(t)
    return t


def plain_array(t):
    """``t``'s array when a VJP may run an op's forward on arrays itself (see ``plain_result``):
    nothing records (grad mode off: a backward without create_graph; no apply hook) and the
    array is float32/float64 (no stored format); else None (the VJP calls ``apply``)."""
    if _STATE.enabled or _HOOK is not None:
        return None
    fast = _SLOT_CLASS.get(type(t))
    if fast is None:
        fast = _learn_class(type(t))
    a = _slot(t) if fast else t.data
    return a if a.dtype is _F32 or a.dtype is _F64 else None


def plain_result(cls, out):
    """What ``apply`` returns for an op whose forward gave ``out`` with nothing recorded, its
    first input of class ``cls``: a tensor of ``cls._result_type`` that stops gradient."""
    return cls._result_type._wrap(out if type(out) is _ndarray else _asarray(out), True)


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


from weakref import ref as _weakref  # noqa: E402

#: A node whose VJP needs only its inputs' shapes lets go of them at once when one is larger
#: than this, and so does one whose VJP does not read its output (vgg11's first conv at batch
#: 32: its output, the bias add's and the relu's input, 411 MB each, were all kept until the
#: backward); smaller ones stay, for the pictures.
DROP_BYTES = 1 << 20


def _large(arrays):
    for a in arrays:
        if a.nbytes > DROP_BYTES:
            return True
    return False


class GradShapeError(RuntimeError):
    pass


def _sum_to():
    """``ops.broadcast.sum_to`` (imported on first use: ops import this module)."""
    global _SUM_TO
    if _SUM_TO is None:
        from .ops.broadcast import sum_to as _SUM_TO
    return _SUM_TO


_SUM_TO = None


def reduce_grad(op: OpDef, i: int, g, shape, dtype):
    """Bring the VJP's gradient for input ``i`` to the input's shape and dtype.

    Broadcasting in the forward is undone by summing over the broadcast axes (the ``sum_to``
    op, itself differentiable). Any other mismatch is a bug in the op's VJP and names it.
    """
    gd = _slot(g) if _SLOT_CLASS.get(type(g)) else g.data  # (a dialect's .data: see apply)
    gs = gd.shape
    if gs != shape:
        if op.broadcast and len(gs) >= len(shape):
            g = _sum_to()(g, shape, getattr(op, "grad_sum_order", "row"))
            gd = _slot(g) if _SLOT_CLASS.get(type(g)) else g.data
        if gd.shape != shape:
            raise GradShapeError(
                f"the gradient of input {i} of {op.name} has shape {list(gs)}, "
                f"but the input has shape {list(shape)}"
            )
    if gd.dtype != dtype and dtype.kind in "fc":
        from .ops.math import cast

        g = cast(g, dtype)
    return g
