"""torch.jit in the torch dialect (d2l's hybrid-programming chapter: ``net =
torch.jit.script(net)``): scripted and traced code runs eagerly, shown as torch 2.13 shows it.
Expected texts and names were recorded from real torch 2.13.0+cpu on this machine (Intel Xeon,
AVX-512) with the same calls; they hold on any CPU (names and reprs, no computed values)."""
import pytest

import gradrepl.torch as torch
from gradrepl.importhook import torch_modules
from gradrepl.torch import jit, nn

DG = "torch::jit::(anonymous namespace)::DifferentiableGraphBackward"


@pytest.fixture(autouse=True)
def _fresh_executors():
    jit._EXECUTORS.clear()   # (one process's compiled module types: torch shares them)
    yield
    jit._EXECUTORS.clear()


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))


def _names(m, x, n=3):
    return [o.grad_fn.name() if o.grad_fn is not None else None for o in (m(x) for _ in range(n))]


def test_scripted_module_prints_and_types_as_torch():
    s = torch.jit.script(_mlp())
    assert repr(s) == ("RecursiveScriptModule(\n  original_name=Sequential\n"
                       "  (0): RecursiveScriptModule(original_name=Linear)\n"
                       "  (1): RecursiveScriptModule(original_name=ReLU)\n"
                       "  (2): RecursiveScriptModule(original_name=Linear)\n)")
    assert repr(type(s)) == "<class 'torch.jit._script.RecursiveScriptModule'>"
    assert isinstance(s, nn.Module) and isinstance(s, torch.jit.ScriptModule)
    assert [n for n, _ in s.named_parameters()] == ['0.weight', '0.bias', '2.weight', '2.bias']
    # s[0] is the original child (torch forwards __getitem__ to it): eval() leaves it in training
    assert type(s[0]).__name__ == "Linear" and s.original_name == "Sequential"
    s.eval()
    assert (s.training, s[0].training) == (False, True)


def test_profiling_executor_grad_fn_names():
    # real torch 2.13: first call eager, later calls one autodiff subgraph of >= 2 ops
    x = torch.randn(2, 4)
    xr = torch.randn(2, 4, requires_grad=True)
    assert _names(torch.jit.script(nn.Linear(4, 2)), x) == ['AddmmBackward0'] * 3
    assert _names(torch.jit.script(nn.Sequential(nn.Linear(4, 2), nn.ReLU())), x) == \
        ['ReluBackward0', DG, DG]
    assert _names(torch.jit.script(nn.ReLU()), xr) == ['ReluBackward0'] * 3
    assert _names(torch.jit.script(_mlp()), x) == ['AddmmBackward0', DG, DG]
    assert _names(torch.jit.trace(nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2)), x),
                  x) == ['AddmmBackward0'] * 3
    conv = torch.jit.script(nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU()))
    assert _names(conv, torch.randn(1, 1, 5, 5)) == ['ReluBackward0'] * 3

    @torch.jit.script
    def f(a):
        return torch.tanh(a) * 2 + a

    assert _names(f, xr, 4) == ['AddBackward0', DG, DG, DG]
    out = torch.jit.script(_mlp())
    out(x)
    assert repr(out(x)).endswith("grad_fn=<DifferentiableGraphBackward>)")


def test_optimized_plan_fixed_by_the_second_call_and_shared_by_type():
    x = torch.randn(2, 4)
    m = torch.jit.script(_mlp())
    with torch.no_grad():
        assert [m(x).requires_grad for _ in range(3)] == [False] * 3
    assert m(x).grad_fn.name() == 'AddmmBackward0'
    m2 = torch.jit.script(_mlp())          # same module type: the same executor (torch 2.13)
    assert _names(m2, x) == ['AddmmBackward0'] * 3


def test_subgraph_under_no_grad_and_its_next_functions():
    x = torch.randn(2, 4)
    m = torch.jit.script(_mlp())
    m(x), m(x)
    with torch.no_grad():
        o = m(x)
    # real torch 2.13: True, repr ...grad_fn=<DifferentiableGraphBackward>, CppFunction
    assert o.requires_grad and repr(o.grad_fn).startswith("<CppFunction object at 0x")
    assert [tuple(f[0].variable.shape) for f in o.grad_fn.next_functions] == \
        [(2,), (2, 3), (3,), (3, 4)]
    o.sum().backward()
    assert m[0].weight.grad is not None


def test_trace_runs_forward_three_times_and_prints_original_names():
    calls = []

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            calls.append(torch.is_grad_enabled())
            return torch.relu(self.fc(x))

    t = torch.jit.trace(M(), torch.randn(2, 4))
    assert calls == [True, False, False]        # real: trace calls [True, False, False]
    assert repr(t) == "M(\n  original_name=M\n  (fc): Linear(original_name=Linear)\n)"
    assert repr(type(t)) == "<class 'torch.jit._trace.TopLevelTracedModule'>"
    s = torch.jit.script(M())
    assert repr(s) == ("RecursiveScriptModule(\n  original_name=M\n"
                       "  (fc): RecursiveScriptModule(original_name=Linear)\n)")
    assert repr(s.fc) == "RecursiveScriptModule(original_name=Linear)"


def test_script_function_and_helpers():
    @torch.jit.script
    def f(a, b: float):
        return a * b + 1

    assert repr(type(f)) == "<class 'torch.jit.torch.jit.ScriptFunction'>"
    assert repr(f).startswith("<torch.jit.torch.jit.ScriptFunction object at 0x")
    assert f(torch.ones(2), 2.0).tolist() == [3.0, 3.0]
    assert not hasattr(torch.jit.trace(lambda a: a * 2, torch.ones(2)), "__name__")
    assert torch.jit.is_scripting() is False and torch.jit.annotate(int, 3) == 3


def test_save_and_load_profile_again(tmp_path):
    x = torch.randn(2, 4)
    s = torch.jit.script(_mlp())
    s(x), s(x)
    with torch_modules():   # (as under gradrepl run: torch's module names import)
        s.save(str(tmp_path / "m.pt"))
        loaded = torch.jit.load(str(tmp_path / "m.pt"))
    assert type(loaded).__name__ == "RecursiveScriptModule"
    assert loaded(x).grad_fn.name() == "AddmmBackward0"   # real: a loaded module's first call
    assert torch.equal(loaded(x), s(x))
    (tmp_path / "other.pt").write_bytes(b"PK\x03\x04 not ours")
    with pytest.raises(RuntimeError, match="reads only files gradrepl's torch.jit.save wrote"):
        torch.jit.load(str(tmp_path / "other.pt"))


def test_loaded_traced_module_is_a_recursive_script_module(tmp_path):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 6), nn.Dropout(0.5), nn.Linear(6, 2)).eval()
    x = torch.randn(3, 4)
    t = torch.jit.trace(net, x)
    with torch_modules():
        t.save(str(tmp_path / "t.pt"))
        loaded = torch.jit.load(str(tmp_path / "t.pt"))
    # real torch 2.13: type name RecursiveScriptModule, printed as a scripted module
    assert type(loaded).__name__ == "RecursiveScriptModule"
    assert repr(loaded) == ("RecursiveScriptModule(\n  original_name=Sequential\n"
                            "  (0): RecursiveScriptModule(original_name=Linear)\n"
                            "  (1): RecursiveScriptModule(original_name=Dropout)\n"
                            "  (2): RecursiveScriptModule(original_name=Linear)\n)")
    assert torch.equal(loaded(x), t(x))


def test_scripted_dropout_follows_the_scripted_flags():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 6), nn.Dropout(0.5))
    s = torch.jit.script(net)
    s.eval()
    # real torch 2.13: s.eval() leaves the original's flags (False True for s.training,
    # net[1].training) and the scripted forward runs without dropout
    assert (s.training, net[1].training) == (False, True)
    x = torch.randn(3, 4)
    assert torch.equal(s(x), net[0](x))
