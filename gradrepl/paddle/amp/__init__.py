"""``paddle.amp`` on a CPU: automatic mixed precision as Paddle runs it where gradrepl runs.

Real Paddle enables AMP on CUDA, XPU and custom devices only. On ``Place(cpu)`` (the only place
gradrepl has) ``auto_cast``/``amp_guard`` warn once ("amp_guard can only be enabled on ...") and
change nothing, ``GradScaler``/``AmpScaler`` built enabled warn once and are disabled (``scale``
returns the loss itself, ``step``/``minimize`` call the optimizer's, ``update`` does nothing,
``state_dict`` is ``{}``), and ``decorate`` returns the models and optimizers untouched. The
arguments are checked first, with Paddle's messages. Paddle 2.6's disabled scaler keeps none of
its settings (``get_init_loss_scaling()`` raises its AttributeError); 3.x keeps three defaults.
The warnings come from Paddle's own files and lines (``libwarn.SITES``).
"""
from __future__ import annotations

import contextlib

from .. import libwarn, profiles

__all__ = ["auto_cast", "amp_guard", "decorate", "amp_decorate", "GradScaler", "AmpScaler",
           "is_float16_supported", "is_bfloat16_supported"]

_PLACE = "Place(cpu)"


@contextlib.contextmanager
def amp_guard(enable=True, custom_white_list=None, custom_black_list=None, level="O1",
              dtype="float16", use_promote=True):
    level = level.upper()
    if level not in ("O0", "OD", "O1", "O2"):
        raise ValueError("level should be O0, OD, O1 or O2.")
    dtype = getattr(dtype, "name", dtype).lower()
    if enable and dtype not in ("float16", "bfloat16"):
        raise ValueError("If enable amp, dtype should be 'float16' or 'bfloat16'.")
    if enable:
        libwarn.warn("amp_guard_cpu",
                     "amp_guard can only be enabled on CUDAPlace, XPUPlace, and CustomPlace, "
                     f"current place is {_PLACE}, so it makes no effect.")
    yield


@contextlib.contextmanager
def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1",
              dtype="float16", use_promote=True):
    with amp_guard(enable, custom_white_list, custom_black_list, level, dtype, use_promote):
        yield


def amp_decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None,
                 save_dtype=None, master_grad=False, excluded_layers=None):
    if level not in ("O1", "O2"):
        raise ValueError("level should be O1 or O2, O1 represent AMP train mode, O2 represent "
                         "Pure fp16 train mode.")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError("dtype only support float16 or bfloat16.")
    # O1 does nothing anywhere; O2 does nothing on a CPU either
    return models if optimizers is None else (models, optimizers)


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None,
             save_dtype=None, master_grad=False, excluded_layers=None):
    return amp_decorate(models, optimizers, level, dtype, master_weight, save_dtype,
                        master_grad, excluded_layers)


class AmpScaler:
    def __init__(self, enable=True, init_loss_scaling=2.0 ** 15, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=1000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        if enable:
            libwarn.warn("amp_scaler_cpu",
                         "AmpScaler can only be enabled on CUDAPlace, XPUPlace and CustomPlace, "
                         f"current place is {_PLACE}, so it makes no effect.")
        self._enable = False
        if profiles.current().api3:
            self._use_dynamic_loss_scaling = False
            self._init_loss_scaling = 1.0
            self._scale = None

    def scale(self, var):
        return var

    def minimize(self, optimizer, *args, **kwargs):
        return optimizer.minimize(*args, **kwargs)

    def step(self, optimizer):
        return optimizer.step()

    def update(self):
        return None

    def unscale_(self, optimizer):
        return None

    def is_enable(self):
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        self._init_loss_scaling = new_init_loss_scaling
        self._scale = new_init_loss_scaling

    def get_incr_ratio(self):
        return self._incr_ratio

    def get_decr_ratio(self):
        return self._decr_ratio

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        return None


class GradScaler(AmpScaler):
    def __init__(self, enable=True, init_loss_scaling=2.0 ** 16, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=2000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)


def is_float16_supported(device=None):
    """False on a CPU (Paddle checks a GPU's or XPU's compute capability)."""
    return False


def is_bfloat16_supported(device=None):
    """On a CPU Paddle answers whether it has AVX-512 (oneDNN's bfloat16 kernels)."""
    from ...engine import cpu

    return bool(cpu.has_avx512f())


def __getattr__(name):
    from .. import not_emulated

    raise not_emulated.error("paddle.amp", name)
