"""Graph pictures: building the model and the DOT text, and laying it out, beside torchviz.

    python benchmarks/graph_dot.py [--repeat 5] [--quick] [--torch-python PY] [--no-render]

What is timed, best of ``--repeat`` runs with the garbage collector on (as users run):

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
  backward), each with a timeout; torchviz's DOT of the same graph goes through the same binary.

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

# the peer: torch + torchviz on the same graphs, in whatever interpreter has them
PEER = r'''
import gc, json, sys, time
sys.setrecursionlimit(100000)  # torchviz's make_dot recurses once per node of a chain
import torch
from torchviz import make_dot
torch.set_num_threads(1)
chain_n, layers, reps = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

def best_of(fn):
    best, out = float("inf"), None
    for _ in range(reps):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out

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
    """(best seconds, the last result) over ``repeat`` runs, gc on, collected before each."""
    best, out = float("inf"), None
    for _ in range(max(1, repeat)):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


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
    """{view: {model, dot, total (seconds, of the best total), nodes, source}}."""
    from gradrepl import viz

    out = {}
    for view in views:
        best = None
        for _ in range(max(1, repeat)):
            gc.collect()
            t0 = time.perf_counter()
            pic = viz.graph(target, view=view, namespace=namespace, recorder=recorder)
            t1 = time.perf_counter()
            src = pic.dot()
            t2 = time.perf_counter()
            if best is None or t2 - t0 < best["total"]:
                best = {"model": t1 - t0, "dot": t2 - t1, "total": t2 - t0}
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
        res[key]["walk"] = best_of(lambda: walk(target), repeat)[0]
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
    ap.add_argument("--repeat", type=int, default=5, help="best of N (default 5)")
    ap.add_argument("--quick", action="store_true", help="small sizes (chain 50, 3 layers)")
    ap.add_argument("--chain", type=int, default=None, help="chain length (default 2000)")
    ap.add_argument("--layers", type=int, default=None,
                    help="MLP Linear layers (default 99: about 300 backward ops)")
    ap.add_argument("--torch-python", default=sys.executable,
                    help="interpreter with torch and torchviz ('none' to skip the peer)")
    ap.add_argument("--paddle", default=None, help="gradrepl's emulated Paddle (default: 2.2)")
    ap.add_argument("--no-render", action="store_true", help="skip the layout timings")
    args = ap.parse_args(argv)
    chain_n = args.chain or (50 if args.quick else 2000)
    layers = args.layers or (3 if args.quick else 99)
    res = gradrepl_part(chain_n, layers, args.repeat, profile=args.paddle,
                        render=not args.no_render)
    peer, why = peer_part(args.torch_python, chain_n, layers, args.repeat)
    print(f"graph pictures, best of {args.repeat} (gc on); gradrepl emulating Paddle "
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
