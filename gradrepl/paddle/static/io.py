"""Saving and loading inference models (``paddle.static.save_inference_model`` and
``load_inference_model``).

The files have Paddle's names (``prefix.json`` under Paddle 3, ``prefix.pdmodel`` under 2.x, and
``prefix.pdiparams``) but gradrepl's own contents: a pickle of the pruned Program (its ops by
name, no code) and one of the parameter arrays. They round-trip within gradrepl only; real
Paddle cannot read them, nor gradrepl Paddle's.
"""
from __future__ import annotations

import os
import pickle

from .. import profiles
from . import program as P

MAGIC = "gradrepl-static-1"


def model_suffix():
    return ".json" if profiles.current().api3 else ".pdmodel"


def prune(program, feed_vars, fetch_vars):
    """A copy of ``program`` with only the ops that the fetched values need."""
    need = {v._vid for v in fetch_vars}
    kept = []
    for op in reversed(program.ops):
        if op.kind == "init" or not need.intersection(op.outs):
            continue
        kept.append(op)
        need.update(ref for kind, ref in op.ins if kind == "v")
    new = program.clone()
    new.ops = kept[::-1]
    return new


def _check_vars(vars_, what):
    vars_ = list(vars_) if isinstance(vars_, (list, tuple)) else [vars_]
    for v in vars_:
        if not isinstance(v, P.Value):
            raise ValueError(f"'{what}' should be a Value or list of Value.")
    return vars_


@P.static_only
def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    """Writes the program that computes ``fetch_vars`` from ``feed_vars`` and the parameters it
    reads (from the executor's scope) under ``path_prefix`` (see the module docstring)."""
    from .executor import global_scope

    feed_vars = _check_vars(feed_vars, "feed_vars")
    fetch_vars = _check_vars(fetch_vars, "fetch_vars")
    if os.path.basename(path_prefix) == "":
        raise ValueError("The input path MUST be format of dirname/file_prefix [dirname\\"
                         "file_prefix in Windows system], but received file_prefix is empty "
                         "string.")
    program = kwargs.get("program") or P.default_main_program()
    if not program.ops:
        raise ValueError("program must not be empty. at least one operator is required!")
    pruned = prune(program, feed_vars, fetch_vars)
    params = {op.target for op in pruned.ops if op.kind == "param"}
    scope = global_scope()
    model = {"magic": MAGIC, "program": pruned, "feeds": [v.name for v in feed_vars],
             "fetches": [v._vid for v in fetch_vars]}
    dirname = os.path.dirname(path_prefix)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    with open(path_prefix + model_suffix(), "wb") as f:
        pickle.dump(model, f, protocol=4)
    with open(path_prefix + ".pdiparams", "wb") as f:
        pickle.dump({"magic": MAGIC, "params": {n: scope.vars[n] for n in sorted(params)}}, f,
                    protocol=4)


def read_model(path_prefix):
    """(program, feed names, fetch Values, params) from files ``save_inference_model`` or
    ``paddle.jit.save`` wrote."""
    for suffix in (model_suffix(), ".json", ".pdmodel"):
        if os.path.exists(path_prefix + suffix):
            break
    else:
        raise ValueError(f"There is no directory named {path_prefix}")
    with open(path_prefix + suffix, "rb") as f:
        try:
            model = pickle.load(f)
        except Exception:  # noqa: BLE001 - Paddle's own protobuf/json files among them
            model = None
    if not isinstance(model, dict) or model.get("magic") != MAGIC:
        raise ValueError(f"{path_prefix + suffix} was not written by gradrepl (gradrepl reads "
                         "only its own inference model files)")
    with open(path_prefix + ".pdiparams", "rb") as f:
        params = pickle.load(f)["params"]
    program = model["program"]
    fetches = [program._values[vid] for vid in model["fetches"]]
    return program, list(model["feeds"]), fetches, params


@P.static_only
def load_inference_model(path_prefix, executor, **kwargs):
    """``[program, feed_target_names, fetch_targets]``; the parameters go into the scope."""
    from .executor import global_scope

    program, feeds, fetches, params = read_model(path_prefix)
    global_scope().vars.update(params)
    return [program, feeds, fetches]
