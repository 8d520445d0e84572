"""Issue 28, unseen lectures round four (torch dialect, helper R4-TB): university course notebooks
(NYU Deep Learning's spiral/regression/convnet/RNN/VAE, UvA DL tutorials 2, 8, 9, 11, 12, 15,
Raschka's "Machine Learning with PyTorch and Scikit-Learn" ch. 12-16 and stat453 L11-L14),
retyped and run under real torch 2.13 and ``gradrepl run``. What printed other bytes, by family:
warnings real torch raises inside its own Python library, printed at torch's file and line
(``gradrepl/torch/libwarn.py``), and warnings gradrepl did not raise at all:

- ``ReduceLROnPlateau.step(loss)`` of a loss that requires grad: the scalar-conversion warning
  from lr_scheduler.py:1699 (UvA tutorial 9 steps its scheduler with the training loss);
- ``lr_scheduler.step()`` before ``optimizer.step()`` (and after the optimizer's step was
  replaced): torch's two warnings, from the user's line or SequentialLR/ChainedScheduler's;
- ``torch.tensor(a_tensor)``: the copy-construct warning, once per calling line;
- losses given ``size_average``/``reduce``: the deprecation from functional.py (the loss's
  line), _reduction.py (the losses asking for the enum) or loss.py:48 (modules);
- ``nn.Softmax()``/``LogSoftmax()``/``Softmin()`` without ``dim``: from module.py:1778, naming
  the function (log_softmax, softmin); ``F.softmin``/``F.log_softmax`` name theirs too.

Expected stderr below is real torch 2.13.0+cpu's output of the same scripts in this session
("recorded"), with its site-packages folder replaced by ``SITE``: gradrepl names the folder where
torch is or would be installed for its own interpreter.
"""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

from conftest import without_lean_notice


def _run(tmp_path, src):
    script = tmp_path / "lect.py"
    script.write_text(textwrap.dedent(src))
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(script)],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    # gradrepl's own one-line notice where the MKL backend (the exact extra) is absent is not torch's
    err = without_lean_notice(proc.stderr)
    err = re.sub(r"/\S*?/(?:site|dist)-packages/torch/", "SITE/torch/", err)
    return proc.stdout, err.replace(str(script), "SCRIPT")


def _w(where, message, source):
    return f"{where}: UserWarning: {message}\n  {source}\n"


_SCALAR = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
           "behavior.\nConsider using tensor.detach() first. (Triggered internally at "
           "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")
_ORDER = ("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 "
          "and later, you should call them in the opposite order: `optimizer.step()` before "
          "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
          "value of the learning rate schedule. See more details at "
          "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
_OVERRIDDEN = ("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
               "initialization. Please, make sure to call `optimizer.step()` before "
               "`lr_scheduler.step()`. See more details at "
               "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
_COPY = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
         "or sourceTensor.detach().clone().requires_grad_(True), rather than "
         "torch.tensor(sourceTensor).")


def _legacy(r):
    return f"size_average and reduce args will be deprecated, please use reduction='{r}' instead."


def _implicit(name):
    return (f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            "include dim=X as an argument.")


def test_plateau_step_with_a_loss_that_requires_grad(tmp_path):
    out, err = _run(tmp_path, """\
        import torch
        w = torch.nn.Parameter(torch.ones(2))
        opt = torch.optim.Adam([w], lr=0.1)
        s = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)
        loss = (w * 2).sum()
        s.step(loss)
        print(float(loss))
        """)
    assert out == "4.0\n"
    # recorded: once a process (TORCH_WARN_ONCE), from torch's line; the user's float() is silent
    assert err == _w("SITE/torch/optim/lr_scheduler.py:1699", _SCALAR, "current = float(metrics)")


def test_scalar_warning_from_the_users_float_first(tmp_path):
    out, err = _run(tmp_path, """\
        import torch
        w = torch.nn.Parameter(torch.ones(2))
        s = torch.optim.lr_scheduler.ReduceLROnPlateau(torch.optim.SGD([w], lr=0.1))
        loss = (w * 3).sum()
        print(float(loss))
        s.step(loss)
        s.step(loss.detach())
        print(s.best, s.num_bad_epochs)
        """)
    assert out == "6.0\n6.0 1\n"  # recorded
    assert err == _w("SCRIPT:5", _SCALAR, "print(float(loss))")


def test_scheduler_step_order_warnings(tmp_path):
    out, err = _run(tmp_path, """\
        import torch
        from torch.optim import lr_scheduler as L
        def mk():
            w = torch.nn.Parameter(torch.ones(2))
            return torch.optim.SGD([w], lr=0.1, momentum=0.9)
        o = mk(); s = L.StepLR(o, 1, gamma=0.5)
        print(hasattr(o.step, "_wrapped_by_lr_sched"), getattr(o, "_opt_called", None))
        s.step(); s.step(); o.step()
        print(o.param_groups[0]["lr"], o._opt_called)
        o = mk(); s = L.StepLR(o, 1, gamma=0.5)
        o.step(); s.step()
        o = mk(); s = L.SequentialLR(o, [L.ConstantLR(o, factor=0.5, total_iters=2),
                                        L.ExponentialLR(o, 0.9)], milestones=[2])
        s.step()
        o = mk(); s = L.ChainedScheduler([L.ConstantLR(o, factor=0.5, total_iters=2),
                                          L.ExponentialLR(o, 0.9)])
        s.step()
        o = mk(); s = L.ReduceLROnPlateau(o)
        s.step(1.0)
        o = mk(); s = L.StepLR(o, 2)
        o.step = lambda: None
        s.step()
        """)
    assert out == "True None\n0.025 True\n"  # recorded
    assert err == (  # recorded
        _w("SCRIPT:8", _ORDER, "s.step(); s.step(); o.step()")
        + _w("SITE/torch/optim/lr_scheduler.py:1194", _ORDER, "scheduler.step()")
        + _w("SITE/torch/optim/lr_scheduler.py:1542", _ORDER, "scheduler.step()")
        + _w("SCRIPT:22", _OVERRIDDEN, "s.step()"))


def test_tensor_of_a_tensor_warns_once_per_line(tmp_path):
    out, err = _run(tmp_path, """\
        import torch
        a = torch.ones(2)
        print(torch.tensor(a, dtype=torch.float64))
        for i in range(2):
            b = torch.tensor(a + i, requires_grad=True)
        print(b)
        print(torch.tensor(torch.nn.Parameter(a)))
        print(torch.tensor([torch.tensor(1.), torch.tensor(2.)]), torch.as_tensor(a))
        """)
    assert out == ("tensor([1., 1.], dtype=torch.float64)\n"
                   "tensor([2., 2.], requires_grad=True)\n"
                   "tensor([1., 1.])\n"
                   "tensor([1., 2.]) tensor([1., 1.])\n")  # recorded
    assert err == (_w("SCRIPT:3", _COPY, "print(torch.tensor(a, dtype=torch.float64))")
                   + _w("SCRIPT:5", _COPY, "b = torch.tensor(a + i, requires_grad=True)")
                   + _w("SCRIPT:7", _COPY, "print(torch.tensor(torch.nn.Parameter(a)))"))


def test_legacy_size_average_and_reduce(tmp_path):
    out, err = _run(tmp_path, """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        a, b = torch.tensor([0.2, 0.7]), torch.tensor([0.0, 1.0])
        print(F.mse_loss(a, b, size_average=False))
        print(F.l1_loss(a, b, reduce=False))
        print(F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 1]), size_average=True))
        print(F.nll_loss(torch.ones(2, 3), torch.tensor([0, 1]), reduce=False))
        print(F.smooth_l1_loss(a, b, size_average=False))
        print(F.binary_cross_entropy(a, b, size_average=False))
        print(F.soft_margin_loss(a, b, reduce=False))
        print(F.multilabel_soft_margin_loss(a[None], b[None], size_average=False))
        print(F.kl_div(a.log(), b, size_average=False))
        print(nn.L1Loss(reduce=False), nn.CrossEntropyLoss(size_average=False).reduction)
        print(nn.BCELoss(size_average=False).reduction, nn.MSELoss(reduce=False).reduction)
        """)
    assert out == (  # recorded
        "tensor(0.1300)\n"
        "tensor([0.2000, 0.3000])\n"
        "tensor(1.0986)\n"
        "tensor([-1., -1.])\n"
        "tensor(0.0650)\n"
        "tensor(0.5798)\n"
        "tensor([0.6931, 0.4032])\n"
        "tensor(0.6007)\n"
        "tensor(0.3567)\n"
        "L1Loss() sum\n"
        "sum none\n")
    loss_init = "self.reduction: str = _Reduction.legacy_get_string(size_average, reduce)"
    legacy = "reduction = _Reduction.legacy_get_string(size_average, reduce)"
    enum = "return get_enum(legacy_get_string(size_average, reduce, emit_warning))"
    assert err == (  # recorded
        _w("SITE/torch/nn/functional.py:4292", _legacy("sum"), legacy)
        + _w("SITE/torch/nn/functional.py:4215", _legacy("none"), legacy)
        + _w("SITE/torch/nn/functional.py:3554", _legacy("mean"), legacy)
        + _w("SITE/torch/nn/functional.py:3230", _legacy("none"), legacy)
        + _w("SITE/torch/nn/functional.py:4060", _legacy("sum"), legacy)
        + _w("SITE/torch/nn/_reduction.py:60", _legacy("sum"), enum)
        + _w("SITE/torch/nn/_reduction.py:60", _legacy("none"), enum)
        + _w("SITE/torch/nn/functional.py:4539", _legacy("sum"), legacy)
        + _w("SITE/torch/nn/modules/loss.py:48", _legacy("none"), loss_init)
        + _w("SITE/torch/nn/modules/loss.py:48", _legacy("sum"), loss_init))


def test_implicit_softmax_dim_sites_and_names(tmp_path):
    out, err = _run(tmp_path, """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        x = torch.tensor([[1.0, 2.0, 4.0], [0.0, 0.0, 1.0]])
        print(nn.Softmax()(x))
        print(nn.LogSoftmax()(x))
        print(nn.Softmin()(x))
        print(F.log_softmax(x))
        print(F.softmin(x[0]))
        print(nn.Softmax2d()(x[None, :, :, None]).shape, nn.Softmax(dim=1)(x)[0, 0])
        """)
    assert out == (  # recorded
        "tensor([[0.0420, 0.1142, 0.8438],\n        [0.2119, 0.2119, 0.5761]])\n"
        "tensor([[-3.1698, -2.1698, -0.1698],\n        [-1.5514, -1.5514, -0.5514]])\n"
        "tensor([[0.7054, 0.2595, 0.0351],\n        [0.4223, 0.4223, 0.1554]])\n"
        "tensor([[-3.1698, -2.1698, -0.1698],\n        [-1.5514, -1.5514, -0.5514]])\n"
        "tensor([0.7054, 0.2595, 0.0351])\n"
        "torch.Size([1, 2, 3, 1]) tensor(0.0420)\n")
    call = "return self._call_impl(*args, **kwargs)"
    assert err == (  # recorded
        _w("SITE/torch/nn/modules/module.py:1778", _implicit("softmax"), call)
        + _w("SITE/torch/nn/modules/module.py:1778", _implicit("log_softmax"), call)
        + _w("SITE/torch/nn/modules/module.py:1778", _implicit("softmin"), call)
        + _w("SCRIPT:8", _implicit("log_softmax"), "print(F.log_softmax(x))")
        + _w("SCRIPT:9", _implicit("softmin"), "print(F.softmin(x[0]))"))


@pytest.mark.parametrize("site", ["module_call", "loss_init", "legacy_enum", "plateau_float",
                                  "sequential_step", "chained_step", "mse_loss"])
def test_libwarn_sites_name_a_torch_file(site):
    from gradrepl.torch import libwarn

    rel, line, source = libwarn.SITES[site]
    assert rel.endswith(".py") and line > 0 and source.strip()


def test_kl_div_mean_warning_and_legacy_reduction(tmp_path):
    out, err = _run(tmp_path, """\
        import torch
        import torch.nn.functional as F
        a = torch.tensor([0.2, 0.7]); b = torch.tensor([0.0, 1.0])
        print(F.kl_div(a.log(), b))
        print(torch.nn.KLDivLoss()(a.log(), b))
        print(F.kl_div(a.log(), b, size_average=True))
        print(F.kl_div(a.log(), b, reduce=False), F.kl_div(a.log(), b, size_average=False))
        print(F.kl_div(a.log(), b, reduction="batchmean"))
        """)
    assert out == ("tensor(0.1783)\ntensor(0.1783)\ntensor(0.1783)\n"
                   "tensor([0.0000, 0.3567]) tensor(0.3567)\ntensor(0.1783)\n")  # recorded
    mean = ("reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.")
    enum = "return get_enum(legacy_get_string(size_average, reduce, emit_warning))"
    assert err == (  # recorded
        _w("SCRIPT:4", mean, "print(F.kl_div(a.log(), b))")
        + _w("SITE/torch/nn/modules/loss.py:562", mean, "return F.kl_div(")
        + _w("SITE/torch/nn/_reduction.py:60", _legacy("mean"), enum)
        + _w("SITE/torch/nn/_reduction.py:60", _legacy("none"), enum)
        + _w("SITE/torch/nn/_reduction.py:60", _legacy("sum"), enum))


def test_deepcopy_of_an_optimizer_a_scheduler_wrapped(tmp_path):
    # the scheduler's step wrapper holds the original optimizer: a copy must not keep it
    out, err = _run(tmp_path, """\
        import torch, copy
        w = torch.nn.Parameter(torch.ones(2))
        opt = torch.optim.SGD([w], lr=0.1)
        s = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
        o2 = copy.deepcopy(opt)
        w.grad = torch.ones(2)
        o2.param_groups[0]["params"][0].grad = torch.full((2,), 2.0)
        o2.step()
        print(w, o2.param_groups[0]["params"][0], hasattr(o2, "_opt_called"))
        opt.step(); s.step()
        print(w, opt.param_groups[0]["lr"], opt._opt_called)
        """)
    assert out == ("Parameter containing:\ntensor([1., 1.], requires_grad=True) "
                   "Parameter containing:\ntensor([0.8000, 0.8000], requires_grad=True) False\n"
                   "Parameter containing:\ntensor([0.9000, 0.9000], requires_grad=True) 0.05 True\n"
                   )  # recorded
    assert err == ""


def test_pickle_finds_classes_of_framework_submodules(tmp_path):
    # classes say they live in torch.nn.modules.linear, torch.optim.adam, ...: pickle imports
    # those names (gradrepl folds them into parent modules: importhook's virtual submodules)
    out, err = _run(tmp_path, """\
        import pickle
        import torch
        import torch.nn as nn
        import torch.nn.modules.linear as L
        torch.manual_seed(0)
        print(L.Linear is nn.Linear, nn.Conv2d.__module__, hasattr(torch.nn.modules, "__path__"))
        m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2, 1))
        m2 = pickle.loads(pickle.dumps(m))
        print(m2)
        print(torch.equal(m2[0].weight, m[0].weight), m2[3].bias)
        opt = torch.optim.Adam(m.parameters(), lr=0.01)
        s = torch.optim.lr_scheduler.StepLR(opt, 2)
        s2 = pickle.loads(pickle.dumps(s))
        print(type(s2).__name__, type(s2.optimizer).__name__, s2.optimizer.param_groups[0]["lr"])
        ds = pickle.loads(pickle.dumps(torch.utils.data.TensorDataset(torch.arange(3.))))
        print(type(ds).__name__, ds[1], pickle.loads(pickle.dumps(nn.CrossEntropyLoss())))
        print(hasattr(torch.nn.functional, "__path__"))
        """)
    assert out == (  # recorded
        "True torch.nn.modules.conv True\n"
        "Sequential(\n"
        "  (0): Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))\n"
        "  (1): ReLU()\n"
        "  (2): Flatten(start_dim=1, end_dim=-1)\n"
        "  (3): Linear(in_features=2, out_features=1, bias=True)\n"
        ")\n"
        "True Parameter containing:\ntensor([-0.1455], requires_grad=True)\n"
        "StepLR Adam 0.01\n"
        "TensorDataset (tensor(1.),) CrossEntropyLoss()\n"
        "False\n")
    assert err == ""
