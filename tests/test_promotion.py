"""Paddle's type promotion for binary operators and functions, per version.

``tests/data/elementwise/promotion_matrix.py`` measures every operator and four functions over
every pair of operands (tensor / 0-D tensor of 9 dtypes, python bool/int/float; left and right):
5400 combinations. ``promotion_<version>.json.gz`` is what Paddle 3.3.1 and 2.6.2 gave (dtype,
values, shape, or the exception type). gradrepl must give the same for all of them. The rules themselves live in ``gradrepl/paddle/promotion.py``
(no table of cases); the small tests below state them one by one.
"""
from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import promotion

from conftest import reset_gradrepl_state

DATA = Path(__file__).parent / "data" / "elementwise"
VERSIONS = {"3.3.1": "3", "2.6.2": "2.6"}

KNOWN = {}  # every combination matches (float16 scale: conversions toward zero, as Paddle's)


def load_matrix_module():
    spec = importlib.util.spec_from_file_location("promotion_matrix",
                                                  DATA / "promotion_matrix.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("version", list(VERSIONS))
def test_full_matrix_matches_paddle(version):
    expected = json.loads(gzip.open(DATA / f"promotion_{version}.json.gz").read())
    reset_gradrepl_state(VERSIONS[version])
    got = load_matrix_module().measure(paddle)
    assert set(got) == set(expected)
    wrong = {k: (expected[k], got[k]) for k in expected
             if got[k] != expected[k] and k not in KNOWN.get(version, ())}
    assert not wrong, f"{len(wrong)} combinations differ, e.g. {list(wrong.items())[:5]}"


# ---------------------------------------------------------------- the rules, one by one
def t(v, dtype=None):
    return paddle.to_tensor(v, dtype=dtype)


def dt(x):
    return str(x.dtype).replace("paddle.", "")


def test_true_plus_one():
    reset_gradrepl_state("3")
    r = t(True) + 1
    assert dt(r) == "int64" and r.item() == 2
    reset_gradrepl_state("2.6")
    r = t(True) + 1
    assert dt(r) == "bool" and r.item() is True


def test_int_tensor_times_0d_float():
    reset_gradrepl_state("3")
    assert (t([1, 2]) * t(2.5)).tolist() == [2.5, 5.0]
    reset_gradrepl_state("2.6")
    r = t([1, 2]) * t(2.5)  # the right operand is cast to the left one's dtype
    assert dt(r) == "int64" and r.tolist() == [2, 4]
    assert dt(t(2.5) * t([1, 2])) == "float32"


def test_int_true_division_is_float32():
    for profile in ("3", "2.6"):
        reset_gradrepl_state(profile)
        r = t([3, 4]) / t([2, 2])
        assert dt(r) == "float32" and r.tolist() == [1.5, 2.0]
        assert dt(t([3, 4]) / 2) == "float32"


def test_int_tensor_pow_float_scalar():
    reset_gradrepl_state("3")
    r = t([2, 3]) ** 0.5
    assert dt(r) == "float32"


def test_3x_rejects_mixed_kinds_with_promotion_in_the_message():
    reset_gradrepl_state("3")
    with pytest.raises(TypeError, match="promotion"):
        t([1.0]) + t([1], "int32")
    with pytest.raises(TypeError, match="promotion"):
        t([1], "int32") + t([1], "int64")
    with pytest.raises(TypeError, match="promotion"):
        t([3.0]) ** t([2])


def test_2x_takes_the_left_dtype():
    reset_gradrepl_state("2.6")
    assert dt(t([1, 2], "int32") + t([10, 20], "int64")) == "int32"
    assert dt(t([1.5], "float32") + t([1], "int32")) == "float32"


def test_two_floats_widen():
    for profile in ("3", "2.6"):
        reset_gradrepl_state(profile)
        assert dt(t([1.0], "float32") + t([1.0], "float64")) == "float64"


def test_0d_float_does_not_widen_a_float_tensor_in_3x():
    reset_gradrepl_state("3")
    assert dt(t([1.0], "float32") + t(1.0, "float64")) == "float32"
    assert dt(t(1.0, "float32") + t(1.0, "float64")) == "float64"  # two 0-D: the wider


def test_two_0d_ints_promote_by_width_in_3x():
    reset_gradrepl_state("3")
    assert dt(t(1, "int8") + t(1, "uint8")) == "int16"


def test_floor_divide_0d_promotes_as_a_tensor_in_3x():
    reset_gradrepl_state("3")
    assert dt(t([5, 6], "int8") // t(2, "int16")) == "int16"


def test_python_float_lifts_int_tensors():
    for profile in ("3", "2.6"):
        reset_gradrepl_state(profile)
        assert dt(t([1, 2], "int32") * 1.5) == "float32"


def test_missing_kernels_raise_not_found():
    reset_gradrepl_state("2.6")
    with pytest.raises(RuntimeError, match="NotFound"):
        t([1, 2], "int8") + t([1, 2], "int8")
    reset_gradrepl_state("3")
    assert dt(t([1, 2], "int8") + t([1, 2], "int8")) == "int8"


def test_2x_functions_do_not_promote():
    reset_gradrepl_state("2.6")
    with pytest.raises(ValueError, match="does not match"):
        paddle.add(t([1], "int32"), t([1.0]))
    assert dt(paddle.add(t([1.0], "float32"), t([1.0], "float64"))) == "float64"
    assert paddle.divide(t([7]), t([2])).tolist() == [3]  # integer division, no cast


def test_0d_with_python_scalar_gives_shape_1_where_paddle_does():
    reset_gradrepl_state("3")
    assert (t(7) // 2).shape == [1]
    assert (t(7) + 2).shape == []
    reset_gradrepl_state("2.6")
    assert (t(7) == True).shape == [1]  # noqa: E712 - the operator is under test
    assert (t(7) // 2).shape == []


def test_rule_functions_directly():
    reset_gradrepl_state("3")
    f32, f64, i64 = np.dtype("float32"), np.dtype("float64"), np.dtype("int64")
    assert promotion.common_dtype("add", i64, f32, False, True) == (f32, f32)
    assert promotion.with_scalar(np.dtype(bool), "i") == i64
    assert promotion.true_divide_dtype(np.dtype(bool)) == np.dtype(bool)
    reset_gradrepl_state("2.6")
    assert promotion.common_dtype("divide", f32, f64, False, False) == (f32, f32)
    assert promotion.common_dtype("add", f32, f64, False, False) == (f64, f64)
    assert promotion.with_scalar(np.dtype(bool), "i") == np.dtype(bool)
