"""Complex tensors with python numbers (Paddle Quantum's `0.5 * paddle.kron(Z, Z)`): real 2.6.2's
scale kernel has complex64/complex128 (gradrepl's 2.x table said it had not and raised NotFound).
Found by PM15A's round-15 Paddle Quantum scripts."""
from __future__ import annotations

# printed by real Paddle 2.6.2 (/work/vpaddle26) and 3.3.1 (/work/vpaddle), identical: for x of
# each dtype, [r.numpy().tolist() for r in (0.3 * x, x * 0.5, x / 3, x + 1.5, 2 - x,
# paddle.scale(x, 2.0, bias=0.25))]
REAL = {
    "complex64": [
        [(0.30000001192092896+0.6000000238418579j), (0.9000000357627869-0.30000001192092896j),
         (0.030000001192092896-0.21000000834465027j)],
        [(0.5+1j), (1.5-0.5j), (0.05000000074505806-0.3499999940395355j)],
        [(0.3333333432674408+0.6666666865348816j), (1-0.3333333432674408j),
         (0.03333333507180214-0.23333333432674408j)],
        [(2.5+2j), (4.5-1j), (1.600000023841858-0.699999988079071j)],
        [(1-2j), (-1+1j), (1.899999976158142+0.699999988079071j)],
        [(2.25+4j), (6.25-2j), (0.44999998807907104-1.399999976158142j)]],
    "complex128": [
        [(0.3+0.6j), (0.8999999999999999-0.3j), (0.03-0.21j)],
        [(0.5+1j), (1.5-0.5j), (0.05-0.35j)],
        [(0.3333333333333333+0.6666666666666666j), (1-0.3333333333333333j),
         (0.03333333333333333-0.2333333333333333j)],
        [(2.5+2j), (4.5-1j), (1.6-0.7j)],
        [(1-2j), (-1+1j), (1.9+0.7j)],
        [(2.25+4j), (6.25-2j), (0.45-1.4j)]],
}


def test_complex_tensor_with_python_numbers(version):
    import numpy as np

    import gradrepl.paddle as paddle

    for dtype, want in REAL.items():
        x = paddle.to_tensor(np.array([1+2j, 3-1j, 0.1-0.7j]), dtype=dtype)
        got = [r.numpy().tolist() for r in (0.3 * x, x * 0.5, x / 3, x + 1.5, 2 - x,
                                            paddle.scale(x, 2.0, bias=0.25))]
        assert [str(r) for r in got] == [str(r) for r in want], dtype


# printed by real 3.3.1 and 2.6.2 here (script: for dt in complex128, float64, complex64, float32,
# x = to_tensor([1+1j] or [1.0], dtype=dt), c = 0.3+0.2j: (dtype, values) of x + c, c + x, x - c,
# c - x, x * c, c * x; then to_tensor(c, dtype='complex128')): * rounds c to complex64 first
# (also beside complex128), + and - do not; 2.6.2 adds c's real part to a float tensor
SCALAR_C = {
    "3": {'complex128': [('complex128', [(1.3+1.2j)]),
                        ('complex128', [(1.3+1.2j)]),
                        ('complex128', [(0.7+0.8j)]),
                        ('complex128', [(-0.7-0.8j)]),
                        ('complex128', [(0.10000000894069672+0.5000000149011612j)]),
                        ('complex128', [(0.10000000894069672+0.5000000149011612j)])],
         'complex64': [('complex64', [(1.2999999523162842+1.2000000476837158j)]),
                       ('complex64', [(1.2999999523162842+1.2000000476837158j)]),
                       ('complex64', [(0.699999988079071+0.800000011920929j)]),
                       ('complex64', [(-0.699999988079071-0.800000011920929j)]),
                       ('complex64', [(0.10000000894069672+0.5j)]),
                       ('complex64', [(0.10000000894069672+0.5j)])],
         'float32': [('complex64', [(1.2999999523162842+0.20000000298023224j)]),
                     ('complex64', [(1.2999999523162842+0.20000000298023224j)]),
                     ('complex64', [(0.699999988079071-0.20000000298023224j)]),
                     ('complex64', [(-0.699999988079071+0.20000000298023224j)]),
                     ('complex64', [(0.30000001192092896+0.20000000298023224j)]),
                     ('complex64', [(0.30000001192092896+0.20000000298023224j)])],
         'float64': [('complex128', [(1.3+0.2j)]),
                     ('complex128', [(1.3+0.2j)]),
                     ('complex128', [(0.7-0.2j)]),
                     ('complex128', [(-0.7+0.2j)]),
                     ('complex128', [(0.30000001192092896+0.20000000298023224j)]),
                     ('complex128', [(0.30000001192092896+0.20000000298023224j)])],
         'to_tensor': (0.3+0.2j)},
    "2.6": {'complex128': [('complex128', [(1.3+1.2j)]),
                        ('complex128', [(1.3+1.2j)]),
                        ('complex128', [(0.7+0.8j)]),
                        ('complex128', [(-0.7-0.8j)]),
                        ('complex128', [(0.10000000894069672+0.5000000149011612j)]),
                        ('complex128', [(0.10000000894069672+0.5000000149011612j)])],
         'complex64': [('complex64', [(1.2999999523162842+1.2000000476837158j)]),
                       ('complex64', [(1.2999999523162842+1.2000000476837158j)]),
                       ('complex64', [(0.699999988079071+0.800000011920929j)]),
                       ('complex64', [(-0.699999988079071-0.800000011920929j)]),
                       ('complex64', [(0.10000000894069672+0.5j)]),
                       ('complex64', [(0.10000000894069672+0.5j)])],
         'float32': [('float32', [1.2999999523162842]),
                     ('float32', [1.2999999523162842]),
                     ('float32', [0.699999988079071]),
                     ('float32', [-0.699999988079071]),
                     ('complex64', [(0.30000001192092896+0.20000000298023224j)]),
                     ('complex64', [(0.30000001192092896+0.20000000298023224j)])],
         'float64': [('float64', [1.3]),
                     ('float64', [1.3]),
                     ('float64', [0.7]),
                     ('float64', [-0.7]),
                     ('complex128', [(0.30000001192092896+0.20000000298023224j)]),
                     ('complex128', [(0.30000001192092896+0.20000000298023224j)])],
         'to_tensor': (0.3+0.2j)},
}


def test_python_complex_number_operand(version):
    import gradrepl.paddle as paddle

    c = 0.3 + 0.2j
    out = {}
    for dt in ("complex128", "float64", "complex64", "float32"):
        x = paddle.to_tensor([1 + 1j] if dt.startswith("c") else [1.0], dtype=dt)
        r = [x + c, c + x, x - c, c - x, x * c, c * x]
        out[dt] = [(str(t.dtype).split(".")[-1], t.numpy().tolist()) for t in r]
    out["to_tensor"] = paddle.to_tensor(c, dtype="complex128").numpy().tolist()
    assert out == SCALAR_C[version]


# printed by real 3.3.1 and 2.6.2 here (identical): paddle.exp of these complex128 values, and
# the gradient of exp(x) with ones (dout * conj(out)); the float32 parts through glibc's
# expf/cosf/sinf, products in double (exp(0.5) is float32's e^0.5)
EXP_IN = [0.1+0.7j, -1.3+2.1j, 3.7-0.2j, 0.5, 1e-3+1e-3j, -20.5+5j]
EXP_OUT = [(0.8452814058789073+0.7119706641094155j), (-0.13758660277956025+0.2352520251618806j),
           (39.64105512295441-8.03563946965295j), (1.6487212181091309+0j),
           (1.0010000462529547+0.0010010004545803752j),
           (3.5462111344032393e-10-1.198801957763317e-09j)]


def test_complex128_exp_as_paddles_kernel(version):
    import numpy as np

    import gradrepl.paddle as paddle

    x = paddle.to_tensor(np.array(EXP_IN), dtype="complex128", stop_gradient=False)
    y = paddle.exp(x)
    y.backward(paddle.ones_like(y))
    assert np.array(y.numpy()).tobytes() == np.array(EXP_OUT).tobytes()
    assert x.grad.numpy().tolist() == [complex(v.real, -v.imag) for v in EXP_OUT]
    assert str(x.grad.numpy().tolist()[3]) == "(1.6487212181091309+0j)"


# md5 (first 10 hex) of q = a / b, a.grad, b.grad (elements 3 on: the first three divide by 0,
# 1e-25j and 3, NaN payloads aside equal too) printed by real 2.6.2 here: for complex64 then
# complex128, a, b, g = (standard_normal(3000) + 1j * standard_normal(3000)) each, drawn in that
# order from default_rng(4), b[:3] = [0, 1e-25j, 3]; q.backward(g). 2.6.2's complex quotient is
# the naive one and its dy is -(dout * conj(out / y)) (profile field complex_divide)
DIV_26 = [("bc8b0d66ad", "fadef09769", "29d5db1841"), ("42914f9633", "6eb0bef80e", "63f32f3b7f")]


def test_complex_division_under_26():
    import hashlib

    import numpy as np

    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile("2.6")
    rng = np.random.default_rng(4)
    got = []
    with np.errstate(all="ignore"):
        for dt in ("complex64", "complex128"):
            a, b = (rng.standard_normal(3000) + 1j * rng.standard_normal(3000) for _ in range(2))
            b[:3] = [0, 1e-25j, 3.0]
            x = paddle.to_tensor(a, dtype=dt, stop_gradient=False)
            y = paddle.to_tensor(b, dtype=dt, stop_gradient=False)
            q = x / y
            q.backward(paddle.to_tensor(rng.standard_normal(3000) + 1j * rng.standard_normal(3000),
                                        dtype=dt))
            got.append(tuple(hashlib.md5(t.numpy()[3:].tobytes()).hexdigest()[:10]
                             for t in (q, x.grad, y.grad)))
    assert got == DIV_26


def test_full_with_a_complex_number(version):
    """Real 2.6.2: paddle.full([2], 0.3+0.2j, dtype='complex128') raises TypeError "float()
    argument must be a string or a real number, not 'complex'" (fill_constant's float(value));
    full_like fills it. Real 3.3.1 fills [(0.3+0.2j), (0.3+0.2j)] exactly."""
    import pytest

    import gradrepl.paddle as paddle

    x = paddle.to_tensor([1 + 2j], dtype="complex64")
    assert paddle.full_like(x, 1 + 1j).numpy().tolist() == [(1 + 1j)]
    if version == "2.6":
        with pytest.raises(TypeError, match="not 'complex'"):
            paddle.full([2], 0.3 + 0.2j, dtype="complex128")
    else:
        assert paddle.full([2], 0.3 + 0.2j, dtype="complex128").numpy().tolist() == [
            (0.3 + 0.2j), (0.3 + 0.2j)]


def test_complex_product_each_part_rounded(version):
    """x * y of complex64 tensors as Paddle's C++ product (ac - bd) + (ad + bc)i, each product
    rounded (engine multiply; numpy's SIMD loop contracts with FMAs: 56% equal). md5 (12 hex) of
    real 3.3.1's and 2.6.2's (A * B).numpy() (identical) and of the broadcast product
    A[:4000:2].reshape([2000, 1]) * B[:3].reshape([1, 3]) (3.3.1), a and b drawn from
    default_rng(5) as (standard_normal(4000) + 1j * standard_normal(4000)).astype('complex64')."""
    import hashlib

    import numpy as np

    import gradrepl.paddle as paddle

    rng = np.random.default_rng(5)
    a = (rng.standard_normal(4000) + 1j * rng.standard_normal(4000)).astype("complex64")
    b = (rng.standard_normal(4000) + 1j * rng.standard_normal(4000)).astype("complex64")
    A, B = paddle.to_tensor(a), paddle.to_tensor(b)
    assert hashlib.md5((A * B).numpy().tobytes()).hexdigest()[:12] == "76825d9f4615"
    bc = A[:4000:2].reshape([2000, 1]) * B[:3].reshape([1, 3])
    assert hashlib.md5(bc.numpy().tobytes()).hexdigest()[:12] == "a65210feb228"
