"""``Module.register_backward_hook`` (torch's deprecated non-full hook) and ``grad_fn.register_hook``
as torch 2.13 (TM17A, round 17: a Georgia Tech CS 7643 A3-style GradCAM registers
``register_backward_hook`` on a Conv2d followed by an in-place ReLU).

gradrepl treated the non-full hook as a full one: the module's output passed through an identity
node (so the forward hook's ``output.detach()`` no longer saw the in-place ReLU), ``grad_output``
was the gradient after the ReLU instead of the one reaching ConvolutionBackward0, ``grad_input``
held the module input's gradient only, and torch's FutureWarning (module.py:1869) was missing.
torch registers the hook on the backward node of the output's first tensor: ``grad_input`` is
what that node computed for each of its inputs (Linear's AddmmBackward0: bias, input, weight.T;
None where an input takes no gradient), ``grad_output`` its outputs' gradients (None where none
arrived: an LSTM's h/c), and a tuple the hook returns replaces ``grad_input``.

``data/torch_nonfull_hooks/expected_2.13.0.txt`` is real torch 2.13.0's output of ``probe.py``
on this machine (stderr sent to stdout inside the probe; site-packages path masked); sums are
printed to 4 decimals (no CPU-dependent last bits)."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

from conftest import without_lean_notice

DATA = pathlib.Path(__file__).parent / "data" / "torch_nonfull_hooks"


def test_non_full_backward_hooks_and_node_hooks_as_torch(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text((DATA / "probe.py").read_text())
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(script)],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    got = without_lean_notice(proc.stdout)
    got = re.sub(r"/\S*?/(?:site|dist)-packages/torch/", "SITE/torch/", got)
    assert got == (DATA / "expected_2.13.0.txt").read_text()
