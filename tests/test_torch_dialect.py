"""The torch dialect (``gradrepl.torch``): printing, autograd semantics and torch's error
messages, the random generator, nn and optim, the import hook, and the pictures in torch's
names. Expected values were printed by real torch 2.13 (CPU) for the same code."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import state as torch_state

REPO = Path(__file__).resolve().parents[1]
nn = torch.nn
F = torch.nn.functional


@pytest.fixture(autouse=True)
def _fresh():
    torch_state.reset()
    yield
    torch_state.reset()


def raises(exc, match, fn):
    with pytest.raises(exc) as info:
        fn()
    assert match in str(info.value), str(info.value)
    return info.value


# ------------------------------------------------------------------------------ printing
@pytest.mark.parametrize("make,text", [
    (lambda: torch.tensor([1., 2.], requires_grad=True), "tensor([1., 2.], requires_grad=True)"),
    (lambda: torch.tensor([0.1, 1e5]), "tensor([1.0000e-01, 1.0000e+05])"),
    (lambda: torch.tensor([1, 2], dtype=torch.int32), "tensor([1, 2], dtype=torch.int32)"),
    (lambda: torch.tensor(3.5), "tensor(3.5000)"),
    (lambda: torch.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: torch.tensor([[True, False]]), "tensor([[ True, False]])"),
    (lambda: torch.tensor([-1., 10., -100.]), "tensor([  -1.,   10., -100.])"),
    (lambda: torch.tensor([float("inf"), float("nan"), 1.5]), "tensor([   inf,    nan, 1.5000])"),
    (lambda: torch.linspace(-1, 1, 7), "tensor([-1.0000e+00, -6.6667e-01, -3.3333e-01, "
                                       "-2.9802e-08,  3.3333e-01,\n         6.6667e-01,  "
                                       "1.0000e+00])"),
    (lambda: torch.tensor([1.5], dtype=torch.float64) * 2,
     "tensor([3.], dtype=torch.float64)"),
])
def test_repr(make, text):
    assert repr(make()) == text


def test_repr_summarised_and_grad_fn_suffix():
    x = torch.ones(1500, requires_grad=True) * 2
    assert repr(x) == "tensor([2., 2., 2.,  ..., 2., 2., 2.], grad_fn=<MulBackward0>)"
    assert str(torch.arange(1001)) == "tensor([   0,    1,    2,  ...,  998,  999, 1000])"


def test_set_printoptions():
    torch.set_printoptions(precision=2)
    assert repr(torch.tensor([1.12345])) == "tensor([1.12])"
    torch.set_printoptions(profile="default")
    assert repr(torch.tensor([1.12345])) == "tensor([1.1235])"


def test_parameter_and_size_and_dtype_reprs():
    p = nn.Parameter(torch.ones(2))
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert repr(torch.zeros(2, 3).shape) == "torch.Size([2, 3])"
    assert str(torch.float32) == "torch.float32" and torch.long is torch.int64
    assert torch.tensor([1.]).type() == "torch.FloatTensor"
    assert f"{torch.tensor(1 / 3):.3f}" == "0.333"


# ------------------------------------------------------------------------------ autograd
def test_seed_example_two_backward():
    torch.manual_seed(10)
    w = torch.tensor([1.], requires_grad=True)
    x = torch.tensor([2.], requires_grad=True)
    y = torch.mul(torch.add(w, x), torch.add(w, 1))
    y.backward(retain_graph=True)
    assert repr(w.grad) == "tensor([5.])" and repr(x.grad) == "tensor([2.])"
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert [f.name() for f, _ in y.grad_fn.next_functions] == ["AddBackward0", "AddBackward0"]
    acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is w
    assert y.grad_fn is y.grad_fn  # the same node object while it is held


@pytest.mark.parametrize("expr,name", [
    ("v + 1", "AddBackward0"), ("1 - v", "RsubBackward1"), ("2 / v", "MulBackward0"),
    ("v ** 2", "PowBackward0"), ("v ** w", "PowBackward1"), ("2 ** v", "PowBackward2"),
    ("v.sum()", "SumBackward0"), ("x.sum(0)", "SumBackward1"), ("x.max()", "MaxBackward1"),
    ("x.max(1).values", "MaxBackward0"), ("x.view(6)", "ViewBackward0"), ("x.t()", "TBackward0"),
    ("x.t().reshape(6)", "UnsafeViewBackward0"), ("x[0]", "SelectBackward0"),
    ("x[:, 1:]", "SliceBackward0"), ("x[[0, 1]]", "IndexBackward0"), ("x[:]", "SliceBackward0"),
    ("x[...]", "AliasBackward0"), ("x.double()", "ToCopyBackward0"),
    ("F.linear(x, W.t(), v)", "AddmmBackward0"), ("F.mse_loss(x, x.detach())", "MseLossBackward0"),
    ("F.cross_entropy(x, torch.tensor([0, 1]))", "NllLossBackward0"),
    ("torch.ones(2, 2, 3) @ W", "UnsafeViewBackward0"), ("v @ w", "DotBackward0"),
])
def test_grad_fn_names(expr, name):
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    v = torch.tensor([1., 2.], requires_grad=True)
    w = torch.tensor([3., 4.], requires_grad=True)
    W = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)  # noqa: N806
    assert type(eval(expr).grad_fn).__name__ == name


def test_freed_graph_only_where_torch_saved_tensors():
    x = torch.tensor([1., 2.], requires_grad=True)
    z = x + 1  # AddBackward0 saves nothing: a second backward is fine in torch
    z.sum().backward()
    z.sum().backward()
    assert x.grad.tolist() == [2., 2.]
    y = x ** 3  # PowBackward0 saved x
    y.sum().backward()
    raises(RuntimeError, "Trying to backward through the graph a second time",
           lambda: y.sum().backward())
    y2 = x ** 3
    y2.sum().backward(retain_graph=True)
    y2.sum().backward()


def test_backward_errors():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    raises(RuntimeError, "grad can be implicitly created only for scalar outputs",
           lambda: (x * 2).backward())
    raises(RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn",
           lambda: torch.tensor([1., 2.]).sum().backward())
    raises(RuntimeError, "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and "
           "output[0] has a shape of torch.Size([3]).", lambda: (x * 2).backward(torch.ones(2)))
    raises(RuntimeError, "One of the differentiated Tensors does not require grad",
           lambda: torch.autograd.grad((x * 2).sum(), torch.ones(3)))
    raises(RuntimeError, "The differentiated Tensor at index 1 appears to not have been used in "
           "the graph. Set allow_unused=True", lambda: torch.autograd.grad(
               (x * 2).sum(), [x, torch.ones(2, requires_grad=True)]))
    raises(RuntimeError, "Can't call numpy() on Tensor that requires grad", lambda: x.numpy())


def test_inplace_rules_and_version_counter():
    x = torch.tensor([1., 2.], requires_grad=True)
    raises(RuntimeError, "a leaf Variable that requires grad is being used in an in-place "
           "operation.", lambda: x.add_(1))
    raises(RuntimeError, "a view of a leaf Variable", lambda: x.__setitem__(0, 5.))
    assert x.tolist() == [1., 2.]
    with torch.no_grad():
        x.add_(1)
    assert x.tolist() == [2., 3.] and x.is_leaf
    a = x * 1
    b = a * a
    a.add_(1)
    assert a._version == 1 and type(a.grad_fn).__name__ == "AddBackward0"
    err = raises(RuntimeError, "modified by an inplace operation", lambda: b.sum().backward())
    assert str(err).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [2]], which is output 0 of Add, is at version 1; expected "
        "version 0 instead. Hint:")
    s = torch.tensor([0.5], requires_grad=True).exp()
    s.mul_(2)
    err = raises(RuntimeError, "which is output 0 of Exp, is at version 1",
                 lambda: s.backward())


def test_inplace_on_a_non_leaf_moves_it_in_the_graph():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.add_(1)
    y.mul_(3)
    assert repr(y) == "tensor([ 9., 15.], grad_fn=<MulBackward0>)"
    y.sum().backward()
    assert x.grad.tolist() == [6., 6.]
    c = x.clone()
    c[0] = 5.
    assert type(c.grad_fn).__name__ == "CopySlices"


def test_data_is_a_tensor_for_the_user_and_the_array_for_the_engine():
    x = torch.ones(1, requires_grad=True)
    d = x.data  # (this module is the user's code)
    assert isinstance(d, torch.Tensor) and not d.requires_grad and d.is_leaf
    y = 2 * x
    x.data *= 100
    y.backward()
    assert repr(x) == "tensor([100.], requires_grad=True)" and repr(x.grad) == "tensor([2.])"
    x.data = torch.tensor([5.])
    assert x.tolist() == [5.] and x.requires_grad
    from gradrepl.torch._base import raw

    assert isinstance(raw(x), np.ndarray)


def test_detach_shares_values_and_retain_grad_accumulates():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    xd = x.detach()
    xd[0] = 10.
    assert x.tolist() == [10., 2., 3.]
    y = x * 2
    y.retain_grad()
    out = (y * y).sum()
    out.backward(retain_graph=True)
    out.backward()
    assert y.retains_grad and y.grad.tolist() == [80., 16., 24.]


def test_hooks():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()) or g * 2)
    (x * x).sum().backward()
    assert seen == [[2., 4., 6.]] and x.grad.tolist() == [4., 8., 12.]
    h.remove()
    x.grad = None
    (x * x).sum().backward()
    assert x.grad.tolist() == [2., 4., 6.]


def test_higher_order_and_create_graph():
    x = torch.tensor(1.5, requires_grad=True)
    cur = x ** 4
    derivs = []
    for _ in range(4):
        cur, = torch.autograd.grad(cur, x, create_graph=True)
        derivs.append(cur.item())
    assert derivs == [13.5, 27.0, 36.0, 24.0]
    a = torch.tensor(2., requires_grad=True)
    (a ** 2).backward(create_graph=True)
    assert repr(a.grad) == "tensor(4., grad_fn=<CopyBackwards>)"


def test_function():
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    x = torch.tensor([0., 1.], requires_grad=True)
    y = Exp.apply(x)
    assert repr(y) == "tensor([1.0000, 2.7183], grad_fn=<ExpBackward>)"
    y.sum().backward()
    assert repr(x.grad) == "tensor([1.0000, 2.7183])"


def test_grad_modes():
    x = torch.tensor([1.], requires_grad=True)
    with torch.no_grad():
        assert not (x * 2).requires_grad
        with torch.enable_grad():
            assert (x * 2).requires_grad
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


# ------------------------------------------------------------------------------ random, nn, optim
def test_random_numbers_are_torchs():
    torch.manual_seed(10)
    assert repr(torch.randn(2, 2)) == ("tensor([[-0.6014, -1.0122],\n"
                                       "        [-0.3023, -1.2277]])")
    torch.manual_seed(3)
    assert torch.randint(0, 100, (5,)).tolist() == [86, 48, 37, 67, 60]
    assert torch.randn(3).tolist() == [-2.426926612854004, 0.29218602180480957,
                                       0.8015806674957275]


def test_linear_init_and_sgd_steps_are_torchs_to_the_bit():
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    assert lin.bias.tolist() == [-0.011439144611358643, 0.45777493715286255]
    x = torch.tensor([[1., 2., 3.]])
    opt = torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        opt.zero_grad()
        loss = ((lin(x) - 1) ** 2).mean()
        loss.backward()
        opt.step()
    assert loss.item() == 2.5511796474456787
    assert lin.bias.tolist() == [0.10880536586046219, 0.5203030109405518]
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    opt = torch.optim.Adam([w], lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        ((w - torch.tensor([3.0, 1.0])) ** 2).sum().backward()
        opt.step()
    assert w.tolist() == [1.2993766069412231, -1.7003815174102783]


def test_module_reprs():
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert repr(net) == ("Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n"
                         "  (1): ReLU()\n"
                         "  (2): Linear(in_features=3, out_features=1, bias=True)\n)")
    assert repr(nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1)])) == (
        "ModuleList(\n  (0-1): 2 x Linear(in_features=1, out_features=1, bias=True)\n)")
    assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias", "2.weight",
                                                      "2.bias"]
    assert repr(torch.optim.SGD(net.parameters(), lr=0.1)).startswith(
        "SGD (\nParameter Group 0\n    dampening: 0\n")


# ------------------------------------------------------------------------------ running scripts
def test_import_hook_serves_torch_and_paddle_side_by_side():
    from gradrepl.repl.session import Session

    s = Session()
    s.run("import torch")
    s.run("import paddle")
    assert s.run("torch.tensor([1., 2.], requires_grad=True) * 2").output == \
        "tensor([2., 4.], grad_fn=<MulBackward0>)\n"
    out = s.run("paddle.to_tensor([1., 2.])").output
    assert out.startswith("Tensor(shape=[2], dtype=float32")
    assert "torch" not in sys.modules or not sys.modules["torch"].__name__.startswith("gradrepl")


def test_gradrepl_run_a_seed_script():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run",
                           str(REPO / "examples" / "torch" / "s003_example_one.py")],
                          cwd=REPO, env=env, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    expected = (REPO / "examples" / "torch" / "s003_example_one.out").read_bytes()
    assert proc.stdout == expected


# ------------------------------------------------------------------------------ pictures
def test_picture_model_uses_torchs_names():
    from gradrepl.viz import model

    w = torch.tensor([1.], requires_grad=True)
    x = torch.tensor([2.], requires_grad=True)
    a = torch.add(w, x)
    y = torch.mul(a, torch.add(w, 1))
    y.backward()
    g = model.build(y, namespace={"w": w, "x": x, "a": a, "y": y})
    names = [b.name for b in g.backward_ops]
    assert names.count("MulBackward0") == 1 and names.count("AddBackward0") == 2
    assert "AccumulateGrad" in names
    assert {v.name for v in g.grad_vars} >= {"w.grad", "x.grad", "a.grad", "y.grad"}
    assert [o.title for o in g.ops].count("Add") == 2
    assert g.profile == "torch"


def test_gradrepl_graph_draws_the_seed_example_with_torch_names(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["NO_COLOR"] = "1"
    script = REPO / "examples" / "torch" / "s003_example_two.py"
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "graph", str(script), "--tensor",
                           "y", "--at", "34"], cwd=REPO, env=env, capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    for word in ("MulBackward0", "AddBackward0", "AccumulateGrad", "w.grad = 5.",
                 "x.grad = 2.", "Mul  y = torch.mul(a, b)"):
        assert word in text, (word, text)
    dot = tmp_path / "y.dot"
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "graph", str(script), "--tensor",
                           "y", "--at", "34", "-o", str(dot)], cwd=REPO, env=env,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    src = dot.read_text()
    assert "MulBackward0" in src and "AccumulateGrad" in src and "w.grad" in src
    assert "GradNodeAccumulation" not in src and "w_grad" not in src


def test_torch_sessions_replay():
    from gradrepl.repl.replay_cli import replay_command

    files = sorted((REPO / "sessions").glob("torch_*.pycon"))
    assert len(files) >= 7
    out, err = io.StringIO(), io.StringIO()
    code = replay_command([str(p) for p in files], check=True, out=out, err=err)
    assert code == 0, out.getvalue() + err.getvalue()


def test_the_dialect_benchmark_runs_small(capsys):
    import importlib.util

    path = REPO / "benchmarks" / "torch_dialect_overhead.py"
    spec = importlib.util.spec_from_file_location("bench_torch_dialect", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--n", "50", "--reps", "1", "--torch-python", "none"]) == 0
    out = capsys.readouterr().out
    assert "gradrepl.torch" in out and "gradrepl.paddle" in out and "fwd ratio" in out
