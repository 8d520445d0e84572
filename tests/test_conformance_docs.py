"""Paddle's own API docstring examples, printed as real Paddle prints them.

``tests/data/conformance_docs`` is a copy of ``shared/conformance-docs``: one script per ``>>>``
code block of Paddle 3.3.1's public docstrings (REPL semantics: an expression statement prints
its repr), with what Paddle 3.3.1 and 2.6.2 printed (``expected/<version>/``). Not every case
passes yet; ``passing.txt`` lists the (case, version) pairs that do, and each of them is a test
here, so a regression fails. The cases run in this process under the matching profile with a
fresh ``paddle.state`` (``runner.run_captured``), as ``tests/test_conformance.py`` runs its own.

After making more cases pass, record them (the listed ones must keep passing):

    python tests/test_conformance_docs.py --update

``--report`` prints the failing ones with their first differing line.
"""
from __future__ import annotations

import difflib
import platform
import sys
import traceback
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "conformance_docs"
CASES = DATA / "cases"
EXPECTED = DATA / "expected"
PASSING = DATA / "passing.txt"
VERSIONS = {"3.3.1": "3", "2.6.2": "2.6"}
# recorded on x86-64; on aarch64 (run under qemu-user, issue 28) a last printed digit is this
# machine's C library's or BLAS's: a difference there is skipped with the reason
X86_ONLY = {"0307_ops_atan": "glibc's atanf rounds atan(-0.4) another way",
            "0253_linalg_matrix_power": "OpenBLAS's inverse leaves a float64 8. inexact"}
X86 = platform.machine().lower() in ("x86_64", "amd64")
# their last digits are real Paddle's reference LAPACK's (gradrepl/paddle/_ref_lapack.py, the
# ``exact`` extra's cmeel-lapack): where that backend cannot load, numpy's LAPACK prints others
REF_LAPACK = {"0233_linalg_matrix_norm", "0250_linalg_svdvals", "0266_linalg_eigvalsh"}


def all_pairs():
    """Every (case, version) with a recorded output for that version."""
    pairs = []
    for case in sorted(p.stem for p in CASES.glob("*.py")):
        for version in VERSIONS:
            if (EXPECTED / version / f"{case}.out").exists():
                pairs.append((case, version))
    return pairs


def passing_pairs():
    if not PASSING.exists():
        return []
    out = []
    for line in PASSING.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            case, version = line.split()
            out.append((case, version))
    return out


def run_case(case: str, version: str):
    """(expected, got, traceback text or None) of one case under the version's profile."""
    from gradrepl.runner import run_captured

    expected = (EXPECTED / version / f"{case}.out").read_bytes().decode("utf-8")
    got, error = run_captured(str(CASES / f"{case}.py"), VERSIONS[version])
    err = "".join(traceback.format_exception(error)) if error is not None else None
    return expected, got, err


@pytest.mark.parametrize("case,version",
                         [pytest.param(c, v, id=f"{c}-{v}") for c, v in passing_pairs()])
def test_docstring_example(case, version):
    expected, got, err = run_case(case, version)
    if got != expected and not err and not X86 and case in X86_ONLY:
        pytest.skip(f"{case}: recorded on x86-64; on {platform.machine()} {X86_ONLY[case]}")
    if got != expected and not err and case in REF_LAPACK:
        from gradrepl.paddle import _ref_lapack

        if not _ref_lapack.available():
            pytest.skip(f"{case}: needs Paddle's reference LAPACK ({_ref_lapack.why()})")
    if got != expected or err:
        diff = "".join(list(difflib.unified_diff(
            expected.splitlines(keepends=True), got.splitlines(keepends=True),
            "expected (real Paddle)", "got (gradrepl)"))[:60])
        pytest.fail(f"{case} under Paddle {version} no longer matches:\n{diff}"
                    + (f"\n--- raised:\n{err}" if err else ""), pytrace=False)


def test_passing_list_is_known_cases():
    """Every listed pair is a recorded case (a renamed case must be re-recorded)."""
    known = set(all_pairs())
    unknown = [p for p in passing_pairs() if p not in known]
    assert not unknown, f"passing.txt lists cases without a recorded output: {unknown[:5]}"


def _score():
    results = {}
    for case, version in all_pairs():
        expected, got, err = run_case(case, version)
        results[(case, version)] = (got == expected and err is None, expected, got, err)
    return results


def _first_difference(expected, got, err):
    el, gl = expected.splitlines(), got.splitlines()
    i = 0
    while i < min(len(el), len(gl)) and el[i] == gl[i]:
        i += 1
    msg = (f"line {i + 1}: expected {el[i] if i < len(el) else None!r} "
           f"got {gl[i] if i < len(gl) else None!r}")
    if err:
        msg += " | " + err.strip().splitlines()[-1][:120]
    return msg


def main(argv):
    results = _score()
    ok = sorted(k for k, v in results.items() if v[0])
    for version in VERSIONS:
        n = sum(1 for (c, v) in results if v == version)
        p = sum(1 for (c, v) in ok if v == version)
        print(f"Paddle {version}: {p} of {n} pass")
    listed = set(passing_pairs())
    lost = sorted(listed - set(ok))
    if lost:
        print("no longer passing:", " ".join(f"{c}/{v}" for c, v in lost))
    if "--report" in argv:
        for key, (good, expected, got, err) in sorted(results.items()):
            if not good:
                print(f"FAIL {key[0]} [{key[1]}]: {_first_difference(expected, got, err)}")
    if "--update" in argv:
        lines = ["# (case, Paddle version) pairs of conformance_docs that pass: each is a test",
                 "# (tests/test_conformance_docs.py); regenerate with that file's --update"]
        lines += [f"{c} {v}" for c, v in ok]
        PASSING.write_text("\n".join(lines) + "\n")
        print(f"wrote {PASSING} ({len(ok)} pairs)")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main(sys.argv[1:]))
