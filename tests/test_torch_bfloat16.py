"""torch.bfloat16 in the torch dialect (gradrepl/torch/_bfloat16.py): the dtype, tensors of it,
rounding, ATen's per-op roundings and torch.autocast('cpu').

Every literal below was recorded from real torch 2.13 on this machine (AMD EPYC Zen 4 with
avx512_bf16, CPU build) by running the same expressions (/tmp/bf16/rec.py of the BF16 session):
the values are printed with ``tolist()`` (exact: a bfloat16 is a float32 with 16 zero bits).
Elementwise rounding is computed in float32 and rounded once to nearest even: CPU-independent.
The bf16 matmul/linear cases came from oneDNN's avx512_bf16 kernels there; gradrepl computes them
in float32 and rounds, so they skip (with the reason) where gradrepl's own float32 sums may
differ: a CPU without AVX-512.
"""
import hashlib
import random

import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F
from gradrepl.torch import _bfloat16

from conftest import skip_without_avx512


def vals(n, k=37, m=101, s=50.0):
    return [((i * k) % m) / s - 1.0 for i in range(n)]


X = torch.tensor(vals(40)).bfloat16()
Y = torch.tensor(vals(40, 53, 97, 30.0)).bfloat16()
nan = float("nan")
inf = float("inf")

XV = [-1.0, -0.259765625, 0.48046875, -0.80078125, -0.06005859375, 0.6796875, -0.6015625, 0.1396484375, 0.87890625, -0.400390625, 0.33984375, -0.94140625, -0.2001953125, 0.5390625, -0.73828125, 0.0, 0.73828125, -0.5390625, 0.2001953125, 0.94140625, -0.33984375, 0.400390625, -0.87890625, -0.1396484375, 0.6015625, -0.6796875, 0.06005859375, 0.80078125, -0.48046875, 0.259765625, 1.0, -0.279296875, 0.4609375, -0.8203125, -0.080078125, 0.66015625, -0.62109375, 0.1201171875, 0.859375, -0.419921875]
ROUND = [1.0, 1.015625, -1.0, inf, 9.183549615799121e-41, nan, 3.140625]
MULSC = [-0.30078125, -0.078125, 0.14453125, -0.240234375, -0.01806640625, 0.2041015625, -0.1806640625, 0.0419921875, 0.263671875, -0.1201171875, 0.10205078125, -0.283203125, -0.06005859375, 0.162109375, -0.2216796875, 0.0, 0.2216796875, -0.162109375, 0.06005859375, 0.283203125, -0.10205078125, 0.1201171875, -0.263671875, -0.0419921875, 0.1806640625, -0.2041015625, 0.01806640625, 0.240234375, -0.14453125, 0.078125, 0.30078125, -0.083984375, 0.138671875, -0.24609375, -0.0240478515625, 0.1982421875, -0.1865234375, 0.0361328125, 0.2578125, -0.1259765625]
ADDALPHA = [-1.296875, -0.029541015625, 0.26953125, -0.478515625, -0.1806640625, 1.09375, -0.6328125, 0.640625, 0.9375, 0.19140625, 0.490234375, -1.234375, 0.040771484375, 0.337890625, -0.40625, -0.1103515625, 1.15625, -0.55859375, 0.7109375, 1.0078125, 0.26171875, 0.5625, -1.15625, 0.11083984375, 0.412109375, -0.33984375, -0.040283203125, 1.234375, -0.490234375, 0.78125, 1.078125, 0.33203125, 0.6328125, -1.09375, 0.181640625, 0.48046875, -0.271484375, 0.02978515625, 1.296875, -0.419921875]
RSQRT = [0.89453125, 1.40625, 1.171875, 0.9765625, 1.796875, 1.0390625, 1.0859375, 1.6015625, 0.94140625, 1.2421875, 1.3046875, 0.91796875, 1.4921875, 1.125, 1.0078125, 2.0, 1.0078125, 1.125, 1.4921875, 0.91796875, 1.3046875, 1.2421875, 0.94140625, 1.6015625, 1.0859375, 1.0390625, 1.796875, 0.9765625, 1.171875, 1.40625, 0.89453125, 1.375, 1.1875, 0.96875, 1.7421875, 1.046875, 1.0703125, 1.640625, 0.94921875, 1.21875]
LSM = [[-3.390625, -2.640625, -1.90625, -3.1875, -2.453125, -1.703125, -2.984375, -2.25, -1.5078125, -2.78125], [-2.15625, -3.4375, -2.703125, -1.96875, -3.25, -2.5, -1.765625, -3.046875, -2.296875, -1.5625], [-2.734375, -1.9921875, -3.28125, -2.53125, -1.796875, -3.078125, -2.328125, -1.59375, -2.875, -2.140625], [-1.5703125, -2.84375, -2.109375, -3.390625, -2.65625, -1.90625, -3.1875, -2.453125, -1.7109375, -2.984375]]
SUM = [-0.9453125, 0.33984375, -0.396484375, 0.87890625]
SUM_ALL, MEAN_ALL = -0.1201171875, -0.0030059814453125
CUMSUM = [-1.0, -1.2578125, -0.78125, -1.578125, -1.640625, -0.9609375, -1.5625, -1.421875, -0.54296875, -0.9453125, -0.60546875, -1.546875, -1.7421875, -1.203125, -1.9453125, -1.9453125, -1.203125, -1.7421875, -1.546875, -0.60546875, -0.9453125, -0.54296875, -1.421875, -1.5625, -0.9609375, -1.640625, -1.578125, -0.78125, -1.2578125, -1.0, 0.0, -0.279296875, 0.181640625, -0.640625, -0.71875, -0.05859375, -0.6796875, -0.55859375, 0.30078125, -0.1201171875]
GELU = [-0.1591796875, -0.10302734375, 0.328125, -0.169921875, -0.028564453125, 0.51171875, -0.1650390625, 0.07763671875, 0.7109375, -0.1376953125, 0.21484375, -0.1630859375, -0.083984375, 0.380859375, -0.169921875, 0.0, 0.56640625, -0.1591796875, 0.1162109375, 0.77734375, -0.12451171875, 0.26171875, -0.1669921875, -0.06201171875, 0.4375, -0.1689453125, 0.031494140625, 0.6328125, -0.1513671875, 0.15625, 0.83984375, -0.10888671875, 0.3125, -0.1689453125, -0.03759765625, 0.4921875, -0.166015625, 0.06591796875, 0.69140625, -0.1416015625]
LINEAR = [[1.421875, 0.353515625, 5.75], [-2.78125, 1.6484375, 3.546875], [-2.84375, 1.4921875, 3.53125], [-2.890625, 1.3359375, 3.5], [-2.953125, 1.1875, 3.484375]]
SDPA = [-0.5, 0.3203125, -0.439453125, 0.380859375, -0.439453125, 0.380859375, -0.37890625, 0.44140625, -0.365234375, 0.453125, -0.306640625, 0.515625, -0.27734375, 0.54296875, -0.2177734375, 0.6015625, -0.1689453125, 0.65234375, -0.109375, 0.7109375, 0.10009765625, 0.921875, 0.16015625, 0.98046875, 0.146484375, 0.96875, 0.20703125, 0.41015625, 0.14453125, 0.859375, 0.2041015625, 0.546875, 0.1484375, 0.8359375, 0.2080078125, 0.59765625, 0.154296875, 0.82421875, 0.2138671875, 0.64453125, 0.69921875, -0.06005859375, 0.76171875, 0.0, 0.7734375, 0.0133056640625, 0.83203125, 0.0732421875, 0.86328125, 0.10302734375, 0.921875, 0.1630859375, 0.88671875, 0.12451171875, 0.65234375, 0.1845703125, 0.8203125, 0.09033203125, 0.74609375, 0.150390625, -0.279296875, 0.5390625, -0.2197265625, 0.6015625, -0.2119140625, 0.609375, -0.15234375, 0.66796875, -0.1298828125, 0.69140625, -0.06982421875, 0.75, -0.030029296875, 0.7890625, 0.02978515625, 0.8515625, -0.01519775390625, 0.8046875, 0.044677734375, 0.56640625]
REPR = 'tensor([-1.0000, -0.2598,  0.4805, -0.8008, -0.0601,  0.6797],\n       dtype=torch.bfloat16)'
REPR2 = 'tensor([9.9992e+09, 1.0004e-10, 1.2339e+05], dtype=torch.bfloat16)'


def test_dtype_object():
    bf = torch.bfloat16
    assert str(bf) == repr(bf) == "torch.bfloat16" and bf is not torch.float16
    assert bf.itemsize == 2 and bf.is_floating_point and bf.is_signed and not bf.is_complex
    fi = torch.finfo(bf)
    assert (fi.eps, fi.bits, fi.resolution) == (0.0078125, 16, 0.01)
    assert fi.max == 3.3895313892515355e+38 and fi.tiny == 1.1754943508222875e-38


def test_tensor_basics_and_printing():
    assert X.dtype == torch.bfloat16 and X.element_size() == 2 and X.is_floating_point()
    assert X.type() == "torch.BFloat16Tensor"
    assert X.tolist() == XV
    assert X[3].item() == XV[3] and isinstance(X[3].item(), float)
    assert repr(X[:6]) == REPR
    assert repr(torch.tensor([1e10, 1e-10, 123456.0]).bfloat16()) == REPR2
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        X.numpy()
    assert X.float().dtype == torch.float32 and X.float().tolist() == XV
    assert torch.ones(3, dtype=torch.bfloat16).tolist() == [1.0, 1.0, 1.0]
    assert torch.full((2,), 0.1, dtype=torch.bfloat16).tolist() == [0.10009765625] * 2


def test_round_to_nearest_even_and_nan():
    got = torch.tensor([1.00390625, 1.01171875, -1.00390625, 3.4e38, 1e-40, nan, 3.14159]
                       ).bfloat16().tolist()
    assert got[:5] == ROUND[:5] and got[6] == ROUND[6] and got[5] != got[5]
    # c10::BFloat16's NaN bits (round_to_nearest_even); ties go to even
    assert _bfloat16.from_float([nan]).tolist() == [0x7FC0]
    assert _bfloat16.from_float([1.00390625, 1.01171875]).tolist() == [0x3F80, 0x3F82]


def test_promotion():
    f = torch.ones(3)
    assert (X[:3] + f).dtype == torch.float32 and (X + 1).dtype == torch.bfloat16
    assert (X + 2.5).dtype == torch.bfloat16 and (X[:5] + torch.arange(5)).dtype == torch.bfloat16
    assert (X[:3] + torch.ones(3, dtype=torch.float16)).dtype == torch.float32


def test_elementwise_roundings_as_aten():
    assert (X * 0.3).tolist() == MULSC          # the number in float32 (opmath), one rounding
    assert torch.add(X, Y, alpha=0.3).tolist() == ADDALPHA   # fused in blocks of 32, tail not
    assert (X.abs() + 0.25).rsqrt().tolist() == RSQRT
    assert F.gelu(X, approximate="tanh").tolist() == GELU
    assert X.cumsum(0).tolist() == CUMSUM


def test_reductions_and_log_softmax():
    assert F.log_softmax(X.view(4, 10), -1).tolist() == LSM
    assert X.view(4, 10).sum(-1).tolist() == SUM
    assert X.sum().item() == SUM_ALL and X.mean().item() == MEAN_ALL


def test_scaled_dot_product_attention_bf16():
    q = torch.tensor(vals(2 * 2 * 5 * 4, 41, 79, 25.0)).view(2, 2, 5, 4).bfloat16()
    out = F.scaled_dot_product_attention(q, q.flip(-1), q * 0.5, is_causal=True)
    assert out.dtype == torch.bfloat16 and out.reshape(-1).tolist() == SDPA


def test_autocast_linear():
    skip_without_avx512("bfloat16 linear under autocast (oneDNN avx512_bf16 on the recording CPU)")
    W = torch.tensor(vals(24, 29, 89, 40.0)).view(3, 8).requires_grad_()
    A = torch.tensor(vals(40, 31, 83, 20.0)).view(5, 8)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = F.linear(A, W, torch.tensor([0.1, -0.2, 0.3]))
        loss = F.cross_entropy(out, torch.tensor([0, 1, 2, 0, 1]))
    assert out.dtype == torch.bfloat16 and out.tolist() == LINEAR
    assert loss.dtype == torch.float32            # cross_entropy is on autocast's fp32 list
    assert out.grad_fn.name() in ("AddmmBackward0", "ViewBackward0")
    loss.backward()
    assert W.grad.dtype == torch.float32          # through ToCopyBackward0 to the float32 leaf
    assert not torch.tensor([1.0]).bfloat16().requires_grad


def test_autograd_in_bfloat16():
    w = X.clone().requires_grad_()
    (w * w).sum().backward()
    assert w.grad.dtype == torch.bfloat16
    assert w.grad.tolist() == [_round(2 * v) for v in XV]


def _round(v):
    return _bfloat16.to_float32(_bfloat16.from_float([v])).tolist()[0]


# ----------------------------------------------------------------- kernels' orders, end to end
# Each case's outputs and gradients are digested (sha256 of their float32 values, in order);
# the digests are those real torch 2.13 gave on this machine for the same code (AMD EPYC Zen 4,
# avx512_bf16: oneDNN's brg_matmul:avx512_core_bf16; 2 threads, as conftest pins).


def _bfv(vals):
    return torch.tensor(vals, dtype=torch.float32).bfloat16()


def gemm_cancel():
    """Crafted cancellations: two large equal-and-opposite products per row, small ones between
    (the sum's order shows in the bf16 result), K = 600 (two blocks of k)."""
    rnd = random.Random(5)
    M, K, N = 24, 600, 12
    A = [[rnd.choice([-1, 1]) * 2.0 ** rnd.randint(-6, 5) * (1 + rnd.randint(0, 127) / 128)
          for _ in range(K)] for _ in range(M)]
    for row in A:
        k1, k2 = rnd.sample(range(K), 2)
        big = 2.0 ** rnd.randint(14, 21) * (1 + rnd.randint(0, 127) / 128)
        row[k1], row[k2] = big, -big
    B = [[rnd.choice([-1, 1]) * (1 + rnd.randint(0, 127) / 128) for _ in range(N)]
         for _ in range(K)]
    a, b = _bfv(A), _bfv(B)
    bias = _bfv([rnd.uniform(-1, 1) for _ in range(N)])
    return [a @ b, F.linear(a, b.t().contiguous(), bias), a.t().contiguous().t() @ b]


def sdpa():
    torch.manual_seed(3)
    q, k, v = (torch.randn(2, 3, 40, 8).bfloat16().requires_grad_() for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out.backward(torch.randn(2, 3, 40, 8).bfloat16())
    return [out, q.grad, k.grad, v.grad]


def layer_norm():
    torch.manual_seed(4)
    res = []
    for wdt in (torch.bfloat16, torch.float32):
        x = torch.randn(7, 40).bfloat16().requires_grad_()
        w = torch.randn(40).to(wdt).requires_grad_()
        b = torch.randn(40).to(wdt).requires_grad_()
        y = F.layer_norm(x, (40,), w, b)
        y.backward(torch.randn(7, 40).bfloat16())
        res += [y, x.grad, w.grad, b.grad]
    return res


def cross_entropy():
    torch.manual_seed(5)
    x = (torch.randn(300, 10) * 3).bfloat16().requires_grad_()
    t = torch.randint(0, 10, (300,))
    loss = F.cross_entropy(x, t)
    loss.backward()
    return [loss, x.grad]


def topk_ties():
    torch.manual_seed(6)
    p = F.softmax(torch.randn(2, 96).bfloat16(), dim=-1)
    v, i = torch.topk(p, 50, dim=-1)
    return [v, i.float()]


def adamw():
    torch.manual_seed(7)
    w = torch.randn(100).bfloat16().requires_grad_()
    opt = torch.optim.AdamW([w], lr=1e-2, weight_decay=0.1)
    c = torch.linspace(-1, 1, 100).bfloat16()
    for _ in range(3):
        opt.zero_grad()
        (w * c).pow(2).sum().backward()
        opt.step()
    st = opt.state[w]
    return [w.detach(), st["exp_avg"], st["exp_avg_sq"]]


def pow_rsqrt():
    torch.manual_seed(8)
    x = (torch.rand(77) + 0.3).bfloat16().requires_grad_()
    y = x ** 3 + x.rsqrt() + x ** 1.7
    y.backward(torch.randn(77).bfloat16())
    return [y, x.grad]


def embedding():
    torch.manual_seed(9)
    w = torch.randn(10, 8).bfloat16().requires_grad_()
    idx = torch.randint(0, 10, (6, 7))
    e = F.embedding(idx, w)
    e.backward(torch.randn(6, 7, 8).bfloat16())
    return [e, w.grad]


def autocast_block():
    """A GPT-2 block's pieces under autocast (as build-nanogpt): linear, sdpa, gelu, layer_norm
    on the float32 residual, cross-entropy in float32; the float32 weights' gradients."""
    torch.manual_seed(10)
    ln = torch.nn.LayerNorm(16)
    qkv = torch.nn.Linear(16, 48)
    proj = torch.nn.Linear(16, 16)
    head = torch.nn.Linear(16, 20, bias=False)
    x = torch.randn(2, 16, 16)
    t = torch.randint(0, 20, (2, 16))
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        q, k, v = qkv(ln(x)).split(16, dim=2)
        q, k, v = (z.view(2, 16, 2, 8).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = x + proj(F.gelu(y.transpose(1, 2).contiguous().view(2, 16, 16), approximate="tanh"))
        logits = head(h)
        loss = F.cross_entropy(logits.view(-1, 20), t.view(-1))
    loss.backward()
    return [logits, loss] + [p.grad for p in (ln.weight, ln.bias, qkv.weight, qkv.bias,
                                               proj.weight, head.weight)]



def small_gemm():
    """Products ATen keeps from oneDNN (m*k*n <= 4096): cpublas's reference loops, chosen by the
    operands' layout; integer entries with 2**24 so that the order of the sums shows."""
    rnd = random.Random(11)
    res = []
    for m, k, n in ((64, 12, 2), (16, 37, 3), (8, 50, 8), (3, 5, 4)):
        a = _bfv([[rnd.choice([2.0 ** 24, -2.0 ** 24, 1.0, -1.0, 3.0, 0.0]) for _ in range(k)]
                 for _ in range(m)])
        b = _bfv([[rnd.choice([1.0, 2.0, -1.0]) for _ in range(n)] for _ in range(k)])
        at, bt = a.t().contiguous().t(), b.t().contiguous().t()
        bias = _bfv([rnd.uniform(-1, 1) for _ in range(n)])
        res += [a @ b, a @ bt, at @ b, at @ bt, F.linear(a, b.t().contiguous(), bias)]
    return res


def losses_and_grads():
    """Backward formulas on bfloat16: erf (its constant in float), logsigmoid (the bf16 buffer),
    clamp, mse, binary cross-entropy, exp2, einsum."""
    torch.manual_seed(12)
    a, b = torch.randn(3, 40).bfloat16(), torch.randn(3, 40).bfloat16()
    u = (torch.rand(3, 40) * 0.98 + 0.01).bfloat16()
    res = []
    for fn in (torch.erf, F.logsigmoid, lambda t: t.clamp(-0.5, 0.7), torch.exp2):
        x = a.clone().requires_grad_()
        y = fn(x)
        y.backward(b)
        res += [y, x.grad]
    x = a.clone().requires_grad_()
    y = F.mse_loss(x, b)
    y.backward()
    res += [y, x.grad]
    x = u.clone().requires_grad_()
    y = F.binary_cross_entropy(x, (b > 0).bfloat16())
    y.backward()
    res += [y, x.grad, torch.einsum("ij,kj->ik", a, b)]
    return res

CASES = [gemm_cancel, sdpa, layer_norm, cross_entropy, topk_ties, adamw, pow_rsqrt, embedding,
         autocast_block, small_gemm, losses_and_grads]


RECORDED = {
    "gemm_cancel": "398decdf2bb17b5f",
    "sdpa": "f30d3fe8f3574271",
    "layer_norm": "48eaabf8ea813a38",
    "cross_entropy": "7ef383e6283e8fb6",
    "topk_ties": "5edb2c7cbfbecbe1",
    "adamw": "5263d80dd0943b1f",
    "pow_rsqrt": "6f3c24b1bf6844ca",
    "embedding": "a077adf3a0918a09",
    "autocast_block": "f9b9be4b5f8f07cb",
    "small_gemm": "032071b783631f53",
    "losses_and_grads": "a048058af2901cde",
}
#: cases whose last bits follow oneDNN's bf16 gemm (the sum order of avx512_bf16's vdpbf16ps)
GEMM_CASES = {"gemm_cancel", "sdpa", "autocast_block"}  # (small_gemm: ATen's own loops)
#: the same cases where oneDNN runs them on AMX tiles (brg_matmul:avx10_1_512_amx): real torch
#: 2.13 on an Intel Sapphire Rapids Xeon (with ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16 it printed
#: RECORDED's digests there); the cases not listed are the same on both
RECORDED_AMX = {"gemm_cancel": "56f430e74c72f266"}


def _digest(ts):
    h = hashlib.sha256()
    for t in ts:
        h.update(str(t.dtype).encode())
        h.update(np.asarray(t.detach().float().reshape(-1).tolist(), np.float32).tobytes())
    return h.hexdigest()[:16]


def _skip_without_avx512_bf16(what):
    from gradrepl.engine import cpu

    if "avx512_bf16" not in cpu.cpuinfo()[1]:
        reason = (f"{what}: recorded where oneDNN runs avx512_core_bf16 (vdpbf16ps); this CPU "
                  "has no avx512_bf16, its torch sums bf16 products in another order")
        print(reason)
        pytest.skip(reason)


@pytest.mark.parametrize("case", CASES, ids=lambda f: f.__name__)
def test_kernel_orders_as_real_torch(case):
    want = RECORDED[case.__name__]
    if case.__name__ in GEMM_CASES:
        _skip_without_avx512_bf16(case.__name__)
        if _bfloat16.amx():
            want = RECORDED_AMX.get(case.__name__, want)
    assert _digest(case()) == want


@pytest.mark.parametrize("isa,want", [("avx512_core_bf16", "398decdf2bb17b5f"),
                                      ("avx512_core_amx", "56f430e74c72f266")])
def test_gemm_cancel_by_onednn_isa(isa, want, monkeypatch):
    # each of oneDNN's bf16 sum orders on any CPU (the ISA forced): real torch 2.13 on the
    # Sapphire Rapids Xeon printed these with and without ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16
    monkeypatch.setenv("GRADREPL_ONEDNN_ISA", isa)
    assert _digest(gemm_cancel()) == want


def test_gemm_orders_differ_on_cancellation():
    """The two bf16 sum orders give different results on [2**24, 1, -2**24, 1] @ ones: ATen's
    reference loop (four partial sums) gives 1, oneDNN's pair order (odd k, then even) gives 0
    -- real torch 2.13 here printed 1.0 for this 1x4 @ 4x1 (below oneDNN's size) and 0.0 for
    [1, 2**24, 1, -2**24]: the digests above can tell the orders apart."""
    from gradrepl.torch import _bfloat16 as B

    x = torch.tensor([[2.0 ** 24, 1.0, -2.0 ** 24, 1.0]]).bfloat16()
    x2 = torch.tensor([[1.0, 2.0 ** 24, 1.0, -2.0 ** 24]]).bfloat16()
    y = torch.ones(4, 1).bfloat16()
    assert (x @ y).item() == 1.0 and (x2 @ y).item() == 0.0
    import os

    old = os.environ.get("GRADREPL_ONEDNN_ISA")
    try:
        os.environ["GRADREPL_ONEDNN_ISA"] = "avx512_core_bf16"
        assert B.gemm(B.from_float([[2.0 ** 24, 1.0, -2.0 ** 24, 1.0]]),
                      B.from_float(np.ones((4, 1)))).tolist() == [[0.0]]
        # AMX's tdpbf16ps sums the even k and the odd k apart, then adds the two: real torch
        # 2.13 on a Sapphire Rapids Xeon gave 2.0 for this row (in a 16x32 @ 32x16 product)
        # and 1.0 for [2**24, 1, 1, -2**24]
        os.environ["GRADREPL_ONEDNN_ISA"] = "avx512_core_amx"
        assert B.gemm(B.from_float([[2.0 ** 24, 1.0, -2.0 ** 24, 1.0],
                                    [2.0 ** 24, 1.0, 1.0, -2.0 ** 24]]),
                      B.from_float(np.ones((4, 1)))).tolist() == [[2.0], [1.0]]
    finally:
        if old is None:
            os.environ.pop("GRADREPL_ONEDNN_ISA", None)
        else:
            os.environ["GRADREPL_ONEDNN_ISA"] = old
