"""Rules whose last bits depend on the CPU (``engine/cpu.py``): each class's rule is checked on any
machine by choosing the class, against values real Paddle 3.3.1 printed on a CPU of that class."""
import numpy as np
import pytest

from gradrepl.engine import cpu
from gradrepl.engine.ops import linalg


def test_the_class_is_detected_and_can_be_chosen(monkeypatch):
    assert cpu.detected() in cpu.CLASSES
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    assert cpu.cpu_class() == "amd" and not cpu.fused_products()
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "intel-avx512")
    assert cpu.fused_products()
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "no such class")
    assert cpu.cpu_class() == cpu.detected()


def test_cpuinfo_is_read_for_vendor_and_flags():
    vendor, flags = cpu._cpuinfo()
    if vendor:  # (Linux)
        assert isinstance(flags, set)


# paddle.seed(0); M = paddle.normal(0, 1, shape=(4, 4)); N = paddle.normal(0, 1, shape=(4, 4));
# paddle.mm(M, N)[0, 2]: real Paddle 3.3.1 on AMD EPYC (Zen 4) and, by the report, on an
# AVX2 Zen: -0.6500227451324463; on the Intel AVX-512 machine of the first measurements (the
# fused chain): -0.6500226855278015.
@pytest.mark.parametrize("cpu_class,want", [("amd", -0.6500227451324463),
                                            ("intel-avx512", -0.6500226855278015)])
def test_paddle_mm_by_cpu_class(cpu_class, want, monkeypatch):
    import gradrepl.paddle as paddle

    monkeypatch.setenv("GRADREPL_CPU_CLASS", cpu_class)
    paddle.seed(0)
    m = paddle.normal(0, 1, shape=(4, 4))
    n = paddle.normal(0, 1, shape=(4, 4))
    assert paddle.mm(m, n)[0, 2].item() == want


def test_amd_dot_adds_rounded_products_in_order(monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 57)).astype(np.float32)
    y = rng.standard_normal((3, 57)).astype(np.float32)
    got = linalg._dot_fwd(x, y)
    want = np.zeros(3, np.float32)
    for k in range(57):
        want = want + x[:, k] * y[:, k]  # float32 products, float32 running sums
    assert got.tobytes() == want.tobytes()
    assert got.tobytes() != np.sum(x * y, axis=-1).tobytes()  # (pairwise would differ here)


@pytest.mark.parametrize("cpu_class", ["amd", "intel-avx512"])
def test_matmul_step_by_class(cpu_class, monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", cpu_class)
    rng = np.random.default_rng(11)
    a = rng.standard_normal((6, 40)).astype(np.float32)
    b = rng.standard_normal((40, 5)).astype(np.float32)
    unfused = np.zeros((6, 5), np.float32)
    fused = np.zeros((6, 5), np.float32)
    for k in range(40):
        prod = a[:, k:k + 1].astype(np.float64) * b[k:k + 1, :]
        unfused = unfused + prod.astype(np.float32)
        fused = (fused.astype(np.float64) + prod).astype(np.float32)
    assert unfused.tobytes() != fused.tobytes()
    want = unfused if cpu_class == "amd" else fused
    assert linalg.chained_matmul(a, b).tobytes() == want.tobytes()


# Recorded from real Paddle 3.3.1 on AMD EPYC (Zen 4), this session: the sha256 of the output's
# float32 bytes. paddle.seed(1); conv1 = nn.Conv2D(1, 6, 5, padding=2); x = paddle.rand([4, 1,
# 28, 28]); conv1(x) (a LeNet's first convolution on 4 images: 470K multiply-adds, each output
# the rounded products added in order, on every CPU class measured).
CONV1_SHA = "1e02a526a5f542d2de2d8f916c0cd0fb0872a5a25432946b70fc992e2dbd9c29"
# On the Intel Sapphire Rapids Xeon (MKL's AVX512_E1 path) real 3.3.1 and 2.6.2 print another
# digest (recorded there, 2026-12-07): Paddle's convolution is MKL's cblas_sgemm per sample on that
# CPU (44f1d87), and gradrepl computes it so where it runs on that CPU class with MKL.
CONV1_SHA_AVX512_E1 = "9e08671ce0a277720a09d11e388b15332013943665110ee67afec01a4cf76f07"
# paddle.seed(1); nn.Conv2D(6, 16, 5); fc1 = nn.Linear(400, 120); nn.Linear(120, 10);
# paddle.rand([4, 6, 14, 14]); e = paddle.rand([4, 400]) - 0.5; fc1(e) on the same AMD machine
# (192K multiply-adds: unfused there, the fused chain on Intel).
FC1_SHA = "b7517e2623bbae26b4d783d1ab74c1d91a86f0e002978fbd0c12f107611bdad8"


def _sha(t):
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()


@pytest.mark.parametrize("cpu_class", ["amd", "intel-avx512"])
def test_a_lenet_first_convolution_is_exact_past_the_old_chain_limit(cpu_class, monkeypatch):
    import gradrepl.paddle as paddle

    monkeypatch.setenv("GRADREPL_CPU_CLASS", cpu_class)
    paddle.seed(1)
    conv1 = paddle.nn.Conv2D(1, 6, 5, padding=2)
    x = paddle.rand([4, 1, 28, 28])
    out = conv1(x)
    assert out.shape == [4, 6, 28, 28]
    from gradrepl.engine import cpu, mkl

    want = CONV1_SHA
    if cpu_class != "amd" and cpu_class == cpu.detected() and mkl.load():
        if mkl.branch() != "AVX512_E1":
            reason = (f"Paddle's convolution on Intel is MKL's sgemm, recorded where MKL's path is "
                      f"AVX512_E1; here it is {mkl.branch()}: bytes not compared")
            print(reason)
            pytest.skip(reason)
        want = CONV1_SHA_AVX512_E1
    assert _sha(out) == want


def test_a_linear_layer_on_amd_is_the_unfused_chain_past_the_old_limit(monkeypatch):
    import gradrepl.paddle as paddle

    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    paddle.seed(1)
    paddle.nn.Conv2D(6, 16, 5)
    fc1 = paddle.nn.Linear(400, 120)
    paddle.nn.Linear(120, 10)
    paddle.rand([4, 6, 14, 14])
    e = paddle.rand([4, 400]) - 0.5
    got = fc1(e)
    assert got[0, :3].tolist() == [0.3076832890510559, 0.02325090579688549, -0.13758902251720428]
    assert _sha(got) == FC1_SHA


def test_the_unfused_chain_is_a_running_sum_in_order():
    """``unfused_chain`` (one reduction over the leading K axis) equals the loop of K float32
    additions of the rounded products, for batched, broadcast and vector shapes."""
    rng = np.random.default_rng(3)
    for sa, sb in [((6, 25), (4, 25, 30)), ((3, 1, 5, 40), (2, 40, 7)), ((1, 9), (9, 1))]:
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        want = np.zeros(np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1]), np.float32)
        for j in range(sa[-1]):
            want += (a[..., :, j:j + 1] * b[..., j:j + 1, :]).astype(np.float32)
        assert linalg.unfused_chain(a, b).tobytes() == want.tobytes()


def test_the_unfused_chain_of_one_output_is_still_in_order():
    """With one output the K axis is contiguous and numpy would sum it pairwise (8 lanes): a
    sum whose pairwise and sequential results differ must come out sequential."""
    a = np.array([[1e8, 1, 1, 1, 1, 1, 1, 1, 1, -1e8, 1, 1, 1, 1, 1, 1]], np.float32)
    b = np.ones((16, 1), np.float32)
    want = np.float32(0)
    for v in a[0]:
        want = np.float32(want + v)
    assert linalg.unfused_chain(a, b)[0, 0] == want == np.float32(6)


# Real Paddle 3.3.1 on AMD EPYC (Zen 4), this session: F.gelu (exact form) of 14,000 values and
# its gradient against a random cotangent, float32 and float64; sha256 of the result's bytes.
# Paddle's wheels compute it with MKL's vmsErf (VML_LA) and vsExp: CPU-dependent (the Intel
# machine of the first records printed gelu(-1.) = -0.15865529, this one -0.15865526).
GELU_SHA = {
    ("y", "float32"): "423f48a97c157f4b06f0eb3c561ede0dd36a4634050af7cfd78a53284fd74510",
    ("y", "float64"): "e1522b7332b4d774839507633a4cc4a56a0d92ba75759ebef87810f187427aa8",
    ("g", "float32"): "33687d345a170e569a697e2dfcc90286eba3a9b6587836481417f401f8fc39e1",
    ("g", "float64"): "2de2d719b22945e1d3ff3eed6064b7d2c3bb5125a917424ef079e0659ba5f8d0",
}


def _gelu_inputs():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(3000) * s for s in (0.1, 1, 3, 6)]).astype("float32")
    x = np.concatenate([x, np.round(rng.uniform(-4, 4, 2000), 3).astype("float32")])
    d = np.random.default_rng(1).standard_normal(x.size).astype("float32")
    return x, d


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_is_mkls_erf_on_the_amd_machine_it_was_recorded_on(dtype, monkeypatch):
    import hashlib

    from gradrepl.engine import mkl

    if cpu.detected() != "amd":
        pytest.skip(f"recorded from real Paddle on AMD EPYC; this CPU is {cpu.detected()}")
    if not mkl.load():
        pytest.skip("needs MKL (the exact extra): Paddle's gelu calls MKL's vmsErf")
    import gradrepl.paddle as paddle

    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    x, d = _gelu_inputs()
    t = paddle.to_tensor(x.astype(dtype), stop_gradient=False)
    y = paddle.nn.functional.gelu(t)
    (g,) = paddle.grad(y, t, paddle.to_tensor(d.astype(dtype)))
    assert hashlib.sha256(y.numpy().tobytes()).hexdigest() == GELU_SHA["y", dtype]
    assert hashlib.sha256(g.numpy().tobytes()).hexdigest() == GELU_SHA["g", dtype]


def test_gelu_standing_for_another_cpu_class_takes_that_class_rule(monkeypatch):
    """The suite's Intel records (gelu(-1.) = -0.15865529) hold on any machine that stands for
    the Intel class: MKL's answer is for the CPU it runs on, so it is not asked then."""
    import gradrepl.paddle as paddle

    other = "intel-avx512" if cpu.detected() != "intel-avx512" else "amd"
    monkeypatch.setenv("GRADREPL_CPU_CLASS", other)
    got = paddle.nn.functional.gelu(paddle.to_tensor([-1.0, 0.5])).numpy().tolist()
    assert got == [-0.1586552858352661, 0.3457312285900116]
