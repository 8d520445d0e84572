"""Gradients through torch.fft (issue 28, CXSWEEP): the transforms had none ("element 0 of
tensors does not require grad" for a loss through torch.fft.fft). Now fft/ifft/fftn/ifftn/fft2/
ifft2 (FftC2CBackward0, FftR2CBackward0 for real input), rfft/rfftn/rfft2 (FftR2CBackward0) and
irfft/irfftn/irfft2 (FftC2RBackward0) take torch's backward formulas: the opposite transform
under the same normalization, r2c's gradient zero-padded to the full length, c2r's one-sided
bins 1 .. n-m doubled. EXPECTED: real torch 2.13.0's lines for PROBE on this project's Intel
Sapphire Rapids Xeon (MKL's DFTI; ifft of a real input's -0. first gradient is left out).
"""
from __future__ import annotations

import contextlib
import io

from conftest import skip_without_mkl

PROBE = r"""
for dt in (torch.complex64, torch.complex128):
    rdt = torch.float32 if dt == torch.complex64 else torch.float64
    for name, f in [("fft", lambda a: torch.fft.fft(a).abs().sum()), ("ifft", lambda a: torch.fft.ifft(a).real.sum()),
                    ("fft_o", lambda a: torch.fft.fft(a, norm="ortho").imag.sum()), ("ifft_f", lambda a: torch.fft.ifft(a, norm="forward").abs().sum()),
                    ("fft2", lambda a: torch.fft.fft2(a.reshape(2, 3)).abs().sum()), ("ifftn", lambda a: torch.fft.ifftn(a.reshape(3, 2)).real.sum())]:
        a = torch.tensor([1.5+2j, -0.5-1j, 3+0j, 0.25-1j, 2+0.5j, -1.5+4j], dtype=dt, requires_grad=True)
        l = f(a); l.backward(); print(name, a.grad)
    for name, f in [("rfft", lambda x: torch.fft.rfft(x).abs().sum()), ("fft_r", lambda x: torch.fft.fft(x).abs().sum()),
                    ("irfft", lambda x: torch.fft.irfft(torch.fft.rfft(x) * torch.tensor([1, 2j, 3, 1], dtype=dt)).pow(2).sum()),
                    ("rfft2", lambda x: torch.fft.rfft2(x.reshape(2, 3)).abs().sum()), ("irfftn", lambda x: torch.fft.irfftn(torch.fft.rfftn(x.reshape(2, 3)), s=(2, 3)).pow(3).sum()),
                    ("ifft_r", lambda x: torch.fft.ifft(x).imag.sum())]:
        x = torch.tensor([1., -2., 3.5, 0.25, -1., 2.], dtype=rdt, requires_grad=True)
        l = f(x); l.backward(); print(name, x.grad)
    a = torch.tensor([1.5+2j, -0.5-1j], dtype=dt, requires_grad=True)
    print(torch.fft.fft(a).grad_fn.name(), torch.fft.rfft(a.real).grad_fn.name(), torch.fft.irfft(a).grad_fn.name(), torch.fft.fft(a.real).grad_fn.name())
"""

EXPECTED = """\
fft tensor([ 1.1748+1.6287j, -0.0253-1.4041j,  2.4842+0.8580j,  0.2862-1.0120j,
         1.5133-0.2420j, -1.0775+4.2979j])
ifft tensor([1.+0.j, 0.+0.j, 0.+0.j, 0.+0.j, 0.+0.j, 0.+0.j])
fft_o tensor([0.+2.4495j, 0.+0.0000j, 0.+0.0000j, 0.+0.0000j, 0.+0.0000j, 0.+0.0000j])
ifft_f tensor([ 1.1748+1.6287j, -0.0253-1.4041j,  2.4842+0.8580j,  0.2862-1.0120j,
         1.5133-0.2420j, -1.0775+4.2979j])
fft2 tensor([ 0.7364+0.5175j,  0.9422-0.8140j,  2.8771+0.5306j,  0.7245+0.0992j,
         0.5459-0.8321j, -1.4704+4.6253j])
ifftn tensor([1.+0.j, 0.+0.j, 0.+0.j, 0.+0.j, 0.+0.j, 0.+0.j])
rfft tensor([ 1.2441, -0.6770,  3.8109,  0.7559,  0.9450, -0.0789])
fft_r tensor([ 0.4881, -1.3541,  5.6219,  1.5119, -0.1100, -0.1578])
irfft tensor([  1.0000, -37.7500,  42.2500,   1.5000, -36.2500,  36.7500])
rfft2 tensor([ 2.2250,  0.1776,  3.5973, -0.2250,  0.0903,  0.1347])
irfftn tensor([ 3.0000, 12.0000, 36.7500,  0.1875,  3.0000, 12.0000])
FftC2CBackward0 FftR2CBackward0 FftC2RBackward0 FftR2CBackward0
fft tensor([ 1.1748+1.6287j, -0.0253-1.4041j,  2.4842+0.8580j,  0.2862-1.0120j,
         1.5133-0.2420j, -1.0775+4.2979j], dtype=torch.complex128)
ifft tensor([1.+0.j, 0.+0.j, 0.+0.j, 0.+0.j, 0.+0.j, 0.+0.j],
       dtype=torch.complex128)
fft_o tensor([0.+2.4495j, 0.+0.0000j, 0.+0.0000j, 0.+0.0000j, 0.+0.0000j, 0.+0.0000j],
       dtype=torch.complex128)
ifft_f tensor([ 1.1748+1.6287j, -0.0253-1.4041j,  2.4842+0.8580j,  0.2862-1.0120j,
         1.5133-0.2420j, -1.0775+4.2979j], dtype=torch.complex128)
fft2 tensor([ 0.7364+0.5175j,  0.9422-0.8140j,  2.8771+0.5306j,  0.7245+0.0992j,
         0.5459-0.8321j, -1.4704+4.6253j], dtype=torch.complex128)
ifftn tensor([1.+0.j, 0.+0.j, 0.+0.j, 0.+0.j, 0.+0.j, 0.+0.j],
       dtype=torch.complex128)
rfft tensor([ 1.2441, -0.6770,  3.8109,  0.7559,  0.9450, -0.0789],
       dtype=torch.float64)
fft_r tensor([ 0.4881, -1.3541,  5.6219,  1.5119, -0.1100, -0.1578],
       dtype=torch.float64)
irfft tensor([  1.0000, -37.7500,  42.2500,   1.5000, -36.2500,  36.7500],
       dtype=torch.float64)
rfft2 tensor([ 2.2250,  0.1776,  3.5973, -0.2250,  0.0903,  0.1347],
       dtype=torch.float64)
irfftn tensor([ 3.0000, 12.0000, 36.7500,  0.1875,  3.0000, 12.0000],
       dtype=torch.float64)
FftC2CBackward0 FftR2CBackward0 FftC2RBackward0 FftR2CBackward0
"""


def test_fft_gradients_as_real_torch():
    skip_without_mkl("torch.fft's transforms (MKL's DFTI)")
    import gradrepl.torch as torch

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROBE, {"torch": torch})
    got = out.getvalue().splitlines()
    for line in EXPECTED.splitlines():
        assert line in got, line
