#!/usr/bin/env python
"""Run a folder of scripts with a real framework and with gradrepl, and compare what they print.

Every ``*.py`` in the folder runs (each in a fresh temporary working directory, with
``MPLBACKEND=Agg``, a timeout, and optionally without network) once or twice with the real
framework's Python (``--python``), and once with ``python -m gradrepl run [--paddle X]``. A case
is equal when stdout bytes and exit status agree. When two real runs print different bytes the
case is marked ``random`` and only the lines the two real runs share are compared (plus the exit
status). For each other case the table shows the first differing stdout line (real / gradrepl)
and the last line of gradrepl's traceback.

    python tools/tutorials.py SCRIPTS_DIR --python /opt/venvs/paddle3/bin/python --paddle 3
    python tools/tutorials.py SCRIPTS_DIR --python /opt/venvs/torch/bin/python       # torch
    ... --repeat 1 (no random check)  -j 2  --timeout 120  --no-network  --markdown  --keep DIR

Exit status: 0 when every case is equal, 1 otherwise. This is a developer tool, not part of the
test suite: the real framework is never a dependency of gradrepl.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

#: stderr lines that are noise, not errors (Paddle's ccache notice on import)
NOISE = re.compile(r"ccache|warnings\.warn\(warning_message\)")


@dataclass
class Run:
    rc: int
    out: bytes
    err: str
    seconds: float


@dataclass
class Row:
    case: str
    real: Run
    ours: Run
    random: bool = False
    equal: bool = False
    first_diff: tuple | None = None          # (line number, real line, gradrepl line)
    error: str = ""                          # gradrepl's last traceback line
    notes: list = field(default_factory=list)


def run_one(argv, script, timeout, no_network) -> Run:
    """Run ``argv + [script]`` in a fresh temporary directory; capture stdout and stderr."""
    work = tempfile.mkdtemp(prefix="tutorials_")
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    prefix = ["unshare", "-n"] if no_network else []
    start = time.time()
    try:
        p = subprocess.run(prefix + argv + [os.path.abspath(script)], cwd=work, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 124, e.stdout or b"", (e.stderr or b"") + b"\n[timeout]\n"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    err_text = "\n".join(l for l in err.decode("utf-8", "replace").splitlines()
                         if not NOISE.search(l))
    return Run(rc, out, err_text, time.time() - start)


def last_error(err: str) -> str:
    """The exception line of the last traceback in ``err`` (else its last line)."""
    if "Traceback (most recent call last)" in err:
        tail = err[err.rindex("Traceback (most recent call last)"):].splitlines()[1:]
        for line in tail:
            if line.strip() and not line.startswith(" "):
                return line.strip()
    lines = [l for l in err.splitlines() if l.strip()]
    return lines[-1].strip() if lines else ""


def stable_lines(first: list, second: list) -> set | None:
    """Indices of lines that two real runs printed alike (None: every line is stable).
    Runs of different length are stable only up to their first difference."""
    if first == second:
        return None
    if len(first) == len(second):
        return {i for i, (a, b) in enumerate(zip(first, second)) if a == b}
    cut = next(i for i, (a, b) in enumerate(zip(first + [None], second + [None])) if a != b)
    return set(range(cut))


def first_difference(real: list, ours: list, keep: set | None):
    """(1-based line, real line, gradrepl line) of the first difference on the kept lines."""
    last = max(len(real), len(ours))
    for i in range(last):
        if keep is not None and i not in keep:
            continue
        a = real[i] if i < len(real) else "<end of output>"
        b = ours[i] if i < len(ours) else "<end of output>"
        if a != b:
            return i + 1, a, b
    return None


def compare(case: str, reals: list, ours: Run) -> Row:
    """One table row: equal when the exit status and the (stable) stdout lines agree."""
    split = [r.out.decode("utf-8", "replace").split("\n") for r in reals]
    keep = stable_lines(split[0], split[1]) if len(split) > 1 else None
    row = Row(case, reals[0], ours, random=keep is not None)
    mine = ours.out.decode("utf-8", "replace").split("\n")
    row.first_diff = first_difference(split[0], mine, keep)
    row.equal = row.first_diff is None and reals[0].rc == ours.rc
    if ours.rc != 0:
        row.error = "timeout" if ours.rc == 124 else last_error(ours.err)
    return row


def evaluate(script, real_argv, ours_argv, args) -> Row:
    reals = [run_one(real_argv, script, args.timeout, args.no_network)
             for _ in range(args.repeat)]
    ours = run_one(ours_argv, script, args.timeout, args.no_network)
    if args.keep:
        base = os.path.join(args.keep, os.path.basename(script)[:-3])
        for tag, r in [("real", reals[0]), ("gradrepl", ours)]:
            with open(f"{base}.{tag}.out", "wb") as f:
                f.write(r.out)
            with open(f"{base}.{tag}.err", "w") as f:
                f.write(r.err)
    return compare(os.path.basename(script)[:-3], reals, ours)


def cell(text: str, width: int) -> str:
    text = text.replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= width else text[:width - 3] + "..."


def table(rows: list, markdown: bool) -> str:
    head = ["case", "real", "gradrepl", "equal", "random", "seconds", "first difference / error"]
    body = []
    for r in rows:
        what = []
        if r.first_diff:
            n, a, b = r.first_diff
            what.append(f"line {n}: real {cell(a, 60)!r} / gradrepl {cell(b, 60)!r}")
        if r.error and r.error != last_error(r.real.err):
            what.append("gradrepl: " + cell(r.error, 120))
        body.append([r.case, str(r.real.rc), str(r.ours.rc), "yes" if r.equal else "no",
                     "random" if r.random else "", f"{r.real.seconds:.1f}/{r.ours.seconds:.1f}",
                     "; ".join(what)])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(lines + ["| " + " | ".join(b) + " |" for b in body])
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head) - 1)]
    fmt = "  ".join(f"{{:{w}}}" for w in widths) + "  {}"
    return "\n".join(fmt.format(*x) for x in [head] + body)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="a folder of .py scripts (one tutorial each)")
    ap.add_argument("--python", required=True, help="the real framework's Python")
    ap.add_argument("--paddle", help="gradrepl's Paddle profile (2.2, 2.6, 3); omit for torch")
    ap.add_argument("--gradrepl", default=f"{sys.executable} -m gradrepl run",
                    help="command that runs a script with gradrepl")
    ap.add_argument("--repeat", type=int, default=2, choices=(1, 2),
                    help="real runs per script: 2 tells random output apart (default)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run (120)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="scripts at once (at most 2)")
    ap.add_argument("--no-network", action="store_true", help="run under `unshare -n` (root)")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    ap.add_argument("--keep", metavar="DIR", help="keep every output under DIR")
    args = ap.parse_args(argv)
    scripts = sorted(os.path.join(args.folder, f) for f in os.listdir(args.folder)
                     if f.endswith(".py"))
    if not scripts:
        ap.error(f"no .py scripts in {args.folder}")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    ours = args.gradrepl.split() + (["--paddle", args.paddle] if args.paddle else [])
    with cf.ThreadPoolExecutor(max(1, min(args.jobs, 2))) as pool:
        rows = list(pool.map(lambda s: evaluate(s, [args.python], ours, args), scripts))
    print(table(rows, args.markdown))
    equal = sum(r.equal for r in rows)
    print(f"\n{len(rows)} scripts: real ran to the end {sum(r.real.rc == 0 for r in rows)}, "
          f"gradrepl {sum(r.ours.rc == 0 for r in rows)}, equal {equal} "
          f"({sum(r.random for r in rows)} random)")
    return 0 if equal == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
