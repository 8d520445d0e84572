"""Time to the shell's first prompt, beside the imports it avoids paying up front.

    python benchmarks/startup.py [--runs 5] [--paddle-python PY] [--gradrepl CMD]

- ``gradrepl: first prompt``: spawn ``gradrepl`` in a pseudo-terminal (pexpect) and wait for
  ``>>> `` (drawn before prompt_toolkit is imported; what is typed from then on is kept);
- ``gradrepl: keys echoed``: from the spawn until ``zzz``, typed right at the first prompt, is
  shown (prompt_toolkit running);
- ``gradrepl: first result``: from the spawn until ``import paddle`` then
  ``paddle.to_tensor(1.)`` has echoed (gradrepl.paddle is imported in the background once the
  prompt shows, so this is the prompt's time plus whatever of that import is left);
- ``python -c "import numpy"``, ``python -c "import gradrepl.paddle"`` and, when the
  interpreter given by ``--paddle-python`` (default: this one) can import it, ``python -c
  "import paddle"`` (real Paddle), for scale; ``python -c pass`` is the interpreter alone.

Medians of ``--runs`` (wall clock, seconds). Numbers to read, no assertions. The history file
goes to a temporary ``XDG_STATE_HOME``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


PYCACHE = {"dir": None}  # set by main: where compiled bytecode goes (None: as the env says)


def _env(state_dir=None):
    env = dict(os.environ)
    env.update(TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
    if state_dir is not None:
        env["XDG_STATE_HOME"] = state_dir
    env.pop("NO_COLOR", None)
    env.pop("GRADREPL_PADDLE", None)
    if PYCACHE["dir"] is not None:
        # bytecode cached as after an install (PYTHONDONTWRITEBYTECODE would compile every
        # module at every start), in a scratch directory rather than the source tree
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE["dir"]
    return env


def gradrepl_command():
    """The ``gradrepl`` console script beside this interpreter, else ``python -m gradrepl``."""
    here = os.path.join(os.path.dirname(sys.executable), "gradrepl")
    if os.path.exists(here):
        return [here]
    found = shutil.which("gradrepl")
    return [found] if found else [sys.executable, "-m", "gradrepl"]


def time_prompt(cmd, runs, state_dir, first_result=False, live=False, timeout=60):
    import pexpect

    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        child = pexpect.spawn(cmd[0], cmd[1:], env=_env(state_dir), dimensions=(40, 200),
                              encoding="utf-8", timeout=timeout)
        try:
            child.expect_exact(">>> ")
            if live:  # typed at once, echoed once prompt_toolkit reads the keys
                child.send("zzz")
                child.expect_exact("zzz")
                times.append(time.perf_counter() - t0)
                child.sendcontrol("c")
                child.expect_exact(">>> ")
            if first_result:
                child.send("import paddle\r")
                child.send("paddle.to_tensor(1.)\r")
                child.expect_exact("[1.])")
            if not live:
                times.append(time.perf_counter() - t0)
            if first_result:
                child.expect_exact(">>> ")  # Ctrl-D to the prompt, not to the running input
            child.sendcontrol("d")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    return times


def time_command(argv, runs, timeout=120):
    """Wall-clock times of ``argv`` (None when it fails: e.g. paddle not importable)."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=timeout, env=_env())
        if r.returncode != 0:
            return None
        times.append(time.perf_counter() - t0)
    return times


def _fmt(times):
    if times is None:
        return "not importable"
    if isinstance(times, str):
        return times
    return (f"{statistics.median(times):.3f} s  (min {min(times):.3f}, "
            f"max {max(times):.3f})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--paddle-python", default=sys.executable,
                    help="an interpreter with real paddle installed ('none' to skip)")
    ap.add_argument("--gradrepl", default=None,
                    help="the command that starts the shell (default: the gradrepl script)")
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="leave PYTHONDONTWRITEBYTECODE as it is (default: bytecode cached in a "
                    "scratch PYTHONPYCACHEPREFIX, as after an install)")
    a = ap.parse_args(argv)
    cmd = a.gradrepl.split() if a.gradrepl else gradrepl_command()
    rows = []
    with tempfile.TemporaryDirectory() as state, tempfile.TemporaryDirectory() as pycache:
        if not a.no_bytecode_cache:
            PYCACHE["dir"] = pycache
        # unmeasured starts: the bytecode and the disk cache as at a user's second start
        time_prompt(cmd, 1, state, first_result=True)
        for warm in (["-c", "import numpy"], ["-c", "import gradrepl.paddle"]):
            time_command([sys.executable, *warm], 1)
        rows += _measure(cmd, a, state)
        PYCACHE["dir"] = None
    width = max(len(r[0]) for r in rows)
    cache = "as the environment says" if a.no_bytecode_cache else "cached"
    print(f"startup, median of {a.runs} runs (wall clock; bytecode {cache})")
    for label, times in rows:
        print(f"  {label.ljust(width)}  {_fmt(times)}")
    return 0


def _measure(cmd, a, state):
    name = " ".join(os.path.basename(c) for c in cmd)
    rows = [(f"gradrepl: first prompt ({name})", time_prompt(cmd, a.runs, state)),
            ("gradrepl: keys echoed (prompt_toolkit running)",
             time_prompt(cmd, a.runs, state, live=True)),
            ("gradrepl: first result (import paddle; paddle.to_tensor(1.))",
             time_prompt(cmd, a.runs, state, first_result=True))]
    py = sys.executable
    rows.append(('python -c pass', time_command([py, "-c", "pass"], a.runs)))
    rows.append(('python -c "import numpy"', time_command([py, "-c", "import numpy"], a.runs)))
    rows.append(('python -c "import gradrepl.paddle"',
                 time_command([py, "-c", "import gradrepl.paddle"], a.runs)))
    if a.paddle_python.lower() == "none":
        rows.append(('python -c "import paddle" (real Paddle)', "not asked for"))
    else:
        pp = a.paddle_python
        probe = subprocess.run([pp, "-c", "import paddle, sys; "
                                "sys.stdout.write(paddle.__version__)"],
                               capture_output=True, text=True, timeout=300, env=_env()) \
            if os.path.exists(pp) or shutil.which(pp) else None
        if probe is None or probe.returncode != 0:
            rows.append((f'{pp} -c "import paddle"', None))
        else:
            rows.append((f'python -c "import paddle" (Paddle {probe.stdout.strip()}, {pp})',
                         time_command([pp, "-c", "import paddle"], a.runs, timeout=300)))
    return rows


if __name__ == "__main__":
    sys.exit(main())
