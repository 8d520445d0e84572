"""Issue 28 (order-dependent failures): ``import torch`` then ``torch.utils.checkpoint`` works in
real torch 2.13 (checked: it prints ``torch.utils.checkpoint``); in the dialect the submodule was
there only once something had imported it, so test_torch_breadth_lectures' checkpoint test
passed in alphabetical order and failed in a shuffled one (pytest-randomly, seed 2812). A fresh
process, so no other test's imports stand in."""
from __future__ import annotations

import subprocess
import sys


def test_torch_utils_checkpoint_after_import_torch_alone():
    code = ("import gradrepl.torch as torch\n"
            "x = torch.ones(2, requires_grad=True)\n"
            "y = torch.utils.checkpoint.checkpoint(lambda t: t.sin() * 2, x, use_reentrant=False)\n"
            "print(torch.utils.checkpoint.__name__.rsplit('.', 2)[-2:], y)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    # the tensor as real torch 2.13 prints it for this script
    assert out.stdout == "['utils', 'checkpoint'] tensor([1.6829, 1.6829], grad_fn=<MulBackward0>)\n"
