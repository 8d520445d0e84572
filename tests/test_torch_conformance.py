"""Byte-for-byte conformance of the torch dialect with real PyTorch 2.13's printed output.

``tests/data/conformance_torch`` is a copy of ``shared/conformance-torch``: small PyTorch
autograd scripts (``cases/``) and exactly what torch 2.13.0 (CPU) printed for each
(``expected/2.13.0/``). Every case is one test: the script runs in this process (``import torch``
served by ``gradrepl.torch``), with the dialect's state reset first, and its stdout must equal the
recorded bytes. A case that raises fails with its traceback beside the output diff.

Two cases also go through the command line (``python -m gradrepl run CASE``), as the scorer
(``score.sh "gradrepl run" 2.13.0``) runs them.
"""
from __future__ import annotations

import difflib
import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from gradrepl.runner import run_captured
from gradrepl.torch import state as torch_state

DATA = Path(__file__).parent / "data" / "conformance_torch"
CASES = DATA / "cases"
EXPECTED = DATA / "expected" / "2.13.0"
REPO = Path(__file__).resolve().parents[1]


def case_names():
    return sorted(p.stem for p in CASES.glob("*.py"))


def describe_mismatch(expected: str, got: str, error) -> str:
    diff = difflib.unified_diff(expected.splitlines(keepends=True), got.splitlines(keepends=True),
                                "expected (real torch 2.13)", "got (gradrepl)")
    text = "".join(list(diff)[:80])
    if not text and expected != got:
        text = f"outputs differ only in line endings/whitespace: {expected!r} vs {got!r}"
    if error:
        text += "\n--- the script raised:\n" + error
    return text


@pytest.fixture(autouse=True)
def _fresh_torch_state():
    torch_state.reset()
    yield
    torch_state.reset()


@pytest.mark.parametrize("name", case_names())
def test_case_output(name):
    """The case prints exactly what real torch 2.13 printed."""
    expected = (EXPECTED / f"{name}.out").read_bytes().decode("utf-8")
    got, error = run_captured(str(CASES / f"{name}.py"), None)
    if error is not None:
        error = "".join(traceback.format_exception(error))
    if got != expected or error:
        pytest.fail(f"{name} differs from torch 2.13:\n" + describe_mismatch(expected, got, error),
                    pytrace=False)


def test_every_case_has_an_expected_output():
    names = case_names()
    assert len(names) >= 54, f"cases missing from {CASES}"
    missing = [n for n in names if not (EXPECTED / f"{n}.out").exists()]
    assert not missing, f"cases without a recorded output: {missing}"


def test_the_manifest_lists_every_case():
    rows = (DATA / "manifest.tsv").read_text(encoding="utf-8").splitlines()[1:]
    listed = {r.split("\t")[0] for r in rows if r.strip()}
    assert listed == set(case_names())


@pytest.mark.parametrize("name", ["002_seed_ex2_grad_fn_is_leaf", "062_err_version_counter"])
def test_case_through_cli(name):
    """``python -m gradrepl run CASE`` prints torch's bytes on stdout (the scorer's path)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(CASES / f"{name}.py")],
                          cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=120)
    expected = (EXPECTED / f"{name}.out").read_bytes()
    if proc.stdout != expected:
        pytest.fail(describe_mismatch(expected.decode(), proc.stdout.decode("utf-8", "replace"),
                                      proc.stderr.decode("utf-8", "replace") or None),
                    pytrace=False)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
