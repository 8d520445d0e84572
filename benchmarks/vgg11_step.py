"""One training step of the seed's vgg11 on a [1, 3, 224, 224] input, side by side.

    python benchmarks/vgg11_step.py [--steps 5] [--warmup 2] [--paddle-python PY]
                                    [--torch-python PY] [--profile 3] [--size 224]

The step is the first seed article's: ``predicts = model(x)``, ``F.cross_entropy``,
``loss.backward()``, ``Adam(learning_rate=0.001).step()``, then ``clear_grad()``. Each framework
runs in its own interpreter (gradrepl here; real Paddle and torch in the interpreters given, when
they can import them; torch's VGG11 is written out by hand with the same layers), ``--warmup``
steps first, then the median of ``--steps`` timed steps, split into forward (with the loss),
backward, optimizer step and clearing the gradients; the forward alone under ``no_grad`` is
timed after each step (``--batch 32`` for a larger batch). Peak RSS is the worker's
``resource.getrusage`` maximum (model, optimizer state and the steps). No assertions: numbers to
read.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

WORKER = r'''
import json, resource, statistics, sys, time
fw, steps, warmup, profile, size, batch = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                           sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
if fw in ("gradrepl", "paddle"):
    if fw == "gradrepl":
        import gradrepl.paddle as paddle
        from gradrepl.engine.ops._util import quiet_fp
        quiet_fp().__enter__()  # as `gradrepl run` does for a whole script
        paddle.profiles.set_profile(profile)
        import gradrepl.paddle.nn.functional as F
        from gradrepl.paddle.vision.models import vgg11
    else:
        import paddle
        import paddle.nn.functional as F
        from paddle.vision.models import vgg11
    threads = None
    model = vgg11()
    x = paddle.rand([batch, 3, size, size])
    label = paddle.randint(0, 1000) if batch == 1 else paddle.randint(0, 1000, [batch])
    no_grad = paddle.no_grad
    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    def forward():
        return F.cross_entropy(model(x), label)
    def clear():
        optim.clear_grad()
else:
    import torch
    import torch.nn as nn
    threads = torch.get_num_threads()
    cfg = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]
    layers, c = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += [nn.Conv2d(c, v, 3, padding=1), nn.ReLU()]
            c = v
    model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d((7, 7)), nn.Flatten(1),
                          nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                          nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                          nn.Linear(4096, 1000))
    x = torch.rand(batch, 3, size, size)
    label = torch.randint(0, 1000, (batch,))
    no_grad = torch.no_grad
    optim = torch.optim.Adam(model.parameters(), lr=0.001)
    def forward():
        return nn.functional.cross_entropy(model(x), label)
    def clear():
        optim.zero_grad()
parts = {"forward": [], "backward": [], "optimizer": [], "clear_grad": [], "step": [],
         "no_grad": []}
for i in range(warmup + steps):
    t0 = time.perf_counter()
    loss = forward()
    t1 = time.perf_counter()
    loss.backward()
    t2 = time.perf_counter()
    optim.step()
    t3 = time.perf_counter()
    clear()
    t4 = time.perf_counter()
    del loss
    with no_grad():
        t5 = time.perf_counter()
        model(x)
        t6 = time.perf_counter()
    if i >= warmup:
        parts["no_grad"].append(t6 - t5)
        for k, v in (("forward", t1 - t0), ("backward", t2 - t1), ("optimizer", t3 - t2),
                     ("clear_grad", t4 - t3), ("step", t4 - t0)):
            parts[k].append(v)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps({"fw": fw, "threads": threads, "peak_rss_mb": rss,
                  **{k: statistics.median(v) for k, v in parts.items()}}))
'''


def run(python, fw, args):
    try:
        out = subprocess.run([python, "-c", WORKER, fw, str(args.steps), str(args.warmup),
                              args.profile, str(args.size), str(args.batch)],
                             capture_output=True, text=True, timeout=3600)
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
    ap.add_argument("--steps", type=int, default=5, help="timed steps (the median is shown)")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--size", type=int, default=224, help="input height and width")
    ap.add_argument("--batch", type=int, default=1, help="images a step (the seed: 1)")
    ap.add_argument("--paddle-python", default=sys.executable,
                    help="an interpreter with paddlepaddle ('none' skips it)")
    ap.add_argument("--torch-python", default=sys.executable,
                    help="an interpreter with torch ('none' skips it)")
    ap.add_argument("--profile", default="3", help="the Paddle gradrepl emulates")
    args = ap.parse_args(argv)
    rows = []
    res, err = run(sys.executable, "gradrepl", args)
    if res is None:
        print("gradrepl failed:", err)
        return 1
    rows.append(res)
    for fw, py, mod in (("paddle", args.paddle_python, "paddle"),
                        ("torch", args.torch_python, "torch")):
        if py == "none" or not can_import(py, mod):
            print(f"({fw}: not importable with {py}; skipped)")
            continue
        r, err = run(py, fw, args)
        if r is None:
            print(f"({fw} failed: {err})")
            continue
        rows.append(r)
    base = rows[0]
    print(f"vgg11 training step on [{args.batch}, 3, {args.size}, {args.size}] (forward + cross_entropy, "
          f"backward, Adam step, clear_grad): median of {args.steps} after {args.warmup} "
          f"warm-ups, seconds; gradrepl emulating Paddle {args.profile}")
    cols = ("forward", "backward", "optimizer", "clear_grad", "step", "no_grad")
    print(f"{'framework':<10}" + "".join(f"{c:>11}" for c in cols)
          + f"{'ratio':>8}{'peak RSS MB':>13}")
    for r in rows:
        name = r["fw"] + (f" ({r['threads']}t)" if r.get("threads") else "")
        print(f"{name:<10}" + "".join(f"{r[c]:>11.3f}" for c in cols)
              + f"{base['step'] / r['step']:>8.2f}{r['peak_rss_mb']:>13.0f}")
    print("no_grad = the forward alone under no_grad (not part of the step); "
          "ratio = gradrepl step time / framework step time (below 1: gradrepl is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
