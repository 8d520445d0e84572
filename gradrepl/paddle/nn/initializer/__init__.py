"""``paddle.nn.initializer``: objects that fill a Parameter in place (``init(param)``).

Random initializers run Paddle's uniform / gaussian / truncated_gaussian_random kernels on
``paddle.seed``'s generator (``paddle/random_engine.py``), so after ``paddle.seed(s)`` a layer
gets Paddle's own numbers. float16 parameters draw in float32 and round, as Paddle does.
"""
from __future__ import annotations

import math

import numpy as np

from ....engine.tensor import Tensor as _T

__all__ = ["Initializer", "Constant", "Normal", "Uniform", "TruncatedNormal", "XavierUniform",
           "XavierNormal", "KaimingNormal", "KaimingUniform", "Assign", "Bilinear", "Orthogonal",
           "Dirac", "calculate_gain", "set_global_initializer", "XavierInitializer",
           "MSRAInitializer", "ConstantInitializer", "NormalInitializer",
           "UniformInitializer", "NumpyArrayInitializer", "TruncatedNormalInitializer"]


def _draw(kind, shape, dtype, *args, seed=0, **kw):
    """``kind`` (a ``random_engine`` distribution) over ``shape`` in the kernel's type: the
    parameter's for float64, float32 otherwise; a nonzero ``seed`` uses an engine of its own."""
    from ... import random_engine
    from ...tensor import creation

    n = int(np.prod(shape)) if shape else 1
    t = np.float64 if np.dtype(dtype) == np.float64 else np.float32
    vals = getattr(random_engine, kind)(creation._kernel_engine(seed), n, t, *args, **kw)
    return vals.reshape(shape)


def compute_fans(shape):
    """(fan_in, fan_out) as Paddle computes them: [in, out] for 2-D weights, conv weights
    [out, in, k...] count the receptive field."""
    shape = list(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    """Paddle's table as it is: the linear family's gain is the int 1 (``print`` shows ``1``),
    ``param`` is asserted to be a bool/int/float, 3.x adds the conv_transpose{1,2,3}d names."""
    from ... import profiles

    prof = profiles.current()
    if param is None:
        param = 0.01
    else:
        assert isinstance(param, (bool, int, float))
        param = float(param)
    linear = ["sigmoid", "linear", "conv1d", "conv2d", "conv3d", "conv1d_transpose",
              "conv2d_transpose", "conv3d_transpose"]
    if prof.api3:
        linear += ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    gains = dict.fromkeys(linear, 1)
    gains.update({"tanh": 5.0 / 3, "relu": math.sqrt(2.0),
                  "leaky_relu": math.sqrt(2.0 / (1 + param ** 2)), "selu": 3.0 / 4})
    if nonlinearity in gains:
        return gains[nonlinearity]
    typo = "" if prof.error_wording == "3" else "p"  # 2.x: "suppported"
    raise ValueError(f"nonlinearity function {nonlinearity} is not sup{typo}ported now.")


class Initializer:
    """Base class: ``init(param)`` fills ``param`` and returns it."""

    def __call__(self, param, block=None):
        arr = self.generate(tuple(param.data.shape), param.data.dtype)
        param.data = np.asarray(arr, dtype=param.data.dtype).reshape(param.data.shape)
        return param

    def generate(self, shape, dtype):  # pragma: no cover - abstract
        raise NotImplementedError


class Constant(Initializer):
    def __init__(self, value=0.0, force_cpu=False):
        self._value = value

    def generate(self, shape, dtype):
        return np.full(shape, self._value, dtype)


class Uniform(Initializer):
    def __init__(self, low=-1.0, high=1.0, name=None):
        if low > high:
            raise AssertionError("low must be less than or equal to high")
        self._low, self._high, self._seed = low, high, 0

    def generate(self, shape, dtype):
        return _draw("uniform", shape, dtype, self._low, self._high, seed=self._seed)


class Normal(Initializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        self._mean, self._std, self._seed = mean, std, 0

    def generate(self, shape, dtype):
        return _draw("normal", shape, dtype, self._mean, self._std, seed=self._seed)


class TruncatedNormalInitializer(Initializer):
    """Normal values cut by inverting the CDF of one uniform each (Paddle 3: to [a, b];
    2.x: to mean +- 2 std); a nonzero ``seed`` draws from its own engine (the kernel's seed
    attribute). The 2.x-era name, and ``TruncatedNormal``'s base class as in Paddle."""

    def __init__(self, loc=0.0, scale=1.0, seed=0, a=-2.0, b=2.0):
        self._mean, self._std, self._seed, self._a, self._b = loc, scale, seed, a, b

    def generate(self, shape, dtype):
        from ... import profiles

        return _draw("truncated_normal", shape, dtype, self._mean, self._std, self._a,
                     self._b, seed=self._seed, kernels=profiles.current().random_kernels)


class TruncatedNormal(TruncatedNormalInitializer):
    """Normal values cut by inverting the CDF of one uniform each (Paddle 3: to [a, b];
    2.x: to mean +- 2 std)."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        super().__init__(mean, std, 0, a, b)


class XavierUniform(Initializer):
    """Uniform in +-gain*sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self._fan_in, self._fan_out, self._gain = fan_in, fan_out, gain

    def generate(self, shape, dtype):
        fi, fo = compute_fans(shape)
        fi = fi if self._fan_in is None else self._fan_in
        fo = fo if self._fan_out is None else self._fan_out
        limit = self._gain * math.sqrt(6.0 / float(fi + fo))
        return _draw("uniform", shape, dtype, -limit, limit)


class XavierNormal(Initializer):
    """Normal with std gain*sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self._fan_in, self._fan_out, self._gain = fan_in, fan_out, gain

    def generate(self, shape, dtype):
        fi, fo = compute_fans(shape)
        fi = fi if self._fan_in is None else self._fan_in
        fo = fo if self._fan_out is None else self._fan_out
        std = self._gain * math.sqrt(2.0 / float(fi + fo))
        return _draw("normal", shape, dtype, 0.0, std)


class KaimingNormal(Initializer):
    """Normal with std gain/sqrt(fan_in) (He initialisation)."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self._fan_in, self._slope, self._nl = fan_in, negative_slope, nonlinearity

    def generate(self, shape, dtype):
        fi = compute_fans(shape)[0] if self._fan_in is None else self._fan_in
        gain = calculate_gain(self._nl, self._slope)
        return _draw("normal", shape, dtype, 0.0, gain / math.sqrt(float(fi)))


class KaimingUniform(Initializer):
    """Uniform in +-gain*sqrt(3/fan_in)."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self._fan_in, self._slope, self._nl = fan_in, negative_slope, nonlinearity

    def generate(self, shape, dtype):
        fi = compute_fans(shape)[0] if self._fan_in is None else self._fan_in
        limit = calculate_gain(self._nl, self._slope) * math.sqrt(3.0 / float(fi))
        return _draw("uniform", shape, dtype, -limit, limit)


class NumpyArrayInitializer(Initializer):
    """Fill with a numpy array's values (of the parameter's size); ``Assign``'s base class."""

    def __init__(self, value):
        assert isinstance(value, np.ndarray)
        self._value = value

    def generate(self, shape, dtype):
        v = np.asarray(self._value)
        if v.size != int(np.prod(shape)):
            raise ValueError(
                f"The size of input is too big. Assign initializer got {v.size} values for a "
                f"parameter of shape {list(shape)}")
        return v.reshape(shape)


class Assign(NumpyArrayInitializer):
    """Fill with given values (numpy array, list, or Tensor) of the parameter's shape."""

    def __init__(self, value, name=None):
        super().__init__(value.data if isinstance(value, _T) else np.asarray(value))


class Bilinear(Initializer):
    """Bilinear upsampling kernels for a conv-transpose weight [C, 1, k, k]."""

    def generate(self, shape, dtype):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError("the shape of the weight of Bilinear must be [C, 1, k, k]")
        size = shape[3]
        f = np.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        og = np.arange(size)
        k1 = 1 - np.abs(og / f - c)
        kernel = np.outer(k1, k1)
        return np.broadcast_to(kernel, shape).copy()


class Orthogonal(Initializer):
    def __init__(self, gain=1.0, name=None):
        self._gain = gain

    def generate(self, shape, dtype):
        rows = shape[0]
        cols = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        a = _draw("normal", (max(rows, cols), min(rows, cols)), dtype, 0.0, 1.0)
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self._gain * q[:rows, :cols]).reshape(shape)


class Dirac(Initializer):
    def __init__(self, groups=1, name=None):
        self._groups = groups

    def generate(self, shape, dtype):
        out = np.zeros(shape)
        per = shape[0] // self._groups
        mid = tuple(s // 2 for s in shape[2:])
        for g in range(self._groups):
            for i in range(min(per, shape[1])):
                out[(g * per + i, i) + mid] = 1
        return out


_GLOBAL = [None, None]


def set_global_initializer(weight_init, bias_init=None):
    _GLOBAL[0], _GLOBAL[1] = weight_init, bias_init


def global_initializers():
    """(weight, bias) initializers set by ``set_global_initializer`` (None when unset)."""
    return tuple(_GLOBAL)


# the 2.x names
XavierInitializer = XavierUniform
MSRAInitializer = KaimingNormal
ConstantInitializer = Constant


class UniformInitializer(Uniform):
    """The 2.x-era uniform initializer: a nonzero ``seed`` draws from its own
    ``std::mt19937_64(seed)`` (the kernel's seed attribute)."""

    def __init__(self, low=-1.0, high=1.0, seed=0, diag_num=0, diag_step=0, diag_val=1.0):
        super().__init__(low, high)
        self._seed = seed


class NormalInitializer(Normal):
    """The 2.x-era normal initializer (``loc``, ``scale``; ``seed`` as in
    ``UniformInitializer``)."""

    def __init__(self, loc=0.0, scale=1.0, seed=0):
        super().__init__(loc, scale)
        self._seed = seed


# the module each initializer class lives in in real Paddle (3.3.1; 2.6.2 the same but
# Bilinear's, 'paddle.nn.initializer.Bilinear'), so reprs read <paddle.nn.initializer.xavier.
# XavierNormal object at 0x...> as there
for _cls, _mod in ((Constant, "constant"), (Uniform, "uniform"), (Normal, "normal"),
                   (TruncatedNormal, "normal"), (XavierUniform, "xavier"), (XavierNormal, "xavier"),
                   (KaimingNormal, "kaiming"), (KaimingUniform, "kaiming"), (Assign, "assign"),
                   (Bilinear, "bilinear"), (Orthogonal, "orthogonal"), (Dirac, "dirac"),
                   (NumpyArrayInitializer, "assign"), (TruncatedNormalInitializer, "normal"),
                   (Initializer, "initializer")):
    _cls.__module__ = "paddle.nn.initializer." + _mod
del _cls, _mod


from ...names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
