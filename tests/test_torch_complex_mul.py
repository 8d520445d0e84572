"""torch's CPU complex multiply to the last bit (TM17A, round 17: a llama2.c-style complex RoPE,
``torch.view_as_real(xq_ * freqs_cis)``, printed 'sdpa vs manual 1.79e-07' instead of torch's
1.19e-07). ATen's ``mul_kernel`` multiplies whole ``Vectorized`` blocks unfused and the rest of each
contiguous inner row with GCC's fused multiply-adds (``torch/_complex_mul.py``); gradrepl rounded
every product. Digests recorded from real torch 2.13.0 on this machine (AVX-512), inputs from
numpy's generator (complex64/complex128; 1-D sizes around the 8/4-element vectors, 2-D, and
inner-row broadcasts such as RoPE's (B, T, H, D/2) * (1, T, 1, D/2)). A stride-0 operand along the
inner row (``(5, 3) * (5, 1)``) is not followed (its split depends on the data's alignment)."""
import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from conftest import skip_without_avx512

# (dtype, shape a, shape b, md5[:16] of real torch 2.13.0's a * b), recorded here
RECORDS = [
    ('complex64', (1,), (1,), '6d3ec91be824e5d3'),
    ('complex64', (2,), (2,), 'e11677723108e888'),
    ('complex64', (3,), (3,), 'd95b8ee0bef4a121'),
    ('complex64', (5,), (5,), '7c703f3fb50024ec'),
    ('complex64', (7,), (7,), '056961b1366de108'),
    ('complex64', (8,), (8,), '985d85a0dae366cf'),
    ('complex64', (9,), (9,), 'd19f57fc35d2588f'),
    ('complex64', (13,), (13,), 'dcfb7cc776f7bb99'),
    ('complex64', (23,), (23,), '122c3149f96d2a12'),
    ('complex64', (37,), (37,), 'cabcfd6f34f0ab90'),
    ('complex64', (100,), (100,), '2df820b48e9bf1ad'),
    ('complex64', (3, 5), (3, 5), '3dea0c5cba2a4f39'),
    ('complex64', (2, 6, 2, 4), (1, 6, 1, 4), '6a7234211e636ece'),
    ('complex64', (2, 3, 2, 5), (1, 3, 1, 5), '1f422c229702d35a'),
    ('complex64', (4, 6), (6,), 'dad75452545d072b'),
    ('complex128', (1,), (1,), 'd6f5926eaf13dcde'),
    ('complex128', (2,), (2,), '39f2ae6ea5146fd8'),
    ('complex128', (3,), (3,), 'a9c1a738bf3f6b1f'),
    ('complex128', (5,), (5,), '7816a22dab07e6aa'),
    ('complex128', (7,), (7,), 'b98a4e9b978e7cb8'),
    ('complex128', (8,), (8,), '793569af97201392'),
    ('complex128', (9,), (9,), 'ceb9b4ee8469ba78'),
    ('complex128', (13,), (13,), '25eda7ac46593e38'),
    ('complex128', (23,), (23,), '4749b94fba027205'),
    ('complex128', (37,), (37,), '66106fdb820567bb'),
    ('complex128', (100,), (100,), '2b683b24f5577ba2'),
    ('complex128', (3, 5), (3, 5), '4a19a25b755f7cff'),
    ('complex128', (2, 6, 2, 4), (1, 6, 1, 4), 'a6c1c8e81c0f17cd'),
    ('complex128', (2, 3, 2, 5), (1, 3, 1, 5), '8de12b5f63ee5f1d'),
    ('complex128', (4, 6), (6,), '8bba38b5713feaf8'),
]


def _inputs(shape_a, shape_b, dt, seed):
    rng = np.random.default_rng(seed)
    f = np.float32 if dt == np.complex64 else np.float64
    def mk(s):
        return (rng.standard_normal(s).astype(f) + 1j * rng.standard_normal(s).astype(f)).astype(dt)
    return mk(shape_a), mk(shape_b)


@pytest.mark.parametrize("dtype,shape_a,shape_b,digest", RECORDS)
def test_complex_mul_bits_as_torch(dtype, shape_a, shape_b, digest):
    skip_without_avx512("torch complex multiply digests")
    cases = [((n,), (n,)) for n in (1, 2, 3, 5, 7, 8, 9, 13, 23, 37, 100)] + [
        ((3, 5), (3, 5)), ((2, 6, 2, 4), (1, 6, 1, 4)), ((2, 3, 2, 5), (1, 3, 1, 5)), ((4, 6), (6,)),
        ((5, 3), (5, 1))]
    seed = cases.index((shape_a, shape_b))   # (the recording's seed: the case's index)
    a, b = _inputs(shape_a, shape_b, np.dtype(dtype).type, seed)
    got = (torch.from_numpy(a) * torch.from_numpy(b)).numpy()
    assert hashlib.md5(got.tobytes()).hexdigest()[:16] == digest
    got = torch.mul(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    assert hashlib.md5(got.tobytes()).hexdigest()[:16] == digest
