"""Deprecated names older lecture copies still call (PyTorchZeroToAll, MorvanZhou): torch 2.13
warns at the caller's line for the pre-0.4 ``nn.init.<name>`` functions (FutureWarning, all 11
of torch's list, ``sparse`` included), ``Variable(..., volatile=True)`` (UserWarning; with
requires_grad a ValueError) and ``torch.range`` (UserWarning at every call site).
Expected bytes: the scripts below run by real torch 2.13.0 (/work/vtorch) on this machine,
round 11B (the warnings were missing; nn.init.sparse/sparse_ raised AttributeError)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CASE = 'import sys\nimport torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\nw = torch.empty(3, 3)\nfor i in range(2):\n    nn.init.uniform(w)\nnn.init.normal(w, 0, 0.1); nn.init.constant(w, 0.5); nn.init.xavier_uniform(w)\nnn.init.xavier_normal(w); nn.init.kaiming_uniform(w); nn.init.kaiming_normal(w)\nnn.init.eye(w); nn.init.orthogonal(w); nn.init.dirac(torch.empty(2, 2, 3))\ntorch.manual_seed(0)\ns = nn.init.sparse(torch.empty(5, 3), 0.4)\nprint((s == 0).sum(0).tolist(), nn.init.sparse_(torch.empty(4, 2), 0.5).eq(0).sum().item())\nprint(nn.init.normal.__name__, nn.init.sparse.__qualname__)\nprint(nn.init.constant(torch.empty(2), 3.0))\nv = Variable(torch.ones(2), volatile=False)\nv = Variable(torch.ones(2), volatile=True)\nprint(v.requires_grad)\ntry:\n    Variable(torch.ones(2), True, True)\nexcept ValueError as e:\n    print("ValueError:", e)\nprint(torch.range(1, 3))\nfor i in range(2):\n    print(torch.range(0, 1, 0.5))\nsys.stdout.flush()\n'

# real torch 2.13.0's stdout and stderr for CASE saved as /tmp/tm11b/rec/case.py
CASE_OUT = "[2, 2, 2] 4\nnormal _make_deprecate.<locals>.deprecated_init\ntensor([3., 3.])\nFalse\nValueError: Variable can't be volatile and require_grad at the same time!\ntensor([1., 2., 3.])\ntensor([0.0000, 0.5000, 1.0000])\ntensor([0.0000, 0.5000, 1.0000])\n"
CASE_ERR = "/tmp/tm11b/rec/case.py:7: FutureWarning: `nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`.\n  nn.init.uniform(w)\n/tmp/tm11b/rec/case.py:8: FutureWarning: `nn.init.normal` is now deprecated in favor of `nn.init.normal_`.\n  nn.init.normal(w, 0, 0.1); nn.init.constant(w, 0.5); nn.init.xavier_uniform(w)\n/tmp/tm11b/rec/case.py:8: FutureWarning: `nn.init.constant` is now deprecated in favor of `nn.init.constant_`.\n  nn.init.normal(w, 0, 0.1); nn.init.constant(w, 0.5); nn.init.xavier_uniform(w)\n/tmp/tm11b/rec/case.py:8: FutureWarning: `nn.init.xavier_uniform` is now deprecated in favor of `nn.init.xavier_uniform_`.\n  nn.init.normal(w, 0, 0.1); nn.init.constant(w, 0.5); nn.init.xavier_uniform(w)\n/tmp/tm11b/rec/case.py:9: FutureWarning: `nn.init.xavier_normal` is now deprecated in favor of `nn.init.xavier_normal_`.\n  nn.init.xavier_normal(w); nn.init.kaiming_uniform(w); nn.init.kaiming_normal(w)\n/tmp/tm11b/rec/case.py:9: FutureWarning: `nn.init.kaiming_uniform` is now deprecated in favor of `nn.init.kaiming_uniform_`.\n  nn.init.xavier_normal(w); nn.init.kaiming_uniform(w); nn.init.kaiming_normal(w)\n/tmp/tm11b/rec/case.py:9: FutureWarning: `nn.init.kaiming_normal` is now deprecated in favor of `nn.init.kaiming_normal_`.\n  nn.init.xavier_normal(w); nn.init.kaiming_uniform(w); nn.init.kaiming_normal(w)\n/tmp/tm11b/rec/case.py:10: FutureWarning: `nn.init.eye` is now deprecated in favor of `nn.init.eye_`.\n  nn.init.eye(w); nn.init.orthogonal(w); nn.init.dirac(torch.empty(2, 2, 3))\n/tmp/tm11b/rec/case.py:10: FutureWarning: `nn.init.orthogonal` is now deprecated in favor of `nn.init.orthogonal_`.\n  nn.init.eye(w); nn.init.orthogonal(w); nn.init.dirac(torch.empty(2, 2, 3))\n/tmp/tm11b/rec/case.py:10: FutureWarning: `nn.init.dirac` is now deprecated in favor of `nn.init.dirac_`.\n  nn.init.eye(w); nn.init.orthogonal(w); nn.init.dirac(torch.empty(2, 2, 3))\n/tmp/tm11b/rec/case.py:12: FutureWarning: `nn.init.sparse` is now deprecated in favor of `nn.init.sparse_`.\n  s = nn.init.sparse(torch.empty(5, 3), 0.4)\n/tmp/tm11b/rec/case.py:15: FutureWarning: `nn.init.constant` is now deprecated in favor of `nn.init.constant_`.\n  print(nn.init.constant(torch.empty(2), 3.0))\n/tmp/tm11b/rec/case.py:17: UserWarning: volatile was removed and now has no effect. Use `with torch.no_grad():` instead.\n  v = Variable(torch.ones(2), volatile=True)\n/tmp/tm11b/rec/case.py:20: UserWarning: volatile was removed and now has no effect. Use `with torch.no_grad():` instead.\n  Variable(torch.ones(2), True, True)\n/tmp/tm11b/rec/case.py:23: UserWarning: torch.range is deprecated and will be removed in a future release because its behavior is inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in [start, end).\n  print(torch.range(1, 3))\n/tmp/tm11b/rec/case.py:25: UserWarning: torch.range is deprecated and will be removed in a future release because its behavior is inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in [start, end).\n  print(torch.range(0, 1, 0.5))\n"

SPARSE = 'import torch\ntorch.manual_seed(3)\ng = torch.Generator().manual_seed(5)\nprint(torch.nn.init.sparse_(torch.empty(6, 4), 0.3))\nprint(torch.nn.init.sparse_(torch.empty(5, 3, dtype=torch.float64), 0.5, std=1.0, generator=g))\nprint(torch.rand(2))\ntry:\n    torch.nn.init.sparse_(torch.empty(2, 2, 2), 0.1)\nexcept ValueError as e:\n    print(e)\n'

# real torch 2.13.0's output for SPARSE (values, zeros and the default generator's state after)
SPARSE_OUT = 'tensor([[-0.0008,  0.0036, -0.0078,  0.0007],\n        [ 0.0000, -0.0029,  0.0162,  0.0000],\n        [ 0.0040,  0.0000,  0.0000,  0.0000],\n        [-0.0034,  0.0000, -0.0008, -0.0181],\n        [ 0.0049,  0.0021,  0.0034,  0.0135],\n        [ 0.0000,  0.0001,  0.0000, -0.0011]])\ntensor([[ 0.0000,  0.0000, -0.5581],\n        [ 0.6675, -0.1974,  0.0000],\n        [ 0.0000,  0.0000,  0.0000],\n        [-0.8991, -0.5578,  0.0000],\n        [ 0.0000,  0.0000,  0.6846]], dtype=torch.float64)\ntensor([0.2732, 0.5075])\nOnly tensors with 2 dimensions are supported\n'


# A scheduler's get_lr() called outside step() warns from its line in torch's lr_scheduler.py
# (SWALR: from the caller); the pre-linalg torch.qr/cholesky/lu/chain_matmul warn torch's full
# TORCH_WARN_ONCE text once a process (qr/cholesky at the user's line, lu/chain_matmul at their
# Python wrapper's line: functional.py, Tensor.lu's _tensor.py). Outputs of real torch 2.13.0
# (stdout and stderr together; <TORCH> = its torch package folder, <SCRIPT> = the script).
SCHED = "import torch\nfrom torch import nn\nfrom torch.optim import lr_scheduler as L\nfrom torch.optim.swa_utils import SWALR\ndef o():\n    return torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=0.5)\nfor mk in [lambda p: L.LambdaLR(p, lambda e: 0.9 ** e), lambda p: L.MultiplicativeLR(p, lambda e: 0.9),\n           lambda p: L.StepLR(p, 2), lambda p: L.MultiStepLR(p, [1, 2]), lambda p: L.ConstantLR(p),\n           lambda p: L.LinearLR(p), lambda p: L.ExponentialLR(p, 0.9), lambda p: L.PolynomialLR(p),\n           lambda p: L.CosineAnnealingLR(p, 5), lambda p: L.CyclicLR(p, 0.1, 1.0),\n           lambda p: L.CosineAnnealingWarmRestarts(p, 3), lambda p: L.OneCycleLR(p, 1.0, total_steps=10),\n           lambda p: SWALR(p, swa_lr=0.05)]:\n    opt = o()\n    s = mk(opt)\n    for i in range(3):\n        opt.step()\n        s.step()\n        print(type(s).__name__, s.get_lr(), s.get_last_lr())\n    s.step(5) if not isinstance(s, (L.CyclicLR, L.OneCycleLR, SWALR)) else s.step()\n    print(s.get_last_lr(), s.get_lr())\n    print(s.state_dict()['_get_lr_called_within_step'])\ns = L.StepLR(o(), 2)\nprint(s.get_lr())\n"
SCHED_OUT = '<TORCH>/optim/lr_scheduler.py:461: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nLambdaLR [0.45] [0.45]\nLambdaLR [0.405] [0.405]\nLambdaLR [0.36450000000000005] [0.36450000000000005]\n<SCRIPT>:19: UserWarning: The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed form is used instead of the new chainable form, where available. Please open an issue if you are unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.\n  s.step(5) if not isinstance(s, (L.CyclicLR, L.OneCycleLR, SWALR)) else s.step()\n[0.29524500000000004] [0.29524500000000004]\nFalse\n<TORCH>/optim/lr_scheduler.py:579: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nMultiplicativeLR [0.405] [0.45]\nMultiplicativeLR [0.36450000000000005] [0.405]\nMultiplicativeLR [0.32805000000000006] [0.36450000000000005]\n[0.32805000000000006] [0.2952450000000001]\nFalse\n<TORCH>/optim/lr_scheduler.py:654: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nStepLR [0.5] [0.5]\nStepLR [0.005000000000000001] [0.05]\nStepLR [0.05] [0.05]\n[0.005000000000000001] [0.005000000000000001]\nFalse\n<TORCH>/optim/lr_scheduler.py:744: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nMultiStepLR [0.005000000000000001] [0.05]\nMultiStepLR [0.0005000000000000001] [0.005000000000000001]\nMultiStepLR [0.005000000000000001] [0.005000000000000001]\n[0.005000000000000001] [0.005000000000000001]\nFalse\n<TORCH>/optim/lr_scheduler.py:845: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nConstantLR [0.16666666666666666] [0.16666666666666666]\nConstantLR [0.16666666666666666] [0.16666666666666666]\nConstantLR [0.16666666666666666] [0.16666666666666666]\n[0.5] [1.5]\nFalse\n<TORCH>/optim/lr_scheduler.py:959: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nLinearLR [0.3266666666666667] [0.23333333333333334]\nLinearLR [0.3857142857142858] [0.30000000000000004]\nLinearLR [0.4481481481481483] [0.36666666666666675]\n[0.5] [0.5769230769230769]\nFalse\n<TORCH>/optim/lr_scheduler.py:1058: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nExponentialLR [0.405] [0.45]\nExponentialLR [0.36450000000000005] [0.405]\nExponentialLR [0.32805000000000006] [0.36450000000000005]\n[0.29524500000000004] [0.2657205]\nFalse\n<TORCH>/optim/lr_scheduler.py:1304: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nPolynomialLR [0.32000000000000006] [0.4]\nPolynomialLR [0.22499999999999995] [0.3]\nPolynomialLR [0.13333333333333336] [0.2]\n[0.0] [0.0]\nFalse\n<TORCH>/optim/lr_scheduler.py:1426: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nCosineAnnealingLR [0.4090678107421711] [0.45225424859373686]\nCosineAnnealingLR [0.23680339887498947] [0.32725424859373686]\nCosineAnnealingLR [0.09118627109394715] [0.17274575140626314]\n[0.0] [0.0]\nFalse\n<TORCH>/optim/lr_scheduler.py:2030: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nCyclicLR [0.10045000000000015] [0.10045000000000015]\nCyclicLR [0.1008999999999999] [0.1008999999999999]\nCyclicLR [0.10135000000000005] [0.10135000000000005]\n[0.10179999999999981] [0.10179999999999981]\nFalse\n<TORCH>/optim/lr_scheduler.py:2200: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nCosineAnnealingWarmRestarts [0.375] [0.375]\nCosineAnnealingWarmRestarts [0.12500000000000006] [0.12500000000000006]\nCosineAnnealingWarmRestarts [0.5] [0.5]\n[0.12500000000000006] [0.12500000000000006]\nFalse\n<TORCH>/optim/lr_scheduler.py:2571: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  _warn_get_lr_called_within_step(self)\nOneCycleLR [0.52] [0.52]\nOneCycleLR [1.0] [1.0]\nOneCycleLR [0.9504846320134737] [0.9504846320134737]\n[0.8117456539497631] [0.8117456539497631]\nFalse\n<SCRIPT>:18: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  print(type(s).__name__, s.get_lr(), s.get_last_lr())\nSWALR [0.47824492210000036] [0.48898771616640957]\nSWALR [0.4273965813835594] [0.45702882373436315]\nSWALR [0.36356198058295414] [0.40725168176580645]\n<SCRIPT>:20: UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.\n  print(s.get_last_lr(), s.get_lr())\n[0.34452882373436317] [0.2928182495365103]\nFalse\n[0.5]\n'
LINALG = 'import torch\na = torch.tensor([[4., 1., 0.], [1., 3., 1.], [0., 1., 2.]])\nprint(torch.chain_matmul(a, a))\nprint(torch.chain_matmul(a, a, a).sum())\nq, r = torch.qr(a)\nq, r = torch.qr(a, some=False)\nq, r = a.qr()\nprint(r)\nprint(torch.cholesky(a))\nprint(a.cholesky(upper=True))\nLU, piv = torch.lu(a)\nLU, piv, info = torch.lu(a, get_infos=True)\nprint(piv, info)\nprint(a.lu()[1])\n'
LINALG_OUT = "<TORCH>/functional.py:2099: UserWarning: torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple parameters. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1102.)\n  return _VF.chain_matmul(matrices)  # type: ignore[attr-defined]\ntensor([[17.,  7.,  1.],\n        [ 7., 11.,  5.],\n        [ 1.,  5.,  5.]])\ntensor(273.)\n<SCRIPT>:5: UserWarning: torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete') (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2505.)\n  q, r = torch.qr(a)\ntensor([[-4.1231, -1.6977, -0.2425],\n        [ 0.0000, -2.8491, -1.6104],\n        [ 0.0000,  0.0000,  1.5323]])\n<SCRIPT>:9: UserWarning: torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results for all valid (symmetric positive definite) inputs. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)\n  print(torch.cholesky(a))\ntensor([[2.0000, 0.0000, 0.0000],\n        [0.5000, 1.6583, 0.0000],\n        [0.0000, 0.6030, 1.2792]])\ntensor([[2.0000, 0.5000, 0.0000],\n        [0.0000, 1.6583, 0.6030],\n        [0.0000, 0.0000, 1.2792]])\n<TORCH>/functional.py:2202: UserWarning: torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots) (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)\n  return torch._lu_with_info(A, pivot=pivot, check_errors=(not get_infos))\ntensor([1, 2, 3], dtype=torch.int32) tensor(0, dtype=torch.int32)\ntensor([1, 2, 3], dtype=torch.int32)\n"
LINALG2 = 'import torch\na = torch.tensor([[4., 1., 0.], [1., 3., 1.], [0., 1., 2.]])\nprint(a.lu()[1])\nprint(a.cholesky(upper=True))\nout = torch.empty(3, 3)\nprint(torch.chain_matmul(a, a, out=out) is out)\n'
LINALG2_OUT = '<TORCH>/_tensor.py:930: UserWarning: torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots) (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)\n  LU, pivots, infos = torch._lu_with_info(\ntensor([1, 2, 3], dtype=torch.int32)\n<SCRIPT>:4: UserWarning: torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results for all valid (symmetric positive definite) inputs. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)\n  print(a.cholesky(upper=True))\ntensor([[2.0000, 0.5000, 0.0000],\n        [0.0000, 1.6583, 0.6030],\n        [0.0000, 0.0000, 1.2792]])\n<TORCH>/functional.py:2101: UserWarning: torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple parameters. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1120.)\n  return _VF.chain_matmul(matrices, out=out)  # type: ignore[attr-defined]\nTrue\n'

# torch.set_default_tensor_type's C++ warning (shown at torch/__init__.py's call), RNNBase's
# dropout warning (stacklevel=2: torch's RNN/LSTM/GRU.__init__ line, or the user's subclass
# of RNNBase); real torch 2.13.0, stdout+stderr as above
OLD_RNN = "import torch\ntorch.set_default_tensor_type('torch.FloatTensor')\ntorch.set_default_tensor_type(torch.DoubleTensor)\nprint(torch.tensor(1.).dtype)\ntorch.set_default_tensor_type('torch.FloatTensor')\nimport torch.nn as nn\nfor i in range(2):\n    nn.GRU(2, 3, dropout=0.2)\nnn.LSTM(2, 3, dropout=0.2)\nnn.RNN(2, 3, dropout=0.2, nonlinearity='relu')\nnn.RNNBase('GRU', 2, 3, dropout=0.5)\nnn.LSTM(2, 3, num_layers=2, dropout=0.2)\ntry:\n    nn.LSTM(2, 3, dropout=1.5)\nexcept ValueError as e:\n    print(e)\nclass MyLSTM(nn.LSTM):\n    def __init__(self):\n        super().__init__(2, 3, dropout=0.1)\nclass MyBase(nn.RNNBase):\n    def __init__(self):\n        super().__init__('RNN_TANH', 2, 3, dropout=0.4)\nMyLSTM(); MyBase()\nprint(torch.get_default_dtype())\n"
OLD_RNN_OUT = '<TORCH>/__init__.py:1332: UserWarning: torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() and torch.set_default_device() as alternatives. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)\n  _C._set_default_tensor_type(t)\ntorch.float64\n<TORCH>/nn/modules/rnn.py:1358: UserWarning: dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers greater than 1, but got dropout=0.2 and num_layers=1\n  super().__init__("GRU", *args, **kwargs)\n<TORCH>/nn/modules/rnn.py:1011: UserWarning: dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers greater than 1, but got dropout=0.2 and num_layers=1\n  super().__init__("LSTM", *args, **kwargs)\n<TORCH>/nn/modules/rnn.py:655: UserWarning: dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers greater than 1, but got dropout=0.2 and num_layers=1\n  super().__init__(mode, *args, **kwargs)\n<SCRIPT>:11: UserWarning: dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers greater than 1, but got dropout=0.5 and num_layers=1\n  nn.RNNBase(\'GRU\', 2, 3, dropout=0.5)\ndropout should be a number in range [0, 1] representing the probability of an element being zeroed\n<TORCH>/nn/modules/rnn.py:1011: UserWarning: dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers greater than 1, but got dropout=0.1 and num_layers=1\n  super().__init__("LSTM", *args, **kwargs)\n<SCRIPT>:22: UserWarning: dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers greater than 1, but got dropout=0.4 and num_layers=1\n  super().__init__(\'RNN_TANH\', 2, 3, dropout=0.4)\ntorch.float32\n'

# np.array(tensor): torch 2.13's Tensor.__array__ takes no copy keyword, so numpy 2.4 warns a
# DeprecationWarning at the caller's line (np.asarray and nested lists do not); real torch 2.13.0
ARRAY = 'import numpy as np\nimport torch\nt = torch.ones(2)\na = np.array(t)\nb = np.asarray(t)\nc = np.array(t, dtype=np.float64)\nd = np.array(t, copy=False) if False else None\ne = np.asarray(t, dtype=np.float32)\nf = np.array([t, t])\nprint(a, b, c, e, f)\ndef g():\n    return np.array(torch.zeros(1))\ng(); g()\nimport numpy\nprint(numpy.__version__)\n'
ARRAY_OUT = "<SCRIPT>:4: DeprecationWarning: __array__ implementation doesn't accept a copy keyword, so passing copy=False failed. __array__ must implement 'dtype' and 'copy' keyword arguments. To learn more, see the migration guide https://numpy.org/devdocs/numpy_2_0_migration_guide.html#adapting-to-changes-in-the-copy-keyword\n  a = np.array(t)\n<SCRIPT>:6: DeprecationWarning: __array__ implementation doesn't accept a copy keyword, so passing copy=False failed. __array__ must implement 'dtype' and 'copy' keyword arguments. To learn more, see the migration guide https://numpy.org/devdocs/numpy_2_0_migration_guide.html#adapting-to-changes-in-the-copy-keyword\n  c = np.array(t, dtype=np.float64)\n[1. 1.] [1. 1.] [1. 1.] [1. 1.] [[1. 1.]\n [1. 1.]]\n<SCRIPT>:12: DeprecationWarning: __array__ implementation doesn't accept a copy keyword, so passing copy=False failed. __array__ must implement 'dtype' and 'copy' keyword arguments. To learn more, see the migration guide https://numpy.org/devdocs/numpy_2_0_migration_guide.html#adapting-to-changes-in-the-copy-keyword\n  return np.array(torch.zeros(1))\n2.4.6\n"


def _run(tmp_path, src):
    path = tmp_path / "case.py"
    path.write_text(src)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(path)], cwd=REPO, env=env,
                          capture_output=True, timeout=300)
    # gradrepl's own one-line notice where the MKL backend (the exact extra) is absent is not torch's
    proc.stderr = b"".join(line for line in proc.stderr.splitlines(keepends=True)
                           if not line.startswith(b"gradrepl: torch's float math"))
    return proc, str(path)


def _merged(tmp_path, src, unbuffered=True):
    """stdout+stderr in one stream (as recorded), with the torch folder and script masked.

    The order of prints and warnings in one stream is the order of the writes, which Python's
    stdout buffering decides: the records above were made with PYTHONUNBUFFERED=1 (this machine's
    environment), where each print is written at once; without it stdout is block-buffered into
    the pipe and all prints come at exit, after all warnings, under real torch as under gradrepl.
    The variable is therefore set (or removed) here, not inherited: a run from ``env -i`` (the
    aarch64 chroot of tests/test_cpu_classes.py) or a shell without it failed the four cases."""
    from gradrepl import _libsite

    path = tmp_path / "case.py"
    path.write_text(src)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(path)], cwd=REPO, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    assert proc.returncode == 0, proc.stdout.decode()
    out = b"".join(line for line in proc.stdout.splitlines(keepends=True)
                   if not line.startswith(b"gradrepl: torch's float math"))  # (the notice above)
    return (out.decode().replace(_libsite.package_dir("torch"), "<TORCH>")
            .replace(str(path), "<SCRIPT>"))


def test_legacy_names_warn_as_torch(tmp_path):
    proc, path = _run(tmp_path, CASE)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == CASE_OUT
    assert proc.stderr.decode() == CASE_ERR.replace("/tmp/tm11b/rec/case.py", path)


def test_sparse_init_draws_as_torch(tmp_path):
    proc, _ = _run(tmp_path, SPARSE)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == SPARSE_OUT


def test_get_lr_outside_step_warns_as_torch(tmp_path):
    assert _merged(tmp_path, SCHED) == SCHED_OUT


def test_pre_linalg_functions_warn_once_as_torch(tmp_path):
    assert _merged(tmp_path, LINALG) == LINALG_OUT
    assert _merged(tmp_path, LINALG2) == LINALG2_OUT


def test_default_tensor_type_and_rnn_dropout_warn_as_torch(tmp_path):
    assert _merged(tmp_path, OLD_RNN) == OLD_RNN_OUT


def test_np_array_of_a_tensor_warns_as_numpy_does_for_torch(tmp_path):
    assert _merged(tmp_path, ARRAY) == ARRAY_OUT


# ARRAY with stdout block-buffered (PYTHONUNBUFFERED unset): real torch 2.13.0 here wrote the
# three warnings first and the prints at exit (the same bytes as ARRAY_OUT, reordered)
ARRAY_BLOCK_OUT = (ARRAY_OUT.replace("[1. 1.] [1. 1.] [1. 1.] [1. 1.] [[1. 1.]\n [1. 1.]]\n", "")
                   .replace("2.4.6\n", "") + "[1. 1.] [1. 1.] [1. 1.] [1. 1.] [[1. 1.]\n [1. 1.]]\n2.4.6\n")


def test_prints_and_warnings_keep_real_torchs_order_with_buffered_stdout(tmp_path):
    assert _merged(tmp_path, ARRAY, unbuffered=False) == ARRAY_BLOCK_OUT


# torch.lu_solve and Tensor.lu_solve: ATen's warning once, at the user's line (real torch 2.13,
# this machine; PYTHONUNBUFFERED=1). Found by conformance-torch-docs' torch.lu_solve case.
LU_SOLVE = 'import torch\ntorch.manual_seed(0)\nA = torch.randn(2, 3, 3)\nb = torch.randn(2, 3, 1)\nLU, pivots = torch.linalg.lu_factor(A)\nx = b.lu_solve(LU, pivots)\nx = torch.lu_solve(b, LU, pivots)\nprint(torch.dist(A @ x, b) < 1e-5)\n'
LU_SOLVE_OUT = '<SCRIPT>:6: UserWarning: torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)\n  x = b.lu_solve(LU, pivots)\ntensor(True)\n'


def test_lu_solve_warns_once_as_torch(tmp_path):
    assert _merged(tmp_path, LU_SOLVE) == LU_SOLVE_OUT
