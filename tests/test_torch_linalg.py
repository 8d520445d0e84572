"""``torch.linalg`` and the torch-namespace linear algebra of the torch dialect: values against
numpy (LAPACK computes both; MKL's and numpy's last bits may differ, so allclose), return types
printed as torch prints them, grad_fn names and gradients against finite differences, norms by
torch's rules (the matrix norms of ``linalg.norm``), errors.

Literals marked "torch 2.13" were printed by real torch 2.13 in this session (same calls).
"""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import state as torch_state


@pytest.fixture(autouse=True)
def _fresh():
    torch_state.reset()
    yield
    torch_state.reset()


def _np(t):
    return np.asarray(t.detach().numpy())


def _spd(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


A64 = np.array([[1.5410, -0.2934, -2.1788], [0.5684, -1.0845, -1.3986],
                [0.4033, 0.8380, -0.7193]])


def test_det_slogdet_logdet_inv_match_numpy():
    A = torch.tensor(A64)
    np.testing.assert_allclose(torch.linalg.det(A).item(), np.linalg.det(A64), rtol=1e-12)
    s, l_ = torch.linalg.slogdet(A)
    ns, nl = np.linalg.slogdet(A64)
    assert s.item() == ns
    np.testing.assert_allclose(l_.item(), nl, rtol=1e-12)
    np.testing.assert_allclose(torch.logdet(A).item(), nl, rtol=1e-12)
    np.testing.assert_allclose(_np(torch.linalg.inv(A)), np.linalg.inv(A64), rtol=1e-10)
    neg = torch.tensor(-A64)  # det < 0: logdet is nan
    assert np.isnan(torch.logdet(neg).item())


def test_slogdet_prints_as_torch():
    torch.manual_seed(0)
    A = torch.randn(3, 3)
    # torch 2.13
    assert repr(torch.linalg.slogdet(A)) == ("torch.return_types.linalg_slogdet(\n"
                                             "sign=tensor(1.),\nlogabsdet=tensor(0.0609))")
    assert repr(torch.linalg.det(A)) == "tensor(1.0628)"


def test_batched_det_and_solve():
    torch.manual_seed(0)
    A = torch.randn(4, 3, 3, dtype=torch.float64)
    B = torch.randn(4, 3, 2, dtype=torch.float64)
    np.testing.assert_allclose(_np(torch.linalg.det(A)), np.linalg.det(_np(A)), rtol=1e-10)
    X = torch.linalg.solve(A, B)
    np.testing.assert_allclose(_np(A @ X), _np(B), atol=1e-10)
    Xr = torch.linalg.solve(A, B.mT, left=False)
    np.testing.assert_allclose(_np(Xr @ A), _np(B.mT), atol=1e-10)
    r = torch.linalg.solve_ex(A, B)
    assert r.info.tolist() == [0, 0, 0, 0]


def test_singular_errors():
    z = torch.zeros(2, 2)
    with pytest.raises(RuntimeError, match="singular"):
        torch.linalg.inv(z)
    Ainv, info = torch.linalg.inv_ex(z)
    assert info.item() == 1
    with pytest.raises(RuntimeError, match="not positive-definite"):
        torch.linalg.cholesky(-torch.eye(2))


def test_grad_fn_names_and_det_gradient():
    A = torch.tensor(A64, requires_grad=True)
    d = torch.linalg.det(A)
    assert type(d.grad_fn).__name__ == "LinalgDetBackward0"
    d.backward()
    np.testing.assert_allclose(_np(A.grad), np.linalg.det(A64) * np.linalg.inv(A64).T,
                               rtol=1e-10)
    assert type(torch.linalg.inv(A).grad_fn).__name__ == "LinalgInvExBackward0"
    assert type(torch.linalg.slogdet(A)[1].grad_fn).__name__ == "LinalgSlogdetBackward0"
    assert type(torch.logdet(A).grad_fn).__name__ == "WhereBackward0"
    assert type(torch.linalg.svd(A)[1].grad_fn).__name__ == "LinalgSvdBackward0"
    assert type(torch.linalg.qr(A)[0].grad_fn).__name__ == "LinalgQrBackward0"
    assert type(torch.linalg.matrix_norm(A, 1).grad_fn).__name__ == "AmaxBackward0"
    assert type(torch.linalg.matrix_exp(A).grad_fn).__name__ == "LinalgMatrixExpBackward0"


def test_slogdet_gradient_is_inverse_transpose():
    A = torch.tensor(A64, requires_grad=True)
    torch.linalg.slogdet(A).logabsdet.backward()
    np.testing.assert_allclose(_np(A.grad), np.linalg.inv(A64).T, rtol=1e-10)


def test_matrix_exp_gradient_finite_differences():
    a = A64 * 0.3
    A = torch.tensor(a, requires_grad=True)
    torch.linalg.matrix_exp(A).sum().backward()
    eps = 1e-6
    fd = np.zeros_like(a)
    for i in range(3):
        for j in range(3):
            p, m = a.copy(), a.copy()
            p[i, j] += eps
            m[i, j] -= eps
            fd[i, j] = (_np(torch.linalg.matrix_exp(torch.tensor(p))).sum()
                        - _np(torch.linalg.matrix_exp(torch.tensor(m))).sum()) / (2 * eps)
    np.testing.assert_allclose(_np(A.grad), fd, rtol=1e-5)


def test_matrix_exp_matches_series():
    a = A64 * 0.5
    ref = np.eye(3)
    term = np.eye(3)
    for k in range(1, 40):
        term = term @ a / k
        ref = ref + term
    np.testing.assert_allclose(_np(torch.linalg.matrix_exp(torch.tensor(a))), ref, rtol=1e-12)


def test_norms_follow_torch_rules():
    a = torch.arange(9, dtype=torch.float) - 4
    B = a.reshape((3, 3))
    # torch 2.13 (the docstring example of torch.linalg.norm)
    assert repr(torch.linalg.norm(B, float("inf"))) == "tensor(9.)"
    assert repr(torch.linalg.norm(B, -float("inf"))) == "tensor(2.)"
    assert repr(torch.linalg.norm(B, 1)) == "tensor(7.)"
    assert repr(torch.linalg.norm(B, -1)) == "tensor(6.)"
    assert repr(torch.linalg.norm(B, 2)) == "tensor(7.3485)"
    assert repr(torch.linalg.norm(a, -float("inf"))) == "tensor(0.)"
    assert repr(torch.linalg.norm(a, 0)) == "tensor(8.)"
    assert repr(torch.linalg.matrix_norm(B, ord=-1)) == "tensor(6.)"
    np.testing.assert_allclose(torch.linalg.norm(B, "nuc").item(),
                               np.linalg.norm(_np(B), "nuc"), rtol=1e-6)
    np.testing.assert_allclose(torch.linalg.vector_norm(B, 3.5).item(),
                               np.sum(np.abs(_np(B)) ** 3.5) ** (1 / 3.5), rtol=1e-6)
    A = torch.arange(8, dtype=torch.float).reshape(2, 2, 2)
    assert repr(torch.linalg.norm(A, dim=(1, 2))) == "tensor([ 3.7417, 11.2250])"
    np.testing.assert_allclose(torch.linalg.cond(torch.tensor(A64)).item(),
                               np.linalg.cond(A64), rtol=1e-10)
    np.testing.assert_allclose(torch.linalg.cond(torch.tensor(A64), "fro").item(),
                               np.linalg.cond(A64, "fro"), rtol=1e-10)


@pytest.mark.skipif(not __import__("gradrepl.engine.mkl", fromlist=["load"]).load(),
                    reason="ldl_factor is MKL's LAPACK (gradrepl[exact])")
def test_decompositions_reconstruct():
    A = torch.tensor(A64)
    U, S, Vh = torch.linalg.svd(A)
    np.testing.assert_allclose(_np(U) @ np.diag(_np(S)) @ _np(Vh), A64, atol=1e-12)
    np.testing.assert_allclose(_np(torch.linalg.svdvals(A)), np.linalg.svd(A64)[1], rtol=1e-12)
    Q, R = torch.linalg.qr(A)
    np.testing.assert_allclose(_np(Q) @ _np(R), A64, atol=1e-12)
    assert np.allclose(np.tril(_np(R), -1), 0)
    P, L, U2 = torch.linalg.lu(A)
    np.testing.assert_allclose(_np(P) @ _np(L) @ _np(U2), A64, atol=1e-12)
    LU, piv = torch.linalg.lu_factor(A)
    assert piv.dtype == torch.int32
    b = torch.tensor([[1.0], [2.0], [3.0]], dtype=torch.float64)
    np.testing.assert_allclose(_np(torch.linalg.lu_solve(LU, piv, b)),
                               np.linalg.solve(A64, _np(b)), rtol=1e-10)
    Pu, Lu, Uu = torch.lu_unpack(LU, piv)
    np.testing.assert_allclose(_np(Pu @ Lu @ Uu), A64, atol=1e-12)
    S4 = _spd(4)
    Lc = torch.linalg.cholesky(torch.tensor(S4))
    np.testing.assert_allclose(_np(Lc), np.linalg.cholesky(S4), rtol=1e-12)
    np.testing.assert_allclose(_np(torch.cholesky_inverse(Lc)), np.linalg.inv(S4), rtol=1e-10)
    b4 = torch.ones(4, 2, dtype=torch.float64)
    np.testing.assert_allclose(_np(torch.cholesky_solve(b4, Lc)),
                               np.linalg.solve(S4, np.ones((4, 2))), rtol=1e-10)
    w, v = torch.linalg.eigh(torch.tensor(S4))
    np.testing.assert_allclose(_np(w), np.linalg.eigvalsh(S4), rtol=1e-12)
    np.testing.assert_allclose(_np(torch.linalg.eigvalsh(torch.tensor(S4))), _np(w), rtol=1e-12)
    LD, pv = torch.linalg.ldl_factor(torch.tensor(S4))
    np.testing.assert_allclose(_np(torch.linalg.ldl_solve(LD, pv, b4)),
                               np.linalg.solve(S4, np.ones((4, 2))), rtol=1e-10)


def test_eig_complex_and_signs():
    A = torch.tensor(A64)
    w, V = torch.linalg.eig(A)
    assert w.dtype == torch.complex128
    Vn = _np(V)
    np.testing.assert_allclose(Vn @ np.diag(_np(w)) @ np.linalg.inv(Vn), A64, atol=1e-12)
    np.testing.assert_allclose(np.sort_complex(_np(torch.linalg.eigvals(A))),
                               np.sort_complex(np.linalg.eigvals(A64)), rtol=1e-10)


def test_pinv_rank_lstsq_products():
    torch.manual_seed(0)
    A = torch.randn(3, 5, dtype=torch.float64)
    np.testing.assert_allclose(_np(torch.linalg.pinv(A)), np.linalg.pinv(_np(A)), rtol=1e-10)
    np.testing.assert_allclose(_np(torch.pinverse(A)), np.linalg.pinv(_np(A)), rtol=1e-10)
    assert torch.linalg.matrix_rank(torch.eye(10)).item() == 10
    B = torch.eye(10)
    B[0, 0] = 0
    assert torch.linalg.matrix_rank(B).item() == 9
    M = torch.randn(5, 3, dtype=torch.float64)
    y = torch.randn(5, 2, dtype=torch.float64)
    sol = torch.linalg.lstsq(M, y).solution
    np.testing.assert_allclose(_np(sol), np.linalg.lstsq(_np(M), _np(y), rcond=None)[0],
                               rtol=1e-10)
    r = torch.linalg.lstsq(M, y, driver="gelsd")
    assert r.rank.item() == 3
    np.testing.assert_allclose(_np(r.singular_values), np.linalg.svd(_np(M))[1], rtol=1e-10)
    # torch 2.13 (the docstring example of torch.linalg.multi_dot)
    assert repr(torch.linalg.multi_dot([torch.tensor([1, 2]), torch.tensor([2, 3])])) == \
        "tensor(8)"
    A_ = torch.arange(2 * 3).view(2, 3)
    B_ = torch.arange(3 * 2).view(3, 2)
    C_ = torch.arange(2 * 2).view(2, 2)
    assert torch.linalg.multi_dot((A_, B_, C_)).tolist() == [[26, 49], [80, 148]]
    P = torch.tensor(A64)
    np.testing.assert_allclose(_np(torch.linalg.matrix_power(P, 5)),
                               np.linalg.matrix_power(A64, 5), rtol=1e-10)
    np.testing.assert_allclose(_np(torch.linalg.matrix_power(P, -2)),
                               np.linalg.matrix_power(A64, -2), rtol=1e-10)
    assert torch.linalg.vander(torch.tensor([1., 2., 3.])).tolist() == \
        [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    v1, v2 = torch.randn(3, 2), torch.randn(3, 2)
    np.testing.assert_allclose(_np(torch.linalg.vecdot(v1, v2)),
                               (_np(v1) * _np(v2)).sum(-1), rtol=1e-6)


@pytest.mark.skipif(not __import__("gradrepl.engine.mkl", fromlist=["load"]).load(),
                    reason="geqrf is MKL's LAPACK (gradrepl[exact])")
def test_householder_and_geqrf():
    A = torch.tensor(A64)
    a, tau = torch.geqrf(A)
    Q = torch.linalg.householder_product(a, tau)
    np.testing.assert_allclose(_np(Q), _np(torch.linalg.qr(A).Q), atol=1e-12)
    C = torch.eye(3, dtype=torch.float64)
    np.testing.assert_allclose(_np(torch.ormqr(a, tau, C)), _np(Q), atol=1e-12)


def test_tensorinv_tensorsolve_triangular():
    A = torch.eye(4 * 6).reshape((4, 6, 8, 3))
    assert tuple(torch.linalg.tensorinv(A, ind=2).shape) == (8, 3, 4, 6)
    T = torch.tensor(np.triu(A64) + 3 * np.eye(3))
    Bm = torch.ones(3, 2, dtype=torch.float64)
    X = torch.linalg.solve_triangular(T, Bm, upper=True)
    np.testing.assert_allclose(_np(T @ X), np.ones((3, 2)), atol=1e-12)
    Xl = torch.linalg.solve_triangular(T, Bm.mT, upper=True, left=False)
    np.testing.assert_allclose(_np(Xl @ T), np.ones((2, 3)), atol=1e-12)
    r = torch.triangular_solve(Bm, T)
    assert repr(r).startswith("torch.return_types.triangular_solve(\nsolution=")
    np.testing.assert_allclose(_np(r.solution), _np(X), atol=1e-12)


def test_return_type_reprs():
    A = torch.tensor([[2.0, 0.0], [0.0, 3.0]])
    assert repr(torch.linalg.eigh(A)) == (
        "torch.return_types.linalg_eigh(\neigenvalues=tensor([2., 3.]),\n"
        "eigenvectors=tensor([[1., 0.],\n        [0., 1.]]))")
    assert repr(torch.linalg.inv_ex(A)) == (
        "torch.return_types.linalg_inv_ex(\ninverse=tensor([[0.5000, 0.0000],\n"
        "        [0.0000, 0.3333]]),\ninfo=tensor(0, dtype=torch.int32))")
    assert torch.svd(A)._fields == ("U", "S", "V")
