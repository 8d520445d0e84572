"""torch's refusals of complex tensors and its real-valued moments of them (issue 28, CXSWEEP).

``_complex_unsupported.TABLE``: the functions without a complex CPU kernel raise torch's
exception and message (clamp/relu, maximum, comparisons, floor, sort, argmax, max() ...); they
computed numpy's answers (clamp of complex values by numpy's ordering, ``a < b`` lexicographic)
or raised numpy's TypeError. ``var``/``std``/``norm`` of complex tensors are real (the real
parts' variance plus the imaginary parts'; the norm of the magnitudes); they were complex.

EXPECTED lines are real torch 2.13.0's output of PROBE on this project's Intel Sapphire Rapids
Xeon (the few lines gradrepl does not reproduce yet are left out: logaddexp and sinc of complex
values, softmax's refusal).
"""
from __future__ import annotations

import contextlib
import io

PROBE = r"""
a = torch.tensor([1+2j, 3-1j]); b = torch.tensor([2+0j, 1+1j])
tests = {
 "clamp": lambda: torch.clamp(a, 0, 1), "clamp_min": lambda: torch.clamp_min(a, 0), "clamp_max": lambda: torch.clamp_max(a, 0),
 "clip": lambda: torch.clip(a, 0, 1), "relu": lambda: torch.relu(a), "F.relu": lambda: torch.nn.functional.relu(a),
 "maximum": lambda: torch.maximum(a, b), "minimum": lambda: torch.minimum(a, b), "fmax": lambda: torch.fmax(a, b),
 "lt": lambda: a < b, "le": lambda: a <= b, "gt": lambda: a > b, "ge": lambda: torch.ge(a, b), "lt_s": lambda: a < 1,
 "floor": lambda: torch.floor(a), "ceil": lambda: torch.ceil(a), "round": lambda: torch.round(a), "trunc": lambda: torch.trunc(a), "frac": lambda: torch.frac(a),
 "atan2": lambda: torch.atan2(a, b), "max": lambda: a.max(), "min": lambda: a.min(), "max_dim": lambda: a.max(0), "amax": lambda: a.amax(),
 "argmax": lambda: a.argmax(), "argmin": lambda: a.argmin(), "sort": lambda: a.sort(), "argsort": lambda: a.argsort(), "topk": lambda: a.topk(1), "unique": lambda: a.unique(),
 "nansum": lambda: a.nansum(), "cdist": lambda: torch.cdist(a[None], a[None]), "abs_": lambda: a.clone().abs_(), "sign": lambda: torch.sign(a),
 "remainder": lambda: a % 2, "floor_divide": lambda: a // 2, "fmod": lambda: torch.fmod(a, 2), "heaviside": lambda: torch.heaviside(a, b),
 "erf": lambda: torch.erf(a), "lgamma": lambda: torch.lgamma(a), "digamma": lambda: torch.digamma(a), "logit": lambda: torch.logit(a),
 "cummax": lambda: torch.cummax(a, 0), "median": lambda: a.median(), "kthvalue": lambda: a.kthvalue(1), "msort": lambda: torch.msort(a),
 "hardtanh": lambda: torch.nn.functional.hardtanh(a), "gelu": lambda: torch.nn.functional.gelu(a), "softplus": lambda: torch.nn.functional.softplus(a),
 "bitwise": lambda: a & b, "isposinf": lambda: torch.isposinf(a), "signbit": lambda: torch.signbit(a), "copysign": lambda: torch.copysign(a, b),
 "xlogy": lambda: torch.xlogy(a, b), "hypot": lambda: torch.hypot(a, b), "rad2deg": lambda: torch.rad2deg(a), "deg2rad": lambda: torch.deg2rad(a),
 "logaddexp": lambda: torch.logaddexp(a, b), "histc": lambda: torch.histc(a), "bucketize": lambda: torch.bucketize(a, b), "clamp_t": lambda: a.clamp(min=b),
 "std": lambda: a.std(), "var": lambda: a.var(), "norm": lambda: a.norm(), "mean": lambda: a.mean(), "logsumexp": lambda: torch.logsumexp(a, 0),
 "softmax": lambda: torch.softmax(a, 0), "sigmoid_": lambda: torch.sigmoid(a), "exp2": lambda: torch.exp2(a), "sinc": lambda: torch.sinc(a),
}
for k, f in tests.items():
    try:
        r = f(); print(k, "OK", r)
    except Exception as e:
        print(k, "EXC", type(e).__name__, str(e).split("\n")[0])
"""

EXPECTED = """\
clamp EXC NotImplementedError clamp is not supported for complex types
clamp_min EXC NotImplementedError clamp is not supported for complex types
clamp_max EXC NotImplementedError clamp is not supported for complex types
clip EXC NotImplementedError clamp is not supported for complex types
relu EXC NotImplementedError clamp is not supported for complex types
F.relu EXC NotImplementedError clamp is not supported for complex types
maximum EXC RuntimeError maximum not implemented for complex tensors.
minimum EXC RuntimeError minimum not implemented for complex tensors.
fmax EXC RuntimeError fmax not implemented for complex tensors.
lt EXC NotImplementedError "lt_cpu" not implemented for 'ComplexFloat'
le EXC NotImplementedError "le_cpu" not implemented for 'ComplexFloat'
gt EXC NotImplementedError "gt_cpu" not implemented for 'ComplexFloat'
ge EXC NotImplementedError "ge_cpu" not implemented for 'ComplexFloat'
lt_s EXC NotImplementedError "lt_cpu" not implemented for 'ComplexFloat'
floor EXC NotImplementedError floor is not supported for complex inputs
ceil EXC NotImplementedError ceil is not supported for complex inputs
round EXC NotImplementedError "round_vml_cpu" not implemented for 'ComplexFloat'
trunc EXC NotImplementedError trunc is not supported for complex inputs
frac EXC NotImplementedError "frac_cpu" not implemented for 'ComplexFloat'
atan2 EXC NotImplementedError "atan2_cpu" not implemented for 'ComplexFloat'
max EXC NotImplementedError "max_all" not implemented for 'ComplexFloat'
min EXC NotImplementedError "min_all" not implemented for 'ComplexFloat'
max_dim EXC RuntimeError max(): does not support complex input
amax EXC NotImplementedError "max_values_cpu" not implemented for 'ComplexFloat'
argmax EXC RuntimeError argmax(): does not support complex input
argmin EXC RuntimeError argmin(): does not support complex input
sort EXC RuntimeError  Sort does not support complex dtypes on CPU
argsort EXC RuntimeError  Sort does not support complex dtypes on CPU
topk EXC RuntimeError  topk does not support complex dtypes on CPU
unique EXC NotImplementedError "unique" not implemented for 'ComplexFloat'
nansum EXC RuntimeError nansum on CPU does not support complex inputs
cdist EXC RuntimeError cdist only supports floating-point dtypes, X1 got: ComplexFloat
abs_ EXC RuntimeError In-place abs is not supported for complex tensors.
sign EXC NotImplementedError Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.
remainder EXC NotImplementedError "remainder_cpu" not implemented for 'ComplexFloat'
floor_divide EXC NotImplementedError "div_floor_cpu" not implemented for 'ComplexFloat'
fmod EXC NotImplementedError "fmod_cpu" not implemented for 'ComplexFloat'
heaviside EXC RuntimeError heaviside is not yet implemented for complex tensors.
erf EXC NotImplementedError "erf_vml_cpu" not implemented for 'ComplexFloat'
lgamma EXC NotImplementedError "lgamma_vml_cpu" not implemented for 'ComplexFloat'
digamma EXC NotImplementedError "digamma" not implemented for 'ComplexFloat'
logit EXC NotImplementedError "logit_cpu" not implemented for 'ComplexFloat'
cummax EXC NotImplementedError "cummax_cpu" not implemented for 'ComplexFloat'
median EXC NotImplementedError "median_cpu" not implemented for 'ComplexFloat'
kthvalue EXC NotImplementedError "kthvalue_cpu" not implemented for 'ComplexFloat'
msort EXC RuntimeError  Sort does not support complex dtypes on CPU
hardtanh EXC NotImplementedError clamp is not supported for complex types
gelu EXC NotImplementedError "GeluKernelImpl" not implemented for 'ComplexFloat'
softplus EXC NotImplementedError "softplus_cpu" not implemented for 'ComplexFloat'
bitwise EXC NotImplementedError "bitwise_and_cpu" not implemented for 'ComplexFloat'
isposinf EXC RuntimeError isposinf does not support complex inputs.
signbit EXC NotImplementedError signbit is not implemented for complex tensors.
copysign EXC NotImplementedError "copysign_cpu" not implemented for 'ComplexFloat'
xlogy EXC NotImplementedError "xlogy_cpu" not implemented for 'ComplexFloat'
hypot EXC NotImplementedError "hypot_cpu" not implemented for 'ComplexFloat'
rad2deg EXC RuntimeError rad2deg is not supported for complex tensors.
deg2rad EXC RuntimeError deg2rad is not supported for complex tensors.
histc EXC NotImplementedError "aminmax_cpu" not implemented for 'ComplexFloat'
bucketize EXC NotImplementedError "searchsorted_out_cpu" not implemented for 'ComplexFloat'
clamp_t EXC NotImplementedError clamp is not supported for complex types
std OK tensor(2.5495)
var OK tensor(6.5000)
norm OK tensor(3.8730)
mean OK tensor(2.+0.5000j)
logsumexp OK tensor(2.8564-0.9780j)
sigmoid_ OK tensor([1.0214+0.4034j, 0.9722-0.0397j])
exp2 OK tensor([0.3669+1.9661j, 6.1539-5.1117j])
"""

MOMENTS = """\
for dt in (torch.complex64, torch.complex128):
    a=torch.tensor([[1.5+2j, -0.5-1j, 3+0j],[0.25-1j, 2+0.5j, -1.5+4j]],dtype=dt, requires_grad=True)
    print(a.std(), a.var(1), a.norm(), torch.linalg.vector_norm(a, 1), torch.linalg.norm(a), a.norm(dim=1))
    a.var().backward(); print(a.grad); a.grad=None; a.norm().backward(); print(a.grad)
    print(torch.var_mean(a, 1))
"""


def _run(probe):
    import gradrepl.torch as torch

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(probe, {"torch": torch})
    return out.getvalue()


def test_complex_refusals_as_real_torch():
    got = _run(PROBE).splitlines()
    for line in EXPECTED.splitlines():
        assert line in got, line


def test_complex_moments_are_real():
    out = _run(MOMENTS)
    # real torch 2.13: std 2.5662, var(1) [5.4167, 9.6458], norm 6.3295, 1-norm 13.9824
    for text in ("tensor(2.5662", "tensor([5.4167, 9.6458]", "tensor(6.3295", "tensor(13.9824",
                 "tensor([4.0620, 4.8541]"):
        assert text in out, text
    assert "complex" not in out.splitlines()[0]
