"""The dense fast entry over the torch functions with sparse or complex wrappers (issue 29,
gradrepl/torch/_dense_entry.py): a dense real call passes one pass-through frame (the entry),
not the chain of sparse dispatch, complex refusal and out= wrappers; sparse and complex inputs
and out= still reach the chain. Expected texts: real torch 2.13 here (the script in
test_dispatch_kept_as_real_torch run under /work/vtorch)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("gradrepl.torch")
from gradrepl.torch import _out  # noqa: E402


def _pass_through_frames(call):
    """How many frames of gradrepl's pass-through wrappers (and out='s) ``call()`` enters."""
    seen = []
    codes = set(_out.PASS_THROUGH) | {_out.with_out(abs, "abs").__code__}

    def prof(frame, event, arg):
        if event == "call" and frame.f_code in codes:
            seen.append(frame.f_code.co_name)

    sys.setprofile(prof)
    try:
        call()
    finally:
        sys.setprofile(None)
    return len(seen)


def test_dense_calls_pass_one_wrapper_frame():
    F = torch.nn.functional
    x, y, a = torch.randn(4), torch.randn(4), torch.randn(3, 3)
    w = torch.nn.Parameter(torch.randn(4))
    calls = {
        "torch.tanh": lambda: torch.tanh(x), "torch.add": lambda: torch.add(x, y),
        "torch.clamp": lambda: torch.clamp(x, 0, 1), "torch.relu": lambda: torch.relu(x),
        "Tensor.clamp": lambda: x.clamp(0, 1),
        "x < y": lambda: x < y, "Tensor.argmax": lambda: x.argmax(),
        "torch.max": lambda: torch.max(x), "torch.mm": lambda: torch.mm(a, a),
        "torch.matmul": lambda: torch.matmul(a, a), "torch.cat": lambda: torch.cat([x, y]),
        "torch.sum(dim=)": lambda: torch.sum(a, dim=1), "torch.mul(Parameter)": lambda: torch.mul(w, y),
        "torch.maximum": lambda: torch.maximum(x, y),
    }
    frames = {k: _pass_through_frames(c) for k, c in calls.items()}
    assert frames == {k: 1 for k in calls}, frames
    # F.relu / Tensor.relu: _ops._relu refuses complex itself; no wrapper frame at all
    assert _pass_through_frames(lambda: F.relu(x)) == 0
    assert _pass_through_frames(lambda: x.relu()) == 0


def test_dispatch_kept_as_real_torch(tmp_path):
    # the lines real torch 2.13 prints here for this script
    script = textwrap.dedent('''
        import torch, warnings
        import torch.nn.functional as F
        z = torch.tensor([1+2j, -3j])
        for f in (lambda: torch.clamp(z, 0, 1), lambda: z.clamp(0, 1), lambda: F.relu(z),
                  lambda: torch.maximum(torch.ones(2), z), lambda: z < z, lambda: torch.max(z),
                  lambda: torch.argmax(z)):
            try: f()
            except Exception as e: print(type(e).__name__, e)
        s = torch.tensor([[0., 2.], [3., 0.]]).to_sparse()
        print(torch.tanh(s))
        print(torch.mm(torch.ones(1, 2), s))
        print(torch.cat([s, s]).to_dense())
        y = torch.zeros(3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            torch.add(torch.ones(2), torch.ones(2), out=y)
        print(y, w[0].lineno, w[0].category.__name__)
    ''')
    expected = '''\
NotImplementedError clamp is not supported for complex types
NotImplementedError clamp is not supported for complex types
NotImplementedError clamp is not supported for complex types
RuntimeError maximum not implemented for complex tensors.
NotImplementedError "lt_cpu" not implemented for 'ComplexFloat'
NotImplementedError "max_all" not implemented for 'ComplexFloat'
RuntimeError argmax(): does not support complex input
tensor(indices=tensor([[0, 1],
                       [1, 0]]),
       values=tensor([0.9640, 0.9951]),
       size=(2, 2), nnz=2, layout=torch.sparse_coo)
tensor([[3., 2.]])
tensor([[0., 2.],
        [3., 0.],
        [0., 2.],
        [3., 0.]])
tensor([2., 2.]) 17 UserWarning
'''
    path = tmp_path / "entry.py"
    path.write_text(script)
    out = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(path)],
                         capture_output=True, text=True, timeout=300)
    assert out.stdout == expected, out.stdout + out.stderr
