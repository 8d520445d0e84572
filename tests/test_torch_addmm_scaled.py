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


# torch.addmv: MKL's gemv as ATen's addmv_impl_cpu calls it (MKL_VERBOSE: SGEMV(t, k, n, alpha,
# mat, k, vec, 1, beta, result, 1); 'n' for a matrix whose stride 0 is 1; lda = m for one
# column), any alpha/beta; AddmvBackward0 (ger and mv times alpha, grad * beta). gradrepl
# computed mv then the scaled sum: 49 of these 120 differed (one column, one row, alpha != 1).
REAL_MV = {
    "float32_1x4_c_0.7_1.0": "aa6174cb3e0b",
    "float32_1x4_c_1.0_0.3": "14ce7bbfa45a",
    "float32_1x4_c_2.0_0.0": "863c7df757ef",
    "float32_1x4_c_1.0_1.0": "a7be39e2b592",
    "float32_1x4_t_0.7_1.0": "f8cc093aab83",
    "float32_1x4_t_1.0_0.3": "0e93386dbff9",
    "float32_1x4_t_2.0_0.0": "994df9ea7b5e",
    "float32_1x4_t_1.0_1.0": "fd2a2ca3aaa8",
    "float32_1x4_s_0.7_1.0": "4d207f9572ce",
    "float32_1x4_s_1.0_0.3": "8587a42a6349",
    "float32_1x4_s_2.0_0.0": "14d61c1bf26f",
    "float32_1x4_s_1.0_1.0": "d048a9181c8b",
    "float32_1x300_c_0.7_1.0": "3d04259a233d",
    "float32_1x300_c_1.0_0.3": "cbee129584f7",
    "float32_1x300_c_2.0_0.0": "06d4941f6927",
    "float32_1x300_c_1.0_1.0": "5c5e949348cd",
    "float32_1x300_t_0.7_1.0": "66eebc86b47a",
    "float32_1x300_t_1.0_0.3": "51a111ee60dd",
    "float32_1x300_t_2.0_0.0": "658d811555b3",
    "float32_1x300_t_1.0_1.0": "08c51b70a2a5",
    "float32_1x300_s_0.7_1.0": "d363bd7a128f",
    "float32_1x300_s_1.0_0.3": "6b6e70a787b6",
    "float32_1x300_s_2.0_0.0": "755cb939e7a9",
    "float32_1x300_s_1.0_1.0": "3a532af33703",
    "float32_5x1_c_0.7_1.0": "06f1f5327dbb",
    "float32_5x1_c_1.0_0.3": "713b6e6cbfe2",
    "float32_5x1_c_2.0_0.0": "4aa40154778a",
    "float32_5x1_c_1.0_1.0": "a385c6648dc1",
    "float32_5x1_t_0.7_1.0": "d12dba759fb5",
    "float32_5x1_t_1.0_0.3": "1124d8c6362c",
    "float32_5x1_t_2.0_0.0": "13dd69a78283",
    "float32_5x1_t_1.0_1.0": "4407dcf94a76",
    "float32_5x1_s_0.7_1.0": "98a7f5410a5a",
    "float32_5x1_s_1.0_0.3": "020935b3077b",
    "float32_5x1_s_2.0_0.0": "53106dca3d01",
    "float32_5x1_s_1.0_1.0": "294f097cf79b",
    "float32_7x33_c_0.7_1.0": "0ec1cb8189ed",
    "float32_7x33_c_1.0_0.3": "409701e0740e",
    "float32_7x33_c_2.0_0.0": "0b45cdfe0da5",
    "float32_7x33_c_1.0_1.0": "012e86357f4c",
    "float32_7x33_t_0.7_1.0": "b53404f491e9",
    "float32_7x33_t_1.0_0.3": "697897539873",
    "float32_7x33_t_2.0_0.0": "5ca651103d28",
    "float32_7x33_t_1.0_1.0": "85f8f9f8126e",
    "float32_7x33_s_0.7_1.0": "8da57e480e79",
    "float32_7x33_s_1.0_0.3": "16d39d4c179a",
    "float32_7x33_s_2.0_0.0": "a4a30b063d67",
    "float32_7x33_s_1.0_1.0": "af30106c1211",
    "float32_64x100_c_0.7_1.0": "827a570a16c4",
    "float32_64x100_c_1.0_0.3": "123889675f93",
    "float32_64x100_c_2.0_0.0": "8123221e2d1c",
    "float32_64x100_c_1.0_1.0": "e49d82e23569",
    "float32_64x100_t_0.7_1.0": "f11049dc3e0b",
    "float32_64x100_t_1.0_0.3": "dea4981b777f",
    "float32_64x100_t_2.0_0.0": "8d12614b5f08",
    "float32_64x100_t_1.0_1.0": "4669a8b0d99d",
    "float32_64x100_s_0.7_1.0": "df1b153fa06b",
    "float32_64x100_s_1.0_0.3": "6f4872c162cd",
    "float32_64x100_s_2.0_0.0": "25271edbd3a5",
    "float32_64x100_s_1.0_1.0": "faecc601f2b2",
    "float64_1x4_c_0.7_1.0": "cc452de7b16e",
    "float64_1x4_c_1.0_0.3": "58173efce253",
    "float64_1x4_c_2.0_0.0": "2131e7e787d8",
    "float64_1x4_c_1.0_1.0": "2058a1bbff7f",
    "float64_1x4_t_0.7_1.0": "37081576918e",
    "float64_1x4_t_1.0_0.3": "b3279d7581d8",
    "float64_1x4_t_2.0_0.0": "fd7b6c2419d6",
    "float64_1x4_t_1.0_1.0": "4c9e20b7f6fe",
    "float64_1x4_s_0.7_1.0": "5919e6ba86f4",
    "float64_1x4_s_1.0_0.3": "a7d9215cfed5",
    "float64_1x4_s_2.0_0.0": "120aae9586ee",
    "float64_1x4_s_1.0_1.0": "fb32da06ee3b",
    "float64_1x300_c_0.7_1.0": "cfd455020c17",
    "float64_1x300_c_1.0_0.3": "a783f2c2be15",
    "float64_1x300_c_2.0_0.0": "1352da0cc3fc",
    "float64_1x300_c_1.0_1.0": "8d0e1131df3b",
    "float64_1x300_t_0.7_1.0": "d4b0be221fcc",
    "float64_1x300_t_1.0_0.3": "255a09cf4132",
    "float64_1x300_t_2.0_0.0": "0eee606aaf0b",
    "float64_1x300_t_1.0_1.0": "a95b8090d0dd",
    "float64_1x300_s_0.7_1.0": "2b5a6a643714",
    "float64_1x300_s_1.0_0.3": "af520b499928",
    "float64_1x300_s_2.0_0.0": "8fc2bd10cca8",
    "float64_1x300_s_1.0_1.0": "e71b2dcfd941",
    "float64_5x1_c_0.7_1.0": "d5f9ec2189af",
    "float64_5x1_c_1.0_0.3": "562f957b288a",
    "float64_5x1_c_2.0_0.0": "7df0dac50c80",
    "float64_5x1_c_1.0_1.0": "c5e7f7764258",
    "float64_5x1_t_0.7_1.0": "ee7e1c1f485f",
    "float64_5x1_t_1.0_0.3": "f5ee7aaabc9f",
    "float64_5x1_t_2.0_0.0": "092b01d17452",
    "float64_5x1_t_1.0_1.0": "58beead61722",
    "float64_5x1_s_0.7_1.0": "c2f52735b02b",
    "float64_5x1_s_1.0_0.3": "efbf75c647c3",
    "float64_5x1_s_2.0_0.0": "4905ae3adc46",
    "float64_5x1_s_1.0_1.0": "2b8457ec9988",
    "float64_7x33_c_0.7_1.0": "4e550d3c809b",
    "float64_7x33_c_1.0_0.3": "6a96e92f4498",
    "float64_7x33_c_2.0_0.0": "1933054e61f8",
    "float64_7x33_c_1.0_1.0": "1ac8c221a3b5",
    "float64_7x33_t_0.7_1.0": "b4f59bf59a3f",
    "float64_7x33_t_1.0_0.3": "af40ddfe17fe",
    "float64_7x33_t_2.0_0.0": "e42ae52505e7",
    "float64_7x33_t_1.0_1.0": "d935ae862574",
    "float64_7x33_s_0.7_1.0": "a01fe22edb8d",
    "float64_7x33_s_1.0_0.3": "42a5b9e6ef1a",
    "float64_7x33_s_2.0_0.0": "7c1e1998325f",
    "float64_7x33_s_1.0_1.0": "d713d219be4f",
    "float64_64x100_c_0.7_1.0": "9ded18f352da",
    "float64_64x100_c_1.0_0.3": "7ada8b4d8430",
    "float64_64x100_c_2.0_0.0": "8ef561d30471",
    "float64_64x100_c_1.0_1.0": "7bd24993be52",
    "float64_64x100_t_0.7_1.0": "56b23e466f0d",
    "float64_64x100_t_1.0_0.3": "bd9520d8c067",
    "float64_64x100_t_2.0_0.0": "19e0570476df",
    "float64_64x100_t_1.0_1.0": "cd78b944762c",
    "float64_64x100_s_0.7_1.0": "43439e9e508b",
    "float64_64x100_s_1.0_0.3": "dda8b3cc52e1",
    "float64_64x100_s_2.0_0.0": "0812bfbe8cc9",
    "float64_64x100_s_1.0_1.0": "99ecf35527ec",
}


def _mv_cases():
    rng = np.random.default_rng(9)
    for d in (torch.float32, torch.float64):
        for (n, k) in [(1, 4), (1, 300), (5, 1), (7, 33), (64, 100)]:
            for lay in ("c", "t", "s"):
                for al, be in [(0.7, 1.0), (1.0, 0.3), (2.0, 0.0), (1.0, 1.0)]:
                    c = torch.tensor(rng.standard_normal(n), dtype=d, requires_grad=True)
                    shape = (k, n) if lay == "t" else (n, k)
                    mb = torch.tensor(rng.standard_normal(shape), dtype=d, requires_grad=True)
                    m = mb.t() if lay == "t" else mb
                    vb = torch.tensor(rng.standard_normal(2 * k if lay == "s" else k), dtype=d,
                                      requires_grad=True)
                    v = vb[::2] if lay == "s" else vb
                    y = torch.addmv(c, m, v, beta=be, alpha=al)
                    y.backward(torch.tensor(rng.standard_normal(n), dtype=d))
                    h = hashlib.sha1()
                    for t in (y, c.grad, mb.grad, vb.grad):
                        h.update(t.detach().numpy().tobytes())
                    yield f"{str(d)[6:]}_{n}x{k}_{lay}_{al}_{be}", h.hexdigest()[:12]


def test_addmv_bits_equal_real_torch():
    skip_unless_mkl_path("addmv (MKL's gemv with alpha/beta inside)")
    got = dict(_mv_cases())
    bad = [k for k in REAL_MV if got.get(k) != REAL_MV[k]]
    assert not bad, bad


# torch.baddbmm with alpha/beta: below 400 multiply-adds per matrix torch's own loop (products
# summed in k order, then self * beta + alpha * sum), else MKL's gemm_batch (one matrix: gemm)
# with alpha and beta inside; BaddbmmBackward0's products times alpha. gradrepl computed bmm
# then the scaled sum: 48 of these 72 differed.
REAL_BMM = {
    "float32_2x1x4x5_c_0.7_1.0": "25bd3599d792",
    "float32_2x1x4x5_c_0.125_0.0": "b41e9c68f3db",
    "float32_2x1x4x5_c_-1.5_2.5": "0cc639b9e6d2",
    "float32_2x1x4x5_t_0.7_1.0": "854ce7fc6caa",
    "float32_2x1x4x5_t_0.125_0.0": "ff6e3a75b053",
    "float32_2x1x4x5_t_-1.5_2.5": "31836abc7220",
    "float32_3x4x7x9_c_0.7_1.0": "0ca42a584c22",
    "float32_3x4x7x9_c_0.125_0.0": "c0a891447bde",
    "float32_3x4x7x9_c_-1.5_2.5": "34f7594a1443",
    "float32_3x4x7x9_t_0.7_1.0": "4ede6cd4bed2",
    "float32_3x4x7x9_t_0.125_0.0": "9ae0642fd64b",
    "float32_3x4x7x9_t_-1.5_2.5": "c1ad8f78db44",
    "float32_2x8x16x8_c_0.7_1.0": "79e5b173732d",
    "float32_2x8x16x8_c_0.125_0.0": "a455f16a3633",
    "float32_2x8x16x8_c_-1.5_2.5": "dc056520f537",
    "float32_2x8x16x8_t_0.7_1.0": "aba47a2f38ab",
    "float32_2x8x16x8_t_0.125_0.0": "9a855318ed50",
    "float32_2x8x16x8_t_-1.5_2.5": "96c211578beb",
    "float32_4x1x64x33_c_0.7_1.0": "7853b7d3350b",
    "float32_4x1x64x33_c_0.125_0.0": "9e28d01cf48d",
    "float32_4x1x64x33_c_-1.5_2.5": "28f8b25d1d62",
    "float32_4x1x64x33_t_0.7_1.0": "261c42e5b4fa",
    "float32_4x1x64x33_t_0.125_0.0": "f6397bf604c7",
    "float32_4x1x64x33_t_-1.5_2.5": "8c371ad1b94d",
    "float32_1x64x64x64_c_0.7_1.0": "fb3f985dce7c",
    "float32_1x64x64x64_c_0.125_0.0": "80d869b66c2d",
    "float32_1x64x64x64_c_-1.5_2.5": "30f813b93eac",
    "float32_1x64x64x64_t_0.7_1.0": "d4b1e809fb6e",
    "float32_1x64x64x64_t_0.125_0.0": "673e5a32916c",
    "float32_1x64x64x64_t_-1.5_2.5": "bcfbdc031e3c",
    "float32_8x5x100x1_c_0.7_1.0": "8eaa65c9a7ca",
    "float32_8x5x100x1_c_0.125_0.0": "e7616d2354a1",
    "float32_8x5x100x1_c_-1.5_2.5": "5408ba7e5eeb",
    "float32_8x5x100x1_t_0.7_1.0": "e42363928b29",
    "float32_8x5x100x1_t_0.125_0.0": "ab92a5ccbd4d",
    "float32_8x5x100x1_t_-1.5_2.5": "5da8a4ed63a5",
    "float64_2x1x4x5_c_0.7_1.0": "3cd423bf840a",
    "float64_2x1x4x5_c_0.125_0.0": "bedae0427a5c",
    "float64_2x1x4x5_c_-1.5_2.5": "af2fc86c5271",
    "float64_2x1x4x5_t_0.7_1.0": "f8a95066d721",
    "float64_2x1x4x5_t_0.125_0.0": "e0cea8681569",
    "float64_2x1x4x5_t_-1.5_2.5": "cf5efc469bb4",
    "float64_3x4x7x9_c_0.7_1.0": "3099674e0100",
    "float64_3x4x7x9_c_0.125_0.0": "92f505bd3fda",
    "float64_3x4x7x9_c_-1.5_2.5": "6572871297e4",
    "float64_3x4x7x9_t_0.7_1.0": "35d42c590ff4",
    "float64_3x4x7x9_t_0.125_0.0": "673504f37d25",
    "float64_3x4x7x9_t_-1.5_2.5": "57f6684dd40a",
    "float64_2x8x16x8_c_0.7_1.0": "33436dc25109",
    "float64_2x8x16x8_c_0.125_0.0": "447bf8cfa831",
    "float64_2x8x16x8_c_-1.5_2.5": "126c16707c59",
    "float64_2x8x16x8_t_0.7_1.0": "c34bac25373a",
    "float64_2x8x16x8_t_0.125_0.0": "c2881fb2027f",
    "float64_2x8x16x8_t_-1.5_2.5": "1d9248916612",
    "float64_4x1x64x33_c_0.7_1.0": "f4fb9baa400c",
    "float64_4x1x64x33_c_0.125_0.0": "824b3b926666",
    "float64_4x1x64x33_c_-1.5_2.5": "c3d5115e5574",
    "float64_4x1x64x33_t_0.7_1.0": "c4e147d3d2da",
    "float64_4x1x64x33_t_0.125_0.0": "e3acecde43c1",
    "float64_4x1x64x33_t_-1.5_2.5": "34ded8a62aec",
    "float64_1x64x64x64_c_0.7_1.0": "9e3f5c96c1e2",
    "float64_1x64x64x64_c_0.125_0.0": "91e0382883c1",
    "float64_1x64x64x64_c_-1.5_2.5": "a0f806617444",
    "float64_1x64x64x64_t_0.7_1.0": "cd45db818bbf",
    "float64_1x64x64x64_t_0.125_0.0": "8d4004e0514b",
    "float64_1x64x64x64_t_-1.5_2.5": "73462589b365",
    "float64_8x5x100x1_c_0.7_1.0": "91dfc6b64610",
    "float64_8x5x100x1_c_0.125_0.0": "28168eee4778",
    "float64_8x5x100x1_c_-1.5_2.5": "d0ec9c98c5a6",
    "float64_8x5x100x1_t_0.7_1.0": "c7fb0d232dfe",
    "float64_8x5x100x1_t_0.125_0.0": "1c5c508babba",
    "float64_8x5x100x1_t_-1.5_2.5": "6809224a40a0",
}


def _bmm_cases():
    rng = np.random.default_rng(13)
    for d in (torch.float32, torch.float64):
        for (B, n, k, m) in [(2, 1, 4, 5), (3, 4, 7, 9), (2, 8, 16, 8), (4, 1, 64, 33),
                             (1, 64, 64, 64), (8, 5, 100, 1)]:
            for lay in ("c", "t"):
                for al, be in [(0.7, 1.0), (0.125, 0.0), (-1.5, 2.5)]:
                    c = torch.tensor(rng.standard_normal((B, n, m)), dtype=d, requires_grad=True)
                    shape = (B, k, n) if lay == "t" else (B, n, k)
                    xb = torch.tensor(rng.standard_normal(shape), dtype=d, requires_grad=True)
                    x = xb.transpose(1, 2) if lay == "t" else xb
                    w = torch.tensor(rng.standard_normal((B, k, m)), dtype=d, requires_grad=True)
                    y = torch.baddbmm(c, x, w, beta=be, alpha=al)
                    y.backward(torch.tensor(rng.standard_normal((B, n, m)), dtype=d))
                    h = hashlib.sha1()
                    for t in (y, c.grad, xb.grad, w.grad):
                        h.update(t.detach().numpy().tobytes())
                    yield f"{str(d)[6:]}_{B}x{n}x{k}x{m}_{lay}_{al}_{be}", h.hexdigest()[:12]


def test_baddbmm_bits_equal_real_torch():
    skip_unless_mkl_path("baddbmm (MKL's gemm_batch with alpha/beta inside)")
    got = dict(_bmm_cases())
    bad = [k for k in REAL_BMM if got.get(k) != REAL_BMM[k]]
    assert not bad, bad


# torch.addr: ATen's kernel over the (n, m) result: fma(alpha * vec1, vec2, beta * self) on the
# vectorized columns, fma(beta, self, (alpha * vec1) * vec2) on the scalar rest (all of a row
# where self is broadcast along it too); AddrBackward0 (mv's times alpha, grad * beta). gradrepl
# computed outer then the scaled sum: 103 of these 120 differed.
REAL_ADDR = {
    "float32_1x1_full_1.0_1.0": "40c8b7f5bd8a",
    "float32_1x1_full_0.7_1.0": "b57824b37c4c",
    "float32_1x1_full_-1.5_2.5": "8df2cd5f60ce",
    "float32_1x1_full_2.0_0.0": "007b5b8f6f22",
    "float32_1x1_row_1.0_1.0": "7a2c7c26e2f4",
    "float32_1x1_row_0.7_1.0": "b53bfd2ecf27",
    "float32_1x1_row_-1.5_2.5": "fa1d4c0abd75",
    "float32_1x1_row_2.0_0.0": "f7a5c5f18d61",
    "float32_1x1_col_1.0_1.0": "98afeeb4c62d",
    "float32_1x1_col_0.7_1.0": "fd886fdd2d6d",
    "float32_1x1_col_-1.5_2.5": "df53fc3d2161",
    "float32_1x1_col_2.0_0.0": "57a37471253c",
    "float32_3x5_full_1.0_1.0": "cf9c73877ac9",
    "float32_3x5_full_0.7_1.0": "0487b2a3eb41",
    "float32_3x5_full_-1.5_2.5": "cdd4b02386c2",
    "float32_3x5_full_2.0_0.0": "ecb1b58df2db",
    "float32_3x5_row_1.0_1.0": "118aa36b9812",
    "float32_3x5_row_0.7_1.0": "9b2fb3f180f5",
    "float32_3x5_row_-1.5_2.5": "7f3eb0351d54",
    "float32_3x5_row_2.0_0.0": "8aa7fa7212aa",
    "float32_3x5_col_1.0_1.0": "07972d5825fb",
    "float32_3x5_col_0.7_1.0": "f239b8dd88e4",
    "float32_3x5_col_-1.5_2.5": "d803e54782ed",
    "float32_3x5_col_2.0_0.0": "475e9d90df50",
    "float32_4x16_full_1.0_1.0": "57f6555597f8",
    "float32_4x16_full_0.7_1.0": "5cf531b23a69",
    "float32_4x16_full_-1.5_2.5": "893a863844c5",
    "float32_4x16_full_2.0_0.0": "ea9821069a51",
    "float32_4x16_row_1.0_1.0": "5621609a7e7a",
    "float32_4x16_row_0.7_1.0": "9ebb569dc404",
    "float32_4x16_row_-1.5_2.5": "ee667e5cb2f4",
    "float32_4x16_row_2.0_0.0": "d8d4c01b0cf9",
    "float32_4x16_col_1.0_1.0": "711f3a2b7038",
    "float32_4x16_col_0.7_1.0": "74907aa097c5",
    "float32_4x16_col_-1.5_2.5": "731599780947",
    "float32_4x16_col_2.0_0.0": "2d39e99e0422",
    "float32_7x33_full_1.0_1.0": "9ecf234792a3",
    "float32_7x33_full_0.7_1.0": "bd91d96acc2a",
    "float32_7x33_full_-1.5_2.5": "0927b6bb4342",
    "float32_7x33_full_2.0_0.0": "1a5f8c9a587f",
    "float32_7x33_row_1.0_1.0": "c1fab088a4c7",
    "float32_7x33_row_0.7_1.0": "0de76a764164",
    "float32_7x33_row_-1.5_2.5": "15b6630fc09d",
    "float32_7x33_row_2.0_0.0": "204b9c6c761f",
    "float32_7x33_col_1.0_1.0": "2fbc6b4fd471",
    "float32_7x33_col_0.7_1.0": "7b9ad22594fc",
    "float32_7x33_col_-1.5_2.5": "9147546bd900",
    "float32_7x33_col_2.0_0.0": "56f2c80dab4d",
    "float32_20x70_full_1.0_1.0": "446ce03fb863",
    "float32_20x70_full_0.7_1.0": "eab1fe213197",
    "float32_20x70_full_-1.5_2.5": "e6264f99e2bf",
    "float32_20x70_full_2.0_0.0": "50cff603e587",
    "float32_20x70_row_1.0_1.0": "8b7942dcdd6c",
    "float32_20x70_row_0.7_1.0": "d6229125aa3a",
    "float32_20x70_row_-1.5_2.5": "bb7f7d969783",
    "float32_20x70_row_2.0_0.0": "c931f83d1e9c",
    "float32_20x70_col_1.0_1.0": "f3ab4bb8ed5d",
    "float32_20x70_col_0.7_1.0": "fc3181de632f",
    "float32_20x70_col_-1.5_2.5": "81d3d1fdeeef",
    "float32_20x70_col_2.0_0.0": "a3752327d515",
    "float64_1x1_full_1.0_1.0": "4b75932b4e30",
    "float64_1x1_full_0.7_1.0": "68f797363bbb",
    "float64_1x1_full_-1.5_2.5": "3390cf4290e3",
    "float64_1x1_full_2.0_0.0": "782016b1da45",
    "float64_1x1_row_1.0_1.0": "cbeeb1cc5181",
    "float64_1x1_row_0.7_1.0": "0e11d96b8552",
    "float64_1x1_row_-1.5_2.5": "852fc30d6c46",
    "float64_1x1_row_2.0_0.0": "a30f0994a45b",
    "float64_1x1_col_1.0_1.0": "c429da5cb74f",
    "float64_1x1_col_0.7_1.0": "15a03910d2e0",
    "float64_1x1_col_-1.5_2.5": "f5756b6fa150",
    "float64_1x1_col_2.0_0.0": "0e042f939214",
    "float64_3x5_full_1.0_1.0": "83412dd3ef8a",
    "float64_3x5_full_0.7_1.0": "73f293e6c2d3",
    "float64_3x5_full_-1.5_2.5": "033c54678f1f",
    "float64_3x5_full_2.0_0.0": "8e70fbe79eed",
    "float64_3x5_row_1.0_1.0": "3ce6452c400f",
    "float64_3x5_row_0.7_1.0": "12a150dc6cc0",
    "float64_3x5_row_-1.5_2.5": "977c838b239c",
    "float64_3x5_row_2.0_0.0": "e117ed6eaead",
    "float64_3x5_col_1.0_1.0": "984112ed64f7",
    "float64_3x5_col_0.7_1.0": "f8cda2d60711",
    "float64_3x5_col_-1.5_2.5": "1e9b742a432f",
    "float64_3x5_col_2.0_0.0": "700432109106",
    "float64_4x16_full_1.0_1.0": "9a1e17783fce",
    "float64_4x16_full_0.7_1.0": "1eb36cd09429",
    "float64_4x16_full_-1.5_2.5": "3ba4dab17dde",
    "float64_4x16_full_2.0_0.0": "59ff98f239d3",
    "float64_4x16_row_1.0_1.0": "0996d0d3cfdd",
    "float64_4x16_row_0.7_1.0": "e069d16cbf8f",
    "float64_4x16_row_-1.5_2.5": "97eee736165d",
    "float64_4x16_row_2.0_0.0": "456bae04063c",
    "float64_4x16_col_1.0_1.0": "afc921b3a904",
    "float64_4x16_col_0.7_1.0": "72e3ceeae102",
    "float64_4x16_col_-1.5_2.5": "5667c7c7d427",
    "float64_4x16_col_2.0_0.0": "7072c946ddd6",
    "float64_7x33_full_1.0_1.0": "8c460cb56803",
    "float64_7x33_full_0.7_1.0": "8363f20877d9",
    "float64_7x33_full_-1.5_2.5": "dc1716ced743",
    "float64_7x33_full_2.0_0.0": "208a4715c88d",
    "float64_7x33_row_1.0_1.0": "e247b38c9a81",
    "float64_7x33_row_0.7_1.0": "0b4db1765a93",
    "float64_7x33_row_-1.5_2.5": "c41d1e914d4c",
    "float64_7x33_row_2.0_0.0": "a161b655e07f",
    "float64_7x33_col_1.0_1.0": "e6df25088c39",
    "float64_7x33_col_0.7_1.0": "e8e0aba67a58",
    "float64_7x33_col_-1.5_2.5": "466bb05b0360",
    "float64_7x33_col_2.0_0.0": "5ffd7c18c915",
    "float64_20x70_full_1.0_1.0": "d4aa4c0a26e8",
    "float64_20x70_full_0.7_1.0": "2b0045f643e5",
    "float64_20x70_full_-1.5_2.5": "102b73ecddfd",
    "float64_20x70_full_2.0_0.0": "8c0c3d749859",
    "float64_20x70_row_1.0_1.0": "dc606d0e8daf",
    "float64_20x70_row_0.7_1.0": "3ac7b6fb08ba",
    "float64_20x70_row_-1.5_2.5": "4bbdfd4cb2dd",
    "float64_20x70_row_2.0_0.0": "8ec9beca02d9",
    "float64_20x70_col_1.0_1.0": "de6d59521155",
    "float64_20x70_col_0.7_1.0": "904192a1c009",
    "float64_20x70_col_-1.5_2.5": "d5a60513f394",
    "float64_20x70_col_2.0_0.0": "6a32968dd2d3",
}


def _addr_cases():
    rng = np.random.default_rng(21)
    for d in (torch.float32, torch.float64):
        for (n, m) in [(1, 1), (3, 5), (4, 16), (7, 33), (20, 70)]:
            for bsh in ("full", "row", "col"):
                for al, be in [(1.0, 1.0), (0.7, 1.0), (-1.5, 2.5), (2.0, 0.0)]:
                    shape = {"full": (n, m), "row": (m,), "col": (n, 1)}[bsh]
                    c = torch.tensor(rng.standard_normal(shape), dtype=d, requires_grad=True)
                    a = torch.tensor(rng.standard_normal(n), dtype=d, requires_grad=True)
                    b = torch.tensor(rng.standard_normal(m), dtype=d, requires_grad=True)
                    y = torch.addr(c, a, b, beta=be, alpha=al)
                    y.backward(torch.tensor(rng.standard_normal((n, m)), dtype=d))
                    h = hashlib.sha1()
                    for t in (y, c.grad, a.grad, b.grad):
                        h.update(t.detach().numpy().tobytes())
                    yield f"{str(d)[6:]}_{n}x{m}_{bsh}_{al}_{be}", h.hexdigest()[:12]


def test_addr_bits_equal_real_torch():
    # (elementwise fmas and mv's: MKL's path for the gradients' mv)
    skip_unless_mkl_path("addr (its gradients' mv are MKL's gemv)")
    got = dict(_addr_cases())
    bad = [k for k in REAL_ADDR if got.get(k) != REAL_ADDR[k]]
    assert not bad, bad


# torch.addbmm with alpha/beta: the result (self broadcast) through addmm_ with each batch's
# matrices in order, beta the first time then 1 (MKL_VERBOSE: one SGEMM per batch into the same
# result); AddbmmBackward0: the gradient expanded over the batch, bmm's times alpha. gradrepl
# scaled and added per batch: 132 of these 144 differed.
REAL_ADDBMM = {
    "float32_2x1x4x5_c_full_0.7_1.0": "253d73449bf6",
    "float32_2x1x4x5_c_full_0.125_0.0": "f09e871bc165",
    "float32_2x1x4x5_c_full_-1.5_2.5": "894c102d5cb1",
    "float32_2x1x4x5_c_row_0.7_1.0": "1d4c6d7df7df",
    "float32_2x1x4x5_c_row_0.125_0.0": "b047cb898311",
    "float32_2x1x4x5_c_row_-1.5_2.5": "80526234ac4e",
    "float32_2x1x4x5_t_full_0.7_1.0": "eb46452f5643",
    "float32_2x1x4x5_t_full_0.125_0.0": "d6cb01356ee4",
    "float32_2x1x4x5_t_full_-1.5_2.5": "921c376079ba",
    "float32_2x1x4x5_t_row_0.7_1.0": "3a9e9e6d79e7",
    "float32_2x1x4x5_t_row_0.125_0.0": "fdb2c5c1ef5b",
    "float32_2x1x4x5_t_row_-1.5_2.5": "e98a45cbae27",
    "float32_3x4x7x9_c_full_0.7_1.0": "2bf9faddc2d8",
    "float32_3x4x7x9_c_full_0.125_0.0": "e0efd60525bb",
    "float32_3x4x7x9_c_full_-1.5_2.5": "9bcdf43a6301",
    "float32_3x4x7x9_c_row_0.7_1.0": "2d6c8d9eedf7",
    "float32_3x4x7x9_c_row_0.125_0.0": "c4a6b96318a7",
    "float32_3x4x7x9_c_row_-1.5_2.5": "e0fccd913562",
    "float32_3x4x7x9_t_full_0.7_1.0": "d5e1b70661c6",
    "float32_3x4x7x9_t_full_0.125_0.0": "a7a0e71a94ab",
    "float32_3x4x7x9_t_full_-1.5_2.5": "4911a7e0fedd",
    "float32_3x4x7x9_t_row_0.7_1.0": "10397512f99b",
    "float32_3x4x7x9_t_row_0.125_0.0": "c5c3218e9fad",
    "float32_3x4x7x9_t_row_-1.5_2.5": "0259a4fe8f06",
    "float32_2x8x16x8_c_full_0.7_1.0": "d4d64786d1f8",
    "float32_2x8x16x8_c_full_0.125_0.0": "8da58d4d774f",
    "float32_2x8x16x8_c_full_-1.5_2.5": "7d96ae9ec19a",
    "float32_2x8x16x8_c_row_0.7_1.0": "43e5c0ae2776",
    "float32_2x8x16x8_c_row_0.125_0.0": "f727a81e9ccb",
    "float32_2x8x16x8_c_row_-1.5_2.5": "66e1f4784cb5",
    "float32_2x8x16x8_t_full_0.7_1.0": "83445a83a72c",
    "float32_2x8x16x8_t_full_0.125_0.0": "fbc5a5c7137c",
    "float32_2x8x16x8_t_full_-1.5_2.5": "7d3e826ac6db",
    "float32_2x8x16x8_t_row_0.7_1.0": "015c2c066f23",
    "float32_2x8x16x8_t_row_0.125_0.0": "088260b6ad88",
    "float32_2x8x16x8_t_row_-1.5_2.5": "7660a255aa0d",
    "float32_4x1x64x33_c_full_0.7_1.0": "76ba9c4f6c76",
    "float32_4x1x64x33_c_full_0.125_0.0": "1ac702f9b93c",
    "float32_4x1x64x33_c_full_-1.5_2.5": "5b89bfb82a76",
    "float32_4x1x64x33_c_row_0.7_1.0": "3aeb70e2f7f4",
    "float32_4x1x64x33_c_row_0.125_0.0": "4351bebce9a9",
    "float32_4x1x64x33_c_row_-1.5_2.5": "29fcb9ed5e7b",
    "float32_4x1x64x33_t_full_0.7_1.0": "5007076f1ddb",
    "float32_4x1x64x33_t_full_0.125_0.0": "72b3f579efce",
    "float32_4x1x64x33_t_full_-1.5_2.5": "1dd0e74bb182",
    "float32_4x1x64x33_t_row_0.7_1.0": "98f8eb44270b",
    "float32_4x1x64x33_t_row_0.125_0.0": "6f5e3e214b0d",
    "float32_4x1x64x33_t_row_-1.5_2.5": "08df8234b67e",
    "float32_1x30x17x50_c_full_0.7_1.0": "e23d610b9d32",
    "float32_1x30x17x50_c_full_0.125_0.0": "d0727b6f680e",
    "float32_1x30x17x50_c_full_-1.5_2.5": "8433f91f86b4",
    "float32_1x30x17x50_c_row_0.7_1.0": "508d7e794c99",
    "float32_1x30x17x50_c_row_0.125_0.0": "e05cbfee2371",
    "float32_1x30x17x50_c_row_-1.5_2.5": "a5ad899f1a39",
    "float32_1x30x17x50_t_full_0.7_1.0": "47a83e275549",
    "float32_1x30x17x50_t_full_0.125_0.0": "ccd1e3d4bad0",
    "float32_1x30x17x50_t_full_-1.5_2.5": "0e10ced774dc",
    "float32_1x30x17x50_t_row_0.7_1.0": "b42f386daeb7",
    "float32_1x30x17x50_t_row_0.125_0.0": "2302ab4ccb2d",
    "float32_1x30x17x50_t_row_-1.5_2.5": "d8f9ac5014fb",
    "float32_5x5x100x1_c_full_0.7_1.0": "2c93c2ea47a1",
    "float32_5x5x100x1_c_full_0.125_0.0": "959c6533875c",
    "float32_5x5x100x1_c_full_-1.5_2.5": "e13cfa807148",
    "float32_5x5x100x1_c_row_0.7_1.0": "94920fa97fb4",
    "float32_5x5x100x1_c_row_0.125_0.0": "dcda07599b23",
    "float32_5x5x100x1_c_row_-1.5_2.5": "4b7ccf414d4c",
    "float32_5x5x100x1_t_full_0.7_1.0": "256044821385",
    "float32_5x5x100x1_t_full_0.125_0.0": "22ca460b98a2",
    "float32_5x5x100x1_t_full_-1.5_2.5": "8fc0a148259f",
    "float32_5x5x100x1_t_row_0.7_1.0": "8bb003c60095",
    "float32_5x5x100x1_t_row_0.125_0.0": "d5fb56d536b4",
    "float32_5x5x100x1_t_row_-1.5_2.5": "4374ab656232",
    "float64_2x1x4x5_c_full_0.7_1.0": "60a4df7958e2",
    "float64_2x1x4x5_c_full_0.125_0.0": "587fe3e635ae",
    "float64_2x1x4x5_c_full_-1.5_2.5": "f36f9fbd390b",
    "float64_2x1x4x5_c_row_0.7_1.0": "2b382f3124dd",
    "float64_2x1x4x5_c_row_0.125_0.0": "358436474b1a",
    "float64_2x1x4x5_c_row_-1.5_2.5": "8034cfe5a1d5",
    "float64_2x1x4x5_t_full_0.7_1.0": "8393e624c9ea",
    "float64_2x1x4x5_t_full_0.125_0.0": "39b6fa596c48",
    "float64_2x1x4x5_t_full_-1.5_2.5": "3d4af47e86da",
    "float64_2x1x4x5_t_row_0.7_1.0": "29d17850556a",
    "float64_2x1x4x5_t_row_0.125_0.0": "1d95f78f2792",
    "float64_2x1x4x5_t_row_-1.5_2.5": "f850fcf80a2a",
    "float64_3x4x7x9_c_full_0.7_1.0": "dcabb27275fa",
    "float64_3x4x7x9_c_full_0.125_0.0": "77c2c050ebe9",
    "float64_3x4x7x9_c_full_-1.5_2.5": "7d1179f4b98e",
    "float64_3x4x7x9_c_row_0.7_1.0": "3f15270165af",
    "float64_3x4x7x9_c_row_0.125_0.0": "08c71130d488",
    "float64_3x4x7x9_c_row_-1.5_2.5": "35c3d56096f5",
    "float64_3x4x7x9_t_full_0.7_1.0": "27a68ac0db7f",
    "float64_3x4x7x9_t_full_0.125_0.0": "ac9224454897",
    "float64_3x4x7x9_t_full_-1.5_2.5": "83b9fb003ee2",
    "float64_3x4x7x9_t_row_0.7_1.0": "ece6dcdc6a10",
    "float64_3x4x7x9_t_row_0.125_0.0": "e4ff0123e9c2",
    "float64_3x4x7x9_t_row_-1.5_2.5": "89270e77cf18",
    "float64_2x8x16x8_c_full_0.7_1.0": "0b3267ce1f27",
    "float64_2x8x16x8_c_full_0.125_0.0": "0de286252665",
    "float64_2x8x16x8_c_full_-1.5_2.5": "6ecd74cf0457",
    "float64_2x8x16x8_c_row_0.7_1.0": "5f535e3ca993",
    "float64_2x8x16x8_c_row_0.125_0.0": "ae6107754ed6",
    "float64_2x8x16x8_c_row_-1.5_2.5": "ce81538daa20",
    "float64_2x8x16x8_t_full_0.7_1.0": "c59035893c38",
    "float64_2x8x16x8_t_full_0.125_0.0": "946c55888006",
    "float64_2x8x16x8_t_full_-1.5_2.5": "cf1c698e1baf",
    "float64_2x8x16x8_t_row_0.7_1.0": "66290ace4db7",
    "float64_2x8x16x8_t_row_0.125_0.0": "71c5c4a4c8b8",
    "float64_2x8x16x8_t_row_-1.5_2.5": "222d85662f50",
    "float64_4x1x64x33_c_full_0.7_1.0": "1515cd351cd4",
    "float64_4x1x64x33_c_full_0.125_0.0": "285d985fa91e",
    "float64_4x1x64x33_c_full_-1.5_2.5": "458421a5453f",
    "float64_4x1x64x33_c_row_0.7_1.0": "85ab1bc81a32",
    "float64_4x1x64x33_c_row_0.125_0.0": "927b95920955",
    "float64_4x1x64x33_c_row_-1.5_2.5": "4e44b439ceac",
    "float64_4x1x64x33_t_full_0.7_1.0": "1043d1890787",
    "float64_4x1x64x33_t_full_0.125_0.0": "5810bf0590e6",
    "float64_4x1x64x33_t_full_-1.5_2.5": "6a03a2040bef",
    "float64_4x1x64x33_t_row_0.7_1.0": "7ec92fa8bf55",
    "float64_4x1x64x33_t_row_0.125_0.0": "823a39ddcea6",
    "float64_4x1x64x33_t_row_-1.5_2.5": "681b3c6ed881",
    "float64_1x30x17x50_c_full_0.7_1.0": "7e4c601ba4c7",
    "float64_1x30x17x50_c_full_0.125_0.0": "4caa9e2ffb17",
    "float64_1x30x17x50_c_full_-1.5_2.5": "96f8acae286c",
    "float64_1x30x17x50_c_row_0.7_1.0": "4bc176fc964f",
    "float64_1x30x17x50_c_row_0.125_0.0": "f89414b65bb6",
    "float64_1x30x17x50_c_row_-1.5_2.5": "821150ab3ec1",
    "float64_1x30x17x50_t_full_0.7_1.0": "1122e4bd378e",
    "float64_1x30x17x50_t_full_0.125_0.0": "1729deb5a052",
    "float64_1x30x17x50_t_full_-1.5_2.5": "8d43903b3a1c",
    "float64_1x30x17x50_t_row_0.7_1.0": "db9318e7c179",
    "float64_1x30x17x50_t_row_0.125_0.0": "78cc74ff1ee9",
    "float64_1x30x17x50_t_row_-1.5_2.5": "2c8a95088638",
    "float64_5x5x100x1_c_full_0.7_1.0": "4d6c1be1aeac",
    "float64_5x5x100x1_c_full_0.125_0.0": "136115142fd2",
    "float64_5x5x100x1_c_full_-1.5_2.5": "6f888a4a7447",
    "float64_5x5x100x1_c_row_0.7_1.0": "535fff20a9b2",
    "float64_5x5x100x1_c_row_0.125_0.0": "9b53b97b6ffe",
    "float64_5x5x100x1_c_row_-1.5_2.5": "7b89c43194a8",
    "float64_5x5x100x1_t_full_0.7_1.0": "6920ff9bcf28",
    "float64_5x5x100x1_t_full_0.125_0.0": "4ff31c2791f9",
    "float64_5x5x100x1_t_full_-1.5_2.5": "8522c953ea63",
    "float64_5x5x100x1_t_row_0.7_1.0": "72fb1eb7de1f",
    "float64_5x5x100x1_t_row_0.125_0.0": "120b6742aa26",
    "float64_5x5x100x1_t_row_-1.5_2.5": "8991dc5ce62e",
}


def _addbmm_cases():
    rng = np.random.default_rng(31)
    for d in (torch.float32, torch.float64):
        for (B, n, k, m) in [(2, 1, 4, 5), (3, 4, 7, 9), (2, 8, 16, 8), (4, 1, 64, 33),
                             (1, 30, 17, 50), (5, 5, 100, 1)]:
            for lay in ("c", "t"):
                for bsh in ("full", "row"):
                    for al, be in [(0.7, 1.0), (0.125, 0.0), (-1.5, 2.5)]:
                        shape = (n, m) if bsh == "full" else (m,)
                        c = torch.tensor(rng.standard_normal(shape), dtype=d, requires_grad=True)
                        xs = (B, k, n) if lay == "t" else (B, n, k)
                        xb = torch.tensor(rng.standard_normal(xs), dtype=d, requires_grad=True)
                        x = xb.transpose(1, 2) if lay == "t" else xb
                        w = torch.tensor(rng.standard_normal((B, k, m)), dtype=d,
                                         requires_grad=True)
                        y = torch.addbmm(c, x, w, beta=be, alpha=al)
                        y.backward(torch.tensor(rng.standard_normal((n, m)), dtype=d))
                        h = hashlib.sha1()
                        for t in (y, c.grad, xb.grad, w.grad):
                            h.update(t.detach().numpy().tobytes())
                        yield f"{str(d)[6:]}_{B}x{n}x{k}x{m}_{lay}_{bsh}_{al}_{be}", \
                            h.hexdigest()[:12]


def test_addbmm_bits_equal_real_torch():
    skip_unless_mkl_path("addbmm (MKL's gemm per batch with alpha/beta inside)")
    got = dict(_addbmm_cases())
    bad = [k for k in REAL_ADDBMM if got.get(k) != REAL_ADDBMM[k]]
    assert not bad, bad


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
