"""Which public names of real torch the torch dialect lacks (issue 28's coverage list).

Runs itself twice: under a Python with real torch (the oracle, default ``/work/vtorch/bin/python``)
and under this Python with ``gradrepl.torch``; each run dumps ``dir()`` of the modules and classes
below as JSON, then this prints, per module, the names torch has and gradrepl lacks (grouped by
kind: function, class, module, other), skipping private names and the families gradrepl does not
emulate (CUDA, sparse, quantized, distributed, jit, fx, compile, export, ...).

    python tools/torch_api_gaps.py                 # the full list
    python tools/torch_api_gaps.py --counts        # one line a module
    python tools/torch_api_gaps.py --only torch.Tensor
    python tools/torch_api_gaps.py --torch-python /path/to/python --json out.json
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

TARGETS = ["torch", "torch.Tensor", "torch.nn", "torch.nn.Module", "torch.nn.functional",
           "torch.nn.init", "torch.linalg", "torch.special", "torch.fft", "torch.distributions",
           "torch.optim", "torch.optim.lr_scheduler", "torch.utils.data", "torch.autograd",
           "torch.func",
           # the second pass (issue 28): what lectures import beside the namespaces above
           "torch.nn.utils", "torch.nn.utils.rnn", "torch.nn.utils.parametrize",
           "torch.nn.utils.parametrizations", "torch.autograd.functional",
           "torch.autograd.forward_ad", "torch.autograd.graph", "torch.distributions.constraints",
           "torch.distributions.transforms", "torch.testing", "torch.signal.windows",
           "torch.random", "torch.amp", "torch.cuda", "torch.backends", "torch.optim.swa_utils",
           "torch.utils.checkpoint", "torch.Generator", "torch.Size", "torch.nn.Parameter"]

# names of families gradrepl does not emulate (the CPU dense float/int/bool/complex tensors only)
SKIP = re.compile(
    r"cuda|cudnn|sparse|quantiz|quant_|_quant|^q_|^qint|^quint|qscheme|per_channel|per_tensor|"
    r"distributed|^jit$|^fx$|compile|^export|onnx|(^|_)mps($|_)|xpu|mtia|(^|_)hpu($|_)|"
    r"(^|_)ipu($|_)|mkldnn|miopen|vulkan|"
    r"^hip|fbgemm|^nested|^is_nested|_nested|mkl|xnnpack|^ao$|^backends$|^lazy$|^package$|"
    r"^_|^fake_|^is_vulkan|^is_meta$|^meta$|^is_ort$|^ort$|metal|^privateuse|^maia|fpga|^is_ve$|"
    r"^sym_|^Sym|^sym$|^library$|^utils$|^overrides$|^hub$|^storage$|^Storage|TypedStorage|"
    r"UntypedStorage|_storage|storage_|^pin_memory|^is_pinned|^share_memory|^is_shared|"
    r"^record_stream|^dlpack|^from_dlpack|__dlpack|^to_padded_tensor|^mkldnn|^to_mkldnn|"
    r"^conj_physical_$|^resize_as_sparse|^indices$|^values$|^crow_|^col_|^ccol_|^row_indices|"
    r"^coalesce|^is_coalesced|^dense_dim|^sparse_dim|^to_dense|^smm|^sspaddmm|^hsmm|^hspmm|"
    r"^int_repr|^dequantize|^fake_quant|^fbgemm|^module_load|^new_tensor_from|^ipc_|"
    r"^cpu$|^is_cpu$|^device_of|^get_device_module|^Stream|^Event|^stream$|^DeviceObjType|"
    r"Graph$|^graph|^inductor|^dynamo|^_dynamo|^masked$|^nn$|^fft$|^linalg$|^special$|"
    r"^testing$|^optim$|^autograd$|^func$|^distributions$|^profiler$|^serialization$|"
    r"^return_types$|^random$|^types$|^version$|^functional$|^torch_version$|^multiprocessing$|"
    r"^hub$|^signal$|^monitor$|^mps$|^accelerator$|^amp$|^cpu$|^futures$|^contrib$|^nn$|"
    r"^init$|^parameter$|^modules$|^common_types$|^grad_mode$|^anomaly_mode$|^forward_ad$|"
    r"^function$|^gradcheck$|^variable$|^functional$|^graph$|^profiler_util$|^profiler_legacy$|"
    r"^dataloader$|^datapipes$|^dataset$|^distributed$|^sampler$|^swa_utils$|^optimizer$|"
    r"^lr_scheduler$|^adam$|^adamw$|^sgd$|^rmsprop$|^adagrad$|^adadelta$|^adamax$|^nadam$|"
    r"^radam$|^asgd$|^rprop$|^lbfgs$|^sparse_adam$|^constraints$|^constraint_registry$|"
    r"^kl$|^transforms$|^transformed_distribution$|^exp_family$|^distribution$|^utils$|"
    r"^intrinsic$|^qat$|^quantized$|^attention$|^backends$|^cpp$|^data_parallel$|"
    r"^parallel$|^DataParallel$|^parallel_apply|^replicate$|^scatter_gather$|^gather$|"
    r"^comm$|^BFloat16Storage|Storage$|^tensor_str$|^pytree$|^DisableTorchFunction|"
    r"^enable_torch_function|^disable_torch_function|^has_torch_function|^handle_torch_function|"
    r"^is_torch_function|^torch_function|^get_overridable|^TYPE_CHECKING$|^annotations$|"
    r"^builtins$|^math$|^os$|^sys$|^platform$|^textwrap$|^ctypes$|^inspect$|^importlib$|"
    r"^threading$|^typing|^warnings$|^functools$|^itertools$|^collections$|^abc$|^enum$|"
    r"^numbers$|^operator$|^weakref$|^contextlib$|^dataclasses$|^Any$|^Callable$|^Optional$|"
    r"^Union$|^Tuple$|^List$|^Dict$|^Iterable$|^Iterator$|^Sequence$|^TypeVar$|^cast$|"
    r"^overload$|^Generic$|^T$|^T_co$|^Self$|^ParamSpec$|^TypeAlias$|^Literal$|^Mapping$|"
    r"^deprecated$|^np$|^numpy$|^torch$|^grad$|^glob$|^classes$|^ops$|^wraps$|^override$|"
    r"^partial$|^ref$|^SupportsFloat$|^Tensor$|^Optimizer$|^common_args$|^factory_common_args$|"
    r"^multi_dim_common$|_notes$|^BroadcastingList|^boolean_dispatch$|^assert_int_or_pair$|"
    r"^factory_kwargs$|^autocast|_autocast|^import_ir|^parse_ir$|^parse_schema$|"
    r"^parse_type_comment$|^merge_type_from|^unify_type_list$|^fork$|^wait$|^PRIVATE_OPS$|"
    r"^USE_|^float8|^float4|^bits|^bit$|^int[1-7]$|^uint[1-7]$|^AVG$|^SUM$|^jagged$|"
    r"^get_file_path$|^prepare_multiprocessing|^thread_safe_generator$|^classproperty$|"
    r"^native_|^batch_norm_backward|^batch_norm_(stats|elemt|gather|update)|^choose_qparams|"
    r"^T_destination$|^dump_patches$|^call_super_init$|datapipe|DataPipe|^DataChunk$|"
    r"^non_deterministic$|_validation|^DistributedSampler$|^Profiler|^DeviceType$|"
    r"^kineto_available$|^is_maia$|^is_xla$|^DType$|^ScalingType$|^SwizzleType$|"
    r"^scaled_|^grouped_mm$|^LinearCrossEntropyOptions$|^linear_cross_entropy$")

# TorchScript's type system and IR, the C++ logging and executor classes (torch.X at the top)
JIT_CLASSES = set("""AcceleratorError AggregationType AliasDb AnyType Argument ArgumentSpec
AwaitType BenchmarkConfig BenchmarkExecutionStats Block BoolType BufferDict CallStack Capsule
ClassType Code CompilationUnit CompleteArgumentSpec ComplexType ConcreteModuleType
ConcreteModuleTypeBuilder DeepCopyMemoTable DeserializationStorageContext DictType DispatchKey
DispatchKeySet EnumType ErrorReport ExcludeDispatchKeyGuard ExecutionPlan FatalError FileCheck
FloatType FunctionSchema Future FutureType Gradient GraphExecutorState IODescriptor InferredType
IntType InterfaceType JITException ListType LiteScriptModule LockingLogger LoggerBase ModuleDict
Node NoneType NoopLogger NumberType OperatorInfo OptionalType OutOfMemoryError ParameterDict
PyObjectType PyTorchFileReader PyTorchFileWriter RRefType ScriptClass ScriptClassFunction
ScriptDict ScriptDictIterator ScriptDictKeyIterator ScriptFunction ScriptList ScriptListIterator
ScriptMethod ScriptModule ScriptModuleSerializer ScriptObject ScriptObjectProperty
SerializationStorageContext StaticModule StringType Tag TensorType TracingState TupleType Type
UnionType Use Value""".split())


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


def _foreign(obj, kind):
    """A name a torch module merely imports (``typing.Any``, ``copy.deepcopy``, ``logging``):
    a function, class or module defined outside torch is not torch's API."""
    if kind == "module":
        home = getattr(obj, "__name__", "") or ""
    elif kind in ("function", "class"):
        home = getattr(obj, "__module__", None)
        if home is None:  # a C builtin: torch's
            return False
    else:
        return False
    return not (home == "torch" or home.startswith(("torch.", "gradrepl")))


def dump(which, asked=None):
    """The public names of each target, as {target: {name: kind}}; for gradrepl also which of
    torch's names (``asked``) resolve by attribute access (a lazy ``__getattr__``)."""
    import importlib
    import warnings

    warnings.simplefilter("ignore")
    if which == "gradrepl":
        import gradrepl.torch as torch
        sys.modules.setdefault("torch", torch)
        prefix = "gradrepl.torch"
    else:
        import torch  # noqa: F401
        prefix = "torch"
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
                obj = getattr(obj, p, None)
            break
        if obj is None:
            out[target] = None
            continue
        names = {}
        for name in dir(obj):
            if name.startswith("_"):
                continue
            try:
                value = getattr(obj, name)
                kind = _kind(value)
            except Exception:  # noqa: BLE001 - a name that raises on access is not emulated
                continue
            if which == "torch" and _foreign(value, kind):
                continue
            names[name] = kind
        for name in (asked or {}).get(target) or ():
            if name not in names:
                try:
                    names[name] = _kind(getattr(obj, name))
                except Exception:  # noqa: BLE001 - not there
                    pass
        out[target] = names
    return out


def compute(torch_python):
    ref = json.loads(subprocess.run([torch_python, __file__, "--dump", "torch"], check=True,
                                    capture_output=True, text=True).stdout)
    asked = json.dumps({t: sorted(v or ()) for t, v in ref.items()})
    ours = json.loads(subprocess.run([sys.executable, __file__, "--dump", "gradrepl"],
                                     input=asked, check=True, capture_output=True,
                                     text=True).stdout)
    gaps = {}
    for target in TARGETS:
        theirs = ref.get(target) or {}
        have = ours.get(target) or {}
        missing = {n: k for n, k in theirs.items() if n not in have and not SKIP.search(n)
                   and not (target == "torch" and n in JIT_CLASSES)}
        gaps[target] = {"torch": len(theirs), "missing": missing}
    return gaps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", choices=["torch", "gradrepl"], help=argparse.SUPPRESS)
    ap.add_argument("--torch-python", default="/work/vtorch/bin/python")
    ap.add_argument("--counts", action="store_true", help="one line a module")
    ap.add_argument("--only", help="one target, e.g. torch.Tensor")
    ap.add_argument("--json", help="write the gaps as JSON to this file")
    ap.add_argument("--emit-names", metavar="PY",
                    help="write torch's public names per module as a Python module (the data "
                         "of gradrepl/torch/_torch_names.py: what the AttributeErrors say)")
    a = ap.parse_args(argv)
    if a.dump:
        asked = json.load(sys.stdin) if a.dump == "gradrepl" else None
        json.dump(dump(a.dump, asked), sys.stdout)
        return 0
    if a.emit_names:
        ref = json.loads(subprocess.run([a.torch_python, __file__, "--dump", "torch"],
                                        check=True, capture_output=True, text=True).stdout)
        with open(a.emit_names, "w") as f:
            f.write('"""The public names of real torch 2.13, per module (generated by '
                    '``tools/torch_api_gaps.py --emit-names``): an attribute gradrepl lacks '
                    'that torch has raises \'gradrepl\'s torch does not emulate ...\', '
                    'any other torch\'s own AttributeError (``_not_emulated``)."""\n\n'
                    "NAMES = {\n")
            for target in TARGETS:
                names = " ".join(sorted(ref.get(target) or ()))
                f.write(f"    {target!r}: frozenset(\"\"\"\n")
                import textwrap
                for line in textwrap.wrap(names, 92):
                    f.write(f"        {line}\n")
                f.write('    """.split()),\n')
            f.write("}\n")
        return 0
    gaps = compute(a.torch_python)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(gaps, f, indent=1, sort_keys=True)
    total = 0
    for target, g in gaps.items():
        if a.only and target != a.only:
            continue
        miss = g["missing"]
        total += len(miss)
        print(f"{target}: {len(miss)} missing (of {g['torch']} public names in torch)")
        if a.counts:
            continue
        for kind in ("function", "class", "module", "other"):
            names = sorted(n for n, k in miss.items() if k == kind)
            if names:
                print(f"  {kind} ({len(names)}): " + ", ".join(names))
    print(f"total: {total} missing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
