"""What a torch view remembers of how it was made (torch's ``CreationMeta``), and the rules that
follow from it. Every rule and message below was measured on real torch 2.13 (LEFT17).

- A view (``p[0]``, ``p.t()``, ``p.view(6)``, ``p.unbind(0)`` ...: the ops whose ``view_kind`` is
  set, see ``KIND``) made under ``no_grad`` or ``inference_mode`` of a tensor whose base
  requires grad still requires grad, is a leaf and has no ``grad_fn`` (its repr says
  ``requires_grad=True``); results that are not views (``p[[0]]``, ``p * 1``, ``clone``,
  ``.data``, ``detach``) do not.
- Such a view has no gradient edge: a backward through ``v * 2`` runs, and neither ``v.grad``
  nor the base's ``.grad`` receives anything (``autograd.grad`` w.r.t. it: "appears to not
  have been used"), until ``v.requires_grad_()`` gives it its own accumulator.
- Modifying it in place with grad mode on (and a gradient involved) raises torch's error for
  its creation mode; so does a view made from it in grad mode (``v[0] = 1``: "Output 0 of
  Select is a view of a view which ..."), and any output of a multi-output view op (``unbind``,
  ``split``, ``chunk``) or a view of one ("... returns multiple views ...").
- Once its base (or it) was modified in place after it was made, asking its ``grad_fn`` or
  ``requires_grad``, or using it in a recorded op, raises the "its base or another view of its
  base has been modified inplace" error, and its repr shows ``grad_fn=<Invalid>``.
- A view made in grad mode that nothing records (a view of data: ``x.view(2, 3)``) keeps its
  base too (creation DEFAULT): ``_is_view()``, ``_base``, and the base an in-place write through
  it rebases (``_inplace._rebase``); no requires_grad, edge or staleness rule applies to it.
"""
from __future__ import annotations

from ..engine import grad_mode
from ..engine import registry as _registry

_STATE = grad_mode.STATE
_INFERENCE = [0]   # the torch dialect's inference_mode depth (``_tensor._INFERENCE``, set there)

NO_GRAD, INFERENCE, MULTI = "no_grad", "inference_mode", "multi_output"
DEFAULT = "default"   # a view made in grad mode that nothing recorded (its base needs no grad)
WITHOUT_GRAD = (NO_GRAD, INFERENCE)   # the modes whose views keep their base's requires_grad

# torch's view ops by the name of their backward node: 1 one view, 2 several (multi-output)
KIND = dict.fromkeys((
    "ViewBackward0", "ReshapeAliasBackward0", "SelectBackward0", "SliceBackward0",
    "AliasBackward0", "TBackward0", "TransposeBackward0", "PermuteBackward0",
    "UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2",
    "ExpandBackward0", "DiagonalBackward0", "AsStridedBackward0", "UnfoldBackward0",
    "ViewAsRealBackward0", "ViewAsComplexBackward0", "RealBackward0", "ImagBackward0",
    "NarrowBackward0", "UnflattenBackward0"), 1)
KIND.update(dict.fromkeys(("UnbindBackward0", "SplitBackward0", "SplitWithSizesBackward0"), 2))

_NO_GRAD_TAIL = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the {} block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked).")
_TAIL = {
    NO_GRAD: _NO_GRAD_TAIL.format("no_grad"),
    INFERENCE: _NO_GRAD_TAIL.format("inference_mode"),
    MULTI: (" This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one."),
}
DETACH_VIEW_MESSAGE = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, "
    "please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the "
    "solution.")


# A view's meta is the tuple (creation, root, version): its creation mode (NO_GRAD, INFERENCE,
# MULTI); the tensor whose memory it views (torch's ``_base``); the root's version when the view
# was made. ``t._view_own``: the view was given its own ``requires_grad_()`` (it accumulates).
CREATION, ROOT, VERSION = 0, 1, 2


def node_name(op):
    """``SelectBackward0`` -> ``Select``: how torch's messages name a view's grad_fn."""
    name = getattr(op, "torch_name", None) or op.name
    k = name.rfind("Backward")
    return name[:k] if k > 0 else name


def root_of(t):
    """The tensor whose memory view ``t`` views (torch's ``Tensor._base``), or None."""
    m = t._view_meta
    if m is not None:
        return m[ROOT]
    node = t.grad_node
    if node is None or t.stop_gradient or not getattr(node.op, "view_kind", 0):
        return None
    while node is not None and getattr(node.op, "view_kind", 0):
        src = node.input_tensor(0)
        if src is None:
            return None
        m = src._view_meta
        if m is not None:
            return m[ROOT]
        node = src.grad_node if not src.stop_gradient else None
        t = src
    return t


def made_without_grad(op, x, outs):
    """``registry.VIEW_HOOK``: the outputs of view op ``op`` on ``x`` that nothing recorded
    (grad mode off, or grad mode on and x needing no gradient)."""
    prev = x._view_meta
    if _STATE.enabled:
        if op.view_kind == 2 and (prev is None or prev[CREATION] == DEFAULT):
            creation = MULTI
        elif prev is not None:
            creation = prev[CREATION]   # (a view of such a view, made in grad mode: inherits it)
        else:
            creation = DEFAULT          # (a view of data: its _base, _is_view())
    else:
        creation = INFERENCE if _INFERENCE[0] else NO_GRAD
        if prev is not None and prev[CREATION] == INFERENCE:
            creation = INFERENCE
    if prev is not None:
        root = prev[ROOT]
    else:
        root = root_of(x)
        if root is None:
            root = x
    requires = not root.stop_gradient and creation in WITHOUT_GRAD
    meta = (creation, root, root._version)
    for t in outs:
        t._view_meta = meta
        t._alias = root
        if requires:
            t.stop_gradient = False
    if _INFERENCE[0] and not getattr(x, "_inference", False):
        for t in outs:   # a view of a normal tensor is no inference tensor (torch)
            t._inference = False
    return outs


_registry.VIEW_HOOK[0] = made_without_grad


def _message(creation, name, out_nr, indirect):
    modified = "its base or another view of its base has been" if indirect else "is being"
    if name is not None:
        if creation == NO_GRAD:
            head = (f"Output {out_nr} of {name} is a view of a view which was created in no_grad "
                    f"mode and {modified} modified inplace with grad mode enabled.")
        elif creation == INFERENCE:
            head = (f"Output {out_nr} of {name} is a view of a view which was created in "
                    f"inference mode and {modified} modified inplace in normal mode.")
        else:
            head = f"Output {out_nr} of {name} is a view and {modified} modified inplace."
    elif creation == INFERENCE:
        head = f"A view was created in inference mode and {modified} modified inplace in normal mode."
    else:
        head = (f"A view was created in no_grad mode and {modified} modified inplace with grad "
                "mode enabled.")
    return head + _TAIL[creation]


def creation_of(t):
    """The creation mode (NO_GRAD, INFERENCE, MULTI) torch's view ``t`` carries, or None: its
    own, or found through the view ops recorded between it and its base."""
    m = t._view_meta
    if m is not None:
        return None if m[CREATION] == DEFAULT else m[CREATION]
    node = t.grad_node
    while node is not None and not t.stop_gradient and getattr(node.op, "view_kind", 0):
        if node.op.view_kind == 2:
            return MULTI
        src = node.input_tensor(0)
        if src is None:
            return None
        if src._view_meta is not None:
            c = src._view_meta[CREATION]
            return None if c == DEFAULT else c
        node, t = src.grad_node, src
    return None


def check_inplace(x, sub_view=None):
    """Before an in-place write to view ``x`` that involves a gradient, grad mode on: torch's
    error for a view made under no_grad/inference_mode or by a multi-output op. ``sub_view``:
    the name of the view ``x[index] = ...`` writes through (``Select``, ``Slice``), if any."""
    creation = creation_of(x)
    if creation is None:
        return
    if sub_view is not None:
        raise RuntimeError(_message(creation, sub_view, 0, False))
    node = x.grad_node if not x.stop_gradient else None
    name = node_name(node.op) if node is not None else None
    raise RuntimeError(_message(creation, name, x.out_slot if node is not None else 0, False))


def stale(t):
    """True when view ``t`` (made without grad, of a base requiring grad) saw its base or
    itself modified in place since: torch then refuses to regenerate its grad_fn."""
    m = t._view_meta
    return (m is not None and m[CREATION] in WITHOUT_GRAD and not m[ROOT].stop_gradient
            and m[ROOT]._version != m[VERSION])


def raise_stale(t):
    raise RuntimeError(_message(t._view_meta[CREATION], None, 0, True))


def sub_view_name(index):
    """The last view op torch's ``x[index] = v`` applies before writing: ints select, slices
    that are not the whole range slice, None unsqueezes (... and ``:`` apply nothing)."""
    name = None
    for i in (index if isinstance(index, tuple) else (index,)):
        if i is None:
            name = "Unsqueeze"
        elif isinstance(i, bool):
            continue
        elif isinstance(i, int) or (hasattr(i, "__index__") and not hasattr(i, "shape")):
            name = "Select"
        elif isinstance(i, slice):
            if not (i.start in (None, 0) and i.stop is None and i.step in (None, 1)):
                name = "Slice"
    return name


def no_edge(t):
    """True for a view made without grad that has no gradient edge of its own: no grad
    accumulator until ``requires_grad_()`` gave it one (torch 2.13)."""
    m = t._view_meta
    return m is not None and m[CREATION] in WITHOUT_GRAD and not t._view_own
