"""A sparse operand's gradient through ``s @ D`` / ``torch.mm`` is dense in torch (MmBackward0's
mm_mat1_backward: ``grad.mm(mat2.t())``): a sparse COO or CSR leaf's ``.grad`` is that dense
tensor, and ``x.to_sparse()`` / ``x.to_sparse_csr()`` hand ``x`` all of it (not masked to the
entries); ``torch.sparse.mm`` keeps its sparse gradient (issue 28, SPSWEEP's grad family).
Expected: real torch 2.13's output of the script, run here (its path masked)."""
from __future__ import annotations

import subprocess
import sys

from conftest import without_lean_notice

SCRIPT = 'import torch\nD = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])\ndef leaf():\n    return torch.sparse_coo_tensor([[0, 1, 1, 2], [2, 0, 2, 1]], [3., 4., 5., -1.], (3, 3), requires_grad=True)\ns = leaf(); y = s @ D; print(y.grad_fn.name()); y.sum().backward(); print(s.grad)\ns = leaf(); y = torch.mm(s, D); y.sum().backward(); print(s.grad)\ns = leaf(); y = torch.sparse.mm(s, D); y.sum().backward(); print(s.grad)\ns = leaf(); W = D.clone().requires_grad_(); (s @ W).pow(2).sum().backward(); print(s.grad, W.grad)\nc = torch.sparse_csr_tensor([0, 1, 2], [1, 0], [1., 2.], (2, 2), requires_grad=True); (c @ torch.ones(2, 2)).sum().backward(); print(c.grad)\nx = torch.tensor([[0., 1.], [2., 0.]], requires_grad=True); c = x.to_sparse_csr(); (c @ torch.ones(2, 2)).sum().backward(); print(x.grad)\nx = torch.tensor([[0., 1.], [2., 0.]], requires_grad=True); c = x.to_sparse(); (c @ torch.tensor([[1., 2.], [3., 4.]])).sum().backward(); print(x.grad)\nx = torch.tensor([[0., 1.], [2., 0.]], requires_grad=True); y = torch.sparse.mm(x.to_sparse(), torch.ones(2, 2)); y.sum().backward(); print(x.grad)\ns = leaf(); (s @ D).sum().backward(); (s @ D).sum().backward(); print(s.grad)\n'

EXPECTED = 'SCRIPT_PATH:4: UserWarning: Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur when operating on a sparse tensor which violates the invariants, but checks incur performance overhead. To silence this warning, explicitly opt in or out. See `torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.  (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/Context.cpp:816.)\n  return torch.sparse_coo_tensor([[0, 1, 1, 2], [2, 0, 2, 1]], [3., 4., 5., -1.], (3, 3), requires_grad=True)\nMmBackward0\ntensor([[ 3.,  7., 11.],\n        [ 3.,  7., 11.],\n        [ 3.,  7., 11.]])\ntensor([[ 3.,  7., 11.],\n        [ 3.,  7., 11.],\n        [ 3.,  7., 11.]])\ntensor(indices=tensor([[0, 1, 1, 2],\n                       [2, 0, 2, 1]]),\n       values=tensor([11.,  3., 11.,  7.]),\n       size=(3, 3), nnz=4, layout=torch.sparse_coo)\ntensor([[102., 234., 366.],\n        [210., 478., 746.],\n        [-22., -50., -78.]]) tensor([[232., 304.],\n        [  6.,   8.],\n        [380., 488.]])\nSCRIPT_PATH:9: UserWarning: Sparse CSR tensor support is in beta state. If you miss a functionality in the sparse tensor support, please submit a feature request to https://github.com/pytorch/pytorch/issues. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/SparseCsrTensorImpl.cpp:49.)\n  c = torch.sparse_csr_tensor([0, 1, 2], [1, 0], [1., 2.], (2, 2), requires_grad=True); (c @ torch.ones(2, 2)).sum().backward(); print(c.grad)\ntensor([[2., 2.],\n        [2., 2.]])\ntensor([[2., 2.],\n        [2., 2.]])\ntensor([[3., 7.],\n        [3., 7.]])\ntensor([[0., 2.],\n        [2., 0.]])\ntensor([[ 6., 14., 22.],\n        [ 6., 14., 22.],\n        [ 6., 14., 22.]])\n'


def test_sparse_mm_grads_as_real_torch(tmp_path):
    path = tmp_path / "sparse_grads.py"
    path.write_text(SCRIPT)
    out = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(path)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert without_lean_notice(out.stdout).replace(str(path), "SCRIPT_PATH") == EXPECTED
