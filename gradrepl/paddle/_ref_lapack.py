"""Reference LAPACK as Paddle's CPU kernels call it: the optional backend that gives
``paddle.linalg`` svd, svdvals, eigh, eigvalsh, eig, eigvals, lu, lu_solve, cholesky_solve and
lstsq (and what Paddle composes from them: matrix_norm 2/-2/'nuc', pinv, cond ...) real Paddle's
last bits.

Real Paddle (3.3.1 and 2.6.2 alike) calls the reference LAPACK 3.10.0 and reference BLAS it ships
(``paddle/libs/liblapack.so.3``, ``libblas.so.3``, built by gfortran 4.8 without FMA, so the same
bits on every x86-64): ``?gesdd`` (jobz 'S'/'A' with a fixed workspace for svd, 'N' with a query
for svdvals), ``?syevd`` / ``?heevd``, ``?geev`` (eig: right vectors; eigvals: none, on the
transpose), ``?getrf`` / ``?getrs``, ``?potrs``, ``?gels`` / ``?gelsy`` / ``?gelsd`` / ``?gelss``.
Each function below follows one kernel's call (its transposes, workspace, arguments). MKL and
OpenBLAS give other last bits. (Paddle's cholesky, inv, det, solve and qr are Eigen's, not here.)

No PyPI wheel carries reference LAPACK 3.10. ``cmeel-lapack`` 3.11.0 (in the ``exact`` extra,
Linux x86-64) is reference LAPACK and BLAS, and differs from 3.10.0 on the paths Paddle takes in
two places only, both undone here:

* ``?syevd`` / ``?heevd``'s workspace query with jobz 'N' answers more in 3.11 (room for the
  blocked tridiagonal reduction), so eigenvalues of n >= 32 came out of another summation order;
  here the workspace is the size 3.10 answers (real ``2n+1``, complex ``n+32``).
* ``slartg`` / ``dlartg`` (plane rotations, in every QR sweep) divide by the norm in 3.11 where
  3.10 multiplies by its reciprocal (and 3.10's safe range is narrower). 3.10's rotation is
  written below in Python and the library's calls to its own ``slartg_`` / ``dlartg_`` are
  pointed at it (their slots in the library's procedure linkage table; nothing else changes).

The cmeel wheel needs gfortran's runtime (``libgfortran.so.5``, ``libquadmath.so.0``) and does
not bundle it; where the system has none, numpy's wheel ships one (``numpy.libs``, under
auditwheel's renamed soname): an in-memory copy with the plain soname stands in.

Measured against real Paddle 3.3.1 and 2.6.2: 2,016 of 2,016 svd/svdvals/eigh/eigvalsh outputs
(float32, float64, complex64, complex128; 2x2 .. 40x25, Hermitian 2 .. 33; cmeel-lapack alone 7%,
numpy's OpenBLAS 3%); lu, lu_solve, eig, eigvals 36 of 36 each; cholesky_solve 20 of 20; lstsq
gels/gelsd/gelss 70 of 70, gelsy 20 of 28 (Paddle hands gelsy an uninitialised pivot array).
Where the backend cannot load (no wheel, another version, aarch64, not glibc) or ctypes is refused
(``replay --safe``), ``available()`` is False and callers keep numpy's LAPACK.
"""
from __future__ import annotations

import ctypes
import math
import mmap
import os
import struct
import sys

import numpy as np

WANT_VERSION = "3.11."        # cmeel-lapack's reference LAPACK release that differs only as above
_STATE: dict = {}


# ----------------------------------------------------------------------------- ELF (x86-64 .so)
def _sections(data):
    """[(type, offset, size, link, entsize)] of a little-endian ELF64 file's section headers."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise OSError("not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    out = []
    for i in range(shnum):
        _n, typ, _f, _a, off, size, link, _i, _al, ent = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize)
        out.append((typ, off, size, link, ent))
    return out


def _cstr(data, pos):
    return bytes(data[pos:data.index(b"\0", pos)])


def _with_soname(data, soname):
    """A copy of the shared object ``data`` whose DT_SONAME reads ``soname`` (which must not be
    longer than the old one: the string is overwritten in place)."""
    data = bytearray(data)
    secs = _sections(data)
    for typ, off, size, link, _ent in secs:
        if typ != 6:                                       # SHT_DYNAMIC
            continue
        strtab = secs[link][1]
        for k in range(off, off + size, 16):
            tag, val = struct.unpack_from("<qQ", data, k)
            if tag == 14:                                  # DT_SONAME
                pos = strtab + val
                old = _cstr(data, pos)
                new = soname.encode()
                if len(new) > len(old):
                    raise OSError(f"soname {soname} longer than {old!r}")
                data[pos:pos + len(old)] = new + b"\0" * (len(old) - len(new))
                return bytes(data)
    raise OSError("no DT_SONAME")


def _plt_slots(data, names):
    """{symbol: [offsets of its JUMP_SLOT / GLOB_DAT entries]} for ``names``."""
    secs = _sections(data)
    found = {n: [] for n in names}
    # the relocation types by the ELF's e_machine: x86-64's GLOB_DAT/JUMP_SLOT are 6/7,
    # aarch64's 1025/1026 (numpy's libgfortran on aarch64; the backend itself is x86-64 only)
    slot_types = {183: (1025, 1026)}.get(struct.unpack_from("<H", data, 18)[0], (6, 7))
    for typ, off, size, link, _ent in secs:
        if typ != 4:                                       # SHT_RELA
            continue
        _t, symoff, _s, strlink, _e = secs[link]
        stroff = secs[strlink][1]
        for k in range(off, off + size, 24):
            r_offset, r_info, _add = struct.unpack_from("<QQq", data, k)
            if (r_info & 0xFFFFFFFF) not in slot_types:
                continue
            st_name, = struct.unpack_from("<I", data, symoff + (r_info >> 32) * 24)
            name = _cstr(data, stroff + st_name).decode()
            if name in found:
                found[name].append(r_offset)
    return found


# ------------------------------------------------------------------------ LAPACK 3.10's rotation
def _f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def _lartg_310(f, g, rnd, safmin, safmax, rtmin, rtmax):
    """(c, s, r) of LAPACK 3.10.0's la_xlartg: the reciprocal of the norm, then products. Every
    operation is rounded by ``rnd`` (float64 arithmetic rounded once is float32's own result for
    + - * / sqrt)."""
    f1, g1 = abs(f), abs(g)
    if g == 0:
        return 1.0, 0.0, f
    if f == 0:
        return 0.0, math.copysign(1.0, g), g1
    if rtmin < f1 < rtmax and rtmin < g1 < rtmax:
        d = rnd(math.sqrt(rnd(rnd(f * f) + rnd(g * g))))
        p = rnd(1.0 / d)
        return rnd(f1 * p), rnd(g * math.copysign(p, f)), math.copysign(d, f)
    u = min(safmax, max(safmin, f1, g1))
    uu = rnd(1.0 / u)
    fs, gs = rnd(f * uu), rnd(g * uu)
    d = rnd(math.sqrt(rnd(rnd(fs * fs) + rnd(gs * gs))))
    p = rnd(1.0 / d)
    return rnd(abs(fs) * p), rnd(gs * math.copysign(p, f)), rnd(math.copysign(d, f) * u)


def _consts(rnd, emin, emax, digits):
    """safmin, safmax, rtmin, rtmax as 3.10's la_constants / la_xlartg set them (rtmin is
    sqrt(safmin / eps), rtmax sqrt(safmax * eps); 3.11 moved both)."""
    safmin = 2.0 ** max(emin - 1, 1 - emax)
    safmax = 1.0 / safmin
    eps = 2.0 ** (1 - digits)
    return safmin, safmax, rnd(math.sqrt(safmin / eps)), rnd(math.sqrt(safmax * eps))


_D_CONSTS = _consts(float, -1021, 1024, 53)      # minexponent, maxexponent, digits of real(8)
_S_CONSTS = _consts(_f32, -125, 128, 24)         # ... of real(4)


def _make_lartg(ctype, rnd, consts):
    P = ctypes.POINTER(ctype)

    @ctypes.CFUNCTYPE(None, P, P, P, P, P)
    def lartg(f, g, c, s, r):
        c[0], s[0], r[0] = _lartg_310(f[0], g[0], rnd, *consts)
    return lartg


_LARTG = {"dlartg_": _make_lartg(ctypes.c_double, float, _D_CONSTS),
          "slartg_": _make_lartg(ctypes.c_float, _f32, _S_CONSTS)}


# ----------------------------------------------------------------------------- loading
class _DlInfo(ctypes.Structure):
    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]


def _memfd_lib(data, name):
    """dlopen a shared object held in memory (a memfd: nothing written to disk); where memfds
    are refused (``--safe``'s child), a file in a private temporary folder, removed once loaded
    where removing is allowed."""
    try:
        fd = os.memfd_create(name)
    except OSError:
        import shutil
        import tempfile

        folder = tempfile.mkdtemp(prefix="gradrepl-ref-lapack-")
        path = os.path.join(folder, name)
        with open(path, "wb") as fh:
            fh.write(data)
        try:
            return ctypes.CDLL(path)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    os.write(fd, data)
    try:
        return ctypes.CDLL(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)


def _gfortran_runtime():
    """Make ``libgfortran.so.5`` and ``libquadmath.so.0`` resolvable for the cmeel libraries: the
    system's when present, else numpy's bundled copies under their plain sonames."""
    try:
        ctypes.CDLL("libgfortran.so.5")
        ctypes.CDLL("libquadmath.so.0")
        return "system"
    except OSError:
        pass
    import numpy
    libs = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs")
    names = os.listdir(libs)
    quad = [n for n in names if n.startswith("libquadmath")]
    gfor = [n for n in names if n.startswith("libgfortran")]
    if not quad or not gfor:
        raise OSError("no gfortran runtime (system or numpy.libs)")
    # numpy's libgfortran needs its libquadmath by the renamed soname: load that one as it is,
    # then the in-memory copies that answer to the names the cmeel libraries ask for.
    ctypes.CDLL(os.path.join(libs, quad[0]))
    for fname, soname in ((gfor[0], "libgfortran.so.5"), (quad[0], "libquadmath.so.0")):
        with open(os.path.join(libs, fname), "rb") as fh:
            _STATE.setdefault("keep", []).append(
                _memfd_lib(_with_soname(fh.read(), soname), soname))
    return "numpy.libs"


def _patch_rotations(lib, path):
    """Point the library's calls to ``slartg_`` / ``dlartg_`` at LAPACK 3.10's rotation."""
    with open(path, "rb") as fh:
        data = fh.read()
    slots = _plt_slots(data, list(_LARTG))
    info = _DlInfo()
    libc = ctypes.CDLL(None)
    if not libc.dladdr(ctypes.cast(lib.dgesdd_, ctypes.c_void_p), ctypes.byref(info)):
        raise OSError("dladdr failed")
    base = info.fbase
    page = mmap.PAGESIZE
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    for name, offs in slots.items():
        if not offs:
            raise OSError(f"{name} is not called through the PLT")
        target = ctypes.cast(_LARTG[name], ctypes.c_void_p).value
        for off in offs:
            addr = base + off
            start = addr - addr % page
            if libc.mprotect(start, page * (2 if addr % page > page - 8 else 1), 3) != 0:
                raise OSError("mprotect failed")
            ctypes.c_void_p.from_address(addr).value = target


def _load():
    if sys.platform != "linux" or struct.calcsize("P") != 8 or os.uname().machine != "x86_64":
        raise OSError("the reference-LAPACK backend is built for x86-64 Linux only")
    from importlib import metadata

    dist = metadata.distribution("cmeel-lapack")
    if not dist.version.startswith(WANT_VERSION):
        raise OSError(f"cmeel-lapack {dist.version} installed; {WANT_VERSION}x gives Paddle's bits")
    libdir = str(dist.locate_file("cmeel.prefix/lib"))
    _STATE["runtime"] = _gfortran_runtime()
    # RTLD_DEEPBIND: the reference libraries' calls (LAPACK to its own routines and to the
    # reference BLAS) bind inside them first. Without it, a BLAS/LAPACK already in the global
    # scope (MKL's layers, which its dispatcher loads globally once the torch dialect used it)
    # interposes on them, and eigvals, lu_solve, lstsq ... took MKL's bits.
    deep = ctypes.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 8)
    _STATE["blas"] = ctypes.CDLL(os.path.join(libdir, "libblas.so.3"), mode=deep)
    path = os.path.join(libdir, "liblapack.so.3")
    lib = ctypes.CDLL(path, mode=deep)
    _patch_rotations(lib, path)
    return lib


def lib():
    """The loaded reference LAPACK (ctypes), or None (``why()`` says why)."""
    if "lib" not in _STATE:
        if os.environ.get("GRADREPL_NO_REF_LAPACK"):
            _STATE["lib"], _STATE["why"] = None, "GRADREPL_NO_REF_LAPACK is set"
        else:
            try:
                _STATE["lib"] = _load()
            except (OSError, ImportError, ValueError) as e:   # PackageNotFoundError is ImportError
                _STATE["lib"], _STATE["why"] = None, f"{type(e).__name__}: {e}"
    return _STATE["lib"]


def _ctypes_allowed():
    """False under an audit hook that refuses ctypes (``replay --safe``'s child: every foreign
    call raises there), which can be installed after the library loaded."""
    try:
        sys.audit("ctypes.call_function", 0, ())
    except Exception:      # noqa: BLE001 - whatever the hook raises means no
        return False
    return True


def available():
    return lib() is not None and _ctypes_allowed()


def why():
    lib()
    return _STATE.get("why", "")


# ----------------------------------------------------------------------------- the calls
_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}
_I = ctypes.c_int


def _fn(name, dtype):
    f = getattr(lib(), _PREFIX[np.dtype(dtype)] + name + "_")
    f.restype = None
    return f


def _i(v):
    return ctypes.byref(_I(int(v)))


def _p(a):
    return None if a is None else a.ctypes.data_as(ctypes.c_void_p)


def _real(dtype):
    return np.empty(0, dtype).real.dtype


def gesdd(a, jobz="S"):
    """(U, S, VH) of one m x n matrix as Paddle's svd kernel calls ``?gesdd`` (jobz 'S' or 'A',
    Paddle's fixed workspace ``4 mn^2 + 7 mn`` / ``4 mn^2 + 6 mn + mx``); jobz 'N' is its
    svdvals kernel (workspace query, U and VH None)."""
    m, n = a.shape
    mn, mx = min(m, n), max(m, n)
    A = np.array(a, order="F", copy=True)
    S = np.zeros(mn, _real(a.dtype))
    info = _I(0)
    f = _fn("gesdd", a.dtype)
    if jobz == "N":
        W = np.zeros(1, a.dtype)
        f(b"N", _i(m), _i(n), _p(A), _i(m), _p(S), None, _i(1), None, _i(1), _p(W), _i(-1),
          None, ctypes.byref(info))
        lw = max(1, int(W[0].real))
        W = np.zeros(lw, a.dtype)
        f(b"N", _i(m), _i(n), _p(A), _i(m), _p(S), None, _i(1), None, _i(1), _p(W), _i(lw),
          None, ctypes.byref(info))
        U = VH = None
    else:
        full = jobz == "A"
        ldvt = n if full else mn
        U = np.zeros((m, m if full else mn), a.dtype, order="F")
        VH = np.zeros((ldvt, n), a.dtype, order="F")
        lw = 4 * mn * mn + 6 * mn + mx if full else 4 * mn * mn + 7 * mn
        W = np.zeros(lw, a.dtype)
        IW = np.zeros(8 * mn, np.int32)
        f(jobz.encode(), _i(m), _i(n), _p(A), _i(m), _p(S), _p(U), _i(m), _p(VH), _i(ldvt),
          _p(W), _i(lw), _p(IW), ctypes.byref(info))
    if info.value != 0:
        raise ValueError(f"?gesdd info {info.value}")
    return U, S, VH


def syevd(a, upper=False, vectors=True):
    """(w ascending, V or None) of one Hermitian matrix as Paddle's eigh kernel calls
    ``?syevd`` / ``?heevd`` (the triangle ``upper`` or lower of the matrix as it stands)."""
    n = a.shape[-1]
    A = np.array(a, order="F", copy=True)
    rd = _real(a.dtype)
    w = np.zeros(n, rd)
    info = _I(0)
    jz, up = (b"V" if vectors else b"N"), (b"U" if upper else b"L")
    cplx = np.iscomplexobj(A)
    W, RW, IW = np.zeros(1, a.dtype), np.zeros(1, rd), np.zeros(1, np.int32)
    f = _fn("heevd" if cplx else "syevd", a.dtype)
    if cplx:
        f(jz, up, _i(n), _p(A), _i(max(1, n)), _p(w), _p(W), _i(-1), _p(RW), _i(-1), _p(IW),
          _i(-1), ctypes.byref(info))
        lw, lrw, liw = (max(1, int(W[0].real)), max(1, int(RW[0])), max(1, int(IW[0])))
        if not vectors and n > 1:                      # LAPACK 3.10's answer (see the docstring)
            lw, lrw, liw = n + 32, n, 1
        W, RW, IW = np.zeros(lw, a.dtype), np.zeros(lrw, rd), np.zeros(liw, np.int32)
        f(jz, up, _i(n), _p(A), _i(max(1, n)), _p(w), _p(W), _i(lw), _p(RW), _i(lrw), _p(IW),
          _i(liw), ctypes.byref(info))
    else:
        f(jz, up, _i(n), _p(A), _i(max(1, n)), _p(w), _p(W), _i(-1), _p(IW), _i(-1),
          ctypes.byref(info))
        lw, liw = max(1, int(W[0])), max(1, int(IW[0]))
        if not vectors and n > 1:
            lw, liw = 2 * n + 1, 1
        W, IW = np.zeros(lw, a.dtype), np.zeros(liw, np.int32)
        f(jz, up, _i(n), _p(A), _i(max(1, n)), _p(w), _p(W), _i(lw), _p(IW), _i(liw),
          ctypes.byref(info))
    if info.value != 0:
        raise ValueError(f"?syevd info {info.value}")
    return w, (A if vectors else None)


def getrf(a):
    """(LU packed, 1-based int32 pivots, info) of one m x n matrix as Paddle's lu kernel."""
    m, n = a.shape
    A = np.array(a, order="F", copy=True)
    piv = np.zeros(max(1, min(m, n)), np.int32)
    info = _I(0)
    _fn("getrf", a.dtype)(_i(m), _i(n), _p(A), _i(max(1, m)), _p(piv), ctypes.byref(info))
    return A, piv[:min(m, n)], info.value


def getrs(lu, piv, b, trans="N"):
    """The solution of A x = b (``trans`` 'T': A^T x = b) from A's packed LU, one matrix, as
    Paddle's lu_solve kernel."""
    n, nrhs = b.shape
    A = np.array(lu, order="F", copy=True)
    B = np.array(b, order="F", copy=True)
    P = np.ascontiguousarray(piv, np.int32)
    info = _I(0)
    _fn("getrs", b.dtype)(trans.encode(), _i(n), _i(nrhs), _p(A), _i(max(1, n)), _p(P), _p(B),
                          _i(max(1, n)), ctypes.byref(info))
    if info.value != 0:
        raise ValueError(f"?getrs info {info.value}")
    return B


def potrs(c, b, upper=False):
    """The solution of (L L^T) x = b (or U^T U) from the Cholesky factor ``c``, one matrix, as
    Paddle's cholesky_solve kernel calls ``?potrs``."""
    n, nrhs = b.shape
    A = np.array(c, order="F", copy=True)
    B = np.array(b, order="F", copy=True)
    info = _I(0)
    _fn("potrs", b.dtype)(b"U" if upper else b"L", _i(n), _i(nrhs), _p(A), _i(max(1, n)),
                          _p(B), _i(max(1, n)), ctypes.byref(info))
    if info.value != 0:
        raise ValueError(f"?potrs info {info.value}")
    return B


def _cdtype(dtype):
    return np.complex64 if np.dtype(dtype) in (np.float32, np.complex64) else np.complex128


def _geev(A, jobvr, lwork=None):
    """``?geev`` jobvl 'N' on the column-major copy ``A`` (overwritten): (w complex, VR or None,
    lwork used); ``lwork`` None queries it."""
    n = A.shape[0]
    cplx = np.iscomplexobj(A)
    rd = _real(A.dtype)
    w = np.zeros(n if cplx else 2 * n, A.dtype)
    VR = np.zeros((n, n), A.dtype, order="F") if jobvr == "V" else None
    RW = np.zeros(2 * n, rd) if cplx else None
    info = _I(0)
    f = _fn("geev", A.dtype)

    def call(W, lw):
        args = [b"N", jobvr.encode(), _i(n), _p(A), _i(max(1, n))]
        args += [_p(w)] if cplx else [_p(w[:n]), _p(w[n:])]
        args += [None, _i(1), _p(VR), _i(max(1, n) if VR is not None else 1), _p(W), _i(lw)]
        args += [_p(RW)] if cplx else []
        f(*args, ctypes.byref(info))

    if lwork is None:
        W = np.zeros(1, A.dtype)
        call(W, -1)
        lwork = max(1, int(W[0].real))
    call(np.zeros(lwork, A.dtype), lwork)
    if info.value != 0:
        raise ValueError(f"?geev info {info.value}")
    wc = w.astype(_cdtype(A.dtype)) if cplx else (w[:n] + 1j * w[n:]).astype(_cdtype(A.dtype))
    return wc, VR, lwork


def eig(x):
    """Batched (w, V) complex, as Paddle's eig kernel: ``?geev`` (right vectors) on each matrix
    with a workspace queried on it; a real matrix's vectors paired by the sign of the imaginary
    part as Paddle pairs them (a value whose imaginary part is under 1e-6 counts as real)."""
    def one(m):
        w, VR, _ = _geev(np.array(m, order="F", copy=True), "V")
        if np.iscomplexobj(m):
            return w, VR
        n = m.shape[0]
        V = VR.astype(w.dtype)
        j = 0
        while j < n:
            if w[j].imag < 1e-6:
                j += 1
                continue
            V.real[:, j], V.imag[:, j] = VR[:, j], VR[:, j + 1]       # (a, b), (a, -b): -0.0
            V.real[:, j + 1], V.imag[:, j + 1] = VR[:, j], -VR[:, j + 1]   # as Paddle's
            j += 2
        return w, V
    return _batched(one, x, 2)


def eigvals(x):
    """Batched eigenvalues as Paddle's eigvals kernel: ``?geev`` without vectors on each matrix's
    row-major storage (so LAPACK sees its transpose), the workspace queried once."""
    flat = x.reshape((-1,) + x.shape[-2:])
    lwork, out = None, []
    for m in flat:
        w, _, lw = _geev(np.array(m.T, order="F", copy=True), "N", lwork)
        lwork = lw if lwork is None else lwork
        out.append(w)
    return np.stack(out).reshape(x.shape[:-1])


def lstsq(a, b, rcond, driver="gelsy"):
    """Batched least squares as Paddle's lstsq kernel: (solution [..., n, k], rank int32 [...],
    singular values [..., min(m, n)] or None). ``?gels`` / ``?gelsy`` / ``?gelsd`` / ``?gelss``
    on each matrix with the workspace queried on the first; rcond rounded to the dtype."""
    m, n = a.shape[-2:]
    k = b.shape[-1]
    dt = a.dtype
    rc = np.array([rcond], dt)
    ldb = max(1, m, n)
    A = [np.array(x, order="F", copy=True) for x in a.reshape((-1, m, n))]
    B = []
    for y in b.reshape((-1, m, k)):
        buf = np.zeros((ldb, k), dt, order="F")
        buf[:m] = y
        B.append(buf)
    mn = min(m, n)
    S = [np.zeros(max(1, mn), dt) for _ in A]
    # Paddle hands gelsy an uninitialised pivot array: measured, its entries are nonzero in most
    # calls (every column a leading column, so no column pivoting); a zero left in it by an
    # earlier tensor lets LAPACK pivot that column, which no rule here can foresee
    jpvt = np.ones(max(1, n), np.int32)
    rank, info = _I(0), _I(0)
    f = _fn(driver, dt)

    def call(i, W, lw, IW=None):
        head = [_i(m), _i(n), _i(k), _p(A[i]), _i(max(1, m)), _p(B[i]), _i(ldb)]
        if driver == "gels":
            f(b"N", *head, _p(W), _i(lw), ctypes.byref(info))
        elif driver == "gelsy":
            f(*head, _p(jpvt), _p(rc), ctypes.byref(rank), _p(W), _i(lw), ctypes.byref(info))
        elif driver == "gelsd":
            f(*head, _p(S[i]), _p(rc), ctypes.byref(rank), _p(W), _i(lw), _p(IW),
              ctypes.byref(info))
        else:
            f(*head, _p(S[i]), _p(rc), ctypes.byref(rank), _p(W), _i(lw), ctypes.byref(info))

    W, IW = np.zeros(1, dt), np.zeros(1, np.int32)
    call(0, W, -1, IW)
    lw = max(1, int(W[0]))
    W, IW = np.zeros(lw, dt), np.zeros(max(1, int(IW[0])), np.int32)
    ranks = []
    for i in range(len(A)):
        call(i, W, lw, IW)
        if info.value != 0:
            raise ValueError(f"?{driver} info {info.value}")
        ranks.append(rank.value)
    lead = a.shape[:-2]
    sol = np.stack([x[:n] for x in B]).reshape(lead + (n, k))
    sv = (np.stack([x[:mn] for x in S]).reshape(lead + (mn,))
          if driver in ("gelsd", "gelss") else None)
    return sol, np.array(ranks, np.int32).reshape(lead), sv


def _batched(fn, x, n_out):
    """Apply ``fn`` (one matrix -> tuple) over the leading dims of ``x``; stack the results."""
    lead = x.shape[:-2]
    flat = x.reshape((-1,) + x.shape[-2:])
    res = [fn(m) for m in flat]
    return tuple(np.stack([r[k] for r in res]).reshape(lead + np.shape(res[0][k]))
                 for k in range(n_out))


def svd(x, full_matrices=False):
    """Batched (U, S, VH) as Paddle's svd kernel."""
    return _batched(lambda m: gesdd(m, "A" if full_matrices else "S"), x, 3)


def svdvals(x):
    """Batched singular values as Paddle's svdvals kernel (jobz 'N')."""
    return _batched(lambda m: (gesdd(m, "N")[1],), x, 1)[0]


def eigh(x, UPLO="L", vectors=True):
    """Batched (w, V) (V None without ``vectors``) as Paddle's eigh / eigvalsh kernels."""
    if vectors:
        return _batched(lambda m: syevd(m, UPLO == "U", True), x, 2)
    return _batched(lambda m: (syevd(m, UPLO == "U", False)[0],), x, 1)[0], None


# ----------------------------------------------------------------------------- the engine ops
_REAL = (np.dtype(np.float32), np.dtype(np.float64))
_ANY = _REAL + (np.dtype(np.complex64), np.dtype(np.complex128))
_OPS: dict = {}


def usable(x, complex_ok=False):
    """Whether the Tensor ``x`` goes through this backend: loadable, a dtype Paddle's kernel
    takes here, and no empty matrix (numpy's path answers those)."""
    a = x.data
    return (a.dtype in (_ANY if complex_ok else _REAL) and a.ndim >= 2 and a.size > 0
            and available())


def op_like(op, forward):
    """A copy of the engine op ``op`` (its VJP, names and flags) whose forward is ``forward``."""
    key = (op.name, forward)
    if key not in _OPS:
        import copy

        new = copy.copy(op)
        new.forward = forward
        _OPS[key] = new
    return _OPS[key]


def svd_fwd(x, full_matrices=False):
    return svd(x, full_matrices)


def svd_s_fwd(x):
    """S of Paddle's svd kernel (what matrix_norm 2 / -2 / 'nuc' reduce)."""
    return svd(x)[1]


def svdvals_fwd(x):
    return svdvals(x)


def eigh_fwd(x, UPLO="L", symmetrize=False):
    return eigh(x, UPLO)


def eig_fwd(x):
    return eig(x)


def eigvals_fwd(x):
    """eig's two outputs with eigvals' values (and no vectors: zeros) for the eig op's flags."""
    w = eigvals(x)
    return w, np.zeros(x.shape, w.dtype)
