"""torch.addmm with alpha/beta other than 1 as torch 2.13 computes it: one MKL gemm call with
alpha and beta inside (ATen's addmm_impl_cpu_ copies the bias into the result, then
gemm(alpha, beta); beta 0: the bias not read), and AddmmBackward0's gradients: the products
times alpha, grad * beta summed to the bias's shape (derivatives.yaml's maybe_multiply).
gradrepl summed the scaled parts (mul, mm, mul, add): 247 of 280 outputs/gradients differed
(TSWEEP4 probe: 1-8 rows, float32/float64, contiguous/transposed mat1, 1-D/2-D bias).

Digests (sha1 of y, bias grad, mat1 grad, mat2 grad bytes, first 12 hex digits) recorded from
real torch 2.13 (/work/vtorch, 2 threads) on the Intel Sapphire Rapids Xeon (MKL path
AVX512_E1): the bits are MKL's kernels', so they compare there only."""
from __future__ import annotations

import hashlib

import numpy as np

import gradrepl.torch as torch
from conftest import skip_unless_mkl_path

REAL = {
    "float32_1x4x5_c_1.0_0.3_2": "b64d34636a38",
    "float32_1x4x5_c_1.0_0.3_1": "b56a9c7f0f1b",
    "float32_1x4x5_c_0.7_1.0_2": "868fe3c0922d",
    "float32_1x4x5_c_0.7_1.0_1": "de321364b100",
    "float32_1x4x5_c_-1.5_2.5_2": "ec354549789a",
    "float32_1x4x5_c_-1.5_2.5_1": "9155b2b63382",
    "float32_1x4x5_c_2.0_0.0_2": "b8b4fae0021a",
    "float32_1x4x5_c_2.0_0.0_1": "b91ac8d3689b",
    "float32_1x4x5_t_1.0_0.3_2": "08fdc93fdf6d",
    "float32_1x4x5_t_1.0_0.3_1": "c3835b1ee5fb",
    "float32_1x4x5_t_0.7_1.0_2": "c62e90bb1fd9",
    "float32_1x4x5_t_0.7_1.0_1": "0035ba5d2716",
    "float32_1x4x5_t_-1.5_2.5_2": "16688a18257a",
    "float32_1x4x5_t_-1.5_2.5_1": "6fe89a3db8f3",
    "float32_1x4x5_t_2.0_0.0_2": "7b9a248eeea2",
    "float32_1x4x5_t_2.0_0.0_1": "97f32b3cf187",
    "float32_1x17x1_c_1.0_0.3_2": "3d593918fd40",
    "float32_1x17x1_c_1.0_0.3_1": "90dc3c23f635",
    "float32_1x17x1_c_0.7_1.0_2": "a6f28f159d09",
    "float32_1x17x1_c_0.7_1.0_1": "5274a865cef3",
    "float32_1x17x1_c_-1.5_2.5_2": "3aee1ca0bf13",
    "float32_1x17x1_c_-1.5_2.5_1": "1656b1c338de",
    "float32_1x17x1_c_2.0_0.0_2": "a2f42e821869",
    "float32_1x17x1_c_2.0_0.0_1": "26f42a0a731a",
    "float32_1x17x1_t_1.0_0.3_2": "9c7f7d95a837",
    "float32_1x17x1_t_1.0_0.3_1": "5794c78ad409",
    "float32_1x17x1_t_0.7_1.0_2": "c72b9df5994e",
    "float32_1x17x1_t_0.7_1.0_1": "3115f621389c",
    "float32_1x17x1_t_-1.5_2.5_2": "2d4520ec0ea8",
    "float32_1x17x1_t_-1.5_2.5_1": "26a8dfca8e1f",
    "float32_1x17x1_t_2.0_0.0_2": "bf7e2d168281",
    "float32_1x17x1_t_2.0_0.0_1": "5edc36697c24",
    "float32_3x4x5_c_1.0_0.3_2": "be5fec5b34fe",
    "float32_3x4x5_c_1.0_0.3_1": "e84acadb90e3",
    "float32_3x4x5_c_0.7_1.0_2": "1bfdae1e7782",
    "float32_3x4x5_c_0.7_1.0_1": "8ef37dc37dd3",
    "float32_3x4x5_c_-1.5_2.5_2": "c8bb41d82e01",
    "float32_3x4x5_c_-1.5_2.5_1": "f041adf6cf9b",
    "float32_3x4x5_c_2.0_0.0_2": "7cc77be5ae34",
    "float32_3x4x5_c_2.0_0.0_1": "7b691314d2f2",
    "float32_3x4x5_t_1.0_0.3_2": "b0ff4bc5dbc8",
    "float32_3x4x5_t_1.0_0.3_1": "00f704586652",
    "float32_3x4x5_t_0.7_1.0_2": "c13374f309c6",
    "float32_3x4x5_t_0.7_1.0_1": "4135ee4a0bb1",
    "float32_3x4x5_t_-1.5_2.5_2": "00f9be7a3c30",
    "float32_3x4x5_t_-1.5_2.5_1": "137c713542a2",
    "float32_3x4x5_t_2.0_0.0_2": "368b2a971e6c",
    "float32_3x4x5_t_2.0_0.0_1": "e35c7bca4990",
    "float32_8x33x100_c_1.0_0.3_2": "65fef87127a5",
    "float32_8x33x100_c_1.0_0.3_1": "d63239bbd7f9",
    "float32_8x33x100_c_0.7_1.0_2": "fedd7d92d653",
    "float32_8x33x100_c_0.7_1.0_1": "4722cf970503",
    "float32_8x33x100_c_-1.5_2.5_2": "35c944fc9a95",
    "float32_8x33x100_c_-1.5_2.5_1": "fa45cb704992",
    "float32_8x33x100_c_2.0_0.0_2": "78a882aa170b",
    "float32_8x33x100_c_2.0_0.0_1": "6e8aec7bdb57",
    "float32_8x33x100_t_1.0_0.3_2": "1dc4da46f215",
    "float32_8x33x100_t_1.0_0.3_1": "7a1dc7e53741",
    "float32_8x33x100_t_0.7_1.0_2": "f1992c46ad7f",
    "float32_8x33x100_t_0.7_1.0_1": "46352479d083",
    "float32_8x33x100_t_-1.5_2.5_2": "8b5d1ad32b77",
    "float32_8x33x100_t_-1.5_2.5_1": "ad70ff0fe07d",
    "float32_8x33x100_t_2.0_0.0_2": "b248c7046505",
    "float32_8x33x100_t_2.0_0.0_1": "74044bb7952c",
    "float64_1x4x5_c_1.0_0.3_2": "d073d774e02b",
    "float64_1x4x5_c_1.0_0.3_1": "50ba49503c15",
    "float64_1x4x5_c_0.7_1.0_2": "eb6b39a54c9a",
    "float64_1x4x5_c_0.7_1.0_1": "fe7c327ba277",
    "float64_1x4x5_c_-1.5_2.5_2": "781b6a1fc443",
    "float64_1x4x5_c_-1.5_2.5_1": "f9938e3868a6",
    "float64_1x4x5_c_2.0_0.0_2": "5ca2187edf1d",
    "float64_1x4x5_c_2.0_0.0_1": "ee20919ab4ab",
    "float64_1x4x5_t_1.0_0.3_2": "bdfcb721ada7",
    "float64_1x4x5_t_1.0_0.3_1": "bc7be2067c0e",
    "float64_1x4x5_t_0.7_1.0_2": "8b00f9b0a9ff",
    "float64_1x4x5_t_0.7_1.0_1": "b5ab8a2b4af7",
    "float64_1x4x5_t_-1.5_2.5_2": "a84e5b0bbf5a",
    "float64_1x4x5_t_-1.5_2.5_1": "2b776de845f9",
    "float64_1x4x5_t_2.0_0.0_2": "17dc5392d832",
    "float64_1x4x5_t_2.0_0.0_1": "cea99d701152",
    "float64_1x17x1_c_1.0_0.3_2": "243aba04281a",
    "float64_1x17x1_c_1.0_0.3_1": "95e41a0a5c18",
    "float64_1x17x1_c_0.7_1.0_2": "b89d92fb07a7",
    "float64_1x17x1_c_0.7_1.0_1": "4abb8c13a730",
    "float64_1x17x1_c_-1.5_2.5_2": "8da6bc0ceb19",
    "float64_1x17x1_c_-1.5_2.5_1": "bf28a19bb851",
    "float64_1x17x1_c_2.0_0.0_2": "6c190c479a24",
    "float64_1x17x1_c_2.0_0.0_1": "c71375a8307c",
    "float64_1x17x1_t_1.0_0.3_2": "bc0d81a654b5",
    "float64_1x17x1_t_1.0_0.3_1": "0acb2d0f6eb5",
    "float64_1x17x1_t_0.7_1.0_2": "96e3e5b8b28e",
    "float64_1x17x1_t_0.7_1.0_1": "2dc1f0ad3862",
    "float64_1x17x1_t_-1.5_2.5_2": "4d77926ff6ef",
    "float64_1x17x1_t_-1.5_2.5_1": "712976abfb78",
    "float64_1x17x1_t_2.0_0.0_2": "58c9e51d33bd",
    "float64_1x17x1_t_2.0_0.0_1": "8584b488e045",
    "float64_3x4x5_c_1.0_0.3_2": "4e9ab73769db",
    "float64_3x4x5_c_1.0_0.3_1": "5544f96fa7ba",
    "float64_3x4x5_c_0.7_1.0_2": "8b7e8e0e5a06",
    "float64_3x4x5_c_0.7_1.0_1": "3f71971ce5b2",
    "float64_3x4x5_c_-1.5_2.5_2": "4231c34ade21",
    "float64_3x4x5_c_-1.5_2.5_1": "7a34acf66f75",
    "float64_3x4x5_c_2.0_0.0_2": "995eb29c080d",
    "float64_3x4x5_c_2.0_0.0_1": "b5ff3addb637",
    "float64_3x4x5_t_1.0_0.3_2": "bfa14a7dd0e6",
    "float64_3x4x5_t_1.0_0.3_1": "cad8145615eb",
    "float64_3x4x5_t_0.7_1.0_2": "299ce5c171ee",
    "float64_3x4x5_t_0.7_1.0_1": "17d8a695e620",
    "float64_3x4x5_t_-1.5_2.5_2": "1c0e2658bf5e",
    "float64_3x4x5_t_-1.5_2.5_1": "a97fc93d565e",
    "float64_3x4x5_t_2.0_0.0_2": "9175abfa3263",
    "float64_3x4x5_t_2.0_0.0_1": "69f13f7057a2",
    "float64_8x33x100_c_1.0_0.3_2": "f1ae58d69349",
    "float64_8x33x100_c_1.0_0.3_1": "94fe6756ab11",
    "float64_8x33x100_c_0.7_1.0_2": "b774e2656005",
    "float64_8x33x100_c_0.7_1.0_1": "5f5615c03240",
    "float64_8x33x100_c_-1.5_2.5_2": "f37a74211cc9",
    "float64_8x33x100_c_-1.5_2.5_1": "30397826a1dd",
    "float64_8x33x100_c_2.0_0.0_2": "d286a3303171",
    "float64_8x33x100_c_2.0_0.0_1": "e8a2f8b00198",
    "float64_8x33x100_t_1.0_0.3_2": "c501b32e3cb2",
    "float64_8x33x100_t_1.0_0.3_1": "acfab3ab9301",
    "float64_8x33x100_t_0.7_1.0_2": "6bfd8a1230aa",
    "float64_8x33x100_t_0.7_1.0_1": "624a1726d7c9",
    "float64_8x33x100_t_-1.5_2.5_2": "4aab0b11c44c",
    "float64_8x33x100_t_-1.5_2.5_1": "1dd93c823e5b",
    "float64_8x33x100_t_2.0_0.0_2": "5facf8fe943f",
    "float64_8x33x100_t_2.0_0.0_1": "653f12990f73",
}


def _cases():
    rng = np.random.default_rng(11)
    for d in (torch.float32, torch.float64):
        for (n, k, m) in [(1, 4, 5), (1, 17, 1), (3, 4, 5), (8, 33, 100)]:
            for lay in "ct":
                for al, be in [(1.0, 0.3), (0.7, 1.0), (-1.5, 2.5), (2.0, 0.0)]:
                    for bshape in ((n, m), (m,)):
                        c = torch.tensor(rng.standard_normal(bshape), dtype=d, requires_grad=True)
                        xb = torch.tensor(rng.standard_normal((k, n) if lay == "t" else (n, k)),
                                          dtype=d, requires_grad=True)
                        x = xb.t() if lay == "t" else xb
                        w = torch.tensor(rng.standard_normal((k, m)), dtype=d, requires_grad=True)
                        y = torch.addmm(c, x, w, beta=be, alpha=al)
                        y.backward(torch.tensor(rng.standard_normal((n, m)), dtype=d))
                        h = hashlib.sha1()
                        for t in (y, c.grad, xb.grad, w.grad):
                            h.update(t.detach().numpy().tobytes())
                        name = f"{str(d)[6:]}_{n}x{k}x{m}_{lay}_{al}_{be}_{len(bshape)}"
                        yield name, h.hexdigest()[:12]


def test_addmm_alpha_beta_bits_equal_real_torch():
    skip_unless_mkl_path("addmm with alpha/beta (MKL's gemm with them inside)")
    got = dict(_cases())
    bad = [k for k in REAL if got.get(k) != REAL[k]]
    assert not bad, bad


def test_sum_over_extent_one_dims_gives_positive_zero():
    # real torch 2.13: each value is added onto the zero output, so -0.0 sums to 0.0 (also the
    # bias gradient of addmm(beta=0) with one row: (grad * 0) summed to the bias's shape)
    x = torch.tensor([[-0.0, 2.0, -0.0]])
    assert [np.signbit(v) for v in x.sum(0).numpy()] == [False, False, False]
    assert str(torch.tensor([[-0.0], [-0.0]]).sum(1)) == "tensor([0., 0.])"
    c = torch.zeros(3, requires_grad=True)
    y = torch.addmm(c, torch.ones(1, 2), torch.ones(2, 3), beta=0.0, alpha=2.0)
    y.backward(torch.tensor([[-1.0, 2.0, -3.0]]))
    assert str(c.grad) == "tensor([0., 0., 0.])"
