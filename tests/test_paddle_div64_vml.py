"""Paddle's same-shape float64 divide is MKL's vmdDiv (HA), as its float32 one is vsDiv: on
this Sapphire Rapids real 3.3.1 and 2.6.2 equal vmdDiv on 100,000 of 100,000 quotients (IEEE
division 99,890; found through paddle.sinc's sin(t) / t, PSWEEP3). Broadcast operands divide
exactly. Expectations: digests of real Paddle's results here (both versions the same)."""
import hashlib

import numpy as np
from conftest import skip_unless_mkl_path

import gradrepl.paddle as paddle


def _h(t):
    return hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()[:16]


def test_float64_divide_is_mkl_vmddiv(version):
    skip_unless_mkl_path("float64 divide digests (MKL's vmdDiv)")
    rng = np.random.default_rng(91)
    a = rng.standard_normal(5000) * np.exp(rng.standard_normal(5000) * 5)
    b = rng.standard_normal(5000) * np.exp(rng.standard_normal(5000) * 5)
    x = paddle.to_tensor(a, stop_gradient=False)
    y = paddle.to_tensor(b, stop_gradient=False)
    q = x / y
    (q * paddle.to_tensor(rng.standard_normal(5000))).sum().backward()
    out = [_h(q), _h(x.grad), _h(y.grad),
           _h(paddle.divide(paddle.to_tensor(a.reshape(50, 100)), paddle.to_tensor(b[:100])))]
    assert out == ['ecf22236f043f61c', '34d034602b8ac522', '0e1dfac20dc72fb1', '21eb0a9bf9636147']


def test_zero_dim_float64_division_keeps_its_shape(version):
    # (MKL's vmdDiv path made 0-d quotients 1-d: paddle.Size([1]) where real 3.3.1 and 2.6.2
    # print paddle.Size([]); caught by tests/test_promotion's full matrix)
    import gradrepl.paddle as paddle

    a = paddle.to_tensor(2.0, dtype="float64")
    b = paddle.to_tensor(5.0, dtype="float64")
    q = a / b
    assert list(q.shape) == [] and float(q) == 0.4
