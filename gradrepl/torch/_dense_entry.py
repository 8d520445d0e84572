"""The dense fast entry of the torch functions that also take sparse or complex inputs (issue 29).

The sparse layouts' dispatch (``_sparse_ops``, ``_sparse_csr``: ``torch.tanh(s)`` is ``s.tanh()``)
and the complex refusals (``_complex_unsupported``: ``torch.clamp(z)`` raises torch's error) are
pass-through wrappers, each a Python frame over the function, and the ``out=`` mechanism
(``_out.with_out``) one more: ``torch.clamp(x, 0, 1)`` of a float tensor went through four frames.
ATen decides by the inputs' dispatch keys (layout, then dtype); here the one entry installed last
over each such name looks at the inputs once:

- a dense tensor (``Tensor``, ``Parameter``, ``Buffer``) first (and second, for the products
  whose sparse operand may come second), no ``out=``, and, for a name with a complex refusal, no
  complex dtype among the first two arguments: the function itself is called (no wrapper frame
  below the entry, the ``out=`` one skipped too);
- anything else (a sparse tensor, a list for ``cat``, a number first, ``out=``, a complex tensor
  where torch refuses): the wrappers' chain, unchanged (their messages and dispatch as before).

The entry's frame is a pass-through one (``_out.PASS_THROUGH``): warnings name the user's line.
``__wrapped__`` is the chain (``inspect.unwrap`` reaches the function as before).
"""
from __future__ import annotations

import functools

from . import _out
from ._base import raw

#: the code of ``_out.with_out``'s wrapper (its ``__wrapped__``: the function)
_OUT_CODE = _out.with_out(abs, "abs").__code__

#: functions whose dense function refuses complex inputs itself (``_ops._relu``'s
#: complex_error) and takes no sparse dispatch: no wrapper at all over them
_SELF_REFUSING = frozenset((("functional", "relu"), ("tensor", "relu")))

#: the products whose sparse operand may be the second (dense @ sparse, addmm's sparse mat1)
_SECOND = frozenset(("mm", "matmul", "addmm"))


def _chain_bottom(fn, wrappers):
    """The function under the pass-through wrappers (the ``out=`` one's function too), and
    whether an ``out=`` wrapper was passed on the way."""
    has_out = False
    while True:
        code = getattr(fn, "__code__", None)
        if code is not None and code in wrappers:
            fn = fn.__wrapped__
        elif code is _OUT_CODE:
            has_out = True
            fn = fn.__wrapped__
        else:
            return fn, has_out


def _entry(chain, dense, dense_types, second, refuse, listed):
    """``chain`` for sparse/complex/out= calls, ``dense`` for the plain ones."""
    if listed:   # (cat: a list of tensors first)
        def f(*args, **kwargs):
            if args and "out" not in kwargs:
                ts = args[0]
                if (type(ts) is list or type(ts) is tuple) and ts and type(ts[0]) in dense_types:
                    return dense(*args, **kwargs)
            return chain(*args, **kwargs)
    elif refuse:
        def f(*args, **kwargs):
            if args and type(args[0]) in dense_types and raw(args[0]).dtype.kind != "c" and (
                    "out" not in kwargs):
                if len(args) < 2:
                    return dense(*args, **kwargs)
                b = args[1]
                tb = type(b)
                if tb in dense_types:
                    if raw(b).dtype.kind != "c":
                        return dense(*args, **kwargs)
                elif tb is int or tb is float or tb is bool or b is None:
                    return dense(*args, **kwargs)
            return chain(*args, **kwargs)
    elif second:
        def f(*args, **kwargs):
            if len(args) > 1 and type(args[0]) in dense_types and type(args[1]) in dense_types \
                    and "out" not in kwargs:
                return dense(*args, **kwargs)
            return chain(*args, **kwargs)
    else:
        def f(*args, **kwargs):
            if args and type(args[0]) in dense_types and "out" not in kwargs:
                return dense(*args, **kwargs)
            return chain(*args, **kwargs)
    functools.update_wrapper(f, chain)
    f.__wrapped__ = chain
    _out.PASS_THROUGH.add(f.__code__)
    return f


def install(torch_module, functional, tensor_cls):
    """Over each function of the torch namespace, nn.functional and the Tensor class that the
    sparse dispatch or a complex refusal wraps, the one entry."""
    from ._complex_unsupported import _REDUCE_ALL, TABLE

    wrappers = _out.PASS_THROUGH
    dense_types = frozenset([tensor_cls] + list(tensor_cls.__subclasses__()))
    for space in (torch_module, functional, tensor_cls):
        for name, fn in list(vars(space).items()):
            code = getattr(fn, "__code__", None)
            if code is None or code not in wrappers or (
                    space is not tensor_cls and name.startswith("__")):
                continue
            dense, _has_out = _chain_bottom(fn, wrappers)
            kind = "tensor" if space is tensor_cls else "functional" if space is functional \
                else "torch"
            if (kind, name) in _SELF_REFUSING:
                setattr(space, name, dense)
                continue
            refuse = name in TABLE or name in _REDUCE_ALL
            setattr(space, name, _entry(fn, dense, dense_types,
                                        space is torch_module and name in _SECOND, refuse,
                                        space is torch_module and name == "cat"))
