"""``paddle.jit``: ``save`` records a Layer's forward as a static Program (see
``paddle/static``) and writes it as an inference model; ``load`` gives it back as a
``TranslatedLayer`` that runs it. The files have Paddle's names but gradrepl's own format
(``paddle/static/io.py``): they round-trip within gradrepl only.

``to_static`` leaves the function or Layer as it is (gradrepl runs it eagerly, with the same
results) and remembers its ``input_spec`` for ``save``.
"""
from __future__ import annotations

import functools
import os
import pickle

import numpy as np

from .. import glog, libwarn, profiles
from ..nn.layer.layers import Layer
from ..static import io as _io
from ..static import program as P
from ..static.executor import Scope, run_program
from ..static.mode import static_guard

__all__ = ["save", "load", "to_static", "not_to_static", "enable_to_static", "TranslatedLayer"]


class StaticFunction:
    """What ``to_static`` makes of a function: it runs the function eagerly (the results are
    the same) and keeps its ``input_spec`` for ``save``. Read from a Layer it binds to it, and a
    call notes on the Layer that it ran (Paddle has then traced a program, and ``save`` checks
    the InputSpecs' names against it). ``SymbolicStaticFunction`` (SOT, ``full_graph=False``,
    the default) and ``ASTStaticFunction`` (``full_graph=True``) carry Paddle's class names."""

    def __init__(self, function, input_spec=None, instance=None):
        self._dygraph_function = function
        self._input_spec = None if input_spec is None else list(input_spec)
        self._instance = instance
        functools.update_wrapper(self, function)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return type(self)(self._dygraph_function, self._input_spec, instance)

    def __call__(self, *args, **kwargs):
        if self._instance is not None:
            object.__setattr__(self._instance, "_jit_traced", True)
            args = (self._instance,) + args
        elif args and isinstance(args[0], Layer):
            object.__setattr__(args[0], "_jit_traced", True)
        return self._run(args, kwargs)

    def _run(self, args, kwargs):
        return self._dygraph_function(*args, **kwargs)

    @property
    def dygraph_function(self):
        return self._dygraph_function


class SymbolicStaticFunction(StaticFunction):
    def _run(self, args, kwargs):
        """A Tensor's truth value asked inside the function (``if paddle.mean(x) > 0:``) is a
        graph break of SOT: Paddle runs the part traced so far as a program then, which logs
        (``_sot_break``): once a process, and in 2.6.2 once more per new input signature."""
        from ..core import Tensor

        sig = (id(self._dygraph_function),) + tuple(
            (tuple(a.data.shape), a.data.dtype.str) for a in args if isinstance(a, Tensor))
        plain, plain_int = Tensor.__bool__, Tensor.__int__
        if plain is _breaking_bool or not _sot_pending(sig):
            return self._dygraph_function(*args, **kwargs)
        _plain["bool"], _plain["int"], _plain["sig"] = plain, plain_int, sig
        Tensor.__bool__ = _breaking_bool
        if profiles.current().key == "2.6":   # 2.6.2 breaks the graph at int() too
            Tensor.__int__ = _breaking_int
        try:
            return self._dygraph_function(*args, **kwargs)
        finally:
            Tensor.__bool__, Tensor.__int__ = plain, plain_int


class ASTStaticFunction(StaticFunction):
    def _run(self, args, kwargs):
        """``full_graph=True``: the function becomes one program, run by the executor, which
        logs its first run once a process (3.3.1: glog's "run" lines; 2.6.2: those and the
        program executor's line); a Tensor's truth value inside is a control-flow op
        (3.3.1: the graph-break line of SOT; 2.6.2: the conditional block's executor line)."""
        from ..core import Tensor

        key = profiles.current().key
        layer = self._instance if self._instance is not None else (
            args[0] if args and isinstance(args[0], Layer) else None)
        if key in libwarn.SITES["pir_place"] and layer is not None and layer.parameters():
            # 3.x builds the program reading each parameter's place: a PIR value has none
            libwarn.warn("pir_place", "Tensor do not have 'place' interface for pir graph mode, "
                         "try not to use it. None will be returned.")
        if key in ("3", "2.6"):
            glog.executor("run")
            if key == "2.6":
                glog.executor("save")
        plain = Tensor.__bool__
        if plain is _breaking_bool or plain is _cond_bool or (key, "cond") in _sot_logged:
            return self._dygraph_function(*args, **kwargs)
        _plain["bool"] = plain
        Tensor.__bool__ = _cond_bool
        try:
            return self._dygraph_function(*args, **kwargs)
        finally:
            Tensor.__bool__ = plain


# what a graph break of SOT logs (measured: 3.3.1 and 2.6.2 running to_static functions with
# ``if`` on a Tensor): 3.3.1 one line a process; 2.6.2 the PIR pass lines for each new program
# (a new input signature) and, the first time, glog's "run" line and the executor's two lines
_PIR_PASS = "\x1b[1m\x1b[35m--- Running PIR pass [inplace_pass]\x1b[0m\n"
_SOT_ONCE = {"3": [("W", "eager_utils.cc:3584",
                    "Paddle static graph(PIR) not support input out tensor for now!!!!!")],
             "2.6": [("I", "pir_interpreter.cc:1281", "New Executor is Running ..."),
                     ("I", "pir_interpreter.cc:1308",
                      "pir interpreter is running by multi-thread mode ...")]}
_sot_logged = set()   # (profile key,) once a process; (profile key, signature) per program
_plain = {}           # Tensor's own __bool__ and the signature, while a SOT function runs


def _sot_pending(sig):
    key = profiles.current().key
    if key not in _SOT_ONCE:
        return False
    return (key,) not in _sot_logged or (key == "2.6" and (key, sig) not in _sot_logged)


def _sot_break(sig):
    import sys

    key = profiles.current().key
    if not _sot_pending(sig):
        return
    first = (key,) not in _sot_logged
    _sot_logged.update({(key,), (key, sig)})
    if key == "2.6":
        if first:
            glog.executor("run")
        sys.stderr.write(_PIR_PASS)
        sys.stderr.flush()
        glog.log("I", "pass.cc:38", "--- detected [0] subgraphs!")
    if first:
        for severity, where, text in _SOT_ONCE[key]:
            glog.log(severity, where, text)


_COND = {"3": ("W", "eager_utils.cc:3584",
                "Paddle static graph(PIR) not support input out tensor for now!!!!!"),
         "2.6": ("I", "conditional_block_op.cc:98",
                 "[ControlFlow][ConditionalBlock] New Executor is Running.")}


def _cond_bool(self):
    key = profiles.current().key
    if (key, "cond") not in _sot_logged and key in _COND:
        _sot_logged.add((key, "cond"))
        if key == "3":   # the same line as SOT's graph break: logged once for both
            if (key,) not in _sot_logged:
                _sot_logged.add((key,))
                glog.log(*_COND[key])
        else:
            glog.log(*_COND[key])
    return _plain["bool"](self)


def _breaking_int(self):
    _sot_break(_plain["sig"])
    return _plain["int"](self)


def _breaking_bool(self):
    _sot_break(_plain["sig"])
    return _plain["bool"](self)


for _cls in (StaticFunction, SymbolicStaticFunction, ASTStaticFunction):
    _cls.__module__ = "paddle.jit.dy2static.program_translator"
del _cls

# real Paddle's words (SymbolicStaticFunction.__init__, 3.3.1 and 2.6.2)
_SPEC_IGNORED = ("full_graph=False don't support input_spec arguments. It will not produce any "
                 "effect.\nYou can set full_graph=True, then you can assign input spec.\n")


def to_static(function=None, input_spec=None, build_strategy=None, backend=None,
              full_graph=False, **kwargs):
    """A function becomes a ``StaticFunction`` (run eagerly, ``input_spec`` kept for ``save``);
    a Layer stays itself with its ``forward`` made one. Under SOT (``full_graph=False``) an
    ``input_spec`` warns that it has no effect, as Paddle does, and is still used by ``save``."""
    cls = ASTStaticFunction if full_graph else SymbolicStaticFunction

    def mark(fn):
        if isinstance(fn, Layer):
            forward = type(fn).forward
            forward = getattr(forward, "_dygraph_function", forward)
            object.__setattr__(fn, "forward", cls(forward, input_spec, fn))
            if not full_graph and input_spec is not None:
                libwarn.warn("jit_spec_ignored", _SPEC_IGNORED)
            return fn
        if callable(fn) and hasattr(fn, "__code__"):
            if not full_graph and input_spec is not None:
                libwarn.warn("jit_spec_ignored", _SPEC_IGNORED)
            return cls(fn, input_spec)
        if input_spec is not None:
            try:
                fn._input_spec = list(input_spec)
            except AttributeError:
                pass
        return fn

    return mark if function is None else mark(function)


def not_to_static(function=None):
    return function


def enable_to_static(enable_to_static_bool):
    return None


def _feed_name(spec, k):
    return getattr(spec, "name", None) or f"x_{k}"


# real Paddle's text (3.3.1; 2.6.2 spells "InputSepc")
_NAME_NONE = {v: ("The %s's name is None. When using jit.save, please set " + w + "'s name in "
                  "to_static(input_spec=[]) and jit.save(input_spec=[]) and make sure they are "
                  "consistent.") for v, w in (("3", "InputSpec"), ("2.6", "InputSepc"))}


_NO_EXISTS = ("The tensor `%s` does not exists. Please make sure the name of InputSpec or example "
              "Tensor in input_spec is the same as the name of InputSpec in `to_static` decorated "
              "on the Layer.forward method.")


def save(layer, path, input_spec=None, **configs):
    """Traces ``layer``'s forward on ``input_spec`` (InputSpecs or Tensors) in static mode and
    writes ``path`` + ``.json`` (``.pdmodel`` under 2.x) and ``.pdiparams``."""
    if os.path.basename(path) == "":
        raise ValueError("The input path MUST be format of dirname/file_prefix [dirname\\"
                         "file_prefix in Windows system], but received file_prefix is empty "
                         "string.")
    specs = input_spec
    if specs is None:
        specs = getattr(layer, "_input_spec", None)
    if specs is None:   # to_static(input_spec=...) on the forward
        specs = getattr(getattr(layer, "forward", None), "_input_spec", None)
    if getattr(layer, "_jit_traced", False) and input_spec is not None:
        # Paddle matches the specs against the traced program's inputs (whose names are its
        # own): a nameless one warns, and so does a named one (3.3.1 and 2.6.2 measured)
        text = _NAME_NONE[profiles.current().key if profiles.current().key == "2.6" else "3"]
        for spec in input_spec:
            if hasattr(spec, "shape") and not isinstance(spec, P.Tensor):
                if spec.name is None:
                    libwarn.warn("jit_name_none", text % (spec,))
                else:
                    libwarn.warn("jit_name_no_exists", _NO_EXISTS % spec.name)
    if specs is None:
        raise ValueError("paddle.jit.save of a Layer needs input_spec (gradrepl traces the "
                         "forward on it)")
    main, startup = P.Program(), P.Program()
    with static_guard(), P.program_guard(main, startup):
        feeds = []
        for k, spec in enumerate(specs):
            if hasattr(spec, "shape") and not isinstance(spec, P.Tensor):
                feeds.append(P.data(_feed_name(spec, k), spec.shape, spec.dtype))
            else:  # an example tensor: its shape and dtype
                feeds.append(P.data(f"x_{k}", list(spec.data.shape), spec.data.dtype))
        outs = layer(*feeds)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    glog.executor("save")
    prog = _io.prune(main, feeds, outs)
    model = {"magic": _io.MAGIC, "program": prog, "feeds": [v.name for v in feeds],
             "fetches": [v._vid for v in outs]}
    dirname = os.path.dirname(path)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    with open(path + _io.model_suffix(), "wb") as f:
        pickle.dump(model, f, protocol=4)
    with open(path + ".pdiparams", "wb") as f:
        pickle.dump({"magic": _io.MAGIC, "params": {}}, f, protocol=4)
    if not profiles.current().api3:
        with open(path + ".pdiparams.info", "wb") as f:
            pickle.dump({"magic": _io.MAGIC}, f, protocol=4)


class TranslatedLayer(Layer):
    """A saved inference model as a Layer: calling it runs the program on its inputs (the
    results are Tensors that stop gradient: the program is not differentiated)."""

    _paddle_path = "paddle.jit.translated_layer.TranslatedLayer"
    _outputs_need_grad = False   # 2.x: its results stop gradient

    def __init__(self, program, feeds, fetches, params):
        super().__init__()
        self._program, self._feeds, self._fetches = program, feeds, fetches
        self._scope = Scope()
        self._scope.vars.update(params)

    def forward(self, *inputs):
        from ..core import Tensor

        if len(inputs) != len(self._feeds):
            raise ValueError(f"The number of inputs ({len(inputs)}) does not match the number "
                             f"of the model's inputs ({len(self._feeds)})")
        feed = {n: (t.data if isinstance(t, Tensor) else np.asarray(t))
                for n, t in zip(self._feeds, inputs)}
        glog.executor("run")
        env = run_program(self._program, feed, self._scope)
        outs = [Tensor(np.array(env[v._vid])) for v in self._fetches]
        if self._outputs_need_grad:   # 3.x: measured with and without parameters, in no_grad
            for t in outs:
                t.stop_gradient = False
        return outs[0] if len(outs) == 1 else outs

    def program(self, method_name="forward"):
        return self._program

    def __repr__(self):
        return f"{type(self).__name__}()"


class PirTranslatedLayer(TranslatedLayer):
    _paddle_path = "paddle.jit.pir_translated_layer.PirTranslatedLayer"
    _outputs_need_grad = True


def load(path, **configs):
    """The model ``save`` wrote, as a ``TranslatedLayer`` (``PirTranslatedLayer`` in 3.x)."""
    program, feeds, fetches, params = _io.read_model(path)
    cls = PirTranslatedLayer if profiles.current().api3 else TranslatedLayer
    return cls(program, feeds, fetches, params)
