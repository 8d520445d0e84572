"""torch's LAPACK solves and FFTs as real torch 2.13 computes them, and the MKL that gives them.

torch 2.13's x86-64 wheels link MKL 2024.2 statically (``torch.__config__.show()``: "2024.2-Product
Build 20240605"); the ``exact`` extra pins the ``mkl`` wheel to 2024.2.x (``engine/mkl.TORCH_MKL``).
Measured in this session on an AMD EPYC (Zen 4), torch with 2 threads, random inputs: with MKL
2024.2.0, .1 and .2 gradrepl's lu_solve/solve/inv equal torch on every value (getrs), with MKL
2025.0.1 lu_solve/solve differ in 15 of 60 small (3x3 to 5x5) systems, a float32 Cholesky in one
value and float32 rfft of lengths 21, 35, 49, 63 (a different kernel). solve's gradients are
torch's linalg_solve_backward: gB from A's factors (getrs), gA = -gB X^T by torch's product.

The digests below are the first 16 hex digits of the SHA-256 of real torch 2.13's result bytes,
recorded in this session on that machine (the cases: ``CASES`` here, run under real torch). MKL
chooses its kernels by the CPU it runs on, so they are checked on the class they were recorded on
(AMD) with MKL 2024.2; the identities below hold on any machine, with MKL or without."""
import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.engine import cpu, mkl


def digest(t):
    return hashlib.sha256(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()[:16]


def inputs(seed, n, dtype):
    r = np.random.default_rng(seed)
    a = r.standard_normal((n, n)).astype(dtype)
    b = r.standard_normal((n, 3)).astype(dtype)
    return torch.from_numpy(a), torch.from_numpy(b)


CASES = {}
for _dtype in ("float32", "float64"):
    for _n in (3, 4, 5, 8):
        for _seed in (0, 1, 2):
            _A, _B = inputs(_seed, _n, _dtype)
            _key = f"{_dtype}/{_n}/{_seed}"
            CASES["lu_solve/" + _key] = lambda A=_A, B=_B: torch.linalg.lu_solve(
                *torch.linalg.lu_factor(A), B)
            CASES["solve/" + _key] = lambda A=_A, B=_B: torch.linalg.solve(A, B)
            CASES["solve_right/" + _key] = lambda A=_A, B=_B: torch.linalg.solve(A, B.mT,
                                                                                left=False)
            CASES["inv/" + _key] = lambda A=_A: torch.linalg.inv(A)
            CASES["cholesky/" + _key] = lambda A=_A, n=_n: torch.linalg.cholesky(
                A @ A.mT + n * torch.eye(n, dtype=A.dtype))


def _solve_grads(A, B, left=True):
    A, B = A.clone().requires_grad_(), B.clone().requires_grad_()
    X = torch.linalg.solve(A, B if left else B.mT, left=left)
    (X * X.detach()).sum().backward()
    return torch.cat([A.grad.reshape(-1), B.grad.reshape(-1)])


for _dtype in ("float32", "float64"):
    for _n in (3, 5, 8, 16):
        _A, _B = inputs(10 + _n, _n, _dtype)
        CASES[f"solve_grad/{_dtype}/{_n}"] = lambda A=_A, B=_B: _solve_grads(A, B)
        CASES[f"solve_grad_vec/{_dtype}/{_n}"] = lambda A=_A, B=_B: _solve_grads(A, B[:, 0])
_C = torch.complex(
    torch.tensor([[1.5, -0.3, 0.2, 0.7], [0.1, 2.0, -0.4, 0.3], [0.6, 0.2, -1.1, 0.9],
                  [-0.8, 0.5, 0.3, 1.7]]),
    torch.tensor([[0.2, 0.1, -0.5, 0.3], [-0.7, 0.4, 0.2, 0.1], [0.3, -0.2, 0.6, -0.4],
                  [0.1, 0.9, -0.3, 0.2]]))
_D = torch.complex(_C.real[:2], -_C.imag[1:3])
CASES["solve_right/complex64/4"] = lambda: torch.linalg.solve(_C, _D, left=False)
CASES["solve/complex64/4"] = lambda: torch.linalg.solve(_C, _D.mT)
CASES["inv/complex64/4"] = lambda: torch.linalg.inv(_C)
for _n in (21, 35, 49, 63):
    _x = torch.from_numpy(np.random.default_rng(_n).standard_normal(_n).astype("float32"))
    CASES[f"rfft/float32/{_n}"] = lambda x=_x: torch.view_as_real(torch.fft.rfft(x))

# real torch 2.13.0+cpu (MKL 2024.2), AMD EPYC Zen 4, 2 threads: digest(case())
TORCH = {
    "lu_solve/float32/3/0": "836398e656170882",
    "solve/float32/3/0": "836398e656170882",
    "solve_right/float32/3/0": "05639f4214c3a2cb",
    "inv/float32/3/0": "0693e5650163c826",
    "cholesky/float32/3/0": "aef1d6e665b12b4b",
    "lu_solve/float32/3/1": "2f98c8900350a932",
    "solve/float32/3/1": "2f98c8900350a932",
    "solve_right/float32/3/1": "df2a1c2efb449c0f",
    "inv/float32/3/1": "7621bdf170f666e7",
    "cholesky/float32/3/1": "23cb4154a4e7b0b6",
    "lu_solve/float32/3/2": "8b38d8ff3c1198f9",
    "solve/float32/3/2": "8b38d8ff3c1198f9",
    "solve_right/float32/3/2": "609131f5f86109a5",
    "inv/float32/3/2": "a212f4395d364cfb",
    "cholesky/float32/3/2": "8c673386b316318d",
    "lu_solve/float32/4/0": "3f6f0a78754e8ef2",
    "solve/float32/4/0": "3f6f0a78754e8ef2",
    "solve_right/float32/4/0": "660d1704e04aee99",
    "inv/float32/4/0": "6f4a64e11a10853b",
    "cholesky/float32/4/0": "a728ce771384c1bc",
    "lu_solve/float32/4/1": "8bac278c70b047ee",
    "solve/float32/4/1": "8bac278c70b047ee",
    "solve_right/float32/4/1": "8814613e504e4c5b",
    "inv/float32/4/1": "2aed0b05f6796765",
    "cholesky/float32/4/1": "8388c101ef0a7575",
    "lu_solve/float32/4/2": "6e2cc9a1408a8487",
    "solve/float32/4/2": "6e2cc9a1408a8487",
    "solve_right/float32/4/2": "083ef70b21e193b8",
    "inv/float32/4/2": "dae032de144083ed",
    "cholesky/float32/4/2": "66cfd66e04bb33df",
    "lu_solve/float32/5/0": "41c4cf04e65f1669",
    "solve/float32/5/0": "41c4cf04e65f1669",
    "solve_right/float32/5/0": "7b9ff193d2703648",
    "inv/float32/5/0": "0d1f71c7af094809",
    "cholesky/float32/5/0": "39919d7d26aa05a3",
    "lu_solve/float32/5/1": "d1f4d347405e8d94",
    "solve/float32/5/1": "d1f4d347405e8d94",
    "solve_right/float32/5/1": "5925bfac440f99a2",
    "inv/float32/5/1": "323dd1a3873c694f",
    "cholesky/float32/5/1": "58785ba0c1fea096",
    "lu_solve/float32/5/2": "6c979f4dc92bf8ef",
    "solve/float32/5/2": "6c979f4dc92bf8ef",
    "solve_right/float32/5/2": "8398cd94401e4d4d",
    "inv/float32/5/2": "d6331e0042629e6b",
    "cholesky/float32/5/2": "e796d4a082f2e0a4",
    "lu_solve/float32/8/0": "72451132252fb9ab",
    "solve/float32/8/0": "72451132252fb9ab",
    "solve_right/float32/8/0": "4109f5672ac2e423",
    "inv/float32/8/0": "4a671bebfd1c7505",
    "cholesky/float32/8/0": "15a0ffe07eb04071",
    "lu_solve/float32/8/1": "03919834a822d21c",
    "solve/float32/8/1": "03919834a822d21c",
    "solve_right/float32/8/1": "b70cb0221842c01a",
    "inv/float32/8/1": "cf0097a93afd4d03",
    "cholesky/float32/8/1": "0e666fa6d7840747",
    "lu_solve/float32/8/2": "396f5d7631beb0ec",
    "solve/float32/8/2": "396f5d7631beb0ec",
    "solve_right/float32/8/2": "24f60b5c637d4dbb",
    "inv/float32/8/2": "1e50338bd92579d5",
    "cholesky/float32/8/2": "3dd56d2d2f2ebcac",
    "lu_solve/float64/3/0": "3f9e0b03520578f5",
    "solve/float64/3/0": "3f9e0b03520578f5",
    "solve_right/float64/3/0": "7f6695752c08a27a",
    "inv/float64/3/0": "86d20d74afe0c6ae",
    "cholesky/float64/3/0": "3a7024760a723f4f",
    "lu_solve/float64/3/1": "304625674b968569",
    "solve/float64/3/1": "304625674b968569",
    "solve_right/float64/3/1": "031c61b11a314f09",
    "inv/float64/3/1": "374581c296a570f5",
    "cholesky/float64/3/1": "6383e5980e560530",
    "lu_solve/float64/3/2": "518a129fa0c4f876",
    "solve/float64/3/2": "518a129fa0c4f876",
    "solve_right/float64/3/2": "56924022dadeaec3",
    "inv/float64/3/2": "777f58ad9c90fcc1",
    "cholesky/float64/3/2": "2b054b33191cc081",
    "lu_solve/float64/4/0": "09581ed365f68257",
    "solve/float64/4/0": "09581ed365f68257",
    "solve_right/float64/4/0": "6eab0a7e8acd898d",
    "inv/float64/4/0": "3b344d63c6cb5715",
    "cholesky/float64/4/0": "20bf3e33a37c72f5",
    "lu_solve/float64/4/1": "bfeac6f72bbae86d",
    "solve/float64/4/1": "bfeac6f72bbae86d",
    "solve_right/float64/4/1": "7aea1906e7cb13d7",
    "inv/float64/4/1": "a52343604f84376a",
    "cholesky/float64/4/1": "cf28036975623a82",
    "lu_solve/float64/4/2": "59a51b2f16a683bd",
    "solve/float64/4/2": "59a51b2f16a683bd",
    "solve_right/float64/4/2": "85b75a9589488f0a",
    "inv/float64/4/2": "7fccbf7bea35f974",
    "cholesky/float64/4/2": "d03e3f157754a6ee",
    "lu_solve/float64/5/0": "1b36e58e4fb856fe",
    "solve/float64/5/0": "1b36e58e4fb856fe",
    "solve_right/float64/5/0": "86ddbbc519a56373",
    "inv/float64/5/0": "20de93b3b4858ed4",
    "cholesky/float64/5/0": "756c22257ce5716f",
    "lu_solve/float64/5/1": "f5deba5c91a52290",
    "solve/float64/5/1": "f5deba5c91a52290",
    "solve_right/float64/5/1": "fb2247f56b62b8f0",
    "inv/float64/5/1": "9cc67e159a8c98f6",
    "cholesky/float64/5/1": "5d84b0dd3b55b073",
    "lu_solve/float64/5/2": "fe954c1034016c26",
    "solve/float64/5/2": "fe954c1034016c26",
    "solve_right/float64/5/2": "a281fa709efab831",
    "inv/float64/5/2": "0790c0ad6bcfa0e3",
    "cholesky/float64/5/2": "453ddc99d9ec490e",
    "lu_solve/float64/8/0": "67cc6d5c4ee29e75",
    "solve/float64/8/0": "67cc6d5c4ee29e75",
    "solve_right/float64/8/0": "f6ac7b238229d976",
    "inv/float64/8/0": "5d883fe9b5125263",
    "cholesky/float64/8/0": "53ed06f7af4dab4e",
    "lu_solve/float64/8/1": "791f384f1751dccb",
    "solve/float64/8/1": "791f384f1751dccb",
    "solve_right/float64/8/1": "1caa4fc5a1f2c413",
    "inv/float64/8/1": "464017f1c53e52cc",
    "cholesky/float64/8/1": "07fb625239d71524",
    "lu_solve/float64/8/2": "8eb92acfc9321429",
    "solve/float64/8/2": "8eb92acfc9321429",
    "solve_right/float64/8/2": "0515ad67b47820de",
    "inv/float64/8/2": "588b5fc8edfaa348",
    "cholesky/float64/8/2": "4e88863d5f9a9c18",
    "solve_grad/float32/3": "c3d75864aed7c4a8",
    "solve_grad_vec/float32/3": "3f51fe23341e2b00",
    "solve_grad/float32/5": "6f2e7481892af5d4",
    "solve_grad_vec/float32/5": "a2a4db6dff5da9ac",
    "solve_grad/float32/8": "f75eaec6dabd7065",
    "solve_grad_vec/float32/8": "6780f32337102ce1",
    "solve_grad/float32/16": "fe6d095c670877af",
    "solve_grad_vec/float32/16": "c37190a88cafcbbf",
    "solve_grad/float64/3": "ff36db46874c2dee",
    "solve_grad_vec/float64/3": "2178a0c7b8c705c5",
    "solve_grad/float64/5": "2365918a50c16fff",
    "solve_grad_vec/float64/5": "1114091fd5f4286b",
    "solve_grad/float64/8": "865b14dff27abaa4",
    "solve_grad_vec/float64/8": "315af2ac97e486c5",
    "solve_grad/float64/16": "ac0a724ab4e649cb",
    "solve_grad_vec/float64/16": "1494148ff3e53e85",
    "solve_right/complex64/4": "07b157996d9aa5be",  # (torch: its conjugate view, resolved)
    "solve/complex64/4": "3211992d16b880a6",
    "inv/complex64/4": "b9e8d0f3aaf225b0",
    "rfft/float32/21": "df875bc43d38a7e3",
    "rfft/float32/35": "190b1519bc56c5cd",
    "rfft/float32/49": "6731ba43dd37c4b1",
    "rfft/float32/63": "07db4b28d001d2b8",
}


def _why_not_here():
    if not mkl.load():
        return "the mkl wheel (the exact extra) is not installed"
    if cpu.detected() != "amd":
        return (f"recorded on AMD (Zen 4); this CPU is {cpu.detected()!r} and MKL picks its "
                "kernels by CPU")
    if mkl.version()[:2] != mkl.TORCH_MKL:
        return (f"MKL {'.'.join(map(str, mkl.version()))} is loaded; torch 2.13 links 2024.2 "
                "(pip install -e '.[exact]' installs it)")
    return None


def test_every_case_was_recorded():
    assert set(CASES) == set(TORCH)


# MKL's float32 Cholesky divides by an approximate reciprocal (on the EPYC neither a10 / l00 nor
# a10 * (1 / l00) gives its l10 in 93 and 77 of 200 3x3 cases), which an emulator computes
# exactly (qemu-x86_64 -cpu EPYC-Rome: 73 and 47; these records differed there, the rest agreed)
APPROXIMATE_RECIPROCAL = ("cholesky/float32/",)


@pytest.mark.parametrize("name", sorted(TORCH))
def test_lapack_and_fft_bits_equal_real_torch(name):
    reason = _why_not_here()
    if not reason and name.startswith(APPROXIMATE_RECIPROCAL) and cpu.emulated():
        reason = ("this CPU is emulated (cpuid and /proc/cpuinfo disagree): MKL's float32 "
                  "Cholesky starts from an approximate reciprocal the emulator computes exactly")
    if reason:
        print(reason)
        pytest.skip(reason)
    assert digest(CASES[name]()) == TORCH[name]


@pytest.mark.parametrize("with_mkl", [True, False], ids=["mkl", "no-mkl"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_solve_and_inv_are_lu_solve_of_A_own_factors(monkeypatch, with_mkl, dtype):
    """Measured in real torch 2.13 (56 of 56 cases, n = 2..33, float32/float64): solve, solve_ex,
    solve(left=False), batched solve, a vector right side and inv equal lu_solve with
    lu_factor(A) bit for bit (torch factors A itself, not A^T)."""
    if not with_mkl:
        monkeypatch.setattr(mkl, "_LIB", False)
    elif not mkl.load():
        pytest.skip("the mkl wheel (the exact extra) is not installed")
    for n in (2, 3, 5, 8, 17):
        r = np.random.default_rng(n)
        A = torch.from_numpy(r.standard_normal((n, n)).astype(dtype))
        B = torch.from_numpy(r.standard_normal((n, 2)).astype(dtype))
        b = torch.from_numpy(r.standard_normal(n).astype(dtype))
        Ab = torch.from_numpy(r.standard_normal((3, n, n)).astype(dtype))
        Bb = torch.from_numpy(r.standard_normal((3, n, 2)).astype(dtype))
        LU, P = torch.linalg.lu_factor(A)
        assert torch.equal(torch.linalg.solve(A, B), torch.linalg.lu_solve(LU, P, B))
        assert torch.equal(torch.linalg.solve_ex(A, B)[0], torch.linalg.lu_solve(LU, P, B))
        assert torch.equal(torch.linalg.solve(A, B.mT, left=False),
                           torch.linalg.lu_solve(LU, P, B.mT, left=False))
        assert torch.equal(torch.linalg.solve_ex(A, B.mT, left=False)[0],
                           torch.linalg.lu_solve(LU, P, B.mT, left=False))
        assert torch.equal(torch.linalg.solve(A, b), torch.linalg.lu_solve(LU, P, b[:, None])[:, 0])
        assert torch.equal(torch.linalg.inv(A),
                           torch.linalg.lu_solve(LU, P, torch.eye(n, dtype=A.dtype)))
        assert torch.equal(torch.linalg.solve(Ab, Bb),
                           torch.linalg.lu_solve(*torch.linalg.lu_factor(Ab), Bb))
        # and they solve the systems
        a, x = A.numpy(), torch.linalg.solve(A, B).numpy()
        y = torch.linalg.solve(A, B.mT, left=False).numpy()
        np.testing.assert_allclose(a @ x, B.numpy(), rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(y @ a, B.mT.numpy(), rtol=1e-3, atol=1e-3)


def test_version_reads_the_loaded_library():
    v = mkl.version()
    if not mkl.load():
        assert v is None
    else:
        assert len(v) == 3 and v[0] >= 2020 and all(isinstance(p, int) for p in v)


def test_the_exact_extra_pins_the_mkl_torch_links():
    import tomllib
    from pathlib import Path

    from packaging.requirements import Requirement

    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    reqs = [Requirement(r) for r in project["project"]["optional-dependencies"]["exact"]]
    spec = next(r.specifier for r in reqs if r.name == "mkl")
    year, release = mkl.TORCH_MKL
    assert all(spec.contains(f"{year}.{release}.{u}") for u in (0, 1, 2))
    assert not spec.contains("2025.0.1") and not spec.contains(f"{year}.{release + 1}.0")
