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
