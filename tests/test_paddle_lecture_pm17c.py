"""Issue 28, Paddle lecture round 17 (group C: PaddleGAN blocks, PaddleOCR SVTR/PP-LCNet/CTC/DB,
DETR-style heads, paddle.Tensor method tours): each difference found, checked against what real
Paddle 3.3.1 and 2.6.2 printed here (recorded in the comments).
"""
import math

import pytest

import gradrepl.paddle as paddle

# ------------------------------------------------ paddle.full with a string fill value
# SVTR's local-attention mask: paddle.full([H * W, H * W], '-inf', dtype='float32').
# real 3.3.1 (this session): the C++ scalar's parse of the string
FULL_STR_3 = [
    ("-inf", "float32", [-math.inf]), ("inf", None, [math.inf]), ("1.5", "float64", [1.5]),
    ("a", "float32", [0.0]), ("", "float32", [0.0]), ("0x10", "float32", [0.0]),
    ("Inf", "float32", [0.0]), ("NaN", "float32", [0.0]), ("infinity", "float32", [0.0]),
    ("+inf", "float64", [0.0]), ("-nan", "float64", [0.0]), ("true", "float64", [0.0]),
    ("True", "float32", [1.0]), ("True", "bool", [True]), ("a", "bool", [False]),
    ("1.5abc", "float32", [1.5]), (" 2 ", "float32", [2.0]), ("1_000", "float32", [1.0]),
    ("1e3", None, [1000.0]), ("1e", "float64", [0.0]), ("1e+2x", "float64", [100.0]),
    ("1e400", "float64", [1.7976931348623157e+308]),
    ("-1e400", "float64", [-1.7976931348623157e+308]), ("1e-400", "float64", [0.0]),
    (".5", "float64", [0.5]), ("5.", "float64", [5.0]), ("+3", "float64", [3.0]),
    ("--1", "float64", [0.0]), ("2.5", "int64", [2]), ("3", "int64", [3]),
    ("1.5", "float16", [1.5]), ("0.1", "float32", [0.10000000149011612]),
]
# real 2.6.2 (this session): Python's float(value), then the dtype
FULL_STR_26 = [
    ("-inf", "float32", [-math.inf]), ("Inf", "float32", [math.inf]),
    ("infinity", "float32", [math.inf]), ("1e400", "float64", [math.inf]),
    ("1_000", "float32", [1000.0]), (" 2 ", "float32", [2.0]), ("2.5", "int64", [2]),
    ("0", "bool", [False]), ("1e3", None, [1000.0]),
]
FULL_STR_26_ERRORS = ["a", "True", "", "0x10", "1.5abc"]


@pytest.mark.parametrize("case", FULL_STR_3)
def test_full_string_value_3(case):
    from gradrepl.paddle import profiles

    profiles.set_profile("3")
    text, dtype, want = case
    assert paddle.full([1], text, dtype=dtype).numpy().tolist() == want


@pytest.mark.parametrize("case", FULL_STR_26)
def test_full_string_value_26(case):
    from gradrepl.paddle import profiles

    profiles.set_profile("2.6")
    text, dtype, want = case
    assert paddle.full([1], text, dtype=dtype).numpy().tolist() == want


@pytest.mark.parametrize("text", FULL_STR_26_ERRORS)
def test_full_string_error_26(text):
    from gradrepl.paddle import profiles

    profiles.set_profile("2.6")
    with pytest.raises(ValueError) as got:
        paddle.full([1], text, dtype="float32")
    assert str(got.value) == f"could not convert string to float: {text!r}"


# ------------------------------------------------ 2.6's where() with unequal shapes promotes in add
# A tensor tour's paddle.where(x > 5, x, -1.0) on float32 x: 2.6.2 makes y a [1] float64 tensor
# and broadcasts in Python with paddle.add, so the promotion's glog line is add's
# (dygraph_functions.cc:52647, real 2.6.2 here); equal shapes log where's own (51846).
@pytest.mark.parametrize("same_shape, where", [(False, "dygraph_functions.cc:52647"),
                                               (True, "dygraph_functions.cc:51846")])
def test_where_promotion_glog_line_26(capsys, monkeypatch, same_shape, where):
    from gradrepl.paddle import glog, profiles

    profiles.set_profile("2.6")
    monkeypatch.setattr(glog, "_promoted", set())
    x = paddle.arange(12, dtype="float32").reshape([3, 4])
    y = paddle.zeros([3, 4], "float64") if same_shape else -1.0
    out = paddle.where(x > 5, x, y)
    assert out.dtype == paddle.float64
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("W")]
    assert len(err) == 1 and err[0].split()[3] == where + "]"
    assert err[0].endswith("] got different data type, run type protmotion automatically, "
                           "this may cause data type been changed.")


# ------------------------------------------------ float16 on CPU: which kernels refuse it, and how
# A tensor tour's fp16 half: h.mean() raised in real Paddle (both versions) with the kernel's
# dtypes in its registration order. Real 3.3.1 / 2.6.2 here, paddle.to_tensor([...], 'float16'):
_F16 = "Paddle support following DataTypes: "
F16_REFUSED = {
    "3": [("mean", lambda h: h.mean(), "int32, int64, float64, complex128, float32, complex64, bool"),
          ("prod", lambda h: paddle.prod(h), "int32, int64, float64, complex128, float32, complex64"),
          ("all", lambda h: paddle.all(h),
           "int32, int64, float64, complex128, float32, complex64, bool"),
          ("cumprod", lambda h: paddle.cumprod(h, 0),
           "int32, int64, float64, complex128, float32, complex64"),
          ("median", lambda h: paddle.median(h, mode="min"), "int32, int64, float64, float32"),
          ("nanmedian", lambda h: paddle.nanmedian(h), "int32, int64, float64, float32")],
    "2.6": [("mean", lambda h: h.mean(),
             "int32, int64, float64, complex128, float32, complex64, bool"),
            ("cumprod", lambda h: paddle.cumprod(h, 0),
             "int32, int64, float64, complex128, float32, complex64"),
            ("topk", lambda h: paddle.median(h), "int32, int64, float64, float32"),
            ("argsort", lambda h: paddle.sort(h), "int32, int64, float64, float32"),
            ("argsort", lambda h: paddle.quantile(h, 0.5), "int32, int64, float64, float32"),
            ("nanmedian", lambda h: paddle.nanmedian(h), "int32, int64, float64, float32")],
}


@pytest.mark.parametrize("key, i", [(k, i) for k, rows in F16_REFUSED.items()
                                    for i in range(len(rows))])
def test_float16_refusals(key, i):
    from gradrepl.paddle import profiles

    profiles.set_profile(key)
    kernel, call, listed = F16_REFUSED[key][i]
    h = paddle.to_tensor([0.5, 0.25, 3.0, 1.0], dtype="float16")
    with pytest.raises(RuntimeError) as got:
        call(h)
    first = str(got.value).split("\n")[0]
    assert first == (f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), float16) of "
                     f"kernel `{kernel}` is not registered. Selected wrong DataType `float16`. "
                     f"{_F16}{listed}.")


def test_float16_median_avg_and_sorts_3():
    # real 3.3.1: median's 'avg' computes float16 in float32; argsort has float16, int16, uint8
    # kernels (2.6.2 refuses them: int32, int64, float64, float32) and lists them so for bool
    from gradrepl.paddle import profiles

    profiles.set_profile("3")
    h = paddle.to_tensor([0.5, 0.25, 3.0, 1.0], dtype="float16")
    m = paddle.median(h)
    assert (m.dtype, m.item()) == (paddle.float32, 0.75)
    assert paddle.median(h.reshape([2, 2]), axis=1).numpy().tolist() == [0.375, 2.0]
    for dt in ("int16", "uint8", "float16"):
        assert paddle.argsort(paddle.to_tensor([3, 1, 2]).astype(dt)).numpy().tolist() == [1, 2, 0]
    with pytest.raises(RuntimeError) as got:
        paddle.argsort(paddle.to_tensor([True, False]))
    assert str(got.value).split("\n")[0].endswith(
        f"{_F16}int64, int16, float64, float16, float32, int32, uint8, bfloat16.")
    profiles.set_profile("2.6")
    for dt in ("int16", "uint8"):
        with pytest.raises(RuntimeError) as got:
            paddle.argsort(paddle.to_tensor([3, 1, 2]).astype(dt))
        assert str(got.value).split("\n")[0].endswith(f"{_F16}int32, int64, float64, float32.")


# ------------------------------------------------ depthwise transposed conv: Paddle's own op
# StyleGAN2's upsampling by a grouped Conv2DTranspose (groups = channels, one filter each) under
# a path-length penalty: real Paddle runs depthwise_conv2d_transpose, whose grad has no grad op:
# paddle.grad(..., create_graph=True) raises (3.3.1 nodes.cc:13805, 2.6.2 nodes.cc:33456), and
# 3.3.1 first logs "While running Node (DepthwiseConv2dTransposeGradNode) ...". Real runs here.
@pytest.mark.parametrize("key, text, line", [
    ("3", "doesn't have any grad op. If you don't intend calculating higher order derivatives",
     13805),
    ("2.6", "doesn't have any gradop. If you don't intend calculating higher orderderivatives",
     33456)])
def test_depthwise_conv2d_transpose_double_grad_refused(capsys, key, text, line):
    from gradrepl.paddle import profiles

    profiles.set_profile(key)
    up = paddle.nn.Conv2DTranspose(4, 4, 3, stride=2, groups=4, bias_attr=False)
    x = paddle.rand([2, 4, 4, 4])
    x.stop_gradient = False
    y = up(x)
    with pytest.raises(RuntimeError) as got:
        paddle.grad((y * y).sum(), x, create_graph=True)
    assert str(got.value) == (
        f"(Unavailable) The Op depthwise_conv2d_transpose_grad {text}, please set `create_graph`"
        f"to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/"
        f"nodes.cc:{line})\n")
    err = capsys.readouterr().err
    assert ("While running Node (DepthwiseConv2dTransposeGradNode) raises" in err) == (key == "3")
    # groups = channels with two filters each is conv2d_transpose: differentiable twice
    up2 = paddle.nn.Conv2DTranspose(4, 8, 3, stride=2, groups=4, bias_attr=False)
    g, = paddle.grad((up2(x) ** 2).sum(), x, create_graph=True)
    assert g.shape == [2, 4, 4, 4]


# ------------------------------------------------ float16 conversions and sums, 2.x vs 3.x
# A tensor tour's x.astype('float16') of [1.1, 2.2, 3.3, -0.7]: real 2.6.2 printed
# [1.09960938, 2.19921875, 3.29882812, -0.69970703] (its CPU float16 type converts toward zero,
# past 65504 to inf), 3.3.1 rounds to nearest. Sums: 2.6.2 adds in float16 toward zero (Eigen's
# tree past 1024 values), 3.3.1 in float32, rounding once. Real runs here.
F16_CASES = {
    "2.6": {"astype": [1.099609375, 2.19921875, 3.298828125, -0.69970703125],
            "full": [2050.0, 9.5367431640625e-07], "ints": [2050.0, 4096.0],
            "wide": [2050.0, -2050.0, math.inf, math.inf],
            "sums": [65504.0, math.inf, math.inf, 1.4990234375],
            "tree": [1320.0, 657.0, 464.25]},
    "3": {"astype": [1.099609375, 2.19921875, 3.30078125, -0.7001953125],
          "full": [2052.0, 1.0132789611816406e-06], "ints": [2052.0, 4100.0],
          "wide": [2052.0, -2052.0, math.inf, 65504.0],
          "sums": [65504.0, 65504.0, 65504.0, 1.5],
          "tree": [1513.0, 751.5, 507.5]},
}


@pytest.mark.parametrize("key", ["2.6", "3"])
def test_float16_conversion_and_sum(key):
    import numpy as np

    from gradrepl.paddle import profiles

    profiles.set_profile(key)
    want = F16_CASES[key]
    x = paddle.to_tensor([1.1, 2.2, 3.3, -0.7])
    assert x.astype("float16").numpy().tolist() == want["astype"]
    assert paddle.cast(x, "float16").numpy().tolist() == want["astype"]
    assert paddle.full([1], 2051.0, dtype="float16").numpy().tolist() + \
        paddle.full([1], 1e-6, dtype="float16").numpy().tolist() == want["full"]
    assert paddle.to_tensor([2051, 4099]).astype("float16").numpy().tolist() == want["ints"]
    assert paddle.to_tensor([2051.0, -2051.0, 70000.0, 65519.0]).astype(
        "float16").numpy().tolist() == want["wide"]
    sums = [paddle.to_tensor(v, dtype="float16").sum().item()
            for v in ([65504.0], [1.0, 65504.0], [0.1, 0.2, 65504.0], [0.1, 0.2, 0.3, 0.4, 0.5])]
    assert sums == want["sums"]
    a = paddle.to_tensor(np.random.RandomState(0).rand(3000).astype("float32")).astype("float16")
    assert [a.sum().item(), a[:1500].sum().item(), a[:1025].sum().item()] == want["tree"]


# ------------------------------------------------ full(shape, True) without a dtype
# real 3.3.1: Tensor(shape=[2], dtype=bool, ... [True, True]); real 2.6.2: dtype=float32 [1., 1.]
@pytest.mark.parametrize("key, dtype, values", [("3", "bool", [True, True]),
                                                ("2.6", "float32", [1.0, 1.0])])
def test_full_bool_fill_dtype(key, dtype, values):
    from gradrepl.paddle import profiles

    profiles.set_profile(key)
    t = paddle.full([2], True)
    assert (str(t.dtype), t.numpy().tolist()) == (f"paddle.{dtype}", values)


# ------------------------------------------------ more float16 refusals; pybind's argument error
# A tour's fp16 section: abs, clip and matmul have no CPU float16 kernel in real 3.3.1 or 2.6.2,
# topk none in 2.6.2 (their lists as for bfloat16); paddle.bitwise_and(t, True) and paddle.add(x,
# 1.0) name pybind's line (eager_utils.cc:1526 in 3.3.1, :1334 in 2.6.2). Real runs here.
@pytest.mark.parametrize("key", ["3", "2.6"])
def test_float16_kernels_missing_and_arg_error(key):
    from gradrepl.paddle import profiles

    profiles.set_profile(key)
    h = paddle.to_tensor([0.5, -1.25, 3.0, 1000.0], dtype="float16")
    rows = [("abs", lambda: h.abs(), "int32, int64, float64, complex128, float32, complex64"),
            ("clip", lambda: h.clip(-1, 1), "int32, int64, float64, float32"),
            ("matmul", lambda: paddle.matmul(h.reshape([2, 2]), h.reshape([2, 2])),
             "int32, int64, float64, complex128, float32, complex64")]
    if key == "2.6":
        rows.append(("topk", lambda: paddle.topk(h, 2), "int32, int64, float64, float32"))
    else:
        assert paddle.topk(h, 2)[0].numpy().tolist() == [1000.0, 3.0]
    for kernel, call, listed in rows:
        with pytest.raises(RuntimeError) as got:
            call()
        assert str(got.value).split("\n")[0] == (
            f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), float16) of kernel "
            f"`{kernel}` is not registered. Selected wrong DataType `float16`. {_F16}{listed}.")
    line = {"3": 1526, "2.6": 1334}[key]
    with pytest.raises(ValueError) as got:
        paddle.to_tensor([True]) & True
    assert str(got.value) == (
        "(InvalidArgument) bitwise_and(): argument 'y' (position 1) must be Tensor, but got bool "
        f"(at /paddle/paddle/fluid/pybind/eager_utils.cc:{line})\n")
    with pytest.raises(ValueError) as got:
        paddle.multiply(1, paddle.to_tensor([1.0]))
    assert str(got.value) == (
        "(InvalidArgument) multiply(): argument 'x' (position 0) must be Tensor, but got int "
        f"(at /paddle/paddle/fluid/pybind/eager_utils.cc:{line})\n")


# ------------------------------------------------ 2.x float16 exp/log/log1p/erf/expm1 toward zero
# real 2.6.2: paddle.exp of float16 [0.5, -1.25, 3.0] printed 0.286376953125 for e^-1.25 (3.3.1 and
# numpy: 0.28662109375); over 41 values, exp, log, log1p, erf and expm1 truncate, the others not.
@pytest.mark.parametrize("key, want", [
    ("2.6", [[1.6484375, 0.286376953125, 20.078125], [-0.69287109375, 0.2230224609375, 1.09765625],
             [0.52001953125, -0.9228515625, 0.99951171875]]),
    ("3", [[1.6484375, 0.28662109375, 20.078125], [-0.693359375, 0.22314453125, 1.0986328125],
           [0.5205078125, -0.9228515625, 1.0]])])
def test_float16_exp_log_rounding(key, want):
    import numpy as np

    from gradrepl.paddle import profiles

    profiles.set_profile(key)
    h = paddle.to_tensor([0.5, -1.25, 3.0], dtype="float16")
    got = [paddle.exp(h).numpy().tolist(),
           paddle.log(paddle.to_tensor([0.5, 1.25, 3.0], dtype="float16")).numpy().tolist(),
           paddle.erf(h).numpy().tolist()]
    np.testing.assert_array_equal(np.float16(got), np.float16(want))


# ------------------------------------------------ to_tensor(a tensor, dtype='float16'); linspace
# real 2.6.2: paddle.to_tensor(paddle.to_tensor([2051.0, 1.1]), dtype='float16') is [2050.0,
# 1.099609375] (the cast, toward zero); from a numpy array [2052.0, ...] (numpy's rounding); 3.3.1
# 2052.0 both. linspace has no float16 kernel in either ("int32, float64, int64, float32").
@pytest.mark.parametrize("key, first", [("2.6", 2050.0), ("3", 2052.0)])
def test_to_tensor_of_tensor_float16_and_linspace(key, first):
    import numpy as np

    from gradrepl.paddle import profiles

    profiles.set_profile(key)
    t = paddle.to_tensor(paddle.to_tensor([2051.0, 1.1]), dtype="float16")
    assert t.numpy().tolist() == [first, 1.099609375]
    a = paddle.to_tensor(np.array([2051.0, 1.1], "float32"), dtype="float16")
    assert a.numpy().tolist() == [2052.0, 1.099609375]
    with pytest.raises(RuntimeError) as got:
        paddle.linspace(0, 1, 4, dtype="float16")
    assert str(got.value).split("\n")[0].endswith(f"{_F16}int32, float64, int64, float32.")
