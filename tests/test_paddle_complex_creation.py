"""Paddle's complex creation, dtypes and their errors, per version (issue 28, CXSWEEP), against
real Paddle 3.3.1 and 2.6.2 here: full() with a complex fill and no dtype is complex128 (3.x; was
the default float dtype, dropping the imaginary part); to_tensor of a numpy complex scalar keeps
it (was refused) and a Python complex follows the default dtype (complex128 under float64);
finfo of a complex dtype is its parts' (bits 32, dtype float32); arange/linspace with a complex
dtype, complex() of integers and as_real of a real tensor raise the kernels' NotFound errors;
complex() of mixed float dtypes, as_complex of a last axis other than 2 and concat of mixed
dtypes raise Paddle's messages with their hint lines; any/all of complex values (3.x).
EXPECTED: real Paddle's output of PROBE on this project's Intel Sapphire Rapids Xeon.
"""
from __future__ import annotations

import contextlib
import io

import pytest

PROBE = r"""
cases = [lambda: paddle.full([2], 1+2j), lambda: paddle.to_tensor(np.complex64(1+2j)), lambda: paddle.to_tensor(np.complex128(1+2j)),
         lambda: paddle.finfo(paddle.complex64), lambda: paddle.finfo('complex128'), lambda: paddle.arange(0, 3, dtype="complex64"),
         lambda: paddle.linspace(0, 1, 4, dtype="complex128"), lambda: paddle.complex(paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4])),
         lambda: paddle.complex(paddle.to_tensor([1.]), paddle.to_tensor([3.], dtype='float64')), lambda: paddle.as_complex(paddle.zeros([3])),
         lambda: paddle.as_real(paddle.zeros([3])), lambda: paddle.concat([paddle.to_tensor([1+1j]), paddle.to_tensor([2.])])]
for f in cases:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e))
z = paddle.to_tensor([1+2j, 0j], dtype="complex64")
try:
    print(z.any(), z.all(), paddle.any(z, 0))
except Exception as e:
    print(type(e).__name__, str(e))
paddle.set_default_dtype('float64'); print(paddle.to_tensor([1+2j]).dtype, paddle.to_tensor(1j).dtype)
paddle.set_default_dtype('float32')
"""

EXPECTED = {
    "3": """\
Tensor(shape=[2], dtype=complex128, place=Place(cpu), stop_gradient=True,
       [(1.00000000+2.00000000j), (1.00000000+2.00000000j)])
Tensor(shape=[], dtype=complex64, place=Place(cpu), stop_gradient=True,
       (1.00000000+2.00000000j))
Tensor(shape=[], dtype=complex128, place=Place(cpu), stop_gradient=True,
       (1.00000000+2.00000000j))
paddle.finfo(min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, resolution=1e-06, smallest_normal=1.17549e-38, tiny=1.17549e-38, bits=32, dtype=float32)
paddle.finfo(min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, resolution=1e-15, smallest_normal=2.22507e-308, tiny=2.22507e-308, bits=64, dtype=float64)
RuntimeError (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `arange_tensor` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float32.
  [Hint: Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:317)

RuntimeError (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `linspace` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: int32, float64, int64, float32.
  [Hint: Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:317)

RuntimeError (NotFound) The kernel with key (CPU, Undefined(AnyLayout), int64) of kernel `complex` is not registered. Selected wrong DataType `int64`. Paddle support following DataTypes: float64, float32.
  [Hint: Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:317)

ValueError (InvalidArgument) The type of data we are trying to retrieve (float32) does not match the type of data (float64) currently contained in the container.
  [Hint: Expected dtype() == phi::CppTypeToDataType<T>::Type(), but received dtype():11 != phi::CppTypeToDataType<T>::Type():10.] (at /paddle/paddle/phi/core/dense_tensor.cc:153)

ValueError (InvalidArgument) The size of the last dimension of input(X)does not equals 2.Expected the size of last dimension of input(X) to be 2.But received 3
  [Hint: Expected last_dim_size == 2, but received last_dim_size:3 != 2:2.] (at /paddle/paddle/phi/infermeta/unary.cc:425)

RuntimeError (NotFound) The kernel with key (CPU, Undefined(AnyLayout), float32) of kernel `as_real` is not registered. Selected wrong DataType `float32`. Paddle support following DataTypes: complex128, complex64.
  [Hint: Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:317)

ValueError (InvalidArgument) The data_type of input tensor in list isn't consistent, the first tensor is complex64, but 1th tensor is float32. (at /paddle/paddle/phi/api/lib/kernel_dispatch.cc:133)

Tensor(shape=[], dtype=bool, place=Place(cpu), stop_gradient=True,
       True) Tensor(shape=[], dtype=bool, place=Place(cpu), stop_gradient=True,
       False) Tensor(shape=[], dtype=bool, place=Place(cpu), stop_gradient=True,
       True)
paddle.complex128 paddle.complex128
""",
    "2.6": """\
TypeError float() argument must be a string or a real number, not 'complex'
Tensor(shape=[], dtype=complex64, place=Place(cpu), stop_gradient=True,
       (1+2j))
Tensor(shape=[], dtype=complex128, place=Place(cpu), stop_gradient=True,
       (1+2j))
paddle.finfo(min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, resolution=1e-06, smallest_normal=1.17549e-38, tiny=1.17549e-38, bits=32, dtype=float32)
paddle.finfo(min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, resolution=1e-15, smallest_normal=2.22507e-308, tiny=2.22507e-308, bits=64, dtype=float64)
RuntimeError (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `arange_tensor` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float32.
  [Hint: Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:262)

RuntimeError (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex128) of kernel `linspace` is not registered. Selected wrong DataType `complex128`. Paddle support following DataTypes: int32, float64, int64, float32.
  [Hint: Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:262)

RuntimeError (NotFound) The kernel with key (CPU, Undefined(AnyLayout), int64) of kernel `complex` is not registered. Selected wrong DataType `int64`. Paddle support following DataTypes: float64, float32.
  [Hint: Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:262)

ValueError (InvalidArgument) The type of data we are trying to retrieve (float32) does not match the type of data (float64) currently contained in the container.
  [Hint: Expected dtype() == phi::CppTypeToDataType<T>::Type(), but received dtype():11 != phi::CppTypeToDataType<T>::Type():10.] (at /paddle/paddle/phi/core/dense_tensor.cc:171)

ValueError (InvalidArgument) The size of the last dimension of input(X)does not equals 2.Expected the size of last dimension of input(X) to be 2.But received 3
  [Hint: Expected last_dim_size == 2, but received last_dim_size:3 != 2:2.] (at /paddle/paddle/phi/infermeta/unary.cc:356)

RuntimeError (NotFound) The kernel with key (CPU, Undefined(AnyLayout), float32) of kernel `as_real` is not registered. Selected wrong DataType `float32`. Paddle support following DataTypes: complex128, complex64.
  [Hint: Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:262)

ValueError (InvalidArgument) The data_type of input tensor in list isn't consistent, the first tensor is complex64, but 1th tensor is float32. (at /paddle/paddle/phi/api/lib/kernel_dispatch.cc:134)

RuntimeError (NotFound) The kernel with key (CPU, Undefined(AnyLayout), complex64) of kernel `any` is not registered. Selected wrong DataType `complex64`. Paddle support following DataTypes: int32, int64, float64, float32, bool.
  [Hint: Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at /paddle/paddle/phi/core/kernel_factory.cc:262)

paddle.complex128 paddle.complex128
""",
}


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_complex_creation_as_real_paddle(version):
    import numpy as np

    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile(version)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROBE, {"paddle": paddle, "np": np})
    paddle.set_default_dtype("float32")
    assert out.getvalue() == EXPECTED[version]


REDUCTIONS = r"""
for dt in ("complex64", "complex128"):
    a = paddle.to_tensor([[1.5+2j, -0.5-1j, 3+0j], [0.25-1j, 2+0.5j, -1.5+4j]], dtype=dt)
    for name, f in [("prod", lambda: a.prod()), ("prod1", lambda: paddle.prod(a, 1)), ("cumprod", lambda: paddle.cumprod(a, 1)), ("norm", lambda: paddle.linalg.norm(a)),
                    ("vnorm1", lambda: paddle.linalg.vector_norm(a, 1)), ("cdist", lambda: paddle.cdist(a, a)), ("norm2", lambda: paddle.linalg.norm(a, 2)), ("nuc", lambda: paddle.linalg.norm(a, 'nuc')),
                    ("mnorm1", lambda: paddle.linalg.matrix_norm(a, 1)), ("nansum", lambda: paddle.nansum(a))]:
        try:
            r = f(); print(name, r.dtype, r.numpy().tolist())
        except Exception as e:
            print(name, type(e).__name__, str(e).split("\n")[0][:200])
"""

# real Paddle 3.3.1: complex prod/cumprod and the norms of complex values (real tensors); the
# nuclear norm and nansum of complex values are left out (gradrepl refuses them yet)
REDUCTIONS_EXPECTED = """\
prod paddle.complex64 (73.59375-19.453125j)
prod1 paddle.complex64 [(3.75-7.5j), (6+6.8125j)]
cumprod paddle.complex64 [[(1.5+2j), (1.25-2.5j), (3.75-7.5j)], [(0.25-1j), (1-1.875j), (6+6.8125j)]]
norm paddle.float32 6.329494476318359
vnorm1 paddle.float32 13.982364654541016
cdist paddle.float32 [[0.0, 7.43723726272583], [7.43723726272583, 0.0]]
norm2 paddle.float32 6.329494476318359
mnorm1 paddle.float32 7.27200174331665
prod paddle.complex128 (73.59375-19.453125j)
prod1 paddle.complex128 [(3.75-7.5j), (6+6.8125j)]
cumprod paddle.complex128 [[(1.5+2j), (1.25-2.5j), (3.75-7.5j)], [(0.25-1j), (1-1.875j), (6+6.8125j)]]
norm paddle.float64 6.329494450586082
vnorm1 paddle.float64 13.982365080621907
cdist paddle.float64 [[0.0, 7.437237390321759], [7.437237390321759, 0.0]]
norm2 paddle.float64 6.329494450586082
mnorm1 paddle.float64 7.272001872658765
"""


def test_complex_reductions_in_paddle_3():
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile("3")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(REDUCTIONS, {"paddle": paddle})
    got = out.getvalue().splitlines()
    for line in REDUCTIONS_EXPECTED.splitlines():
        assert line in got, line


POWERS = r"""
for dt in ("complex64", "complex128"):
    a = paddle.to_tensor([1.5+2j, -0.5-1j, 3+0j], dtype=dt); b = paddle.to_tensor([0.25-1j, 2+0.5j, -1.5+4j], dtype=dt)
    for f in (lambda: a**2, lambda: a**3, lambda: a**-1, lambda: a**0.5, lambda: a**2.5, lambda: 2**a, lambda: 2.5**a, lambda: a**b, lambda: paddle.pow(a, 2), lambda: a**paddle.to_tensor([2., 3., 0.5]), lambda: paddle.to_tensor([2., 3., 0.5])**a, lambda: a**0):
        try:
            print(f().numpy().tolist())
        except Exception as e:
            print(type(e).__name__, str(e).split("\n")[0][:150])
"""

# real Paddle 3.3.1: std::pow of complex values, exp(y * log(x)) for every exponent
POWERS_EXPECTED = """\
[(-1.75+6.000000476837158j), (-0.7500001788139343+0.9999998807907104j), (9+0j)]
[(-14.625000953674316+5.500000953674316j), (1.3749998807907104+0.25000032782554626j), (27.000001907348633+0j)]
[(0.23999999463558197-0.3199999928474426j), (-0.3999999463558197+0.800000011920929j), (0.3333333134651184+0j)]
[(1.4142135381698608+0.7071067690849304j), (0.5558930039405823-0.8994536995887756j), (1.7320507764816284+0j)]
[(-6.717514514923096+7.24784517288208j), (0.482533723115921+1.2304832935333252j), (15.588458061218262+0j)]
[(0.5188946723937988+2.7804222106933594j), (0.5439340472221375-0.45181381702423096j), (8+0j)]
[(-1.0230180025100708+3.818171739578247j), (0.38501808047294617-0.5017579793930054j), (15.625000953674316+0j)]
[(2.4624602794647217-2.0095555782318115j), (-2.22509503364563+2.645552396774292j), (-0.06016186997294426-0.18280477821826935j)]
[(-1.75+6.000000476837158j), (-0.7500001788139343+0.9999998807907104j), (9+0j)]
[(-1.75+6.000000476837158j), (1.3749998807907104+0.25000032782554626j), (1.7320507764816284+0j)]
[(0.5188946723937988+2.7804222106933594j), (0.26259762048721313-0.5141748785972595j), (0.125+0j)]
[(1+0j), (1+0j), (1+0j)]
[(-1.7499999999999998+6.000000000000001j), (-0.7500000000000001+0.9999999999999999j), (9.000000000000002+0j)]
[(-14.625+5.500000000000004j), (1.375+0.2500000000000001j), (27+0j)]
[(0.24000000000000002-0.31999999999999995j), (-0.39999999999999997+0.7999999999999999j), (0.3333333333333333+0j)]
[(1.4142135623730951+0.7071067811865476j), (0.5558929702514211-0.8994537199739335j), (1.7320508075688774+0j)]
[(-6.7175144212722+7.247844507162115j), (0.48253399228536825+1.2304832602318712j), (15.588457268119901+0j)]
[(0.5188946835878313+2.780422325357118j), (0.5439340435069545-0.4518138513969825j), (7.999999999999998+0j)]
[(-1.0230176933708788+3.818171656572047j), (0.3850181087127469-0.5017579655204882j), (15.625000000000002+0j)]
[(2.4624604136179666-2.009555357008767j), (-2.225095447878233+2.6455523771773652j), (-0.06016188106261292-0.1828047731981992j)]
[(-1.7499999999999998+6.000000000000001j), (-0.7500000000000001+0.9999999999999999j), (9.000000000000002+0j)]
[(-1.7499999999999998+6.000000000000001j), (1.375+0.2500000000000001j), (1.7320508075688774+0j)]
[(0.5188946835878313+2.780422325357118j), (0.26259762175511275-0.5141748947409743j), (0.12500000000000003+0j)]
[(1+0j), (1+0j), (1+0j)]
"""


def test_complex_powers_in_paddle_3():
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile("3")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(POWERS, {"paddle": paddle})
    assert out.getvalue() == POWERS_EXPECTED


PROD_GRADS = r"""
for dt in ("complex64","complex128"):
  a=paddle.to_tensor([1.5+2j, -0.5-1j, 3+0j],dtype=dt,stop_gradient=False); b=paddle.to_tensor([0.25-1j, 2+0.5j, -1.5+4j],dtype=dt,stop_gradient=False)
  (a.sum()*b.prod()).abs().backward(); print(a.grad.numpy().tolist(), b.grad.numpy().tolist())
  a.clear_grad(); paddle.cumprod(a,0).abs().sum().backward(); print(a.grad.numpy().tolist())
"""

# real Paddle 3.3.1: prod's complex gradient is not conjugated (torch's is), cumprod's is
PROD_GRADS_EXPECTED = """\
[(8.806957244873047+2.2017393112182617j), (8.806957244873047+2.2017393112182617j), (8.806957244873047+2.2017393112182617j)] [(-36.05813980102539+4.286383628845215j), (2.1431918144226074+18.029069900512695j), (8.526638984680176-2.0154519081115723j)]
[(3.2832815647125244+4.377708435058594j), (-4.472136497497559-8.944271087646484j), (2.7950849533081055+0j)]
[(8.80695747690427+2.201739369226067j), (8.80695747690427+2.201739369226067j), (8.80695747690427+2.201739369226067j)] [(-36.05813935547993+4.286383816317628j), (2.143191908158814+18.029069677739965j), (8.526639329976213-2.015451993102991j)]
[(3.283281572999748+4.377708763999664j), (-4.47213595499958-8.94427190999916j), (2.7950849718747373+0j)]
"""


def test_complex_prod_and_cumprod_gradients_in_paddle_3():
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile("3")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROD_GRADS, {"paddle": paddle})
    assert out.getvalue() == PROD_GRADS_EXPECTED


def test_complex_tanh_gradient_conjugated_in_paddle_3():
    import numpy as np

    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile("3")
    a = paddle.to_tensor([1.5+2j, -0.5-1j, 3+0j], dtype="complex128", stop_gradient=False)
    paddle.tanh(a).real().sum().backward()
    # real Paddle 3.3.1: [-0.12594059-0.1710953j, 0.56355523+1.68287312j, 0.00986604+0.j]
    np.testing.assert_allclose(a.grad.numpy(), [-0.12594059 - 0.1710953j,
                                                0.56355523 + 1.68287312j, 0.00986604 + 0j],
                               atol=1e-8)
