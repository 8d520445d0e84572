"""``paddle.get_flags`` / ``set_flags`` and the build questions (``is_compiled_with_xpu`` ...).

gradrepl runs on the CPU and emulates Paddle's CPU build: the flags a student reads in tutorials
keep their values (they change nothing in gradrepl's engine), the build questions answer as
Paddle's CPU wheel does.
"""
from __future__ import annotations

from . import profiles

# flag -> (value under 3.x, value under 2.x): the public flags of Paddle's CPU wheel that
# tutorials read; a name not here is one real Paddle refuses too, or one we do not emulate
_DEFAULTS = {
    "FLAGS_use_mkldnn": (False, False),
    "FLAGS_check_nan_inf": (False, False),
    "FLAGS_eager_delete_tensor_gb": (0.0, 0.0),
    "FLAGS_fraction_of_gpu_memory_to_use": (0.9200000166893005, 0.9200000166893005),
    "FLAGS_allocator_strategy": ("auto_growth", "auto_growth"),
    "FLAGS_call_stack_level": (1, 1),
    "FLAGS_benchmark": (False, False),
    "FLAGS_set_to_1d": (False, False),
    "FLAGS_enable_pir_api": (True, False),
    "FLAGS_use_cuda_managed_memory": (False, False),
    "FLAGS_cpu_deterministic": (None, False),  # None: not gettable under that version
}
_SET: dict = {}


def _value(name):
    if name in _SET:
        return _SET[name]
    now3, old = _DEFAULTS.get(name, (None, None))
    return now3 if profiles.current().api3 else old


def get_flags(flags):
    """The values of Paddle's global flags, as a dict (``paddle.get_flags(['FLAGS_x'])``)."""
    if isinstance(flags, str):
        flags = [flags]
    if not isinstance(flags, (list, tuple)):
        raise TypeError("Flags in get_flags should be a list, tuple or string.")
    out = {}
    for name in flags:
        value = _value(name)
        if value is None:
            raise ValueError(f"Flag {name} cannot get its value through this function.")
        out[name] = value
    return out


def set_flags(flags):
    """Set global flags from a dict; unknown flags raise as in Paddle."""
    if not isinstance(flags, dict):
        raise TypeError("flags in set_flags should be a dict")
    for name, value in flags.items():
        if _value(name) is None:
            raise ValueError(f"Flag {name} cannot set its value through this function.")
        _SET[name] = value


def reset():
    _SET.clear()


def _not_compiled(what):
    def answer(*_args, **_kwargs):
        return False

    answer.__name__ = answer.__qualname__ = f"is_compiled_with_{what}"
    answer.__doc__ = f"False: gradrepl emulates Paddle's CPU build, which has no {what} support."
    return answer


is_compiled_with_xpu = _not_compiled("xpu")
is_compiled_with_rocm = _not_compiled("rocm")
is_compiled_with_cinn = _not_compiled("cinn")
is_compiled_with_ipu = _not_compiled("ipu")
is_compiled_with_custom_device = _not_compiled("custom_device")


def is_compiled_with_distribute():
    """The CPU wheel is built with distributed support."""
    return True


def get_cudnn_version():
    """None: no cuDNN in a CPU build."""
    return None
