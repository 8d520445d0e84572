"""Paddle's svd / svdvals / eigh / eigvalsh / matrix_norm through real Paddle's reference LAPACK
(gradrepl/paddle/_ref_lapack.py: cmeel-lapack 3.11.0 of the ``exact`` extra with LAPACK 3.10's
rotation and workspaces).

Every literal below was recorded from real Paddle 3.3.1 in this session (Paddle 2.6.2 printed the
same bits for the functions it has: svd, eigh, eigvalsh). Where the backend cannot load (no
``exact`` extra, not Linux x86-64) the bit tests skip saying why, and the fallback test checks
numpy's path still answers to rounding.
"""
from __future__ import annotations

import ctypes
import hashlib
import os

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import _ref_lapack as RL
from gradrepl.paddle import profiles

needs_backend = pytest.mark.skipif(not RL.available(),
                                   reason=f"Paddle's reference LAPACK not loadable: {RL.why()}")

A = np.array([[4., -2., 1.], [3., 6., -4.], [2., 1., 8.], [-1., 5., 2.]])
_I, _J = np.meshgrid(np.arange(33), np.arange(33), indexing="ij")
_M = ((_I * 7 + _J * 3) % 11) - 5.0
H = _M + _M.T                      # 33 x 33: past LAPACK's block size 32, many eigenvalues ~ 0
C = np.array([[2, 1 - 1j, 0.5j, 3], [1 + 1j, -1, 2, 1j], [-0.5j, 2, 4, 1 - 2j],
              [3, -1j, 1 + 2j, 0]])


def _h(arr, dt):
    """The first 16 hex digits of sha256 over the values' bytes in ``dt``."""
    return hashlib.sha256(np.ascontiguousarray(np.asarray(arr, dt)).tobytes()).hexdigest()[:16]


# real Paddle 3.3.1: svd(A) -> S, sha of U and VH, U[0], VH[2]
SVD = {"float32": ([9.386679649353027, 8.072905540466309, 5.264835357666016],
                   "548b1a15f89704b0", "7fa40f3d79ad1d7a",
                   [-0.1944548636674881, -0.07494157552719116, -0.7900732755661011],
                   [-0.9701475501060486, 0.20460492372512817, 0.13019433617591858]),
       "float64": ([9.386678264427113, 8.072904081540187, 5.264835310850996],
                   "7566feab1a5b6ab5", "711788073e3abb74",
                   [-0.19445467169338437, -0.0749415106311016, -0.7900733040235145],
                   [-0.9701475426596777, 0.20460497085926477, 0.13019428317352774])}
# svdvals(A.T) (a wide matrix: ?gesdd without vectors, its rotation to upper bidiagonal)
SVDVALS_T = {"float32": [9.386678695678711, 8.072904586791992, 5.264836311340332],
             "float64": [9.386678264427111, 8.072904081540182, 5.264835310850995]}
NUC = {"float32": 22.72442054748535, "float64": 22.724417656818297}
TWO = {"float32": 9.386679649353027, "float64": 9.386678264427113}
# eigvalsh(H) (stop_gradient: ?syevd jobz 'N'), UPLO='U', eigvalsh of a tensor that needs a
# gradient (the kernel computes the vectors: jobz 'V', eigh's values), eigh's first vector:
# (sha, [0], [16], [-1])
EIG = {"float32": {"L": ("837c44e97603fb17", -68.45233154296875, -8.484929026053578e-08,
                         68.45233917236328),
                   "U": ("4a3b7d548ca83855", -68.45233917236328, -8.184904487507083e-08,
                         68.45233917236328),
                   "grad": ("8f48d46f0e4b7db2", -68.45230865478516, 2.4812430865495116e-07,
                            68.45231628417969),
                   "v0": ("00fb1e473938c07b", 0.39537596702575684, 0.11236381530761719,
                          -0.2340346872806549)},
       "float64": {"L": ("b1f475ce2bee4d0b", -68.45233867071414, 3.5001716452061976e-16,
                         68.4523386707142),
                   "U": ("2f8a243c050dcaf6", -68.45233867071414, -7.945226617657479e-17,
                         68.45233867071408),
                   "grad": ("8ecf64eefac86fbd", -68.4523386707141, 1.3402147935308024e-15,
                            68.45233867071411),
                   "v0": ("1100c534730c20b0", 2.866102025694589e-18, 0.18266208551966834,
                          -0.2547579819598932)}}
CEIG = {"complex64": ([-3.357832670211792, -1.3651655912399292, 3.617929220199585,
                       6.105069160461426], "682a35bd1717beff"),
        "complex128": ([-3.357832684272213, -1.3651656371554008, 3.6179288433772165,
                        6.105069478050397], "8c273ce26483f5af")}


def _summary(arr, dt):
    a = np.asarray(arr, dt)
    return (_h(a, dt), float(a[0]), float(a[16]), float(a[-1]))


@pytest.fixture
def paddle3():
    before = profiles.current().key
    profiles.set_profile("3")
    yield paddle
    profiles.set_profile(before)


@needs_backend
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_svd_is_real_paddles(dt):
    u, s, vh = paddle.linalg.svd(paddle.to_tensor(A.astype(dt)))
    S, hu, hvh, u0, vh2 = SVD[dt]
    assert s.numpy().tolist() == S
    assert (_h(u.numpy(), dt), _h(vh.numpy(), dt)) == (hu, hvh)
    assert u.numpy()[0].tolist() == u0 and vh.numpy()[2].tolist() == vh2


@needs_backend
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_svdvals_and_matrix_norms_are_real_paddles(paddle3, dt):
    x = paddle.to_tensor(A.astype(dt))
    assert paddle.linalg.svdvals(x.T).numpy().tolist() == SVDVALS_T[dt]
    assert paddle.linalg.matrix_norm(x, p="nuc").item() == NUC[dt]
    assert paddle.linalg.matrix_norm(x, p=2).item() == TWO[dt]
    # svdvals (no vectors) and svd's S are two LAPACK paths with their own last bits
    assert SVDVALS_T[dt] != SVD[dt][0]


@needs_backend
@pytest.mark.parametrize("profile", ["3", "2.6"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_eigvalsh_and_eigh_are_real_paddles(dt, profile):
    before = profiles.current().key
    profiles.set_profile(profile)
    try:
        h = paddle.to_tensor(H.astype(dt))
        assert _summary(paddle.linalg.eigvalsh(h).numpy(), dt) == EIG[dt]["L"]
        assert _summary(paddle.linalg.eigvalsh(h, UPLO="U").numpy(), dt) == EIG[dt]["U"]
        hg = paddle.to_tensor(H.astype(dt), stop_gradient=False)
        assert _summary(paddle.linalg.eigvalsh(hg).numpy(), dt) == EIG[dt]["grad"]
        w, v = paddle.linalg.eigh(h)
        assert _summary(w.numpy(), dt) == EIG[dt]["grad"]
        assert _summary(v.numpy()[:, 0], dt) == EIG[dt]["v0"]
    finally:
        profiles.set_profile(before)


@needs_backend
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_hermitian_eigh_is_real_paddles(dt):
    c = paddle.to_tensor(C.astype(dt))
    values, vsha = CEIG[dt]
    assert paddle.linalg.eigvalsh(c).numpy().tolist() == values
    assert _h(paddle.linalg.eigh(c)[1].numpy(), dt) == vsha


@needs_backend
def test_gradients_still_flow():
    x = paddle.to_tensor(A, stop_gradient=False)
    paddle.linalg.svd(x)[1].sum().backward()
    u, _, vh = np.linalg.svd(A, full_matrices=False)
    np.testing.assert_allclose(x.grad.numpy(), u @ vh, atol=1e-12)       # d(sum S)/dA = U V^T


# real Paddle's dlartg_ / slartg_ (paddle/libs/liblapack.so.3, LAPACK 3.10.0): (f, g) -> (c, s, r)
LARTG_D = [((3.0, 4.0), (0.6000000000000001, 0.8, 5.0)),      # 3 * (1/5): 3.11 gives 0.6
           ((-1.0000001, 0.0025), (0.9999968750152733, -0.0024999919375389896,
                                   -1.0000032249948048)),
           ((1e-160, 3e-161), (0.9578262852211513, 0.2873478855663454, 1.044030650891055e-160)),
           ((0.0, -2.0), (0.0, -1.0, 2.0)), ((7.0, 0.0), (1.0, 0.0, 7.0))]
LARTG_S = [((3.0, 4.0), (0.6000000238418579, 0.800000011920929, 5.0)),
           ((-3334495570755584.0, 91220088979456.0),
            (0.9996260404586792, -0.027346258983016014, -3335742990319616.0)),
           ((0.10000000149011612, 0.699999988079071),
            (0.1414213627576828, 0.9899494647979736, 0.7071067690849304))]


@pytest.mark.parametrize("fg,want", LARTG_D)
def test_rotation_is_lapack_310s_double(fg, want):
    assert RL._lartg_310(*fg, float, *RL._D_CONSTS) == want


@pytest.mark.parametrize("fg,want", LARTG_S)
def test_rotation_is_lapack_310s_single(fg, want):
    assert tuple(RL._f32(v) for v in RL._lartg_310(*fg, RL._f32, *RL._S_CONSTS)) == want


def test_rotation_through_the_c_entry():
    """The ctypes entry the library's calls are pointed at writes c, s, r as Fortran does."""
    f, g, c, s, r = (ctypes.c_double(v) for v in (3.0, 4.0, 0, 0, 0))
    RL._LARTG["dlartg_"](*(ctypes.byref(v) for v in (f, g, c, s, r)))
    assert (c.value, s.value, r.value) == LARTG_D[0][1]


def test_soname_rewrite_and_plt_slots():
    """The ELF helpers on a real shared object: numpy's bundled gfortran runtime when there is
    one (the in-memory copy answers to the plain soname), else skip."""
    import numpy

    libs = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs")
    names = [n for n in (os.listdir(libs) if os.path.isdir(libs) else [])
             if n.startswith("libgfortran")]
    if not names:
        pytest.skip("this numpy wheel bundles no libgfortran")
    data = open(os.path.join(libs, names[0]), "rb").read()
    new = RL._with_soname(data, "libgfortran.so.5")
    assert len(new) == len(data) and new != data
    dyn = [s for s in RL._sections(new) if s[0] == 6][0]
    strtab = RL._sections(new)[dyn[3]][1]
    sonames = []
    for k in range(dyn[1], dyn[1] + dyn[2], 16):
        tag, val = np.frombuffer(new[k:k + 16], "<i8")
        if tag == 14:
            sonames.append(RL._cstr(new, strtab + int(val)))
    assert sonames == [b"libgfortran.so.5"]
    with pytest.raises(OSError, match="longer"):
        RL._with_soname(data, "x" * 200)
    slots = RL._plt_slots(data, ["malloc", "no_such_symbol_"])
    assert slots["malloc"] and slots["no_such_symbol_"] == []


def test_without_the_backend_numpy_answers(monkeypatch):
    monkeypatch.setitem(RL._STATE, "lib", None)
    monkeypatch.setitem(RL._STATE, "why", "test")
    assert not RL.available()
    s = paddle.linalg.svd(paddle.to_tensor(A))[1].numpy()
    np.testing.assert_allclose(s, SVD["float64"][0], rtol=1e-13)
    w = paddle.linalg.eigvalsh(paddle.to_tensor(H)).numpy()
    np.testing.assert_allclose(w, np.linalg.eigvalsh(H), atol=1e-12)


# ---------------------------------------------------------------- lu, lu_solve, eig, eigvals
B = np.array([[2., -1., 0.5, 3.], [1., 4., -2., 0.], [-3., 1., 1., 2.], [0.5, 2., 5., -1.]])
RHS = np.array([[1., 2.], [-1., 0.5], [3., -2.], [0., 1.]])
Z = np.array([[1 + 2j, 0.5, -1j], [2, -1 + 1j, 3], [1j, 4, 2 - 1j]])
# real Paddle 3.3.1 (2.6.2 the same where it has the function)
LU32 = [[-3.0, 1.0, 1.0, 2.0],
        [-0.3333333432674408, 4.333333492279053, -1.6666666269302368, 0.6666666865348816],
        [-0.1666666716337204, 0.5, 6.0, -1.0],
        [-0.6666666865348816, -0.07692306488752365, 0.17307695746421814, 4.557692527770996]]
LUS64 = [[-0.5189873417721519, 0.7911392405063292], [-0.02531645569620253, -0.000703234880450054],
         [0.18987341772151897, 0.14416315049226444], [0.6392405063291139, 0.11497890295358654]]
LUST32 = [[0.28129395842552185, 0.4402250349521637], [-0.36427563428878784, 0.41490858793258667],
          [-0.18987341225147247, -0.2721518874168396], [0.46413499116897583, -0.2236286997795105]]
EIGW = {"float32": [(-4.387999534606934, 0.0), (3.1519083976745605, 3.1467578411102295),
                    (3.1519083976745605, -3.1467578411102295), (4.084181785583496, 0.0)],
        "float64": [(-4.388001593032285, 0.0), (3.1519094046958482, 3.146758076295367),
                    (3.1519094046958482, -3.146758076295367), (4.0841827836405855, 0.0)]}
EIGVALS = {"float32": [(-4.388001441955566, 0.0), (3.1519083976745605, 3.146756887435913),
                       (3.1519083976745605, -3.146756887435913), (4.084182262420654, 0.0)],
           "float64": [(-4.388001593032275, 0.0), (3.1519094046958473, 3.1467580762953666),
                       (3.1519094046958473, -3.1467580762953666), (4.084182783640584, 0.0)]}
# eig(B) float64, row 1 of the vectors (the complex pair's conjugate keeps -0.0 in row 0)
EIGV64_ROW1 = [(0.07247884198623293, 0.0), (-0.3704113789222509, -0.15053485100532354),
               (-0.3704113789222509, 0.15053485100532354), (0.7443724503925546, 0.0)]
CEIGW128 = [(-3.4163382076367155, 0.3103195229990423), (0.9220776925834226, 2.1089927873948104),
            (4.494260515053293, -0.4193123103938523)]
CEIGVALS128 = [(4.49426051505329, -0.4193123103938523), (0.9220776925834222, 2.1089927873948096),
               (-3.4163382076367164, 0.3103195229990421)]
CEIGV0_64 = [(-0.09829054772853851, -0.09287966042757034), (0.7968199253082275, 0.0),
             (-0.5762686133384705, -0.12126387655735016)]


def _pairs(a):
    return [(float(z.real), float(z.imag)) for z in np.asarray(a).ravel()]


@needs_backend
def test_lu_and_lu_solve_are_real_paddles(paddle3):
    lu32, piv32 = paddle.linalg.lu(paddle.to_tensor(B.astype("float32")))
    assert lu32.numpy().tolist() == LU32 and piv32.numpy().tolist() == [3, 2, 4, 4]
    assert paddle.linalg.lu_solve(paddle.to_tensor(RHS.astype("float32")), lu32, piv32,
                                  trans="T").numpy().tolist() == LUST32
    lu64, piv64 = paddle.linalg.lu(paddle.to_tensor(B))
    assert paddle.linalg.lu_solve(paddle.to_tensor(RHS), lu64, piv64).numpy().tolist() == LUS64


@needs_backend
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_eig_and_eigvals_are_real_paddles(dt):
    w, v = paddle.linalg.eig(paddle.to_tensor(B.astype(dt)))
    assert _pairs(w.numpy()) == EIGW[dt]
    # eigvals runs ?geev on the transpose, without vectors: other last bits than eig's
    assert _pairs(paddle.linalg.eigvals(paddle.to_tensor(B.astype(dt))).numpy()) == EIGVALS[dt]
    if dt == "float64":
        assert _pairs(v.numpy()[1]) == EIGV64_ROW1
        assert np.signbit(v.numpy()[0, 2].imag)


@needs_backend
def test_complex_eig_and_eigvals_are_real_paddles():
    w, _ = paddle.linalg.eig(paddle.to_tensor(Z))
    assert _pairs(w.numpy()) == CEIGW128
    assert _pairs(paddle.linalg.eigvals(paddle.to_tensor(Z)).numpy()) == CEIGVALS128
    v64 = paddle.linalg.eig(paddle.to_tensor(Z.astype("complex64")))[1]
    assert _pairs(v64.numpy()[:, 0]) == CEIGV0_64


# ---------------------------------------------------------------- lstsq
LX = np.array([[1., 2., 0.5], [3., -1., 2.], [0., 4., 1.], [2., 2., -3.], [1., 0., 1.]])
LY = np.array([[1., 0.], [2., 1.], [-1., 3.], [0.5, 2.], [4., -1.]])
# real Paddle 3.3.1 and 2.6.2 (equal): (solution, rank, singular values) per driver. gelsy is
# not here: Paddle hands it an uninitialised pivot array, and 3.3.1 and 2.6.2 printed different
# float64 solutions for this very input (the backend follows the usual case: no pivoting)
LSTSQ = {
    "gels_float32": ([[0.8089776635169983, 0.29324570298194885],
                      [-0.18375055491924286, 0.5588029026985168],
                      [0.2777233123779297, -0.050062891095876694]], None, None),
    "gelsd_float32": ([[0.808977484703064, 0.2932456433773041],
                       [-0.18375062942504883, 0.558803141117096],
                       [0.2777232527732849, -0.05006289482116699]], 3,
                      [5.138897895812988, 4.077749729156494, 3.4948103427886963]),
    "gelss_float32": ([[0.8089777231216431, 0.293245792388916],
                       [-0.18375056982040405, 0.5588032007217407],
                       [0.27772340178489685, -0.05006290599703789]], 3,
                      [5.138896942138672, 4.077748775482178, 3.4948108196258545]),
    "gels_float64": ([[0.8089777653475041, 0.2932456999021117],
                      [-0.1837505244021814, 0.5588029646203327],
                      [0.27772339532932455, -0.05006292826178164]], None, None),
    "gelsd_float64": ([[0.8089777653475041, 0.2932456999021118],
                       [-0.18375052440218131, 0.5588029646203329],
                       [0.2777233953293249, -0.05006292826178166]], 3,
                      [5.1388974230722955, 4.077748419948337, 3.494810595547314]),
    "gelss_float64": ([[0.8089777653475043, 0.2932456999021117],
                       [-0.18375052440218131, 0.5588029646203324],
                       [0.27772339532932494, -0.05006292826178164]], 3,
                      [5.138897423072298, 4.077748419948337, 3.4948105955473143])}


@needs_backend
@pytest.mark.parametrize("key", sorted(LSTSQ))
def test_lstsq_drivers_are_real_paddles(key):
    driver, dt = key.split("_")
    sol, _res, rank, sv = paddle.linalg.lstsq(paddle.to_tensor(LX.astype(dt)),
                                              paddle.to_tensor(LY.astype(dt)), driver=driver)
    want_sol, want_rank, want_sv = LSTSQ[key]
    assert sol.numpy().tolist() == want_sol
    if want_rank is not None:
        assert rank.numpy().tolist() == want_rank and sv.numpy().tolist() == want_sv


def test_lstsq_gelsy_solves():
    sol = paddle.linalg.lstsq(paddle.to_tensor(LX), paddle.to_tensor(LY))[0].numpy()
    np.testing.assert_allclose(sol, LSTSQ["gelsd_float64"][0], rtol=1e-13)


# ---------------------------------------------------------------- cholesky_solve (?potrs)
CL = np.array([[2., 0., 0.], [0.5, 1.5, 0.], [-1., 0.25, 1.2]])
CB = np.array([[1., 2.], [0., -1.], [3., 0.5]])
# real Paddle 3.3.1 and 2.6.2 (equal); the lower and upper float64 results differ in one bit
CHOLSOLVE = {("float32", False): [[1.610001802444458, 1.3249421119689941],
                                  [-0.5210261940956116, -0.8692129254341125],
                                  [2.4594905376434326, 1.2152776718139648]],
             ("float64", False): [[1.6100019290123457, 1.3249421296296298],
                                  [-0.5210262345679012, -0.8692129629629629],
                                  [2.459490740740741, 1.215277777777778]],
             ("float64", True): [[1.6100019290123457, 1.3249421296296295],
                                 [-0.5210262345679012, -0.8692129629629629],
                                 [2.459490740740741, 1.215277777777778]]}


@needs_backend
@pytest.mark.parametrize("dt,upper", sorted(CHOLSOLVE))
def test_cholesky_solve_is_real_paddles(dt, upper):
    factor = (CL.T.copy() if upper else CL).astype(dt)
    out = paddle.linalg.cholesky_solve(paddle.to_tensor(CB.astype(dt)), paddle.to_tensor(factor),
                                       upper=upper)
    assert out.numpy().tolist() == CHOLSOLVE[(dt, upper)]


def test_a_hook_that_refuses_ctypes_means_numpys_path():
    """``replay --safe``'s child refuses every ctypes event: the backend then stands aside (its
    calls would raise) and numpy's LAPACK answers."""
    import subprocess
    import sys

    code = ("import sys\n"
            "def hook(event, args):\n"
            "    if event.startswith('ctypes.') and sys.flags.dev_mode == 0 and ARMED:\n"
            "        raise PermissionError(event)\n"
            "ARMED = False\n"
            "sys.addaudithook(hook)\n"
            "import gradrepl.paddle as paddle\n"
            "from gradrepl.paddle import _ref_lapack as RL\n"
            "loaded = RL.lib() is not None\n"
            "ARMED = True\n"
            "s = paddle.linalg.svd(paddle.to_tensor([[3.0, 1.0], [1.0, 2.0], [0.5, 4.0]]))[1]\n"
            "print(loaded, RL.available(), s.shape)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[1:] == ["False", "[2]"]


def test_svdvals_flattens_the_batch_as_paddle(paddle3):
    """Real Paddle 3.3.1: svdvals of a [2, 3, 4, 5] tensor has shape [6, 4] (its kernel's
    [batch, k]); 3-D keeps [b, k]; with or without the backend."""
    x = paddle.to_tensor(np.arange(120, dtype="float32").reshape(2, 3, 4, 5) % 7)
    assert paddle.linalg.svdvals(x).shape == [6, 4]
    assert paddle.linalg.svdvals(x[0]).shape == [3, 4]
    np.testing.assert_allclose(paddle.linalg.svdvals(x).numpy()[4],
                               np.linalg.svd(x.numpy()[1, 1], compute_uv=False), rtol=1e-5)


@needs_backend
def test_mkl_loaded_first_does_not_interpose():
    """MKL's dispatcher puts its BLAS/LAPACK in the global scope once the torch dialect used it;
    the reference libraries must still call their own routines (RTLD_DEEPBIND). The full suite
    ran the torch tests first and eigvals, lu_solve, lstsq ... came out with MKL's bits."""
    import subprocess
    import sys

    from gradrepl.engine import mkl

    if not mkl.load():
        pytest.skip("MKL (the exact extra) is not installed: nothing to interpose")
    script = os.path.join(os.path.dirname(__file__), "data", "ref_lapack_order.py")
    outs = [subprocess.run([sys.executable, script, how], capture_output=True, text=True,
                           timeout=300, check=True).stdout for how in ("none", "mkl")]
    assert outs[0].startswith("True ") and outs[0] == outs[1]
