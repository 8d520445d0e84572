"""float64 elu / selu / celu (forward, backward) and gelu(approximate='tanh')'s scalar path as
torch 2.13's double kernels on x86-64 AVX-512 (gradrepl/torch/_sigmoid64.py): glibc's expm1 /
exp / tanh in the scalar lambda, SLEEF's exp (``vexp``) in the backward's vector groups; celu's
backward takes input_scale 1.0 / alpha.toFloat() (derivatives.yaml); selu's backward is the
kernel's too (it was the engine's formula). Not emulated: SLEEF's double expm1 and tanh in the
vector groups (numpy's stand in: celu's 10,000-value forward and gelu-tanh beyond 16 values
still differ). Hashes (12 hex) of y and x.grad recorded from real torch 2.13 (/work/vtorch,
2 threads) on the Intel Sapphire Rapids Xeon (TSWEEP2: activation family 41/52 -> 48/52)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.engine.ops import _kernels as K

F = torch.nn.functional
REAL = [
    ('elu', 7, '1b6af21982d9', '4d7eb70594cd'),
    ('elu', 15, '446d446810c1', '39a58e9fc727'),
    ('elu', 40, '3e0b12ff1138', '91afdfabb884'),
    ('elu', 1000, '156f477cdc0a', 'a2d024b590f3'),
    ('elu', 10000, '27e9606e27e5', 'da7a3542b0ba'),
    ('celu', 7, '152d4d999311', '86299429fc2b'),
    ('celu', 15, '7970d4e367df', '2ed2f2acba2f'),
    ('celu', 40, '7e3e7080e1a0', '6d4c608a6bca'),
    ('celu', 1000, '6dc1f4dad0ff', '7f18f26432f3'),
    ('selu', 7, '06ebf4a3e4af', '79df8c5cb09e'),
    ('selu', 15, 'cea2882a33ca', 'ef7f0ce13737'),
    ('selu', 40, 'dd4788860296', '5a2fdb365bb9'),
    ('selu', 1000, 'd18ce79b5d4d', '614af4cc66fa'),
    ('selu', 10000, '574681d226de', '1303addae8d0'),
    ('gelu_tanh', 7, '80525afd3de9', 'b66ca8866dbe'),
    ('gelu_tanh', 15, 'a8440fa59b03', '43e986ea6168'),
]
FUNCS = {"elu": lambda t: F.elu(t, 0.7), "celu": lambda t: F.celu(t, 1.3), "selu": F.selu,
         "gelu_tanh": lambda t: F.gelu(t, approximate="tanh")}


@pytest.fixture(autouse=True)
def _avx512(monkeypatch):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")
    if K._LIBM is None:
        pytest.skip("no C library to call: the scalar lambda's glibc functions are not there")


def _h(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:12]


@pytest.mark.parametrize("name,n,y_h,dx_h", REAL)
def test_float64_activation_equals_real_torch(name, n, y_h, dx_h):
    x0 = np.random.default_rng(2).standard_normal(10000) * 3
    g0 = np.random.default_rng(3).standard_normal(10000)
    a = torch.tensor(x0[:n], requires_grad=True)
    y = FUNCS[name](a)
    y.backward(torch.tensor(g0[:n]))
    assert (_h(y.detach().numpy()), _h(a.grad.numpy())) == (y_h, dx_h)
