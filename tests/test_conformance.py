"""Byte-for-byte conformance with real Paddle's printed output.

``tests/data/conformance`` is a copy of ``shared/conformance``: small Paddle scripts (``cases/``)
and exactly what Paddle 3.3.1 and 2.6.2 printed for each (``expected/<version>/``). Every
(case, version) pair is one test: the script runs in this process (fast: no interpreter start),
under the matching profile, with gradrepl state reset first, and its stdout must equal the
recorded bytes. A case that raises fails with its traceback beside the output diff.

A few cases also go through the command line (``python -m gradrepl run --paddle 3 CASE``) in a
subprocess, to check the whole path a user takes.
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


DATA = Path(__file__).parent / "data" / "conformance"
CASES = DATA / "cases"
EXPECTED = DATA / "expected"
REPO = Path(__file__).resolve().parents[1]

# recorded Paddle version -> gradrepl profile key
VERSIONS = {"3.3.1": "3", "2.6.2": "2.6"}


def case_names():
    return sorted(p.stem for p in CASES.glob("*.py"))


def case_params():
    """(case, version) for every case that has a recorded output for that version."""
    params = []
    for name in case_names():
        for version in VERSIONS:
            if (EXPECTED / version / f"{name}.out").exists():
                params.append(pytest.param(name, version, id=f"{name}-{version}"))
    return params


def expected_output(name: str, version: str) -> str:
    return (EXPECTED / version / f"{name}.out").read_bytes().decode("utf-8")


def run_in_process(path: Path, profile: str):
    """Run one case script as ``gradrepl run`` would; return (stdout text, traceback or None)."""
    out, error = run_captured(str(path), profile)
    if error is not None:  # a crashing case is a failing case, shown with its traceback
        error = "".join(traceback.format_exception(error))
    return out, error


def describe_mismatch(expected: str, got: str, error) -> str:
    diff = difflib.unified_diff(expected.splitlines(keepends=True), got.splitlines(keepends=True),
                                "expected (real Paddle)", "got (gradrepl)")
    text = "".join(list(diff)[:80])
    if not text and expected != got:
        text = f"outputs differ only in line endings/whitespace: {expected!r} vs {got!r}"
    if error:
        text += "\n--- the script raised:\n" + error
    return text


@pytest.mark.parametrize("name,version", case_params())
def test_case_output(name, version):
    """The case prints exactly what real Paddle ``version`` printed."""
    expected = expected_output(name, version)
    got, error = run_in_process(CASES / f"{name}.py", VERSIONS[version])
    if got != expected or error:
        pytest.fail(f"{name} under --paddle {VERSIONS[version]} differs from Paddle {version}:\n"
                    + describe_mismatch(expected, got, error), pytrace=False)


def test_every_case_has_an_expected_output():
    """The copied data is complete: each case was recorded on at least one version."""
    names = case_names()
    assert names, f"no cases found in {CASES}"
    missing = [n for n in names
               if not any((EXPECTED / v / f"{n}.out").exists() for v in VERSIONS)]
    assert not missing, f"cases without any recorded output: {missing}"


# A couple of cases through the real command line: the import hook, the --paddle flag, stdout.
CLI_CASES = [("002_scalar_float", "3.3.1"), ("040_broadcast_row_vector", "3.3.1"),
             ("019_str_repr_format", "2.6.2")]


@pytest.mark.parametrize("name,version", [pytest.param(n, v, id=f"{n}-{v}") for n, v in CLI_CASES])
def test_case_through_cli(name, version):
    """``python -m gradrepl run --paddle X CASE`` prints Paddle's bytes on stdout."""
    env = dict(os.environ)
    env.pop("GRADREPL_PADDLE", None)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "gradrepl", "run", "--paddle", VERSIONS[version],
         str(CASES / f"{name}.py")],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    expected = (EXPECTED / version / f"{name}.out").read_bytes()
    if proc.stdout != expected:
        pytest.fail(describe_mismatch(expected.decode(), proc.stdout.decode("utf-8", "replace"),
                                      proc.stderr.decode("utf-8", "replace") or None),
                    pytrace=False)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
