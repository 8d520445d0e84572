"""Programs and Values: what static graph mode records.

While static mode is on (``paddle.enable_static()``), paddle calls do not compute a result for the
user: they append an op to the current main Program and return a ``Value``, a symbol with a shape
(``-1`` where the batch size is left open), a dtype and the name of the op that defines it. The
Executor (``executor.py``) later runs the recorded ops on the fed arrays.

How ops are recorded:

* engine ops (``add``, ``matmul``, ``cast``, ...) through the one hook in
  ``engine.registry.apply`` (``registry.set_apply_hook``, None in dynamic mode): an op with a Value among
  its inputs is run on the Values' placeholder arrays (ones, open dims of size 1) to learn the
  output's shape and dtype, and recorded with its attributes; other inputs are kept as constants;
* creation calls (``paddle.ones``, ``full``, ``rand``, ``to_tensor``, ...) by wrappers that
  ``enable_static`` puts in the ``paddle`` namespace (and ``disable_static`` takes away again):
  recorded by function name, re-run by the Executor, so ``paddle.rand`` draws its numbers when
  the program runs, from the generator's state at that moment, as in Paddle;
* ``static.data`` (a feed), ``paddle.create_parameter`` (a parameter read from the scope, and its
  initialiser appended to the startup program) and ``x[i] = v`` / ``static.setitem`` (Paddle's
  in-place ``set_value_``).

Open dims: when an input has a ``-1`` dim the op is run a second time with that dim of size 2,
and every output dim that changes is open.
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import dtypes, profiles
from ..core import PaddleClass, Size, Tensor

# ---------------------------------------------------------------------------- the mode
MODE = {"static": False}

#: Paddle's name of the op that defines a Value (``pd_op.<name>``), where it is not the engine's
PIR_NAMES = {"pow": "elementwise_pow", "set_value_with_tensor": "set_value_with_tensor_"}
#: Paddle 2.6's op type (its static Variables are named ``<type>_<n>.tmp_0``) and how many
#: unique names one such op takes (``fill_constant`` takes two: measured on 2.6.2)
LEGACY_NAMES = {"full": ("fill_constant", 2), "uniform": ("uniform", 1),
                "gaussian": ("gaussian", 1), "add": ("elementwise_add", 1),
                "subtract": ("elementwise_sub", 1), "multiply": ("elementwise_mul", 1),
                "divide": ("elementwise_div", 1), "matmul": ("matmul_v2", 1),
                "sum": ("reduce_sum", 1), "mean": ("reduce_mean", 1), "reshape": ("reshape2", 1),
                "set_value_": ("set_value", 1), "assign_value_": ("assign", 1)}
#: the short dtype spellings of PIR's ``tensor<2x3xf32>``
PIR_DTYPES = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
              "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
              "bool": "b", "complex64": "c64", "complex128": "c128"}

_LEGACY_COUNTS: dict = {}


#: > 0 while a Value's arithmetic operator runs: Paddle 2.x names its result ``tmp_<n>``
IN_OPERATOR = [0]


def _legacy_name(op_name):
    kind, take = LEGACY_NAMES.get(op_name, (op_name, 1))
    if IN_OPERATOR[0]:
        kind, take = "tmp", 0
    if take == 0:  # a math operator's result: unique_name("tmp")
        n = _LEGACY_COUNTS.get("tmp", 0)
        _LEGACY_COUNTS["tmp"] = n + 1
        return f"tmp_{n}"
    n = _LEGACY_COUNTS.get(kind, 0) + take - 1
    _LEGACY_COUNTS[kind] = n + 1
    return f"{kind}_{n}.tmp_0"


class _ByProfile:
    """A class's Paddle path that differs between 3.x (PIR) and 2.x (``core.paddle_path``)."""

    def __init__(self, pir, legacy):
        self.pir, self.legacy = pir, legacy

    def __str__(self):
        return self.pir if profiles.current().api3 else self.legacy

    def __format__(self, spec):
        return format(str(self), spec)


# ---------------------------------------------------------------------------- Values
class Value(Tensor):
    """A symbolic tensor of a static Program: shape (``-1``: open), dtype, defining op.

    ``data`` holds a placeholder array (ones; open dims of size 1) that the recorder runs ops on
    to learn shapes; it is not the value the Executor computes."""

    _paddle_path = _ByProfile("paddle.base.libpaddle.pir.Value", "paddle.base.framework.Variable")

    @classmethod
    def _make(cls, prog, data, dims, op_name, stop_gradient, index=0, name=None, kind="op"):
        v = cls._wrap(data, stop_gradient)
        v._prog = prog
        v._vid = next(prog._ids)
        v._dims = tuple(int(d) for d in dims)
        v._op_name = op_name
        v._index = index
        v._vname = name
        v._kind = kind                  # "op", "data" or "param"
        v._legacy = name if name is not None else _legacy_name(op_name)
        prog._values[v._vid] = v
        return v

    # -- what Paddle shows ------------------------------------------------------------------
    def __repr__(self):
        if not profiles.current().api3:
            return self._legacy_repr()
        dt = PIR_DTYPES.get(dtypes.from_np(self._ph.dtype).name, self._ph.dtype.name)
        body = "x".join(str(d) for d in self._dims) + ("x" if self._dims else "") + dt
        return (f"Value(define_op_name={self._define_op}, index={self._index}, "
                f"dtype=tensor<{body}>, stop_gradient={self.stop_gradient})")

    __str__ = __repr__

    def _repr_pretty_(self, p, cycle):
        p.text(repr(self))

    def _legacy_repr(self):
        dims = tuple(self._dims)
        kind = "persist trainable param " if self._kind == "param" else "var "
        return (f"{kind}{self._legacy} : LOD_TENSOR.shape{dims}.dtype("
                f"{dtypes.from_np(self._ph.dtype).name}).stop_gradient({self.stop_gradient})")

    @property
    def _define_op(self):
        if self._kind == "param":
            return "builtin.parameter"
        return "pd_op." + PIR_NAMES.get(self._op_name, self._op_name)

    @property
    def shape(self):
        if not profiles.current().api3:
            return tuple(self._dims)
        return Size(list(self._dims)) if profiles.current().shape_is_size else list(self._dims)

    @property
    def name(self):
        if self._vname is not None:
            return self._vname
        if not profiles.current().api3:
            return self._legacy
        raise ValueError("(InvalidArgument) Currently, we can only get name of Value from "
                         "DataOp/ParameterOp/BlockArgument/ConstantTensorOp/SetParameterOp and "
                         "ShadowOutputOp.")

    @name.setter
    def name(self, value):
        self._vname = value

    @property
    def persistable(self):
        return self._kind == "param"

    def numpy(self):
        raise AssertionError(
            "'numpy' only can be called by `paddle.Tensor` in dynamic graph mode. Suggestions:\n"
            "  1. If you are in static graph mode, you can switch to dynamic graph mode by turning "
            "off `paddle.enable_static()` or calling `paddle.disable_static()`.\n"
            "  2. If you are using `@paddle.jit.to_static`, you can call "
            "`paddle.jit.enable_to_static(False)`. If you have to translate dynamic graph to "
            "static graph, please use other API to replace 'numpy'.")

    def __setitem__(self, index, value):
        if not profiles.current().api3:
            raise RuntimeError(
                "In static mode, the __setitem__ (looks like: x[indices] = values) should not be "
                "used. Please use x = paddle.static.setitem(x, indices, values)")
        setitem(self, index, value)

    def __hash__(self):
        return id(self)

    # -- the placeholder, readable in static mode only ----------------------------------------
    @property
    def data(self):
        if MODE["static"]:
            return self._ph
        raise _dynamic_use_error(self)

    @data.setter
    def data(self, arr):
        self._ph = arr

    __array_priority__ = 1000


Value._result_type = Tensor

#: the arithmetic operators whose static results Paddle 2.x names ``tmp_<n>``
OPERATORS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
             "__rtruediv__", "__pow__", "__rpow__", "__neg__", "__matmul__", "__floordiv__",
             "__mod__")


def _named_tmp(name):
    base = getattr(Tensor, name)

    def operator(self, *args):
        IN_OPERATOR[0] += 1
        try:
            return base(self, *args)
        finally:
            IN_OPERATOR[0] -= 1

    operator.__name__ = name
    return operator


for _name in OPERATORS:
    setattr(Value, _name, _named_tmp(_name))
del _name


#: a Tensor operator with a number is Paddle's ``scale`` op
_OPERATOR_APIS = {"__add__": "scale", "__radd__": "scale", "__sub__": "scale",
                  "__mul__": "scale", "__rmul__": "scale", "__truediv__": "scale",
                  "__neg__": "scale"}


def _calling_api(frame, v):
    """The public paddle function (or operator) that read a Value's data, and which of its
    arguments the Value is: the first gradrepl.paddle frame with a public name."""
    while frame is not None:
        code = frame.f_code
        if "gradrepl" in code.co_filename and "static" not in code.co_filename and (
                not code.co_name.startswith("_") or code.co_name in _OPERATOR_APIS):
            local = frame.f_locals
            arg = "y" if local.get("y") is v and local.get("x") is not v else "x"
            name = _OPERATOR_APIS.get(code.co_name, code.co_name)
            if isinstance(local.get("fname"), str):  # a function made by a factory
                name = local["fname"]
            elif code.co_name == "tensor_op" and isinstance(local.get("name"), str):
                name = local["name"]
            return name, arg, 1 if arg == "y" else 0
        frame = frame.f_back
    return "api", "x", 0


def _dynamic_use_error(v):
    """A Value given to a dynamic-mode op (after ``disable_static``): Paddle's ValueError naming
    the op and the argument, read from the engine's ``apply`` frame when that is the caller."""
    import sys

    name, arg, pos = _calling_api(sys._getframe(2), v)
    if not profiles.current().api3:
        arg = arg.upper() if name == "scale" else arg
        return ValueError(f"(InvalidArgument) {name}(): argument '{arg}' (position {pos}) must be "
                          "Tensor, but got Variable (at /paddle/paddle/fluid/pybind/eager_utils."
                          "cc:1334)\n")
    return ValueError(f"(InvalidArgument) {name}(): argument '{arg}' (position {pos}) must be "
                      "Tensor, but got paddle.base.libpaddle.pir.Value (at /paddle/paddle/fluid/"
                      "pybind/eager_utils.cc:1526)\n")


# ---------------------------------------------------------------------------- ops
class OpRec:
    """One recorded op: ``kind`` says how the Executor runs it (see ``executor.RUNNERS``);
    ``ins`` are ("v", value id) or ("c", constant array); ``outs`` value ids."""

    __slots__ = ("kind", "name", "target", "ins", "attrs", "outs")

    def __init__(self, kind, name, target, ins, attrs, outs):
        self.kind, self.name, self.target = kind, name, target
        self.ins, self.attrs, self.outs = ins, attrs, outs

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, state):
        for k, v in state.items():
            setattr(self, k, v)

    def __repr__(self):
        return f"<op {self.name} ({self.kind}): {self.ins} -> {self.outs}>"


class Program(metaclass=PaddleClass):
    """A list of recorded ops and the Values they define (Paddle's ``paddle.static.Program``)."""

    _paddle_path = _ByProfile("paddle.base.libpaddle.pir.Program", "paddle.base.framework.Program")

    def __init__(self):
        self.ops: list[OpRec] = []
        self._values: dict = {}
        self._ids = itertools.count()
        self.random_seed = 0
        self._params: dict = {}     # parameter name -> Value (main programs)
        self._feeds: dict = {}      # data name -> Value

    # -- recording ---------------------------------------------------------------------------
    def _record(self, kind, name, target, inputs, attrs, outputs):
        ins = tuple(("v", t._vid) if isinstance(t, Value) and t._prog is self else
                    ("c", np.array(t.data if isinstance(t, Tensor) else t)) for t in inputs)
        self.ops.append(OpRec(kind, name, target, ins, attrs, tuple(o._vid for o in outputs)))

    # -- Paddle's Program API ----------------------------------------------------------------
    def global_block(self):
        return _Block(self)

    @property
    def num_blocks(self):
        return 1

    def clone(self, for_test=False):
        """A copy with the same ops and Values (a Value of this program can be fetched from
        the copy); ``for_test`` is accepted (nothing recorded here is train-only)."""
        new = object.__new__(Program)
        new.__dict__.update(self.__dict__)
        new.ops = list(self.ops)
        new._values, new._params, new._feeds = (dict(self._values), dict(self._params),
                                                dict(self._feeds))
        return new

    def state_dict(self, mode="all", scope=None):
        """The parameters' current values in the scope, by name (after the startup ran)."""
        from .executor import global_scope

        scope = scope if scope is not None else global_scope()
        out = {}
        for name in self._params:
            if name in scope.vars:
                t = Tensor(np.array(scope.vars[name]))
                t.name = name
                out[name] = t
        return out

    def list_vars(self):
        return list(self._values.values())

    def __repr__(self):
        lines = [f"    {_show_op(self, op)}" for op in self.ops]
        return "{\n" + "".join(line + "\n" for line in lines) + "}\n"

    # -- files: our own format (a pickle of plain data), read back by gradrepl only -----------
    def __getstate__(self):
        meta = {vid: (v._dims, v._ph.dtype.str,
                      v._op_name, v.stop_gradient, v._index, v._vname, v._kind, v._legacy)
                for vid, v in self._values.items()}
        return {"ops": self.ops, "meta": meta, "random_seed": self.random_seed,
                "params": list(self._params), "feeds": list(self._feeds),
                "next": max(self._values, default=-1) + 1}

    def __setstate__(self, state):
        self.ops = state["ops"]
        self.random_seed = state["random_seed"]
        self._values = {}
        self._ids = itertools.count(state["next"])
        for vid, (dims, dt, op_name, sg, index, vname, kind, legacy) in state["meta"].items():
            data = np.ones([1 if d < 0 else d for d in dims], np.dtype(dt))
            v = Value._wrap(data, sg)
            v._prog, v._vid, v._dims, v._op_name, v._index = self, vid, tuple(dims), op_name, index
            v._vname, v._kind, v._legacy = vname, kind, legacy
            self._values[vid] = v
        by_name = {v._vname: v for v in self._values.values() if v._vname is not None}
        self._params = {n: by_name[n] for n in state["params"]}
        self._feeds = {n: by_name[n] for n in state["feeds"]}

    def __reduce_ex__(self, protocol):
        return object.__reduce_ex__(self, protocol)


def _show_op(prog, op):
    outs = ", ".join(f"%{o}" for o in op.outs)
    name = prog._values[op.outs[0]]._define_op if op.outs and op.outs[0] in prog._values \
        else op.name
    ins = ", ".join(f"%{i}" if k == "v" else f"const{list(np.shape(i))}" for k, i in op.ins)
    types = ", ".join(repr(prog._values[o]) for o in op.outs if o in prog._values)
    return f"({outs}) = \"{name}\" ({ins}) : {types}"


class _Block:
    def __init__(self, prog):
        self.program = prog

    @property
    def ops(self):
        return list(self.program.ops)

    @property
    def vars(self):
        return {v._vname: v for v in self.program._values.values() if v._vname is not None}


# ---------------------------------------------------------------------------- defaults
_DEFAULT = {"main": Program(), "startup": Program()}


def default_main_program():
    """The Program that static-mode calls record into (outside any ``program_guard``)."""
    return _DEFAULT["main"]


def default_startup_program():
    """The Program that holds the parameters' initialisers."""
    return _DEFAULT["startup"]


class program_guard:  # noqa: N801 - Paddle's name
    """``with program_guard(main, startup):`` records into ``main`` (and ``startup``)."""

    def __init__(self, main_program, startup_program=None):
        if not isinstance(main_program, Program):
            raise TypeError("The type of 'main_program' in program_guard must be Program, but "
                            f"received {type(main_program).__name__}.")
        self.main, self.startup = main_program, startup_program

    def __enter__(self):
        self.saved = dict(_DEFAULT)
        _DEFAULT["main"] = self.main
        if self.startup is not None:
            _DEFAULT["startup"] = self.startup
        return self.main

    def __exit__(self, *exc):
        _DEFAULT.update(self.saved)
        return False


# ---------------------------------------------------------------------------- shape inference
def _probe(v):
    """An input for the second run: the placeholder with every open dim of size 2."""
    return np.ones([2 if d < 0 else d for d in v._dims], v.data.dtype)


def _has_open(inputs):
    for t in inputs:
        if isinstance(t, Value) and -1 in t._dims:
            return True
    return False


def _open_dims(out_shape, probe_shape):
    if probe_shape is None or len(probe_shape) != len(out_shape):
        return tuple(out_shape)
    return tuple(-1 if a != b else a for a, b in zip(out_shape, probe_shape))


def _probe_shapes(fn, inputs, n_out):
    """The outputs' shapes when the open dims are 2 (None where that run fails)."""
    args = [_probe(t) if isinstance(t, Value) else t.data for t in inputs]
    try:
        with np.errstate(all="ignore"):
            out = fn(*args)
    except Exception:  # noqa: BLE001 - a shape baked into the attrs: the dims stay as they are
        return [None] * n_out
    outs = out if isinstance(out, tuple) else (out,)
    return [np.shape(o) for o in outs]


#: engine ops that reshape to a ``shape`` attribute the paddle layer computed from the input's
#: (placeholder) shape: an open batch dim stays open (``-1`` in the attribute)
RESHAPING = frozenset({"reshape", "flatten", "squeeze", "unsqueeze"})


def _open_batch(x, attrs):
    """The first dim of the computed ``shape`` that can be ``-1`` (the open dims of size 2
    still reshape to it) becomes ``-1``."""
    shape = attrs.get("shape")
    if not isinstance(x, Value) or -1 not in x._dims or shape is None or -1 in tuple(shape):
        return attrs
    size = int(np.prod([2 if d < 0 else d for d in x._dims]))
    for k in range(len(shape)):
        rest = int(np.prod([d for i, d in enumerate(shape) if i != k]))
        if rest and size % rest == 0 and size // rest != shape[k]:
            return dict(attrs, shape=tuple(shape[:k]) + (-1,) + tuple(shape[k + 1:]))
    return attrs


def on_apply(op, inputs, attrs):
    """The registry's apply hook in static mode: record an engine op that has a Value input."""
    for t in inputs:
        if isinstance(t, Value):
            break
    else:
        return NotImplemented
    prog = default_main_program()
    if op.name in RESHAPING:
        attrs = _open_batch(inputs[0], attrs)
    with np.errstate(all="ignore"):
        out = op.forward(*[t.data for t in inputs], **attrs)
    outs = out if isinstance(out, tuple) else (out,)
    outs = [np.asarray(o) for o in outs]
    probes = (_probe_shapes(lambda *a: op.forward(*a, **attrs), inputs, len(outs))
              if _has_open(inputs) else [None] * len(outs))
    sg = all(t.stop_gradient for t in inputs)
    values = [Value._make(prog, o, _open_dims(o.shape, p), op.name, sg, k)
              for k, (o, p) in enumerate(zip(outs, probes))]
    prog._record("op", op.name, op.name, inputs, dict(attrs), values)
    return tuple(values) if isinstance(out, tuple) else values[0]


# ---------------------------------------------------------------------------- creation calls
#: paddle functions that make a tensor from nothing: name -> Paddle's op name
CREATION = {"ones": "full", "zeros": "full", "full": "full", "empty": "empty",
            "rand": "uniform", "uniform": "uniform", "randn": "gaussian",
            "standard_normal": "gaussian", "normal": "gaussian", "randint": "randint",
            "randperm": "randperm", "to_tensor": "assign_value_", "arange": "arange",
            "linspace": "linspace", "eye": "eye"}


def creation_function(name):
    """The dynamic-mode function behind ``paddle.<name>``."""
    from ..tensor import creation

    return getattr(creation, name)


def record_creation(name, args, kwargs):
    """A creation call in static mode: run once (the generator's state put back after) to learn
    the shape and dtype, recorded to be run again by the Executor."""
    from ..tensor.creation import rng

    gen = rng()
    state = gen.get_state()
    try:
        t = creation_function(name)(*args, **kwargs)
    finally:
        gen.set_state(state)
    op_name = CREATION[name]
    if op_name == "full" and t.data.dtype.kind == "c":
        op_name = "complex"
    prog = default_main_program()
    v = Value._make(prog, t.data, t.data.shape, op_name, True)
    prog._record("call", op_name, name, (), {"args": args, "kwargs": kwargs}, [v])
    return v


def static_only(fn):
    """Paddle's AssertionError for a static-graph API called in dynamic mode."""
    import functools

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        if not MODE["static"]:
            raise AssertionError(
                "In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and "
                f"'{fn.__name__}()' is only supported in static graph mode. So if you want to "
                "use this api, please call 'paddle.enable_static()' before this api to enter "
                "static graph mode.")
        return fn(*args, **kwargs)

    return checked


@static_only
def data(name, shape, dtype=None, lod_level=0):
    """A feed: ``exe.run(feed={name: array})`` gives its value (None or -1 dims are open)."""
    from ..tensor.creation import get_default_dtype

    dims = tuple(-1 if d is None else int(d) for d in shape)
    npdt = dtypes.to_np(dtype if dtype is not None else get_default_dtype())
    prog = default_main_program()
    v = Value._make(prog, np.ones([1 if d < 0 else d for d in dims], npdt), dims, "data", True,
                    name=name, kind="data")
    prog._feeds[name] = v
    prog._record("data", "pd_op.data", name, (), {}, [v])
    return v


def create_parameter(shape, dtype=None, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """``paddle.create_parameter`` in static mode: a parameter Value of the main program, whose
    initialiser runs with the startup program."""
    from .. import ParamAttr

    if name is not None:
        attr = ParamAttr(name=name)
    return make_static_parameter(shape, dtype, attr, is_bias, default_initializer)


def make_static_parameter(shape, dtype=None, attr=None, is_bias=False, default_initializer=None,
                          owner_name=None):
    from ..nn.layer.layers import make_parameter
    from ..tensor.creation import rng

    gen = rng()
    state = gen.get_state()
    try:
        p = make_parameter(shape, dtype, attr, is_bias, default_initializer, owner_name)
    finally:
        gen.set_state(state)
    main, startup = default_main_program(), default_startup_program()
    v = Value._make(main, np.zeros_like(p.data), p.data.shape, "parameter", False,
                    name=p.name, kind="param")
    main._params[p.name] = v
    main._record("param", "builtin.parameter", p.name, (), {}, [v])
    init = {"shape": list(p.data.shape), "dtype": p.data.dtype.str, "attr": attr,
            "is_bias": is_bias, "default_initializer": default_initializer}
    startup.ops.append(OpRec("init", "builtin.set_parameter", p.name, (), init, ()))
    startup._params[p.name] = None
    return v


def setitem(x, index, value):
    """``paddle.static.setitem(x, index, value)``: a new Value, ``x`` with ``x[index] = value``
    (Paddle's ``set_value_``: when the program runs, ``x`` itself is written too)."""
    if not isinstance(x, Value):
        x[index] = value
        return x
    prog = default_main_program()
    out = Tensor(np.array(x.data))
    val = value.data if isinstance(value, Tensor) else value
    _set(out, index, val)
    v = Value._make(prog, out.data, x._dims, "set_value_",
                    x.stop_gradient and getattr(value, "stop_gradient", True))
    ins = (x, value) if isinstance(value, Value) else (x,)
    attrs = {"index": index, "value": None if isinstance(value, Value) else val}
    prog._record("setitem", "set_value_", "setitem", ins, attrs, [v])
    return v


def _set(t, index, value):
    from ..tensor.indexing import __setitem__ as dyn_setitem

    dyn_setitem(t, index, value)
