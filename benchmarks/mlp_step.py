"""A small training loop, side by side: the MLP 784-256-10 on one batch of 256, SGD, 55 steps.

    python benchmarks/mlp_step.py [--steps 55] [--paddle-python PY] [--torch-python PY]
                                  [--profile 3] [--gc off]

Every framework starts from the same weights and data (drawn with numpy's seeded generator and
loaded into each), runs ``loss = cross_entropy(fc2(relu(fc1(x))), y)``, ``loss.backward()``,
``opt.step()``, ``opt.clear_grad()`` for ``--steps`` steps (lr 0.1), ``--repeat`` times from the
same weights, and reports the lowest median step in milliseconds (this shared machine is noisy), its first and last loss (which agree to float32 rounding across frameworks: a
check that the same training was timed) and gradrepl's ratio. The garbage collector stays on
unless ``--gc off``, as a user's script runs. No assertions: numbers to read.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

import statistics

from _turns import best_in_turns, paired_ratios

WORKER = r'''
import gc, json, statistics, sys, time
import numpy as np
fw, steps, profile, gc_mode, repeat = (sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4],
                                       int(sys.argv[5]))
rng = np.random.default_rng(0)
X = rng.standard_normal((256, 784)).astype(np.float32)
Y = rng.integers(0, 10, 256).astype(np.int64)
W1 = (rng.standard_normal((784, 256)) * 0.05).astype(np.float32)
B1 = np.zeros(256, np.float32)
W2 = (rng.standard_normal((256, 10)) * 0.05).astype(np.float32)
B2 = np.zeros(10, np.float32)
threads = None
if fw in ("gradrepl", "paddle"):
    if fw == "gradrepl":
        import gradrepl.paddle as paddle
        from gradrepl.engine.ops._util import quiet_fp
        quiet_fp().__enter__()  # as `gradrepl run` does for a whole script
        paddle.profiles.set_profile(profile)
    else:
        import paddle
    nn, F = paddle.nn, paddle.nn.functional
    fc1, fc2 = nn.Linear(784, 256), nn.Linear(256, 10)
    for layer, w, b in ((fc1, W1, B1), (fc2, W2, B2)):
        layer.weight.set_value(w)
        layer.bias.set_value(b)
    x, y = paddle.to_tensor(X), paddle.to_tensor(Y)
    opt = paddle.optimizer.SGD(learning_rate=0.1,
                               parameters=fc1.parameters() + fc2.parameters())
    def forward():
        return F.cross_entropy(fc2(F.relu(fc1(x))), y)
    clear = opt.clear_grad
else:
    import torch
    threads = torch.get_num_threads()
    nn, F = torch.nn, torch.nn.functional
    fc1, fc2 = nn.Linear(784, 256), nn.Linear(256, 10)
    with torch.no_grad():
        for layer, w, b in ((fc1, W1, B1), (fc2, W2, B2)):
            layer.weight.copy_(torch.from_numpy(w.T.copy()))
            layer.bias.copy_(torch.from_numpy(b))
    x, y = torch.from_numpy(X), torch.from_numpy(Y)
    opt = torch.optim.SGD(list(fc1.parameters()) + list(fc2.parameters()), lr=0.1)
    def forward():
        return F.cross_entropy(fc2(F.relu(fc1(x))), y)
    clear = opt.zero_grad
if gc_mode == "off":
    gc.disable()
best = None
for r in range(repeat):
    if r:  # the same training again from the same weights
        if fw == "torch":
            with torch.no_grad():
                for layer, w, b in ((fc1, W1, B1), (fc2, W2, B2)):
                    layer.weight.copy_(torch.from_numpy(w.T.copy()))
                    layer.bias.copy_(torch.from_numpy(b))
        else:
            for layer, w, b in ((fc1, W1, B1), (fc2, W2, B2)):
                layer.weight.set_value(w)
                layer.bias.set_value(b)
    times, losses = [], []
    for i in range(steps):
        t0 = time.perf_counter()
        loss = forward()
        loss.backward()
        opt.step()
        clear()
        times.append(time.perf_counter() - t0)
        losses.append(float(loss.numpy() if fw != "torch" else loss.item()))
    ms = statistics.median(times[5:]) * 1e3
    if best is None or ms < best[0]:
        best = (ms, losses[0], losses[-1])
print(json.dumps({"fw": fw, "threads": threads, "ms": best[0], "first": best[1],
                  "last": best[2]}))
'''


def run(python, fw, args):
    try:
        out = subprocess.run([python, "-c", WORKER, fw, str(args.steps), args.profile, args.gc,
                              str(args.repeat)],
                             capture_output=True, text=True, timeout=1200)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(out.stdout.strip().splitlines()[-1]), None


def can_import(python, mod):
    try:
        return subprocess.run([python, "-c", f"import {mod}"], capture_output=True,
                              timeout=300).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=55)
    ap.add_argument("--paddle-python", default=sys.executable,
                    help="an interpreter with paddlepaddle ('none' skips it)")
    ap.add_argument("--torch-python", default=sys.executable,
                    help="an interpreter with torch ('none' skips it)")
    ap.add_argument("--profile", default="3", help="the Paddle gradrepl emulates")
    ap.add_argument("--gc", choices=("on", "off"), default="on")
    ap.add_argument("--repeat", type=int, default=3,
                    help="run the whole training this many times, keep the fastest median")
    ap.add_argument("--rounds", type=int, default=4,
                    help="runs of each framework, taking turns; the fastest is shown")
    args = ap.parse_args(argv)
    frameworks = [("gradrepl", sys.executable)]
    for fw, py, mod in (("paddle", args.paddle_python, "paddle"),
                        ("torch", args.torch_python, "torch")):
        if py == "none" or not can_import(py, mod):
            print(f"({fw}: not importable with {py}; skipped)")
        else:
            frameworks.append((fw, py))
    per_round = []
    try:
        best = best_in_turns(frameworks, args.rounds, lambda py, fw: run(py, fw, args),
                             lambda old, new: new if new["ms"] < old["ms"] else old, per_round)
    except RuntimeError as exc:
        print(exc)
        return 1
    rows = [best[fw] for fw, _ in frameworks if fw in best]
    base = rows[0]
    print(f"MLP 784-256-10, batch 256, SGD lr 0.1, {args.steps} steps from the same weights "
          f"(garbage collector {args.gc}); median step after 5, best of {args.repeat} runs x "
          f"{args.rounds} rounds in turns, "
          f"milliseconds; gradrepl "
          f"emulating Paddle {args.profile}")
    print(f"{'framework':<14}{'step ms':>10}{'ratio':>8}{'first loss':>13}{'last loss':>12}")
    for r in rows:
        name = r["fw"] + (f" ({r['threads']}t)" if r.get("threads") else "")
        print(f"{name:<14}{r['ms']:>10.2f}{base['ms'] / r['ms']:>8.2f}"
              f"{r['first']:>13.5f}{r['last']:>12.5f}")
    print("ratio = gradrepl step time / framework step time (below 1: gradrepl is faster)")
    for name, ratios in paired_ratios(per_round, "ms").items():
        print(f"{name}: ratio within each round (runs seconds apart): median "
              f"{statistics.median(ratios):.2f}, all {' '.join(f'{r:.2f}' for r in ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
