"""A MAML outer step (CS330 style: one inner SGD step on an MSE loss, create_graph=True, the
outer loss backward through it) gives real torch 2.13's second-order gradients to the bit.

Two rules of torch's AddmmBackward0 (``F.linear``) decide them:
- the nodes are made in torch's order, mat1's gradient, mat2's, then the bias's: a later backward
  runs the last made first, so that is the order in which the three gradients reaching the
  loss's gradient node are summed (the bias's first);
- a column-major operand's gradient is computed transposed (``grad.t().mm(mat1).t()``) by ATen's
  stride test ``strides[0] == 1 and strides[1] == sizes[0]``, which ``W.t()`` of a (1, n) or
  (n, 1) weight passes too.
EXPECTED: real torch 2.13.0 here (/work/vtorch, Sapphire Rapids, MKL AVX512_E1), ``tolist()``
of the float32 gradients of the script in ``_maml_outer_grads``. Before (with torch's mse_loss
double backward already, tests/test_torch_mse_double_backward.py), all 6 gradients differed in
the last bits; a 30-step MAML script's printed gradient norm on its first line.
"""
import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F
from conftest import skip_unless_mkl_path

EXPECTED = [
    [[0.8088902831077576], [0.7446027398109436], [0.22772277891635895], [0.9492865800857544],
  [0.3440081477165222], [-0.6806243658065796], [0.6470127701759338], [0.8682742714881897]],
 [0.10354205965995789, 1.9273157119750977, 0.8000319600105286, 0.046975456178188324,
  1.07379949092865, 0.0811292827129364, -0.30576568841934204, -0.19360578060150146],
 [[0.189506396651268, 0.5098519325256348, 0.22732019424438477, 0.0, 0.27057284116744995, 0.0,
   -0.0509643480181694, 0.168993279337883],
  [0.23322920501232147, 0.2127639353275299, 0.09716775268316269, 0.0, 0.10317375510931015, 0.0,
   0.05284101516008377, 0.26954013109207153],
  [0.0, 0.0, 0.0, 2.901535749435425, 0.0, 6.246239185333252, 0.0, 0.0],
  [-0.09593841433525085, -0.43552345037460327, -0.19321636855602264, -1.8661391735076904,
   -0.23523858189582825, -4.058056354522705, 0.07527200877666473, -0.05927233397960663],
  [0.10517789423465729, 0.28577056527137756, 0.12739674746990204, 0.0, 0.15172100067138672, 0.0,
   -0.029065236449241638, 0.09337781369686127],
  [0.09945806860923767, -0.3817746937274933, -0.16660583019256592, 0.0, -0.21785080432891846,
   0.0, 0.1541992723941803, 0.18507547676563263],
  [0.08296045660972595, 0.4049663245677948, 0.17946702241897583, 1.618274211883545,
   0.21937090158462524, 3.5043067932128906, -0.07283654063940048, 0.04682154953479767],
  [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
 [1.0354783535003662, 0.4344288408756256, 0.9918524622917175, -1.1352035999298096,
  0.5793654322624207, -0.7673908472061157, 1.0199681520462036, 0.0],
 [[-0.8376238346099854, -1.0765653848648071, 0.5475960373878479, -0.8143251538276672,
   -0.8042168617248535, 0.9493151903152466, -2.8536112308502197, 0.0]],
 [-1.3610076904296875]]


def _maml_outer_grads():
    torch.manual_seed(3)
    params = [torch.randn(8, 1), torch.zeros(8), torch.randn(8, 8) * 0.5, torch.zeros(8),
              torch.randn(1, 8), torch.zeros(1)]
    for p in params:
        p.requires_grad_()
    outer = []
    for _task in range(3):
        xs, xq = torch.rand(5, 1) * 10 - 5, torch.rand(5, 1) * 10 - 5
        amp = torch.rand(1) * 4 + 0.5
        ys, yq = amp * torch.sin(xs), amp * torch.sin(xq)

        def net(x, w):
            h = F.relu(F.linear(x, w[0], w[1]))
            h = F.relu(F.linear(h, w[2], w[3]))
            return F.linear(h, w[4], w[5])

        grads = torch.autograd.grad(F.mse_loss(net(xs, params), ys), params, create_graph=True)
        fast = [p - 0.01 * g for p, g in zip(params, grads)]
        outer.append(F.mse_loss(net(xq, fast), yq))
    torch.stack(outer).mean().backward()
    return [p.grad.tolist() for p in params]


def test_maml_second_order_gradients_are_torchs():
    skip_unless_mkl_path("a MAML outer step's gradients (MKL gemm bits)")
    got = _maml_outer_grads()
    for i, (g, want) in enumerate(zip(got, EXPECTED)):
        assert g == want, i


def _grad_graph_names():
    """The node names under each first-order gradient of a two-layer net (depth-first, a node
    seen before marked), as ``grad_fn.next_functions`` shows them."""
    torch.manual_seed(0)
    x, y = torch.randn(5, 1), torch.randn(5, 1)
    w1, b1 = torch.randn(4, 1, requires_grad=True), torch.randn(4, requires_grad=True)
    w2, b2 = torch.randn(1, 4, requires_grad=True), torch.randn(1, requires_grad=True)
    loss = F.mse_loss(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), y)
    grads = torch.autograd.grad(loss, [w1, b1, w2, b2], create_graph=True)
    seen, out = set(), []

    def walk(fn, depth):
        if fn is None:
            return
        name = type(fn).__name__
        if id(fn) in seen:
            out.append(f"{depth} {name} (seen)")
            return
        seen.add(id(fn))
        out.append(f"{depth} {name}")
        for nxt, _i in fn.next_functions:
            walk(nxt, depth + 1)

    for g in grads:
        walk(g.grad_fn, 1)
    return out


# real torch 2.13.0 here (the same walk): AddmmBackward0's gradients are t()/mm/t() chains
# (TBackward0 nodes; a (1, n) or (n, 1) weight's gradient computed transposed) and the bias's
# gradient a sum kept as (1, n), then viewed (SumBackward1, ViewBackward0)
NAMES = """1 TBackward0|2 TBackward0|3 MmBackward0|4 TBackward0|5 ThresholdBackwardBackward0|
6 MmBackward0|7 MseLossBackwardBackward0|8 AddmmBackward0|9 AccumulateGrad|9 ReluBackward0|
10 AddmmBackward0|11 AccumulateGrad|11 TBackward0|12 AccumulateGrad|9 TBackward0|
10 AccumulateGrad|7 TBackward0|8 TBackward0 (seen)|6 ReluBackward0 (seen)|1 ViewBackward0|
2 SumBackward1|3 ThresholdBackwardBackward0 (seen)|1 TBackward0|2 TBackward0|3 MmBackward0|
4 TBackward0|5 MseLossBackwardBackward0 (seen)|4 ReluBackward0 (seen)|1 ViewBackward0|
2 SumBackward1|3 MseLossBackwardBackward0 (seen)"""


def test_linear_double_backward_nodes_are_torchs():
    skip_unless_mkl_path("the create_graph product nodes: without MKL the engine's matmul VJP records them (no TBackward0)")
    assert _grad_graph_names() == NAMES.replace("\n", "").split("|")
