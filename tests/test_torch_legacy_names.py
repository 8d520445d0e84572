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


def _run(tmp_path, src):
    path = tmp_path / "case.py"
    path.write_text(src)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(path)], cwd=REPO, env=env,
                          capture_output=True, timeout=300)
    return proc, str(path)


def test_legacy_names_warn_as_torch(tmp_path):
    proc, path = _run(tmp_path, CASE)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == CASE_OUT
    assert proc.stderr.decode() == CASE_ERR.replace("/tmp/tm11b/rec/case.py", path)


def test_sparse_init_draws_as_torch(tmp_path):
    proc, _ = _run(tmp_path, SPARSE)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == SPARSE_OUT
