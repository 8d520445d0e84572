"""One-element tensors are computed on numpy scalars (engine/ops/_util.py ``one_element``,
``scalar_of``/``array_like``): the bits must equal the array kernels' on the same values."""
import numpy as np
import pytest

from gradrepl.engine.ops import _util
from gradrepl.engine.ops import math as M

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # overflow to inf on purpose
RNG = np.random.default_rng(7)
SHAPES = [(1,), (), (1, 1), (1, 1, 1)]


def _values(dtype, n=400):
    v = RNG.standard_normal(n).astype(dtype) * dtype(30)
    special = np.array([0.0, -0.0, 1e-30, -1e-30, 3e38, -3e38, np.inf, -np.inf, np.nan], dtype)
    return np.concatenate([v, special])


def _same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_scale_one_element_equals_array_kernel(dtype, shape):
    xs = _values(dtype)
    for scale, bias in [(1.0001, 0.5), (2.5, 0.0), (-0.3, -0.0), (-1.0, 1.0), (1e30, -7.25)]:
        whole = M._scale_fwd(xs, scale, bias)  # more than one element: the array kernel
        assert whole.size > 1
        for k, v in enumerate(xs):
            one = M._scale_fwd(np.full(shape, v, dtype), scale, bias)
            assert _same_bits(one, np.full(shape, whole[k], dtype)), (v, scale, bias)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tanh_grad_one_element_equals_array_kernel(dtype):
    outs, douts = _values(dtype), _values(dtype)[::-1].copy()
    whole = M._tanh_grad_fwd(outs, douts)
    for k in range(len(outs)):
        for shape in SHAPES:
            one = M._tanh_grad_fwd(np.full(shape, outs[k], dtype), np.full(shape, douts[k], dtype))
            assert _same_bits(one, np.full(shape, whole[k], dtype))


def test_one_element_falls_back_on_mixed_shapes_and_dtypes():
    calls = []

    def scalar_fn(a, b):
        calls.append("scalar")
        return a * b

    def array_fn(a, b):
        calls.append("array")
        return a * b

    kernel = _util.one_element(scalar_fn, array_fn)
    f32 = np.array([3.0], np.float32)
    assert kernel(f32, np.array([2.0], np.float32)).tolist() == [6.0]
    assert kernel(f32, np.array([[2.0]], np.float32)).shape == (1, 1)  # broadcast: array path
    assert kernel(f32, np.array([2.0], np.float64)).dtype == np.float64  # promotion: array path
    assert kernel(np.ones(3, np.float32), np.ones(3, np.float32)).shape == (3,)
    assert calls == ["scalar", "array", "array", "array"]


def test_array_like_keeps_shape_dtype_and_does_not_alias():
    for shape in SHAPES:
        x = np.full(shape, 1.5, np.float32)
        out = _util.array_like(x, np.float32(-2.25))
        assert out.shape == x.shape and out.dtype == x.dtype and out.reshape(-1)[0] == -2.25
        assert x.reshape(-1)[0] == 1.5  # the input is untouched
    x = np.broadcast_to(np.float32(4.0), (1, 1))  # read-only, not contiguous in general
    assert _util.scalar_of(x) == 4.0 and _util.array_like(x, np.float32(1.0)).flags.writeable
