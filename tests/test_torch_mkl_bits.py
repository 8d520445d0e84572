"""The torch dialect's math functions give real torch 2.13's bits: torch computes them with
MKL's vector math library, which gradrepl loads from the ``mkl`` wheel (gradrepl/torch/_mkl.py).
Expected md5s of the float32/float64 results recorded from real torch by
tests/data/torch_mkl/record.py over tests/data/torch_mkl/inputs.py's values."""
import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest

DATA = pathlib.Path(__file__).parent / "data" / "torch_mkl"
sys.path.insert(0, str(DATA))
from inputs import inputs  # noqa: E402

from conftest import expected_for_mkl_branch  # noqa: E402
from gradrepl.torch import _mkl  # noqa: E402

EXPECTED = json.loads((DATA / "expected.json").read_text())
needs_mkl = pytest.mark.skipif(not _mkl.available(), reason="the mkl wheel is not installed "
                               "(a dependency on x86-64 Linux/Windows only)")


@needs_mkl
@pytest.mark.parametrize("name,x", list(inputs()), ids=[n for n, _ in inputs()])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_math_function_bits_equal_real_torch(name, x, dtype):
    import gradrepl.torch as torch

    # records per MKL code path: expected.json (AMD EPYC), expected_AVX512_E1.json (Intel
    # Sapphire Rapids Xeon), both by record.py under real torch 2.13
    EXPECTED = expected_for_mkl_branch(DATA, f"{name}/{dtype} (MKL's VML)")

    with np.errstate(all="ignore"):
        y = getattr(torch, name)(torch.from_numpy(x.astype(dtype))).numpy()
    assert hashlib.md5(y.tobytes()).hexdigest() == EXPECTED[f"{name}/{dtype}"]


@needs_mkl
def test_one_value_and_methods_take_the_same_kernel():
    import gradrepl.torch as torch

    x = np.array([0.5, 1.7, -3.3, 100.25], np.float32)
    whole = torch.sin(torch.from_numpy(x)).numpy()
    for i, v in enumerate(x):
        one = torch.tensor(float(v)).sin()
        assert one.shape == () and one.item() == float(whole[i])


def test_functions_torch_does_not_send_to_mkl_are_not_listed():
    # measured: torch's log1p, sinh and cosh differ from MKL's VML results
    assert not {"log1p", "sinh", "cosh", "sigmoid"} & set(_mkl.FUNCS)
    if not _mkl.available():
        assert _mkl.function("sin") is None


def test_address_is_where_the_values_start():
    """``_mkl.address`` (the arrays' addresses handed to MKL, read from numpy's struct) agrees
    with numpy's own ``a.ctypes.data`` for fresh arrays, views, transposes and 0-d arrays."""
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    arrays = [base, base[1:], base[:, 2:], base.T, base[::2, ::3], np.array(3.0, np.float32),
              np.empty(0, np.float32), np.ascontiguousarray(base.T)[2]]
    for a in arrays:
        assert _mkl.address(a) == a.ctypes.data


@needs_mkl
def test_a_few_values_any_layout_same_bits_as_one_by_one():
    """The one-call path (small arrays, any layout: copied contiguous) gives each value the bits
    it gets alone."""
    tanh = _mkl.function("tanh")
    x = np.linspace(-3, 3, 35).reshape(5, 7)
    for a in (x, x.T, x[:, ::2], x.astype(np.float32), np.array(0.25)):
        y = tanh(a)
        assert y.shape == a.shape and y.dtype == a.dtype
        one = np.array([tanh(np.array([v], a.dtype))[0] for v in a.reshape(-1)], a.dtype)
        assert np.array_equal(y.reshape(-1), one)
