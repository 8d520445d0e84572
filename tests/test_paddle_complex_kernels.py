"""Paddle's kernels without complex dtypes, per version (issue 28, CXSWEEP).

``paddle/complex_kernels.TABLE``: a complex tensor handed to a function whose CPU kernel has no
complex64/complex128 raises Paddle's NotFound error with the dtypes that version lists (2.6.2
lacks many: log, sqrt, square, reciprocal, sign, x ** n, less_than, cumsum ...; both lack rsqrt,
clip, maximum, floor, lerp, atan2, max, mv, bmm, dist, allclose ...). gradrepl computed numpy's
values for all of them. 3.x's cumsum takes complex values (gradrepl refused them); asinh/acosh/
atanh of complex values kept their dtype (they were cast to float32, dropping the imaginary part).

The expected lines are real Paddle 3.3.1's and 2.6.2's output of PROBE on this project's Intel
Sapphire Rapids Xeon (each error's first line).
"""
from __future__ import annotations

import contextlib
import io

import pytest

PROBE = r"""
a = paddle.to_tensor([1.5+2j, -0.5-1j, 3+0j], dtype="complex64")
b = paddle.to_tensor([0.25-1j, 2+0.5j, -1.5+4j], dtype="complex128")
m = paddle.to_tensor([[2+1j, 0.5-1j], [1-1j, 3+0j]], dtype="complex128")
cases = [lambda: paddle.rsqrt(a), lambda: paddle.clip(b, 0, 1), lambda: paddle.maximum(a, a), lambda: paddle.floor(b),
         lambda: paddle.allclose(a, a), lambda: paddle.lerp(b, b, 0.3), lambda: paddle.atan2(a, a), lambda: a.max(),
         lambda: paddle.mv(m, b[:2]), lambda: paddle.dist(a, a), lambda: paddle.bmm(m[None], m[None]),
         lambda: paddle.log(a), lambda: paddle.sqrt(b), lambda: a ** 2, lambda: 2 ** a, lambda: a.square(),
         lambda: paddle.sign(b), lambda: paddle.linalg.inv(m), lambda: paddle.linalg.det(m), lambda: paddle.reciprocal(a),
         lambda: a < a, lambda: paddle.cumsum(a, 0), lambda: paddle.nonzero(a), lambda: paddle.where(a.real() > 0, a, a),
         lambda: paddle.linalg.solve(m, m), lambda: paddle.linalg.svdvals(m), lambda: paddle.linalg.multi_dot([m, m, m]),
         lambda: paddle.asinh(a), lambda: paddle.acosh(b), lambda: paddle.atanh(a)]
for i, f in enumerate(cases):
    try:
        r = f()
        print(i, r.dtype, r.shape)
    except (RuntimeError, AttributeError) as e:
        print(i, str(e).split("\n")[0])
"""

EXPECTED = {
    "3": """\
0 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `rsqrt` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: float64, float32.
1 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `clip` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: int32, int64, float64, float32.
2 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `maximum` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int64, float64, float32, int32, bfloat16.
3 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `floor` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: int16, float64, float16, float32, int32, uint8, bfloat16, int64, int8.
4 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `allclose` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float32, bool.
5 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `lerp` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
6 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `atan2` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float16, float32.
7 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `max` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float32.
8 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `mv` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
9 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `dist` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: float64, float32.
10 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `bmm` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
11 paddle.complex64 paddle.Size([3])
12 paddle.complex128 paddle.Size([3])
13 paddle.complex64 paddle.Size([3])
14 paddle.complex64 paddle.Size([3])
15 paddle.complex64 paddle.Size([3])
16 paddle.complex128 paddle.Size([3])
17 paddle.complex128 paddle.Size([2, 2])
18 paddle.complex128 paddle.Size([])
19 paddle.complex64 paddle.Size([3])
20 paddle.bool paddle.Size([3])
21 paddle.complex64 paddle.Size([3])
22 paddle.int64 paddle.Size([3, 1])
23 paddle.complex64 paddle.Size([3])
24 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `solve` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
25 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `svdvals` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
26 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `multi_dot` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
27 paddle.complex64 paddle.Size([3])
28 paddle.complex128 paddle.Size([3])
29 paddle.complex64 paddle.Size([3])
""",
    "2.6": """\
0 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `rsqrt` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: float64, float32.
1 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `clip` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: int32, int64, float64, float32.
2 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `maximum` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int64, float64, float32, int32, bfloat16.
3 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `floor` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
4 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `allclose` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: float64, float32.
5 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `lerp` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
6 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `atan2` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float16, float32.
7 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `max` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float32.
8 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `mv` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
9 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `dist` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: float64, float32.
10 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `bmm` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
11 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `log` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int64, float64, float16, float32, int32, bfloat16.
12 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `sqrt` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
13 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `pow` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float32.
14 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `elementwise_pow` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int64, float64, float32, int32, bfloat16.
15 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `square` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float32.
16 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `sign` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: int16, float64, int32, uint8, float32, int64, int8.
17 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `inverse` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
18 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `determinant` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
19 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `reciprocal` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: float64, float32.
20 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `less_than` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int16, float64, float16, float32, int32, uint8, bfloat16, bool, int64, int8.
21 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `cumsum` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, int16, float64, float32.
22 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `nonzero` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int64, int16, float64, float32, bool, int32, bfloat16.
23 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `where` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float32.
24 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `solve` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
25 module 'paddle.linalg' has no attribute 'svdvals'
26 (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `multi_dot` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: float64, float32.
27 paddle.complex64 [3]
28 paddle.complex128 [3]
29 paddle.complex64 [3]
""",
}

INVERSE_HYPERBOLIC = r"""
for dt in ("complex64", "complex128"):
    a = paddle.to_tensor([1.5+2j, -0.5-1j, 3+0j], dtype=dt, stop_gradient=False)
    for f in (paddle.asinh, paddle.acosh, paddle.atanh):
        r = f(a); print(r.numpy().tolist(), r.dtype)
    paddle.asinh(a).real().sum().backward(); print(a.grad.numpy().tolist())
"""

# real Paddle 3.3.1: the values (the complex64 gradient's last bits are left out)
INVERSE_HYPERBOLIC_EXPECTED = """\
[(1.6004101037979126+0.887765109539032j), (-0.7328576445579529-0.8959074020385742j), (1.8184465169906616+0j)] paddle.complex64
[(1.622494101524353+0.9642847776412964j), (0.9261330962181091-1.920235276222229j), (1.7627471685409546+0j)] paddle.complex64
[(0.22008968889713287+1.2452579736709595j), (-0.23887786269187927-0.8475756645202637j), (0.3465735912322998+1.5707963705062866j)] paddle.complex64
[(1.6004100552346137+0.8877651461839051j), (-0.7328576759736453-0.8959074812088902j), (1.8184464592320668+0j)] paddle.complex128
[(1.6224941488715938+0.9642848085951418j), (0.9261330313501825-1.9202353896521098j), (1.762747174039086+0j)] paddle.complex128
[(0.22008968066202295+1.2452579660726568j), (-0.2388778612568591-0.847575660670829j), (0.34657359027997264+1.5707963267948966j)] paddle.complex128
"""


def _run(probe, version):
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile(version)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(probe, {"paddle": paddle})
    return out.getvalue()


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_complex_kernels_refuse_as_real_paddle(version):
    assert _run(PROBE, version) == EXPECTED[version]


def test_inverse_hyperbolic_functions_keep_complex_values():
    got = _run(INVERSE_HYPERBOLIC, "3").splitlines()
    for line in INVERSE_HYPERBOLIC_EXPECTED.splitlines():
        assert line in got, line


OPTIMIZER = r"""
w = paddle.to_tensor([1+1j, 0.5-2j], dtype="complex64", stop_gradient=False)
for opt in (paddle.optimizer.SGD(learning_rate=0.1, parameters=[w]),
            paddle.optimizer.Adam(learning_rate=0.1, parameters=[w])):
    loss = (w * w.conj()).real().sum()
    loss.backward()
    try:
        opt.step()
    except RuntimeError as e:
        print(str(e).split("\n")[0])
    opt.clear_grad()
"""

# real Paddle 3.3.1 and 2.6.2 (the first line of each error)
OPTIMIZER_EXPECTED = """\
(NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `sgd` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: float64, float32, bfloat16.
(NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `adam` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: float64, float32.
"""


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_sgd_and_adam_refuse_complex_parameters(version):
    assert _run(OPTIMIZER, version) == OPTIMIZER_EXPECTED


ALIGN = r"""
a = paddle.to_tensor([1.5+2j, -0.5-1j, 3+0j], dtype="complex64")
for other in (paddle.to_tensor([1, 2, 3]), paddle.to_tensor([True, False, True]),
              paddle.to_tensor([1., 2., 3.], dtype="float16"), paddle.to_tensor([1., 2., 3.])):
    for f in (lambda: a * other, lambda: other + a):
        try:
            print(f().dtype)
        except RuntimeError as e:
            print(str(e).split("\n")[0])
"""

# real Paddle 2.6.2: only float32/float64 operands are aligned with a complex one
ALIGN_EXPECTED_26 = """\
(Unavailable) Only supports to align data type include float32, float64, complex64 and complex128, but received data type is `s`.int64_t (at /paddle/paddle/fluid/framework/data_type.cc:128)
(Unavailable) Only supports to align data type include float32, float64, complex64 and complex128, but received data type is `s`.int64_t (at /paddle/paddle/fluid/framework/data_type.cc:128)
(Unavailable) Only supports to align data type include float32, float64, complex64 and complex128, but received data type is `s`.bool (at /paddle/paddle/fluid/framework/data_type.cc:128)
(Unavailable) Only supports to align data type include float32, float64, complex64 and complex128, but received data type is `s`.bool (at /paddle/paddle/fluid/framework/data_type.cc:128)
(Unavailable) Only supports to align data type include float32, float64, complex64 and complex128, but received data type is `s`.::paddle::platform::float16 (at /paddle/paddle/fluid/framework/data_type.cc:128)
(Unavailable) Only supports to align data type include float32, float64, complex64 and complex128, but received data type is `s`.::paddle::platform::float16 (at /paddle/paddle/fluid/framework/data_type.cc:128)
paddle.complex64
paddle.complex64
"""


def test_paddle_26_aligns_only_floats_with_complex():
    assert _run(ALIGN, "2.6") == ALIGN_EXPECTED_26
