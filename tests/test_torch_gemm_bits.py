"""The torch dialect's matrix products (mm, matmul/@, mv, bmm, addmm, F.linear) and their
gradients give real torch 2.13's bits: torch computes them with MKL's gemm, which gradrepl loads
from the ``mkl`` wheel (gradrepl/torch/_gemm.py, _mm_grad.py). Expected md5s of the results'
bytes recorded from real torch by tests/data/torch_gemm/record.py over cases.py's cases."""
import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest

DATA = pathlib.Path(__file__).parent / "data" / "torch_gemm"
sys.path.insert(0, str(DATA))
from cases import CASES, run  # noqa: E402

from conftest import expected_for_mkl_branch  # noqa: E402
from gradrepl.torch import _mkl  # noqa: E402

EXPECTED = json.loads((DATA / "expected.json").read_text())
needs_mkl = pytest.mark.skipif(not _mkl.available(), reason="the mkl wheel is not installed "
                               "(a dependency on x86-64 Linux/Windows only)")
# measured differences that are not the products' kernels: none left (W2.grad of the MLP needed
# MKL on torch's 2 OpenMP threads, the cross_entropy MLP torch's softmax kernels; both now match)
KNOWN: set = set()


@needs_mkl
@pytest.mark.parametrize("name", list(CASES))
def test_products_and_gradients_equal_real_torch(name):
    import gradrepl.torch as torch

    # records per MKL code path: expected.json (AMD EPYC), expected_AVX512_E1.json (Intel
    # Sapphire Rapids Xeon), both by record.py under real torch 2.13
    EXPECTED = expected_for_mkl_branch(DATA, f"{name} (MKL's gemm)", approximations=False)

    results = run(torch, name)
    for i, y in enumerate(results):
        key = f"{name}/{i}"
        if key in KNOWN:
            continue
        assert hashlib.md5(np.ascontiguousarray(y).tobytes()).hexdigest() == EXPECTED[key], key
    assert len(results) == sum(k.startswith(name + "/") for k in EXPECTED)


@needs_mkl
def test_create_graph_through_linear():
    import gradrepl.torch as torch

    x = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
    w = torch.tensor([[0.5, -2.0], [1.5, 0.25], [1.0, 1.0]], requires_grad=True)
    y = torch.nn.functional.linear(x, w, torch.tensor([0.1, 0.2, 0.3]))
    (gx,) = torch.autograd.grad((y * y).sum(), x, create_graph=True)
    (ggw,) = torch.autograd.grad(gx.sum(), w)
    # d/dw of sum_ij 2 (x w^T + b)_ik w_kj, by hand
    xs = x.detach().numpy()
    yv = xs @ w.detach().numpy().T + np.array([0.1, 0.2, 0.3], np.float32)
    expect = 2 * (xs.sum(1, keepdims=True) * 0 + yv).T @ np.ones((2, 2), np.float32) \
        + 2 * w.detach().numpy().sum(1, keepdims=True) * xs.sum(0)[None, :]
    np.testing.assert_allclose(ggw.numpy(), expect, rtol=1e-5)


def test_without_mkl_gemm_says_none(monkeypatch):
    from gradrepl.engine import mkl
    from gradrepl.torch import _gemm

    monkeypatch.setattr(mkl, "_LIB", False)
    monkeypatch.setattr(_gemm, "_KERNELS", {})
    a = np.ones((2, 3), np.float32)
    assert _gemm.gemm(a, a.T) is None


@needs_mkl
@pytest.mark.parametrize("misalign", [0, 16, 32, 48])
def test_one_column_products_do_not_follow_the_heap(monkeypatch, misalign):
    """MKL's gemv order follows where the result starts; torch's new storages start 64-byte aligned
    and numpy's arrays on 16: (400,) @ (400, 50) gave other bits when numpy's heap put the result
    16 bytes past a boundary (the CI run failed on it after other products had run). Here every
    new array _gemm makes starts ``misalign`` bytes past a 64-byte boundary."""
    import types

    import gradrepl.torch as torch
    from gradrepl.torch import _gemm

    def empty(shape, dtype=float, *args, **kwargs):
        dtype = np.dtype(dtype)
        count = int(np.prod(shape))
        buf = np.zeros(count * dtype.itemsize + 128, np.uint8)
        start = (-_mkl.address(buf)) % 64 + misalign
        return buf[start:start + count * dtype.itemsize].view(dtype).reshape(shape)

    shim = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    shim.empty = empty
    monkeypatch.setattr(_gemm, "np", shim)
    EXPECTED = expected_for_mkl_branch(DATA, "vecmat_400x50 (MKL's gemm)", approximations=False)
    for name in ("vecmat_400x50", "mm_col_40x300x1", "mm_row_1x300x40", "mv_50x400"):
        for i, y in enumerate(run(torch, name)):
            assert hashlib.md5(np.ascontiguousarray(y).tobytes()).hexdigest() == \
                EXPECTED[f"{name}/{i}"], (name, i, misalign)
