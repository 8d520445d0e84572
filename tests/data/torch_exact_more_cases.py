"""Cases of tests/test_torch_exact_more.py, written against the torch API so that the same code
runs on real torch (to record the md5s) and on gradrepl's torch dialect. Each case takes
(torch, n) and returns the tensors whose float32 bytes are compared."""


def _x(torch, n, scale=2.0):
    torch.manual_seed(n)
    return (torch.randn(n) * scale).requires_grad_()


def _go(torch, y):
    torch.manual_seed(7)
    return torch.randn(y.shape)


def _fb(torch, x, y, *more):
    y.backward(_go(torch, y))
    return [y, x.grad] + [t.grad for t in more]


def glu(torch, n):                    # glu_backward: (1 - s) * s * a * grad
    x = _x(torch, n)
    return _fb(torch, x, torch.nn.functional.glu(x.reshape(-1, 2), dim=-1))


def glu_dim0(torch, n):               # contiguous halves: vector sigmoid
    x = _x(torch, n)
    return _fb(torch, x, torch.nn.functional.glu(x.reshape(2, -1), dim=0))


def normalize(torch, n):              # expand's backward is one sum (at::sum_to)
    x = _x(torch, n)
    return _fb(torch, x, torch.nn.functional.normalize(x.reshape(-1, 5), dim=1))


def logsumexp(torch, n):              # grad * (self - result).exp(), torch's exp
    x = _x(torch, n)
    return _fb(torch, x, x.reshape(-1, 5).logsumexp(dim=1))


def pow_tensor(torch, n):             # pow_backward_self / pow_backward_exponent
    torch.manual_seed(n)
    v = torch.randn(n) * 2
    b = v.abs().requires_grad_()
    e = v.clone().requires_grad_()
    y = b ** e
    return _fb(torch, b, y, e)


def pow_rows(torch, n):               # (10, n/10) ** (n/10,): vector loop row by row
    torch.manual_seed(n)
    b = (torch.randn(10, n // 10).abs() + 0.05).requires_grad_()
    e = torch.randn(n // 10).requires_grad_()
    return _fb(torch, b, b ** e, e)


def rpow(torch, n):                   # 0.1 ** x: the exponent's grad uses log(0.1) in double
    x = _x(torch, n)
    return _fb(torch, x, 0.1 ** x)


def zero_grads(torch, n):             # zeros_like / masked_fill: +0 where torch gives +0
    x = _x(torch, n)
    ys = [x.round(), x.floor(), x.ceil(), x.round(decimals=1), torch.relu(x),
          torch.maximum(x, x.flip(0)), torch.fmax(x, x.flip(0) * 0.5),
          torch.div(x, 0.7, rounding_mode="floor"), torch.copysign(x, x.flip(0)), x.max()]
    torch.manual_seed(7)
    total = sum((y * torch.randn(y.shape)).sum() for y in ys)
    total.backward()
    return [x.grad]


def _views(torch, n):
    torch.manual_seed(n)
    t = (torch.randn(2, n) * 2).t().requires_grad_()        # (n, 2): x's memory order
    s = (torch.randn(2 * n) * 2).requires_grad_()
    return t, s


def views(torch, n):                  # sigmoid, sinh, silu, softplus of a transposed tensor
    t, s = _views(torch, n)           # and of a strided one (every value by the scalar loop)
    F = torch.nn.functional
    ys = [f(v) for f in (torch.sigmoid, torch.sinh, F.silu, F.softplus, F.mish, F.elu,
                         lambda v: F.celu(v, 0.7))
          for v in (t, s[::2])]
    torch.manual_seed(7)
    total = sum((y * torch.randn(y.shape)).sum() for y in ys)
    total.backward()
    return ys + [t.grad, s.grad]


def formulas(torch, n):              # derivatives.yaml's formulas in torch's order
    x = _x(torch, n)
    u = torch.sigmoid(x) * 1.8 - 0.9
    p = x.abs() + 0.05
    S = torch.special
    ys = [torch.tan(u), torch.asin(u), torch.acos(u), torch.exp2(x), torch.erfinv(u),
          torch.sinc(x), S.entr(p), S.i1(x), torch.hypot(x, x.flip(0)),
          torch.addcdiv(x, x, p.flip(0), value=0.5), p ** 1.7, 2.5 ** x, S.log_ndtr(x)]
    torch.manual_seed(7)
    total = sum((y * torch.randn(y.shape)).sum() for y in ys)
    total.backward()
    return ys + [x.grad]


def rpow_t(torch, n):                 # 2.5 ** x.t(): a C-contiguous result, the loop in its order
    torch.manual_seed(n)
    t = (torch.randn(2, n) * 2).t().requires_grad_()
    return _fb(torch, t, 2.5 ** t)


def kernels(torch, n):               # lerp (fused), logit (torch's log), atan2 (SLEEF blocks)
    x = _x(torch, n)
    torch.manual_seed(n + 1)
    b = (torch.randn(n) * 2).requires_grad_()
    s = torch.sigmoid(x)
    ys = [torch.lerp(x, b, 0.3), torch.lerp(x, b, 0.7), torch.lerp(x, b, torch.sigmoid(b)),
          torch.logit(s), torch.logit(s, eps=0.05), torch.atan2(x, b), torch.logaddexp(x, b),
          torch.atan2(x.reshape(2, -1).t(), b.reshape(2, -1).t())]
    torch.manual_seed(7)
    total = sum((y * torch.randn(y.shape)).sum() for y in ys)
    total.backward()
    return ys + [x.grad, b.grad]


def atan2_strided(torch, n):          # every value by the scalar loop: the C library's atan2f
    n = 2 * n                         # (2,000: more than the engine's per-element limit)
    torch.manual_seed(n)
    y = (torch.randn(2 * n) * 2)[::2]
    return [torch.atan2(y, torch.randn(n))]


def bce(torch, n):                   # Loss.cpp's (1 - t) * x - log_sigmoid(x); bce's logit
    x = _x(torch, n)
    F = torch.nn.functional
    t = torch.sigmoid(x.flip(0))
    ys = [F.binary_cross_entropy_with_logits(x, t, reduction="none"),
          F.binary_cross_entropy_with_logits(x, t),
          F.binary_cross_entropy_with_logits(x, t, pos_weight=torch.full((n,), 1.5),
                                             weight=torch.full((n,), 0.7), reduction="sum"),
          F.binary_cross_entropy(torch.sigmoid(x), t)]
    total = ys[0].sum() * 0.5 + ys[1] + ys[2] * 0.25 + ys[3]
    total.backward()
    return ys + [x.grad]


def gamma(torch, n):                 # SLEEF's lgammaf everywhere; trigamma's fused tail
    x = _x(torch, n)
    ys = [torch.lgamma(x), torch.lgamma(x.abs() + 0.5), torch.mvlgamma(x.abs() + 1.5, 2),
          torch.digamma(x.abs() + 0.5)]
    torch.manual_seed(7)
    total = sum((y * torch.randn(y.shape)).sum() for y in ys[1:])
    total.backward()
    return ys + [x.grad]


def pow_views(torch, n):              # pow's loops over views: memory order, strided = scalar
    n = 2 * n                         # (2,000: past the engine's 1,024-value C-library limit)
    torch.manual_seed(n)
    t = (torch.randn(2, n).abs() + 0.05).t()
    s = (torch.randn(2 * n) * 2)[::2]
    return [t ** 1.7, 2.5 ** s, 2.5 ** t, torch.exp2(s), s.abs() ** s]


def losses_cumsum(torch, n):          # smooth_l1/huber backward kernels; cumsum's backward
    x = _x(torch, n)
    torch.manual_seed(n + 1)
    b = torch.randn(n).requires_grad_()
    F = torch.nn.functional
    ys = [F.smooth_l1_loss(x, b, beta=0.5), F.huber_loss(x, b, delta=0.7),
          F.huber_loss(x, b, reduction="sum"), x.cumsum(0), torch.addcmul(x, x, b, value=0.3)]
    total = ys[0] + ys[1] + ys[2] * 0.1 + (ys[3] * torch.linspace(-1, 1, n)).sum() + \
        (ys[4] * torch.linspace(1, -2, n)).sum()
    total.backward()
    return ys + [x.grad, b.grad]


CASES = {f.__name__: f for f in (bce, gamma, pow_views, losses_cumsum, glu, glu_dim0, normalize, logsumexp, pow_tensor, pow_rows, rpow,
                                 zero_grads, views, formulas, rpow_t, kernels, atan2_strided)}

SIZES = (10, 40, 1000)
