"""bfloat16 as Paddle's CPU build has it: uint16 bits, float32 printing, the version's rounding
(nearest even in 3.3.1, truncation in 2.6.2), the few kernels it has and NotFound for the rest,
gradients. Every expected outcome was recorded from real Paddle 3.3.1 and 2.6.2 with
tests/data/bfloat16/record.py over the cases in tests/data/bfloat16/cases.py."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import bf16, profiles, state

DATA = Path(__file__).parent / "data" / "bfloat16"
_spec = importlib.util.spec_from_file_location("bf16_cases", DATA / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)

VERSIONS = {"3": "3.3.1", "2.6": "2.6.2"}


def _expected(version):
    return json.loads((DATA / f"expected_{version}.json").read_text())


@pytest.mark.parametrize("profile", sorted(VERSIONS))
def test_cases_match_real_paddle(profile):
    state.reset(profile)
    expected = _expected(VERSIONS[profile])
    env = cases.setup(paddle)
    wrong = []
    for case in cases.CASES:
        got = cases.run_case(paddle, case, env)
        if got != expected[case]:
            wrong.append(f"{case}\n  real:     {expected[case]}\n  gradrepl: {got}")
    assert not wrong, f"{len(wrong)} of {len(cases.CASES)} differ:\n" + "\n".join(wrong)


def test_rounding_per_version():
    vals = np.array([1.00390625, 1.01171875, -1.01171875, 3.4e38, np.nan], np.float32)
    state.reset("3")
    assert bf16.from_float(vals).tolist() == [16256, 16258, 49026, 32640, 0x7FFF]
    state.reset("2.6")
    assert bf16.from_float(vals).tolist() == [16256, 16257, 49025, 32639, 0x7FC0]
    assert bf16.to_float32(np.array([16256, 49168], np.uint16)).tolist() == [1.0, -2.25]


def test_profile_field():
    assert profiles.resolve("3").bf16_rounding == "nearest_even"
    assert profiles.resolve("2.6").bf16_rounding == "truncate"
