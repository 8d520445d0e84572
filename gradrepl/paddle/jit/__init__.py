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


def to_static(function=None, input_spec=None, build_strategy=None, backend=None,
              full_graph=False, **kwargs):
    """The function or Layer itself (run eagerly), with its ``input_spec`` kept for ``save``; a
    decorated method notes on its Layer that it ran (Paddle has then traced a program, and
    ``save`` checks the InputSpecs' names against it)."""
    def mark(fn):
        if callable(fn) and not isinstance(fn, Layer) and hasattr(fn, "__code__"):
            inner = fn

            @functools.wraps(inner)
            def fn(*args, **kwargs):
                if args and isinstance(args[0], Layer):
                    object.__setattr__(args[0], "_jit_traced", True)
                return inner(*args, **kwargs)
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


def save(layer, path, input_spec=None, **configs):
    """Traces ``layer``'s forward on ``input_spec`` (InputSpecs or Tensors) in static mode and
    writes ``path`` + ``.json`` (``.pdmodel`` under 2.x) and ``.pdiparams``."""
    if os.path.basename(path) == "":
        raise ValueError("The input path MUST be format of dirname/file_prefix [dirname\\"
                         "file_prefix in Windows system], but received file_prefix is empty "
                         "string.")
    specs = input_spec if input_spec is not None else getattr(layer, "_input_spec", None)
    if getattr(layer, "_jit_traced", False) and input_spec is not None:
        # Paddle matches the specs against the traced program's inputs: a nameless one warns
        text = _NAME_NONE[profiles.current().key if profiles.current().key == "2.6" else "3"]
        for spec in input_spec:
            if hasattr(spec, "shape") and not isinstance(spec, P.Tensor) and spec.name is None:
                libwarn.warn("jit_name_none", text % (spec,))
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
        return outs[0] if len(outs) == 1 else outs

    def program(self, method_name="forward"):
        return self._program

    def __repr__(self):
        return f"{type(self).__name__}()"


class PirTranslatedLayer(TranslatedLayer):
    _paddle_path = "paddle.jit.pir_translated_layer.PirTranslatedLayer"


def load(path, **configs):
    """The model ``save`` wrote, as a ``TranslatedLayer`` (``PirTranslatedLayer`` in 3.x)."""
    program, feeds, fetches, params = _io.read_model(path)
    cls = PirTranslatedLayer if profiles.current().api3 else TranslatedLayer
    return cls(program, feeds, fetches, params)
