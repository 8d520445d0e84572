"""Complex ops of the torch dialect with torch's gradients and names (issue 28, CXSWEEP).

Found by the complex sweep (/tmp/cxsweep, against real torch 2.13 here): ``torch.sgn``,
``view_as_real``, ``view_as_complex`` and ``cumsum`` of complex tensors recorded no gradient
("element 0 of tensors does not require grad"; cumsum cast complex to int64); ``torch.complex``
was ``re + im * 1j`` (grad_fn AddBackward0, and a -0. imaginary part came out +0.); ``.real``/
``.imag`` were RealBackward0/ImagBackward0 where torch's are selects of view_as_real
(SelectBackward0); ``prod``/``cumprod`` gradients were not conjugated; ``angle``'s gradient had
-0. where torch's ``grad * z / |z|^2 * 1j`` gives 0.; torch.complex's dtype errors named no types.

EXPECTED is real torch 2.13.0's output of PROBE on this project's Intel Sapphire Rapids Xeon.
"""
from __future__ import annotations

import contextlib
import io

PROBE = """\
for dt in (torch.complex64, torch.complex128):
    rdt = torch.float32 if dt == torch.complex64 else torch.float64
    a = torch.tensor([1.5+2j, -0.5-1j, 3+0j, 0j], dtype=dt, requires_grad=True)
    s = torch.sgn(a); print(s, s.grad_fn.name()); s.real.sum().backward(); print(a.grad)
    a.grad = None
    r = torch.view_as_real(a); print(r.grad_fn.name()); r.pow(2).sum().backward(); print(a.grad)
    x = torch.tensor([[1., 2.], [3., -4.]], dtype=rdt, requires_grad=True)
    z = torch.view_as_complex(x); (z * z).imag.sum().backward(); print(x.grad, z.grad_fn.name())
    w = torch.tensor([0.5, -1., 2.], dtype=rdt, requires_grad=True)
    z = torch.complex(w, 2 * w); z.abs().sum().backward(); print(w.grad, z.grad_fn.name(), z)
    print(torch.complex(torch.tensor([1., -0.], dtype=rdt), torch.tensor([-0., 0.], dtype=rdt)))
    print(a.real.grad_fn.name(), a.imag.grad_fn.name())
    z = torch.tensor([1+2j, 3-1j], dtype=dt); v = torch.view_as_real(z); v[0, 1] = 5.; print(z)
    for f in [lambda a: torch.angle(a).sum(), lambda a: torch.cumsum(a, 0).abs().sum(),
              lambda a: (a.sum() * a.prod()).abs(), lambda a: a.prod(0).real]:
        a = torch.tensor([1.5+2j, -0.5-1j, 3+0j], dtype=dt, requires_grad=True)
        loss = f(a); loss.backward(); print(loss, a.grad)
    z = torch.tensor([0j, 1+0j, complex(-1, -0.)], dtype=dt, requires_grad=True)
    z.angle().sum().backward(); print(z.grad)
    a = torch.tensor([[1.5+2j, -0.5-1j, 3+0j], [0.25-1j, 2+0.5j, -1.5+4j]], dtype=dt)
    print(a.cumsum(1).tolist(), a.cumprod(1).tolist(), a.prod(1).tolist())
for re, im in ((torch.tensor([1, 2]), torch.tensor([3, 4])), (torch.tensor([1.]), torch.tensor([3.], dtype=torch.float64))):
    try:
        torch.complex(re, im)
    except RuntimeError as e:
        print(e)
"""

EXPECTED = """\
tensor([ 0.6000+0.8000j, -0.4472-0.8944j,  1.0000+0.0000j,  0.0000+0.0000j],
       grad_fn=<SgnBackward0>) SgnBackward0
tensor([0.2560-0.1920j, 0.7155-0.3578j, 0.0000+0.0000j, 0.0000+0.0000j])
ViewAsRealBackward0
tensor([ 3.+4.j, -1.-2.j,  6.+0.j,  0.+0.j])
tensor([[ 4.,  2.],
        [-8.,  6.]]) ViewAsComplexBackward0
tensor([ 2.2361, -2.2361,  2.2361]) ComplexBackward0 tensor([ 0.5000+1.j, -1.0000-2.j,  2.0000+4.j], grad_fn=<ComplexBackward0>)
tensor([1.-0.j, -0.+0.j])
SelectBackward0 SelectBackward0
tensor([1.+5.j, 3.-1.j])
tensor(-1.1071, grad_fn=<SumBackward0>) tensor([-0.3200+0.2400j,  0.8000-0.4000j,  0.0000+0.3333j])
tensor(8.0373, grad_fn=<SumBackward0>) tensor([2.2772+1.7496j, 1.6772+0.9496j, 0.9701+0.2425j])
tensor(34.5733, grad_fn=<AbsBackward0>) tensor([16.4325+13.0972j, -5.6944-25.6249j, 19.6593+2.0337j])
tensor(3.7500, grad_fn=<SelectBackward0>) tensor([-1.5000+3.0000j,  4.5000-6.0000j,  1.2500+2.5000j])
tensor([0.+0.j, 0.+1.j, -0.-1.j])
[[(1.5+2j), (1+1j), (4+1j)], [(0.25-1j), (2.25-0.5j), (0.75+3.5j)]] [[(1.5+2j), (1.25-2.5j), (3.75-7.5j)], [(0.25-1j), (1-1.875j), (6+6.8125j)]] [(3.75-7.5j), (6+6.8125j)]
tensor([ 0.6000+0.8000j, -0.4472-0.8944j,  1.0000+0.0000j,  0.0000+0.0000j],
       dtype=torch.complex128, grad_fn=<SgnBackward0>) SgnBackward0
tensor([0.2560-0.1920j, 0.7155-0.3578j, 0.0000+0.0000j, 0.0000+0.0000j],
       dtype=torch.complex128)
ViewAsRealBackward0
tensor([ 3.+4.j, -1.-2.j,  6.+0.j,  0.+0.j], dtype=torch.complex128)
tensor([[ 4.,  2.],
        [-8.,  6.]], dtype=torch.float64) ViewAsComplexBackward0
tensor([ 2.2361, -2.2361,  2.2361], dtype=torch.float64) ComplexBackward0 tensor([ 0.5000+1.j, -1.0000-2.j,  2.0000+4.j], dtype=torch.complex128,
       grad_fn=<ComplexBackward0>)
tensor([1.-0.j, -0.+0.j], dtype=torch.complex128)
SelectBackward0 SelectBackward0
tensor([1.+5.j, 3.-1.j], dtype=torch.complex128)
tensor(-1.1071, dtype=torch.float64, grad_fn=<SumBackward0>) tensor([-0.3200+0.2400j,  0.8000-0.4000j,  0.0000+0.3333j],
       dtype=torch.complex128)
tensor(8.0373, dtype=torch.float64, grad_fn=<SumBackward0>) tensor([2.2772+1.7496j, 1.6772+0.9496j, 0.9701+0.2425j],
       dtype=torch.complex128)
tensor(34.5733, dtype=torch.float64, grad_fn=<AbsBackward0>) tensor([16.4325+13.0972j, -5.6944-25.6249j, 19.6593+2.0337j],
       dtype=torch.complex128)
tensor(3.7500, dtype=torch.float64, grad_fn=<SelectBackward0>) tensor([-1.5000+3.0000j,  4.5000-6.0000j,  1.2500+2.5000j],
       dtype=torch.complex128)
tensor([0.+0.j, 0.+1.j, -0.-1.j], dtype=torch.complex128)
[[(1.5+2j), (1+1j), (4+1j)], [(0.25-1j), (2.25-0.5j), (0.75+3.5j)]] [[(1.5+2j), (1.25-2.5j), (3.75-7.5j)], [(0.25-1j), (1-1.875j), (6+6.8125j)]] [(3.75-7.5j), (6+6.8125j)]
Expected both inputs to be Half, Float or Double tensors but got Long and Long
Expected object of scalar type Float but got scalar type Double for second argument
"""


def test_complex_ops_print_real_torch_output():
    import gradrepl.torch as torch

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROBE, {"torch": torch})
    assert out.getvalue() == EXPECTED
