"""Complex parameters in torch's optimizers and torch.sgn's scalar loop (issue 28, CXSWEEP).

SGD's fused multiply-add (optim/_more._fma) cast complex values to float64: a complex parameter
lost its imaginary part at every step (w 0.2680+0.j where torch gives 0.2680+0.5120j). The other
optimizers update a complex parameter through view_as_real of it, its gradient and its state, as
torch's do (Adam, AdamW, RMSprop, Adagrad ...); Adagrad's state made complex at construction is
viewed the same way. torch.sgn of complex values divides by the magnitude in the vector loop and
multiplies by its reciprocal in the scalar loop (c10::complex's division: z / std::abs(z)).

EXPECTED lines: real torch 2.13.0 on this project's Intel Sapphire Rapids Xeon (AVX-512), for
OPTIM (Adam's complex64 loss line, a last bit of the loss's sum, left out) and SGN (the last 20
bytes of each result, contiguous and strided).
"""
from __future__ import annotations

import contextlib
import io

from conftest import skip_without_avx512

OPTIM = r"""
for dt in (torch.complex64, torch.complex128):
    for name, mk in [("SGD", lambda w: torch.optim.SGD([w], lr=0.1)), ("SGDm", lambda w: torch.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01)),
                     ("Adam", lambda w: torch.optim.Adam([w], lr=0.1)), ("AdamW", lambda w: torch.optim.AdamW([w], lr=0.1)),
                     ("RMSprop", lambda w: torch.optim.RMSprop([w], lr=0.01)), ("Adagrad", lambda w: torch.optim.Adagrad([w], lr=0.1))]:
        w = torch.tensor([1+1j, 0.5-2j], dtype=dt, requires_grad=True); opt = mk(w)
        for _ in range(3):
            opt.zero_grad(); loss = (w*w.conj()).real.sum() + w.real.sum(); loss.backward(); opt.step()
        print(name, w.tolist(), loss.item())
"""

OPTIM_EXPECTED = """\
SGD [(0.26799994707107544+0.5119999647140503j), (0.012000009417533875-1.0239999294281006j)] 2.879199981689453
SGDm [(-0.4103658199310303+0.05819422006607056j), (-0.4394630193710327-0.11638844013214111j)] 1.229874849319458
AdamW [(0.6982170343399048+0.6989112496376038j), (0.2003980576992035-1.6949446201324463j)] 5.689148426055908
RMSprop [(0.7768514752388+0.7799822688102722j), (0.2799822986125946-1.775349497795105j)] 6.012977123260498
Adagrad [(0.7773244976997375+0.7804561853408813j), (0.28045618534088135-1.7758214473724365j)] 6.0147480964660645
SGD [(0.26799999999999996+0.512j), (0.011999999999999983-1.024j)] 2.8792
SGDm [(-0.41036590100000003+0.058194199j), (-0.4394630005000001-0.116388398j)] 1.2298747415562503
Adam [(0.7009028705180997+0.7015862729460302j), (0.20158627294603026-1.700623392046465j)] 5.712540468523583
AdamW [(0.6982170927380782+0.6989111831582322j), (0.20039802502871823-1.6949445143849768j)] 5.689148026974785
RMSprop [(0.7768514992249173+0.7799822732436351j), (0.2799822732436351-1.7753494456014602j)] 6.012977078509147
Adagrad [(0.7773245390840855+0.7804561813568098j), (0.28045618135680983-1.775821515013063j)] 6.014748407442138
"""

SGN = r"""
rng = np.random.default_rng(3)
for npdt in (np.complex64, np.complex128):
    for n in (3, 17, 4011):
        z = (rng.standard_normal(n) + 1j*rng.standard_normal(n)).astype(npdt)
        print(npdt.__name__, n, torch.sgn(torch.from_numpy(z)).numpy().tobytes().hex()[-40:], torch.sgn(torch.from_numpy(z[::2])).numpy().tobytes().hex()[-40:])
"""

SGN_EXPECTED = """\
complex64 3 4d3989bea3137cbf5a9632bec187633f2aa8eabe 58a2763f4d3989bec187633f2aa8eabe
complex64 17 84ed7f3f487f593fab0507bfdbfd9e3e205873bf 22c2123f8e88c23c85ed7f3fdbfd9e3e205873bf
complex64 4011 a2a07dbf7fc3393fb62530bf4abac73ef0b76b3f b09cbb3ead160b3ea2a07dbf4abac73ef0b76b3f
complex128 3 6d45c3bf21f01d17cb09e7bfd9f508b97f35e6bf 1896b7bf21f01d17cb09e7bfd9f508b97f35e6bf
complex128 17 400ebebfe1b4daafd6c6cb3fcd3e0ca2c93cef3f 25abd03fe1b4daafd6c6cb3fcd3e0ca2c93cef3f
complex128 4011 8dc0e3bfd5ea70f97f64dabf9cb3bbaafe26edbf dbfcd83fd5ea70f97f64dabf9cb3bbaafe26edbf
"""


def _run(probe):
    import gradrepl.torch as torch

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(probe, {"torch": torch, "np": __import__("numpy")})
    return out.getvalue()


def test_complex_parameters_in_optimizers():
    got = _run(OPTIM).splitlines()
    for line in OPTIM_EXPECTED.splitlines():
        assert line in got, line


def test_sgn_vector_and_scalar_loops():
    skip_without_avx512("torch.sgn's vector loop (two AVX-512 vectors a step)")
    assert _run(SGN) == SGN_EXPECTED
