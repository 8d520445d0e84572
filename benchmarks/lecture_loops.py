"""Lecture training loops, side by side: the steps students copy from torch lectures, under real
torch and under gradrepl's torch dialect, in turns.

    python benchmarks/lecture_loops.py [--loops char_mlp,bn_mlp,small_cnn,vmap_grads]
                                       [--steps 20] [--rounds 15] [--burst 10] [--load]
                                       [--torch-python PY] [--gc off]

The loops (the worker's code below, the same text for both frameworks):

- ``char_mlp``: a character-level MLP step as lectures teach it: ``C[X[ix]]`` with ``C`` of 27x10,
  ``tanh(emb.view(-1, 30) @ W1 + b1)`` with 200 hidden units, ``F.cross_entropy``, ``backward()``,
  ``p.data += -0.1 * p.grad``; batch 32 drawn by ``torch.randint`` with a ``Generator``;
- ``bn_mlp``: the same with a hand-written batch norm (mean, std, gain and bias, running stats
  updated under ``no_grad``);
- ``small_cnn``: two ``Conv2d`` + ``ReLU`` + ``MaxPool2d`` blocks and a ``Linear`` on 16 images of
  28x28, ``optim.SGD``;
- ``vmap_grads``: per-sample gradients of a 20-64-5 MLP with ``torch.func.vmap(grad(...))`` over a
  batch of 32, then a plain update.

1. The check: each framework runs ``--steps`` steps from the same seed; the last loss (as hex) and
   a hash of every parameter's bytes are printed, so one sees whether gradrepl computed torch's bits.
2. The timing: each framework runs in its own process, kept alive; they take turns running
   ``--burst`` steps (order reversed every other round) for ``--rounds`` rounds; each burst's
   median step is one sample. The paired ratio is gradrepl's burst over torch's burst of the same
   round, its median over the rounds the number to read (as ``mlp_step.py``). Beside it, the
   process's CPU time a step (all threads): on a saturated machine the wall time says mostly how
   the scheduler shared the cores out (a thread that never sleeps gets its fair share; one that
   waits on OpenMP's barriers many times a step is woken ahead of the others), the CPU time what
   the step cost.

``--load`` starts a second CPU-bound process (a Python busy loop) for the whole timing, as a
student's machine running something else; it is stopped at the end. gradrepl runs with
``import torch`` mapped to ``gradrepl.torch`` and numpy's warnings off, as ``gradrepl run`` does.
``--before DIR`` adds a third worker, gradrepl imported from another source tree, in the same
turns, so that a change is measured against the code before it under the same conditions.
No assertions: numbers to read.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

LOOPS = ("char_mlp", "bn_mlp", "small_cnn", "vmap_grads")

BODY = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F


def char_mlp():
    g = torch.Generator().manual_seed(2147483647)
    C = torch.randn((27, 10), generator=g)
    W1 = torch.randn((30, 200), generator=g) * 0.2
    b1 = torch.randn(200, generator=g) * 0.01
    W2 = torch.randn((200, 27), generator=g) * 0.01
    b2 = torch.randn(27, generator=g) * 0
    params = [C, W1, b1, W2, b2]
    for p in params:
        p.requires_grad = True
    X = torch.randint(0, 27, (1000, 3), generator=g)
    Y = torch.randint(0, 27, (1000,), generator=g)

    def step():
        ix = torch.randint(0, X.shape[0], (32,), generator=g)
        emb = C[X[ix]]
        h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Y[ix])
        for p in params:
            p.grad = None
        loss.backward()
        for p in params:
            p.data += -0.1 * p.grad
        return loss
    return step, params


def bn_mlp():
    g = torch.Generator().manual_seed(2147483647)
    C = torch.randn((27, 10), generator=g)
    W1 = torch.randn((30, 200), generator=g) * (5 / 3) / 30 ** 0.5
    W2 = torch.randn((200, 27), generator=g) * 0.01
    b2 = torch.randn(27, generator=g) * 0
    bngain = torch.ones((1, 200))
    bnbias = torch.zeros((1, 200))
    bnmean_running = torch.zeros((1, 200))
    bnstd_running = torch.ones((1, 200))
    params = [C, W1, W2, b2, bngain, bnbias]
    for p in params:
        p.requires_grad = True
    X = torch.randint(0, 27, (1000, 3), generator=g)
    Y = torch.randint(0, 27, (1000,), generator=g)

    def step():
        ix = torch.randint(0, X.shape[0], (32,), generator=g)
        emb = C[X[ix]]
        hpreact = emb.view(emb.shape[0], -1) @ W1
        bnmeani = hpreact.mean(0, keepdim=True)
        bnstdi = hpreact.std(0, keepdim=True)
        hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
        with torch.no_grad():
            bnmean_running.mul_(0.999).add_(0.001 * bnmeani)
            bnstd_running.mul_(0.999).add_(0.001 * bnstdi)
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Y[ix])
        for p in params:
            p.grad = None
        loss.backward()
        for p in params:
            p.data += -0.1 * p.grad
        return loss
    return step, params + [bnmean_running, bnstd_running]


def small_cnn():
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 7 * 7, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = torch.randn(16, 1, 28, 28)
    y = torch.randint(0, 10, (16,))

    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step, list(model.parameters())


def vmap_grads():
    from torch.func import functional_call, grad, vmap
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 64), nn.Tanh(), nn.Linear(64, 5))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = torch.randn(32, 20)
    y = torch.randint(0, 5, (32,))

    def loss_fn(p, xi, yi):
        out = functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(out, yi.unsqueeze(0))

    per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))

    def step():
        grads = per_sample(params, x, y)
        with torch.no_grad():
            for k in params:
                params[k] = params[k] - 0.1 * grads[k].mean(0)
        return loss_fn(params, x[0], y[0])
    return step, lambda: list(params.values())
'''

WORKER = r'''
import gc, hashlib, json, statistics, sys, time
fw, loop, gc_mode = sys.argv[1], sys.argv[2], sys.argv[3]
if len(sys.argv) > 4:  # --before: that tree first (ahead of the working directory's '' entry)
    sys.path.insert(0, sys.argv[4])
if fw.startswith("gradrepl"):
    from gradrepl.importhook import torch_modules
    from gradrepl.engine.ops._util import quiet_fp
    _mapped, _quiet = torch_modules(), quiet_fp()  # (kept: entered for the whole run)
    _mapped.__enter__()
    _quiet.__enter__()  # as `gradrepl run` does for a whole script
import torch
exec(BODY)
if gc_mode == "off":
    gc.disable()
step, params = globals()[loop]()
def run(n):
    times, cpu = [], []
    for _ in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        loss = step()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return times, cpu, loss
def digest():
    h = hashlib.sha256()
    for p in (params() if callable(params) else params):
        h.update(p.detach().numpy().tobytes())
    return h.hexdigest()[:16]
print(json.dumps({"ready": fw, "threads": torch.get_num_threads(),
                  "from": getattr(sys.modules.get("gradrepl"), "__file__", None)}), flush=True)
for line in sys.stdin:
    cmd, n = line.split()
    if cmd == "check":
        step, params = globals()[loop]()
        times, cpu, loss = run(int(n))
        print(json.dumps({"loss": float(loss.item()).hex(), "hash": digest()}), flush=True)
    else:
        times, cpu, loss = run(int(n))
        print(json.dumps({"ms": statistics.median(times) * 1e3,
                          "cpu": statistics.median(cpu) * 1e3}), flush=True)
'''


class Worker:
    """One framework's process running one loop, kept alive between bursts."""

    def __init__(self, name, python, loop, gc_mode, path=None):
        self.name = name
        code = f"BODY = {BODY!r}\n" + WORKER
        # (--before: the other gradrepl tree goes first on sys.path inside the worker: a
        # PYTHONPATH entry would come after the '' of ``python -c``, and run from a checkout the
        # working tree's gradrepl would be imported instead)
        self.proc = subprocess.Popen([python, "-c", code, name, loop, gc_mode] +
                                     ([path] if path else []),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        ready = self._read()
        self.threads, self.origin = ready["threads"], ready.get("from")

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


def start_load():
    """A second CPU-bound process (a busy loop) loading the machine; ``.kill()`` it after."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def one_loop(loop, frameworks, args):
    """``{name: {"ms": [burst medians], "ratios": [...], "check": {...}, "threads": n}}``."""
    workers = []
    for name, py, path in frameworks:
        try:
            workers.append(Worker(name, py, loop, args.gc, path))
        except RuntimeError as exc:
            if name == "gradrepl":
                raise
            print(f"({loop}: {exc}; skipped)")
    res = {w.name: {"ms": [], "check": w.ask("check", args.steps), "threads": w.threads,
                    "from": w.origin} for w in workers}
    for w in workers:
        w.ask("run", args.burst)  # warm-up burst
    for r in range(args.rounds):
        for w in (workers if r % 2 == 0 else workers[::-1]):
            got = w.ask("run", args.burst)
            res[w.name]["ms"].append(got["ms"])
            res[w.name].setdefault("cpu", []).append(got["cpu"])
    for w in workers:
        w.close()
    return res


def table(results, args):
    lines = [f"Lecture loops (garbage collector {args.gc}{', under load: a second busy process' if args.load else ', quiet'}). "
             f"Check: {args.steps} steps from the same seed. Timing: {args.rounds} rounds of "
             f"{args.burst}-step bursts in turns; milliseconds a step",
             f"{'loop':<12}{'framework':<21}{'median ms':>10}{'ratio':>8}{'ratio IQR':>13}"
             f"{'cpu ms':>9}{'cpu ratio':>10}{'last loss':>22}{'params hash':>18}{'bits':>6}"]
    for loop, res in results.items():
        ref = res.get("torch")
        for name, r in res.items():
            ms = statistics.median(r["ms"])
            ratio = iqr = bits = cratio = ""
            cpu = statistics.median(r["cpu"]) if r.get("cpu") else float("nan")
            if name.startswith("gradrepl") and ref is not None:
                cratio = f"{statistics.median(g / t for g, t in zip(r['cpu'], ref['cpu'])):.2f}"
                ratios = sorted(g / t for g, t in zip(r["ms"], ref["ms"]))
                q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
                ratio, iqr = f"{statistics.median(ratios):.2f}", f"{q[0]:.2f}-{q[2]:.2f}"
                bits = "same" if r["check"] == ref["check"] else "DIFF"
            label = name + (f" ({r['threads']}t)" if r.get("threads") else "")
            c = r["check"]
            lines.append(f"{loop:<12}{label:<21}{ms:>10.3f}{ratio:>8}{iqr:>13}"
                         f"{cpu:>9.3f}{cratio:>10}{c['loss']:>22}{c['hash']:>18}{bits:>6}")
    first = next(iter(results.values()), {})
    for name, r in first.items():
        if r.get("from"):
            lines.append(f"{name}: {os.path.dirname(os.path.dirname(r['from']))}")
    lines.append("ratio = a gradrepl's burst / torch's burst in the same round, median over rounds "
                 "(below 1: gradrepl is faster); cpu ms = the process's CPU time a step (all its "
                 "threads; what a saturated machine's scheduler shares out), cpu ratio as ratio; "
                 "bits = same last loss and parameter bytes")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loops", default=",".join(LOOPS), help="comma-separated, of " +
                    ", ".join(LOOPS))
    ap.add_argument("--steps", type=int, default=20, help="steps of the bits check")
    ap.add_argument("--rounds", type=int, default=15, help="bursts of each framework, in turns")
    ap.add_argument("--burst", type=int, default=10, help="steps a burst")
    ap.add_argument("--torch-python", default="/work/vtorch/bin/python",
                    help="an interpreter with torch ('none' skips it)")
    ap.add_argument("--gc", choices=("on", "off"), default="on")
    ap.add_argument("--load", action="store_true",
                    help="run a second CPU-bound process during the whole run")
    ap.add_argument("--before", metavar="DIR",
                    help="also time the gradrepl of another source tree (e.g. `git archive` of an "
                         "older commit unpacked in DIR), in the same turns: 'gradrepl-before'")
    args = ap.parse_args(argv)
    loops = [name.strip() for name in args.loops.split(",") if name.strip()]
    unknown = [name for name in loops if name not in LOOPS]
    if unknown:
        ap.error(f"unknown loop(s): {', '.join(unknown)} (known: {', '.join(LOOPS)})")
    frameworks = [("gradrepl", sys.executable, None)]
    if args.before:
        frameworks.append(("gradrepl-before", sys.executable, os.path.abspath(args.before)))
    if args.torch_python == "none" or not can_import(args.torch_python, "torch"):
        print(f"(torch: not importable with {args.torch_python}; skipped)")
    else:
        frameworks.append(("torch", args.torch_python, None))
    load = start_load() if args.load else None
    try:
        results = {loop: one_loop(loop, frameworks, args) for loop in loops}
    finally:
        if load is not None:
            load.kill()
            load.wait()
    print(table(results, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
