"""Per-op overhead of the torch dialect: the chain of ``op_overhead.py`` through gradrepl.torch,
beside real torch (and gradrepl's Paddle dialect on the same engine, for reference).

    python benchmarks/torch_dialect_overhead.py [--n 20000] [--reps 3] [--torch-python PY]

The chain is ``x = torch.tanh(x * 1.0001 + 0.5)`` on a shape-[1] tensor that requires grad,
repeated ``n`` times (three ops a step), then one ``backward()``. Each runs in its own interpreter
(real torch in the given Python, e.g. ``/tmp/torchvenv/bin/python``), best of ``reps``; the table
prints microseconds per op and the torch dialect's ratio to each. No assertions.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKER = r'''
import json, sys, time, gc
fw, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if fw == "gradrepl.torch":
    import gradrepl.torch as lib
    from gradrepl.engine.ops._util import quiet_fp
    quiet_fp().__enter__()  # as `gradrepl run` does for a whole script
    def leaf(): return lib.tensor([1.0], requires_grad=True)
elif fw == "gradrepl.paddle":
    import gradrepl.paddle as lib
    from gradrepl.engine.ops._util import quiet_fp
    quiet_fp().__enter__()
    lib.profiles.set_profile("3")
    def leaf(): return lib.to_tensor([1.0], stop_gradient=False)
else:
    import torch as lib
    lib.set_num_threads(1)
    def leaf(): return lib.tensor([1.0], requires_grad=True)
tanh = lib.tanh
best_f = best_b = float("inf")
for _ in range(reps):
    x0 = leaf()
    x = x0
    gc.collect(); gc.disable()
    t0 = time.perf_counter()
    for _ in range(n):
        x = tanh(x * 1.0001 + 0.5)
    t1 = time.perf_counter()
    x.backward()
    t2 = time.perf_counter()
    gc.enable()
    best_f = min(best_f, t1 - t0); best_b = min(best_b, t2 - t1)
    del x, x0
ops = 3 * n
print(json.dumps({"fw": fw, "forward_us": best_f / ops * 1e6, "backward_us": best_b / ops * 1e6}))
'''


def run(python, fw, n, reps):
    env = dict(os.environ)
    if fw.startswith("gradrepl"):
        env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    try:
        out = subprocess.run([python, "-c", WORKER, fw, str(n), str(reps)], capture_output=True,
                             text=True, timeout=900, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(out.stdout.strip().splitlines()[-1]), None


def can_import(python, mod):
    try:
        return subprocess.run([python, "-c", f"import {mod}"], capture_output=True,
                              timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def table(rows, n, reps):
    base = rows[0]
    lines = [f"chain of {3 * n} ops on shape-[1] tensors (tanh(x * 1.0001 + 0.5)), best of {reps}",
             f"{'framework':<16} {'forward us/op':>14} {'backward us/op':>15} {'fwd ratio':>10} "
             f"{'bwd ratio':>10}"]
    for r in rows:
        fr = base["forward_us"] / r["forward_us"]
        br = base["backward_us"] / r["backward_us"]
        lines.append(f"{r['fw']:<16} {r['forward_us']:>14.2f} {r['backward_us']:>15.2f} "
                     f"{fr:>10.2f} {br:>10.2f}")
    lines.append("ratio = gradrepl.torch time / that framework's time (below 1: gradrepl.torch "
                 "is faster)")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="chain steps (3 ops each)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--torch-python", default=sys.executable,
                    help="a Python with real torch (e.g. /tmp/torchvenv/bin/python); 'none' "
                         "to skip")
    ap.add_argument("--no-paddle-dialect", action="store_true",
                    help="leave out gradrepl's Paddle dialect (the reference row)")
    args = ap.parse_args(argv)
    rows = []
    res, err = run(sys.executable, "gradrepl.torch", args.n, args.reps)
    if res is None:
        print("gradrepl.torch failed:", err)
        return 1
    rows.append(res)
    if not args.no_paddle_dialect:
        res, err = run(sys.executable, "gradrepl.paddle", args.n, args.reps)
        if res is not None:
            rows.append(res)
        else:
            print(f"(gradrepl.paddle failed: {err})")
    if args.torch_python != "none":
        if can_import(args.torch_python, "torch") and args.torch_python != sys.executable \
                or can_import(args.torch_python, "torch.autograd"):
            r, err = run(args.torch_python, "torch", args.n, args.reps)
            if r is None:
                print(f"(torch failed: {err})")
            else:
                rows.append(r)
        else:
            print(f"(torch: not importable with {args.torch_python}; skipped)")
    print(table(rows, args.n, args.reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
