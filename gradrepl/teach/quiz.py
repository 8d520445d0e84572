"""Exercises that check the student's own gradient.

A quiz runs a script (or a session file), hides the gradients it chose, and asks for each one.
The student types a number, a list or an expression (``2*3``, ``[1, 2]``, ``d * b``: the names
of the script's tensors stand for their values). The answer is right when it equals the
engine's gradient to the digits printed (or to the digits the student typed, from three on).

Where it is wrong, the quiz says which step of the chain rule went astray. ``why`` (viz/why.py)
splits the gradient into paths, each the product of the local derivatives along it; the quiz
builds from them the answers a student arrives at by a known slip and compares:

- a forgotten path (the total minus one path's contribution), or one path alone;
- a missing broadcast sum (the un-reduced gradient of a broadcast input, or one row of it);
- a path with a local derivative left out, or its local derivatives added instead of
  multiplied;
- one backward() of several (the gradient accumulates in ``.grad``), or one of them missing;
- a flipped sign, and the gradient of another tensor of the exercise.

Then it shows the steps: the ``why`` text.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field

import numpy as np

MAX_WHOLE = 6   # a gradient of more elements is asked one element at a time


class QuizError(Exception):
    """A bad argument or a failed script: one line for the user, exit status 2."""


class AnswerError(ValueError):
    """An answer that cannot be read: the student is told why and may type it again."""


# ---------------------------------------------------------------------------- answers
_FUNCS = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh, "sin": np.sin,
          "cos": np.cos, "sum": np.sum, "mean": np.mean, "abs": np.abs,
          "sigmoid": lambda v: 1.0 / (1.0 + np.exp(-v))}
_CONSTS = {"e": math.e, "pi": math.pi}
_BIN = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide,
        ast.Pow: np.power, ast.MatMult: np.matmul}


def parse_answer(text: str, namespace=None) -> np.ndarray:
    """The student's answer as a float64 array: a number, a (nested) list, or an expression of
    numbers, lists, + - * / ** @, exp log sqrt tanh sigmoid sum mean abs, and the names of the
    script's tensors (their values)."""
    s = text.strip()
    if not s:
        raise AnswerError("no answer: type a number, a list such as [1, 2], or an expression")
    if len(s) > 2000:
        raise AnswerError("an answer of more than 2000 characters")
    try:
        tree = ast.parse(s, mode="eval")
    except SyntaxError:
        raise AnswerError(f"cannot read {s!r}: type a number (20, 0.5, 1e-3), a list ([1, 2]) "
                          "or an expression (2*3 + 1)") from None

    def ev(n, depth=0):
        if depth > 60:
            raise AnswerError("an answer nested too deeply")
        if isinstance(n, ast.Expression):
            return ev(n.body, depth + 1)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) \
                and not isinstance(n.value, bool):
            return np.float64(n.value)
        if isinstance(n, (ast.List, ast.Tuple)):
            items = [ev(x, depth + 1) for x in n.elts]
            try:
                return np.array(items, dtype=np.float64)
            except ValueError:
                raise AnswerError("the rows of a list must be of one length") from None
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = ev(n.operand, depth + 1)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and type(n.op) in _BIN:
            a, b = ev(n.left, depth + 1), ev(n.right, depth + 1)
            if isinstance(n.op, ast.Pow) and np.max(np.abs(b)) > 64:
                raise AnswerError("an exponent larger than 64")
            try:
                with np.errstate(all="ignore"):
                    return np.asarray(_BIN[type(n.op)](a, b), dtype=np.float64)
            except ValueError as exc:
                raise AnswerError(f"the shapes do not fit: {exc}") from None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS \
                and len(n.args) == 1 and not n.keywords:
            with np.errstate(all="ignore"):
                return np.asarray(_FUNCS[n.func.id](ev(n.args[0], depth + 1)), np.float64)
        if isinstance(n, ast.Name):
            v = _name_value(n.id, namespace)
            if v is not None:
                return v
            raise AnswerError(f"no tensor or number named {n.id!r} in the exercise")
        raise AnswerError(f"cannot read {s!r}: only numbers, lists, + - * / ** and the "
                          "exercise's tensor names")

    return np.asarray(ev(tree), dtype=np.float64)


def _name_value(name, namespace):
    from ..engine.tensor import Tensor

    if namespace and name in namespace:
        v = namespace[name]
        if isinstance(v, Tensor) and v.data.dtype.kind in "biuf":
            return np.asarray(v.data, dtype=np.float64)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return np.float64(v)
    return _CONSTS.get(name)


def typed_tolerance(text: str):
    """Half a unit of the last digit the student typed, when the answer is plain numbers with
    at least three significant digits each (0.333 for 1/3 is right); else None."""
    s = text.strip()
    if not re.fullmatch(r"[\s\[\]\(\),+\-0-9.eE]*", s):
        return None
    nums = re.findall(r"[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?", s)
    if not nums:
        return None
    tol = 0.0
    for lit in nums:
        mant, _, exp = lit.lower().partition("e")
        digits = mant.replace(".", "").lstrip("0")
        if len(digits) < 3:
            return None
        decimals = len(mant.split(".", 1)[1]) if "." in mant else 0
        tol = max(tol, 0.5 * 10.0 ** (-decimals + (int(exp) if exp else 0)))
    return tol


def _close(a, b, text=None, rtol=1e-4):
    """Whether answer ``a`` equals ``b`` to the printed digits (or the student's own)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    if a.size == b.size and a.shape != b.shape and (a.size == 1 or b.ndim <= 1 or a.ndim <= 1):
        if a.size != 1 and a.ndim > 1 and b.ndim > 1:
            return False
        a = a.reshape(b.shape)
    elif a.shape != b.shape:
        return False
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    tol = rtol * np.maximum(np.abs(b), 0.01 * scale) + 1e-7
    extra = typed_tolerance(text) if text is not None else None
    if extra is not None:
        tol = np.maximum(tol, extra * 1.0000001)
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(a - b) <= tol))


# ---------------------------------------------------------------------------- questions
@dataclass
class Question:
    name: str                 # the tensor's name: "a", "model.fc2.bias"
    tensor: object
    element: tuple | None     # one element asked for, when the gradient is large
    value: np.ndarray         # the engine's gradient (of the element, when one)
    explanation: object       # why's Explanation
    dialect: str = "paddle"

    @property
    def label(self):
        el = "" if self.element is None else "[" + ", ".join(map(str, self.element)) + "]"
        return f"{self.name}.grad{el}"

    @property
    def shape(self):
        return tuple(np.shape(self.value))

    def prompt_words(self):
        """What form the answer takes: one number, 3 numbers, 2 rows of 3."""
        shape = list(self.tensor.data.shape)
        if self.element is not None:
            return (f"one number: the element {list(self.element)} of the gradient "
                    f"({self.name} has shape {shape})")
        n = int(np.prod(self.shape)) if self.shape else 1
        if n == 1:
            return "one number" + (f" ({self.name} has shape {shape})" if shape else "")
        if len(self.shape) == 1:
            return f"a list of {n} numbers ({self.name} has shape {shape})"
        if len(self.shape) == 2:
            return (f"{self.shape[0]} rows of {self.shape[1]} "
                    f"number{'s' if self.shape[1] != 1 else ''}, [[...], [...]] "
                    f"({self.name} has shape {shape})")
        return f"a nested list of shape {shape}"


def _is_leaf_with_grad(t):
    return t.grad_node is None and not t.stop_gradient and t._grad is not None


def pick_element(g):
    """The element asked for in a large gradient: the largest in size (the first of equals)."""
    g = np.asarray(g)
    k = int(np.argmax(np.abs(g).reshape(-1)))
    return tuple(int(i) for i in np.unravel_index(k, g.shape))


def make_questions(namespace, log, targets=None, max_whole=MAX_WHOLE) -> list:
    """The questions of an exercise: each named target (NAME, NAME.grad[i, j]), or else every
    named leaf that a recorded backward gave a gradient, in creation order."""
    from ..viz.model import names_from_namespace
    from ..viz.why import lookup, parse_target, why

    names = names_from_namespace(namespace)
    chosen = []
    if targets:
        for text in targets:
            try:
                name, element = parse_target(text)
                t = lookup(namespace, name)
            except (KeyError, ValueError) as exc:
                raise QuizError(str(exc.args[0]) if exc.args else str(exc)) from None
            chosen.append((name, t, element))
    else:
        seen = set()
        for tid, name in names["tensors"].items():
            t = _find(namespace, tid, name)
            if t is None or id(t) in seen or not _is_leaf_with_grad(t):
                continue
            seen.add(id(t))
            chosen.append((name, t, None))
        chosen.sort(key=lambda c: c[1]._uid)
    out = []
    for name, t, element in chosen:
        g = t._grad.data if t._grad is not None else None
        if element is None and g is not None and g.size > max_whole:
            element = pick_element(g)
        try:
            ex = why(t, namespace=namespace, element=element, log=log, name=name, names=names)
        except IndexError as exc:
            raise QuizError(str(exc)) from None
        value = ex.value_of(ex.engine)
        if value is None:
            if targets:
                raise QuizError(f"{name} has no gradient to ask for: "
                                + (ex.notes[0] if ex.notes else "no backward() reached it"))
            continue
        from ..viz.why import TorchWords

        out.append(Question(name, t, element, np.asarray(value, np.float64), ex,
                            "torch" if isinstance(ex.words, TorchWords) else "paddle"))
    return out


def _find(namespace, tid, name):
    from ..viz.why import lookup

    base = name.split("[", 1)[0]
    try:
        t = lookup(namespace, base)
        if id(t) == tid:
            return t
    except KeyError:
        pass
    v = namespace.get(base)
    if isinstance(v, (list, tuple)):
        for x in v:
            if id(x) == tid:
                return x
    if isinstance(v, dict):
        for x in v.values():
            if id(x) == tid:
                return x
    return None


# ---------------------------------------------------------------------------- diagnosis
@dataclass
class Slip:
    kind: str        # "forgot-path" | "one-path" | "broadcast" | "factor" | "added" |
    #                  "accumulation" | "seed" | "sign" | "other-tensor"
    value: np.ndarray
    words: str


@dataclass
class Verdict:
    right: bool
    answer: np.ndarray | None
    text: str                 # what the student reads (the verdict, the diagnosis)
    slip: Slip | None = None
    steps: str = ""           # the why text
    notes: list = field(default_factory=list)


def _v(ex, a):
    v = ex.value_of(a)
    return None if v is None else np.asarray(v, np.float64)


def _num(x):
    from ..viz.why import _fmt

    a = np.asarray(x)
    if a.ndim > 1 and a.size <= 12:   # a small matrix in its rows, as the student types it
        return "[" + ", ".join(_num(r) for r in a) + "]"
    return _fmt(x)


def _path(t):
    from ..viz.why import _path_text

    return _path_text(t)


def slips(q: Question, others=()) -> list:
    """The wrong answers a known slip gives, each with the words that name it."""
    from ..viz.why import _factor

    ex = q.explanation
    G = q.value
    out = []
    terms = list(ex.before_change or ex.terms)
    earlier = [t for t in terms if t.kind == "earlier"]
    last = [t for t in terms if t.kind != "earlier"]
    paths = [t for t in last if t.kind in ("path", "vector")]
    grad = ex.words.grad_name(q.name) if q.dialect == "paddle" else f"{q.name}.grad"
    target = q.label

    # accumulation: one backward() of several
    if earlier and last:
        vals_last = [_v(ex, t.value) for t in last]
        if all(v is not None for v in vals_last):
            lv = sum(vals_last)
            n_runs = len([t for t in earlier if t.note.endswith("added")]) + 1
            held = [t for t in earlier if t.note == "what .grad held before"]
            if held:
                out.append(Slip("accumulation", lv,
                                f"that is what the last backward() added; {target} also keeps "
                                f"what it held before ({_num(_v(ex, held[0].value))}): "
                                "gradients accumulate until they are cleared"))
            else:
                out.append(Slip("accumulation", lv,
                                f"that is what one backward() gives; backward() ran {n_runs} "
                                f"times on this graph and each call added its gradient into "
                                f"{target} (gradients accumulate until cleared): "
                                + " + ".join(_num(_v(ex, t.value)) for t in earlier
                                             if t.kind == 'earlier') + f" + {_num(lv)}"))
            for k, t in enumerate(earlier):
                ev_ = _v(ex, t.value)
                if ev_ is not None:
                    out.append(Slip("accumulation", G - ev_,
                                    f"you left out what an earlier backward() added "
                                    f"({_num(ev_)}): {target} accumulates over all "
                                    f"{n_runs} backward() calls"))
            for t in paths:
                tv = _v(ex, t.value)
                if tv is not None and len(paths) > 1:
                    out.append(Slip("forgot-path", lv - tv,
                                    f"two slips: you counted one backward() only, and in it "
                                    f"you left out the path {_path(t)} ({_num(tv)})"))
    base = G
    # forgotten paths, single paths
    if len(paths) >= 2:
        for t in paths:
            tv = _v(ex, t.value)
            if tv is None:
                continue
            out.append(Slip("forgot-path", base - tv,
                            f"you left out the path {_path(t)}, which contributes {_num(tv)}: "
                            f"{target} is the sum over every path from the root to "
                            f"{q.name}" + _sum_words(ex, paths)))
        if len(paths) >= 3:
            for t in paths:
                tv = _v(ex, t.value)
                if tv is not None:
                    out.append(Slip("one-path", tv,
                                    f"that is the path {_path(t)} alone; {len(paths)} paths "
                                    f"reach {q.name} and they add up" + _sum_words(ex, paths)))
    # a broadcast left un-summed
    for t in paths:
        if not t.reduced or t.pre is None:
            continue
        out_shape, in_shape, who = t.reduced[-1]
        pre = np.asarray(t.pre, np.float64)
        rest = base - _v(ex, t.value) if _v(ex, t.value) is not None else None
        n = int(np.prod(out_shape)) // max(1, int(np.prod(in_shape)))
        why_words = (f"{who} {list(in_shape)} was broadcast to {list(out_shape)} in the "
                     f"forward pass, so its gradient sums the gradient over the {n} broadcast "
                     f"copies back to shape {list(in_shape)}")
        if q.element is None and rest is not None:
            if pre.shape == tuple(out_shape):
                try:
                    unreduced = pre + (rest if np.any(rest) else 0)
                except ValueError:
                    unreduced = pre
                out.append(Slip("broadcast", unreduced,
                                f"that is the gradient before the broadcast sum (shape "
                                f"{list(out_shape)}): {why_words}"))
            one = _one_copy(pre, in_shape)
            if one is not None:
                out.append(Slip("broadcast", one + rest,
                                f"that is one copy's share, without the broadcast sum: "
                                f"{why_words}"))
        elif q.element is not None:
            from ..viz.why import _broadcast_addends

            adds = _broadcast_addends(pre, in_shape, q.element)
            if adds:
                rest_e = base - _v(ex, t.value)
                for a in dict.fromkeys(float(x) for x in adds):
                    out.append(Slip("broadcast", np.float64(a) + rest_e,
                                    f"that is one broadcast copy's share ({_num(a)}), "
                                    f"without the sum over the {len(adds)} copies: "
                                    f"{why_words}"))
    # a path mis-multiplied: a local derivative left out, or added instead of multiplied
    for t in paths:
        if t.kind != "path" or not t.factors or not t.positional or t.reduced:
            continue
        tv = _v(ex, t.value)
        locs = []
        for sym, local in t.factors:
            if local is None:
                locs = None
                break
            a = np.asarray(local, np.float64)
            if q.element is not None and a.size > 1:
                try:
                    a = a[q.element]
                except (IndexError, TypeError):
                    locs = None
                    break
            locs.append((sym, a))
        if not locs or tv is None:
            continue
        rest = base - tv
        for j, (sym, a) in enumerate(locs):
            if np.all(a == 1) or np.any(a == 0):
                continue
            with np.errstate(all="ignore"):
                dropped = tv / a
            out.append(Slip("factor", rest + dropped,
                            f"in the path {_path(t)} you left out the local derivative "
                            f"{sym} = {_num(a)}: a path contributes the product of ALL the "
                            f"local derivatives along it, "
                            + " * ".join(_factor(s) for s, _a in locs) + f" = {_num(tv)}"))
        if len(locs) >= 2:
            added = sum(a for _s, a in locs)
            out.append(Slip("added", rest + added,
                            f"in the path {_path(t)} you added the local derivatives "
                            f"({' + '.join(_factor(s) for s, _a in locs)}); the chain rule "
                            f"multiplies them: {' * '.join(_factor(s) for s, _a in locs)} = "
                            f"{_num(tv)}"))
    # a weighted root (grad_tensors) forgotten
    run = ex.run
    if run is not None and paths:
        seeds = [np.asarray(v, np.float64) for v in run.seeds.values() if v is not None]
        if len(seeds) == 1 and seeds[0].size == 1 and float(seeds[0].reshape(-1)[0]) not in (0, 1):
            s = float(seeds[0].reshape(-1)[0])
            out.append(Slip("seed", base / s,
                            f"you left out the gradient backward() started from "
                            f"({_num(s)}, given to backward()): every path begins with it"))
    # a mean taken as a sum: its local derivative 1/n left out
    if run is not None:
        for node in sorted(run.nodes, key=lambda n: getattr(n, "uid", 0)):
            op = getattr(node, "op", None)
            if op is None or op.name not in ("mean", "reduce_mean"):
                continue
            try:
                n = int(np.prod(node.in_meta[0][0])) // max(1, int(np.prod(node.out_meta[0][0])))
            except (TypeError, IndexError, AttributeError):
                continue
            if n > 1:
                out.append(Slip("mean", G * n,
                                f"that is {n} times the gradient: the code takes a mean over "
                                f"{n} values, and the local derivative of a mean is 1/{n} "
                                "for each of them (a sum's would be 1)"))
    out.append(Slip("sign", -G, "the sign is flipped: check the sign of each local derivative "
                    "(a minus in a subtraction, a negative value)"))
    for other in others:
        if other is q or other.value.shape != q.value.shape:
            continue
        out.append(Slip("other-tensor", other.value,
                        f"that is {other.label}, the gradient of {other.name}; this exercise "
                        f"asks for {q.name}'s"))
    return out


def _sum_words(ex, paths):
    vals = [_v(ex, t.value) for t in paths]
    if any(v is None for v in vals) or len(vals) > 8:
        return ""
    return ": " + " + ".join(_num(v) for v in vals) + f" = {_num(sum(vals))}"


def _one_copy(pre, in_shape):
    """One broadcast copy of ``pre`` (shape of the broadcast result), in ``in_shape``."""
    in_shape = tuple(in_shape)
    lead = pre.ndim - len(in_shape)
    if lead < 0:
        return None
    sl = pre[(0,) * lead] if lead else pre
    idx = tuple(slice(0, 1) if n == 1 and m != 1 else slice(None)
                for n, m in zip(in_shape, sl.shape))
    sl = sl[idx]
    return sl.reshape(in_shape) if sl.size == int(np.prod(in_shape)) else None


def diagnose(q: Question, answer: np.ndarray, others=()) -> Slip | None:
    """The first known slip whose wrong answer is the student's (none equal to the truth)."""
    for s in slips(q, others):
        v = np.asarray(s.value, np.float64)
        if not np.all(np.isfinite(v)) or _close(v, q.value):
            continue
        if _close(answer, v, rtol=2e-3):
            return s
    return None


def mark(q: Question, text: str, namespace=None, others=()) -> Verdict:
    """Mark the student's answer ``text`` for ``q``."""
    answer = parse_answer(text, namespace)   # (an AnswerError goes to the caller: ask again)
    steps = q.explanation.text()
    G = q.value
    shown = _num(G)
    if _close(answer, G, text):
        tight = _close(answer, G)
        words = f"right: {q.label} = {shown}" + ("" if tight else
                                                  " (to the digits you gave)")
        return Verdict(True, answer, words + "\n", steps=steps)
    slip = None
    shape_words = ""
    if answer.size != G.size and not (answer.size == 1 and G.size == 1):
        slip = diagnose(q, answer, others)
        if slip is None:
            shape_words = (f"{q.label} has shape {list(G.shape)} (the shape of {q.name}), "
                           f"and your answer has shape {list(answer.shape)}")
    else:
        slip = diagnose(q, answer, others)
    lines = [f"wrong: {q.label} = {shown}, not {_num(answer)}"]
    if slip is not None:
        lines.append(slip.words)
    elif shape_words:
        lines.append(shape_words)
    else:
        lines.append("not a slip the quiz can name (a forgotten path, a missing broadcast "
                     "sum, a local derivative left out): compare your steps with these")
    return Verdict(False, answer, "\n".join(lines) + "\n", slip, steps)


# ---------------------------------------------------------------------------- the exercise
def lesson_code(source: str, session: bool = False) -> str:
    """The code a student sees: the statements, without the prints and echoes that would show
    a gradient, up to the last backward() / grad() call."""
    from ..repl.transcript import inputs_of

    if session:
        try:
            parts = inputs_of(source, "<lesson>")
        except Exception:  # noqa: BLE001 - shown as it is
            parts = [source]
        parts = [p for p in parts if not p.lstrip().startswith("%")]
        source = "\n".join(parts) + "\n"
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    keep = []
    last = -1
    prev_end = None
    for node in tree.body:
        seg = ast.get_source_segment(source, node) or ""
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        gap = prev_end is not None and first - prev_end > 1 and keep
        prev_end = getattr(node, "end_lineno", node.lineno)
        if isinstance(node, ast.Expr):
            if session and isinstance(node.value, ast.Call) and _name(node.value.func) in (
                    "backward",):
                pass
            elif not (isinstance(node.value, ast.Call) and _name(node.value.func) not in (
                    "print", "format")):
                continue    # an echo or a print: it would show a value
            if _name(node.value.func) == "print":
                continue
        if re.search(r"\.grad\b|\bgradient\(", seg) and not re.search(r"backward|grad\(", seg):
            continue
        if isinstance(node, ast.For) or isinstance(node, ast.While):
            seg = "\n".join(ln for ln in seg.split("\n") if "print(" not in ln)
        if gap and not session:
            seg = "\n" + seg
        keep.append(seg)
        if re.search(r"\.backward\(|\bgrad\(|autograd\.backward\(", seg):
            last = len(keep)
    if last > 0:
        keep = keep[:last]
    # comments above the statements are kept only when they are the file's header
    return "\n".join(keep).rstrip() + "\n"


def _name(f):
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return ""


@dataclass
class Exercise:
    path: str
    code: str
    questions: list
    namespace: dict


def load_exercise(path, targets=None, profile=None) -> Exercise:
    """Run ``path`` (a script, or a session file) recording its backward runs and make its
    questions."""
    import os

    from ..viz.why import WhyLog, recording

    if not os.path.isfile(path):
        raise QuizError(f"no such file: {path}")
    if profile:
        from ..paddle import profiles

        try:
            profiles.resolve(profile)
        except ValueError as exc:
            raise QuizError(str(exc)) from None
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise QuizError(f"cannot read {path}: {exc}") from None
    session = path.endswith((".pycon", ".session"))
    log = WhyLog()
    if session:
        from ..repl.replay import ReplayError, load, run_transcript
        from ..repl.transcript import TranscriptError

        holder = {}

        class _Obs:
            def before(self, s, run):
                holder["s"] = s

            def after(self, s, run):
                holder["s"] = s

        try:
            t = load(path)
            with recording(log):
                run_transcript(t, profile=profile, observer=_Obs())
        except (ReplayError, TranscriptError) as exc:
            raise QuizError(str(exc)) from None
        s = holder.get("s")
        ns = s.namespace if s is not None else {}
        if s is not None and getattr(s, "why_log", None) is not None:
            log = s.why_log
    else:
        from ..viz.capture import run_for_pictures

        try:
            with recording(log):
                run = run_for_pictures(path, profile=profile)
        except SyntaxError as exc:
            raise QuizError(f"{path} line {exc.lineno}: SyntaxError: {exc.msg}") from None
        except ValueError as exc:
            raise QuizError(str(exc)) from None
        if run.error is not None:
            from ..viz.cli import _describe_error

            raise QuizError(_describe_error(run.error, path))
        ns = run.namespace
    qs = make_questions(ns, log, targets)
    if not qs:
        raise QuizError(f"{path}: no gradient to ask for (no backward() gave a named leaf a "
                        "gradient; name one with --tensor)")
    return Exercise(path, lesson_code(source, session), qs, ns)


def run_quiz(ex: Exercise, answers, out, interactive=False) -> tuple[int, int]:
    """Ask each question of ``ex``; ``answers``: a callable ``(prompt) -> str`` (raises
    EOFError when there are no more). Writes to ``out``; returns (right, asked)."""
    write = out.write
    write(f"exercise: {ex.path}\n\n")
    write("".join("    " + ln + "\n" for ln in ex.code.rstrip("\n").split("\n")))
    write(f"\n{len(ex.questions)} gradient{'s are' if len(ex.questions) != 1 else ' is'} "
          "hidden. Work each one out by the chain rule and type it: a number, a list, or an "
          "expression (2*3, [1, 2], d * b).\n")
    right = 0
    for k, q in enumerate(ex.questions, 1):
        write(f"\n{k}. {q.label} = ?   ({q.prompt_words()})\n")
        tries = 0
        while True:
            try:
                text = answers(f"{q.label} = ")
            except EOFError:
                write(f"(no answer) {q.label} = {_num(q.value)}\n")
                write(_indent(q.explanation.text()))
                text = None
                break
            if text is None:
                break
            text = _strip_name(text, q)
            try:
                v = mark(q, text, ex.namespace, others=ex.questions)
            except AnswerError as exc:
                tries += 1
                write(f"{exc}\n")
                if not interactive or tries >= 3:
                    write(f"{q.label} = {_num(q.value)}\n")
                    write(_indent(q.explanation.text()))
                    break
                continue
            write(v.text)
            if v.right:
                right += 1
            else:
                write("the steps:\n" + _indent(v.steps))
            break
    write(f"\n{right} of {len(ex.questions)} right\n")
    return right, len(ex.questions)


def _strip_name(text, q):
    """``a = 20``, ``a.grad = 20``, ``a: 20`` -> ``20``."""
    m = re.match(r"\s*([A-Za-z_][\w.\[\], ]*?)\s*(?:=|:)(?!=)\s*(.*)$", text)
    if m and (m.group(1) in (q.name, q.label, f"{q.name}.grad") or
              m.group(1).split(".grad")[0] == q.name):
        return m.group(2)
    return text


def _indent(text):
    return "".join("    " + ln + "\n" for ln in text.rstrip("\n").split("\n"))


def answer_source(lines, questions):
    """An answers callable from lines (a file, piped stdin): ``NAME = ANSWER`` lines go to
    their question, plain lines in order; blank lines and ``#`` comments are skipped."""
    named = {}
    plain = []
    labels = {}
    for q in questions:
        labels[q.name] = labels[q.label] = labels[f"{q.name}.grad"] = q.label
    for ln in lines:
        s = ln.strip()
        if not s or s.startswith("#"):
            continue
        m = re.match(r"([A-Za-z_][\w.\[\], ]*?)\s*(?:=|:)(?!=)\s*(.*)$", s)
        if m and m.group(1).strip() in labels:
            named[labels[m.group(1).strip()]] = m.group(2)
        else:
            plain.append(s)
    state = {"k": 0}

    def answers(prompt):
        label = prompt.rstrip().rstrip("=").strip()
        if label in named:
            return named.pop(label)
        if state["k"] < len(plain):
            state["k"] += 1
            return plain[state["k"] - 1]
        raise EOFError

    return answers


# ---------------------------------------------------------------------------- the shell
def shell_quiz(session, args) -> str:
    """``%quiz``: list what can be asked; ``%quiz NAME``: ask (in the terminal the answer is
    read at once); ``%quiz NAME ANSWER`` (or ``NAME = ANSWER``): mark it."""
    ns = session.namespace
    log = getattr(session, "why_log", None)
    line = " ".join(args)
    if not line.strip():
        qs = make_questions(ns, log)
        if not qs:
            return ("no gradient to ask for yet: build a graph and run backward() first "
                    "(without printing the gradients), then %quiz NAME\n")
        return ("gradients to work out: " + ", ".join(q.label for q in qs)
                + "\n%quiz NAME asks one; %quiz NAME ANSWER answers it (ANSWER: a number, a "
                "list, an expression)\n")
    m = re.match(r"\s*([A-Za-z_][\w.]*(?:\[[^\]]*\])?)\s*(?:=\s*)?(.*)$", line)
    if not m:
        raise QuizError(f"cannot read {line!r}: %quiz NAME [ANSWER]")
    target, text = m.group(1), m.group(2).strip()
    target = target[:-5] if target.endswith(".grad") else target
    qs = make_questions(ns, log, [target])
    q = qs[0]
    others = [o for o in make_questions(ns, log) if o.name != q.name]
    if not text:
        ask = f"{q.label} = ?   ({q.prompt_words()})\n"
        reader = getattr(session, "quiz_input", None)
        if reader is None and getattr(session, "interactive", False):
            import sys

            if sys.stdin is not None and sys.stdin.isatty():
                reader = input
        if reader is None:
            return ask + f"answer with %quiz {target} ANSWER\n"
        stream = getattr(session, "stream", None)
        if stream is not None:   # (the shell shows what follows what it streamed)
            stream.write(ask)
            stream.flush()
        try:
            text = reader(f"{q.label} = ")
        except (EOFError, KeyboardInterrupt):
            return ask + "(no answer)\n"
        try:
            v = mark(q, _strip_name(text, q), ns, others)
        except AnswerError as exc:
            return ask + f"{exc}\n"
        return ask + v.text + ("" if v.right else "the steps:\n" + _indent(v.steps))
    try:
        v = mark(q, _strip_name(text, q), ns, others)
    except AnswerError as exc:
        raise QuizError(str(exc)) from None
    return v.text + ("" if v.right else "the steps:\n" + _indent(v.steps))
