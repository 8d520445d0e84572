"""p-norm gradients (p != 2) and F.pairwise_distance as torch 2.13 computes them: the backward is
FunctionsManual's norm_backward written with the dialect's ops (gradrepl/torch/_pnorm_grad.py;
was the engine's formula: F.normalize(p=3)'s gradient differed in its last bits), and
pairwise_distance's norm (NormBackward1) runs torch's reduction order (it ran the engine's
forward). sha256 prefixes recorded from real torch 2.13 (/work/vtorch, 2 threads) on the Intel
Sapphire Rapids Xeon (TSWEEP2); torch's own reduction and pow kernels, no CPU-specific library
on this path."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from conftest import skip_unless_mkl_path

REAL = [
    ("float32", 0.5, "normalize", "ece6c91b26330238", "addd0f562e5d6f21"),
    ("float32", 0.5, "pairwise", "40f10b309b16a619", "a91b36f09865a021"),
    ("float32", 0.5, "norm", "19ae47967f7e44c1", "7dfd1b67ea23c426"),
    ("float32", 1.0, "normalize", "36b7a45f5d163581", "6eae7d87420900dd"),
    ("float32", 1.0, "pairwise", "0c7568ad333ff637", "1a326f0665f45e60"),
    ("float32", 1.0, "norm", "616a7201c81ad19a", "db6b8f0c952ddab3"),
    ("float32", 1.5, "normalize", "b55801d876e25f93", "09190e998680ac66"),
    ("float32", 1.5, "pairwise", "813adab86124a53e", "e07eba21d48a1cb5"),
    ("float32", 1.5, "norm", "27c30b493c2a57b5", "9e760c8580c72d02"),
    ("float32", 3.0, "normalize", "76fccee69186ff2a", "d9f928e416c64f47"),
    ("float32", 3.0, "pairwise", "90d9406fb17279e4", "1f0942a61310a961"),
    ("float32", 3.0, "norm", "70c6f84fb9a1820d", "1f058907b97aa8b7"),
    ("float32", 4.0, "normalize", "01f926f5a77566a9", "0b2aaad96002857d"),
    ("float32", 4.0, "pairwise", "bdfbabc9b5d76e5d", "4a39137c3d63a5be"),
    ("float32", 4.0, "norm", "1e30d1365a933385", "7e668c8391a4d3b9"),
    ("float64", 0.5, "normalize", "252eba10cf9692d2", "153797faa0112cf4"),
    ("float64", 0.5, "pairwise", "a11fdb6773b37f4a", "7319a48359126375"),
    ("float64", 0.5, "norm", "0967e9a3aed3588e", "5b4af3a56d76254f"),
    ("float64", 1.0, "normalize", "8431af093de90c86", "e0e78ff2729c1f37"),
    ("float64", 1.0, "pairwise", "d057612963890efe", "1316d36aeaa91fa3"),
    ("float64", 1.0, "norm", "9063bc1538fae0a0", "83224a00e2dff7e1"),
    ("float64", 1.5, "normalize", "f00bd06bdf38ef8e", "0848541b6bd06ec8"),
    ("float64", 1.5, "pairwise", "4fceb186b529cc72", "36217c2de80d1de4"),
    ("float64", 1.5, "norm", "50dbb529bc4571a7", "1044a956f9d386fd"),
    ("float64", 3.0, "normalize", "4d9c71bf54b49e4d", "337429e191b1f00e"),
    ("float64", 3.0, "pairwise", "f121062b266e98c5", "c3215c194656c9f6"),
    ("float64", 3.0, "norm", "843b54289de02e57", "e7337d93c0ae6c21"),
    ("float64", 4.0, "normalize", "f62e4dd550c0f319", "c25ee0d583a0c0c3"),
    ("float64", 4.0, "pairwise", "21b1d902b7a92b08", "37ba246256711ec8"),
    ("float64", 4.0, "norm", "7c27cc4ff5bf0234", "b08f11a2138e8bff"),
]


def _h(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("dt,p,kind,y_h,da_h", REAL)
def test_pnorm_values_and_gradients_equal_real_torch(dt, p, kind, y_h, da_h):
    skip_unless_mkl_path("p-norm records (MKL's pow in the torch dialect)")
    rng = np.random.default_rng(3)
    a = torch.tensor(rng.standard_normal((17, 33)).astype(dt), requires_grad=True)
    b = torch.tensor(rng.standard_normal((17, 33)).astype(dt), requires_grad=True)
    g = rng.standard_normal((17, 33)).astype(dt)
    if kind == "normalize":
        y = torch.nn.functional.normalize(a, p=p, dim=1)
    elif kind == "pairwise":
        y = torch.nn.functional.pairwise_distance(a, b, p=p)
        g = g[:, 0].copy()
    else:
        y = a.norm(p=p, dim=0)
        g = g[0].copy()
    y.backward(torch.tensor(g))
    assert (_h(y.detach().numpy()), _h(a.grad.numpy())) == (y_h, da_h)


def test_pnorm_double_backward_runs():
    a = torch.tensor(np.random.default_rng(1).standard_normal((4, 5)), requires_grad=True)
    (g,) = torch.autograd.grad(a.norm(p=3.0, dim=1).sum(), a, create_graph=True)
    g.sum().backward()
    assert a.grad is not None and a.grad.shape == (4, 5)
