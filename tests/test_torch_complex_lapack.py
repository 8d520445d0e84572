"""Complex LAPACK in the torch dialect (issue 28): torch 2.13 calls MKL's complex routines
(``cgeev``/``zgeev``, ``cgesdd``/``zgesdd``, ``cheevd``/``zheevd``, ``cgelsy`` ...), whose
argument lists differ from the real ones' (a real workspace ``rwork``; complex eigenvalues in one
array; Hermitian ``heevd`` in place of ``syevd``). gradrepl handed them the real routines'
arguments: ``linalg.svd``/``svdvals``/``lstsq`` of a complex matrix ended the process (SIGSEGV),
``eigvals`` printed zeros after MKL's "Parameter 8 was incorrect on entry to CGEEV", ``eigh`` raised
"undefined symbol: csyevd_"; ``pinv`` was conjugated and ``lstsq``'s empty residuals complex.

The expected text was printed by real torch 2.13.0 on this project's Intel Sapphire Rapids Xeon
(MKL's AVX512_E1 path, 2 threads) running ``PROBE``; the printed 4 digits carry MKL's signs and
phases of eigen/singular vectors, so the test needs MKL.
"""
from __future__ import annotations

import contextlib
import io

from conftest import skip_unless_mkl_path

PROBE = """\
for dt in (torch.complex64, torch.complex128):
    m = torch.tensor([[2+1j, 0.5-1j, 0.25j], [1-1j, 3+0j, -1+2j], [0.5+0.5j, -1j, 1.5+0.25j]], dtype=dt)
    h = m @ m.mH + torch.eye(3, dtype=dt)
    print(torch.linalg.eigvals(m))
    print(torch.linalg.eig(m))
    print(torch.linalg.svd(m))
    print(torch.linalg.svdvals(m))
    print(torch.linalg.eigh(h))
    print(torch.linalg.eigvalsh(h))
    print(torch.linalg.pinv(m))
    print(torch.linalg.pinv(h, hermitian=True))
    for driver in ("gels", "gelsy", "gelsd", "gelss"):
        print(driver, torch.linalg.lstsq(m, m[:, :2], driver=driver))
"""

# real torch 2.13.0, Intel Sapphire Rapids (AVX512_E1), the output of PROBE
EXPECTED = """\
tensor([1.1018+0.1926j, 1.6376+1.0310j, 3.7607+0.0265j])
torch.return_types.linalg_eig(
eigenvalues=tensor([1.1018+0.1926j, 1.6376+1.0310j, 3.7607+0.0265j]),
eigenvectors=tensor([[ 0.4091-0.0289j,  0.7859+0.0000j,  0.3983-0.2211j],
        [ 0.2316-0.5066j, -0.0284-0.2820j,  0.8189+0.0000j],
        [ 0.7222+0.0000j,  0.5476-0.0456j,  0.1673-0.3065j]]))
torch.return_types.linalg_svd(
U=tensor([[-0.1863+0.1533j,  0.7337+0.4571j,  0.3083-0.3155j],
        [-0.8651+0.2778j,  0.0073-0.2590j,  0.0387+0.3253j],
        [ 0.1274+0.3163j,  0.2251+0.3674j, -0.7100+0.4405j]]),
S=tensor([4.3309, 2.6178, 0.7179]),
Vh=tensor([[-0.2633+0.0000j, -0.7292-0.1965j,  0.3992-0.4483j],
        [ 0.9501+0.0000j, -0.1664-0.1567j,  0.0070-0.2123j],
        [-0.1675+0.0000j,  0.2021-0.5801j, -0.5875-0.4993j]]))
tensor([4.3309, 2.6178, 0.7179])
torch.return_types.linalg_eigh(
eigenvalues=tensor([ 1.5154,  7.8526, 19.7569]),
eigenvectors=tensor([[-0.4411-0.0000j,  0.8644+0.0000j,  0.2412+0.0000j],
        [ 0.2056-0.2550j, -0.1308-0.2237j,  0.8445+0.3353j],
        [ 0.8113+0.1999j,  0.3853+0.1928j,  0.1026-0.3252j]]))
tensor([ 1.5154,  7.8526, 19.7569])
tensor([[ 0.2057-0.2302j,  0.0462+0.1868j,  0.2396-0.0113j],
        [-0.1491+0.4283j,  0.4160-0.0689j,  0.1566-0.6019j],
        [-0.4340-0.0189j,  0.1226+0.1792j,  0.9623-0.1321j]])
tensor([[ 0.2265+0.0000e+00j, -0.0639-5.3698e-02j, -0.1925+4.0938e-02j],
        [-0.0639+5.3698e-02j,  0.1212+4.4617e-11j,  0.0634-1.5578e-01j],
        [-0.1925-4.0938e-02j,  0.0634+1.5578e-01j,  0.4902-8.3407e-09j]])
gels torch.return_types.linalg_lstsq(
solution=tensor([[ 1.0000e+00+5.7299e-08j, -1.9588e-07+4.3106e-08j],
        [-1.6259e-08-1.0779e-07j,  1.0000e+00-4.4458e-08j],
        [ 9.4418e-08-4.4585e-08j,  1.8302e-07+3.7268e-07j]]),
residuals=tensor([]),
rank=tensor([], dtype=torch.int64),
singular_values=tensor([]))
gelsy torch.return_types.linalg_lstsq(
solution=tensor([[ 1.0000e+00+5.7299e-08j, -1.9588e-07+4.3106e-08j],
        [-1.6259e-08-1.0779e-07j,  1.0000e+00-4.4458e-08j],
        [ 9.4418e-08-4.4585e-08j,  1.8302e-07+3.7268e-07j]]),
residuals=tensor([]),
rank=tensor(3),
singular_values=tensor([]))
gelsd torch.return_types.linalg_lstsq(
solution=tensor([[1.0000e+00+5.7299e-08j, 2.0311e-07-6.2496e-08j],
        [3.7382e-08-1.0158e-07j, 1.0000e+00+3.2702e-08j],
        [4.9519e-08-5.7253e-08j, 6.7869e-08-5.2676e-08j]]),
residuals=tensor([]),
rank=tensor(3),
singular_values=tensor([4.3309, 2.6178, 0.7179]))
gelss torch.return_types.linalg_lstsq(
solution=tensor([[1.0000e+00+5.7299e-08j, 8.9407e-08-1.1921e-07j],
        [0.0000e+00-1.1921e-07j, 1.0000e+00+1.5503e-08j],
        [9.2667e-08-5.9605e-08j, 1.1176e-08-1.5274e-07j]]),
residuals=tensor([]),
rank=tensor(3),
singular_values=tensor([4.3309, 2.6178, 0.7179]))
tensor([1.1018+0.1926j, 1.6376+1.0310j, 3.7607+0.0265j],
       dtype=torch.complex128)
torch.return_types.linalg_eig(
eigenvalues=tensor([1.1018+0.1926j, 1.6376+1.0310j, 3.7607+0.0265j],
       dtype=torch.complex128),
eigenvectors=tensor([[ 0.4091-0.0289j,  0.7859+0.0000j,  0.3983-0.2211j],
        [ 0.2316-0.5066j, -0.0284-0.2820j,  0.8189+0.0000j],
        [ 0.7222+0.0000j,  0.5476-0.0456j,  0.1673-0.3065j]],
       dtype=torch.complex128))
torch.return_types.linalg_svd(
U=tensor([[-0.1863+0.1533j,  0.7337+0.4571j,  0.3083-0.3155j],
        [-0.8651+0.2778j,  0.0073-0.2590j,  0.0387+0.3253j],
        [ 0.1274+0.3163j,  0.2251+0.3674j, -0.7100+0.4405j]],
       dtype=torch.complex128),
S=tensor([4.3309, 2.6178, 0.7179], dtype=torch.float64),
Vh=tensor([[-0.2633+0.0000j, -0.7292-0.1965j,  0.3992-0.4483j],
        [ 0.9501+0.0000j, -0.1664-0.1567j,  0.0070-0.2123j],
        [-0.1675+0.0000j,  0.2021-0.5801j, -0.5875-0.4993j]],
       dtype=torch.complex128))
tensor([4.3309, 2.6178, 0.7179], dtype=torch.float64)
torch.return_types.linalg_eigh(
eigenvalues=tensor([ 1.5154,  7.8526, 19.7569], dtype=torch.float64),
eigenvectors=tensor([[-0.4411-0.0000j,  0.8644+0.0000j,  0.2412+0.0000j],
        [ 0.2056-0.2550j, -0.1308-0.2237j,  0.8445+0.3353j],
        [ 0.8113+0.1999j,  0.3853+0.1928j,  0.1026-0.3252j]],
       dtype=torch.complex128))
tensor([ 1.5154,  7.8526, 19.7569], dtype=torch.float64)
tensor([[ 0.2057-0.2302j,  0.0462+0.1868j,  0.2396-0.0113j],
        [-0.1491+0.4283j,  0.4160-0.0689j,  0.1566-0.6019j],
        [-0.4340-0.0189j,  0.1226+0.1792j,  0.9623-0.1321j]],
       dtype=torch.complex128)
tensor([[ 0.2265+0.0000e+00j, -0.0639-5.3698e-02j, -0.1925+4.0938e-02j],
        [-0.0639+5.3698e-02j,  0.1212+2.3748e-19j,  0.0634-1.5578e-01j],
        [-0.1925-4.0938e-02j,  0.0634+1.5578e-01j,  0.4902+6.2121e-18j]],
       dtype=torch.complex128)
gels torch.return_types.linalg_lstsq(
solution=tensor([[ 1.0000e+00+1.2268e-16j,  8.1079e-17-6.0217e-18j],
        [-8.4492e-18-2.7470e-16j,  1.0000e+00-3.8248e-17j],
        [ 2.4970e-16-8.3358e-17j,  3.0467e-17-6.0866e-17j]],
       dtype=torch.complex128),
residuals=tensor([], dtype=torch.float64),
rank=tensor([], dtype=torch.int64),
singular_values=tensor([], dtype=torch.float64))
gelsy torch.return_types.linalg_lstsq(
solution=tensor([[ 1.0000e+00+1.2268e-16j,  8.1079e-17-6.0217e-18j],
        [-8.4492e-18-2.7470e-16j,  1.0000e+00-3.8248e-17j],
        [ 2.4970e-16-8.3358e-17j,  3.0467e-17-6.0866e-17j]],
       dtype=torch.complex128),
residuals=tensor([], dtype=torch.float64),
rank=tensor(3),
singular_values=tensor([], dtype=torch.float64))
gelsd torch.return_types.linalg_lstsq(
solution=tensor([[ 1.0000e+00+1.4472e-16j,  0.0000e+00+8.7305e-17j],
        [-3.3769e-16-7.4382e-17j,  1.0000e+00-3.2982e-16j],
        [ 1.4998e-16-9.8944e-17j,  4.8340e-16+3.8565e-16j]],
       dtype=torch.complex128),
residuals=tensor([], dtype=torch.float64),
rank=tensor(3),
singular_values=tensor([4.3309, 2.6178, 0.7179], dtype=torch.float64))
gelss torch.return_types.linalg_lstsq(
solution=tensor([[ 1.0000e+00+1.4472e-16j, -5.5511e-17+1.1102e-16j],
        [ 0.0000e+00-1.1102e-16j,  1.0000e+00-3.5933e-16j],
        [ 1.3878e-17-2.4980e-16j,  4.7184e-16+3.8858e-16j]],
       dtype=torch.complex128),
residuals=tensor([], dtype=torch.float64),
rank=tensor(3),
singular_values=tensor([4.3309, 2.6178, 0.7179], dtype=torch.float64))
"""


def test_complex_lapack_prints_real_torch_output():
    # MKL's AVX2 path gives other last digits (lstsq's solutions, seen with real torch here
    # under MKL_ENABLE_INSTRUCTIONS=AVX2): the record is the AVX512_E1 path's
    skip_unless_mkl_path("complex eigen/singular vectors", "AVX512_E1")
    import gradrepl.torch as torch

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROBE, {"torch": torch})
    assert out.getvalue() == EXPECTED
