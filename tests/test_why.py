"""``why``: a gradient explained as the chain rule, whose terms add up to the engine's value.

- exact texts: example two (a.grad = 20 along e -> c -> a), y = x * x + x at 3 (3 + 3 + 1 = 7),
  a tensor that stops gradient (None), a doubled gradient (two backward() calls), a broadcast
  bias, a torch script;
- consistency: over every session in sessions/, every example script in examples/ and 200+
  random programs (Paddle and torch dialects, seeded), the explained terms add up to the
  engine's gradient, for whole tensors and single elements;
- ``gradrepl why`` (CliRunner) and ``%why`` through the Session.
"""
from __future__ import annotations

import glob
import os
import textwrap

import numpy as np
import pytest

from gradrepl.viz.why import WhyLog, recording, why

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(source, profile=None, dialect="paddle"):
    """Run ``source`` with a WhyLog recording; returns (namespace, log)."""
    from gradrepl.paddle import state

    state.reset(profile)
    if dialect == "paddle":
        import gradrepl.paddle as mod
    else:
        import gradrepl.torch as mod
    ns = {dialect: mod, "np": np}
    log = WhyLog()
    with recording(log):
        exec(textwrap.dedent(source), ns)
    return ns, log


def _text(name, ns, log, element=None):
    return why(ns[name], namespace=ns, log=log, element=element, name=name).text()


# ---------------------------------------------------------------------------- exact texts
EXAMPLE_TWO = """
a = paddle.to_tensor(2.0, stop_gradient=False)
b = paddle.to_tensor(5.0, stop_gradient=False)
c = a * b
d = paddle.to_tensor(4.0, stop_gradient=False)
e = c * d
e.backward()
"""


def test_example_two_a_grad_text():
    ns, log = _run(EXAMPLE_TWO)
    assert _text("a", ns, log) == (
        "a.grad = 20\n"
        "the last backward() started from e (its gradient set to 1) and reached a along 1 "
        "path.\n"
        "by the chain rule, a path contributes the product of the local derivatives along it:\n"
        "  e -> c -> a: d * b = 4 * 5 = 20\n"
        "a.grad = 20\n")
    assert "  e -> c -> b: d * a = 4 * 2 = 8\n" in _text("b", ns, log)
    assert "  e -> d: c = 10\n" in _text("d", ns, log)
    ex = why(ns["c"], namespace=ns, log=log)  # a non-leaf: 2.2 keeps c.grad
    assert ex.paths == [["e", "c"]] and float(ex.explained_total()[0]) == 4.0


def test_x_times_x_plus_x_text():
    ns, log = _run("""
        x = paddle.to_tensor(3.0, stop_gradient=False)
        y = x * x + x
        y.backward()
        """)
    assert _text("x", ns, log) == (
        "x.grad = 7\n"
        "the last backward() started from y (its gradient set to 1) and reached x along 3 "
        "paths.\n"
        "by the chain rule, each path contributes the product of the local derivatives along "
        "it, and the paths add up:\n"
        "  y -> (x * x) -> x (as the left operand): 1 * x = 1 * 3 = 3\n"
        "  y -> (x * x) -> x (as the right operand): 1 * x = 1 * 3 = 3\n"
        "  y -> x: 1\n"
        "x.grad = 3 + 3 + 1 = 7\n")


def test_stop_gradient_none_text():
    ns, log = _run("""
        a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        b = a.detach()
        c = a * 2 + b * a
        c.sum().backward()
        """)
    assert _text("b", ns, log) == (
        "b.grad is None\n"
        "b has stop_gradient=True: backward() computes no gradient for it (and none flows "
        "through it to what it was made from)\n"
        "the last backward() that used b (from sum(c)) reached (b * a) but the path stops at "
        "b: it is cut there\n"
        "(a tensor made by detach(), under no_grad(), or created without stop_gradient=False "
        "has no history and stops gradient)\n")
    # a's gradient: the path through b is cut, only the direct uses count
    assert _text("a", ns, log).endswith("a.grad = [2, 2] + [1, 2] = [3, 4]\n")


def test_doubled_by_two_backward_calls_text():
    ns, log = _run("""
        a = paddle.to_tensor(2.0, stop_gradient=False)
        b = paddle.to_tensor(5.0, stop_gradient=False)
        c = a * b
        d = paddle.to_tensor(4.0, stop_gradient=False)
        e = c * d
        e.backward(retain_graph=True)
        e.backward()
        """)
    assert _text("a", ns, log) == (
        "a.grad = 40\n"
        "a.grad adds up: backward() reached a 2 times since its gradient was last empty and "
        "each time its gradient was added to what .grad already held (Paddle and torch "
        "accumulate; clear it between steps to start again)\n"
        "the same graph was used again: that works because the earlier backward() was called "
        "with retain_graph=True (without it its saved tensors would have been freed)\n"
        "  backward() #1 added 20\n"
        "  backward() #2 started from e (its gradient set to 1) and reached a along 1 path:\n"
        "    e -> c -> a: d * b = 4 * 5 = 20\n"
        "a.grad = 20 + 20 = 40\n")


def test_clear_grad_then_backward_and_after():
    ns, log = _run("""
        w = paddle.to_tensor([1.0, -2.0], stop_gradient=False)
        (3 * w).sum().backward()
        w.clear_grad()
        (3 * w).sum().backward()
        """)
    text = _text("w", ns, log)
    assert "w.grad was 0 before (set to zero by clear_grad())" in text
    assert text.endswith("w.grad = [3, 3]\n")
    ns["w"].clear_grad()
    ex = why(ns["w"], namespace=ns, log=log)
    assert ex.status == "cleared" and "clear_grad() set it to zero after the last backward" \
        in ex.text()


def test_broadcast_bias_rows():
    ns, log = _run("""
        x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
        b = paddle.to_tensor([10.0, 20.0, 30.0], stop_gradient=False)
        y = x + b
        loss = y.sum()
        loss.backward()
        """)
    assert "  loss -> y -> b: 1 * 1, summed over the 2 broadcast rows (b [3] was broadcast " \
        "to [2, 3]) = [1, 1, 1] + [1, 1, 1] = [2, 2, 2]\n" in _text("b", ns, log)
    assert "= 1 + 1 = 2\nb.grad[1] = 2\n" in _text("b", ns, log, element=(1,))


def test_hook_changes_value():
    ns, log = _run("""
        x = paddle.to_tensor(3.0, stop_gradient=False)
        y = x * x
        h = y.register_hook(lambda g: g * 10)
        z = y * 2
        z.backward()
        """)
    ex = why(ns["x"], namespace=ns, log=log)
    assert float(np.sum(ex.explained_total())) == 120.0
    assert float(ns["x"].grad.numpy().reshape(-1)[0]) == 120.0
    assert "  y -> x (as the left operand): y_grad (after its hook) * x = 20 * 3 = 60\n" \
        in ex.text()
    assert "a hook on y changed the gradient that arrived there, 2, into 20" in ex.text()


def test_torch_words():
    ns, log = _run("""
        x = torch.tensor(3.0, requires_grad=True)
        k = torch.tensor(2.0)
        y = x * x + x * k
        y.backward()
        """, dialect="torch")
    text = _text("x", ns, log)
    assert "  y -> (x * k) -> x: 1 * k = 1 * 2 = 2\n" in text and text.endswith("x.grad = 3 + 3 + 2 = 8\n")
    assert "requires_grad=False" in _text("k", ns, log)


def test_matmul_vector_terms_add_up():
    ns, log = _run("""
        x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
        w = paddle.to_tensor([[0.5, -1.0], [2.0, 1.0]], stop_gradient=False)
        h = paddle.matmul(x, w)
        loss = (h * h).sum()
        loss.backward()
        """)
    ex = why(ns["w"], namespace=ns, log=log)
    assert any(t.kind == "vector" for t in ex.terms)
    assert np.allclose(ex.explained_total(), ns["w"].grad.numpy())
    assert "vector-Jacobian product" in ex.text()


# ---------------------------------------------------------------------------- consistency
def _check_all(ns, log, rng=None, strict=False, where=""):
    """Every tensor of ``ns`` with a gradient: the explained terms add up to the engine's."""
    from gradrepl.engine.tensor import Tensor
    from gradrepl.viz.model import names_from_namespace

    raw = Tensor.data.__get__  # the engine's array (torch's .data is a tensor out here)
    names = names_from_namespace(ns)
    checked = 0
    for k, t in list(ns.items()):
        if not isinstance(t, Tensor) or k.startswith("_") or raw(t).size > 4096:
            continue
        if raw(t).dtype.kind not in "fc":
            continue
        ex = why(t, log=log, name=k, names=names)
        ex.text()  # renders
        if ex.status in ("stops", "unrecorded", "none"):
            if strict and ex.status == "none" and t._grad is not None:
                pytest.fail(f"{where}: {k}.grad is set but no run explains it")
            continue
        if strict:
            assert ex.status in ("paths", "grouped"), (where, k, ex.status, ex.text())
        engine = ex.engine
        if engine is None:
            continue
        total = ex.explained_total()
        assert total is not None, (where, k, ex.text())
        assert np.allclose(np.asarray(total).reshape(np.shape(engine)), engine, rtol=1e-4,
                           atol=1e-5 * max(1.0, float(np.max(np.abs(engine))))), \
            (where, k, total, engine, ex.text())
        checked += 1
        if rng is not None and raw(t).size > 1 and raw(t).ndim:
            idx = tuple(int(rng.integers(0, n)) for n in raw(t).shape)
            exe = why(t, log=log, name=k, names=names, element=idx)
            exe.text()
            assert np.allclose(exe.explained_total(), engine[idx], rtol=1e-4,
                               atol=1e-5 * max(1.0, float(np.max(np.abs(engine))))), \
                (where, k, idx, exe.text())
    return checked


SESSIONS = sorted(glob.glob(os.path.join(ROOT, "sessions", "*.pycon")))


@pytest.mark.parametrize("path", SESSIONS, ids=[os.path.basename(p) for p in SESSIONS])
def test_sessions_terms_add_up(path):
    from gradrepl.repl.session import Session
    from gradrepl.repl.transcript import inputs_of, parse

    if "vgg11" in path:
        pytest.skip("vgg11's gradients are larger than why keeps values of (MAX_KEEP)")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    s = Session(profile=parse(text, path).profile)
    rng = np.random.default_rng(0)
    for source in inputs_of(text, path):
        s.run(source)
        if "backward" in source or "clear_grad" in source or "grad" in source:
            _check_all(s.namespace, s.why_log, rng, where=f"{path}: {source[:40]}")


EXAMPLES = sorted(p for p in glob.glob(os.path.join(ROOT, "examples", "**", "*.py"),
                                      recursive=True) if "vgg11" not in p)


@pytest.mark.parametrize("path", EXAMPLES, ids=[os.path.relpath(p, ROOT) for p in EXAMPLES])
def test_examples_terms_add_up(path):
    from gradrepl.viz.capture import run_for_pictures

    log = WhyLog()
    with recording(log):
        run = run_for_pictures(path)
    assert run.error is None, run.error
    _check_all(run.namespace, log, np.random.default_rng(1), where=path)


# ---------------------------------------------------------------------------- random programs
def _program(rng, dialect):
    """A small random program: leaves, ops (reuse, broadcasting, detach), one or two
    backward() calls (retain_graph), maybe a clear in between."""
    P = dialect == "paddle"
    shapes = [(), (3,), (2, 3), (1,)]
    lines, vars_ = [], []

    def leaf(name, shape, grad=True):
        vals = np.round(rng.uniform(0.5, 2.0, size=shape), 2).tolist()
        if P:
            lines.append(f"{name} = paddle.to_tensor({vals!r}, dtype='float32', "
                         f"stop_gradient={not grad})")
        else:
            lines.append(f"{name} = torch.tensor({vals!r}, dtype=torch.float32, "
                         f"requires_grad={grad})")
        vars_.append((name, shape))

    for k in range(int(rng.integers(1, 4))):
        leaf(f"l{k}", shapes[int(rng.integers(0, len(shapes)))])
    if rng.random() < 0.3:
        leaf("k0", shapes[int(rng.integers(0, 3))], grad=False)

    def bshape(a, b):
        try:
            return tuple(np.broadcast_shapes(a, b))
        except ValueError:
            return None

    n_ops = int(rng.integers(1, 8))
    mod = "paddle" if P else "torch"
    for j in range(n_ops):
        name = f"t{j}"
        kind = rng.random()
        a, sa = vars_[int(rng.integers(0, len(vars_)))]
        if kind < 0.55:
            cands = [(b, sb) for b, sb in vars_ if bshape(sa, sb) is not None]
            b, sb = cands[int(rng.integers(0, len(cands)))]
            op = ["+", "-", "*", "*", "/"][int(rng.integers(0, 5))]
            if op == "/" and not (b.startswith("l") or b.startswith("k")):
                op = "*"
            lines.append(f"{name} = {a} {op} {b}")
            vars_.append((name, bshape(sa, sb)))
        elif kind < 0.7:
            c = float(np.round(rng.uniform(-2, 2), 1)) or 1.5
            form = [f"{a} * {c}", f"{c} * {a}", f"{a} + {c}", f"{a} ** 2", f"{a} * {a}"][
                int(rng.integers(0, 5))]
            lines.append(f"{name} = {form}")
            vars_.append((name, sa))
        elif kind < 0.76:
            fn = ["exp", "tanh", "nn.functional.relu", "nn.functional.sigmoid"][
                int(rng.integers(0, 4))]
            lines.append(f"{name} = {mod}.{fn}({a} * 0.3 - 0.2)")
            vars_.append((name, sa))
        elif kind < 0.84 and sa in ((2, 3), (3,)):
            forms = ([(f"{mod}.matmul({a}, {a}.T)", (2, 2)), (f"{a}.reshape([3, 2])", (3, 2)),
                      (f"{a}[0]", (3,))] if sa == (2, 3) else
                     [(f"{mod}.matmul({a}, {a})", ()), (f"{a}[1]", ())])
            form, shape = forms[int(rng.integers(0, len(forms)))]
            lines.append(f"{name} = {form}")
            vars_.append((name, shape))
        elif kind < 0.85 and not a.startswith(("l", "k")) and not _stops(lines, a):
            lines.append(f"_h = {a}.register_hook(lambda g: g * 2)")
            continue
        elif kind < 0.92 and sa != ():
            red = ["sum", "mean"][int(rng.integers(0, 2))]
            lines.append(f"{name} = {a}.{red}()")
            vars_.append((name, ()))
        else:
            lines.append(f"{name} = {a}.detach()")
            vars_.append((name, sa))
    last = vars_[-1][0]
    others = [v for v, _s in vars_[-3:-1]]
    loss = f"{last}.sum()" + "".join(f" + {v}.sum()" for v in others)
    lines.append(f"loss = {loss}")
    two = rng.random() < 0.35
    if two:
        lines.append("loss.backward(retain_graph=True)")
        if rng.random() < 0.3:
            lines.append("l0.clear_grad()" if P else "l0.grad = None")
        lines.append("loss.backward()")
    else:
        lines.append("loss.backward()")
    if rng.random() < 0.15:  # paddle.grad / torch.autograd.grad: no .grad is written
        fn = "paddle.grad" if P else "torch.autograd.grad"
        lines.append(f"_g = {fn}([({vars_[0][0]} * 3.0).sum()], [{vars_[0][0]}])")
    if rng.random() < 0.2:  # a second, different loss adds to the same leaves
        lines.append(f"loss2 = ({vars_[0][0]} * 2.0).sum()")
        lines.append("loss2.backward()")
    return "\n".join(lines) + "\n"


def _stops(lines, name):
    """Whether ``name`` stops gradient in the program so far (made by detach, or only from
    tensors that stop gradient)."""
    import re

    for line in lines:
        m = re.match(r"(\w+) = (.*)$", line)
        if m and m.group(1) == name:
            rhs = m.group(2)
            if "detach" in rhs or "stop_gradient=True" in rhs or "requires_grad=False" in rhs:
                return True
            used = [v for v in re.findall(r"\b([lkt]\d+)\b", rhs) if v != name]
            return bool(used) and all(_stops(lines, v) for v in used)
    return False


N_RANDOM = 220


@pytest.mark.parametrize("dialect", ["paddle", "torch"])
def test_random_programs_terms_add_up(dialect):
    rng = np.random.default_rng(20261203 if dialect == "paddle" else 7)
    checked = 0
    skipped = 0
    for n in range(N_RANDOM // 2):
        src = _program(rng, dialect)
        try:
            ns, log = _run(src, dialect=dialect)
        except Exception as exc:  # noqa: BLE001 - a program the frameworks refuse (detach's loss)
            if "does not require grad" in str(exc) or "stop_gradient" in str(exc) \
                    or "grad_fn" in str(exc) or "is not a" in str(exc):
                skipped += 1
                continue
            raise AssertionError(f"program {n} failed:\n{src}") from exc
        checked += _check_all(ns, log, rng, strict=True, where=f"program {n}:\n{src}")
    assert skipped < N_RANDOM // 4
    assert checked > N_RANDOM // 2


def test_random_programs_under_profile_3():
    rng = np.random.default_rng(3)
    for n in range(30):
        src = _program(rng, "paddle")
        try:
            ns, log = _run(src, profile="3")
        except Exception as exc:  # noqa: BLE001
            if "stop_gradient" in str(exc) or "does not" in str(exc):
                continue
            raise AssertionError(src) from exc
        _check_all(ns, log, rng, strict=True, where=f"profile 3 program {n}:\n{src}")
    from gradrepl.paddle import state

    state.reset(None)


# ---------------------------------------------------------------------------- cli and shell
def test_cli_why_and_picture(tmp_path):
    from typer.testing import CliRunner

    from gradrepl.cli import app

    script = os.path.join(ROOT, "examples", "seeds", "s000_example_two.py")
    out = tmp_path / "why.dot"
    res = CliRunner().invoke(app, ["why", script, "a.grad", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "  e -> c -> a: d * b = 4 * 5 = 20\n" in res.stdout
    dot = out.read_text()
    assert 'color="#ff7f00" penwidth=3' in dot and "why a.grad" in dot
    res = CliRunner().invoke(app, ["why", script, "nope"])
    assert res.exit_code == 2 and "no variable named 'nope'" in res.output
    bc = os.path.join(ROOT, "examples", "graphs", "broadcast.py")
    res = CliRunner().invoke(app, ["why", bc, "b.grad[2]"])
    assert res.exit_code == 0 and res.stdout.endswith("= 1 + 1 = 2\nb.grad[2] = 2\n")
    res = CliRunner().invoke(app, ["why", bc, "b.grad[7]"])
    assert res.exit_code == 2 and "out of range" in res.output


def test_percent_why_in_session():
    from gradrepl.repl.session import Session

    s = Session()
    for line in EXAMPLE_TWO.strip().splitlines():
        s.run("import paddle") if line.startswith("a =") else None
        s.run(line)
    r = s.run("%why a.grad")
    assert r.output.endswith("  e -> c -> a: d * b = 4 * 5 = 20\na.grad = 20\n")
    assert "%why NAME" in s.run("%help").output
    assert s.run("%why a.grad[1]").output == "%why: index 1 is out of range for a of shape [1]\n"


def test_many_paths_grouped_by_last_edge():
    ns, log = _run("""
        x = paddle.to_tensor(0.5, stop_gradient=False)
        y = x
        for _ in range(6):
            y = y * y + y
        y.backward()
        """)
    ex = why(ns["x"], namespace=ns, log=log)
    assert ex.status == "grouped" and len(ex.terms) == 3  # x's three uses in the first step
    assert "more than 32 paths: they are grouped by their last edge" in ex.text()
    assert np.allclose(ex.explained_total(), ns["x"].grad.numpy(), rtol=1e-5)
    # the paths into the grouped edges are counted, not lost
    assert sum(t.count for t in ex.terms) > 32


def test_percent_why_explains_a_backward_that_percent_step_ran():
    """%step runs e's backward under its own step log; %why must still see that backward (it
    said 'a.grad is None' while a.grad was 20)."""
    from gradrepl.repl.session import Session

    s = Session()
    s.run("import paddle")
    for line in EXAMPLE_TWO.strip().splitlines():
        if "backward" not in line:
            s.run(line)
    assert "step 7 of 7" in s.run("%step e").output
    out = s.run("%why a").output
    assert out.startswith("a.grad = 20\n") and "e -> c -> a: d * b = 4 * 5 = 20" in out


def test_an_unrecorded_gradient_is_stated_with_its_value():
    import gradrepl.paddle as paddle

    x = paddle.to_tensor(3.0, stop_gradient=False)
    (x * x).backward()  # no recording() around it
    from gradrepl.viz.why import WhyLog

    text = why(x, namespace={"x": x}, log=WhyLog()).text()
    assert text.startswith("x.grad = 6\n") and "no backward() was recorded" in text


# ---------------------------------------------------------------------------- a real model
MLP = """
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

paddle.seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
x = paddle.rand([32, 4])
label = paddle.randint(0, 3, [32])
logits = model(x)
loss = F.cross_entropy(logits, label)
W = model[0].weight
loss.backward()
"""

TORCH_MLP = """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
x = torch.rand(32, 4)
label = torch.randint(0, 3, (32,))
loss = F.cross_entropy(model(x), label)
loss.backward()
"""

JARGON = ("expand(", "sum_to(", "Backward(", "_grad_grad", "model.0.", "?)", "matmul(...)",
          "cross_entropy_with_softmax")


def _cli_why(tmp_path, source, target):
    from typer.testing import CliRunner

    from gradrepl.cli import app

    script = tmp_path / "mlp.py"
    script.write_text(source)
    return CliRunner().invoke(app, ["why", str(script), target])


def test_why_mlp_speaks_plainly(tmp_path):
    res = _cli_why(tmp_path, MLP, "model[0].weight.grad[0, 1]")
    assert res.exit_code == 0, res.output
    text = res.stdout
    link = "model[0].weight (model.0.weight in the picture) is the weight of model[0], a " \
        "Linear layer from 4 to 8 features"
    assert link in text   # the picture's name said once, beside the student's
    for word in JARGON:
        assert word not in text.replace(link, ""), (word, text)
    assert "loss is the mean of the 32 per-sample losses: each gets loss_grad / 32 = 0.03125" in text
    assert "(softmax(logits) - one_hot(labels)) / 32, softmax minus one-hot over the batch " \
        "size 32" in text
    assert "relu passes it on where the output of model[0] > 0" in text
    assert "summed over the 32 samples s of the batch" in text
    # the shown products add up to the engine's number
    line = next(x for x in text.splitlines() if "relu sent 0 there" in x)
    terms = line.split(" = ")[0].strip().split(" + ")
    total = sum(float(a) * float(b) for a, b in (t.split(" * ") for t in terms))
    assert abs(total - 0.0005218) < 1e-6
    assert text.endswith("model[0].weight.grad[0, 1] = 0.0005218\n")
    # the same through the alias W, and Paddle's own spelling
    res = _cli_why(tmp_path, MLP, "W.grad[0, 1]")
    assert res.exit_code == 0 and "W is model[0].weight (model.0.weight in the picture): the " \
        "weight of model[0]" in res.stdout
    res = _cli_why(tmp_path, MLP, "model.0.weight.grad[0, 1]")
    assert res.exit_code == 0 and res.stdout.endswith("= 0.0005218\n")


def test_why_mlp_bias_sums_over_the_batch(tmp_path):
    res = _cli_why(tmp_path, MLP, "model[0].bias.grad[2]")
    assert res.exit_code == 0, res.output
    line = next(x for x in res.stdout.splitlines() if "one term per sample" in x)
    body = line.split(" = ")[1]
    assert abs(sum(float(v) for v in body.split(" + ") if v != "...") - 0.055412) < 1e-5 \
        or "..." in body
    assert res.stdout.endswith("model[0].bias.grad[2] = 0.055412\n")


def test_why_torch_mlp(tmp_path):
    res = _cli_why(tmp_path, TORCH_MLP, "model[0].weight.grad[1, 2]")
    assert res.exit_code == 0, res.output
    text = res.stdout.replace(" (model.0.weight in the picture)", "")
    for word in JARGON + ("loss.grad", "weight_grad"):
        assert word not in text, (word, text)
    assert "a Linear layer from 4 to 8 features" in text
    assert "(softmax(the output of model[2]) - one_hot(labels)) / 32, softmax minus one-hot" \
        in text
    assert "-grad(loss) / 32 at each sample's label" in text
    assert "model[0].weight gets it transposed back" in text
    assert text.endswith("model[0].weight.grad[1, 2] = 0.00879372\n")


def test_why_names_as_the_script_writes_them(tmp_path):
    for target, message in (("model[3].weight", "model has no item 3"),
                            ("model[0].wait", "model[0] has no attribute 'wait'"),
                            ("model[0]", "is a Linear, not a tensor"),
                            ("nope.grad", "no variable named 'nope'")):
        res = _cli_why(tmp_path, MLP, target)
        assert res.exit_code == 2 and message in res.output, (target, res.output)
