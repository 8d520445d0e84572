"""How torch's functions, unbound Tensor methods and Tensor attributes print, as in torch 2.13:
``print(torch.relu)`` -> ``<built-in method relu of type object at 0x...>``, ``print(F.relu)`` ->
``<function relu at 0x...>``, ``print(F.gelu)`` -> ``<built-in function gelu>``,
``print(torch.Tensor.add)`` -> ``<method 'add' of 'torch._C.TensorBase' objects>``,
``print(torch.Tensor.shape)`` -> ``<attribute 'shape' of 'torch._C.TensorBase' objects>``.

In real torch most of the ``torch`` namespace are C methods of ``torch._C._VariableFunctionsClass``
and the Tensor's methods and attributes are C descriptors of ``torch._C.TensorBase``; gradrepl's
are Python functions and properties. As for bound methods (``_method_repr``), the repr slot of
the function and property types gets a hook (``gradrepl._slot_repr``) that prints the objects
marked here as torch prints them, everything else as Python does. Calls are not changed.

The tables are recorded from torch 2.13 (``repr`` of every public callable of ``torch`` and
``torch.nn.functional``, ``dir(torch.Tensor)``). Where one gradrepl function stands under two
names that print differently (``torch.abs`` / ``torch.absolute``, ``torch.relu`` / ``F.relu``),
the second name gets its own copy of the function.
"""
from __future__ import annotations

import types

from .. import _slot_repr
from ._method_repr import own_copy

# torch 2.13: public callables of ``torch`` that print as Python functions (the rest, functions
# here, print as built-in methods of _VariableFunctionsClass), with the qualnames that differ
_TORCH_PYTHON = frozenset(
    "are_deterministic_algorithms_enabled atleast_1d atleast_2d atleast_3d block_diag "
    "broadcast_shapes broadcast_tensors cartesian_prod cdist chain_matmul classproperty compile "
    "compiled_with_cxx11_abi cond eig einsum from_dlpack get_default_device "
    "get_deterministic_debug_mode get_device_module get_file_path get_float32_matmul_precision "
    "get_rng_state initial_seed is_deterministic_algorithms_warn_only_enabled is_storage "
    "is_tensor is_warn_always_enabled load lobpcg lstsq lu manual_seed matrix_rank meshgrid norm "
    "pca_lowrank prepare_multiprocessing_environment "
    "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12 quantized_gru quantized_lstm save seed "
    "set_default_device set_default_dtype set_default_tensor_type set_deterministic_debug_mode "
    "set_float32_matmul_precision set_printoptions set_rng_state set_warn_always solve split "
    "stft svd_lowrank sym_float sym_fresh_size sym_int sym_ite sym_max sym_min sym_not sym_sqrt "
    "sym_sum symeig tensordot thread_safe_generator typename unique unique_consecutive "
    "unravel_index use_deterministic_algorithms vmap while_loop".split())
_TORCH_QUALNAMES = {"lu": "boolean_dispatch.<locals>.fn", "sym_sqrt": "_sym_sqrt",
                    "symeig": "_symeig", "unique": "boolean_dispatch.<locals>.fn",
                    "unique_consecutive": "boolean_dispatch.<locals>.fn"}
# ``<built-in function name>`` (the printed name where it differs)
_TORCH_BUILTIN_FUNCTIONS = {n: n for n in (
    "autocast_decrement_nesting autocast_increment_nesting clear_autocast_cache "
    "get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype get_autocast_ipu_dtype "
    "get_autocast_xla_dtype get_default_dtype get_num_interop_threads get_num_threads "
    "is_anomaly_check_nan_enabled is_anomaly_enabled is_autocast_cache_enabled "
    "is_autocast_cpu_enabled is_autocast_enabled is_autocast_ipu_enabled "
    "is_autocast_xla_enabled is_grad_enabled is_inference_mode_enabled set_anomaly_enabled "
    "set_autocast_cache_enabled set_autocast_cpu_dtype set_autocast_cpu_enabled "
    "set_autocast_dtype set_autocast_enabled set_autocast_gpu_dtype set_autocast_ipu_dtype "
    "set_autocast_ipu_enabled set_autocast_xla_dtype set_autocast_xla_enabled "
    "set_flush_denormal set_num_interop_threads set_num_threads").split()}
_TORCH_BUILTIN_FUNCTIONS["to_dlpack"] = "_to_dlpack"

# torch.nn.functional: Python functions but for these
_F_BUILTIN_METHODS = frozenset(
    "adaptive_avg_pool1d avg_pool1d bilinear celu_ channel_shuffle conv1d conv2d conv3d "
    "conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d cosine_similarity "
    "hardshrink native_channel_shuffle pairwise_distance pdist pixel_shuffle pixel_unshuffle "
    "prelu relu_ rrelu_ selu_ threshold_".split())
_F_BUILTIN_FUNCTIONS = {
    "avg_pool2d": "avg_pool2d", "avg_pool3d": "avg_pool3d", "elu_": "elu_", "gelu": "gelu",
    "hardtanh_": "hardtanh_", "has_torch_function": "_has_torch_function",
    "has_torch_function_unary": "_has_torch_function_unary",
    "has_torch_function_variadic": "_has_torch_function_variadic",
    "leaky_relu_": "leaky_relu_", "linear": "linear", "logsigmoid": "log_sigmoid",
    "one_hot": "one_hot", "scaled_dot_product_attention": "scaled_dot_product_attention",
    "softplus": "softplus", "softshrink": "softshrink"}
_F_QUALNAMES = dict.fromkeys(
    "adaptive_max_pool1d adaptive_max_pool2d adaptive_max_pool3d fractional_max_pool2d "
    "fractional_max_pool3d max_pool1d max_pool2d max_pool3d".split(),
    "boolean_dispatch.<locals>.fn")
_F_QUALNAMES["threshold"] = "_threshold"

# torch 2.13: Tensor attributes that are C getsets of TensorBase
_ATTRIBUTES = frozenset(
    "H T data device dtype grad grad_dtype grad_fn imag is_cpu is_cuda is_ipu is_leaf is_maia "
    "is_meta is_mkldnn is_mps is_mtia is_nested is_quantized is_sparse is_sparse_csr is_vulkan "
    "is_xla is_xpu itemsize layout mH mT name nbytes ndim output_nr real requires_grad "
    "retains_grad shape volatile".split())

_MARK = "_torch_function_repr"   # in a function's __dict__: the text (``{at}``: its address)
_TENSOR_MARK = "_torch_repr"     # _method_repr's mark on Tensor methods: (kind, name)
_PROPERTIES: dict = {}           # id(property) -> text
_TENSOR_METHODS: set = set()     # ids of the Tensor's methods _method_repr marked


class _VariableFunctionsClass:
    """Stands for torch's C class whose methods the torch namespace's functions are (its
    address is the ``type object at 0x...`` they print)."""


def _function_repr(f):
    text = f.__dict__.get(_MARK)
    if text is not None:
        return text.replace("{at}", f"{id(f):#x}")
    if id(f) not in _TENSOR_METHODS:
        return None
    kind, name = f.__dict__[_TENSOR_MARK]
    what = "slot wrapper" if kind == "wrapper" else "method"
    return f"<{what} '{name}' of 'torch._C.TensorBase' objects>"


def _property_repr(p):
    return _PROPERTIES.get(id(p))


def _text(name, kind, qualname=None):
    if kind == "method":
        return f"<built-in method {name} of type object at {id(_VariableFunctionsClass):#x}>"
    if kind == "builtin":
        return f"<built-in function {name}>"
    return f"<function {qualname or name} at {{at}}>"


def _mark_namespace(module, wanted):
    """``wanted(name, f)`` -> the text for each public function of ``module`` (None: as Python
    prints it), now and for the names its ``__getattr__`` finds later."""
    for name, f in list(vars(module).items()):
        _mark_one(module, name, f, wanted)
    lazy = vars(module).get("__getattr__")
    if lazy is not None:
        def __getattr__(name):
            f = lazy(name)
            return _mark_one(module, name, f, wanted)
        module.__getattr__ = __getattr__


def _mark_one(module, name, f, wanted):
    """Mark ``f`` (``module.name``) with its text; a function already marked otherwise (an
    alias, one shared with another namespace) is copied first. Returns what ``module.name`` is
    then."""
    if name.startswith("_") or type(f) is not types.FunctionType:
        return f
    text = wanted(name, f)
    have = f.__dict__.get(_MARK, _UNSET)
    if have is _UNSET:
        f.__dict__[_MARK] = text      # (None: claimed, printed as Python prints it)
    elif have != text:
        f = own_copy(f)
        f.__dict__[_MARK] = text
        setattr(module, name, f)
    if text is not None and text.startswith("<built-in"):
        f.__name__ = text.split()[2].rstrip(">")   # (torch.log2.__name__ was 'Log2Backward0')
    return f


_UNSET = object()


def _torch_text(name, f):
    if name in _TORCH_BUILTIN_FUNCTIONS:
        return _text(_TORCH_BUILTIN_FUNCTIONS[name], "builtin")
    if name in _TORCH_PYTHON:
        q = _TORCH_QUALNAMES.get(name, name)
        return None if f.__qualname__ == q else _text(name, "function", q)
    return _text(name, "method")


def _f_text(name, f):
    if name in _F_BUILTIN_FUNCTIONS:
        return _text(_F_BUILTIN_FUNCTIONS[name], "builtin")
    if name in _F_BUILTIN_METHODS:
        return _text(name, "method")
    q = _F_QUALNAMES.get(name, name)
    return None if f.__qualname__ == q else _text(name, "function", q)


def install(torch_module, functional_module, tensor_cls) -> bool:
    """Mark the torch namespace, torch.nn.functional and the Tensor's properties, and hook the
    function and property reprs (False where the hook is unavailable)."""
    if not (_slot_repr.install(types.FunctionType, _function_repr)
            and _slot_repr.install(property, _property_repr)):
        return False
    _mark_namespace(functional_module, _f_text)
    _mark_namespace(torch_module, _torch_text)
    _TENSOR_METHODS.update(id(f) for f in vars(tensor_cls).values()
                           if type(f) is types.FunctionType and _TENSOR_MARK in f.__dict__)
    for cls in tensor_cls.__mro__:
        for name, p in vars(cls).items():
            if isinstance(p, property) and name in _ATTRIBUTES and id(p) not in _PROPERTIES:
                _PROPERTIES[id(p)] = f"<attribute '{name}' of 'torch._C.TensorBase' objects>"
    return True
