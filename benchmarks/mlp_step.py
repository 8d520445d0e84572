"""A small training loop, side by side: the MLP 784-256-10 on one batch of 256, SGD.

    python benchmarks/mlp_step.py [--steps 55] [--rounds 40] [--burst 15] [--together]
                                  [--paddle-python PY] [--torch-python PY]
                                  [--profile 3] [--gc off]

Every framework starts from the same weights and data (drawn with numpy's seeded generator and
loaded into each) and runs ``loss = cross_entropy(fc2(relu(fc1(x))), y)``, ``loss.backward()``,
``opt.step()``, ``opt.clear_grad()`` (lr 0.1).

1. The check: ``--steps`` steps from the same weights; the first and last losses agree to float32
   rounding across frameworks, so the same training is timed.
2. The timing: each framework runs in its own process, kept alive; gradrepl and one peer take
   turns running ``--burst`` steps each (about 30 ms), the order reversed every other round, for
   ``--rounds`` rounds, then gradrepl and the next peer (``--together``: all of them in one
   rotation). Each burst's median step is one sample. This shared machine's speed drifts by a third
   within seconds, so only bursts a few milliseconds apart are compared: the ratio of gradrepl's
   burst to each peer's in the same round is the paired ratio, and its median over the rounds is
   the number to read. The median step over all bursts is shown too.

The garbage collector stays on unless ``--gc off``, as a user's script runs. No assertions:
numbers to read.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

WORKER = r'''
import gc, json, statistics, sys, time
import numpy as np
fw, profile, gc_mode = sys.argv[1], sys.argv[2], sys.argv[3]
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
    def reset():
        for layer, w, b in ((fc1, W1, B1), (fc2, W2, B2)):
            layer.weight.set_value(w)
            layer.bias.set_value(b)
    x, y = paddle.to_tensor(X), paddle.to_tensor(Y)
    opt = paddle.optimizer.SGD(learning_rate=0.1,
                               parameters=fc1.parameters() + fc2.parameters())
    clear = opt.clear_grad
    value = lambda loss: float(loss.numpy())
else:
    import torch
    threads = torch.get_num_threads()
    nn, F = torch.nn, torch.nn.functional
    fc1, fc2 = nn.Linear(784, 256), nn.Linear(256, 10)
    def reset():
        with torch.no_grad():
            for layer, w, b in ((fc1, W1, B1), (fc2, W2, B2)):
                layer.weight.copy_(torch.from_numpy(w.T.copy()))
                layer.bias.copy_(torch.from_numpy(b))
    x, y = torch.from_numpy(X), torch.from_numpy(Y)
    opt = torch.optim.SGD(list(fc1.parameters()) + list(fc2.parameters()), lr=0.1)
    clear = opt.zero_grad
    value = lambda loss: loss.item()
if gc_mode == "off":
    gc.disable()
reset()
def run(n):
    times, losses = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        loss = F.cross_entropy(fc2(F.relu(fc1(x))), y)
        loss.backward()
        opt.step()
        clear()
        times.append(time.perf_counter() - t0)
        losses.append(loss)
    return times, [value(losses[0]), value(losses[-1])]
print(json.dumps({"ready": fw, "threads": threads}), flush=True)
for line in sys.stdin:
    cmd, n = line.split()
    if cmd == "check":
        reset()
    times, losses = run(int(n))
    print(json.dumps({"ms": statistics.median(times) * 1e3, "first": losses[0],
                      "last": losses[1]}), flush=True)
'''


class Worker:
    """One framework's process, kept alive between bursts."""

    def __init__(self, name, python, args):
        self.name = name
        self.proc = subprocess.Popen(
            [python, "-c", WORKER, name, args.profile, args.gc], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        hello = self._read()
        self.threads = hello["threads"]

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            err = self.proc.stderr.read().strip().splitlines()
            raise RuntimeError(f"{self.name} failed: {err[-1] if err else 'no output'}")
        return json.loads(line)

    def ask(self, cmd, n):
        self.proc.stdin.write(f"{cmd} {n}\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def can_import(python, mod):
    try:
        return subprocess.run([python, "-c", f"import {mod}"], capture_output=True,
                              timeout=300).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=55, help="steps of the loss check")
    ap.add_argument("--rounds", type=int, default=40, help="bursts of each framework, in turns")
    ap.add_argument("--burst", type=int, default=15, help="steps a burst")
    ap.add_argument("--paddle-python", default=sys.executable,
                    help="an interpreter with paddlepaddle ('none' skips it)")
    ap.add_argument("--torch-python", default=sys.executable,
                    help="an interpreter with torch ('none' skips it)")
    ap.add_argument("--profile", default="3", help="the Paddle gradrepl emulates")
    ap.add_argument("--gc", choices=("on", "off"), default="on")
    ap.add_argument("--together", action="store_true",
                    help="all frameworks in one rotation (each burst then follows another "
                         "framework's, whose memory evicts the caches); default: gradrepl "
                         "takes turns with each peer in a rotation of its own")
    args = ap.parse_args(argv)
    names = [("gradrepl", sys.executable)]
    for fw, py, mod in (("paddle", args.paddle_python, "paddle"),
                        ("torch", args.torch_python, "torch")):
        if py == "none" or not can_import(py, mod):
            print(f"({fw}: not importable with {py}; skipped)")
        else:
            names.append((fw, py))
    workers = []
    for fw, py in names:
        try:
            workers.append(Worker(fw, py, args))
        except RuntimeError as exc:
            if fw == "gradrepl":
                print(exc)
                return 1
            print(f"({exc}; skipped)")
    checks = {w.name: w.ask("check", args.steps) for w in workers}
    for w in workers:
        w.ask("run", args.burst)  # warm-up burst
    # gradrepl's bursts beside each peer's: {peer: (gradrepl's, the peer's)}
    groups = [workers] if args.together else [[workers[0], w] for w in workers[1:]]
    paired, bursts = {}, {w.name: [] for w in workers}
    for group in groups or [workers]:
        mine = {w.name: [] for w in group}
        for r in range(args.rounds):
            for w in (group if r % 2 == 0 else group[::-1]):
                mine[w.name].append(w.ask("run", args.burst)["ms"])
        for name, ms in mine.items():
            bursts[name] += ms
            if name != "gradrepl":
                paired[name] = (mine["gradrepl"], ms)
    for w in workers:
        w.close()
    how = "all frameworks in one rotation" if args.together else "gradrepl and each peer"
    print(f"MLP 784-256-10, batch 256, SGD lr 0.1 (garbage collector {args.gc}); gradrepl "
          f"emulating Paddle {args.profile}. Loss check: {args.steps} steps from the same "
          f"weights. Timing: {args.rounds} rounds of {args.burst}-step bursts in turns "
          f"({how}); milliseconds a step")
    print(f"{'framework':<14}{'median ms':>10}{'paired ratio':>14}{'ratio IQR':>16}"
          f"{'first loss':>12}{'last loss':>11}")
    for w in workers:
        name = w.name + (f" ({w.threads}t)" if w.threads else "")
        ms = statistics.median(bursts[w.name])
        if w.name == "gradrepl":
            ratio, iqr = "1.00", ""
        else:
            ratios = sorted(g / p for g, p in zip(*paired[w.name]))
            q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
            ratio, iqr = f"{statistics.median(ratios):.2f}", f"{q[0]:.2f}-{q[2]:.2f}"
        c = checks[w.name]
        print(f"{name:<14}{ms:>10.2f}{ratio:>14}{iqr:>16}{c['first']:>12.5f}{c['last']:>11.5f}")
    print("paired ratio = gradrepl's burst / the framework's burst in the same round, median over "
          "rounds (below 1: gradrepl is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
