"""``paddle.static.Executor``: runs a recorded Program on fed arrays.

Each op kind of ``program.OpRec`` has one runner in ``RUNNERS``; the values live in an
environment (value id -> numpy array) for one run, the parameters in a Scope that outlives it
(the startup program writes them, main programs read them).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, profiles
from ..core import Tensor
from . import program as P


class Scope:
    """Parameters by name (Paddle's ``global_scope()``)."""

    def __init__(self):
        self.vars: dict = {}

    def find_var(self, name):
        return _ScopeVar(self, name) if name in self.vars else None

    def var(self, name):
        self.vars.setdefault(name, None)
        return _ScopeVar(self, name)


class _ScopeVar:
    def __init__(self, scope, name):
        self.scope, self.name = scope, name

    def get_tensor(self):
        return _ScopeTensor(self.scope, self.name)


class _ScopeTensor:
    def __init__(self, scope, name):
        self.scope, self.name = scope, name

    def set(self, value, place=None):
        self.scope.vars[self.name] = np.array(value)

    def __array__(self, dtype=None, copy=None):
        arr = self.scope.vars[self.name]
        return arr if dtype is None else arr.astype(dtype)

    def shape(self):
        return list(self.scope.vars[self.name].shape)


_GLOBAL = Scope()


def global_scope():
    """The scope every Executor uses unless given another."""
    return _GLOBAL


# ---------------------------------------------------------------------------- the runners
from .. import glog  # noqa: E402
from .train import run_minimize  # noqa: E402 - optimizer.minimize's op


def _arrays(op, env, scope):
    out = []
    for kind, ref in op.ins:
        out.append(env[ref] if kind == "v" else ref)
    return out


def _run_op(op, env, scope, feed):
    from ...engine.registry import OPS

    res = OPS[op.target].forward(*_arrays(op, env, scope), **op.attrs)
    outs = res if isinstance(res, tuple) else (res,)
    for vid, arr in zip(op.outs, outs):
        env[vid] = np.asarray(arr)


def _run_call(op, env, scope, feed):
    t = P.creation_function(op.target)(*op.attrs["args"], **op.attrs["kwargs"])
    env[op.outs[0]] = t.data


def _run_data(op, env, scope, feed):
    if op.target in feed:
        env[op.outs[0]] = feed[op.target]
    elif profiles.current().api3:
        raise KeyError(op.target)
    # Paddle 2.x fails in the op that reads the missing feed (_missing_feed)


def _missing_feed(op, program):
    kind = P.LEGACY_NAMES.get(op.name, (op.name,))[0]
    return RuntimeError(
        "In user code:\n\n    PreconditionNotMetError: Tensor holds no memory. Call "
        "Tensor::mutable_data firstly.\n      [Hint: holder_ should not be null.] (at "
        f"/paddle/paddle/phi/core/dense_tensor_impl.cc:44)\n      [operator < {kind} > error]")


def _run_param(op, env, scope, feed):
    if scope.vars.get(op.target) is None:
        raise RuntimeError(
            f"(PreconditionNotMet) Parameter {op.target} is not initialized: run the startup "
            "program first (exe.run(paddle.static.default_startup_program())).")
    env[op.outs[0]] = scope.vars[op.target]


def _run_init(op, env, scope, feed):
    from ... import paddle
    from ..nn.layer.layers import make_parameter

    a = op.attrs
    attr = paddle.ParamAttr() if a["attr"] is None or a["attr"] is True else a["attr"]
    attr = _named(attr, op.target)
    p = make_parameter(a["shape"], np.dtype(a["dtype"]), attr, a["is_bias"],
                       a["default_initializer"])
    scope.vars[op.target] = p.data


def _named(attr, name):
    import copy

    from ..nn.layer.layers import to_param_attr

    attr = copy.copy(to_param_attr(attr))
    attr.name = name
    return attr


def _run_setitem(op, env, scope, feed):
    x = _arrays(op, env, scope)
    t = Tensor(np.array(x[0]))
    value = op.attrs["value"] if len(x) == 1 else Tensor(x[1])
    P._set(t, op.attrs["index"], value)
    env[op.outs[0]] = t.data
    if op.ins[0][0] == "v":  # set_value_ writes x in place
        env[op.ins[0][1]] = t.data


RUNNERS = {"op": _run_op, "call": _run_call, "data": _run_data, "param": _run_param,
           "init": _run_init, "setitem": _run_setitem, "minimize": run_minimize}


def run_program(program, feed, scope):
    """Every op of ``program`` in order: the environment of value id -> array."""
    from ...engine import registry

    env: dict = {}
    with registry.apply_hook(None):  # the ops run on arrays, not recorded
        for op in program.ops:
            try:
                RUNNERS[op.kind](op, env, scope, feed)
            except KeyError:
                if profiles.current().api3 or op.kind == "data":
                    raise
                raise _missing_feed(op, program) from None
    return env


# ---------------------------------------------------------------------------- Executor
class Executor:
    """Runs Programs: ``exe.run(program, feed={name: array}, fetch_list=[value])`` returns the
    fetched values as numpy arrays (``return_numpy=True``) or Tensors."""

    def __init__(self, place=None):
        self.place = place

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed",
            fetch_var_name="fetch", scope=None, return_numpy=True, use_program_cache=False,
            use_prune=False):
        program = program if program is not None else P.default_main_program()
        if not isinstance(program, P.Program):
            raise TypeError(f"Executor requires Program as its Parameter. But you passed in "
                            f"{type(program)}")
        scope = scope if scope is not None else global_scope()
        feed = {k: self._feed_array(program, k, v) for k, v in (feed or {}).items()}
        fetch_list = list(fetch_list or [])
        targets = [self._fetch_target(program, k, f) for k, f in enumerate(fetch_list)]
        glog.executor("save")  # (2.6.2: the program interpreter's line jit.save logs too)
        glog.executor("static_run")
        env = run_program(program, feed, scope)
        out = []
        for v in targets:
            arr = env[v._vid]
            out.append(np.array(arr) if return_numpy else Tensor(np.array(arr)))
        return out

    @staticmethod
    def _feed_array(program, name, value):
        import warnings

        if isinstance(value, P.Value):
            raise TypeError("Convert data of type <class 'paddle.base.libpaddle.pir.Value'> to "
                            "Tensor is not supported")
        v = program._feeds.get(name)
        want = v._ph.dtype if v is not None else None
        if isinstance(value, Tensor):
            arr = value.data
        elif isinstance(value, np.ndarray) or want is None:
            arr = np.asarray(value)
        else:  # lists and numbers take the feed's dtype
            arr = np.asarray(value, dtype=want)
        if v is None:
            return arr
        if len(arr.shape) != len(v._dims) or any(d >= 0 and d != s
                                                 for d, s in zip(v._dims, arr.shape)):
            warnings.warn(f"The fed Variable '{name}' should have dimensions = {len(v._dims)}, "
                          f"shape = {list(v._dims)}, but received fed shape {list(arr.shape)} "
                          "on each device")
        if arr.dtype != want:
            got, need = dtypes.from_np(arr.dtype).name, dtypes.from_np(want).name
            warnings.warn(f"The data type of fed Variable '{name}' must be '{need}', but "
                          f"received '{got}'")
            raise ValueError(f"(InvalidArgument) The type of data we are trying to retrieve "
                             f"({need}) does not match the type of data ({got}) currently "
                             f"contained in the container.")
        return arr

    @staticmethod
    def _fetch_target(program, k, f):
        if isinstance(f, str):
            if profiles.current().api3:
                raise Exception(f"Found fetch_target[{k}] is type(str) and doesn't have fetch "
                                "op.")
            for v in program._values.values():  # Paddle 2.x fetches variables by name
                if v._legacy == f:
                    return v
            raise RuntimeError(f"(NotFound) {f} not in VariableScope.")
        if not isinstance(f, P.Value) or program._values.get(f._vid) is not f:
            raise ValueError(f"fetch_list[{k}] ({f!r}) is not a value of the program being run")
        return f

    def close(self):
        return None
