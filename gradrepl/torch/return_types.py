"""``torch.return_types``: the named tuples of ``max(dim)``, ``sort`` ... printed as torch does::

    torch.return_types.max(
    values=tensor([3., 6.], grad_fn=<MaxBackward0>),
    indices=tensor([2, 2]))
"""
from __future__ import annotations


def _make(name, fields=("values", "indices")):
    class _RT(tuple):
        __slots__ = ()
        _fields = fields

        def __new__(cls, seq):
            return tuple.__new__(cls, tuple(seq))

        def __repr__(self):
            body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
            return f"torch.return_types.{name}(\n{body})"

        __str__ = __repr__

    for i, f in enumerate(fields):
        setattr(_RT, f, property(lambda self, i=i: tuple.__getitem__(self, i)))
    _RT.__name__ = _RT.__qualname__ = name
    _RT.__module__ = "torch.return_types"
    return _RT


max = _make("max")  # noqa: A001
min = _make("min")  # noqa: A001
sort = _make("sort")
topk = _make("topk")
median = _make("median")
mode = _make("mode")
kthvalue = _make("kthvalue")
aminmax = _make("aminmax", ("min", "max"))
