"""torch.linalg.matrix_exp of complex matrices (issue 28, CXSWEEP): the degree choice compared a
real 1-norm with thresholds cast to the complex dtype (numpy's ceil of a complex value: TypeError)
and the gradient exponentiated [[A^T, G], [0, A^T]] where aten's linalg_matrix_exp_differential
takes A^H (complex gradients were wrong); a product of mismatched dtypes names them as ATen
(c10::complex<float>). EXPECTED: real torch 2.13.0's output of PROBE on this project's Intel
Sapphire Rapids Xeon.
"""
from __future__ import annotations

import contextlib
import io

PROBE = r"""
for dt in (torch.complex64, torch.complex128):
    m=torch.tensor([[2+1j, 0.5-1j, 0.25j],[1-1j, 3+0j, -1+2j],[0.5+0.5j, -1j, 1.5+0.25j]],dtype=dt)
    print(torch.linalg.matrix_exp(m).tolist()); print(torch.linalg.matrix_exp(m*0.01).tolist())
    m=torch.tensor([[2+1j, 0.5-1j],[1-1j, 3+0j]],dtype=dt,requires_grad=True); torch.linalg.matrix_exp(m).abs().sum().backward(); print(m.grad)
    try: m @ torch.ones(2,2)
    except RuntimeError as e: print(e)
"""

EXPECTED = """\
[[(4.411220073699951-0.6282997131347656j), (13.475948333740234-11.311718940734863j), (2.837172031402588+13.821496963500977j)], [(11.381806373596191-9.338577270507812j), (32.53499221801758-1.9801945686340332j), (-13.765426635742188+27.318180084228516j)], [(-1.6289310455322266-1.2789554595947266j), (4.699540138244629-13.102912902832031j), (11.613080978393555+8.733476638793945j)]]
[[(1.0201188325881958+0.010131476446986198j), (0.005190520081669092-0.010227646678686142j), (6.032498640706763e-05+0.0026466501876711845j)], [(0.0102276261895895-0.010176912881433964j), (1.0305315256118774-2.550516182964202e-05j), (-0.010240527801215649+0.020455878227949142j)], [(0.005005612503737211+0.0050687589682638645j), (5.106372918817215e-05-0.010240484960377216j), (1.0152055025100708+0.0025955387391149998j)]]
tensor([[17.8754-2.3996j, 26.7478-2.8547j],
        [22.4722+2.8482j, 37.8561+2.3996j]])
expected m1 and m2 to have the same dtype, but got: c10::complex<float> != float
[[(4.411220480231719-0.6282994701714133j), (13.475945358550625-11.311718805218714j), (2.837173240102912+13.821493034321167j)], [(11.381809819943252-9.338577157629308j), (32.53499508919241-1.9801951673217832j), (-13.765426585589841+27.318182428920277j)], [(-1.6289305111975572-1.2789556155218644j), (4.6995402146543706-13.102911921292527j), (11.613081580360689+8.733475444025107j)]]
[[(1.020118836904585+0.01013147639426221j), (0.005190520101362691-0.01022764712449702j), (6.032499274418066e-05+0.002646650362727731j)], [(0.010227626155874529-0.010176913009505925j), (1.0305316042767243-2.5505166791694585e-05j), (-0.010240527765578458+0.020455878888804513j)], [(0.005005612450014929+0.005068759106229783j), (5.1063736250235016e-05-0.010240484858310209j), (1.0152054416698635+0.002595538725103116j)]]
tensor([[17.8754-2.3996j, 26.7478-2.8547j],
        [22.4722+2.8482j, 37.8561+2.3996j]], dtype=torch.complex128)
expected m1 and m2 to have the same dtype, but got: c10::complex<double> != float
"""


def test_complex_matrix_exp_as_real_torch():
    import gradrepl.torch as torch

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROBE, {"torch": torch})
    assert out.getvalue() == EXPECTED
