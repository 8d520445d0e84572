"""Which public names of real Paddle the Paddle dialect lacks (issue 28's coverage list).

Runs itself as a subprocess under a Python with real Paddle (the oracle: 3.3.1 at
``/work/vpaddle/bin/python``, 2.6.2 at ``/work/vpaddle26/bin/python``) and under this Python with
``gradrepl.paddle`` in the matching profile (``GRADREPL_PADDLE=3`` / ``2.6``); each run dumps
``dir()`` of the modules and classes below as JSON, then this prints, per module, the names Paddle
has and gradrepl lacks (grouped by kind: function, class, module, other), and the names gradrepl
exposes that this version of Paddle lacks ("extra": dir() or attribute access), skipping private names,
submodule names and the families gradrepl does not emulate (CUDA/XPU/IPU devices, sparse,
quantization, distributed, static-graph internals, inference, incubate, jit, auto-parallel, ...).

    (run with the Python that has gradrepl installed, e.g. /work/vdev/bin/python)
    python tools/paddle_api_gaps.py                       # both versions, the full list
    python tools/paddle_api_gaps.py --counts              # one line a module and version
    python tools/paddle_api_gaps.py --version 3 --only paddle.Tensor
    python tools/paddle_api_gaps.py --json out.json
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

TARGETS = ["paddle", "paddle.Tensor", "paddle.nn", "paddle.nn.functional", "paddle.nn.initializer",
           "paddle.linalg", "paddle.fft", "paddle.optimizer", "paddle.optimizer.lr", "paddle.io",
           "paddle.vision.transforms", "paddle.vision.models", "paddle.metric", "paddle.static",
           "paddle.autograd", "paddle.distribution", "paddle.vision", "paddle.vision.ops",
           "paddle.vision.datasets", "paddle.text", "paddle.signal", "paddle.audio",
           "paddle.audio.functional", "paddle.audio.features", "paddle.nn.utils",
           "paddle.geometric", "paddle.utils", "paddle.regularizer", "paddle.callbacks"]

# (profile, oracle python) per emulated version
VERSIONS = {"3": ("3", "/work/vpaddle/bin/python"), "2.6": ("2.6", "/work/vpaddle26/bin/python")}

# names of families gradrepl does not emulate (dense CPU tensors, dynamic graph; static Programs
# only as far as the tutorials use them)
SKIP = re.compile(
    r"cuda|cudnn|CUDA|xpu|XPU|ipu|IPU|npu|NPU|mlu|MLU|custom_device|CustomPlace|CustomDevice|"
    r"rocm|cinn|tensorrt|sparse|quant|Quant|distributed|^dist$|auto_parallel|shard|Shard|"
    r"^pir|Pir|^_C_ops$|^annotations$|^TYPE_CHECKING$|^typing$|^np$|^numpy$|^math$|^os$|"
    r"^sys$|^warnings$|^inspect$|^functools$|^collections$|^abc$|^Any$|^Callable$|"
    r"^Sequence$|^Literal$|^TypeVar$|^overload$|^deprecated$|^signature_safe_contextmanager$|"
    r"^dygraph_only$|^in_dynamic_or_pir_mode$|^in_pir_mode$|^core_avx$|^LayerHelper$|"
    r"^Block$|^check_dtype$|^check_type$|^check_variable_and_dtype$|^convert_dtype$|"
    r"^TensorLike$|^ShapeLike$|^DTypeLike$|^PlaceLike$|^NestedSequence$|^ParamAttrLike$|"
    r"^Size[123]$|^DataLayout|^PaddingMode$|^fp8|^float8|"
    r"^nccl|^bkcl|^gloo|^heter|^fleet|^ps_|^DataParallel$|^ParallelEnv$|"
    r"^stream|^Stream|^Event$|^LazyGuard$|^cpp_extension$|^custom_op|^load_op_library$|"
    r"^IpuCompiledProgram$|^IpuStrategy$|^ipu_shard_guard$|^set_ipu_shard$|"
    r"^ctr_metric_bundle$|^mlu_places$|^npu_places$|^xpu_places$|^cuda_places$|"
    r"^BuildStrategy$|^CompiledProgram$|^ExecutionStrategy$|^ParallelExecutor$|"
    r"^deserialize_|^serialize_|^load_from_file$|^save_to_file$|^normalize_program$|"
    r"^ListenAndServ|^monkey_patch|^IrGuard$|^ir_guard$|^async_save$|"
    r"^clear_async_save_task_queue$|^new_init$|^original_init$|^FLAGS_|^MetaTensor$|"
    r"^register_op$|^Operator$|compat|^pstring$|^MmapStorage$|^get_device_module$|"
    r"^top_p_sampling$|^moe_|^flash|^sdp_kernel$|^check_shape$|"
    # the internals of Paddle's C++ tensor (selected rows, vocab/string tensors, dist attrs)
    r"^block$|^cols$|^crows$|^rows$|^nnz$|^get_map_tensor$|^get_selected_rows$|^get_tensor$|"
    r"^set_tensor$|^is_selected_rows$|^is_dist$|^placements$|^process_mesh$|^dist_attr$|"
    r"^set_string_list$|^set_vocab$|^layout$|^is_dense$|^is_coalesced$|^dense_dim$|"
    r"^reconstruct_from_$|^create_tensor$|^create_parameter$|^get_strides$")

# names a module only imports from elsewhere (typing helpers, the mode checks)
IMPORTED = {
    "paddle.fft": {"in_dynamic_mode", "is_floating_point", "is_integer", "param_two_alias"},
    "paddle.optimizer.lr": {"NotRequired", "Tensor", "TypedDict", "Variable",
                            "autoincreased_step_counter", "default_main_program",
                            "in_dygraph_mode"},
}

# a submodule name (paddle.nn in dir(paddle)) is not a gap of its parent: the submodule is a target
MODULE_NAMES_ARE_GAPS = False


def _kind(obj):
    import inspect
    import types

    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "other"


def dump(which, asked=None):
    """The public names of each target, as {target: {name: kind}}; for gradrepl also which of
    Paddle's names (``asked``) resolve by attribute access (a lazy ``__getattr__``)."""
    import importlib
    import io
    import warnings

    warnings.simplefilter("ignore")
    real_stdout = sys.stdout
    sys.stdout = io.StringIO()  # Paddle's import chatter must not spoil the JSON
    try:
        if which == "gradrepl":
            import gradrepl.paddle as paddle
            sys.modules.setdefault("paddle", paddle)
            prefix = "gradrepl.paddle"
        else:
            import paddle  # noqa: F401
            prefix = "paddle"
        out = {}
        for target in TARGETS:
            parts = target.split(".")
            obj = None
            for i in range(len(parts), 0, -1):  # the longest importable module, then attributes
                mod = ".".join([prefix] + parts[1:i])
                try:
                    obj = importlib.import_module(mod)
                except Exception:  # noqa: BLE001 - then the attribute route
                    continue
                for p in parts[i:]:
                    try:
                        obj = getattr(obj, p)
                    except Exception:  # noqa: BLE001 - not there
                        obj = None
                        break
                break
            if obj is None:
                out[target] = None
                continue
            names = {}
            try:
                listed = dir(obj)
            except Exception:  # noqa: BLE001
                listed = []
            for name in listed:
                if name.startswith("_"):
                    continue
                try:
                    names[name] = _kind(getattr(obj, name))
                except Exception:  # noqa: BLE001 - a name that raises on access is not emulated
                    continue
            for name in (asked or {}).get(target) or ():
                if name not in names:
                    try:
                        names[name] = _kind(getattr(obj, name))
                    except Exception:  # noqa: BLE001 - not there
                        pass
            out[target] = names
    finally:
        sys.stdout = real_stdout
    return out


def _run(python, which, profile, stdin=None):
    env = dict(os.environ, GRADREPL_PADDLE=profile)
    res = subprocess.run([python, __file__, "--dump", which], input=stdin, env=env,
                         capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"{python} --dump {which} failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout)


def compute(version, paddle_python=None):
    profile, default_python = VERSIONS[version]
    ref = _run(paddle_python or default_python, "paddle", profile)
    # gradrepl is also asked for every name of the other version: one it answers is an extra
    both = {t: set(v or ()) for t, v in ref.items()}
    from gradrepl.paddle._paddle_names import NAMES

    for names in NAMES.values():
        for t, v in names.items():
            both.setdefault(t, set()).update(v)
    asked = json.dumps({t: sorted(v) for t, v in both.items()})
    ours = _run(sys.executable, "gradrepl", profile, asked)
    gaps = {}
    for target in TARGETS:
        theirs = ref.get(target) or {}
        have = ours.get(target) or {}
        missing = {n: k for n, k in theirs.items() if n not in have and not SKIP.search(n)
                   and n not in IMPORTED.get(target, ())
                   and (MODULE_NAMES_ARE_GAPS or k != "module")}
        # names gradrepl exposes (dir() or attribute access) that this version of Paddle lacks
        extra = {n: k for n, k in have.items() if n not in theirs and k != "module"}
        gaps[target] = {"paddle": len(theirs), "missing": missing, "extra": extra,
                        "module_missing": ours.get(target) is None and ref.get(target) is not None}
    return gaps


def emit_names(path, versions):
    import textwrap

    with open(path, "w") as f:
        f.write('"""The public names of real Paddle 3.3.1 and 2.6.2, per module (generated by '
                '``tools/paddle_api_gaps.py\n--emit-names``): an attribute gradrepl lacks '
                'that the emulated Paddle has raises an AttributeError\nsaying gradrepl does '
                'not emulate it (``not_emulated.py``)."""\n\nNAMES = {\n')
        for version in versions:
            profile, python = VERSIONS[version]
            ref = _run(python, "paddle", profile)
            f.write(f"    {profile!r}: {{\n")
            for target in TARGETS:
                names = " ".join(sorted(ref.get(target) or ()))
                f.write(f"        {target!r}: frozenset(\"\"\"\n")
                for line in textwrap.wrap(names, 88):
                    f.write(f"            {line}\n")
                f.write('        """.split()),\n')
            f.write("    },\n")
        f.write("}\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", choices=["paddle", "gradrepl"], help=argparse.SUPPRESS)
    ap.add_argument("--version", choices=sorted(VERSIONS), action="append",
                    help="which Paddle: 3 (3.3.1) and/or 2.6 (2.6.2); both by default")
    ap.add_argument("--paddle-python", help="the oracle's python (with one --version)")
    ap.add_argument("--counts", action="store_true", help="one line a module")
    ap.add_argument("--only", help="one target, e.g. paddle.Tensor")
    ap.add_argument("--json", help="write the gaps as JSON to this file")
    ap.add_argument("--emit-names", metavar="PY",
                    help="write real Paddle's public names per version and module as a Python "
                         "module (the data of gradrepl/paddle/_paddle_names.py: what the "
                         "not-emulated AttributeErrors say)")
    a = ap.parse_args(argv)
    if a.dump:
        asked = json.load(sys.stdin) if a.dump == "gradrepl" else None
        json.dump(dump(a.dump, asked), sys.stdout)
        return 0
    versions = a.version or ["3", "2.6"]
    if a.emit_names:
        emit_names(a.emit_names, versions)
        return 0
    every = {}
    for version in versions:
        gaps = every[version] = compute(version, a.paddle_python)
        total = extras = 0
        print(f"== Paddle {version} (profile {VERSIONS[version][0]})")
        for target, g in gaps.items():
            if a.only and target != a.only:
                continue
            miss = g["missing"]
            total += len(miss)
            extras += len(g["extra"])
            note = " (module missing in gradrepl)" if g["module_missing"] else ""
            print(f"{target}: {len(miss)} missing (of {g['paddle']} public names in Paddle), "
                  f"{len(g['extra'])} extra{note}")
            if a.counts:
                continue
            for kind in ("function", "class", "module", "other"):
                names = sorted(n for n, k in miss.items() if k == kind)
                if names:
                    print(f"  {kind} ({len(names)}): " + ", ".join(names))
            if g["extra"]:
                print(f"  extra, not in Paddle {version} ({len(g['extra'])}): "
                      + ", ".join(sorted(g["extra"])))
        print(f"total: {total} missing, {extras} extra (exposed by gradrepl, not in Paddle "
              f"{version})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(every, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
