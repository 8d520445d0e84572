"""torch's small modules a lecture imports by name (``import torch.backends.cudnn as cudnn``,
``from torch.amp import GradScaler``, ``torch.cuda.is_available()``, ``torch.version.cuda``,
``torch.random.manual_seed``), as torch 2.13's CPU wheel answers them (issue 28).

They are made here as module objects and put into ``sys.modules`` as ``gradrepl.torch.X``, so
``gradrepl run``'s import mapping finds them like files; ``torch.X`` is the same object.
``torch.cuda`` on the CPU wheel: ``is_available()`` False, ``device_count()`` 0, the seeding
calls do nothing, the memory counters are 0, and what needs a device raises torch's
``AssertionError: Torch not compiled with CUDA enabled``. ``GradScaler`` is torch's loss scaler
(on ``"cpu"`` it scales, unscales and skips steps with inf/NaN gradients as torch does; for the
default ``"cuda"`` it warns and disables itself, as on a machine without CUDA). ``autocast``
with ``enabled=False`` is a no-op; mixed precision itself is not emulated (gradrepl holds no
bfloat16), so entering an enabled autocast raises saying so."""
from __future__ import annotations

import importlib.machinery
import sys
import types
import warnings

_PREFIX = "gradrepl.torch"


def _module(name, doc, package=False, **attrs):
    full = f"{_PREFIX}.{name}"
    mod = sys.modules.get(full)
    if mod is None or not isinstance(mod, types.ModuleType):
        mod = types.ModuleType(full, doc)
        mod.__spec__ = importlib.machinery.ModuleSpec(full, None, is_package=package)
        if package:
            mod.__path__ = []
        sys.modules[full] = mod
    for k, v in attrs.items():
        setattr(mod, k, v)
    return mod


# ---------------------------------------------------------------------------------- version
class TorchVersion(str):
    """``torch.__version__``: a str that compares as a version (``>= "2.0"``, ``< (2, 14)``)."""

    @staticmethod
    def _key(v):
        if isinstance(v, (tuple, list)):
            return tuple(int(x) for x in v)
        parts = []
        for p in str(v).split("+")[0].split("."):
            digits = "".join(ch for ch in p if ch.isdigit())
            if not digits:
                break
            parts.append(int(digits))
        return tuple(parts)

    def _cmp(self, other):
        a, b = self._key(self), self._key(other)
        n = max(len(a), len(b))
        a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
        return (a > b) - (a < b)

    def __lt__(self, other):
        return self._cmp(other) < 0

    def __le__(self, other):
        return self._cmp(other) <= 0

    def __gt__(self, other):
        return self._cmp(other) > 0

    def __ge__(self, other):
        return self._cmp(other) >= 0

    def __eq__(self, other):
        if isinstance(other, str) and not other[:1].isdigit():
            return str.__eq__(self, other)
        return str.__eq__(self, other) or self._cmp(other) == 0

    __hash__ = str.__hash__


VERSION = TorchVersion("2.13.0+cpu")


# ---------------------------------------------------------------------------------- cuda
def _no_cuda(*_a, **_k):
    raise AssertionError("Torch not compiled with CUDA enabled")


def _none(*_a, **_k):
    return None


def _zero(*_a, **_k):
    return 0


def _false(*_a, **_k):
    return False


class _CudaDevice:
    """``torch.cuda.device(i)``: a context manager that needs CUDA to be entered."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        _no_cuda()

    def __exit__(self, *exc):
        return False


_NOT_COMPILED = ("AssertionError", "Torch not compiled with CUDA enabled")
_NO_NVML = ("ModuleNotFoundError", "nvidia-ml-py does not seem to be installed or it can't be "
            "imported.")


def _c_missing(name):
    return ("AttributeError", f"module 'torch._C' has no attribute '_cuda_{name}'")


# what each further torch.cuda function does on torch 2.13's CPU wheel (called in this session):
# a value it returns, or the exception it raises
_CUDA_ANSWERS = {
    "caching_allocator_alloc": _NOT_COMPILED, "can_device_access_peer": _NOT_COMPILED,
    "current_blas_handle": _NOT_COMPILED, "current_solver_handle": _NOT_COMPILED,
    "get_per_process_memory_fraction": _NOT_COMPILED, "get_stream_from_external": _NOT_COMPILED,
    "get_sync_debug_mode": _NOT_COMPILED, "initial_seed": _NOT_COMPILED,
    "set_per_process_memory_fraction": _NOT_COMPILED, "set_sync_debug_mode": _NOT_COMPILED,
    "clock_rate": _NO_NVML, "device_memory_used": _NO_NVML, "memory_usage": _NO_NVML,
    "power_draw": _NO_NVML, "temperature": _NO_NVML, "utilization": _NO_NVML,
    "caching_allocator_delete": _c_missing("cudaCachingAllocator_raw_delete"),
    "change_current_allocator": _c_missing("changeCurrentAllocator"),
    "get_allocator_backend": _c_missing("getAllocatorBackend"),
    "memory_snapshot": _c_missing("memorySnapshot"),
    "reset_accumulated_host_memory_stats": _c_missing("resetAccumulatedHostMemoryStats"),
    "reset_accumulated_memory_stats": _c_missing("resetAccumulatedMemoryStats"),
    "reset_max_memory_allocated": _c_missing("resetPeakMemoryStats"),
    "reset_max_memory_cached": _c_missing("resetPeakMemoryStats"),
    "reset_peak_host_memory_stats": _c_missing("resetPeakHostMemoryStats"),
    "reset_peak_memory_stats": _c_missing("resetPeakMemoryStats"),
    "memory_summary": ("KeyError", "allocated_bytes.all.current"),
    "is_current_stream_capturing": ("RuntimeError", "Tried to instantiate dummy base class "
                                    "_cuda_isCurrentStreamCapturing"),
    "caching_allocator_enable": ("value", None), "is_tf32_supported": ("value", False),
    "list_gpu_processes": ("value", "pynvml module not found, please install nvidia-ml-py"),
    "memory_stats": ("value", "OrderedDict"), "host_memory_stats": ("value", "OrderedDict"),
}
_EXC = {"AssertionError": AssertionError, "AttributeError": AttributeError,
        "ModuleNotFoundError": ModuleNotFoundError, "KeyError": KeyError,
        "RuntimeError": RuntimeError}


def _answer(kind, what):
    def fn(*_a, **_k):
        if kind != "value":
            raise _EXC[kind](what)
        if what == "OrderedDict":
            import collections

            return collections.OrderedDict()
        return what
    return fn


def _cuda_module():
    amp = _module("cuda.amp", "torch.cuda.amp (deprecated names of torch.amp)", package=True)
    mod = _module(
        "cuda", "torch.cuda on torch's CPU wheel: no device.", package=True,
        is_available=_false, device_count=_zero, is_initialized=_false, manual_seed=_none,
        manual_seed_all=_none, seed=_none, seed_all=_none, empty_cache=_none,
        memory_allocated=_zero, max_memory_allocated=_zero, memory_reserved=_zero,
        max_memory_reserved=_zero, memory_cached=_zero, max_memory_cached=_zero,
        is_bf16_supported=_false, get_arch_list=lambda: [], get_gencode_flags=lambda: "",
        synchronize=_no_cuda, current_device=_no_cuda, get_device_name=_no_cuda,
        get_device_capability=_no_cuda, get_device_properties=_no_cuda, mem_get_info=_no_cuda,
        init=_no_cuda, ipc_collect=_no_cuda, get_rng_state=_no_cuda, get_rng_state_all=lambda: [],
        set_rng_state=_no_cuda, set_rng_state_all=_none, current_stream=_no_cuda,
        default_stream=_no_cuda, set_device=_no_cuda, device=_CudaDevice, amp=amp,
        has_half=True, has_magma=False, default_generators=())
    for name, (kind, what) in _CUDA_ANSWERS.items():
        setattr(mod, name, _answer(kind, what))
    return mod


# ---------------------------------------------------------------------------------- amp
def _cuda_off(message, site):
    """The CUDA-not-available UserWarning at the caller of torch.amp's class (stacklevel 2), or
    from torch.cuda.amp's subclass's ``super().__init__(`` line (libwarn ``site``)."""
    if site is None:
        warnings.warn(message, UserWarning, stacklevel=3)
    else:
        from . import libwarn
        libwarn.warn(site, message)


class GradScaler:
    """torch.amp.GradScaler: loss scaling with dynamic growth/backoff (torch's algorithm)."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True, _site=None):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            _cuda_off("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                      "Disabling.", _site)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale = None
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer_states = {}

    def is_enabled(self):
        return self._enabled

    def _lazy_init(self):
        import gradrepl.torch as T

        if self._scale is None:
            self._scale = T.full((), self._init_scale, dtype=T.float32)
            self._growth_tracker = T.full((), self._init_growth_tracker, dtype=T.int32)

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        self._lazy_init()
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        return outputs * self._scale.to(dtype=outputs.dtype)

    def _state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer),
                                                     {"stage": "ready", "found_inf": None})

    def unscale_(self, optimizer):
        import gradrepl.torch as T

        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == "unscaled":
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        self._lazy_init()
        inv = self._scale.double().reciprocal().float()
        found = T.full((), 0.0, dtype=T.float32)
        with T.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if not bool(T.isfinite(p.grad).all()):
                        found.fill_(1.0)
                    p.grad.mul_(inv.to(dtype=p.grad.dtype))
        state["found_inf"] = found
        state["stage"] = "unscaled"

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        state = self._state(optimizer)
        if state["stage"] == "stepped":
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == "ready":
            self.unscale_(optimizer)
        ret = None
        if not float(state["found_inf"].item()):
            ret = optimizer.step(*args, **kwargs)
        state["stage"] = "stepped"
        return ret

    def update(self, new_scale=None):
        import gradrepl.torch as T

        if not self._enabled:
            return
        self._lazy_init()
        if new_scale is not None:
            value = float(new_scale) if not isinstance(new_scale, T.Tensor) else \
                float(new_scale.item())
            self._scale.fill_(value)
        else:
            found = any(float(s["found_inf"].item()) for s in self._per_optimizer_states.values()
                        if s["found_inf"] is not None)
            if found:
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker.fill_(0)
            else:
                tracker = int(self._growth_tracker.item()) + 1
                if tracker == self._growth_interval:
                    self._scale.mul_(self._growth_factor)
                    tracker = 0
                self._growth_tracker.fill_(tracker)
        self._per_optimizer_states = {}

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        tracker = 0 if self._growth_tracker is None else int(self._growth_tracker.item())
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": tracker}

    def load_state_dict(self, state_dict):
        import gradrepl.torch as T

        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = T.full((), state_dict["_growth_tracker"], dtype=T.int32)


class autocast:  # noqa: N801 - torch's name
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: disabled,
    on the CPU, the ops of autocast's lists cast their inputs (``_bfloat16.lower`` / ``fp32``)."""

    def __init__(self, device_type="cpu", dtype=None, enabled=True, cache_enabled=None,
                 _site=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        if device_type == "cuda" and enabled:
            _cuda_off("CUDA is not available or torch_xla is imported. Disabling autocast.", _site)
            self._enabled = False

    def __enter__(self):
        from . import _bfloat16, _dtypes

        self._prev = _bfloat16.AUTOCAST[0], _bfloat16.AUTOCAST_DTYPE[0]
        if self.device == "cpu":  # (the last dtype set unless dtype says, as torch's CPU)
            dt = _dtypes.to_np(self.fast_dtype) if self.fast_dtype is not None else \
                _bfloat16.AUTOCAST_DTYPE[0]
            _bfloat16.AUTOCAST_DTYPE[0] = dt
            _bfloat16.AUTOCAST[0] = dt if self._enabled else None
        return self

    def __exit__(self, *exc):
        from . import _bfloat16

        _bfloat16.AUTOCAST[0], _bfloat16.AUTOCAST_DTYPE[0] = self._prev
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*a, **k):
            with self:
                return fn(*a, **k)
        return wrapped


def is_autocast_enabled(device_type=None):
    """``torch.is_autocast_enabled(device_type)``: without a device, CUDA's (never here)."""
    from . import _bfloat16

    return device_type == "cpu" and _bfloat16.AUTOCAST[0] is not None


def get_autocast_dtype(device_type):
    """The dtype autocast uses on ``device_type``: the CPU's last set one (bfloat16 at first),
    CUDA's float16."""
    from . import _bfloat16, _dtypes

    return _dtypes.from_np(_bfloat16.AUTOCAST_DTYPE[0]) if device_type == "cpu" \
        else _dtypes.float16


_AUTOCAST_CPP = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/init.cpp:{}.)"


def is_autocast_cpu_enabled():
    warnings.warn("torch.is_autocast_cpu_enabled() is deprecated. Please use "
                  "torch.is_autocast_enabled('cpu') instead." + _AUTOCAST_CPP.format(883),
                  DeprecationWarning, stacklevel=2)
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    warnings.warn("torch.get_autocast_cpu_dtype() is deprecated. Please use "
                  "torch.get_autocast_dtype('cpu') instead." + _AUTOCAST_CPP.format(1016),
                  DeprecationWarning, stacklevel=2)
    return get_autocast_dtype("cpu")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """``torch.amp.custom_fwd``: a custom Function's forward under autocast; autocast being off
    here, the forward itself."""
    import functools

    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type):
    import functools

    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd


def _clone_state(self):
    g = type(self)()
    g.set_state(self.get_state())
    return g


def _no_offset(self, *_a):
    raise RuntimeError("CPU Generator does not use offset")


def _amp_module():
    def cuda_scaler(*args, **kwargs):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        return GradScaler("cuda", *args, **kwargs, _site="cuda_scaler_init")

    def cuda_autocast(enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        return autocast("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled,
                        _site="cuda_autocast_init")

    _module("cuda.amp", "torch.cuda.amp", package=True, GradScaler=cuda_scaler,
            autocast=cuda_autocast)
    return _module("amp", "torch.amp: GradScaler and autocast.", package=True,
                   GradScaler=GradScaler, autocast=autocast, custom_fwd=custom_fwd,
                   custom_bwd=custom_bwd)


# ---------------------------------------------------------------------------------- random
def _random_module(T):
    import contextlib

    @contextlib.contextmanager
    def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
                 device_type="cuda"):
        if not enabled:
            yield
            return
        state = T.get_rng_state()
        try:
            yield
        finally:
            T.set_rng_state(state)

    return _module("random", "torch.random: the default generator's seeding.",
                   manual_seed=T.manual_seed, seed=T.seed, initial_seed=T.initial_seed,
                   get_rng_state=T.get_rng_state, set_rng_state=T.set_rng_state,
                   fork_rng=fork_rng, default_generator=getattr(T, "default_generator", None),
                   Generator=T.Generator)


def _backends_module(T):
    old = T.__dict__.get("backends")
    mod = _module("backends", "torch.backends on torch's CPU wheel.", package=True)
    for name in ("mps", "cudnn", "mkldnn", "openmp", "cuda", "opt_einsum"):
        space = getattr(old, name, None) if old is not None and not isinstance(
            old, types.ModuleType) else getattr(mod, name, None)
        if space is None:
            continue
        full = f"{_PREFIX}.backends.{name}"
        if full not in sys.modules:
            try:
                space.__spec__ = importlib.machinery.ModuleSpec(full, None)
            except AttributeError:  # pragma: no cover - a namespace that takes no attributes
                continue
            sys.modules[full] = space
        setattr(mod, name, space)
    mkl = types.SimpleNamespace(is_available=lambda: True)
    mkl.__spec__ = importlib.machinery.ModuleSpec(f"{_PREFIX}.backends.mkl", None)
    sys.modules.setdefault(f"{_PREFIX}.backends.mkl", mkl)
    mod.mkl = sys.modules[f"{_PREFIX}.backends.mkl"]
    return mod


_ALLCLOSE_TOL = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """``torch.testing.assert_allclose`` (deprecated in torch 1.12, still there): its own
    looser default tolerances, then ``assert_close``."""
    import gradrepl.torch as T

    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    if not isinstance(actual, T.Tensor):
        actual = T.tensor(actual)
    if not isinstance(expected, T.Tensor):
        expected = T.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pair = [_ALLCLOSE_TOL.get(str(t.dtype).replace("torch.", ""), (0.0, 0.0))
                for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pair), max(p[1] for p in pair)
    T.testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                           msg=msg or None)


def install():
    """Make the modules and bind them on ``gradrepl.torch`` (called once at its import)."""
    import gradrepl.torch as T

    T.__version__ = VERSION
    T.version = _module("version", "torch.version", __version__=VERSION, cuda=None, hip=None,
                        xpu=None, debug=False, git_version="cf30153c4c131c8164ee7798e5022d810682e2cb")
    T.cuda = _cuda_module()
    T.amp = _amp_module()
    T.GradScaler = GradScaler
    T.autocast = autocast
    T.is_autocast_enabled = is_autocast_enabled
    T.get_autocast_dtype = get_autocast_dtype
    T.is_autocast_cpu_enabled = is_autocast_cpu_enabled
    T.get_autocast_cpu_dtype = get_autocast_cpu_dtype
    T.random = _random_module(T)
    if not hasattr(T.testing, "assert_allclose"):
        T.testing.assert_allclose = assert_allclose
    for name, fn in (("clone_state", _clone_state), ("get_offset", _no_offset),
                     ("set_offset", _no_offset)):
        if not hasattr(T.Generator, name):
            setattr(T.Generator, name, fn)
    T.backends = _backends_module(T)
    from . import signal

    T.signal = signal
    T.windows = signal.windows  # (torch 2.13 also binds it at the top)
