"""Graph pictures: building the model and the DOT text, and laying it out, beside torchviz.

    python benchmarks/graph_dot.py [--repeat 5] [--quick] [--torch-python PY] [--no-render]

What is timed, the median of ``--repeat`` runs with the garbage collector on (as users run):

- a chain of 2,000 ops (``y = y * 1.0001`` and ``y = tanh(y)`` in turn, from one leaf) and an
  MLP of ``paddle.nn.Linear`` layers with ReLU/Tanh between them and an MSE loss (batch 8,
  enough layers for about 300 backward ops): ``viz.graph(y, view=V, namespace=...)`` (the
  picture model) plus ``.dot()`` (the DOT text), for each view (forward, backward, both);
- the same network in torch, ``torchviz.make_dot(y, params=...)`` then ``.source``, in the
  interpreter given by ``--torch-python`` (skipped when torch or torchviz will not import there);
- a plain walk of ``y.grad_fn`` through ``next_functions`` on both sides: the least any picture
  has to do;
- the layout: DOT -> SVG and PNG with the ``graphviz-pure`` binary and with the system ``dot``
  when one is on PATH, for the seed example two, the MLP (view both) and the chain (view
  backward), each with a timeout; torchviz's DOT of the same graph goes through the same binary;
- a whole-vgg11 picture: ``gradrepl graph examples/seeds/s000_vgg11.py -t loss -o vgg.png``
  (the seed: a 224 x 224 image, forward, loss, backward, then the picture), also with
  ``--layers 1``, beside a script that does the same in torch with a vgg11 written in plain
  torch.nn (no torchvision) and ends in ``torchviz.make_dot(loss, params).render(format="png")``
  (the system ``dot``: both sides lay out with it). gradrepl's rows: all ops in the default
  look (auto: compact, see ``--look``) and with ``--look full``, ``--layers 1`` and ``--layers 2``. Two rows: the picture alone, after the
  script ran, best of ``--repeat`` in one process (model + DOT + PNG against make_dot +
  render), and the whole command in a fresh process, start to PNG, best of ``--vgg-repeat``
  (2): this one also times each side's script (gradrepl draws Paddle's exact random weights
  for 133 M parameters). Both scripts run the same steps: by default the seed without its
  optimizer step (``--vgg-script picture``); ``--vgg-script seed`` runs the seed as it is and
  an Adam step in the torch script too. ``--vgg-size 32`` runs both on a small image.

The table prints milliseconds and the ratio gradrepl / torchviz (below 1: gradrepl is faster).
No assertions: numbers to read, side by side. ``tests/test_benchmarks_smoke.py`` runs the
gradrepl part at tiny sizes so this file cannot rot.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = os.path.join(HERE, os.pardir, "examples", "seeds", "s000_example_two.py")
RENDER_TIMEOUT = 60.0   # seconds for one layout; "timeout" past it
RENDER_BUDGET = 20.0    # stop repeating a layout once its runs have taken this long

# the whole-vgg11 picture in torch: the seed's steps, a vgg11 in plain torch.nn, torchviz
PEER_VGG = r'''
import json, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchviz import make_dot
size, out = int(sys.argv[1]), sys.argv[2]


class VGG(nn.Module):
    def __init__(self, cfg=(64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M")):
        super().__init__()
        layers, c = [], 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                layers += [nn.Conv2d(c, v, 3, padding=1), nn.ReLU()]
                c = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                                        nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                                        nn.Linear(4096, 1000))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


model = VGG()
x = torch.rand(1, 3, size, size)
label = torch.randint(0, 1000, (1,))
predicts = model(x)
loss = F.cross_entropy(predicts, label)
loss.backward()
if len(sys.argv) > 4 and sys.argv[4] == "seed":  # the seed's Adam step too
    torch.optim.Adam(model.parameters(), lr=0.001).step()
reps, best = int(sys.argv[3]), float("inf")
for _ in range(reps):
    t0 = time.perf_counter()
    make_dot(loss, params=dict(model.named_parameters())).render(out, format="png", cleanup=True)
    best = min(best, time.perf_counter() - t0)
print(json.dumps({"picture": best}))
'''
# the same picture in gradrepl, after the script ran (one process, best of reps)
GR_VGG = r'''
import json, sys, time
from gradrepl import viz
from gradrepl.viz.capture import run_for_pictures
script, out, reps, layers = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
look = sys.argv[5] if len(sys.argv) > 5 else "auto"
run = run_for_pictures(script)
if run.error is not None:
    raise run.error
best = None
for _ in range(reps):
    t0 = time.perf_counter()
    pic = viz.graph(run.namespace["loss"], namespace=run.namespace, recorder=run.recorder,
                    layers=int(layers) if layers != "none" else None, look=look)
    t1 = time.perf_counter()
    src = pic.dot()
    t2 = time.perf_counter()
    pic.render(out)
    t3 = time.perf_counter()
    if best is None or t3 - t0 < best["picture"]:
        best = {"picture": t3 - t0, "model": t1 - t0, "dot": t2 - t1, "png": t3 - t2}
print(json.dumps(best))
'''
VGG_SEED = os.path.join(HERE, os.pardir, "examples", "seeds", "s000_vgg11.py")
# the gradrepl rows: (label, --layers, --look); auto draws all ops and --layers 2 compact
VGG_ROWS = (("gradrepl graph (auto: compact)", None, "auto"),
            ("gradrepl graph --look full", None, "full"),
            ("gradrepl graph --layers 1", 1, "auto"),
            ("gradrepl graph --layers 2 (auto: compact)", 2, "auto"))

# the peer: torch + torchviz on the same graphs, in whatever interpreter has them
PEER = r'''
import gc, json, sys, time
sys.setrecursionlimit(100000)  # torchviz's make_dot recurses once per node of a chain
import torch
from torchviz import make_dot
torch.set_num_threads(1)
chain_n, layers, reps = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

def best_of(fn):  # (the median of reps runs, as gradrepl's side reports it)
    times, out = [], None
    for _ in range(reps):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2], out

def walk(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        f = stack.pop()
        if f is None or f in seen:
            continue
        seen.add(f)
        stack.extend(n for n, _ in f.next_functions)
    return len(seen)

def case(y, params):
    t_walk, nodes = best_of(lambda: walk(y))
    t_dot, src = best_of(lambda: make_dot(y, params=params).source)
    return {"walk": t_walk, "dot": t_dot, "nodes": nodes, "source": src}

out = {"version": torch.__version__}
a = torch.tensor(2.0, requires_grad=True); b = torch.tensor(5.0, requires_grad=True)
c = a * b; d = torch.tensor(4.0, requires_grad=True); e = c * d
e.backward()
out["seed"] = case(e, {"a": a, "b": b, "d": d})

x = torch.tensor(1.0, requires_grad=True); y = x
for i in range(chain_n):
    y = torch.tanh(y) if i % 2 else y * 1.0001
out["chain"] = case(y, {"x": x})

torch.manual_seed(0)
mods = []
for i in range(layers):
    mods += [torch.nn.Linear(32, 32), torch.nn.ReLU() if i % 2 == 0 else torch.nn.Tanh()]
model = torch.nn.Sequential(*mods)
xb, target = torch.randn(8, 32), torch.randn(8, 32)
loss = torch.nn.functional.mse_loss(model(xb), target)
out["mlp"] = case(loss, dict(model.named_parameters()))
print(json.dumps(out))
'''


def best_of(fn, repeat):
    """(median seconds, the last result) over ``repeat`` runs, gc on, collected before each
    (the median: as users meet it on a shared machine; the best hides the collector's runs)."""
    times, out = [], None
    for _ in range(max(1, repeat)):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2], out


# ---------------------------------------------------------------------------- the graphs
def make_chain(paddle, n):
    x = paddle.to_tensor(1.0, stop_gradient=False)
    y = x
    for i in range(n):
        y = paddle.tanh(y) if i % 2 else y * 1.0001
    return y, {"x": x, "y": y}


def make_mlp(paddle, layers):
    F = paddle.nn.functional
    paddle.seed(0)
    mods = []
    for i in range(layers):
        mods += [paddle.nn.Linear(32, 32), paddle.nn.ReLU() if i % 2 == 0 else paddle.nn.Tanh()]
    model = paddle.nn.Sequential(*mods)
    x, target = paddle.randn([8, 32]), paddle.randn([8, 32])
    loss = F.mse_loss(model(x), target)
    return loss, {"model": model, "x": x, "target": target, "loss": loss}


def walk(t):
    """The plain walk of ``t.grad_fn`` through ``next_functions`` (as one walks torch's)."""
    seen, stack = set(), [t.grad_fn]
    while stack:
        f = stack.pop()
        if f is None or f in seen:
            continue
        seen.add(f)
        stack.extend(f.next_functions)
    return len(seen)


# ---------------------------------------------------------------------------- gradrepl
def picture_times(target, namespace, repeat, views=("forward", "backward", "both"), recorder=None):
    """{view: {model, dot, total (seconds, of the median total), nodes, source}}; ``model``
    is ``viz.graph`` (the model, or a plain picture's snapshot: viz/fast.py), ``dot`` the text."""
    from gradrepl import viz

    out = {}
    for view in views:
        runs = []
        for _ in range(max(1, repeat)):
            gc.collect()
            t0 = time.perf_counter()
            pic = viz.graph(target, view=view, namespace=namespace, recorder=recorder)
            t1 = time.perf_counter()
            src = pic.dot()
            t2 = time.perf_counter()
            runs.append({"model": t1 - t0, "dot": t2 - t1, "total": t2 - t0})
        runs.sort(key=lambda r: r["total"])
        best = runs[len(runs) // 2]
        best.update(nodes=len(pic.model.backward_ops), ops=len(pic.model.ops), source=src)
        out[view] = best
    return out


def binaries():
    """[(label, prefer)] of the layout programs here: graphviz-pure, then the system dot."""
    from gradrepl.viz import render

    out = []
    if render.pure_binary():
        out.append(("graphviz-pure", "pure"))
    if shutil.which("dot"):
        out.append(("system dot", "system"))
    return out


def render_time(source, fmt, prefer, repeat, timeout=RENDER_TIMEOUT):
    """Best seconds of laying ``source`` out as ``fmt``, or "timeout" / "error: ..."."""
    from gradrepl.viz import render

    best, spent = float("inf"), 0.0
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        try:
            render.run_dot(source, fmt, prefer=prefer, timeout=timeout)
        except render.RenderError as exc:
            return "timeout" if "longer than" in str(exc) else f"error: {exc}"
        dt = time.perf_counter() - t0
        best, spent = min(best, dt), spent + dt
        if spent > RENDER_BUDGET:
            break
    return best


def gradrepl_part(chain_n=2000, layers=99, repeat=5, profile=None, render=True):
    """Everything measured of gradrepl, as a dict (the smoke test calls this at tiny sizes)."""
    import gradrepl.paddle as paddle
    from gradrepl.viz.capture import run_for_pictures

    res = {"chain_n": chain_n, "layers": layers, "profile": None}
    # the seed as `gradrepl graph` draws it: run under the capture (statements recorded)
    run = run_for_pictures(SEED, profile=profile)
    if run.error is not None:
        raise run.error
    res["profile"] = paddle.profiles.current().key
    res["seed"] = picture_times(run.namespace["e"], run.namespace, repeat, views=("both",),
                                recorder=run.recorder)
    res["seed"]["walk"] = best_of(lambda: walk(run.namespace["e"]), repeat)[0]
    for key, maker, arg in (("chain", make_chain, chain_n), ("mlp", make_mlp, layers)):
        target, ns = maker(paddle, arg)
        res[key] = picture_times(target, ns, repeat)
        res[key]["walk"] = best_of(lambda t=target: walk(t), repeat)[0]
        del target, ns
    res["renders"] = []
    if render:
        for key, view in (("seed", "both"), ("mlp", "both"), ("chain", "backward")):
            src = res[key][view]["source"]
            for label, prefer in binaries():
                for fmt in ("svg", "png"):
                    res["renders"].append({"graph": key, "view": view, "binary": label,
                                           "prefer": prefer, "fmt": fmt,
                                           "time": render_time(src, fmt, prefer, repeat)})
    return res


# ---------------------------------------------------------------------------- whole vgg11
OPTIMIZER_LINES = ("optim = paddle.optimizer.Adam(learning_rate=0.001, "
                   "parameters=model.parameters())\noptim.step()\n")


def vgg_script(size, folder, script="seed"):
    """The seed's vgg11 script, on a ``size`` x ``size`` image; ``script`` "seed": as it is
    (its Adam step included), "picture": without the optimizer (what the picture needs, and
    what the torch script does)."""
    if size == 224 and script == "seed":
        return os.path.abspath(VGG_SEED)
    with open(VGG_SEED, encoding="utf-8") as f:
        text = f.read().replace("[1,3,224,224]", f"[1,3,{size},{size}]")
    if script == "picture":
        assert OPTIMIZER_LINES in text
        text = text.replace(OPTIMIZER_LINES, "")
    path = os.path.join(folder, f"vgg11_{size}_{script}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def command_time(args, repeat, timeout=600):
    """Best wall seconds of running ``args`` in a fresh process, or "error: ..."."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        try:
            out = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "timeout"
        dt = time.perf_counter() - t0
        if out.returncode != 0:
            return "error: " + ((out.stderr.strip().splitlines() or ["failed"])[-1])[:80]
        best = min(best, dt)
    return best


def png_pixels(path):
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    import struct

    return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None


def json_run(args, timeout=1800):
    """The JSON a benchmark child prints last, or {"error": ...}."""
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    if out.returncode != 0:
        return {"error": "error: " + ((out.stderr.strip().splitlines() or ["failed"])[-1])[:80]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def vgg_part(size, repeat, torch_python, folder, picture_repeat=3, script_kind="picture"):
    """The whole-vgg11 picture rows: {size, rows: [{what, picture, time, pixels}], peer}. The
    whole commands run in turns, each gradrepl row then the torch script, ``repeat`` rounds,
    each keeping its best (the machine's speed drifts between minutes)."""
    script = vgg_script(size, folder, script_kind)
    rows, commands = [], []
    for label, layers, look in VGG_ROWS:
        out = os.path.join(folder, f"vgg_{len(rows)}.png")
        pic = json_run([sys.executable, "-c", GR_VGG, script, out, str(picture_repeat),
                        str(layers) if layers is not None else "none", look])
        pixels = png_pixels(out)
        extra = (["--layers", str(layers)] if layers is not None else []) + ["--look", look]
        commands.append([sys.executable, "-m", "gradrepl", "graph", script, "-t", "loss", "-o",
                         out] + extra)
        rows.append({"what": label, "time": None, "picture": pic.get("picture", pic.get("error")),
                     "split": pic, "pixels": pixels})
    peer = {"time": None, "picture": None, "pixels": None, "why": None}
    peer_command = None
    if not torch_python or torch_python.lower() == "none":
        peer["why"] = "not asked for (--torch-python none)"
    elif not can_import(torch_python, "torch", "torchviz"):
        peer["why"] = f"torch and torchviz do not both import with {torch_python}"
    elif not shutil.which("dot"):
        peer["why"] = "torchviz renders with the system dot: none on PATH"
    else:
        out = os.path.join(folder, "vgg_torch")
        pic = json_run([torch_python, "-c", PEER_VGG, str(size), out, str(picture_repeat),
                        script_kind])
        peer["picture"] = pic.get("picture", pic.get("error"))
        peer["pixels"] = png_pixels(out + ".png")
        peer_command = [torch_python, "-c", PEER_VGG, str(size), out, "1", script_kind]

    def keep(old, new):
        if not isinstance(new, float):
            return new if not isinstance(old, float) else old
        return new if not isinstance(old, float) or new < old else old

    for _ in range(max(1, repeat)):
        for row, cmd in zip(rows, commands):
            row["time"] = keep(row["time"], command_time(cmd, 1))
            if peer_command is not None:  # (each row's own torch runs: as many as its own)
                t = command_time(peer_command, 1)
                row["peer_time"] = keep(row.get("peer_time"), t)
                peer["time"] = keep(peer["time"], t)
    return {"size": size, "rows": rows, "peer": peer, "script": script_kind}


def vgg_table(v):
    p = v["peer"]
    steps = ("forward, loss, backward, Adam step" if v.get("script") == "seed"
             else "forward, loss, backward")
    lines = [f"whole-vgg11 picture ({v['size']} x {v['size']} image; both scripts: {steps}), "
             f"seconds; torchviz: make_dot + render (PNG) on a plain torch.nn vgg11"]
    if p["why"]:
        lines.append(f"(torchviz: {p['why']})")
    head = ("command", "part", "gradrepl s", "px", "torchviz s", "px", "ratio")

    def sec(t):
        return f"{t:.2f}" if isinstance(t, float) else str(t or "-")

    rows = []
    ppx = "x".join(map(str, p["pixels"])) if p["pixels"] else "-"
    for r in v["rows"]:
        px = "x".join(map(str, r["pixels"])) if r["pixels"] else "-"
        sp = r["split"]
        part = (f"picture ({sp['model']:.3f} + {sp['dot']:.3f} + {sp['png']:.2f})"
                if "model" in sp else "picture")
        rows.append((r["what"], part, sec(r["picture"]), px, sec(p["picture"]), ppx,
                     ratio(r["picture"], p["picture"])))
        pt = r.get("peer_time", p["time"])  # (the torch runs taken in turns with this row)
        rows.append((r["what"], "whole command", sec(r["time"]), px, sec(pt), ppx,
                     ratio(r["time"], pt)))
    widths = [max(len(str(x[i])) for x in rows + [head]) for i in range(len(head))]
    out = ["  ".join(str(c).ljust(w) if i in (0, 1, 3, 5) else str(c).rjust(w)
                     for i, (c, w) in enumerate(zip(row, widths))) for row in [head] + rows]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + out + [
        "picture: after the script ran, best of --repeat in one process (gradrepl: model + DOT "
        "+ PNG); whole command: a fresh process, start to PNG, best of --vgg-repeat rounds, "
        "each row and the torch script in turns"])


# ---------------------------------------------------------------------------- the peer
def can_import(python, *mods):
    try:
        return subprocess.run([python, "-c", "import " + ", ".join(mods)],
                              capture_output=True, timeout=300).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def peer_part(python, chain_n, layers, repeat):
    """torch + torchviz in ``python``: (dict, None) or (None, why not)."""
    if not python or python.lower() == "none":
        return None, "not asked for (--torch-python none)"
    if not can_import(python, "torch", "torchviz"):
        return None, f"torch and torchviz do not both import with {python}"
    try:
        out = subprocess.run([python, "-c", PEER, str(chain_n), str(layers), str(repeat)],
                             capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(out.stdout.strip().splitlines()[-1]), None


# ---------------------------------------------------------------------------- the table
def ms(v):
    if isinstance(v, str):
        return v
    if v is None:
        return "-"
    v *= 1e3
    return f"{v:.3f}" if v < 1 else f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def ratio(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0:
        return f"{a / b:.2f}"
    return "-"


def table(res, peer, repeat):
    rows = []  # (what, graph, nodes gradrepl/torch, gradrepl ms, split, torchviz ms, ratio)
    names = {"seed": "seed example two",
             "chain": f"chain {res['chain_n']} ops",
             "mlp": f"MLP {res['layers']} Linear"}
    for key in ("seed", "chain", "mlp"):
        r = res[key]
        p = peer.get(key) if peer else None
        any_view = next(v for v in ("both", "forward", "backward") if v in r)
        nodes = f"{r[any_view]['nodes']}/{p['nodes'] if p else '-'}"
        rows.append(("grad_fn walk", names[key], nodes, ms(r["walk"]), "",
                     ms(p["walk"]) if p else "-", ratio(r["walk"], p["walk"] if p else None)))
        for view in ("forward", "backward", "both"):
            if view not in r:
                continue
            v = r[view]
            split = f"{ms(v['model'])} + {ms(v['dot'])}"
            rows.append((f"model+DOT {view}", names[key], nodes, ms(v["total"]), split,
                         ms(p["dot"]) if p else "-", ratio(v["total"], p["dot"] if p else None)))
    peer_renders = {}
    if peer and res["renders"]:
        # torchviz's DOT of the same graph through the same binary
        for rr in res["renders"]:
            src = peer[rr["graph"]]["source"]
            peer_renders[(rr["graph"], rr["prefer"], rr["fmt"])] = render_time(
                src, rr["fmt"], rr["prefer"], repeat)
    for rr in res["renders"]:
        pt = peer_renders.get((rr["graph"], rr["prefer"], rr["fmt"]))
        what = f"{rr['fmt']} {rr['binary']}"
        rows.append((what, f"{names[rr['graph']]} ({rr['view']})", "", ms(rr["time"]), "",
                     ms(pt), ratio(rr["time"], pt)))
    head = ("what", "graph", "bw nodes", "gradrepl ms", "model + DOT", "torchviz ms", "ratio")
    widths = [max(len(str(x[i])) for x in rows + [head]) for i in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) if i < 3 else str(c).rjust(w)
                       for i, (c, w) in enumerate(zip(row, widths)))
             for row in [head] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="median of N (default 5)")
    ap.add_argument("--quick", action="store_true", help="small sizes (chain 50, 3 layers)")
    ap.add_argument("--chain", type=int, default=None, help="chain length (default 2000)")
    ap.add_argument("--layers", type=int, default=None,
                    help="MLP Linear layers (default 99: about 300 backward ops)")
    ap.add_argument("--torch-python", default=sys.executable,
                    help="interpreter with torch and torchviz ('none' to skip the peer)")
    ap.add_argument("--paddle", default=None, help="gradrepl's emulated Paddle (default: 2.2)")
    ap.add_argument("--no-render", action="store_true", help="skip the layout timings")
    ap.add_argument("--vgg", choices=["on", "off"], default=None,
                    help="the whole-vgg11 picture commands (default: on, off with --quick or "
                    "--no-render)")
    ap.add_argument("--vgg-size", type=int, default=224, help="its image size (default 224)")
    ap.add_argument("--vgg-repeat", type=int, default=2, help="best of N processes (default 2)")
    ap.add_argument("--vgg-script", choices=["picture", "seed"], default="picture",
                    help="picture: the seed without its optimizer step (default); seed: as it "
                    "is, the torch script then runs an Adam step too")
    args = ap.parse_args(argv)
    chain_n = args.chain or (50 if args.quick else 2000)
    layers = args.layers or (3 if args.quick else 99)
    res = gradrepl_part(chain_n, layers, args.repeat, profile=args.paddle,
                        render=not args.no_render)
    peer, why = peer_part(args.torch_python, chain_n, layers, args.repeat)
    print(f"graph pictures, median of {args.repeat} (gc on); gradrepl emulating Paddle "
          f"{res['profile']}" + (f"; torch {peer['version']} + torchviz" if peer else ""))
    if peer is None:
        print(f"(torchviz: {why}; peer columns empty)")
    print(table(res, peer, args.repeat))
    print("bw nodes: gradrepl backward ops (len(pic.model.backward_ops)) / torch grad_fn nodes "
          "(AccumulateGrad included)")
    print("model + DOT: viz.graph(...) + .dot(), ms; torchviz: make_dot(y, params).source; "
          "layouts: torchviz's DOT of the same graph through the same binary")
    print(f"ratio = gradrepl / torchviz (below 1: gradrepl is faster); layouts time out "
          f"after {RENDER_TIMEOUT:.0f} s")
    vgg = args.vgg or ("off" if args.quick or args.no_render else "on")
    if vgg == "on":
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            v = vgg_part(args.vgg_size, args.vgg_repeat, args.torch_python, folder,
                         args.repeat, args.vgg_script)
        print()
        print(vgg_table(v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
