"""Clear AttributeErrors (issue 28): an attribute the emulated Paddle has and gradrepl's Paddle
does not emulate raises an AttributeError saying so, at the point of access
(``paddle.audio`` -> "module 'paddle' has no attribute 'audio' (gradrepl's paddle does not emulate
paddle.audio: audio features and datasets)"); a name that version of Paddle does not have
either raises Paddle's own message. Paddle's names per version and module are
``_paddle_names.NAMES`` (generated from real Paddle's ``dir()`` by ``tools/paddle_api_gaps.py``).

On ``Tensor`` each such name is a class attribute whose descriptor raises (``hasattr`` is False,
as for a missing name), so ordinary attribute access pays nothing for it.
"""
from __future__ import annotations

from . import profiles

# what a not-emulated module or family is, for the message
NOTES = {
    "paddle.inference": "the inference engine",
    "paddle.Tensor.stft": "the short-time Fourier transform",
    "paddle.Tensor.istft": "the inverse short-time Fourier transform",
}


def _names(target):
    from ._paddle_names import NAMES

    return NAMES["3" if profiles.current().api3 else "2.6"].get(target, ())


def emulated_by_paddle(target, name):
    """True when the emulated Paddle version has ``target.name``."""
    return name[:1] != "_" and name in _names(target)


def error(target, name, owner=None):
    """The AttributeError for ``target.name``: says gradrepl does not emulate it when the
    emulated Paddle has it, else Paddle's own wording. ``owner``: how Python names the object
    ("module 'paddle'" by default)."""
    owner = owner or f"module '{target}'"
    if emulated_by_paddle(target, name):
        note = NOTES.get(f"{target}.{name}")
        return AttributeError(f"{owner} has no attribute '{name}' (gradrepl's paddle does not "
                              f"emulate {target}.{name}{': ' + note if note else ''})")
    return AttributeError(f"{owner} has no attribute '{name}'")


def missing_module(fullname):
    """The ModuleNotFoundError for ``import paddle.x.y`` when the emulated Paddle has module
    ``y`` in ``paddle.x`` and gradrepl does not emulate it (``from paddle.quantization import
    QAT``): Python's message, then what gradrepl does not emulate; None for any other name."""
    parent, _, leaf = fullname.rpartition(".")
    if not parent or not emulated_by_paddle(parent, leaf):
        return None
    note = NOTES.get(fullname)
    return ModuleNotFoundError(f"No module named {fullname!r} (gradrepl's paddle does not "
                               f"emulate {fullname}{': ' + note if note else ''})", name=fullname)


class _NotEmulated:
    """A Tensor attribute Paddle has and gradrepl does not: access raises AttributeError."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        owner = (f"'{(objtype or type(obj)).__name__}' object" if obj is not None else
                 f"type object '{objtype.__name__}'")
        raise error("paddle.Tensor", self.name, owner)


def install_tensor(cls):
    """Every public Tensor name of either Paddle version that ``cls`` lacks becomes a raising
    descriptor (its message follows the profile in force when it is read)."""
    from ._paddle_names import NAMES

    import types

    from .tensor import Since3

    for version in NAMES.values():
        for name in version.get("paddle.Tensor", ()):
            if name[:1] != "_" and not any(name in k.__dict__ for k in cls.__mro__):
                setattr(cls, name, _NotEmulated(name))
    # a method only Paddle 3 has is an AttributeError under 2.x (most already are Since3)
    for name in NAMES["3"]["paddle.Tensor"] - NAMES["2.6"]["paddle.Tensor"]:
        if isinstance(cls.__dict__.get(name), types.FunctionType):
            setattr(cls, name, Since3(cls.__dict__[name], name))
    # dir(paddle.Tensor) and dir(t) list the emulated version's names (gradrepl's own engine
    # attributes, grad_node ..., stay reachable, out of the listing)
    cls._paddle_dir = staticmethod(_tensor_dir)
    cls.__dir__ = _instance_dir


def _tensor_dir(cls):
    from .names_gate import names

    out = [n for n in type.__dir__(cls) if n[:1] == "_"]
    return sorted(out + [n for n in names("paddle.Tensor") if hasattr(cls, n)])


def _instance_dir(self):
    out = set()
    for k in type(self).__mro__:  # a subclass's own names (Parameter's trainable ...) stay
        if k.__dict__.get("_paddle_dir") is not None:
            return sorted(out.union(_tensor_dir(k)))
        out.update(n for n in k.__dict__ if n[:1] != "_")
    return object.__dir__(self)
