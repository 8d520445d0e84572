"""What each Paddle grad node saves, and its check of in-place writes to those tensors.

Real Paddle's grad node keeps a ``TensorWrapper`` for each tensor its backward op reads: some of
the forward op's inputs and, for ops whose gradient is written with the result (``exp``,
``tanh``, ``sigmoid``, ``relu``, ``sqrt``, ``softmax``, ``divide``, ...), the forward OUTPUT. Each
wrapper keeps the tensor's ``inplace_version`` when it was saved; when the node runs, a tensor
whose version moved since raises ``RuntimeError: (PermissionDenied) Tensor '' used in gradient
computation has been modified by an inplace operation ...`` (``tensor_wrapper.h``). So::

    h = F.relu(a * 2); h.scale_(2.0); h.sum().backward()     # raises (relu saved h)
    b = a * 2; c = paddle.tanh(b); b.scale_(2.0); c.sum().backward()   # fine (tanh saved c)

The engine records every saved input's version (``GradNode.in_versions``); the tables here say
which inputs Paddle's node really keeps (where it differs from the engine op's ``saves_inputs``)
and which ops keep their output. An output's version is recorded by ``before_write`` the first
time an in-place op writes to a tensor whose node saves it (``Tensor.bump_version``); ``check``
is asked by the backward before each node runs (the engine's own input check is then off: see
``double_grad.refuser``).

Measured on Paddle 3.3.1 and 2.6.2 by writing in place (``scale_``) to the output, and to each
input, of ~100 functions before ``backward``; the two versions agree except ``median`` (one op
saving its output in 3.x; composed in 2.x). The 2.2 profile keeps the engine's rule (inputs
only), unmeasured.
"""
from __future__ import annotations

import weakref

from . import profiles
from .double_grad import ENGINE_NAMES, _TAGS, paddle_op

# Paddle ops whose grad node keeps the forward output (both measured versions)
SAVES_OUT = frozenset((
    "exp", "expm1", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "relu6", "elu", "selu", "silu",
    "hardsigmoid", "erfinv", "reciprocal", "softmax", "log_softmax", "cumprod",
    "logsumexp", "logcumsumexp", "max", "min", "amax", "amin", "prod", "p_norm",
    "frobenius_norm", "divide", "lerp",
))
# ... and only in some versions (profile key -> more ops)
SAVES_OUT_SINCE = {"3": frozenset(("median",)), "2.6": frozenset()}

# Paddle op -> the inputs its grad node keeps, where the engine op saves others: the output
# stands for the input (reciprocal, erfinv, selu, hardsigmoid), the input is ``no_need_buffer``
# (argsort's x, where's x and y), or Paddle's op is another (huber_loss keeps its residual,
# ``x / 2.0`` is a scale op)
SAVED_INPUTS = {
    "erfinv": (), "reciprocal": (), "selu": (), "hardsigmoid": (), "argsort": (),
    "where": (0,), "huber_loss": (), "div_scale": (), "sinc": (),
}

# profile key -> the line of tensor_wrapper.h that raises (2.2's legacy dygraph: no suffix)
WRAPPER_LINE = {"3": 268, "2.6": 265}

_WATCH: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _measured():
    return profiles.current().key in WRAPPER_LINE


def saves_output(node) -> bool:
    name = paddle_op(node)
    if name in SAVES_OUT:
        return True
    more = SAVES_OUT_SINCE.get(profiles.current().key)
    return bool(more) and name in more


def before_write(t):
    """``t`` is about to be written in place: if the node that made it keeps it, remember the
    version it was saved at (its version before its first write since)."""
    node = t.grad_node
    if node is None or node.op is None or not _measured() or not saves_output(node):
        return
    slot = t.out_slot
    entries = _WATCH.get(node)
    if entries is None:
        _WATCH[node] = [(slot, weakref.ref(t), t._version)]
    elif all(e[0] != slot for e in entries):
        entries.append((slot, weakref.ref(t), t._version))


def _input_error(node, i):
    from ..engine.backward import InplaceModifiedError

    return InplaceModifiedError(node, i, node.inputs[i], node.saved_version(i))


def _check_inputs(node, indices):
    inputs = node.inputs
    if inputs is None:
        return None
    versions = node.in_versions
    for i in (range(len(inputs)) if indices is None else indices):
        v = 0 if versions is None else versions[i]
        if inputs[i]._version != v:
            return _input_error(node, i)
    return None


class _Moved:
    """Stands for a saved output that is gone: written since it was saved."""

    def __init__(self, version):
        self._version = version


def check(node):
    """The error Paddle raises when ``node`` runs with a saved tensor written since it was
    saved, or None."""
    return checker(profiles.current())(node)


def checker(profile):
    """``check`` for the nodes of a backward run under ``profile``."""
    return _check_measured if profile.key in WRAPPER_LINE else _check_engine


def _check_engine(node):
    """The engine's rule (an unmeasured profile): the inputs the engine op saves."""
    if node.op.saves_inputs:
        return _check_inputs(node, None)
    return None


_TAG_DATA = _TAGS.data      # (``paddle_op`` and ``_WATCH.get`` written out: a call a node each;
_WATCH_DATA = _WATCH.data   # a WeakKeyDictionary keeps its one dict, keyed by weak references)


def _check_measured(node, _ref=weakref.ref):
    op = node.op
    name = _TAG_DATA.get(_ref(node)) if _TAG_DATA else None
    if name is None:
        name = op.name
        name = ENGINE_NAMES.get(name, name)
    indices = SAVED_INPUTS.get(name, None if op.saves_inputs else ())
    if indices != ():
        inputs = node.inputs
        if inputs is not None:
            if node.in_versions is not None:
                err = _check_inputs(node, indices)
                if err is not None:
                    return err
            else:
                for t in inputs:
                    if t._version:
                        err = _check_inputs(node, indices)
                        if err is not None:
                            return err
                        break
    if _WATCH_DATA:
        entries = _WATCH_DATA.get(_ref(node))
        if entries is not None:
            from ..engine.backward import InplaceModifiedError

            for slot, ref, version in entries:
                t = ref()
                if t is None:
                    t = _Moved(version + 1)
                if t._version != version:
                    return InplaceModifiedError(node, -1 - slot, t, version)
    return None


# ------------------------------------------------------------------ views share the version
# Paddle's view ops (reshape, squeeze, unsqueeze, flatten, transpose, basic slicing x[1:3],
# detach, unbind, diagonal, as_strided, view ...) give a tensor over the same memory that shares
# its ``inplace_version`` counter with its base: a write to either bumps both (measured on 3.3.1
# and 2.6.2; split, chunk, unstack, expand, clone, assign and advanced indexing make copies).
# Here each family of such tensors is one dict ``id -> weakref`` (tensors compare elementwise,
# so they are keyed by id), and ``bump`` bumps every live member.
_FAMILY: dict = {}  # id(tensor) -> its family


def _forget(tid, fam):
    def gone(_ref):
        try:
            _FAMILY.pop(tid, None)
            fam.pop(tid, None)
        except (AttributeError, TypeError):  # (at interpreter exit module globals may be None:
            pass                             # no 'Exception ignored' line on stderr)

    return gone


def share(out, base):
    """``out`` (a tensor, or a list of them) is a view of ``base``: one version for both."""
    if isinstance(out, (list, tuple)):
        for o in out:
            share(o, base)
        return
    if out is base or not hasattr(out, "bump_version") or not hasattr(base, "bump_version"):
        return
    fam = _FAMILY.get(id(base))
    if fam is None:
        fam = _FAMILY[id(base)] = {}
        fam[id(base)] = weakref.ref(base, _forget(id(base), fam))
    if id(out) not in fam:
        fam[id(out)] = weakref.ref(out, _forget(id(out), fam))
        _FAMILY[id(out)] = fam
    out._version = base._version


def view_op(fn):
    """Decorator: the function's result is a view of its first argument (``share``)."""
    import functools

    @functools.wraps(fn)
    def run(*args, **kwargs):
        out = fn(*args, **kwargs)
        if args:
            share(out, args[0])
        return out

    return run


def bump(t):
    """An in-place write to ``t``: its version and its views' go up by one; a node that saved
    one of them as its output remembers the version it saved (``before_write``)."""
    fam = _FAMILY.get(id(t)) if _FAMILY else None
    for m in ((t,) if fam is None else [r() for r in list(fam.values())]):
        if m is None:
            continue
        if m.grad_node is not None:
            before_write(m)
        m._version += 1


def basic_index(index) -> bool:
    """Whether ``x[index]`` is a view in Paddle (ints, slices, None, Ellipsis only)."""
    items = index if isinstance(index, tuple) else (index,)
    for i in items:
        if not (i is None or i is Ellipsis or isinstance(i, slice)
                or (isinstance(i, int) and not isinstance(i, bool))):
            return False
    return True
