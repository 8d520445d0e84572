#!/usr/bin/env python
"""Differential testing against real Paddle: random programs, run by both, compared.

Each program starts from a random leaf tensor and applies a chain of 3-8 Paddle functions drawn
from ``SPECS`` (only those gradrepl implements at run time), with random shapes that broadcast,
reduce and reshape; binary functions take a fresh leaf as their second operand. The program
records every intermediate value (``F<i>``), then runs ``backward`` with a random cotangent and
records every intermediate's gradient (``G<i>``, via ``retain_grads``) and every leaf gradient
(``L<k>``): one JSON line per tensor with its shape, dtype, values (``numpy().tolist()``: exact
float32 values) and ``repr`` (Paddle's printing).

The same program file runs with real Paddle (``--python``, e.g. a venv with paddlepaddle 3.3.1)
and with ``gradrepl run --paddle <version>``; outputs are compared:

- identical: stdout bytes equal;
- rounding: every value within tolerance, some not bitwise equal (float32 rounding differs);
- display: every value bitwise equal, but a repr (printing) or dtype/shape text differs;
- mismatch: some value beyond tolerance, or a shape/dtype differs;
- error: one side raised (or crashed) and the other did not, or they raised different errors;
- both-error: both raised the same exception type (usually a program Paddle itself rejects).

A divergence is blamed on one step: the first forward value that differs, else the step whose
output gradient agrees but whose input gradients do not (walking backward from the end).

    /tmp/gv/bin/python tools/compare_with_paddle.py --python /tmp/pd3/bin/python --paddle 3 -n 200

This is a developer tool, not part of the test suite: real Paddle is never a dependency.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

MAX_NUMEL = 48      # keep every intermediate small
LEAF_DOMAINS = {"real": (-1.0, 1.0), "positive": (0.5, 1.5), "prob": (0.05, 0.95)}


# ====================================================================== building programs
@dataclass
class Leaf:
    name: str
    shape: tuple
    values: np.ndarray


@dataclass
class Builder:
    """Random choices and the leaves a step asks for (kept only if the step is accepted)."""

    rng: np.random.Generator
    dtype: str
    leaves: list = field(default_factory=list)
    pending: list = field(default_factory=list)

    def leaf(self, shape, domain="real") -> str:
        lo, hi = LEAF_DOMAINS[domain]
        values = np.round(self.rng.uniform(lo, hi, size=shape), 3)
        name = f"x{len(self.leaves) + len(self.pending)}"
        self.pending.append(Leaf(name, tuple(shape), values))
        return name

    def commit(self):
        self.leaves += self.pending
        self.pending = []

    def rollback(self):
        self.pending = []

    def int(self, lo, hi) -> int:
        """An integer in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def choice(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def coin(self, p=0.5) -> bool:
        return bool(self.rng.random() < p)

    def scalar(self, lo=-2.0, hi=2.0) -> float:
        return round(float(self.rng.uniform(lo, hi)), 2)


def numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def random_shape(b: Builder) -> tuple:
    return tuple(b.int(1, 4) for _ in range(b.int(0, 3)))


def partner_shape(b: Builder, shape) -> tuple:
    """A shape that broadcasts with ``shape``: same, a suffix, some dims 1, or one more dim."""
    kind = b.choice(["same", "same", "suffix", "ones", "lead"])
    if kind == "suffix" and shape:
        return tuple(shape[b.int(1, len(shape)):])
    if kind == "ones" and shape:
        return tuple(1 if b.coin() else s for s in shape)
    if kind == "lead" and len(shape) < 3:
        return (b.int(2, 3),) + tuple(shape)
    return tuple(shape)


def broadcast(*shapes) -> tuple:
    return tuple(np.broadcast_shapes(*shapes))


def reduced(shape, axis, keepdim) -> tuple:
    if axis is None:
        return tuple(1 for _ in shape) if keepdim else ()
    axes = {a % len(shape) for a in (axis if isinstance(axis, list) else [axis])}
    return tuple(1 if i in axes else s for i, s in enumerate(shape) if keepdim or i not in axes)


def random_axis(b: Builder, shape):
    r = len(shape)
    kind = b.choice(["one", "one", "neg", "two", "none"])
    if kind == "none":
        return None
    if kind == "two" and r >= 2:
        return sorted(b.rng.choice(r, size=2, replace=False).tolist())
    a = b.int(0, r - 1)
    return a - r if kind == "neg" else a


def factor_shape(b: Builder, n: int) -> tuple:
    """A random shape with ``n`` elements."""
    dims = []
    rest = n
    for _ in range(b.int(1, 3) - 1):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = b.choice(divisors)
        dims.append(d)
        rest //= d
    dims.append(rest)
    b.rng.shuffle(dims)
    return tuple(dims)


# Domain adapters: steps inserted before a function whose input must be positive or in (-1, 1),
# each a recorded step of its own so that a divergence is blamed on the right operation.
DOMAIN_ADAPTERS = {
    "real": [],
    "positive": [("adapt_square", "({x} * {x})"), ("adapt_add_half", "({x} + 0.5)")],
    "unit": [("adapt_tanh", "paddle.tanh({x})"), ("adapt_scale_09", "({x} * 0.9)")],
}


# ====================================================================== the functions
@dataclass
class Spec:
    """One Paddle function: how to call it on ``x`` (shape ``s``) and the result's shape.

    ``build(b, x, s)`` returns (expression, output shape), or None when it does not apply to
    that shape. ``requires`` are attribute paths that gradrepl must have for it to be used.
    """

    name: str
    requires: tuple
    build: Callable
    domain: str = "real"    # where the main input must lie (DOMAIN_ADAPTERS)


SPECS: list[Spec] = []


def spec(name, *requires):
    def deco(fn):
        SPECS.append(Spec(name, requires or (name,), fn))
        return fn
    return deco


def unary(name, call=None, domain="real", requires=None, min_rank=0):
    """A function of one tensor that keeps its shape; ``call`` uses ``{x}`` for the input."""
    call = call or f"paddle.{name}({{x}})"

    def build(b, x, s):
        if len(s) < min_rank:
            return None
        return call.replace("{x}", x), s
    SPECS.append(Spec(name, requires or (name,), build, domain))


for _n in ["exp", "tanh", "sigmoid", "abs", "square", "sin", "cos", "atan", "sinh", "cosh",
           "erf", "floor", "ceil", "round", "sign", "asinh", "expm1", "neg"]:
    unary(_n)
for _n in ["log", "sqrt", "rsqrt", "reciprocal", "log1p", "log2", "log10"]:
    unary(_n, domain="positive")
for _n in ["asin", "acos", "atanh"]:
    unary(_n, domain="unit")
for _n, _call in [("relu", "relu({x})"), ("gelu", "gelu({x})"), ("silu", "silu({x})"),
                  ("softplus", "softplus({x})"), ("elu", "elu({x})"),
                  ("relu6", "relu6({x} * 4.0)"), ("softsign", "softsign({x})"),
                  ("leaky_relu", "leaky_relu({x}, 0.1)"), ("hardtanh", "hardtanh({x})"),
                  ("F.sigmoid", "sigmoid({x})"), ("F.tanh", "tanh({x})")]:
    unary(_n, "F." + _call, requires=("nn.functional." + _call.split("(")[0],))
unary("softmax", "F.softmax({x}, axis=-1)", requires=("nn.functional.softmax",), min_rank=1)
unary("log_softmax", "F.log_softmax({x}, axis=-1)", requires=("nn.functional.log_softmax",),
      min_rank=1)
unary("clip", "paddle.clip({x}, min=-0.5, max=0.6)")
unary("scale", "paddle.scale({x}, scale=1.5, bias=0.25)")
unary("pow_scalar", "paddle.pow({x}, 2.0)", requires=("pow",))
unary("cumsum", "paddle.cumsum({x}, axis=-1)", min_rank=1)
unary("method_exp", "{x}.exp()", requires=("Tensor.exp",))
unary("method_tanh", "{x}.tanh()", requires=("Tensor.tanh",))

# Python numbers on either side of an operator
for _n, _call, _dom, _dunder in [
        ("add_scalar", "({x} + 1.5)", "real", "__add__"),
        ("radd_int", "(2 + {x})", "real", "__radd__"),
        ("sub_scalar", "({x} - 0.75)", "real", "__sub__"),
        ("rsub_scalar", "(1.0 - {x})", "real", "__rsub__"),
        ("mul_scalar", "({x} * 2.5)", "real", "__mul__"),
        ("rmul_int", "(3 * {x})", "real", "__rmul__"),
        ("div_scalar", "({x} / 3.0)", "real", "__truediv__"),
        ("div_int", "({x} / 7)", "real", "__truediv__"),
        ("rdiv_scalar", "(2.0 / {x})", "positive", "__rtruediv__"),
        ("pow_2", "({x} ** 2)", "real", "__pow__"),
        ("pow_3f", "({x} ** 3.0)", "real", "__pow__"),
        ("pow_half", "({x} ** 0.5)", "positive", "__pow__"),
        ("rpow", "(2.0 ** {x})", "real", "__rpow__"),
        ("neg_op", "(-{x})", "real", "__neg__")]:
    unary(_n, _call, domain=_dom, requires=("Tensor." + _dunder,))


def binary(name, call, domain_y="real", requires=None, domain_x="real"):
    """An elementwise function of ``{x}`` and a fresh leaf ``{y}`` that broadcasts with it."""

    def build(b, x, s):
        ys = partner_shape(b, s)
        y = b.leaf(ys, domain_y)
        return call.replace("{x}", x).replace("{y}", y), broadcast(s, ys)
    SPECS.append(Spec(name, requires or (name,), build, domain_x))


for _n in ["add", "subtract", "multiply", "maximum", "minimum"]:
    binary(_n, f"paddle.{_n}({{x}}, {{y}})")
binary("divide", "paddle.divide({x}, {y})", "positive")
binary("pow", "paddle.pow({x}, {y})", domain_x="positive")
binary("op_add", "({x} + {y})", requires=("Tensor.__add__",))
binary("op_sub", "({x} - {y})", requires=("Tensor.__sub__",))
binary("op_mul", "({x} * {y})", requires=("Tensor.__mul__",))
binary("op_div", "({x} / {y})", "positive", requires=("Tensor.__truediv__",))
binary("op_rdiv", "({y} / {x})", requires=("Tensor.__truediv__",), domain_x="positive")
binary("op_pow", "({x} ** {y})", requires=("Tensor.__pow__",), domain_x="positive")
binary("lerp", "paddle.lerp({x}, {y}, 0.3)")
binary("where", "paddle.where({x} > 0, {x}, {y})", requires=("where", "Tensor.__gt__"))


def same_shape_loss(name, call, domain_y="real"):
    """A loss with the default mean reduction: a 0-D result from two same-shape tensors."""

    def build(b, x, s):
        if not s:
            return None
        return call.replace("{x}", x).replace("{y}", b.leaf(s, domain_y)), ()
    SPECS.append(Spec(name, ("nn.functional." + name,), build))


same_shape_loss("mse_loss", "F.mse_loss({x}, {y})")
same_shape_loss("l1_loss", "F.l1_loss({x}, {y})")
same_shape_loss("smooth_l1_loss", "F.smooth_l1_loss({x}, {y})")
same_shape_loss("binary_cross_entropy_with_logits",
                "F.binary_cross_entropy_with_logits({x}, {y})", "prob")


def reduction(name, call, domain="real", requires=None):
    """A reduction over a random axis (or all), sometimes keeping dims; ``{args}`` are its
    keyword arguments."""
    def build(b, x, s):
        if not s:
            return None
        axis = random_axis(b, s)
        keepdim = b.coin(0.3)
        args = [] if axis is None else [f"axis={axis}"]
        if keepdim:
            args.append("keepdim=True")
        expr = call.replace("{x}", x).replace("{args}", ", ".join(args))
        return expr, reduced(s, axis, keepdim)
    SPECS.append(Spec(name, requires or (name,), build, domain))


for _n in ["sum", "mean", "max", "min", "logsumexp", "amax", "amin", "std", "var"]:
    reduction(_n, f"paddle.{_n}({{x}}, {{args}})")
reduction("prod", "paddle.prod({x}, {args})", "positive")
reduction("method_sum", "{x}.sum({args})", requires=("Tensor.sum",))
reduction("method_mean", "{x}.mean({args})", requires=("Tensor.mean",))


@spec("norm", "linalg.norm")
def _norm(b, x, s):
    return f"paddle.linalg.norm({x})", ()


@spec("transpose")
def _transpose(b, x, s):
    if len(s) < 2:
        return None
    perm = b.rng.permutation(len(s)).tolist()
    return f"paddle.transpose({x}, perm={perm})", tuple(s[p] for p in perm)


@spec("T", "Tensor.T")
def _T(b, x, s):
    if len(s) != 2:
        return None
    return f"{x}.T", (s[1], s[0])


@spec("reshape")
def _reshape(b, x, s):
    t = factor_shape(b, numel(s))
    return f"paddle.reshape({x}, {list(t)})", t


@spec("flatten")
def _flatten(b, x, s):
    if not s:
        return None
    return f"paddle.flatten({x})", (numel(s),)


@spec("unsqueeze")
def _unsqueeze(b, x, s):
    if len(s) >= 3:
        return None
    a = b.int(0, len(s))
    return f"paddle.unsqueeze({x}, axis={a})", s[:a] + (1,) + s[a:]


@spec("squeeze")
def _squeeze(b, x, s):
    ones = [i for i, d in enumerate(s) if d == 1]
    if not ones:
        return None
    a = b.choice(ones)
    return f"paddle.squeeze({x}, axis={a})", s[:a] + s[a + 1:]


@spec("flip")
def _flip(b, x, s):
    if not s:
        return None
    a = b.int(0, len(s) - 1)
    return f"paddle.flip({x}, axis=[{a}])", s


@spec("roll")
def _roll(b, x, s):
    if not s:
        return None
    a = b.int(0, len(s) - 1)
    return f"paddle.roll({x}, shifts=1, axis={a})", s


@spec("tile")
def _tile(b, x, s):
    if not s:
        return None
    reps = [b.int(1, 2) for _ in s]
    return f"paddle.tile({x}, {reps})", tuple(d * r for d, r in zip(s, reps))


@spec("expand")
def _expand(b, x, s):
    if len(s) >= 3:
        return None
    t = (b.int(2, 3),) + s
    return f"paddle.expand({x}, {list(t)})", t


@spec("broadcast_to")
def _broadcast_to(b, x, s):
    if len(s) >= 3:
        return None
    t = (2,) + tuple(3 if d == 1 and b.coin() else d for d in s)
    return f"paddle.broadcast_to({x}, {list(t)})", t


@spec("concat")
def _concat(b, x, s):
    if not s:
        return None
    a = b.int(0, len(s) - 1)
    ys = s[:a] + (b.int(1, 3),) + s[a + 1:]
    y = b.leaf(ys)
    return f"paddle.concat([{x}, {y}], axis={a})", s[:a] + (s[a] + ys[a],) + s[a + 1:]


@spec("stack")
def _stack(b, x, s):
    a = b.int(0, len(s))
    y = b.leaf(s)
    return f"paddle.stack([{x}, {y}], axis={a})", s[:a] + (2,) + s[a:]


@spec("add_n")
def _add_n(b, x, s):
    return f"paddle.add_n([{x}, {b.leaf(s)}])", s


@spec("split")
def _split(b, x, s):
    axes = [i for i, d in enumerate(s) if d % 2 == 0]
    if not axes:
        return None
    a = b.choice(axes)
    k = b.int(0, 1)
    return f"paddle.split({x}, 2, axis={a})[{k}]", s[:a] + (s[a] // 2,) + s[a + 1:]


@spec("unbind")
def _unbind(b, x, s):
    if not s:
        return None
    a = b.int(0, len(s) - 1)
    return f"paddle.unbind({x}, axis={a})[{s[a] - 1}]", s[:a] + s[a + 1:]


@spec("getitem", "Tensor.__getitem__")
def _getitem(b, x, s):
    if not s:
        return None
    k = b.int(1, s[-1])
    if len(s) >= 2 and b.coin():
        return f"{x}[{s[0] - 1}, ..., :{k}]", s[1:-1] + (k,)
    return f"{x}[..., :{k}]", s[:-1] + (k,)


@spec("gather")
def _gather(b, x, s):
    if not s:
        return None
    idx = [b.int(0, s[0] - 1) for _ in range(b.int(1, 3))]
    return f"paddle.gather({x}, paddle.to_tensor({idx}))", (len(idx),) + s[1:]


@spec("index_select")
def _index_select(b, x, s):
    if not s:
        return None
    a = b.int(0, len(s) - 1)
    idx = [b.int(0, s[a] - 1) for _ in range(b.int(1, 3))]
    return (f"paddle.index_select({x}, paddle.to_tensor({idx}), axis={a})",
            s[:a] + (len(idx),) + s[a + 1:])


@spec("matmul")
def _matmul(b, x, s):
    if not s:
        return None
    k = b.int(1, 3)
    y = b.leaf((s[-1], k))
    return f"paddle.matmul({x}, {y})", s[:-1] + (k,)


@spec("matmul_tr", "matmul")
def _matmul_tr(b, x, s):
    if len(s) < 2:
        return None
    k = b.int(1, 3)
    y = b.leaf((k, s[-2]))
    return f"paddle.matmul({x}, {y}, transpose_x=True, transpose_y=True)", s[:-2] + (s[-1], k)


@spec("op_matmul", "Tensor.__matmul__")
def _op_matmul(b, x, s):
    """``y @ x`` with a fresh matrix ``y`` on the left (x's batch dims broadcast)."""
    if not s:
        return None
    k = b.int(1, 3)
    if len(s) == 1:
        return f"({b.leaf((k, s[0]))} @ {x})", (k,)
    y = b.leaf((k, s[-2]))
    return f"({y} @ {x})", s[:-2] + (k, s[-1])


@spec("linear", "nn.functional.linear")
def _linear(b, x, s):
    if not s:
        return None
    k = b.int(1, 3)
    w = b.leaf((s[-1], k))
    bias = b.leaf((k,))
    return f"F.linear({x}, {w}, {bias})", s[:-1] + (k,)


@spec("tril")
def _tril(b, x, s):
    if len(s) != 2:
        return None
    return f"paddle.tril({x})", s


@spec("triu")
def _triu(b, x, s):
    if len(s) != 2:
        return None
    return f"paddle.triu({x})", s


# ====================================================================== programs
@dataclass
class Step:
    index: int          # h<index>
    spec: str
    expr: str
    shape: tuple
    input_tag: str      # the gradient tag of this step's main input (G<i-1> or L0)
    leaf_tags: list     # gradient tags of the fresh leaves it used


@dataclass
class Program:
    seed: int
    dtype: str
    leaves: list
    steps: list
    cotangent: np.ndarray

    def source(self) -> str:
        lines = [HEADER, "try:"]
        for leaf in self.leaves:
            lines.append(f"    {leaf.name} = paddle.to_tensor({literal(leaf.values)}, "
                         f"dtype='{self.dtype}', stop_gradient=False)")
        prev = self.leaves[0].name
        for st in self.steps:
            lines.append(f"    h{st.index} = {st.expr.replace('{x}', prev)}  # {st.spec}")
            lines.append(f"    keep(h{st.index})")
            lines.append(f"    record('F{st.index}', h{st.index})")
            prev = f"h{st.index}"
        lines.append(f"    {prev}.backward(paddle.to_tensor({literal(self.cotangent)}, "
                     f"dtype='{self.dtype}'))")
        for st in self.steps:
            lines.append(f"    record('G{st.index}', h{st.index}.grad)")
        for k, leaf in enumerate(self.leaves):
            lines.append(f"    record('L{k}', {leaf.name}.grad)")
        lines.append("except Exception as e:  # noqa: BLE001")
        lines.append("    error(e)")
        return "\n".join(lines) + "\n"


HEADER = '''"""A random program written by tools/compare_with_paddle.py."""
import json
import paddle
import paddle.nn.functional as F


def record(tag, t):
    if t is None:
        print(json.dumps({"tag": tag, "none": True}))
        return
    print(json.dumps({"tag": tag, "shape": list(t.shape), "dtype": str(t.dtype),
                      "stop_gradient": t.stop_gradient, "values": t.numpy().tolist(),
                      "repr": repr(t)}))


def keep(t):
    if not t.stop_gradient:
        t.retain_grads()


def error(e):
    print(json.dumps({"tag": "ERROR", "type": type(e).__name__, "msg": str(e)[:300]}))

'''


def literal(values: np.ndarray) -> str:
    return repr(values.tolist())


def generate(seed: int, specs: list) -> Program:
    b = Builder(np.random.default_rng(seed), "float64" if seed % 5 == 0 else "float32")
    shape = random_shape(b)
    b.leaf(shape)
    b.commit()
    steps = []
    want = b.int(3, 8)
    tries = 0
    while len(steps) < want and tries < 200:
        tries += 1
        sp = b.choice(specs)
        before = len(b.leaves)
        result = sp.build(b, "{x}", shape)
        if result is None or numel(result[1]) > MAX_NUMEL:
            b.rollback()
            continue
        expr, new_shape = result
        leaf_tags = [f"L{k}" for k in range(before, before + len(b.pending))]
        b.commit()
        for name, adapter in DOMAIN_ADAPTERS[sp.domain]:
            add_step(steps, name, adapter, shape, [])
        add_step(steps, sp.name, expr, new_shape, leaf_tags)
        shape = tuple(new_shape)
    cot = np.round(b.rng.uniform(-1.0, 1.0, size=shape), 2)
    return Program(seed, b.dtype, b.leaves, steps, cot)


def add_step(steps: list, name: str, expr: str, shape, leaf_tags: list) -> None:
    i = len(steps) + 1
    steps.append(Step(i, name, expr, tuple(shape), f"G{i - 1}" if i > 1 else "L0", leaf_tags))


HAS_PATHS = """
import json, sys
import paddle
import paddle.nn.functional


def has(path):
    obj = paddle
    for part in path.split("."):
        if part == "Tensor" and obj is paddle:
            obj = paddle.Tensor
            continue
        try:
            obj = getattr(obj, part)
        except Exception:
            return False
        if obj is getattr(object, part, None):  # only object's default (e.g. __gt__)
            return False
    return True


print(json.dumps({p: has(p) for p in json.loads(sys.argv[1])}))
"""


def which_exist(python: str, paths: list) -> dict:
    """{path: exists} for attribute paths like "nn.functional.relu" under that ``paddle``."""
    out = subprocess.run([python, "-c", HAS_PATHS, json.dumps(paths)], capture_output=True,
                         stdin=subprocess.DEVNULL, timeout=120)
    if out.returncode:
        raise SystemExit(f"cannot import paddle with {python}:\n{out.stderr.decode()[-2000:]}")
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def available_specs(paddle_python: str, only=None) -> tuple[list, list]:
    """The specs whose functions both real Paddle and gradrepl have (names in ``only``, if given).

    Returns (used, missing) where ``missing`` is [(spec, "paddle" | "gradrepl")].
    """
    specs = [sp for sp in SPECS if not only or sp.name in only]
    paths = sorted({r for sp in specs for r in sp.requires})
    in_paddle = which_exist(paddle_python, paths)
    in_gradrepl = _gradrepl_has(paths)
    use, missing = [], []
    for sp in specs:
        if not all(in_paddle[r] for r in sp.requires):
            missing.append((sp, "paddle"))
        elif not all(in_gradrepl[r] for r in sp.requires):
            missing.append((sp, "gradrepl"))
        else:
            use.append(sp)
    return use, missing


def _gradrepl_has(paths) -> dict:
    """The same probe on ``gradrepl.paddle`` in this process (nothing global is changed)."""
    import gradrepl.paddle as gp
    import gradrepl.paddle.nn.functional  # noqa: F401

    def has(path):
        obj = gp
        for part in path.split("."):
            if part == "Tensor" and obj is gp:
                obj = gp.Tensor
                continue
            try:
                obj = getattr(obj, part)
            except Exception:  # noqa: BLE001 - a lazy submodule may fail to import
                return False
            if obj is getattr(object, part, None):  # only object's default (e.g. __gt__)
                return False
        return True

    return {p: has(p) for p in paths}


# ====================================================================== running and comparing
def run(cmd: list, path: str, timeout: float):
    try:
        p = subprocess.run(cmd + [path], stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout)
        return p.stdout, p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return b"", -1, "timeout"


def parse(out: bytes) -> dict:
    records = {}
    for line in out.decode("utf-8", "replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            records.setdefault("TEXT", []).append(line)
            continue
        if isinstance(rec, dict) and "tag" in rec:
            records[rec["tag"]] = rec
    return records


def _floats(values):
    return np.asarray(values, dtype=np.float64)


def compare_record(a: dict | None, b: dict | None, rtol, atol) -> str:
    """'same' | 'display' | 'rounding' | 'mismatch' for one tensor record (Paddle a, gradrepl b)."""
    if a is None or b is None:
        return "same" if a is b else "mismatch"
    if a.get("none") or b.get("none"):
        return "same" if a.get("none") == b.get("none") else "mismatch"
    if any(a.get(k) != b.get(k) for k in ("shape", "dtype", "stop_gradient")):
        return "mismatch"
    if json.dumps(a["values"]) == json.dumps(b["values"]):
        return "same" if a["repr"] == b["repr"] else "display"
    try:
        x, y = _floats(a["values"]), _floats(b["values"])
    except (TypeError, ValueError):
        return "mismatch"
    if x.shape == y.shape and np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
        return "rounding"
    return "mismatch"


SEVERITY = ["same", "display", "rounding", "mismatch"]


@dataclass
class Outcome:
    seed: int
    kind: str             # identical | display | rounding | mismatch | error | both-error
    blame: str = ""       # "<spec> forward|backward|error" or ""
    detail: str = ""


def blame(program: Program, pr: dict, gr: dict, rtol, atol, worst: str) -> tuple[str, str]:
    """The step responsible for the first divergence of severity ``worst``, and the record
    (tag) that shows it."""
    level = SEVERITY.index(worst)

    def bad(tag):
        return SEVERITY.index(compare_record(pr.get(tag), gr.get(tag), rtol, atol)) >= level

    for st in program.steps:
        if bad(f"F{st.index}"):
            return f"{st.spec} forward", f"F{st.index}"
    for st in reversed(program.steps):
        if bad(f"G{st.index}"):
            continue
        for tag in [st.input_tag] + st.leaf_tags:
            if bad(tag):
                return f"{st.spec} backward", tag
    return ("printing" if worst == "display" else "unattributed"), ""


def first_difference(a: dict | None, b: dict | None) -> str:
    """Where two records of one tensor first differ, in words."""
    if not a or not b or a.get("none") or b.get("none"):
        return f"paddle {'None' if not a or a.get('none') else 'a tensor'}, " \
               f"gradrepl {'None' if not b or b.get('none') else 'a tensor'}"
    for k in ("shape", "dtype", "stop_gradient"):
        if a.get(k) != b.get(k):
            return f"{k}: paddle {a.get(k)}, gradrepl {b.get(k)}"
    try:
        x, y = _floats(a["values"]).ravel(), _floats(b["values"]).ravel()
    except (TypeError, ValueError):
        return "values of different structure"
    for i, (u, v) in enumerate(zip(x, y)):
        if u == v and math.copysign(1, u) != math.copysign(1, v):
            return f"element {i}: signed zero, paddle {float(u)!r}, gradrepl {float(v)!r}"
        if not (u == v or (math.isnan(u) and math.isnan(v))):
            return f"element {i}: paddle {float(u)!r}, gradrepl {float(v)!r} ({a['dtype']})"
    return "repr differs" if a.get("repr") != b.get("repr") else ""


def classify(program: Program, p_out: bytes, g_out: bytes, rtol, atol) -> Outcome:
    if p_out == g_out:
        return Outcome(program.seed, "identical")
    pr, gr = parse(p_out), parse(g_out)
    pe, ge = pr.get("ERROR"), gr.get("ERROR")
    if pe or ge or not pr or not gr:
        if pe and ge and pe["type"] == ge["type"]:
            return Outcome(program.seed, "both-error", detail=pe["type"])
        where = first_missing_step(program, pr, gr)
        what = (f"paddle: {pe['type'] if pe else 'ok' if pr else 'crash'}, "
                f"gradrepl: {ge['type'] + ': ' + ge['msg'][:120] if ge else 'ok' if gr else 'crash'}")
        return Outcome(program.seed, "error", f"{where} error", what)
    tags = [t for t in pr if t != "TEXT"]
    worst = max((compare_record(pr.get(t), gr.get(t), rtol, atol) for t in tags),
                key=SEVERITY.index, default="same")
    if worst == "same":
        worst = "display"  # bytes differ yet every record agrees: stray text
    who, tag = blame(program, pr, gr, rtol, atol, worst)
    detail = f"{tag} {first_difference(pr.get(tag), gr.get(tag))}" if tag else ""
    return Outcome(program.seed, worst, who, detail)


def first_missing_step(program: Program, pr: dict, gr: dict) -> str:
    for st in program.steps:
        if (f"F{st.index}" in pr) != (f"F{st.index}" in gr):
            return st.spec
    return "backward"


# One real-Paddle process runs many programs (importing paddle takes a second or more); each
# program's stdout goes to PROGRAM.paddle.out. Programs catch their own exceptions.
PADDLE_DRIVER = """
import contextlib, io, json, runpy, sys
for path in sys.argv[1:]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            runpy.run_path(path, run_name="__main__")
        except BaseException as e:
            print(json.dumps({"tag": "ERROR", "type": type(e).__name__, "msg": str(e)[:300]}))
    with open(path[:-3] + ".paddle.out", "w", encoding="utf-8") as f:
        f.write(buf.getvalue())
"""


def program_path(workdir: str, program: Program) -> str:
    return os.path.join(workdir, f"prog_{program.seed:05d}.py")


def run_paddle(paths: list, args) -> None:
    """Real Paddle on every program: ``args.j`` processes, each running a share of them."""
    if args.no_batch:
        def one(path):
            out, _, _ = run([args.python], path, args.timeout)
            with open(path[:-3] + ".paddle.out", "wb") as f:
                f.write(out)
        with cf.ThreadPoolExecutor(max(1, args.j)) as ex:
            list(ex.map(one, paths))
        return
    chunks = [paths[k::max(1, args.j)] for k in range(max(1, args.j))]

    def batch(chunk):
        if chunk:
            subprocess.run([args.python, "-c", PADDLE_DRIVER] + chunk, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=args.timeout * len(chunk))
    with cf.ThreadPoolExecutor(len(chunks)) as ex:
        list(ex.map(batch, chunks))


def read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def check_program(program: Program, args, workdir: str) -> tuple[Outcome, Program]:
    """gradrepl on one program (``gradrepl run --paddle X``), compared with Paddle's output."""
    path = program_path(workdir, program)
    p_out = read_bytes(path[:-3] + ".paddle.out")
    g_out, _, g_err = run(shlex.split(args.gradrepl) + ["--paddle", args.paddle], path,
                          args.timeout)
    outcome = classify(program, p_out, g_out, args.rtol, args.atol)
    if outcome.kind == "identical" and not args.keep_all:
        for suffix in (".py", ".paddle.out"):
            os.remove(path[:-3] + suffix)
    else:
        with open(path[:-3] + ".gradrepl.out", "wb") as f:
            f.write(g_out)
        if g_err:
            with open(path[:-3] + ".gradrepl.err", "w") as f:
                f.write(g_err)
    return outcome, program


# ====================================================================== report
KINDS = ["identical", "rounding", "display", "mismatch", "error", "both-error"]
KIND_TEXT = {
    "identical": "identical bytes",
    "rounding": "values within tolerance, not bitwise equal",
    "display": "values bitwise equal, printing differs",
    "mismatch": "values beyond tolerance (or shape/dtype/stop_gradient differ)",
    "error": "one side raised / different errors",
    "both-error": "both raised the same error type",
}


def report(results, args, workdir, missing):
    n = len(results)
    kinds = Counter(o.kind for o, _ in results)
    print(f"\nPaddle ({args.python}) vs gradrepl --paddle {args.paddle}: {n} programs, "
          f"seeds {args.seed}..{args.seed + n - 1}, rtol={args.rtol:g} atol={args.atol:g}")
    for k in KINDS:
        print(f"  {kinds.get(k, 0):5d}  {k:<11} {KIND_TEXT[k]}")
    exact = kinds.get("identical", 0)
    close = exact + kinds.get("rounding", 0) + kinds.get("display", 0)
    print(f"  exact: {exact}/{n}   within tolerance: {close}/{n}")

    used = Counter()
    for _, prog in results:
        used.update({st.spec for st in prog.steps})
    blamed = defaultdict(Counter)
    for o, _ in results:
        if o.kind not in ("identical", "both-error"):
            blamed[o.blame][o.kind] += 1
    if blamed:
        print("\nDivergences by blamed step (kind counts; programs using the function):")
        for who, c in sorted(blamed.items(), key=lambda kv: -sum(kv[1].values())):
            fn = who.split(" ")[0]
            print(f"  {who:<28} {dict(c)}  (used in {used.get(fn, 0)})")
    bad = [(o, p) for o, p in results if o.kind not in ("identical",)]
    if bad and args.verbose:
        print("\nPrograms:")
        for o, p in bad:
            print(f"  prog_{p.seed:05d}.py  {o.kind:<10} {o.blame}  {o.detail}")
    if bad:
        print(f"\nNon-identical programs and both outputs are in {workdir}")
    for where in ("gradrepl", "paddle"):
        names = sorted(s.name for s, w in missing if w == where)
        if names:
            print(f"\nNot generated ({where} lacks them): {', '.join(names)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", required=True,
                    help="a Python with real paddlepaddle installed (e.g. /tmp/pd3/bin/python)")
    ap.add_argument("--paddle", default="3", help="gradrepl profile: 3 or 2.6 (match --python)")
    ap.add_argument("--gradrepl", default=f"{shlex.quote(sys.executable)} -m gradrepl run",
                    help="command prefix running a script with gradrepl (default: %(default)s)")
    ap.add_argument("-n", type=int, default=200, help="number of programs")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first program")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2, help="parallel programs")
    ap.add_argument("--ops", default="", help="comma-separated spec names to draw from")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-6)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--out", default="", help="directory for non-identical programs")
    ap.add_argument("--list", action="store_true", help="list the functions and exit")
    ap.add_argument("--no-batch", action="store_true",
                    help="one Paddle process per program (default: a few processes run them all)")
    ap.add_argument("--keep-all", action="store_true", help="keep identical programs too")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every divergent program")
    args = ap.parse_args(argv)

    only = {s.strip() for s in args.ops.split(",") if s.strip()}
    specs, missing = available_specs(args.python, only or None)
    if args.list:
        print("used:", " ".join(s.name for s in specs))
        for where in ("gradrepl", "paddle"):
            names = [s.name for s, w in missing if w == where]
            print(f"not in {where}:", " ".join(names) or "-")
        return 0
    if not specs:
        print("no functions to draw from", file=sys.stderr)
        return 2
    workdir = args.out or tempfile.mkdtemp(prefix=f"compare_paddle{args.paddle}_")
    os.makedirs(workdir, exist_ok=True)
    programs = [generate(args.seed + i, specs) for i in range(args.n)]
    for prog in programs:
        with open(program_path(workdir, prog), "w") as f:
            f.write(prog.source())
    print(f"  running {len(programs)} programs with {args.python}", file=sys.stderr)
    run_paddle([program_path(workdir, p) for p in programs], args)
    print("  running them with gradrepl", file=sys.stderr)
    results = []
    with cf.ThreadPoolExecutor(max(1, args.j)) as ex:
        for k, res in enumerate(ex.map(lambda p: check_program(p, args, workdir), programs)):
            results.append(res)
            if (k + 1) % 20 == 0:
                print(f"  {k + 1}/{len(programs)} programs", file=sys.stderr)
    report(results, args, workdir, missing)
    return 0 if all(o.kind == "identical" for o, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
