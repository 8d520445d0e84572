"""paddle.sparse: COO/CSR tensors built, converted, combined, printed and differentiated as real
Paddle does (probe_ops.py's records: the operations). tests/data/paddle_sparse/expected_*.txt are the stdout of probe.py under real Paddle 3.3.1
and 2.6.2 (recorded 2026-12-06; 2.6.2 stops at sparse_dim(), which it does not have)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest

DATA = pathlib.Path(__file__).parent / "data" / "paddle_sparse"


@pytest.mark.parametrize("profile,record", [("3", "expected_3.3.1.txt"),
                                            ("2.6", "expected_2.6.2.txt")])
def test_probe_prints_what_paddle_printed(profile, record):
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", profile,
                        str(DATA / "probe.py")], capture_output=True, text=True, timeout=300)
    want = (DATA / record).read_text()
    if "Traceback" in want:     # compare the error's last line: carets differ across Pythons
        head, _, tail = want.partition("Traceback (most recent call last):\n")
        assert r.stdout == head
        assert r.stderr.strip().splitlines()[-1] == tail.strip().splitlines()[-1]
    else:
        assert r.stdout == want and r.returncode == 0


@pytest.mark.parametrize("profile,record", [("3", "expected_ops_3.3.1.txt"),
                                            ("2.6", "expected_ops_2.6.2.txt")])
def test_ops_print_what_paddle_printed(profile, record):
    """probe_ops.py (elementwise merges, CooToCsr of unsorted rows, transpose, reshape, sum,
    softmax, the CPU build's product and operator errors) under real Paddle 3.3.1 and 2.6.2,
    recorded 2026-12-07. CPU-independent: softmax rows of float32 (the C library's expf) and a
    float64 COO row (its exp), sums of a few values, no products."""
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", profile,
                        str(DATA / "probe_ops.py")], capture_output=True, text=True, timeout=300)
    assert r.stdout == (DATA / record).read_text() and r.returncode == 0


@pytest.mark.parametrize("profile,record", [("3", "expected_breadth_3.3.1.txt"),
                                            ("2.6", "expected_breadth_2.6.2.txt")])
def test_breadth_prints_what_paddle_printed(profile, record):
    """probe_breadth.py (the SPSWEEP sweep's fixes: constructors' and layout errors in Paddle's
    words and places, values of a stop_gradient=False tensor, divide patterns and by a number,
    product/dense-input/CSR-rank errors, is_dense, backward of a sparse sum, SyncBatchNorm's CPU
    error, BatchNorm's repr) under real Paddle 3.3.1 and 2.6.2 here, recorded 2026-12-07 (run
    twice there: the same bytes). CPU-independent: exact small values."""
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", profile,
                        str(DATA / "probe_breadth.py")], capture_output=True, text=True,
                       timeout=300)
    assert r.stdout == (DATA / record).read_text() and r.returncode == 0


@pytest.fixture
def paddle():
    from gradrepl.paddle import profiles

    profiles.set_profile("3")
    import gradrepl.paddle as paddle

    return paddle


def test_round_trips_keep_values(paddle):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(5, 6)).astype(np.float32)
    a[rng.random((5, 6)) < 0.6] = 0
    x = paddle.to_tensor(a)
    coo = x.to_sparse_coo(2)
    assert coo.nnz() == int((a != 0).sum())
    np.testing.assert_array_equal(coo.to_dense().numpy(), a)
    csr = x.to_sparse_csr()
    np.testing.assert_array_equal(csr.crows().numpy(),
                                  np.concatenate([[0], np.cumsum((a != 0).sum(1))]))
    np.testing.assert_array_equal(csr.to_dense().numpy(), a)
    np.testing.assert_array_equal(csr.to_sparse_coo(2).indices().numpy(), coo.indices().numpy())


def test_coalesce_sums_duplicates_and_to_dense_keeps_the_last(paddle):
    i = paddle.to_tensor([[1, 0, 1], [0, 1, 0]])
    v = paddle.to_tensor([1., 2., 4.])
    s = paddle.sparse.sparse_coo_tensor(i, v, [2, 2])
    np.testing.assert_array_equal(s.to_dense().numpy(), [[0, 2], [4, 0]])
    c = s.coalesce()
    np.testing.assert_array_equal(c.indices().numpy(), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(c.values().numpy(), [2., 5.])


def test_gradient_reaches_the_values(paddle):
    v = paddle.to_tensor([1., 2., 3.], stop_gradient=False)
    s = paddle.sparse.sparse_coo_tensor(paddle.to_tensor([[0, 1, 1], [1, 0, 1]]), v, [2, 2])
    w = paddle.to_tensor([[1., 2.], [3., 4.]])
    (paddle.sparse.sin(s).to_dense() * w).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), np.cos([1., 2., 3.]) * [2., 3., 4.], rtol=1e-6)


def test_errors_name_the_layout(paddle):
    x = paddle.ones([2, 2])
    with pytest.raises(SystemError, match="only effective for SparseCooTensor"):
        x.indices()
    with pytest.raises(NotImplementedError, match=r"kernel of \(to_dense\)"):
        x.to_dense()
    s = x.to_sparse_coo(2)
    # real 3.3.1: a dense kernel handed the sparse tensor's meta fails so (2.6.2 aborts: refused)
    with pytest.raises(OSError, match=r"^Unimplemented error. Invalid dimension to be accessed"):
        s + s
    from gradrepl.paddle import profiles

    profiles.set_profile("2.6")
    with pytest.raises(TypeError, match="not emulated"):
        s + s
    profiles.set_profile("3")
    with pytest.raises(SystemError, match="SparseCsrTensor"):
        s.crows()
    # real 3.3.1's words (2.6.2 spells it 'minimun'; SPSWEEP sweep)
    with pytest.raises(ValueError, match=r"^the minimum shape required is \[np.int64\(4\)\], "
                                         r"but get \[2\]$"):
        paddle.sparse.sparse_coo_tensor([[0, 3]], [1., 2.], [2])
