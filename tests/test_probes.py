"""Probe scripts (autograd API, printing options, in-place versions, clip, tril/triu, misc API)
against what real Paddle printed for them, byte for byte, per version."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

from gradrepl.runner import run_captured

PROBES = pathlib.Path(__file__).resolve().parent / "data" / "probes"
CASES = [(p.stem, v) for p in sorted(PROBES.glob("*.py"))
         for v in ("3.3.1", "2.6.2") if (PROBES / f"{p.stem}.{v}.out").exists()]
PROFILE = {"3.3.1": "3", "2.6.2": "2.6"}


# paddle.to_tensor([1.5, -2, 0], dtype='uint8') casts with numpy's astype (real Paddle's
# creation.py too), and a negative float to uint8 is the CPU's conversion: x86-64 wraps -2. to
# 254 (the records), aarch64 saturates to 0 (numpy under qemu; real Paddle there calls the same
# numpy). Where this machine's numpy saturates, the record's line is what Paddle prints for it.
with np.errstate(invalid="ignore"):    # (numpy warns where it saturates)
    NUMPY_WRAPS = int(np.array([-2.0]).astype(np.uint8)[0]) == 254
CAST_LINES = {"to_tensor_print": ("       [1  , 254, 0  ])", "       [1, 0, 0])")}


@pytest.mark.parametrize("name,version", CASES)
def test_probe_prints_what_paddle_printed(name, version, monkeypatch):
    if version == "2.6.2":   # (recorded on numpy 1.26: float() of a [1] tensor converted)
        monkeypatch.setenv("GRADREPL_PADDLE_NUMPY", "1")
    out, error = run_captured(str(PROBES / f"{name}.py"), PROFILE[version])
    assert error is None, repr(error)
    expected = (PROBES / f"{name}.{version}.out").read_text(encoding="utf-8")
    if name in CAST_LINES and not NUMPY_WRAPS:
        wraps, saturates = CAST_LINES[name]
        assert expected.count(wraps + "\n") == 1
        print(f"{name}: numpy here casts -2. to uint8 as 0 (x86-64: 254); that line compared so")
        expected = expected.replace(wraps + "\n", saturates + "\n")
    assert out == expected


def test_probes_exist():
    assert len(CASES) >= 10
