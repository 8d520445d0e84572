"""A PyTorch-compatible API on the gradrepl engine: ``import gradrepl.torch as torch``.

The third seed's lessons (``requires_grad``, ``grad_fn`` such as ``<AddBackward0>``,
``is_leaf``, ``backward(gradient)``, ``torch.autograd.grad``, ``no_grad``, ``.data``, in-place
rules) run on the same engine as the Paddle dialect and print what torch 2.13 prints (CPU).
``gradrepl run`` maps ``import torch`` here for a script, as it maps ``import paddle``.

Beyond autograd: ``out=`` on the namespace's functions (``_out``), the image layers
(``nn._layers`` on the engine's conv/pool/norm kernels), ``save``/``load`` in torch's file
format (``serialization``), ``autograd.forward_ad``, ``func`` (and ``import functorch``),
``autograd.profiler``/``profiler``, ``utils.benchmark``; classes carry torch's names
(``_names``: ``<class 'torch.Tensor'>``).
"""
from __future__ import annotations

import builtins as _builtins

from ._grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from . import _dtypes, _methods, _ops, _printing, _random
from ._base import Size, device, get_default_device, set_default_device
from ._creation import (arange, as_tensor, asarray, bernoulli, empty, empty_like, eye,
                        from_numpy, full, full_like, linspace, logspace, manual_seed,
                        multinomial, normal, ones, ones_like, rand, rand_like, randint,
                        randint_like, randn, randn_like, randperm, tensor, zeros, zeros_like)
from ._creation import range_ as range  # noqa: A001 - torch's name
from ._ops import (abs, absolute, acos, add, addcdiv, addcmul, addmm, all,  # noqa: A004
                   allclose, amax,
                   amin, any, arccos, arcsin, arctan, argmax, argmin, argsort, asin, atan,
                   atan2, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, bmm, broadcast_to,
                   cat, ceil, chunk, clamp, clamp_max, clamp_min, clip, clone, concat,
                   concatenate, cos, cosh, count_nonzero, cross, cumprod, cumsum, det, diag,
                   diagonal, dist, div, divide, dot, einsum, eq, equal, erf, exp, exp2, expm1,
                   fix, flatten, flip, floor, floor_divide, fmod, frac, gather, ge, ger, greater,
                   greater_equal, gt, hstack, hypot, index_select, inner, inverse, isclose,
                   isfinite, isinf, isnan, kron, le, lerp, less, less_equal, log, log1p, log2,
                   log10, logical_and, logical_not, logical_or, logical_xor, logsumexp, lt,
                   masked_fill, matmul, max, maximum, mean, median, min, minimum, mm, moveaxis,
                   movedim, mul, multiply, mv, nan_to_num, nansum, narrow, ne, neg, negative,
                   nonzero, norm, not_equal, outer, permute, pow, prod, reciprocal, relu,
                   remainder, repeat, reshape, roll, round, rsqrt, rsub, sgn, sigmoid, sign, sin,
                   sinh, sort, split, sqrt, square, squeeze, stack, std, sub, subtract, sum,
                   swapaxes, swapdims, t, take, tan, tanh, tile, topk, trace, transpose, tril,
                   triu, true_divide, trunc, unbind, unflatten, unique, unsqueeze, var, vstack,
                   where)
from ._ops import (aminmax, argwhere, diff, logaddexp, masked_select,  # noqa: E402,F401
                   repeat_interleave, take_along_dim, tensor_split)
from ._random import Generator, get_rng_state, initial_seed, seed, set_rng_state
from ._tensor import Tensor

_methods.bind()

from . import autograd, linalg, nn, optim, return_types, testing, utils  # noqa: E402
from . import _functorch, func, profiler, serialization  # noqa: E402,F401
from .serialization import load, save  # noqa: E402
from .func import vmap  # noqa: E402
from ._indexing import select  # noqa: E402
from .nn.functional import dropout, log_softmax, softmax  # noqa: E402
from .autograd import inference_mode  # noqa: E402
from .nn.parameter import Parameter  # noqa: E402  (torch.nn.Parameter; not torch.Parameter)

__version__ = "2.13.0"


def _exactness_notice():
    """Once, where real torch would compute with MKL (x86-64) and gradrepl cannot: which
    results' last bits may move, and how to get them."""
    import platform
    import sys

    from ..engine import mkl

    if platform.machine().lower() in ("x86_64", "amd64") and not mkl.load():
        print("gradrepl: torch's float math, products and linear algebra may differ from real "
              "torch in the last bits here (printed digits agree): the MKL backend is not "
              "installed (pip install \"gradrepl[exact]\")", file=sys.stderr)


_exactness_notice()

float32 = float = _dtypes.float32  # noqa: A001
float64 = double = _dtypes.float64
float16 = half = _dtypes.float16
bfloat16 = _dtypes.bfloat16
int64 = long = _dtypes.int64
int32 = int = _dtypes.int32  # noqa: A001
int16 = short = _dtypes.int16
int8 = _dtypes.int8
uint8 = _dtypes.uint8
bool = _dtypes.bool_  # noqa: A001
complex64 = cfloat = _dtypes.complex64
complex128 = cdouble = _dtypes.complex128
dtype = _dtypes.dtype

del Parameter

# The API beyond the core, one module a family: each gives EXPORTS (torch.NAME) and
# TENSOR_METHODS (Tensor.NAME); bound here, before out= is installed and classes are named.
from . import _linalg_ops, _ops_math, _ops_shape  # noqa: E402



def _bind_family(family):
    globals().update(family.EXPORTS)
    for name, fn in family.TENSOR_METHODS.items():
        setattr(Tensor, name, fn)


for _family in (_ops_math, _ops_shape, _linalg_ops):
    _bind_family(_family)
del _family

from . import distributions, fft, special  # noqa: E402,F401
from ._names import name_classes as _name_classes  # noqa: E402

_name_classes()

from . import _out  # noqa: E402

_out.install(globals())


class _Layout:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


strided = _Layout("strided")
sparse_coo = _Layout("sparse_coo")


class memory_format:  # noqa: N801 - torch's name
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


memory_format.__module__ = "torch"
preserve_format, contiguous_format, channels_last, channels_last_3d = (
    memory_format(_n) for _n in ("preserve_format", "contiguous_format", "channels_last",
                                 "channels_last_3d"))
pi = 3.141592653589793
e = 2.718281828459045
inf = _builtins.float("inf")
nan = _builtins.float("nan")
newaxis = None

globals().update(_ops_math.LEGACY_TYPES)  # torch.FloatTensor, torch.LongTensor ...


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    _printing.set_printoptions(precision, threshold, edgeitems, linewidth, profile, sci_mode)


def get_default_dtype():
    return _dtypes.DEFAULTS.float


def set_default_dtype(d):
    d = _dtypes.as_dtype(d)
    if d.np.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    _dtypes.DEFAULTS.float = d


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):  # noqa: A002
    return input.is_floating_point()


def is_complex(input):  # noqa: A002
    return input.is_complex()


def numel(input):  # noqa: A002
    return input.numel()


def result_type(tensor1, tensor2):
    return _dtypes.from_np(_dtypes.result_type(tensor1, tensor2))


def promote_types(type1, type2):
    return _dtypes.from_np(_dtypes.promote_types(type1.np, type2.np))


def can_cast(from_, to):
    return _dtypes.category(from_.np) <= _dtypes.category(to.np)


def detach(input):  # noqa: A002
    return input.detach()


def get_num_threads():
    from ._capability import threads

    return threads()  # what torch's kernels split their work by here (``_capability``)


def set_num_threads(n):
    return None


def use_deterministic_algorithms(mode, *, warn_only=False):
    return None


from . import _dynamo, compiler, jit  # noqa: E402,F401
from ._dynamo import compile  # noqa: E402,A004 - torch's name


class _Cuda:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0

    @staticmethod
    def manual_seed(seed):
        return None

    manual_seed_all = manual_seed


cuda = _Cuda()


class _Accelerator:
    """``torch.accelerator``: no accelerator here (the CPU build)."""

    @staticmethod
    def is_available():
        return False

    @staticmethod
    def current_accelerator(check_available=False):
        return None

    @staticmethod
    def device_count():
        return 0


accelerator = _Accelerator()


def _answers(name, available, **settings):
    """A ``torch.backends.X`` of torch's CPU wheel: ``is_available()``, its switches (they
    change nothing in gradrepl, as they change no CPU result in torch)."""
    import types

    space = types.SimpleNamespace(**settings)
    space.is_available = lambda: available
    space.__name__ = f"torch.backends.{name}"
    return space


class _Backends:
    mps = _answers("mps", False)
    cudnn = _answers("cudnn", False, enabled=True, benchmark=False, deterministic=False,
                     allow_tf32=True)
    cudnn.version = lambda: None
    cudnn.flags = None  # set below: a context manager over the switches
    mkldnn = _answers("mkldnn", True, enabled=True)
    openmp = _answers("openmp", True)
    cuda = _answers("cuda", False)
    cuda.is_built = lambda: False
    # without the opt_einsum package (torch's own state here): einsum contracts left to right
    opt_einsum = _answers("opt_einsum", False, enabled=False, strategy=None)
    opt_einsum.get_opt_einsum = lambda: None


def _cudnn_flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
                 allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    """``torch.backends.cudnn.flags(...)``: the switches set for a ``with`` block, then put
    back (torch's signature; what the block yields is None, as in torch)."""
    import contextlib

    space = _Backends.cudnn
    new = {"enabled": enabled, "benchmark": benchmark, "deterministic": deterministic,
           "allow_tf32": allow_tf32}

    @contextlib.contextmanager
    def switched():
        old = {k: getattr(space, k) for k in new}
        for k, v in new.items():
            setattr(space, k, v)
        try:
            yield None
        finally:
            for k, v in old.items():
                setattr(space, k, v)

    return switched()


_Backends.cudnn.flags = _cudnn_flags
backends = _Backends()


def __getattr__(name):
    if name == "version":
        import types

        return types.SimpleNamespace(__version__=__version__, cuda=None)
    raise AttributeError(f"module 'torch' has no attribute '{name}' (gradrepl's torch does "
                         f"not emulate torch.{name})")


_ops_math._bind_gaps()  # the names tools/torch_api_gaps.py found missing (issue 28)
from . import _meta  # noqa: E402
from .nn.utils.weight_norm import _weight_norm, norm_except_dim  # noqa: E402,F401

_meta.install_methods(Tensor)  # (a meta tensor's .to(...), .clone() ... stay meta)
from . import _method_repr  # noqa: E402

_method_repr.install(Tensor, autograd.graph.Node)  # (print(t.type) as torch's C methods)
from . import _sparse_coo, sparse  # noqa: E402,F401

_sparse_coo.install(_builtins.__import__("sys").modules[__name__], Tensor)  # (sparse COO)
from . import _sparse_csr  # noqa: E402

_sparse_csr.install(_builtins.__import__("sys").modules[__name__], Tensor)  # (sparse CSR)
from . import _sparse_ops  # noqa: E402

_sparse_ops.install(_builtins.__import__("sys").modules[__name__])  # (sparse ops' table)
from . import _complex_unsupported  # noqa: E402

_complex_unsupported.install(_builtins.__import__("sys").modules[__name__], nn.functional, Tensor)
from . import _dense_entry  # noqa: E402

_dense_entry.install(_builtins.__import__("sys").modules[__name__], nn.functional, Tensor)
from . import _function_repr  # noqa: E402

_function_repr.install(_builtins.__import__("sys").modules[__name__], nn.functional, Tensor)
from . import cpu  # noqa: E402,F401  (torch.cpu: torch imports it at its import)
