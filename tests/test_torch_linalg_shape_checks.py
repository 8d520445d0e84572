"""torch's shape checks before the LAPACK solvers, and no call into LAPACK with shapes it would
read past.

Found by a fuzz of the dialect's linear-algebra functions with odd shapes (this stop): a 1-D
tensor given to ``torch.cholesky_inverse``, a non-square A to ``linalg.solve_ex``, mismatched
pivots or right-hand sides to ``linalg.lu_solve``/``ldl_solve``/``torch.lu_solve`` and a
vector ``u`` to ``torch.cholesky_solve`` went straight to MKL's potri/getrs/sytrs/potrs with
the wrong sizes: garbage results, a corrupted heap or a segmentation fault that took the
shell down. Now each function checks torch's way first (same order, same messages), and the
LAPACK wrappers refuse a shape they would read past (``_lapack._guard``).

``GRID`` below runs every function on a grid of shapes; real torch 2.13's output for it (run
here, ``/work/vtorch``, its stdout) hashed: the first 16 hex digits of the SHA-256 of its first
1,401 lines (real torch itself then dies of a segmentation fault, on ``ldl_solve`` of LD
[1, 3, 3], pivots [1, 3] and B [2, 3, 2]: a batch of B it does not broadcast; gradrepl
broadcasts it). Shapes and messages only: the same on any
CPU, with MKL or without."""
import hashlib
import subprocess
import sys

import pytest
from conftest import skip_without_mkl

GRID = r'''
import gradrepl.torch as torch
L = torch.linalg
mats = [(), (4,), (2, 3), (3, 2), (0, 0), (3, 3), (2, 3, 3), (1, 3, 3), (2, 2, 2)]
pivs = [(), (3,), (2,), (2, 3), (1, 3), (4,)]
rhs = [(), (3,), (3, 1), (2, 1), (3, 2), (2, 3, 2), (4, 3, 2), (0, 0)]
def mk(s, dt=torch.float64):
    return torch.ones(s, dtype=dt) if s else torch.tensor(1.0, dtype=dt)
def run(name, f, *args):
    sh = tuple(tuple(a.shape) for a in args)
    try:
        r = f(*args)
        out = "ok " + str(tuple(r[0].shape) if isinstance(r, tuple) else tuple(r.shape))
    except Exception as e:
        out = type(e).__name__ + ": " + str(e).split("\n")[0]
    print(name, sh, out, flush=True)
for a in mats:
    run("cholesky_inverse", torch.cholesky_inverse, mk(a))
    for b in rhs + mats:
        run("solve_ex", L.solve_ex, mk(a), mk(b))
        run("cholesky_solve", torch.cholesky_solve, mk(b), mk(a))
    for p in pivs:
        for b in rhs:
            run("lu_solve", L.lu_solve, mk(a), mk(p, torch.int32), mk(b))
            run("torch.lu_solve", torch.lu_solve, mk(b), mk(a), mk(p, torch.int32))
            run("ldl_solve", L.ldl_solve, mk(a), mk(p, torch.int32), mk(b))
'''
REAL_TORCH_FIRST_1401 = "05540bfe4b72567f"


@pytest.fixture(scope="module")
def grid_output():
    # a child process: a call that corrupted memory would end it, not the test run
    r = subprocess.run([sys.executable, "-c", GRID], capture_output=True, text=True,
                       timeout=600)
    return r


def test_the_grid_runs_to_the_end(grid_output):
    assert grid_output.returncode == 0, grid_output.stderr[-2000:]
    assert len(grid_output.stdout.splitlines()) == 1611


def test_the_grid_prints_real_torchs_messages(grid_output):
    skip_without_mkl("the grid's ldl_solve results (LAPACK's sytrs, no numpy stand-in)")
    lines = grid_output.stdout.splitlines(keepends=True)[:1401]
    digest = hashlib.sha256("".join(lines).encode()).hexdigest()[:16]
    assert digest == REAL_TORCH_FIRST_1401


@pytest.mark.parametrize("line", [
    # a few of real torch's lines, readable
    "cholesky_inverse ((4,),) RuntimeError: cholesky_inverse: The input tensor A must have at "
    "least 2 dimensions.",
    "solve_ex ((3, 2), (3, 2)) RuntimeError: linalg.solve: A must be batches of square "
    "matrices, but they are 3 by 2 matrices",
    "solve_ex ((2, 3, 3), (4, 3, 2)) RuntimeError: The size of tensor a (4) must match the "
    "size of tensor b (2) at non-singleton dimension 0",
    "solve_ex ((2, 3, 3), (3,)) ok (2, 3)",
    "cholesky_solve ((3, 2), (0, 0)) RuntimeError: Incompatible matrix sizes for "
    "cholesky_solve: each A matrix is 0 by 0 but each b matrix is 3 by 2",
    "ldl_solve ((0, 0), (3,), (3,)) IndexError: Dimension out of range (expected to be in "
    "range of [-1, 0], but got -2)",
    "lu_solve ((0, 0), (3,), (0, 0)) RuntimeError: linalg.lu_solve: Number of pivots per "
    "batch should be same as the dimension of the matrix",
])
def test_some_lines(grid_output, line):
    assert line in grid_output.stdout.splitlines()


def test_cholesky_inverse_keeps_potris_negative_zeros():
    import gradrepl.torch as torch

    skip_without_mkl("cholesky_inverse's -0.0 (MKL's potri)")
    # real torch 2.13: tensor([[0.2500, -0.0000], [-0.0000, 0.2500]]) (potri's triangle copied)
    out = torch.cholesky_inverse(torch.eye(2) * 2)
    assert str(out) == "tensor([[0.2500, -0.0000],\n        [-0.0000, 0.2500]])"


@pytest.mark.parametrize("call", [
    "_lapack.potri(np.ones(4))",
    "_lapack.getrs(np.eye(3), np.array([1, 2, 9], np.int32), np.ones((3, 1)))",
    "_lapack.getrs(np.eye(3), np.array([1, 2, 3], np.int32), np.ones((2, 1)))",
    "_lapack.sytrs(np.eye(3), np.array([1, 2], np.int32), np.ones((3, 1)))",
    "_lapack.potrs(np.eye(3), np.ones((4, 2)))",
    "_lapack.trsm(np.eye(3), np.ones((2, 2)), True)",
    "_lapack.ormqr(np.eye(3), np.ones(2), np.ones((4, 4)))",
])
def test_the_lapack_wrappers_refuse_shapes_they_would_read_past(call):
    import numpy as np  # noqa: F401  (the calls' names)

    from gradrepl.torch import _lapack  # noqa: F401

    with pytest.raises(RuntimeError, match="arguments of incompatible shapes"):
        eval(call)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_and_solve_read_one_triangle(upper):
    """LAPACK's potri/potrs read the factor's one triangle; so does the numpy stand-in without
    MKL (it squared the whole matrix: ones(3, 3) raised numpy's 'Singular matrix')."""
    import gradrepl.torch as torch

    c = torch.ones(3, 3, dtype=torch.float64)
    # real torch 2.13, both triangles: [[2.0, -1.0, -0.0], [-1.0, 2.0, -1.0], [-0.0, -1.0, 1.0]]
    # and [[1.0], [0.0], [0.0]]
    assert torch.cholesky_inverse(c, upper=upper).tolist() == [[2.0, -1.0, 0.0],
                                                                [-1.0, 2.0, -1.0],
                                                                [0.0, -1.0, 1.0]]
    b = torch.ones(3, 1, dtype=torch.float64)
    assert torch.cholesky_solve(b, c, upper=upper).tolist() == [[1.0], [0.0], [0.0]]
