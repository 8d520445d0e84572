"""Issue 28 (order-dependent bits): a product whose bits follow where MKL's result starts must put
it where torch's would be, a new storage on a 64-byte boundary; numpy's heap gives 16, and which
of 0/16/32/48 depended on what ran before. _gemm.gemm's one-row/one-column products do so since
0ba1bbe (tests/test_torch_gemm_bits); this is bmm's one-matrix batch (_gemm.gemm_batch)."""
from __future__ import annotations

import hashlib
import types

import numpy as np
import pytest

from conftest import skip_unless_mkl_path, skip_without_mkl
from gradrepl.engine import mkl


def _operands():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((1, 1, 400)).astype(np.float32),
            rng.standard_normal((1, 400, 50)).astype(np.float32))


def _bmm_md5(monkeypatch, misalign):
    """md5 of torch.bmm's bytes with every new array of _gemm ``misalign`` bytes past a boundary."""
    import gradrepl.torch as torch
    from gradrepl.torch import _gemm

    def placed(make):
        def new(shape, dtype=float, *args, **kwargs):
            dtype = np.dtype(dtype)
            count = int(np.prod(shape))
            buf = np.zeros(count * dtype.itemsize + 128, np.uint8)
            start = (-mkl.address(buf)) % 64 + misalign
            return buf[start:start + count * dtype.itemsize].view(dtype).reshape(shape)
        return new

    shim = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    shim.empty, shim.zeros = placed(np.empty), placed(np.zeros)
    monkeypatch.setattr(_gemm, "np", shim)
    a, b = _operands()
    out = torch.bmm(torch.from_numpy(a), torch.from_numpy(b))
    return hashlib.md5(out.numpy().tobytes()).hexdigest()


def test_bmm_of_one_matrix_does_not_follow_the_heap(monkeypatch):
    skip_without_mkl("bmm's MKL gemm_batch")
    got = {m: _bmm_md5(monkeypatch, m) for m in (0, 16, 32, 48)}
    assert len(set(got.values())) == 1, got


@pytest.mark.parametrize("misalign", [16, 48])
def test_bmm_of_one_matrix_equals_real_torch(monkeypatch, misalign):
    skip_unless_mkl_path("bmm (1, 1, 400) @ (1, 400, 50) float32")
    # real torch 2.13.0+cpu on this Sapphire Rapids Xeon (MKL path AVX512_E1): torch.bmm and
    # a @ b of these operands, md5 of the result's bytes (two runs, equal)
    assert _bmm_md5(monkeypatch, misalign) == "cd2cdd9c40170115d5622f4474b235ab"
