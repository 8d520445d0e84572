"""Paddle tensor API sweep (PSWEEP2A, issue 28): random values and shapes found these, each
checked against real Paddle 3.3.1 (/work/vpaddle) and 2.6.2 (/work/vpaddle26) on this machine;
the expected values and sha256 prefixes below are what the real frameworks printed here.

* a slice's gradient is copied into the zeros (a -0.0 from floor's zero gradient stays -0.0);
* the C library's asinh/acosh/atanh/atan2/lgamma/pow keep glibc's bits past 1,024 elements
  (before: float64 rounding of numpy's result there);
* nanmedian has a gradient: Paddle 3 shares each middle value among its ties (a lane of NaNs
  shares 1 among them), Paddle 2.6 gives it to the middle elements (a lane of NaNs: none)."""
import hashlib

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import profiles

from conftest import skip_unless_x86_64


def _sha(t):
    return hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()[:16]


def test_strided_slice_gradient_keeps_negative_zero(version):
    x = paddle.zeros([2, 7])
    x.stop_gradient = False
    (paddle.floor(x[:, ::2]) * paddle.to_tensor([-1.0, 1.0, -2.0, 3.0])).sum().backward()
    assert np.signbit(x.grad.numpy()).astype(int).tolist() == [[1, 0, 0, 0, 1, 0, 0]] * 2


# sha256[:16] of the outputs on 2,003 values (real 3.3.1 and 2.6.2 agree except Paddle 3's
# float64 pow of two tensors, which is not glibc's pow: left out).
LIBM = {
    "float32": {"asinh": "a199941f4c4f4a91", "acosh": "e92506924da5e609",
                "atanh": "83e3097d7042f6e8", "atan2": "1aabe3da47e3700f",
                "lgamma": "881c24b15b04f09c", "pow": {"3": "bc775765f0a22ce5",
                                                      "2.6": "3fc10fd4251b8c08"}},
    "float64": {"asinh": "93da151537fe79fa", "acosh": "96b0b2d0a456a074",
                "atanh": "6a02b418519cbfa7", "atan2": "ed0f9c3c46b74bd5",
                "lgamma": "0c90272cfde91f71", "pow": {"2.6": "f8a4290b7bcf05d0"}},
}


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_c_library_functions_past_1024_elements(version, dt):
    skip_unless_x86_64("glibc x86-64's float and double functions, recorded on x86-64")
    rng = np.random.default_rng(5)
    a = rng.standard_normal(2003) * 3
    b = rng.standard_normal(2003) * 3
    X, Y = paddle.to_tensor(a.astype(dt)), paddle.to_tensor(b.astype(dt))
    P = paddle.to_tensor(np.abs(a).astype(dt) + 0.1)
    got = {"asinh": paddle.asinh(X), "acosh": paddle.acosh(P + 1),
           "atanh": paddle.atanh(paddle.tanh(X) * 0.99), "atan2": paddle.atan2(X, Y),
           "lgamma": paddle.lgamma(X), "pow": paddle.pow(P, Y)}
    for name, want in LIBM[dt].items():
        if isinstance(want, dict):
            if version not in want:
                continue
            want = want[version]
        assert _sha(got[name]) == want, name


NAN = float("nan")
# (values, axis, real 3.3.1's gradient of nanmedian * -3, real 2.6.2's)
NANMEDIAN = [
    ([3.0, 1, NAN, 2, 5], None, [-1.5, 0.0, 0.0, -1.5, 0.0], [-1.5, 0.0, 0.0, -1.5, 0.0]),
    ([[3.0, 1, 2, 2], [NAN] * 4], -1, [[0.0, 0.0, -1.5, -1.5], [-0.75] * 4],
     [[0.0, 0.0, -1.5, -1.5], [0.0] * 4]),
    ([4.0, 1, 3], None, [0.0, 0.0, -3.0], [0.0, 0.0, -3.0]),
    ([[3.0, 1], [2, 5], [NAN, 0]], 0, [[-1.5, -3.0], [-1.5, 0.0], [0.0, 0.0]],
     [[-1.5, -3.0], [-1.5, 0.0], [0.0, 0.0]]),
    ([2.0, 2, 2, 1], None, [-1.0, -1.0, -1.0, 0.0], None),   # 2.6: one tie each, order-dependent
]


@pytest.mark.parametrize("values,axis,want3,want26", NANMEDIAN)
def test_nanmedian_gradient(version, values, axis, want3, want26):
    want = want3 if version == "3" else want26
    if want is None:
        pytest.skip("Paddle 2.6 picks one of the tied elements by its sort's order")
    x = paddle.to_tensor(values, stop_gradient=False)
    (paddle.nanmedian(x, axis=axis) * -3.0).sum().backward()
    got = x.grad.numpy()
    assert got.tolist() == want and not np.signbit(got[got == 0]).any()


def test_nanmedian_min_mode_gradient():
    before = profiles.current()
    profiles.set_profile("3")
    try:
        x = paddle.to_tensor([3.0, 1, NAN, 2, 5], stop_gradient=False)
        (paddle.nanmedian(x, mode="min") * -3.0).sum().backward()
        assert x.grad.numpy().tolist() == [0.0, 0.0, 0.0, -3.0, 0.0]   # real 3.3.1
    finally:
        profiles.set_profile(before)


# sha256[:12] of F.dropout(x, p)'s output, x's gradient, and eval downscale_in_infer's output:
# x float64 [3, 100] (default_rng(1) normals), weights default_rng(2), paddle.seed(3); real
# 3.3.1 and 2.6.2 print the same. The kept values divide by float32's 1 - p (was float64's).
DROPOUT64 = {0.3: ("8f9a1976d7ee", "353fbc8257d3", "a584c895e175"),
             0.55: ("9d2925e418f8", "8ee1fe32d5eb", "734f05946896")}


@pytest.mark.parametrize("p", sorted(DROPOUT64))
def test_float64_dropout_scales_by_float32_keep_probability(version, p):
    F = paddle.nn.functional
    paddle.seed(3)
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal((3, 100)), stop_gradient=False)
    y = F.dropout(x, p)
    (y * paddle.to_tensor(np.random.default_rng(2).standard_normal((3, 100)))).sum().backward()
    z = F.dropout(x, p, training=False, mode="downscale_in_infer")
    got = tuple(hashlib.sha256(t.numpy().tobytes()).hexdigest()[:12] for t in (y, x.grad, z))
    assert got == DROPOUT64[p]


# sha256[:12] of paddle.norm(x, p, axis=-1) and paddle.dist(x, x * 0.5, p) of a float64
# [7, 33] (default_rng(4) normals); real 3.3.1 and 2.6.2 print the same: p and 1/p are
# float attributes (p=3's 1/3 is 0.3333333432674408 in the double kernel).
PNORM64 = {3: ("9c9583d4ef6e", "5202b6d5cea2"), 2.7: ("7746a4478053", "07d69295bfa4")}


@pytest.mark.parametrize("p", sorted(PNORM64))
def test_float64_p_norm_takes_float_exponents(version, p):
    skip_unless_x86_64("glibc x86-64's double pow, recorded on x86-64")
    x = paddle.to_tensor(np.random.default_rng(4).standard_normal((7, 33)))
    got = tuple(hashlib.sha256(t.numpy().tobytes()).hexdigest()[:12]
                for t in (paddle.norm(x, p=p, axis=-1), paddle.dist(x, x * 0.5, p=p)))
    assert got == PNORM64[p]


# sha256[:12] of x.grad for (log2(x) * w).sum() and (log10(x) * w).sum(), float64 x of 257
# values in [0.05, 30) (default_rng(6)), w default_rng(7) normals. dout / (x * ln(base)) with
# the double constant: log2's is log(2.0) in both versions, log10's differs (2.6.2: log(10.0)
# = 2.302585092994046, 3.3.1: 2.3025850929940456).
LOG_GRAD64 = {"3": ("eb05520203e4", "eff4835b6cde"), "2.6": ("eb05520203e4", "7d92a5d72715")}


def test_float64_log2_log10_gradients(version):
    x = paddle.to_tensor(np.random.default_rng(6).uniform(0.05, 30, 257), stop_gradient=False)
    w = paddle.to_tensor(np.random.default_rng(7).standard_normal(257))
    got = []
    for f in (paddle.log2, paddle.log10):
        x.clear_gradient()
        (f(x) * w).sum().backward()
        got.append(hashlib.sha256(x.grad.numpy().tobytes()).hexdigest()[:12])
    assert tuple(got) == LOG_GRAD64[version]


def test_sinc_is_paddle3s_composition():
    """paddle.sinc (3.x only) is python: where, multiply by to_tensor(pi), sin / t, where; its
    float32 bits and gradient those ops' (real 3.3.1: sha256[:12] below, last node WhereGradNode)."""
    before = profiles.current()
    profiles.set_profile("3")
    try:
        x = paddle.to_tensor((np.random.default_rng(8).standard_normal(301) * 3).astype("float32"),
                             stop_gradient=False)
        y = paddle.sinc(paddle.concat([x, paddle.zeros([3])]))
        w = np.random.default_rng(9).standard_normal(304).astype("float32")
        (y * paddle.to_tensor(w)).sum().backward()
        assert _sha(y)[:12] == "cd633ace342d" and _sha(x.grad)[:12] == "ab625a49b339"
        assert y.grad_fn.name() == "WhereGradNode"
    finally:
        profiles.set_profile(before)


def test_nansum_nanmean_gradient_at_nan_positions(version):
    """nansum composes where(isnan(x), 0, x) and sum: 2.x's where gradient is dout * mask, so a
    negative dout leaves -0.0 at the NaNs; 3.x's select writes +0.0 (real 3.3.1 / 2.6.2)."""
    nan = float("nan")
    x = paddle.to_tensor([1.0, nan, 2.0, nan], stop_gradient=False)
    (paddle.nansum(x) * -2.0).backward()
    want = {"3": [1, 0, 1, 0], "2.6": [1, 1, 1, 1]}[version]
    assert np.signbit(x.grad.numpy()).astype(int).tolist() == want
    x = paddle.to_tensor([[1.0, nan], [2.0, 3.0]], stop_gradient=False)
    (paddle.nanmean(x, axis=1) * paddle.to_tensor([-1.0, 1.0])).sum().backward()
    want = {"3": [[1, 0], [0, 0]], "2.6": [[1, 1], [0, 0]]}[version]
    assert np.signbit(x.grad.numpy()).astype(int).tolist() == want
    assert x.grad.numpy().tolist() == [[-1.0, 0.0], [0.5, 0.5]]


# sha256[:12] of logit's output bytes + x.grad bytes: 1,003 values uniform in [0.0005, 0.9995)
# (default_rng(10)), weights default_rng(11); float32 eps None / 1e-3, float64 eps None / 1e-3.
LOGIT = {"3": ["3689ad7dcedd", "7b0357866896", "06c7410689a8", "134c6fbe3af9"],
         "2.6": ["3689ad7dcedd", "7b0357866896", "06c7410689a8", "e2a472d8bce6"]}


def test_logit_eigen_log_and_gradient(version):
    """Paddle's logit is an Eigen expression (packet log), its gradient dout * (1 / ((1 - x) x))
    with +0.0 selected outside [eps, 1 - eps]; eps a float (2.x) or a double (3.x)."""
    skip_unless_x86_64("Eigen's packet log as Paddle's x86-64 build runs it")
    got = []
    for dt in ("float32", "float64"):
        for eps in (None, 1e-3):
            x = paddle.to_tensor(np.random.default_rng(10).uniform(0.0005, 0.9995, 1003).astype(dt),
                                 stop_gradient=False)
            y = paddle.logit(x, eps)
            w = np.random.default_rng(11).standard_normal(1003).astype(dt)
            (y * paddle.to_tensor(w)).sum().backward()
            got.append(hashlib.sha256(y.numpy().tobytes() + x.grad.numpy().tobytes()).hexdigest()[:12])
    assert got == LOGIT[version]


def test_float64_erfinv_gradient_constant(version):
    """erfinv_grad multiplies by 1 / M_2_SQRTPI = 0.886226925452758 (not sqrt(pi) / 2, one ulp
    below): real 3.3.1 and 2.6.2 sha256[:12] of y and x.grad, 515 values (default_rng(12)),
    weights default_rng(13)."""
    skip_unless_x86_64("glibc's double log/sqrt in Cephes' ndtri, recorded on x86-64")
    x = paddle.to_tensor(np.random.default_rng(12).uniform(-0.98, 0.98, 515), stop_gradient=False)
    y = paddle.erfinv(x)
    (y * paddle.to_tensor(np.random.default_rng(13).standard_normal(515))).sum().backward()
    assert (_sha(y)[:12], _sha(x.grad)[:12]) == ("610434a86b7a", "1b11d4feb205")


def test_nan_to_num_gradient_sign_at_non_finite(version):
    """nan_to_num is Paddle's python wheres: under 2.x's where gradient (dout * mask) the NaN's
    gradient is dout * 0, -0.0 for a negative dout, so log's gradient there is +0.0 (real 2.6.2);
    3.x selects +0.0, and log's gradient 0 / x is -0.0 for x < 0 (real 3.3.1)."""
    x = paddle.to_tensor([-1.0, 2.0, -3.0], stop_gradient=False)
    (paddle.nan_to_num(paddle.log(x)) * paddle.to_tensor([-1.0, -1.0, 1.0])).sum().backward()
    want = {"3": [1, 1, 1], "2.6": [0, 1, 1]}[version]
    assert np.signbit(x.grad.numpy()).astype(int).tolist() == want


def test_float64_log1p_is_glibcs(version):
    """float64 log1p is glibc's log1p (numpy's differed in ~8% of values), also inside
    logaddexp (real 3.3.1 and 2.6.2 sha256[:12]; x default_rng(14) in [0.02, 0.98), y
    default_rng(15) normals * 3, 1,003 values)."""
    skip_unless_x86_64("glibc x86-64's log1p, recorded on x86-64")
    x = paddle.to_tensor(np.random.default_rng(14).uniform(0.02, 0.98, 1003))
    y = paddle.to_tensor(np.random.default_rng(15).standard_normal(1003) * 3)
    assert (_sha(paddle.log1p(x))[:12], _sha(paddle.logaddexp(x, y))[:12]) == (
        "4194ef999144", "36b9a09187db")


def test_float64_log2_of_4099_values_is_glibcs(version):
    """numexpr's double log2 fails gradrepl's probe here, so past 1,024 elements log2 was
    numpy's (4 of 4,099 values 1 ulp off); now glibc's through ctypes (real 3.3.1 / 2.6.2)."""
    skip_unless_x86_64("glibc x86-64's log2, recorded on x86-64")
    x = paddle.to_tensor(np.random.default_rng(16).uniform(0.05, 30, 4099))
    assert _sha(paddle.log2(x))[:12] == "959579ca8d65"


def test_float64_exponential_uses_glibc_log(version):
    """Tensor.exponential_ on float64: (-1 / lam) * log(1 - u) with the C library's log (real
    3.3.1 and 2.6.2 sha256[:12] after paddle.seed(2024), 1,031 values, lam 1.5)."""
    skip_unless_x86_64("glibc x86-64's log, recorded on x86-64")
    paddle.seed(2024)
    t = paddle.zeros([1031], "float64").exponential_(1.5)
    assert _sha(t)[:12] == "0b198d9b7f2f"


@pytest.mark.parametrize("dt,want", [("float32", ("49e3bd77fe5f", "71d7965efec1")),
                                     ("float64", ("d0dd02794013", "8ac5565eeadc"))])
def test_dirichlet_and_beta_samples_are_paddles(version, dt, want):
    """Dirichlet (and Beta, its first component) draw paddle.standard_gamma's GammaSampler
    values on the global engine and divide by the row sums: real 3.3.1 and 2.6.2 sha256[:12]
    (was numpy's generator: every value differed)."""
    skip_unless_x86_64("glibc x86-64's log/exp inside the gamma sampler, recorded on x86-64")
    paddle.seed(11)
    conc = [0.5, 1.0, 2.0, 3.5, 0.7, 9.0, 1.3, 2.2, 4.0]
    s = paddle.distribution.Dirichlet(paddle.to_tensor(conc, dtype=dt)).sample([300])
    paddle.seed(12)
    b = paddle.distribution.Beta(paddle.to_tensor([0.5, 2.0], dtype=dt),
                                 paddle.to_tensor([3.0, 1.5], dtype=dt)).sample([200])
    assert (_sha(s)[:12], _sha(b)[:12]) == want


def test_float64_tensor_pow_exponent_gradient_uses_glibc_log(version):
    """x ** y's dy = dout * log(x) * pow(x, y) (the formula's order per version) with the C
    library's log: real sha256[:12] of y.grad (4,099 values); 2.6.2's forward is glibc's pow
    (3.3.1's float64 x ** y is not: left)."""
    skip_unless_x86_64("glibc x86-64's log and pow, recorded on x86-64")
    x = paddle.to_tensor(np.random.default_rng(17).uniform(0.05, 30, 4099), stop_gradient=False)
    y = paddle.to_tensor(np.random.default_rng(18).standard_normal(4099) * 0.3,
                         stop_gradient=False)
    z = paddle.pow(x, y)
    (z * paddle.to_tensor(np.random.default_rng(19).standard_normal(4099))).sum().backward()
    assert _sha(y.grad)[:12] == {"3": "cbbca1962e17", "2.6": "c70c94607546"}[version]
    if version == "2.6":
        assert _sha(z)[:12] == "6fc036840a05"


# real 3.3.1's gradient of paddle.median(x) * -4.0
MEDIAN_TIES = [
    ([2.0, 1, 2, 7, 7, 3], [0.0, 0.0, -2.0, 0.0, 0.0, -2.0]),
    ([7.0, 2, 2, 9, 1, 9], [-2.0, -2.0, 0.0, 0.0, 0.0, 0.0]),
    ([5.0, 5, 1, 1], [-2.0, 0.0, 0.0, -2.0]),
    ([1.0, 5, 1, 5], [0.0, 0.0, -2.0, -2.0]),
    ([3.0, 3, 1, 1, 9, 9], [-2.0, -2.0, 0.0, 0.0, 0.0, 0.0]),
    ([1.0, 2, 2, 2, 3, 3], [0.0, -4 / 3, -4 / 3, -4 / 3, 0.0, 0.0]),
]


@pytest.mark.parametrize("values,want", MEDIAN_TIES)
def test_median_ties_paddle3(values, want):
    """Paddle 3's median gradient: where the median is one of the values, dout / (its count)
    to each; where the two middle values differ, each half goes to one element, those
    std::nth_element at n / 2 leaves (the n/2-th, and the last of the largest before it)."""
    before = profiles.current()
    profiles.set_profile("3")
    try:
        x = paddle.to_tensor(values, stop_gradient=False)
        (paddle.median(x) * -4.0).backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.asarray(want, np.float32))
        # float64 ties along an axis, sha256[:10] of y and x.grad bytes (real 3.3.1)
        rng = np.random.default_rng(99)
        got = []
        for shape, ax in [((24, 7), 0), ((5, 30), 1), ((3, 4, 18), -1), ((50,), None),
                          ((6, 33), 0)]:
            x = paddle.to_tensor(rng.integers(0, 6, shape).astype("float64"), stop_gradient=False)
            y = paddle.median(x, axis=ax)
            (y * paddle.to_tensor(rng.standard_normal(y.shape))).sum().backward()
            got.append(hashlib.sha256(y.numpy().tobytes() + x.grad.numpy().tobytes()).hexdigest()[:10])
        assert got == ["ee4d0af1fe", "cca2569bfa", "dea2fb94cb", "f434ed69aa", "9a456936f6"]
    finally:
        profiles.set_profile(before)
