"""Instructions a lecture-loop step costs, counted by valgrind's callgrind: a measure that a busy
shared machine does not move (wall and CPU times there drift by a third within seconds).

    python benchmarks/lecture_instructions.py [--loops char_mlp,bn_mlp] [--steps 20]
                                              [--tree DIR ...]

Each loop of ``lecture_loops.py`` (the same source text) runs under ``valgrind --tool=callgrind``
with instrumentation off while gradrepl is imported and the loop warms up (10 steps); it is
switched on (``callgrind_control -i on``) for ``--steps`` steps and off again, so the count is
the steps' alone (the switch itself adds ~0.5 M). Two more loops count the per-op chain of
``op_overhead.py`` (``tanh(x * 1.0001 + 0.5)`` on a shape-[1] tensor, 2,001 ops forward, then
``backward()``, collector on): ``chain_torch`` (the torch dialect) and ``chain_paddle`` (the
Paddle 3 dialect); their line adds thousands of instructions an op. ``--tree DIR`` (repeatable) counts gradrepl
imported from another source tree as well (e.g. ``git archive`` of an older commit unpacked in
DIR), for a before/after of a change. Needs valgrind; about a minute a loop and tree. Prints
millions of instructions a step; no assertions.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHAIN = 2001  # ops of the per-op chain (as in CHILD)

CHILD = r'''
import os, subprocess, sys
CHAIN = 2001
tree, here, loop, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if tree:
    sys.path.insert(0, tree)
sys.path.insert(0, here)
import lecture_loops
from gradrepl.importhook import torch_modules
from gradrepl.engine.ops._util import quiet_fp
_mapped, _quiet = torch_modules(), quiet_fp()
_mapped.__enter__()
_quiet.__enter__()
if loop.startswith("chain_"):  # the per-op chain of op_overhead.py: 2,000 ops, gc on
    if loop == "chain_paddle":
        _mapped.__exit__(None, None, None)
        import gradrepl.paddle as lib
        lib.profiles.set_profile("3")
        leaf = lambda: lib.to_tensor([1.0], stop_gradient=False)
    else:
        import torch as lib
        leaf = lambda: lib.tensor([1.0], requires_grad=True)
    def step(tanh=lib.tanh):
        x = leaf()
        for _ in range(CHAIN // 3):
            x = tanh(x * 1.0001 + 0.5)
        x.backward()
else:
    import torch
    env = {}
    exec(lecture_loops.BODY, env)
    step, _params = env[loop]()
for _ in range(10):
    step()
pid = str(os.getpid())
subprocess.run(["callgrind_control", "-i", "on", pid], capture_output=True)
for _ in range(steps):
    step()
subprocess.run(["callgrind_control", "-i", "off", pid], capture_output=True)
os._exit(0)
'''


def count(loop, steps, tree=""):
    """Instructions of ``steps`` steps of ``loop`` (gradrepl from ``tree``, '' for this one)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        res = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
             sys.executable, "-c", CHILD, tree, HERE, loop, str(steps)],
            capture_output=True, text=True, cwd=tree or None)
    m = re.search(r"Collected : (\d+)", res.stderr)
    if m is None:
        raise RuntimeError(f"callgrind gave no count for {loop}: {res.stderr.strip()[-300:]}")
    return int(m.group(1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loops", default="char_mlp,bn_mlp")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--tree", action="append", default=[],
                    help="also count gradrepl imported from this source tree (repeatable)")
    args = ap.parse_args(argv)
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        print("valgrind (callgrind) is not installed: nothing to count")
        return 0
    trees = [""] + [os.path.abspath(t) for t in args.tree]
    print(f"{'loop':<12}{'gradrepl from':<40}{'M instructions a step':>24}")
    for loop in [x.strip() for x in args.loops.split(",") if x.strip()]:
        for tree in trees:
            n = count(loop, args.steps, tree)
            per_op = (f"   ({n / args.steps / CHAIN / 1e3:.2f} k an op, forward and backward)"
                      if loop.startswith("chain_") else "")
            print(f"{loop:<12}{tree or 'this tree':<40}{n / args.steps / 1e6:>24.2f}{per_op}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
