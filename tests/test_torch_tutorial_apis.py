"""The torch dialect runs the calls PyTorch's tutorials make (blitz, basics, examples_*,
forward-mode AD, jacobians/hessians, per-sample gradients, the profiler) and prints what
torch 2.13 prints.

``tests/data/torch_tutorials/cases`` holds our own scripts making those calls (the tutorials
themselves are not copied); ``expected/`` is what real torch 2.13.0 (CPU) printed for each
(recorded with ``/opt/oracle/tv/bin/python``, the profiler's kineto lines on stderr left out).
Each case runs in this process with ``import torch`` served by ``gradrepl.torch``, the
dialect's state reset first; its stdout must equal the recorded bytes.
"""
from __future__ import annotations

import difflib
import traceback
import warnings
from pathlib import Path

import pytest

import gradrepl.torch as torch
from gradrepl.runner import run_captured
from gradrepl.torch import state as torch_state

DATA = Path(__file__).parent / "data" / "torch_tutorials"
CASES = sorted(p.stem for p in (DATA / "cases").glob("*.py"))


@pytest.fixture(autouse=True)
def _fresh_torch_state():
    torch_state.reset()
    yield
    torch_state.reset()


@pytest.mark.parametrize("name", CASES)
def test_case_prints_what_torch_prints(name):
    expected = (DATA / "expected" / f"{name}.out").read_text(encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        got, error = run_captured(str(DATA / "cases" / f"{name}.py"), None)
    if got != expected or error is not None:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                            "torch 2.13", "gradrepl"))
        if error is not None:
            diff += "\n" + "".join(traceback.format_exception(error))
        pytest.fail(f"{name}:\n{diff}", pytrace=False)


def test_every_case_has_its_recording():
    assert len(CASES) >= 9
    assert all((DATA / "expected" / f"{n}.out").exists() for n in CASES)


# ------------------------------------------------------------------------------ out=
def test_out_is_the_same_object_and_a_view_writes_through():
    base = torch.zeros(2, 3)
    row = base[1]
    r = torch.add(torch.ones(3), 2, out=row)
    assert r is row
    assert base.tolist() == [[0.0, 0.0, 0.0], [3.0, 3.0, 3.0]]
    assert (row._version, base._version) == (1, 1)


def test_out_resize_warns_like_torch():
    y = torch.zeros(3)
    with pytest.warns(UserWarning, match=r"^An output with one or more elements was resized "
                                         r"since it had shape \[3\], which does not match the "
                                         r"required output shape \[2, 2\]\. This behavior is "
                                         r"deprecated"):
        torch.matmul(torch.ones(2, 2), torch.ones(2, 2), out=y)
    assert y.shape == (2, 2) and y.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.sum(torch.ones(2, 2), 0, out=torch.empty(0))  # an empty out resizes silently


def test_out_refuses_autograd_and_bad_casts():
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^mul\(\): functions with out=\.\.\. arguments "
                                           r"don't support automatic differentiation, but one "
                                           r"of the arguments requires grad\.$"):
        torch.mul(w, 2, out=torch.zeros(2))
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired "
                                           "output type Long$"):
        torch.add(torch.ones(2), 1, out=torch.zeros(2, dtype=torch.long))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got "
                                           "double instead$"):
        torch.mm(torch.ones(2, 2), torch.ones(2, 2), out=torch.zeros(2, 2, dtype=torch.float64))
    with torch.no_grad():
        assert torch.mul(w, 2, out=torch.zeros(2)).tolist() == [2.0, 2.0]


# ------------------------------------------------------------------------------ layers
def test_conv2d_default_init_draws_torchs_numbers():
    torch.manual_seed(0)
    c = torch.nn.Conv2d(1, 6, 5)
    # torch 2.13: torch.manual_seed(0); nn.Conv2d(1, 6, 5).weight[0, 0, 0] / .bias
    assert [round(v, 4) for v in c.weight[0, 0, 0].tolist()] == \
        [-0.0015, 0.1073, -0.1646, -0.1472, -0.077]
    assert [round(v, 4) for v in c.bias.tolist()] == \
        [-0.1872, -0.1688, -0.0406, 0.1097, 0.1081, -0.1929]


def test_batchnorm_running_stats_and_inplace_check():
    torch.manual_seed(0)
    bn = torch.nn.BatchNorm1d(2)
    x = torch.tensor([[1.0, 2.0], [3.0, 6.0]], requires_grad=True)
    y = bn(x)
    # torch 2.13: running_mean 0.1 * batch mean; running_var 0.9 + 0.1 * unbiased var
    assert [round(v, 4) for v in bn.running_mean.tolist()] == [0.2, 0.4]
    assert [round(v, 4) for v in bn.running_var.tolist()] == [1.1, 1.7]
    assert int(bn.num_batches_tracked) == 1
    y.pow(2).sum().backward()  # the running stats' update does not spoil the backward
    assert x.grad.shape == (2, 2)
