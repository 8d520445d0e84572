"""Complex creation and conversion in the torch dialect (issue 28, CXSWEEP), against real torch
2.13 here: a complex tensor cast to a real dtype warns once as torch (TORCH_WARN_ONCE, Copy.cpp:307;
it was numpy's ComplexWarning at every cast) and keeps its gradient; arange with a complex dtype
and randint with one refuse as torch; float()/int() of a complex value with an imaginary part
refuse (c10's checked_convert); linspace takes complex endpoints (complex64 by default) and
complex dtypes; full() with a complex fill and a real dtype refuses unless the imaginary part is 0.

EXPECTED is real torch 2.13.0's stdout for PROBE on this project's Intel Sapphire Rapids Xeon;
its stderr was the one warning checked below.
"""
from __future__ import annotations

import contextlib
import io
import warnings

PROBE = r"""
for dt in (torch.complex64, torch.complex128):
    z = torch.tensor([1.5+2j, -3-4j], dtype=dt)
    print(z.to(torch.float32), z.float(), z.double(), z.long(), z.to(torch.int64), z.bool(), z.half())
    z = torch.tensor([1+1j], dtype=dt, requires_grad=True); r = z.to(torch.float32)
    r.sum().backward(); print(z.grad, r.grad_fn.name())
    print(torch.linspace(0, 1, 4, dtype=dt), torch.linspace(-1-2j, 3+1j, 5, dtype=dt).tolist())
    for f in (lambda: torch.arange(0, 3, dtype=dt), lambda: torch.randint(0, 3, (2,), dtype=dt),
              lambda: float(torch.tensor([1+2j], dtype=dt)[0]), lambda: int(torch.tensor([1+2j], dtype=dt)[0]),
              lambda: float(torch.tensor(2+0j, dtype=dt))):
        try:
            print(f())
        except Exception as e:
            print(type(e).__name__, e)
print(torch.linspace(0, 1+1j, 5))
for f in (lambda: torch.full((2,), 1+2j, dtype=torch.float32), lambda: torch.full((2,), 1+2j, dtype=torch.float64),
          lambda: torch.full((2,), 1+2j, dtype=torch.int64), lambda: torch.full((2,), 1+0j, dtype=torch.float32)):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
"""

EXPECTED = """\
tensor([ 1.5000, -3.0000]) tensor([ 1.5000, -3.0000]) tensor([ 1.5000, -3.0000], dtype=torch.float64) tensor([ 1, -3]) tensor([ 1, -3]) tensor([True, True]) tensor([ 1.5000, -3.0000], dtype=torch.float16)
tensor([1.+0.j]) ToCopyBackward0
tensor([0.0000+0.j, 0.3333+0.j, 0.6667+0.j, 1.0000+0.j]) [(-1-2j), -1.25j, (1-0.5j), (2+0.25j), (3+1j)]
NotImplementedError "arange_cpu" not implemented for 'ComplexFloat'
RuntimeError check_random_bounds handles only integral, floating-point and boolean types
RuntimeError value cannot be converted to type double without overflow
RuntimeError value cannot be converted to type int64_t without overflow
2.0
tensor([ 1.5000, -3.0000]) tensor([ 1.5000, -3.0000]) tensor([ 1.5000, -3.0000], dtype=torch.float64) tensor([ 1, -3]) tensor([ 1, -3]) tensor([True, True]) tensor([ 1.5000, -3.0000], dtype=torch.float16)
tensor([1.+0.j], dtype=torch.complex128) ToCopyBackward0
tensor([0.0000+0.j, 0.3333+0.j, 0.6667+0.j, 1.0000+0.j],
       dtype=torch.complex128) [(-1-2j), -1.25j, (1-0.5j), (2+0.25j), (3+1j)]
NotImplementedError "arange_cpu" not implemented for 'ComplexDouble'
RuntimeError check_random_bounds handles only integral, floating-point and boolean types
RuntimeError value cannot be converted to type double without overflow
RuntimeError value cannot be converted to type int64_t without overflow
2.0
tensor([0.0000+0.0000j, 0.2500+0.2500j, 0.5000+0.5000j, 0.7500+0.7500j,
        1.0000+1.0000j])
RuntimeError value cannot be converted to type float without overflow
RuntimeError value cannot be converted to type double without overflow
RuntimeError value cannot be converted to type int64_t without overflow
tensor([1., 1.])
"""


def test_complex_creation_and_casts_as_real_torch():
    import gradrepl.torch as torch
    from gradrepl.torch import _ops_shape

    seen = _ops_shape._warn_once.__defaults__[0]   # (TORCH_WARN_ONCE: a fresh process's state)
    seen.difference_update({m for m in seen if "imaginary" in m})
    out = io.StringIO()
    with warnings.catch_warnings(record=True) as ws, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        exec(PROBE, {"torch": torch})
    assert out.getvalue() == EXPECTED
    casts = [w for w in ws if "imaginary" in str(w.message)]
    assert [str(w.message) for w in casts][:1] == [
        "Casting complex values to real discards the imaginary part (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)"]
