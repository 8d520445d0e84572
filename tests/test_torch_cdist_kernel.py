"""torch.cdist's direct path (not the matrix product) as torch 2.13's CPU kernels compute it
(DistanceOpsKernel.cpp; gradrepl/torch/_cdist_kernel.py): the forward's per-pair column loop
(p = 2: the vectorized part's rounded squares summed in order, the scalar tail fused; other p:
the C library's pow), the backward for p = 1 and 2 as a running sum over the other input's
rows, for float32 any p (its vector pow SLEEF's powf). sha256 prefixes recorded from real
torch 2.13 (/work/vtorch, 2 threads) on the Intel
Sapphire Rapids Xeon (TSWEEP2); before this change 26 of these 32 forwards and 14 of the 16
p = 1/2 backwards differed. Left: the float64 backward for other p (SLEEF's double pow) and
one float64 p = 3 distance (1 ulp, not explained)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch

REAL = [
    ("float32", 0.5, (1, 5, 100), "65d2e56f4ad59a4c", "fb273a81d71cdec8", "f510fe473ee18f7b"),
    ("float32", 0.5, (3, 5, 10), "3811a3d23b92483d", "301794f34e13bc32", "03263a5a0467a896"),
    ("float32", 0.5, (7, 9, 1), "7c12149cbaae3377", "7f3eec946bdf2bf8", "0005a5f548335811"),
    ("float32", 0.5, (8, 4, 64), "e79b90bbf3e51abf", "484f82021007cf7d", "96c9552517a66285"),
    ("float32", 1.0, (1, 5, 100), "09ae088e89794a4d", "074a7f8af5096151", "0bc1417bb5c67c63"),
    ("float32", 1.0, (3, 5, 10), "1e4c1e9a05d63d43", "67a085c4ae324acf", "01bf0e923c81a677"),
    ("float32", 1.0, (7, 9, 1), "76c960888c26bfe2", "e56773d0df729d0b", "7fe797d496be3c40"),
    ("float32", 1.0, (8, 4, 64), "1e2dec652e7fa47e", "0d490b9a13a17956", "687005892d8f6318"),
    ("float32", 2.0, (1, 5, 100), "eeede255af0df692", "f87f64f8ae68b3db", "9b1a1cb8e586a19d"),
    ("float32", 2.0, (3, 5, 10), "58c3ad5afca1294c", "8f1f38ec117fa028", "715a59dcb7fb3fd1"),
    ("float32", 2.0, (7, 9, 1), "76c960888c26bfe2", "ae7ca469fa307dbf", "7fe797d496be3c40"),
    ("float32", 2.0, (8, 4, 64), "0510bb418e608f60", "4100e0d7a25d94cb", "014403de0e0e587f"),
    ("float32", 3.0, (1, 5, 100), "ca823eee2b4786a8", "c3e848f595f19009", "4e16dbe0db183f07"),
    ("float32", 3.0, (3, 5, 10), "c9060df210b1fb41", "3c2df033607a9391", "0521b5f75ff456fd"),
    ("float32", 3.0, (7, 9, 1), "76c960888c26bfe2", "a334d22d9364c3a9", "2a397827a20ff118"),
    ("float32", 3.0, (8, 4, 64), "d4b7188fd0fbc61d", "a4112c44867b49be", "09607f74853e19ef"),
    ("float64", 0.5, (1, 5, 100), "f18fe67ebcbc2758", None, None),
    ("float64", 0.5, (3, 5, 10), "d68a68bb0ee8fc3a", None, None),
    ("float64", 0.5, (7, 9, 1), "d18331d4fc44b04e", None, None),
    ("float64", 0.5, (8, 4, 64), "f293e55eef7e2d87", None, None),
    ("float64", 1.0, (1, 5, 100), "cfaf2883fb2b1f7e", "369af53d062d9db4", "e6071685b477c635"),
    ("float64", 1.0, (3, 5, 10), "09fe5e9fe910b0ec", "461a5cf36a040b84", "92b2a0cbaa816481"),
    ("float64", 1.0, (7, 9, 1), "2f565d6ea238db35", "ce36656fa46dfabb", "323c81746f68715f"),
    ("float64", 1.0, (8, 4, 64), "e5cf5dd8b6f5446c", "19d2e2c9fa2b9704", "a348f798f713e970"),
    ("float64", 2.0, (1, 5, 100), "e4ea2d3c9fba0c09", "39160cf2fbfb7b68", "d10d3151a5042716"),
    ("float64", 2.0, (3, 5, 10), "79f3788b87ad3e49", "35f240428dd0fabc", "f6ce8347074ab623"),
    ("float64", 2.0, (7, 9, 1), "2f565d6ea238db35", "51c633dbdd156f42", "c6e6417c5fe16fd3"),
    ("float64", 2.0, (8, 4, 64), "0dbbe022d010a894", "3021fdd7ff46a169", "14dbe04715fc362d"),
    ("float64", 3.0, (1, 5, 100), "92fbd809f77dbd1d", None, None),
    ("float64", 3.0, (3, 5, 10), "621da229e910ae85", None, None),
    ("float64", 3.0, (7, 9, 1), "988e7fec646bf8f1", None, None),
]


def _h(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("dt,p,dims,y_h,da_h,db_h", REAL)
def test_cdist_equals_real_torch(dt, p, dims, y_h, da_h, db_h):
    r1, r2, m = dims
    rng = np.random.default_rng(7)
    a = torch.tensor(rng.standard_normal((r1, m)).astype(dt), requires_grad=True)
    b = torch.tensor(rng.standard_normal((r2, m)).astype(dt), requires_grad=True)
    g = rng.standard_normal((r1, r2)).astype(dt)
    y = torch.cdist(a, b, p=p)
    assert _h(y.detach().numpy()) == y_h
    if da_h is not None:
        y.backward(torch.tensor(g))
        assert (_h(a.grad.numpy()), _h(b.grad.numpy())) == (da_h, db_h)
