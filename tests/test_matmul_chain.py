"""``chained_matmul``: every output element is one chain over k = 0..K-1, rounded to float32 after
every step (Paddle's MKL sgemm), for every rank pairing numpy's matmul takes. The step is a fused
multiply-add on Intel and a rounded product added on AMD (``engine/cpu.py``): both rules are
checked on any machine by choosing the CPU class."""
import platform

import numpy as np
import pytest

from gradrepl.engine.ops import linalg

SHAPES = [((2, 4), (4, 8)), ((5, 30), (30, 7)), ((3, 2, 9), (9, 4)), ((9,), (2, 9, 4)),
          ((2, 3, 5), (2, 5, 4)), ((2, 1, 3, 5), (4, 5, 2)), ((7,), (7, 3)), ((4, 6), (6,)),
          ((1, 64), (64, 64)), ((2, 1), (1, 3)), ((6,), (6,))]


def _reference(a, b, fused=True):
    A = a[None, :] if a.ndim == 1 else a
    B = b[:, None] if b.ndim == 1 else b
    acc = np.zeros(np.broadcast_shapes(A.shape[:-2], B.shape[:-2]) + (A.shape[-2], B.shape[-1]),
                   np.float32)
    for j in range(A.shape[-1]):  # one step of the chain at a time, rounded to float32
        step = A[..., :, j:j + 1].astype(np.float64) * B[..., j:j + 1, :].astype(np.float64)
        if not fused:
            step = step.astype(np.float32)
        acc = (acc.astype(np.float64) + step).astype(np.float32)
    if a.ndim == 1:
        acc = acc[..., 0, :]
    if b.ndim == 1:
        acc = acc[..., 0]
    return acc


@pytest.mark.parametrize("cpu_class", ["intel-avx512", "amd"])
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_chain_equals_the_step_by_step_reference(sa, sb, cpu_class, monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", cpu_class)
    rng = np.random.default_rng(sum(sa) * 31 + sum(sb))
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    got, want = linalg.chained_matmul(a, b), _reference(a, b, fused=cpu_class != "amd")
    assert got.shape == np.matmul(a, b).shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("cpu_class", ["intel-avx512", "amd"])
def test_the_chain_differs_from_blas_where_it_matters(cpu_class, monkeypatch):
    # long sums: the chain's order shows in the last bits against OpenBLAS's grouping
    monkeypatch.setenv("GRADREPL_CPU_CLASS", cpu_class)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((8, 1000)).astype(np.float32)
    b = rng.standard_normal((1000, 8)).astype(np.float32)
    assert a.shape[0] * b.shape[1] * a.shape[1] <= linalg._CHAIN_LIMIT
    chain = linalg.chained_matmul(a, b)
    assert chain.tobytes() == _reference(a, b, fused=cpu_class != "amd").tobytes()
    # the sum rounded once differs (the chain rounds after every step)
    assert chain.tobytes() != (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32).tobytes()
    if cpu_class == "amd" or platform.machine().lower() in ("x86_64", "amd64"):
        assert chain.tobytes() != np.matmul(a, b).tobytes()
    # (aarch64's OpenBLAS, numpy 2.4's neoversev2 kernel under qemu, sums this 8 x 8 output in one
    # FMA chain per element, k in order: the fused rule's very bits, measured equal)
