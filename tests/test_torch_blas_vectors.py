"""One-row / one-column matrix products and torch.dot as real torch 2.13 computes them: MKL's
?gemm with the arguments ATen's ``addmm_impl_cpu_`` and ``cpublas::gemm`` pass (a transposed row
is read in place with its stride; ``normalize_last_dims``), MKL's ?dot with the tensors' strides,
the operands at torch's 64-byte storage alignment (``_gemm.placed``), on MKL's threads where
a probe finds one thread would differ.

The digests were recorded by running this file's ``results`` in real torch 2.13 on an Intel Xeon
(Sapphire Rapids; MKL's code path AVX512_E1): ``python tests/test_torch_blas_vectors.py``. MKL's
kernels differ by code path, so elsewhere the test is skipped, saying so. Before the fix 8 of
the 20 digests differed (a transposed row times a column, strided dots).
"""
from __future__ import annotations

import hashlib

import numpy as np

RECORDED_BRANCH = "AVX512_E1"
WANT = {
    "WT_col-float32": "e05a10f51612764f",
    "WT_col-float64": "1dcac8b394fdbff3",
    "addmm-float32": "9609458cd414e014",
    "addmm-float64": "4f8ed5567a240440",
    "dot-float32": "19bbe6b429b3177b",
    "dot-float64": "5dbb227c0a73e2ed",
    "dot_strided-float32": "d28128b4718f968b",
    "dot_strided-float64": "f8d73420b55172f7",
    "mm-float32": "ed8730623f213f4a",
    "mm-float64": "179e4ff0191a69ae",
    "row_W-float32": "82a071d927ead22a",
    "row_W-float64": "f555c5e4464fdf5a",
    "row_col-float32": "0f2487ff67bb57ba",
    "row_col-float64": "ae7a361262196011",
    "rows_of_M-float32": "04968b666d306d4d",
    "rows_of_M-float64": "f4d72e3c607d89ed",
    "wT_x-float32": "ed8730623f213f4a",
    "wT_x-float64": "179e4ff0191a69ae",
    "xT_W-float32": "312d8f932c6122bb",
    "xT_W-float64": "42cef6f72a6b6f89",
}


def results(torch):
    """A digest per (case, dtype) over k = 1..300."""
    rs = np.random.RandomState(28)
    acc = {}
    for k in range(1, 301):
        for dt in (np.float32, np.float64):
            W = torch.tensor(rs.randn(k, 7).astype(dt))
            x = torch.tensor(rs.randn(k, 1).astype(dt))
            v = torch.tensor(rs.randn(k).astype(dt))
            M = torch.tensor(rs.randn(5, k).astype(dt))
            b = torch.tensor(rs.randn(1).astype(dt))
            cases = {
                "wT_x": W[:, 2:3].T @ x,
                "row_col": v[None, :] @ W[:, 3:4],
                "rows_of_M": M[1:2, :] @ M[2:3, :].t(),
                "xT_W": x.T @ W[:, 1:2],
                "mm": torch.mm(W[:, 2:3].t(), x),
                "addmm": torch.addmm(b, M[3:4, :], W[:, 4:5]),
                "dot_strided": torch.dot(W[:, 1], v),
                "dot": torch.dot(v, M[0]),
                "row_W": v[None, :] @ W,
                "WT_col": W.t() @ x,
            }
            for name, r in cases.items():
                key = f"{name}-{np.dtype(dt).name}"
                h = acc.setdefault(key, hashlib.sha256())
                h.update(np.ascontiguousarray(r.numpy()).tobytes())
    return {key: h.hexdigest()[:16] for key, h in sorted(acc.items())}


def test_one_row_and_one_column_products_and_dots_equal_torch():
    import pytest

    from gradrepl.engine import mkl
    import gradrepl.torch as torch

    here = mkl.branch()
    if here != RECORDED_BRANCH:
        reason = (f"recorded where MKL's code path is {RECORDED_BRANCH} (Intel Sapphire Rapids); "
                  f"here it is {here}: MKL's kernels give other last bits, bytes not compared")
        print(reason)
        pytest.skip(reason)
    got = results(torch)
    assert {k: v for k, v in got.items() if WANT[k] != v} == {}


def test_placed_keeps_torchs_offset_modulo_64_bytes():
    from gradrepl.engine import mkl
    from gradrepl.torch import _gemm

    base = np.arange(40, dtype=np.float32)
    for view in (base[3:], base[::5], base[None, 7:20], base.reshape(8, 5)[:, 2:3]):
        y = _gemm.placed(view)
        offset = (mkl.address(view) - mkl.address(base)) % 64
        assert mkl.address(y) % 64 == offset     # (as in a 64-byte aligned storage)
        assert np.array_equal(y, view) and y.strides == view.strides


if __name__ == "__main__":
    import torch

    for key, value in results(torch).items():
        print(f'    "{key}": "{value}",')
