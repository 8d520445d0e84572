"""``t.real = value`` / ``t.imag = value`` (issue 28, CXSWEEP's last view cases): the value copied
into the real/imaginary view as torch's THPVariable_set_real/imag do. Expected lines: real torch
2.13 run here on the same script."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import without_lean_notice

SCRIPT = textwrap.dedent('''\
    import torch
    a = torch.tensor([1+2j, 2-1j, 3+0j])
    a.real = torch.tensor([1., 2., 3.]); print(a); a.imag = torch.zeros(3); print(a)
    a.real = 7; print(a)
    a.imag = torch.tensor([1, 2, 3]); print(a)
    d = torch.tensor([1+1j, 2+2j], dtype=torch.complex128); d.imag = torch.tensor([0.5, 0.25]); print(d)
    b = torch.tensor([1., 2.])
    try:
        b.imag = torch.zeros(2)
    except Exception as e: print(type(e).__name__, e)
    b.real = torch.tensor([5., 6.]); print(b)
    x = torch.tensor([1+1j, 2+2j], requires_grad=True)
    try:
        x.real = torch.zeros(2)
    except Exception as e: print(type(e).__name__, e)
''')

EXPECTED = '''\
tensor([1.+2.j, 2.-1.j, 3.+0.j])
tensor([1.+0.j, 2.+0.j, 3.+0.j])
tensor([7.+0.j, 7.+0.j, 7.+0.j])
tensor([7.+1.j, 7.+2.j, 7.+3.j])
tensor([1.+0.5000j, 2.+0.2500j], dtype=torch.complex128)
RuntimeError imag is not implemented for tensors with non-complex dtypes.
tensor([5., 6.])
RuntimeError a view of a leaf Variable that requires grad is being used in an in-place operation.
'''


def test_real_imag_setters_as_real_torch(tmp_path):
    path = tmp_path / "parts.py"
    path.write_text(SCRIPT)
    out = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(path)],
                         capture_output=True, text=True, timeout=300)
    assert without_lean_notice(out.stdout + out.stderr) == EXPECTED
