"""torch float64 pow as torch 2.13's kernels: tensor ** number (other than the special exponents
0, +-0.5, +-1, 2, 3, -2) and tensor ** tensor take SLEEF's ``powd_u10`` on the vector loop's
values (two vectors a step) and glibc's ``pow`` on the scalar loop's; gradrepl took numpy's
``np.power`` (SVML on this CPU): x ** 7 of a 50-value linspace differed, so a degree-12
polynomial least squares fit (EPFL CS-433 lab style, TM15B s17) printed another RMSE.
Digests recorded from real torch 2.13.0+cpu on this machine (Intel Xeon, AVX-512: torch's
AVX512 kernels)."""
import hashlib

import gradrepl.torch as torch
from conftest import skip_without_avx512


def _h(t):
    return hashlib.md5(t.detach().contiguous().numpy().tobytes()).hexdigest()[:10]


def test_pow_by_number_float64():
    skip_without_avx512("torch 2.13's float64 pow vector-loop blocks")
    x = torch.linspace(0.1, 2 * 3.14159, 50, dtype=torch.float64)
    # real torch 2.13: [(d, h(x ** d)) for d in range(13)]
    assert [_h(x ** d) for d in range(13)] == [
        '9c36c86f2a', '428b5fd434', 'ea0f99261e', '2ec84aefb0', 'b5ee8ff147', 'fb0a166bd2',
        '0b8b72dbac', '093b2c48fc', '9f0a396be5', '9c832e6da8', 'b3e6850ad1', '979bbac7c0',
        '4b1c64c9a3']
    assert [_h(x ** 4.0), _h(x ** 2.5), _h(x ** -3)] == ['b5ee8ff147', 'c6c8a70178', '33a53f533e']


def test_pow_tensor_tensor_float64_layouts_and_grads():
    skip_without_avx512("torch 2.13's float64 pow vector-loop blocks")
    g = torch.Generator().manual_seed(0)
    x = torch.rand(37, 45, generator=g, dtype=torch.float64) * 9 + 0.05
    y = torch.rand(37, 45, generator=g, dtype=torch.float64) * 6 - 3
    got = [_h(x ** y), _h(x.T ** y.T), _h(x ** y[0]), _h(x ** y[:, :1]),
           _h(x.pow(torch.tensor(5.0, dtype=torch.float64))), _h(torch.pow(2.5, y)),
           _h(x[:, ::2] ** y[:, ::2]), _h(x[0] ** y[0]), _h(x.T ** 3.7), _h(x[:, ::3] ** 6)]
    assert got == ['6a5df332ed', '5ffdbe1fbe', '3c69f91eb2', '22ee0df7bb', '88bd8db64c',
                   'c00b634d37', 'a61d9502d1', '507b468099', 'b343cde71e', 'e2f29d1d04']
    xr = x.clone().requires_grad_()
    (xr ** y).sum().backward()
    assert _h(xr.grad) == '057de94bd7'
    xr.grad = None
    (xr ** 4.5).sum().backward()
    assert _h(xr.grad) == '7bdc5120b1'
