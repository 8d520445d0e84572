"""torch.linalg.matrix_exp / torch.matrix_exp values and gradients as real torch 2.13 computes
them (aten's mexp: exp of a 1x1 matrix, Bader-Blanes-Casas Taylor degrees 1/2/4/8/12/18 chosen by
the 1-norm, each by aten's evaluation scheme, degree 18 with scaling and squaring for every
matrix of a batch; the gradient the exponential of [[A^T, G], [0, A^T]] in the input's dtype).

``WANT`` was recorded by running ``results`` below in real torch 2.13 (/work/vtorch): sha256 of
the values and of the gradient of a random weighting, float32/float64, n = 1, 2, 3, 5, 8, norms
1e-9..50, and a batch of three. Before this, 75 of the 82 differed (last bits; a float32 gradient
was taken in float64)."""
from __future__ import annotations

import hashlib

import numpy as np

WANT = {'float32-1-0.001': 'ce53aad740e1',
 'float32-1-0.02': '68095b0f534e',
 'float32-1-0.2': '54877d610cb8',
 'float32-1-0.7': 'e5be2fb16205',
 'float32-1-12.0': 'a289f8641158',
 'float32-1-1e-05': '70b27f2aef38',
 'float32-1-1e-09': '79f4c9e17e65',
 'float32-1-2.0': 'fd8b5b86cb36',
 'float32-2-0.001': '74fb1c99b62d',
 'float32-2-0.02': '27b5fea87da1',
 'float32-2-0.2': 'fa8a35414e60',
 'float32-2-0.7': 'ae129cdbd3d7',
 'float32-2-12.0': '03652c446b0d',
 'float32-2-1e-05': 'e4fff7c3836e',
 'float32-2-1e-09': 'e2eac1abe011',
 'float32-2-2.0': 'c532539d597a',
 'float32-3-0.001': '6705e6ad3f14',
 'float32-3-0.02': '35e3f469b199',
 'float32-3-0.2': 'b67d6f3e6077',
 'float32-3-0.7': '9d5c41a40777',
 'float32-3-12.0': '2bd9b6962371',
 'float32-3-1e-05': 'cd1702417042',
 'float32-3-1e-09': '258a39c7a84d',
 'float32-3-2.0': 'e666d94c651f',
 'float32-5-0.001': '4fbf22e3c211',
 'float32-5-0.02': '6fb210faf55f',
 'float32-5-0.2': '52796060f401',
 'float32-5-0.7': '7d3f83d1da36',
 'float32-5-12.0': 'ae07e47a2f9c',
 'float32-5-1e-05': 'f6ab0c7f47a1',
 'float32-5-1e-09': 'cb8233f2d945',
 'float32-5-2.0': 'f191c560b491',
 'float32-8-0.001': 'b42e0c17f523',
 'float32-8-0.02': 'fe673b443c5d',
 'float32-8-0.2': '9dfca6f0ad20',
 'float32-8-0.7': '5f38bf5c6e93',
 'float32-8-12.0': '662d704a2304',
 'float32-8-1e-05': '4ae25d965e99',
 'float32-8-1e-09': '22795f5eeead',
 'float32-8-2.0': '13475780d4ff',
 'float32-batch': 'f20f1ec2fe6d',
 'float64-1-0.001': 'a7c5c5ddbb1a',
 'float64-1-0.02': '78b452a58708',
 'float64-1-0.2': '9d8f1b5bce31',
 'float64-1-0.7': '36dc573d4e1c',
 'float64-1-12.0': 'f75099f44a39',
 'float64-1-1e-05': '8c977568593e',
 'float64-1-1e-09': 'd03fd9a97c25',
 'float64-1-2.0': '8a124974aba0',
 'float64-2-0.001': '79877bf89e6a',
 'float64-2-0.02': '2ffdc8f08f4c',
 'float64-2-0.2': 'f1aaed0bbf50',
 'float64-2-0.7': '43a07d0f4664',
 'float64-2-12.0': 'd39d4f021f59',
 'float64-2-1e-05': 'bda8d7834f7c',
 'float64-2-1e-09': 'e93292e779ec',
 'float64-2-2.0': '552f7d9d685c',
 'float64-3-0.001': '2920d56a4ae8',
 'float64-3-0.02': '009ce958bff7',
 'float64-3-0.2': '916e8be1df52',
 'float64-3-0.7': 'e06beaa0b85f',
 'float64-3-12.0': 'cf9267f7744c',
 'float64-3-1e-05': '45e856bd3dad',
 'float64-3-1e-09': 'ed65c4de4bd3',
 'float64-3-2.0': '7a4e458e1009',
 'float64-5-0.001': 'aba79ec55d26',
 'float64-5-0.02': '4d7d8da906c2',
 'float64-5-0.2': 'e5c61d7758bd',
 'float64-5-0.7': '67a5b2947034',
 'float64-5-12.0': '05f938586792',
 'float64-5-1e-05': '4a25976202cb',
 'float64-5-1e-09': 'e2e305b85eae',
 'float64-5-2.0': '2d8e170293ac',
 'float64-8-0.001': '8ac8250bf273',
 'float64-8-0.02': 'fbc55741b238',
 'float64-8-0.2': '1137b039aa0c',
 'float64-8-0.7': 'abf4ce7402f0',
 'float64-8-12.0': 'f6e437db3004',
 'float64-8-1e-05': 'c7b4fff964cc',
 'float64-8-1e-09': '8a9723a9f80c',
 'float64-8-2.0': '90f34aca10a6',
 'float64-batch': 'cc5430a3a9d2'}


def results(torch):
    rs = np.random.RandomState(7)
    out = {}
    for dt in (torch.float32, torch.float64):
        for n in (1, 2, 3, 5, 8):
            for scale in (1e-9, 1e-5, 1e-3, 0.02, 0.2, 0.7, 2.0, 12.0):
                A = torch.tensor(rs.randn(n, n) * scale, dtype=dt, requires_grad=True)
                E = torch.linalg.matrix_exp(A)
                (E * torch.tensor(rs.randn(n, n), dtype=dt)).sum().backward()
                h = hashlib.sha256(E.detach().numpy().tobytes() + A.grad.numpy().tobytes())
                out[f"{str(dt)[6:]}-{n}-{scale}"] = h.hexdigest()[:12]
        B = torch.tensor(rs.randn(3, 4, 4) * np.array([1e-3, 0.3, 5.0])[:, None, None], dtype=dt,
                         requires_grad=True)
        E = torch.matrix_exp(B)
        E.pow(2).sum().backward()
        out[f"{str(dt)[6:]}-batch"] = hashlib.sha256(E.detach().numpy().tobytes() +
                                                    B.grad.numpy().tobytes()).hexdigest()[:12]
    return out


def test_matrix_exp_values_and_gradients_equal_torch():
    import gradrepl.torch as torch
    from conftest import record_for_mkl_branch, skip_without_mkl

    skip_without_mkl("matrix_exp (MKL's products and exp)")
    # WANT was recorded on the Intel Sapphire Rapids Xeon (MKL's AVX512_E1 path); on the AVX2
    # path (Haswell: qemu -cpu Haswell-v4, or MKL_ENABLE_INSTRUCTIONS=AVX2 here) 20 of the 82
    # digests differ (MKL's products); the AUTO path (AMD EPYC) was not measured
    want = record_for_mkl_branch("matrix_exp (MKL's products)", {"AVX512_E1": WANT})
    got = results(torch)
    assert {k: v for k, v in got.items() if want[k] != v} == {}


def test_matrix_exp_node_and_alias():
    import gradrepl.torch as torch

    a = torch.tensor([[0.0, 1.0], [-1.0, 0.0]], requires_grad=True)
    e = torch.matrix_exp(a)
    assert type(e.grad_fn).__name__ == "LinalgMatrixExpBackward0"
    assert e.tolist() == torch.linalg.matrix_exp(a).tolist()


if __name__ == "__main__":
    import torch

    print(results(torch))
