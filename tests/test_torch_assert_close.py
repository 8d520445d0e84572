"""torch.testing.assert_close as torch 2.13 compares and words its failures (TM16A).

Found by a CS336-style script (its torch.testing.assert_close failure printed only the header:
gradrepl had no mismatch statistics, no dtype check, no sequences/mappings/numbers/None, and
took only one of rtol/atol). Every expected text below was printed by real torch 2.13.0+cpu here
(/work/vtorch, Intel Xeon Sapphire Rapids); none depends on the CPU (single subtractions and
divisions of exact inputs).
"""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch.testing import assert_close

CASES = [
    ("close f32", lambda: assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]))),
    ("2d", lambda: assert_close(torch.arange(6.).view(2, 3), torch.arange(6.).view(2, 3) + torch.tensor([0., 0., 1e-3]))),
    ("0-d", lambda: assert_close(torch.tensor(1.5), torch.tensor(1.25))),
    ("int eq", lambda: assert_close(torch.tensor([1, 2, 3]), torch.tensor([1, 5, 3]))),
    ("f64", lambda: assert_close(torch.tensor([1.0, 0.0], dtype=torch.float64), torch.tensor([1.0 + 1e-5, 1e-3], dtype=torch.float64))),
    ("zero expected", lambda: assert_close(torch.tensor([1.0, 0.5]), torch.tensor([1.0, 0.0]))),
    ("shape", lambda: assert_close(torch.zeros(2), torch.zeros(3))),
    ("dtype", lambda: assert_close(torch.zeros(2), torch.zeros(2, dtype=torch.float64))),
    ("dtype off", lambda: assert_close(torch.zeros(2), torch.tensor([0.0, 1e-3], dtype=torch.float64), check_dtype=False)),
    ("half", lambda: assert_close(torch.tensor([1.0, 2.0]).half(), torch.tensor([1.0, 2.01]).half())),
    ("bf16", lambda: assert_close(torch.tensor([1.0, 2.0]).bfloat16(), torch.tensor([1.0, 2.1]).bfloat16())),
    ("bf16 ok", lambda: assert_close(torch.tensor([1.0, 2.0]).bfloat16(), torch.tensor([1.0, 2.02]).bfloat16())),
    ("rtol only", lambda: assert_close(torch.zeros(2), torch.zeros(2), rtol=1e-3)),
    ("atol only", lambda: assert_close(torch.zeros(2), torch.zeros(2), atol=1e-3)),
    ("tols given", lambda: assert_close(torch.tensor([1.0]), torch.tensor([1.2]), rtol=0.1, atol=0.01)),
    ("tols zero", lambda: assert_close(torch.tensor([1.0]), torch.tensor([1.2]), rtol=0, atol=0)),
    ("msg str", lambda: assert_close(torch.tensor([1.0]), torch.tensor([2.0]), msg="custom!")),
    ("msg callable", lambda: assert_close(torch.tensor([1.0]), torch.tensor([2.0]), msg=lambda m: "PRE " + m)),
    ("floats", lambda: assert_close(1.0, 1.01)),
    ("ints", lambda: assert_close(3, 4)),
    ("int float", lambda: assert_close(1, 1.0)),
    ("bools", lambda: assert_close(True, False)),
    ("none", lambda: assert_close(None, 1.0)),
    ("none ok", lambda: assert_close(None, None)),
    ("tensor float", lambda: assert_close(torch.tensor(1.0), 1.0)),
    ("tensor ndarray", lambda: assert_close(torch.tensor([1.0]), np.array([1.0]))),
    ("ndarrays", lambda: assert_close(np.array([1.0, 2.0]), np.array([1.0, 3.0]))),
    ("list", lambda: assert_close([torch.zeros(2), torch.ones(2)], [torch.zeros(2), torch.tensor([1.0, 0.0])])),
    ("list len", lambda: assert_close([1, 2], [1, 2, 3])),
    ("dict", lambda: assert_close({"a": torch.zeros(1), "b": torch.ones(1)}, {"a": torch.zeros(1), "b": torch.zeros(1)})),
    ("dict keys", lambda: assert_close({"a": 1, "b": 2}, {"a": 1, "c": 2})),
    ("nested", lambda: assert_close({"w": [1.0, 2.0]}, {"w": [1.0, 2.5]})),
    ("nan", lambda: assert_close(torch.tensor([float("nan")]), torch.tensor([float("nan")]))),
    ("nan ok", lambda: assert_close(torch.tensor([float("nan")]), torch.tensor([float("nan")]), equal_nan=True)),
    ("inf", lambda: assert_close(torch.tensor([float("inf"), 1.0]), torch.tensor([1.0, 1.0]))),
    ("many", lambda: assert_close(torch.linspace(0, 1, 50), torch.linspace(0, 1.001, 50))),
    ("complex", lambda: assert_close(torch.tensor([1 + 1j]), torch.tensor([1 + 2j]))),
    ("bool t", lambda: assert_close(torch.tensor([True, False]), torch.tensor([True, True]))),
    ("grad", lambda: assert_close(torch.ones(2, requires_grad=True) * 2, torch.full((2,), 2.5))),
    ("scalar 0d int", lambda: assert_close(torch.tensor(3), torch.tensor(4))),
]

# recorded: real torch 2.13.0 printed f"{type(e).__name__}: {e}" (or "ok") for each case
RECORDED = {
    'close f32': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.04761900380253792 at index (1,) (up to 1.3e-06 allowed)',
    '2d': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 2 / 6 (33.3%)\nGreatest absolute difference: 0.0009999275207519531 at index (0, 2) (up to 1e-05 allowed)\nGreatest relative difference: 0.000499713933095336 at index (0, 2) (up to 1.3e-06 allowed)',
    '0-d': 'AssertionError: Scalars are not close!\n\nExpected 1.25 but got 1.5.\nAbsolute difference: 0.25 (up to 1e-05 allowed)\nRelative difference: 0.2 (up to 1.3e-06 allowed)',
    'int eq': 'AssertionError: Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\nGreatest absolute difference: 3 at index (1,)\nGreatest relative difference: 0.6000000238418579 at index (1,)',
    'f64': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\nGreatest absolute difference: 0.001 at index (1,) (up to 1e-07 allowed)\nGreatest relative difference: 1.0 at index (1,) (up to 1e-07 allowed)',
    'zero expected': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: inf at index (1,) (up to 1.3e-06 allowed)',
    'shape': "AssertionError: The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3]).",
    'dtype': "AssertionError: The values for attribute 'dtype' do not match: torch.float32 != torch.float64.",
    'dtype off': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.001 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)',
    'half': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.009765625 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.00485992431640625 at index (1,) (up to 0.001 allowed)',
    'bf16': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.09375 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.044677734375 at index (1,) (up to 0.016 allowed)',
    'bf16 ok': 'ok',
    'rtol only': "ValueError: Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.",
    'atol only': "ValueError: Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol.",
    'tols given': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\nGreatest absolute difference: 0.20000004768371582 at index (0,) (up to 0.01 allowed)\nGreatest relative difference: 0.16666670143604279 at index (0,) (up to 0.1 allowed)',
    'tols zero': 'AssertionError: Tensor-likes are not equal!\n\nMismatched elements: 1 / 1 (100.0%)\nGreatest absolute difference: 0.20000004768371582 at index (0,)\nGreatest relative difference: 0.16666670143604279 at index (0,)',
    'msg str': 'AssertionError: custom!',
    'msg callable': 'AssertionError: PRE Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\nGreatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: 0.5 at index (0,) (up to 1.3e-06 allowed)',
    'floats': 'AssertionError: Scalars are not close!\n\nExpected 1.01 but got 1.0.\nAbsolute difference: 0.010000000000000009 (up to 1e-07 allowed)\nRelative difference: 0.00990099009900991 (up to 1e-07 allowed)',
    'ints': 'AssertionError: Scalars are not equal!\n\nExpected 4 but got 3.\nAbsolute difference: 1\nRelative difference: 0.25',
    'int float': "AssertionError: The (d)types do not match: <class 'int'> != <class 'float'>.",
    'bools': 'AssertionError: Booleans mismatch: True is not False',
    'none': 'AssertionError: None mismatch: None is not 1.0',
    'none ok': 'ok',
    'tensor float': "TypeError: No comparison pair was able to handle inputs of type <class 'torch.Tensor'> and <class 'float'>.",
    'tensor ndarray': "TypeError: No comparison pair was able to handle inputs of type <class 'torch.Tensor'> and <class 'numpy.ndarray'>.",
    'ndarrays': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.0 at index (1,) (up to 1e-07 allowed)\nGreatest relative difference: 0.3333333333333333 at index (1,) (up to 1e-07 allowed)',
    'list': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: inf at index (1,) (up to 1.3e-06 allowed)\n\nThe failure occurred for item [1]',
    'list len': 'AssertionError: The length of the sequences mismatch: 2 != 3',
    'dict': "AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\nGreatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: inf at index (0,) (up to 1.3e-06 allowed)\n\nThe failure occurred for item ['b']",
    'dict keys': "AssertionError: The keys of the mappings do not match:\nMissing keys in the actual mapping: ['c']\nAdditional keys in the actual mapping: ['b']",
    'nested': "AssertionError: Scalars are not close!\n\nExpected 2.5 but got 2.0.\nAbsolute difference: 0.5 (up to 1e-07 allowed)\nRelative difference: 0.2 (up to 1e-07 allowed)\n\nThe failure occurred for item ['w'][1]",
    'nan': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\nGreatest absolute difference: nan at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)',
    'nan ok': 'ok',
    'inf': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: inf at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: inf at index (0,) (up to 1.3e-06 allowed)',
    'many': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 49 / 50 (98.0%)\nGreatest absolute difference: 0.001000046730041504 at index (49,) (up to 1e-05 allowed)\nGreatest relative difference: 0.0009991071419790387 at index (7,) (up to 1.3e-06 allowed)',
    'complex': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\nGreatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: 0.4472135901451111 at index (0,) (up to 1.3e-06 allowed)',
    'bool t': 'AssertionError: Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1 at index (1,)\nGreatest relative difference: 1.0 at index (1,)',
    'grad': 'AssertionError: Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\nGreatest absolute difference: 0.5 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (0,) (up to 1.3e-06 allowed)',
    'scalar 0d int': 'AssertionError: Scalars are not equal!\n\nExpected 4 but got 3.\nAbsolute difference: 1\nRelative difference: 0.25',
}


@pytest.mark.parametrize("name, fn", CASES, ids=[c[0] for c in CASES])
def test_assert_close_as_torch(name, fn):
    try:
        fn()
        got = "ok"
    except Exception as e:  # noqa: BLE001 (the type is part of what is compared)
        got = f"{type(e).__name__}: {e}"
    assert got == RECORDED[name]


def test_isclose_checks_as_torch():
    # recorded: RuntimeError texts of torch.isclose/allclose, and bfloat16 compared by value
    with pytest.raises(RuntimeError, match="^Long did not match Float$"):
        torch.isclose(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="^Half did not match Float$"):
        torch.allclose(torch.tensor([1.0]).half(), torch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="^rtol must be greater than or equal to zero, but got -1$"):
        torch.isclose(torch.tensor([1.0]), torch.tensor([1.0]), rtol=-1)
    a = torch.tensor([1.0, 2.0, 3.0]).bfloat16()
    b = torch.tensor([1.0, 2.1, 3.001]).bfloat16()
    assert torch.isclose(a, b, rtol=0.016, atol=1e-5).tolist() == [True, False, True]
    assert not torch.allclose(a, b) and a.allclose(b, rtol=0.1)
