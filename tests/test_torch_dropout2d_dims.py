"""F.dropout2d / nn.Dropout2d on inputs that are not 4-D, as torch 2.13 (TM15A, round 15: a
pytorch/examples mnist_rnn-style lecture puts nn.Dropout2d after an LSTM's (N, 32) output).

torch's F.dropout2d feature-drops dims 0 and 1 of any input of 2+ dims (a 2-D input: single
entries; 3-D: rows of (N, C, L)), warning (stacklevel=2, so at nn/modules/dropout.py:176 from
Dropout2d.forward) for inputs not 3-D/4-D and for 3-D ones; gradrepl drew one mask over the last
two dims (a 2-D input all kept or all dropped) and printed no warning. The same site fix for
F.dropout3d's warning (dropout.py:224).

``data/torch_dropout2d/expected_2.13.0.txt`` is real torch 2.13.0's stdout+stderr of
``probe.py`` on this machine (site-packages path and the script's path masked): outputs and
gradients' digests for 2-D/3-D/4-D/5-D inputs, p = 0/1, inplace, eval, the 1-D error. The masks
are torch's Bernoulli draws (CPU-independent)."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

from conftest import without_lean_notice

DATA = pathlib.Path(__file__).parent / "data" / "torch_dropout2d"


def test_dropout2d_dims_and_warnings_as_torch(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text((DATA / "probe.py").read_text())
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(script)],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    got = without_lean_notice(proc.stdout + proc.stderr)
    got = re.sub(r"/\S*?/(?:site|dist)-packages/torch/", "SITE/torch/", got)
    got = got.replace(str(script), "SCRIPT")
    # (stdout and stderr interleave in the record: compare the sorted lines, then stdout exactly)
    expected = (DATA / "expected_2.13.0.txt").read_text()
    assert sorted(got.splitlines()) == sorted(expected.splitlines())
