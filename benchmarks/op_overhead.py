"""Per-op overhead: a chain of 20,000 small ops on shape-[1] tensors, forward then backward.

    python benchmarks/op_overhead.py [--n 20000] [--paddle-python PY] [--torch-python PY]

The chain is ``x = tanh(x * 1.0001 + 0.5)`` repeated (three ops a step). Each framework runs in
its own interpreter (gradrepl here; Paddle and torch in whatever Python has them: this one if it
can import them, or the ones given), best of several repeats, and the table prints microseconds
per op and gradrepl's ratio to each peer. The garbage collector stays on, as in a user's script
(``--gc off`` turns it off around the timed loops, ``--gc both`` shows both, labelled). No
assertions: numbers to read, side by side.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

from _turns import best_in_turns

WORKER = r'''
import json, sys, time, gc
fw, n, reps, gc_on = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[5] == "on"
if fw == "gradrepl":
    import gradrepl.paddle as lib
    from gradrepl.engine.ops._util import quiet_fp
    quiet_fp().__enter__()  # as `gradrepl run` does for a whole script
    lib.profiles.set_profile(sys.argv[4])  # emulate the Paddle we compare with
    def leaf(): return lib.to_tensor([1.0], stop_gradient=False)
    tanh = lib.tanh
    def backward(y): y.backward()
elif fw == "paddle":
    import paddle as lib
    def leaf(): return lib.to_tensor([1.0], stop_gradient=False)
    tanh = lib.tanh
    def backward(y): y.backward()
else:
    import torch as lib
    lib.set_num_threads(1)
    def leaf(): return lib.tensor([1.0], requires_grad=True)
    tanh = lib.tanh
    def backward(y): y.backward()
best_f = best_b = float("inf")
for _ in range(reps):
    x0 = leaf()
    x = x0
    gc.collect()
    if not gc_on:
        gc.disable()
    t0 = time.perf_counter()
    for _ in range(n):
        x = tanh(x * 1.0001 + 0.5)
    t1 = time.perf_counter()
    backward(x)
    t2 = time.perf_counter()
    gc.enable()
    best_f = min(best_f, t1 - t0); best_b = min(best_b, t2 - t1)
    del x, x0
ops = 3 * n
print(json.dumps({"fw": fw, "forward_us": best_f / ops * 1e6, "backward_us": best_b / ops * 1e6}))
'''


def run(python, fw, n, reps, profile="3", gc_mode="on"):
    try:
        out = subprocess.run([python, "-c", WORKER, fw, str(n), str(reps), profile, gc_mode],
                             capture_output=True,
                             text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(out.stdout.strip().splitlines()[-1]), None


def can_import(python, mod):
    return subprocess.run([python, "-c", f"import {mod}"], capture_output=True).returncode == 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="chain steps (3 ops each)")
    ap.add_argument("--reps", type=int, default=3, help="repeats inside each run")
    ap.add_argument("--rounds", type=int, default=3,
                    help="runs of each framework, taking turns; the best of all is shown")
    ap.add_argument("--paddle-python", default=sys.executable)
    ap.add_argument("--torch-python", default=sys.executable)
    ap.add_argument("--profile", default="3",
                    help="gradrepl's emulated Paddle (3: like the Paddle 3.3.1 peer; 2.2 also "
                         "keeps every non-leaf gradient, which costs a copy per node)")
    ap.add_argument("--gc", choices=("on", "off", "both"), default="on",
                    help="the garbage collector during the timed loops (default on, as users run)")
    args = ap.parse_args(argv)
    modes = ("on", "off") if args.gc == "both" else (args.gc,)
    peers = []
    for fw, py, mod in (("paddle", args.paddle_python, "paddle"), ("torch", args.torch_python, "torch")):
        if py == "none" or not can_import(py, mod):
            print(f"({fw}: not importable with {py}; skipped)")
        else:
            peers.append((fw, py))
    print(f"chain of {3 * args.n} ops on shape-[1] tensors, best of {args.reps} x "
          f"{args.rounds} rounds taken in turns; "
          f"gradrepl emulating Paddle {args.profile}")
    print(f"{'framework':<18} {'forward us/op':>14} {'backward us/op':>15} {'fwd ratio':>10} {'bwd ratio':>10}")
    for mode in modes:
        try:
            best = best_in_turns(
                [("gradrepl", sys.executable)] + peers, args.rounds,
                lambda py, fw: run(py, fw, args.n, args.reps, args.profile, mode),
                lambda old, new: {"fw": old["fw"],
                                  "forward_us": min(old["forward_us"], new["forward_us"]),
                                  "backward_us": min(old["backward_us"], new["backward_us"])})
        except RuntimeError as exc:
            print(exc)
            return 1
        base = best["gradrepl"]
        for fw in ["gradrepl"] + [fw for fw, _ in peers]:
            r = best.get(fw)
            if r is None:
                continue
            fr = base["forward_us"] / r["forward_us"]
            br = base["backward_us"] / r["backward_us"]
            name = f"{r['fw']} (gc {mode})"
            print(f"{name:<18} {r['forward_us']:>14.2f} {r['backward_us']:>15.2f} {fr:>10.2f} {br:>10.2f}")
    print("ratio = gradrepl time / framework time (below 1: gradrepl is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
