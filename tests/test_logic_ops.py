"""Comparisons, logical and bitwise ops, float tests and closeness, against Paddle's behaviour.

Results are bool tensors that stop gradient; comparisons promote like arithmetic (a python float
against an int tensor compares in float32; in 3.x a bool tensor against a python int compares in
int64); ``paddle.equal``-style functions reject mismatched dtypes in 2.x. The probe
``tests/data/elementwise/probes/logic.py`` (run by ``test_math_ops.py``) checks more combinations
against Paddle's printed output.
"""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.engine.registry import OPS
from gradrepl.engine.ops import logic as L

from conftest import reset_gradrepl_state


def t(v, dtype=None, **kw):
    return paddle.to_tensor(v, dtype=dtype, **kw)


@pytest.fixture(params=["3", "2.6"])
def profile(request):
    reset_gradrepl_state(request.param)
    return request.param


def test_comparisons_are_bool_and_stop_gradient(profile):
    b = t([2.0], stop_gradient=False)
    for r in (b > 1, b >= 2, b < 1, b <= 2, b == 2, b != 2):
        assert str(r.dtype) == "paddle.bool" and r.stop_gradient is True
    assert (b > 1).tolist() == [True]


def test_comparison_values(profile):
    x = t([1.0, 2.0, 3.0])
    y = t([3.0, 2.0, 1.0])
    assert paddle.equal(x, y).tolist() == [False, True, False]
    assert paddle.not_equal(x, y).tolist() == [True, False, True]
    assert paddle.less_than(x, y).tolist() == [True, False, False]
    assert paddle.less_equal(x, y).tolist() == [True, True, False]
    assert paddle.greater_than(x, y).tolist() == [False, False, True]
    assert paddle.greater_equal(x, y).tolist() == [False, True, True]
    assert (x > t(2.0)).tolist() == [False, False, True]  # 0-D broadcasts


def test_python_float_compares_in_float(profile):
    assert (t([3, 4]) < 3.5).tolist() == [True, False]
    assert (t([3, 4]) == 3.0).tolist() == [True, False]


def test_bool_tensor_against_python_int_per_version():
    reset_gradrepl_state("3")
    assert (t([True, False]) == 2).tolist() == [False, False]  # True -> 1 (int64) != 2
    reset_gradrepl_state("2.6")
    assert (t([True, False]) == 2).tolist() == [True, False]  # 2 -> True (bool)


def test_comparison_functions_reject_mixed_dtypes_in_2x():
    reset_gradrepl_state("2.6")
    with pytest.raises(ValueError, match="does not match"):
        paddle.equal(t([1, 2]), t([1.0, 2.0]))
    assert (t([1, 2]) == t([1.0, 2.5])).tolist() == [True, True]  # operator: cast to int64
    reset_gradrepl_state("3")
    with pytest.raises(TypeError, match="promotion"):
        paddle.equal(t([1, 2]), t([1.0, 2.0]))


def test_logical_ops(profile):
    a = t([True, True, False, False])
    b = t([True, False, True, False])
    assert paddle.logical_and(a, b).tolist() == [True, False, False, False]
    assert paddle.logical_or(a, b).tolist() == [True, True, True, False]
    assert paddle.logical_xor(a, b).tolist() == [False, True, True, False]
    assert paddle.logical_not(a).tolist() == [False, False, True, True]
    assert paddle.logical_not(t([1.5, 0.0])).tolist() == [False, True]  # nonzero is True
    with pytest.raises(ValueError, match="must be Tensor"):
        paddle.logical_or(a, True)


def test_bitwise_ops_and_operators(profile):
    x, y = t([5, 3]), t([2, 6])
    assert (x & y).tolist() == [0, 2] and (x | y).tolist() == [7, 7]
    assert (x ^ y).tolist() == [7, 5] and (~x).tolist() == [-6, -4]
    assert (~t([True, False])).tolist() == [False, True]
    assert (~t([5, 3], "uint8")).tolist() == [250, 252]
    with pytest.raises(ValueError, match="does not match"):
        paddle.bitwise_and(x, t([3, 1], "int32"))
    with pytest.raises(RuntimeError, match="NotFound"):
        paddle.bitwise_not(t([1.0]))
    with pytest.raises(ValueError, match="must be Tensor"):
        x & 1


def test_reflected_bitwise_per_version():
    reset_gradrepl_state("3")
    assert (True & t([True, False])).tolist() == [True, False]
    reset_gradrepl_state("2.6")
    with pytest.raises(TypeError, match="unsupported operand"):
        True & t([True, False])  # noqa: B018 - the operator is under test


def test_float_tests(profile):
    x = t([1.0, float("nan"), float("inf"), -float("inf")])
    assert paddle.isnan(x).tolist() == [False, True, False, False]
    assert paddle.isinf(x).tolist() == [False, False, True, True]
    assert paddle.isfinite(x).tolist() == [True, False, False, False]
    assert paddle.isnan(t([1, 2])).tolist() == [False, False]
    with pytest.raises(RuntimeError, match="NotFound"):
        paddle.isnan(t([True]))


def test_isclose_allclose_equal_all(profile):
    a, b = t([1.0, 2.0]), t([1.0000001, 2.1])
    assert paddle.isclose(a, b).tolist() == [True, False]
    r = paddle.allclose(a, t([1.0000001, 2.0]))
    assert r.item() is True and r.shape == [] and r.stop_gradient
    nan = t([1.0, float("nan")])
    assert paddle.allclose(nan, nan).item() is False
    assert paddle.allclose(nan, nan, equal_nan=True).item() is True
    assert paddle.equal_all(t([1, 2]), t([1, 2])).item() is True
    assert paddle.equal_all(t([1, 2]), t([1, 2, 3])).item() is False
    with pytest.raises(ValueError, match="does not match"):
        paddle.equal_all(t([1.0]), t([1]))


def test_2_2_profile_gives_shape_1_results():
    reset_gradrepl_state("2.2")
    assert paddle.allclose(t([1.0]), t([1.0])).shape == [1]


def test_registry_entries_have_no_gradient():
    for name in list(L.COMPARISONS) + list(L.BINARY) + list(L.UNARY) + ["isclose"]:
        assert OPS[name].vjp is None and OPS[name].check is False


def test_comparison_inside_a_graph_stops_there():
    reset_gradrepl_state("3")
    x = t([1.0, -2.0], stop_gradient=False)
    mask = (x > 0).astype("float32")
    y = (x * mask).sum()
    y.backward()
    assert x.grad.tolist() == [1.0, 0.0]


def test_where_masks_are_numpy_bool():
    reset_gradrepl_state("3")
    assert t([1.0]).__eq__(t([1.0])).data.dtype == np.bool_
