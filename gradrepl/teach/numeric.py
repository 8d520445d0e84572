"""Numerical against autograd: central finite differences beside the engine's gradients.

The teacher's classic slide: nudge one input by a small step ``h`` either way, run the forward
pass again, and the slope ``(f(x + h) - f(x - h)) / 2h`` should be the gradient backward()
computed. ``gradcheck`` does that for every leaf that got a gradient, in float64, so the
numeric side is the more precise one.

How the forward pass is run again. While the script or session runs, a ``Tape`` sees every op
the engine applies (the registry's apply hook) and keeps those that made a node of the graph:
the op, its attributes and, for each input, where its value came from (another recorded op's
output, a leaf, or a constant, with the value it had then). It also sees every backward (a
trace sink): its roots and their seeds, and what each leaf's ``.grad`` held before and after.
The check replays the recorded ops that depend on the nudged leaf, in float64, from the values
they saw: exactly the function autograd differentiated (what ran under ``no_grad``, after
``detach()`` or through ``.item()`` is a constant to both).

- A leaf's ``.grad`` is the sum of what the backward runs since it was last empty added: the
  numeric side differentiates the same runs (``loss.backward()`` twice: twice the slope).
- Each backward's objective is ``sum(seed * root)`` (``backward()``'s ones, or the given
  ``grad_tensors``); ``paddle.grad`` / ``torch.autograd.grad`` results are checked too.
- Large leaves: a sample of elements (the largest gradients and some at random), said so.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field

import numpy as np

from ..engine import events as ev
from ..engine.node import AccumulateNode

H = 1e-6               # the step of the central differences (float64)
MAX_ELEMENTS = 16      # elements checked per tensor (more: a sample)
SECONDS = 2.0          # per tensor: no more elements once its checks took this long
KEEP_COPY = 1 << 16    # values of at most this many elements are copied when recorded


def _snap(a):
    """A value as recorded: copied when small (a later in-place write must not change it)."""
    if a is None:
        return None
    a = np.asarray(a)
    return np.array(a, copy=True) if a.size <= KEEP_COPY else a


_F64_CACHE: dict | None = None   # id(array) -> (array, its float64 copy), inside one check


def _f64(a):
    cache = _F64_CACHE
    if cache is not None and type(a) is np.ndarray and a.size > 4096:
        hit = cache.get(id(a))
        if hit is not None and hit[0] is a:
            return hit[1]
        b = _f64_plain(a)
        cache[id(a)] = (a, b)
        return b
    return _f64_plain(a)


def _f64_plain(a):
    a = np.asarray(a)
    if a.dtype.kind == "f" and a.dtype.itemsize < 8:
        return a.astype(np.float64)
    if a.dtype.kind == "c" and a.dtype.itemsize < 16:
        return a.astype(np.complex128)
    return a


def _attrs64(attrs):
    """The attributes for a float64 replay: a float32/float16 target dtype becomes float64."""
    out = None
    for k, v in attrs.items():
        try:
            d = np.dtype(v) if isinstance(v, (np.dtype, type)) else None
        except TypeError:
            d = None
        if d is not None and d.kind == "f" and d.itemsize < 8:
            out = dict(attrs) if out is None else out
            out[k] = np.dtype(np.float64)
    return attrs if out is None else out


@dataclass
class Entry:
    op: object
    attrs: dict
    ins: list            # per input: ("const", value) | ("key", key, value as read)
    outs: list           # per output: key or None (an output without a gradient)
    values: list         # the outputs' values as recorded (for the self-check)


@dataclass
class Run:
    """One backward (or paddle.grad / torch.autograd.grad) as the check needs it."""
    no: int
    upto: int                         # the tape's length when it began
    roots: list = field(default_factory=list)      # [(key, seed)]
    capture: bool = False
    inputs: list = field(default_factory=list)     # capture: the inputs' keys
    input_names: list = field(default_factory=list)
    root_names: list = field(default_factory=list)
    captured: dict = field(default_factory=dict)   # index -> the gradient it returned
    create_graph: bool = False
    finished: bool = False


class Tape:
    """Records the ops that made the graph, and every backward (install with ``recording``)."""

    def __init__(self):
        self.entries: list[Entry] = []
        self.producer: dict = {}       # key (node, slot) -> (entry index, output index)
        self.runs: list[Run] = []
        self.leaf_hist: dict = {}      # AccumulateNode -> [(run no, before, after)]
        self._run = None
        self._before = {}
        self._tensors = {}             # id(tensor) -> tensor, for the names of capture inputs
        self._base = {}                # entry index -> (float64 outputs on its recorded inputs, same?)

    # -- the apply hook ------------------------------------------------------------------
    def hook(self, op, inputs, attrs):
        from ..engine import registry

        prev = registry.set_apply_hook(None)
        try:
            out = registry.apply(op, inputs, attrs)
        finally:
            registry.set_apply_hook(prev)
        outs = out if isinstance(out, tuple) else (out,)
        keys = []
        live = False
        for t in outs:
            node = getattr(t, "grad_node", None)
            if node is not None and not t.stop_gradient:
                keys.append((node, t.out_slot))
                live = True
            else:
                keys.append(None)
        if not live:
            return out
        diff = op.diff_inputs
        ins = []
        for i, t in enumerate(inputs):
            if t.stop_gradient or (diff is not None and i not in diff):
                ins.append(("const", _snap(t.data)))
            elif t.grad_node is None:
                ins.append(("key", (t.accumulate_node(), 0), _snap(t.data)))
            else:
                ins.append(("key", (t.grad_node, t.out_slot), _snap(t.data)))
        k = len(self.entries)
        self.entries.append(Entry(op, dict(attrs), ins, keys,
                                  [_snap(t.data) for t in outs]))
        for j, key in enumerate(keys):
            if key is not None:
                self.producer[key] = (k, j)
        return out

    # -- the trace sink --------------------------------------------------------------------
    def __call__(self, item):
        if isinstance(item, tuple) and item and item[0] in ("begin", "end"):
            if item[0] == "begin":
                roots, kw = item[1], item[2]
                run = Run(len(self.runs) + 1, len(self.entries))
                run.capture = kw.get("inputs") is not None
                run.create_graph = bool(kw.get("create_graph"))
                if run.capture:
                    for t in kw["inputs"]:
                        e = t.gradient_edge() if hasattr(t, "gradient_edge") else None
                        run.inputs.append(e)
                        self._tensors[id(t)] = t
                        run.input_names.append(t)
                run.root_names = list(roots)
                self.runs.append(run)
                self._run, self._before = run, {}
            else:
                run = self._run
                if run is not None:
                    run.finished = True
                    if not run.capture:
                        for acc, before in self._before.items():
                            leaf = acc.leaf
                            g = leaf._grad if leaf is not None else None
                            after = _snap(g.data) if g is not None else None
                            hist = self.leaf_hist.setdefault(acc, [])
                            hist.append((run.no, before, after))
                            if len(hist) > 64:
                                del hist[0]
                self._run = None
            return
        run = self._run
        if run is None:
            return
        if isinstance(item, ev.DepsCounted):
            for n in item.deps:
                if isinstance(n, AccumulateNode) and n not in self._before:
                    leaf = n.leaf
                    g = leaf._grad if leaf is not None else None
                    self._before[n] = _snap(g.data) if g is not None else None
        elif isinstance(item, ev.Seeded):
            run.roots.append(((item.node, item.slot),
                              _snap(item.grad.data) if item.grad is not None else None))
            if isinstance(item.node, AccumulateNode) and item.node not in self._before:
                leaf = item.node.leaf
                g = leaf._grad if leaf is not None else None
                self._before[item.node] = _snap(g.data) if g is not None else None
        elif isinstance(item, ev.Captured):
            run.captured[item.index] = _snap(item.grad.data) if item.grad is not None else None
        # (roots' names: kept as tensors above, turned into names when reported)

    # -- replaying ---------------------------------------------------------------------------
    def dependents(self, target, upto):
        """Indices of the entries (before ``upto``) whose outputs depend on ``target``."""
        live = {target}
        dep = []
        for k in range(upto):
            e = self.entries[k]
            if any(s[0] == "key" and s[1] in live for s in e.ins):
                dep.append(k)
                live.update(key for key in e.outs if key is not None)
        return dep, live

    def unreplayable(self, target, needed):
        """The first node on the way from ``needed`` keys down to ``target`` that the tape did
        not record (a custom Function, a PyLayer): then the check cannot replay it."""
        seen = set()
        todo = [k for k in needed]
        while todo:
            key = todo.pop()
            if key is None or key in seen or key == target:
                continue
            seen.add(key)
            node = key[0]
            if isinstance(node, AccumulateNode):
                continue
            if key not in self.producer:
                if _reaches(node, target):
                    return node
                continue
            k, _j = self.producer[key]
            todo.extend(s[1] for s in self.entries[k].ins if s[0] == "key")
        return None

    def base(self, k):
        """Entry ``k`` run in float64 on the values it recorded (cached), and whether that
        gives back what it recorded (a random op, or an input changed in place, does not)."""
        got = self._base.get(k)
        if got is None:
            e = self.entries[k]
            args = [_f64(s[1]) if s[0] == "const" else _f64(s[2]) for s in e.ins]
            out = e.op.forward(*args, **_attrs64(e.attrs))
            outs = [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]
            same = True
            for j, key in enumerate(e.outs):
                if key is None or e.values[j] is None:
                    continue
                rec = _f64(e.values[j])
                if rec.shape != outs[j].shape or (rec.dtype.kind in "fc" and not np.allclose(
                        outs[j], rec, rtol=1e-3, atol=1e-5 * (float(np.max(np.abs(rec)))
                                                               if rec.size else 0.0),
                        equal_nan=True)):
                    same = False
            got = self._base[k] = (outs, same)
        return got

    def replay(self, target, delta, dep):
        """Values (float64) of every key made by the entries ``dep``, with the target nudged by
        ``delta``: each op's recorded output plus the change the nudge makes to it, computed
        in float64 (``op(recorded inputs + their changes) - op(recorded inputs)``), so the
        slope is taken about the very values the engine computed and differentiated."""
        vals = {}
        low = []
        bad = []

        def value(spec):
            key = spec[1]
            v = vals.get(key)
            if v is not None:
                return v
            v = _f64(spec[2])
            if key == target:
                v = _nudged(v, delta)
            return v

        for k in dep:
            e = self.entries[k]
            base, same = self.base(k)
            if not same:
                bad.append(e.op.name)
            args = [_f64(s[1]) if s[0] == "const" else value(s) for s in e.ins]
            out = e.op.forward(*args, **_attrs64(e.attrs))
            outs = out if isinstance(out, tuple) else (out,)
            for j, key in enumerate(e.outs):
                if key is None:
                    continue
                o = np.asarray(outs[j])
                if o.dtype.kind == "f" and o.dtype.itemsize < 8:
                    low.append(e.op.name)
                rec = e.values[j]
                if rec is None:
                    rec = base[j]
                vals[key] = _f64(rec) + (_f64(o) - _f64(base[j]))
        return vals, low, bad

    def root_value(self, key, vals):
        if key in vals:
            return vals[key]
        if key in self.producer:
            k, j = self.producer[key]
            return _f64(self.entries[k].values[j])
        node = key[0]
        if isinstance(node, AccumulateNode) and node.leaf is not None:
            return _f64(node.leaf.data)
        return None


def _nudged(v, delta):
    """``v`` with ``delta`` added: a (flat index, step) pair, or an array."""
    if isinstance(delta, tuple):
        v = np.array(v, dtype=np.result_type(v, np.float64), copy=True)
        v.reshape(-1)[delta[0]] += delta[1]
        return v
    return v + delta


def _reaches(node, target, limit=100000):
    seen = set()
    todo = [node]
    while todo and len(seen) < limit:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        for e in getattr(n, "next_edges", ()):
            if e is None:
                continue
            if e == target or e[0] is target[0]:
                return True
            todo.append(e[0])
    return False


@contextlib.contextmanager
def recording(tape: Tape | None = None):
    """Record every op and backward inside the block into ``tape`` (yielded)."""
    from ..engine import registry, trace_to

    tape = tape if tape is not None else Tape()
    prev = registry.set_apply_hook(tape.hook)
    try:
        with trace_to(tape):
            yield tape
    finally:
        registry.set_apply_hook(prev)


# ---------------------------------------------------------------------------- the check
@dataclass
class Check:
    """One gradient checked: ``autograd`` beside ``numeric`` at ``indices`` (flat)."""
    name: str
    what: str                    # "grad" (a leaf's .grad) | "capture" (paddle.grad's result)
    shape: tuple
    autograd: np.ndarray | None  # the engine's gradient (float64 copy), whole
    numeric: np.ndarray | None   # the numeric slopes at ``indices``
    indices: np.ndarray | None   # flat indices checked
    size: int = 0
    h: float = H
    note: str = ""               # why it was not checked, or a word on it
    notes: list = field(default_factory=list)
    low: list = field(default_factory=list)   # ops that computed below float64
    sampled: str = ""
    runs: list = field(default_factory=list)  # the backward runs differentiated

    @property
    def checked(self):
        return self.numeric is not None

    @property
    def abs_err(self):
        a = self.autograd.reshape(-1)[self.indices]
        return float(np.max(np.abs(self.numeric - a))) if self.indices.size else 0.0

    @property
    def rel_err(self):
        """The largest error relative to each element's size (or to 1% of the largest
        gradient, for elements smaller than that: float32 sums err by the large terms)."""
        a = self.autograd.reshape(-1)[self.indices]
        n = self.numeric
        scale = max(float(np.max(np.abs(self.autograd))) if self.autograd.size else 0.0, 1e-30)
        den = np.maximum(np.maximum(np.abs(a), np.abs(n)), 1e-2 * scale)
        if not self.indices.size:
            return 0.0
        return float(np.max(np.abs(n - a) / den))

    @property
    def digits(self):
        r = self.rel_err
        if r == 0:
            return 15
        return max(0, min(15, int(math.floor(-math.log10(r)))))

    def agrees(self, digits=None) -> bool:
        """Agree to the digits the gradient is printed with (float32: 6 significant)."""
        if not self.checked:
            return False
        need = digits if digits is not None else printed_digits(self.autograd_dtype)
        return self.digits >= need

    autograd_dtype: object = None


def printed_digits(dtype) -> int:
    """The significant digits a gradient of ``dtype`` is good to, after the rounding of the
    forward and backward sums (float32: 5; float64: 10)."""
    try:
        d = np.dtype(dtype)
    except TypeError:
        return 6
    if d.kind in "fc" and d.itemsize >= 8 * (2 if d.kind == "c" else 1):
        return 10
    if d.itemsize <= 2 * (2 if d.kind == "c" else 1):
        return 2
    return 5


def _chain(hist, current):
    """The writes into .grad since it was last empty: (start value, [run numbers], after)."""
    if not hist:
        return None, [], None
    chain = [hist[-1]]
    for prev in reversed(hist[:-1]):
        first = chain[0]
        before = first[1]
        if before is None or not np.any(before) or prev[2] is None \
                or np.shape(before) != np.shape(prev[2]) \
                or not np.allclose(before, prev[2], rtol=1e-6, atol=0):
            break
        chain.insert(0, prev)
    start = chain[0][1]
    if start is not None and not np.any(start):
        start = None
    return start, [c[0] for c in chain], chain[-1][2]


def _pick(g, k, seed=0):
    """Flat indices to check: all when few, else the largest |g| and some at random."""
    n = g.size
    if n <= k:
        return np.arange(n), 0
    flat = np.abs(np.asarray(g, np.float64).reshape(-1))
    big = max(1, k // 4)
    top = list(np.argsort(-flat, kind="stable")[:big])
    rng = np.random.default_rng(seed)
    rest = [i for i in rng.permutation(n)[: k * 4] if i not in set(top)][: k - big]
    idx = np.array(list(dict.fromkeys(int(i) for i in top + rest)), dtype=np.int64)
    return idx, big


def _slopes(tape, target, runs, shape, idx, h, seconds=None):
    """Central differences of the runs' objectives with respect to ``target`` at ``idx``."""
    upto = max(r.upto for r in runs)
    dep, live = tape.dependents(target, upto)
    roots = [(r, key, seed) for r in runs for key, seed in
             ([(k, s) for k, s in r.roots])]
    if not any(key in live or key == target for _r, key, _s in roots):
        return np.zeros(idx.size), [], None   # no root depends on it: the slope is 0
    blocked = tape.unreplayable(target, [key for _r, key, _s in roots])
    if blocked is not None:
        return None, [], blocked
    out = np.zeros(idx.size)
    low_all = []
    bad_all = []

    def objective(delta):
        vals, low, bad = tape.replay(target, delta, dep)
        low_all.extend(low)
        bad_all.extend(bad)
        total = 0.0
        for r, key, seed in roots:
            if key == target:
                v = tape.root_value(key, {}) if delta is None else \
                    _nudged(_f64(tape.root_value(key, {})), delta)
            else:
                v = tape.root_value(key, vals)
            if v is None:
                continue
            s = np.ones_like(v) if seed is None else _f64(seed)
            total += float(np.sum(np.real(s * v)))
        return total

    import time

    global _F64_CACHE
    _F64_CACHE = {}
    done = idx.size
    try:
        t0 = time.perf_counter()
        for m, i in enumerate(idx):
            out[m] = (objective((int(i), h)) - objective((int(i), -h))) / (2 * h)
            if bad_all:
                return None, sorted(set(bad_all)), "random"
            if seconds is not None and time.perf_counter() - t0 > seconds and m + 1 < idx.size:
                done = m + 1
                break
    finally:
        _F64_CACHE = None
    if done < idx.size:
        return (out[:done], sorted(set(low_all)), ("time", done))
    return out, sorted(set(low_all)), None


def check_leaves(tape, namespace=None, names=None, h=H, max_elements=MAX_ELEMENTS,
                 only=None, seconds=SECONDS):
    """A ``Check`` for each leaf whose ``.grad`` a recorded backward wrote (``only``: those
    tensors), then one per gradient that ``paddle.grad`` / ``torch.autograd.grad`` returned."""
    from ..viz.why import Namer

    namer = Namer(namespace, names)
    checks = []
    wanted = None if only is None else {id(t) for t in only}
    order = sorted(tape.leaf_hist.items(),
                   key=lambda kv: kv[0].leaf._uid if kv[0].leaf is not None else -1)
    for acc, hist in order:
        leaf = acc.leaf
        if leaf is None or (wanted is not None and id(leaf) not in wanted):
            continue
        if wanted is None and id(leaf) not in namer.names:
            continue   # (a leaf the script dropped or never named: nothing to point at)
        name = namer.tensor(leaf)
        start, run_nos, after = _chain(hist, leaf._grad)
        runs = [r for r in tape.runs if r.no in run_nos]
        if after is None:
            continue
        c = Check(f"{name}.grad", "grad", tuple(np.shape(after)), np.array(after, np.float64)
                  if np.asarray(after).dtype.kind != "c" else np.array(after), None, None,
                  size=int(np.size(after)), h=h, runs=run_nos)
        c.autograd_dtype = np.asarray(after).dtype
        if start is not None:
            c.notes.append(f"{name}.grad already held {_short(start)} before these backward "
                           "runs: the numeric side adds it too")
        cur = leaf._grad.data if leaf._grad is not None else None
        if cur is None:
            c.notes.append(f"{name}.grad is None now (cleared after the last backward): this "
                           "checks what the backward runs had left in it")
        elif np.shape(cur) != np.shape(after) or not np.allclose(cur, after, rtol=1e-6,
                                                                   atol=0):
            c.notes.append(f"{name}.grad is {_short(cur)} now (cleared or changed after the "
                           "last backward): this checks what the backward runs had left in it")
        if len(run_nos) > 1:
            c.notes.append(f"{len(run_nos)} backward() calls added into {name}.grad: the "
                           "numeric slope is that of the sum of their outputs")
        _fill(c, tape, (acc, 0), runs, start, h, max_elements, seconds)
        checks.append(c)
    for run in tape.runs:
        if not run.capture or not run.finished:
            continue
        for i, key in enumerate(run.inputs):
            g = run.captured.get(i)
            if key is None or g is None:
                continue
            t = run.input_names[i]
            if wanted is not None and id(t) not in wanted:
                continue
            roots = ", ".join(namer.tensor(r) for r in run.root_names)
            name = f"d({roots})/d{namer.tensor(t)}"
            c = Check(name, "capture", tuple(np.shape(g)), np.array(g, np.float64), None, None,
                      size=int(np.size(g)), h=h, runs=[run.no])
            c.autograd_dtype = np.asarray(g).dtype
            c.notes.append(f"(returned by the gradient call #{run.no}, not kept in .grad)")
            _fill(c, tape, key, [run], None, h, max_elements, seconds)
            checks.append(c)
    return checks


def _fill(c, tape, key, runs, start, h, max_elements, seconds=None):
    if c.autograd.dtype.kind == "c" or np.asarray(c.autograd).dtype.kind not in "f":
        c.note = "not checked: the check works on real floating-point gradients"
        return
    if not runs:
        c.note = "not checked: the backward runs that wrote it were not recorded"
        return
    idx, big = _pick(c.autograd, max_elements)
    try:
        num, low, blocked = _slopes(tape, key, runs, c.shape, idx, h, seconds)
    except Exception as exc:  # noqa: BLE001 - an op that cannot run in float64: said plainly
        c.note = f"not checked: replaying the forward pass failed ({type(exc).__name__}: {exc})"
        return
    if blocked == "random":
        c.note = (f"not checked: run again on the values it saw, {', '.join(low)} did not give "
                  "what it gave before (a random op such as dropout, or a value changed in "
                  "place), so the forward pass cannot be nudged and rerun")
        return
    if blocked is not None and not isinstance(blocked, tuple):
        from ..viz.why import Words

        label = Words().node_label(blocked) if blocked.op is not None else "a node"
        c.note = (f"not checked: its gradient passes through {label}, an op the check did not "
                  "see run (a custom Function or PyLayer) and so cannot run again")
        return
    if isinstance(blocked, tuple):   # ("time", how many were done)
        idx = idx[:blocked[1]]
        c.sampled = (f"checked {idx.size} of {c.size:,} elements, the largest first: each "
                     f"took a forward pass too long for more within {seconds:g} s "
                     "(--seconds, --elements)")
    elif big:
        c.sampled = (f"checked {idx.size} of {c.size:,} elements (the {big} largest and "
                     f"{idx.size - big} at random)")
    if start is not None and num is not None:
        num = num + np.asarray(start, np.float64).reshape(-1)[idx]
    c.numeric, c.indices, c.low = num, idx, low
    if low:
        c.notes.append("(" + ", ".join(low) + " computed in float32 even on float64 inputs: "
                       "the numeric side is less precise there)")


def _short(a):
    from ..viz.why import _fmt

    return _fmt(a)


# ---------------------------------------------------------------------------- words
def _g(v) -> str:
    """A numeric value with the digits a check needs (up to 10 significant)."""
    v = float(v)
    if v == 0:
        return "0"
    if 1e-4 <= abs(v) < 1e10:
        return f"{v:#.10g}"
    return f"{v:.9e}"


def _auto(v) -> str:
    """An autograd (float32) value as it is: its shortest float32 text."""
    v = np.float32(v) if isinstance(v, (float, np.floating)) else v
    if float(v) == int(float(v)) and abs(float(v)) < 1e15:
        return f"{int(float(v))}."
    return np.format_float_positional(np.float32(v), unique=True, trim="-") \
        if 1e-4 <= abs(float(v)) < 1e8 else np.format_float_scientific(np.float32(v),
                                                                         unique=True)


def _vals(fmt, a, limit=6):
    a = list(np.asarray(a).reshape(-1))
    body = ", ".join(fmt(x) for x in a[:limit])
    return body if len(a) == 1 else "[" + body + (", ..." if len(a) > limit else "") + "]"


def describe(c: Check) -> str:
    """One check in plain words: the two values, the step, the error, the verdict."""
    lines = []
    if not c.checked:
        lines.append(f"{c.name}: {c.note}")
        return "\n".join(lines + ["  " + n for n in c.notes]) + "\n"
    a = c.autograd.reshape(-1)[c.indices]
    shape = "" if c.size == 1 else f" (shape {list(c.shape)})"
    where = ""
    if c.size > 1 and c.indices.size < c.size:
        pos = [np.unravel_index(int(i), c.shape) for i in c.indices[:6]]
        where = " at " + ", ".join("[" + ", ".join(str(int(x)) for x in p) + "]" for p in pos) \
            + (", ..." if c.indices.size > 6 else "")
    head = (f"{c.name}{shape}{where}: autograd {_vals(_auto, a)}, numeric {_vals(_g, c.numeric)} "
            f"(h = {c.h:g}, central differences in float64)")
    lines.append(head)
    d = c.digits
    verdict = "agree" if c.agrees() else "DISAGREE"
    err = (f"max abs error {c.abs_err:.2g}, max rel error {c.rel_err:.2g}" if c.abs_err
           else "no difference")
    lines.append(f"  {err}: {verdict} to {d} digit{'s' if d != 1 else ''}"
                 + (f" (a {np.dtype(c.autograd_dtype).name} gradient is good to about "
                    f"{printed_digits(c.autograd_dtype)})" if not c.agrees() else ""))
    if c.sampled:
        lines.append(f"  ({c.sampled})")
    lines += ["  " + n for n in c.notes]
    return "\n".join(lines) + "\n"


def report(checks) -> str:
    if not checks:
        return ("no gradient to check: no backward() wrote a .grad, and no paddle.grad / "
                "torch.autograd.grad returned one\n")
    text = "".join(describe(c) for c in checks)
    done = [c for c in checks if c.checked]
    bad = [c for c in done if not c.agrees()]
    if done:
        text += (f"{len(done)} gradient{'s' if len(done) != 1 else ''} checked: "
                 + ("all agree with the numeric slopes" if not bad else
                    f"{len(bad)} disagree ({', '.join(c.name for c in bad)})") + "\n")
    return text


# ---------------------------------------------------------------------------- running
class GradcheckError(Exception):
    """A bad argument or a failed script: one line for the user, exit status 2."""


def run_file(path, profile=None):
    """Run a script (.py) or a session (.pycon) with a tape: (tape, namespace)."""
    import os

    if not os.path.isfile(path):
        raise GradcheckError(f"no such file: {path}")
    tape = Tape()
    if path.endswith((".pycon", ".txt", ".session")):
        from ..repl.replay import ReplayError, load, run_transcript
        from ..repl.transcript import TranscriptError

        holder = {}

        class _Obs:
            def before(self, session, run):
                holder["s"] = session

            def after(self, session, run):
                holder["s"] = session

        try:
            t = load(path)
        except (TranscriptError, OSError, UnicodeDecodeError) as exc:
            raise GradcheckError(str(exc)) from None
        from ..engine import quiet_fp

        try:
            with recording(tape), quiet_fp():
                run_transcript(t, profile=profile, observer=_Obs())
        except (ReplayError, TranscriptError) as exc:
            raise GradcheckError(str(exc)) from None
        s = holder.get("s")
        return tape, (s.namespace if s is not None else {})
    from ..viz.capture import run_for_pictures

    try:
        with recording(tape):
            run = run_for_pictures(path, profile=profile)
    except SyntaxError as exc:
        raise GradcheckError(f"{path} line {exc.lineno}: SyntaxError: {exc.msg}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GradcheckError(f"cannot read {path}: {exc}") from None
    except ValueError as exc:
        raise GradcheckError(str(exc)) from None
    if run.error is not None:
        from ..viz.cli import _describe_error

        raise GradcheckError(_describe_error(run.error, path))
    return tape, run.namespace


def gradcheck_file(path, names=(), profile=None, h=H, max_elements=MAX_ELEMENTS,
                   seconds=SECONDS):
    """What ``gradrepl gradcheck FILE [NAME ...]`` does: (checks, report text)."""
    if profile:
        from ..paddle import profiles

        try:
            profiles.resolve(profile)
        except ValueError as exc:
            raise GradcheckError(str(exc)) from None
    tape, ns = run_file(path, profile)
    only = _lookup_all(ns, names)
    checks = check_leaves(tape, ns, h=h, max_elements=max_elements, only=only,
                          seconds=seconds)
    return checks, report(checks)


def _lookup_all(ns, names):
    if not names:
        return None
    from ..viz.why import lookup, parse_target

    out = []
    for n in names:
        try:
            name, _el = parse_target(n)
            out.append(lookup(ns, name))
        except (KeyError, ValueError) as exc:
            raise GradcheckError(str(exc.args[0]) if exc.args else str(exc)) from None
    return out


# ---------------------------------------------------------------------------- the shell
SKIP_COMMANDS = ("gradcheck", "quiz", "record", "help", "history", "why", "graph", "vars")


def rerun_session(session):
    """Run the session's inputs again in a fresh session with a tape (the shell recorded no
    ops): (tape, fresh session). The numbers are the same as long as the inputs are."""
    from ..engine import quiet_fp
    from ..repl.session import Session

    fresh = Session(profile=None, safe=getattr(session, "safe", False))
    fresh.profile_key = getattr(session, "_first_profile", None) or session.profile_key
    tape = Tape()
    fresh.rerun = 0
    with recording(tape), quiet_fp():
        for src in session.history[:-1]:
            s = src.strip()
            if not s or s.startswith("%") and s[1:].split(" ", 1)[0] in SKIP_COMMANDS:
                continue
            fresh.run(src)
            fresh.rerun += 1
    return tape, fresh
