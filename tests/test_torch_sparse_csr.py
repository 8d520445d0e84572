"""torch's sparse CSR tensors (``_sparse_csr``: torch.sparse_csr_tensor, to_sparse_csr,
crow_indices/col_indices/values, to_dense/to_sparse, products with a dense matrix or vector) and
the legacy constructors torch.sparse.FloatTensor/DoubleTensor, printed and warned as torch 2.13
(gradrepl raised the not-emulated AttributeError at torch.sparse_csr_tensor; TSWEEP4).

EXPECTED is the stdout of SCRIPT under real torch 2.13.0 (/work/vtorch) on this machine (exact
values). MM_BITS: sha1 prefixes of CSR @ dense products recorded there (each output row a fused
multiply-add chain over the row's entries: no CPU-dependent kernel, but MKL's sparse BLAS sums
otherwise for 8 or 16 dense columns and for a CSR matrix times a vector: those are left)."""
import contextlib
import hashlib
import io
import warnings

import numpy as np

import gradrepl.torch as torch

SCRIPT = 'i = torch.LongTensor([[0, 1, 1], [2, 0, 2]])\nv = torch.FloatTensor([3, 4, 5])\ns = torch.sparse.FloatTensor(i, v, torch.Size([2, 3]))\nprint(s)\nprint(s.is_coalesced(), s.layout, s.dtype, type(s).__name__)\ne = torch.sparse.FloatTensor(2, 3)\nprint(e)\ns2 = torch.sparse.FloatTensor(i, v)\nprint(s2.shape)\nd = torch.sparse.DoubleTensor(i, torch.DoubleTensor([1.5, 2, 3]), torch.Size([2, 3]))\nprint(d)\nx = torch.tensor([[0., 1.5, 0., 0.], [2., 0., 0., -1.], [0., 0., 0., 0.]])\nc = x.to_sparse_csr()\nprint(c)\nprint(c.crow_indices(), c.col_indices(), c.values(), c._nnz(), c.layout, c.is_sparse, c.is_sparse_csr)\nprint(c.to_dense())\nprint(c.to_sparse())\nprint(s.to_sparse_csr())\nw = torch.arange(8.).reshape(4, 2)\nprint(c @ w)\nprint(torch.mm(c, w), torch.matmul(c, w))\nprint(c.matmul(torch.ones(4)))\nc64 = x.double().to_sparse_csr()\nprint(c64)\nprint(torch.sparse_csr_tensor(torch.tensor([0, 1, 2]), torch.tensor([1, 0]), torch.tensor([7, 8]), (2, 2)))\nprint(torch.sparse_csr_tensor([0, 1, 2], [1, 0], [7., 8.]))\nprint(torch.sparse_csr_tensor(torch.tensor([0, 1, 2]), torch.tensor([1, 0]), torch.tensor([7., 8.]), dtype=torch.float64))\nprint(c.shape, c.size(), c.dim())\n'

EXPECTED = 'tensor(indices=tensor([[0, 1, 1],\n                       [2, 0, 2]]),\n       values=tensor([3., 4., 5.]),\n       size=(2, 3), nnz=3, layout=torch.sparse_coo)\nFalse torch.sparse_coo torch.float32 Tensor\ntensor(indices=tensor([], size=(2, 0)),\n       values=tensor([], size=(0,)),\n       size=(2, 3), nnz=0, layout=torch.sparse_coo)\ntorch.Size([2, 3])\ntensor(indices=tensor([[0, 1, 1],\n                       [2, 0, 2]]),\n       values=tensor([1.5000, 2.0000, 3.0000]),\n       size=(2, 3), nnz=3, dtype=torch.float64, layout=torch.sparse_coo)\ntensor(crow_indices=tensor([0, 1, 3, 3]),\n       col_indices=tensor([1, 0, 3]),\n       values=tensor([ 1.5000,  2.0000, -1.0000]), size=(3, 4), nnz=3,\n       layout=torch.sparse_csr)\ntensor([0, 1, 3, 3]) tensor([1, 0, 3]) tensor([ 1.5000,  2.0000, -1.0000]) 3 torch.sparse_csr False True\ntensor([[ 0.0000,  1.5000,  0.0000,  0.0000],\n        [ 2.0000,  0.0000,  0.0000, -1.0000],\n        [ 0.0000,  0.0000,  0.0000,  0.0000]])\ntensor(indices=tensor([[0, 1, 1],\n                       [1, 0, 3]]),\n       values=tensor([ 1.5000,  2.0000, -1.0000]),\n       size=(3, 4), nnz=3, layout=torch.sparse_coo)\ntensor(crow_indices=tensor([0, 1, 3]),\n       col_indices=tensor([2, 0, 2]),\n       values=tensor([3., 4., 5.]), size=(2, 3), nnz=3,\n       layout=torch.sparse_csr)\ntensor([[ 3.0000,  4.5000],\n        [-6.0000, -5.0000],\n        [ 0.0000,  0.0000]])\ntensor([[ 3.0000,  4.5000],\n        [-6.0000, -5.0000],\n        [ 0.0000,  0.0000]]) tensor([[ 3.0000,  4.5000],\n        [-6.0000, -5.0000],\n        [ 0.0000,  0.0000]])\ntensor([1.5000, 1.0000, 0.0000])\ntensor(crow_indices=tensor([0, 1, 3, 3]),\n       col_indices=tensor([1, 0, 3]),\n       values=tensor([ 1.5000,  2.0000, -1.0000]), size=(3, 4), nnz=3,\n       dtype=torch.float64, layout=torch.sparse_csr)\ntensor(crow_indices=tensor([0, 1, 2]),\n       col_indices=tensor([1, 0]),\n       values=tensor([7, 8]), size=(2, 2), nnz=2, layout=torch.sparse_csr)\ntensor(crow_indices=tensor([0, 1, 2]),\n       col_indices=tensor([1, 0]),\n       values=tensor([7., 8.]), size=(2, 2), nnz=2, layout=torch.sparse_csr)\ntensor(crow_indices=tensor([0, 1, 2]),\n       col_indices=tensor([1, 0]),\n       values=tensor([7., 8.]), size=(2, 2), nnz=2, dtype=torch.float64,\n       layout=torch.sparse_csr)\ntorch.Size([3, 4]) torch.Size([3, 4]) 2\n'  # recorded

MM_BITS = {
    'float32_5x7x3': '147686ce6032',
    'float32_64x100x33': 'bccf5373c5ab',
    'float32_8x300x5': '550b7a98b5f4',
    'float32_100x50x1': 'f742df478e9b',
    'float32_3x1000x64': '35e834986f92',
    'float32_20x30x17': '026cef9f4b3d',
    'float64_5x7x3': 'e1e4ae1bdc94',
    'float64_64x100x33': '53e000fb13bd',
    'float64_8x300x5': 'df781dbff4f0',
    'float64_100x50x1': '4dc934dcd9e0',
    'float64_3x1000x64': '4b3f3a39c6a6',
    'float64_20x30x17': '1194355488e6',
}  # recorded


def _run(src):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(src, "<sparse_csr>", "exec"), {"torch": torch})
    return out.getvalue()


def test_sparse_csr_and_legacy_constructors_print_as_torch():
    assert _run(SCRIPT) == EXPECTED


def test_csr_dense_products_bits():
    rng = np.random.default_rng(5)
    got = {}
    for dt in (torch.float32, torch.float64):
        for (n, k, m, dens) in [(5, 7, 3, 0.5), (64, 100, 33, 0.1), (8, 300, 5, 0.9),
                                (100, 50, 1, 0.4), (3, 1000, 64, 0.7), (20, 30, 17, 0.3)]:
            a = rng.standard_normal((n, k)) * (rng.random((n, k)) < dens)
            d = rng.standard_normal((k, m))
            y = torch.tensor(a, dtype=dt).to_sparse_csr() @ torch.tensor(d, dtype=dt)
            got[f"{str(dt)[6:]}_{n}x{k}x{m}"] = \
                hashlib.sha1(y.numpy().tobytes()).hexdigest()[:12]
    assert got == MM_BITS


def test_csr_warnings_as_torch():
    from gradrepl.torch import _ops_shape

    seen = _ops_shape._warn_once.__defaults__[0]
    seen.clear()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.sparse_csr_tensor([0, 1], [0], [1.0])
        torch.tensor([[1.0]]).to_sparse_csr()
        torch.sparse.FloatTensor(torch.tensor([[0], [0]]), torch.tensor([1.0]), (1, 1))
    msgs = [str(x.message) for x in w]
    # recorded (real torch's messages, in this order; the CSR ones once per process)
    assert [m.split(" ")[0:3] for m in msgs] == [["Sparse", "invariant", "checks"],
                                                 ["Sparse", "CSR", "tensor"],
                                                 ["torch.sparse.SparseTensor(indices,", "values,",
                                                  "shape,"]]
    assert msgs[1].endswith("(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                            "SparseCsrTensorImpl.cpp:49.)")
