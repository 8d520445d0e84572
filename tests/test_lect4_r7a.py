"""Issue 28, round seven A (helper R7A): PyTorch's intermediate autograd tutorials and recipes
(forward-mode AD, Jacobians/Hessians, model ensembling, double backward with custom Functions,
fusing conv+BN, parametrizations, reasoning about shapes on the meta device, warmstarting,
zeroing gradients, default dtype/device, general checkpoints, torch.compile), retyped as a
student would and run under real torch 2.13 and gradrepl. What stopped them or printed other
bytes is checked here.

Literals marked "recorded" were printed by real torch 2.13.0+cpu in this session (AMD EPYC
Zen 4); none of them depends on the CPU (random draws and exact small-integer arithmetic).
"""
from __future__ import annotations

import pytest

import gradrepl.torch as torch
from gradrepl.torch.autograd.function import once_differentiable


# ------------------------------------------------------------ double backward tutorial
class _Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        assert not torch.is_grad_enabled()  # torch runs the decorated backward without recording
        return grad_out * 3 * x ** 2


def test_once_differentiable_first_order_result_is_plain():
    # recorded: tensor(12., dtype=torch.float64) False None, then g.backward() raises
    x = torch.tensor(2., requires_grad=True, dtype=torch.double)
    g, = torch.autograd.grad(_Cube.apply(x), x, create_graph=True)
    assert g.item() == 12.0 and not g.requires_grad and g.grad_fn is None
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        g.backward()


def test_once_differentiable_double_backward_raises_from_an_error_node():
    # recorded: grad_fn=<Error>, next_functions ((<AccumulateGrad ...>, 0),), is_leaf False;
    # backward raises "trying to differentiate twice ..." and v.grad stays None
    x = torch.tensor([2., 3.], requires_grad=True, dtype=torch.double)
    v = torch.ones(2, dtype=torch.double, requires_grad=True)
    g, = torch.autograd.grad(_Cube.apply(x), x, v, create_graph=True)
    assert g.tolist() == [12.0, 27.0]
    assert type(g.grad_fn).__name__ == "Error" and not g.is_leaf
    assert type(g.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    with pytest.raises(RuntimeError, match="^trying to differentiate twice a function that was "
                                           "marked with @once_differentiable$"):
        g.sum().backward()
    assert v.grad is None and x.grad is None


class _SinhBad(torch.autograd.Function):
    # the tutorial's "what not to do": intermediates kept on ctx carry no graph
    @staticmethod
    def forward(ctx, x):
        ctx.expx, ctx.expnegx = torch.exp(x), torch.exp(-x)
        return (ctx.expx - ctx.expnegx) / 2

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * (ctx.expx + ctx.expnegx) / 2


def test_gradgradcheck_finds_the_missing_second_order_term():
    # gradgradcheck returned True for anything; real torch raises GradcheckError (a
    # RuntimeError) "Jacobian mismatch for output 0 with respect to input 0," (recorded)
    x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
    assert torch.autograd.gradcheck(_SinhBad.apply, x)
    with pytest.raises(RuntimeError) as e:
        torch.autograd.gradgradcheck(_SinhBad.apply, x)
    assert type(e.value).__name__ == "GradcheckError"
    assert type(e.value).__module__ == "torch.autograd.gradcheck"
    assert str(e.value).startswith("Jacobian mismatch for output 0 with respect to input 0,\n"
                                   "numerical:tensor(")
    assert torch.autograd.gradgradcheck(_SinhBad.apply, x, raise_exception=False) is False
    # once_differentiable: no second-order graph at all, the same mismatch (recorded)
    y = torch.tensor(2., requires_grad=True, dtype=torch.double)
    with pytest.raises(RuntimeError, match="^Jacobian mismatch for output 0 with respect"):
        torch.autograd.gradgradcheck(_Cube.apply, y)


def test_gradgradcheck_passes_and_draws_its_grad_outputs_as_torch():
    # recorded: True, then torch.rand(2) == [0.30742281675338745, 0.6340786814689636]
    # (make_tensor(low=-1, high=1) drew the output gradient from the global generator)
    torch.manual_seed(0)
    w = torch.ones(2, dtype=torch.double, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda t: t ** 2, (w,)) is True
    assert torch.rand(2).tolist() == [0.30742281675338745, 0.6340786814689636]
    x = torch.rand(2, 2, requires_grad=True, dtype=torch.double)
    assert torch.autograd.gradgradcheck(lambda t: (t.sin() * t).sum(1), (x,))


def test_gradcheck_forward_mode_message():
    # recorded: 'Jacobian computed with forward mode mismatch for output 0 with respect to input
    # 0,\nnumerical:tensor([[2.0000, 0.0000],\n        [0.0000, 2.0000]], dtype=torch.float64)\n
    # analytical:tensor([[1., 0.],\n        [0., 1.]], dtype=torch.float64)\n'
    w = torch.ones(2, dtype=torch.double, requires_grad=True)
    with pytest.raises(RuntimeError) as e:
        torch.autograd.gradcheck(lambda t: t * t.detach(), (w,), check_forward_ad=True,
                                 check_backward_ad=False)
    assert str(e.value) == (
        "Jacobian computed with forward mode mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 2.0000]], dtype=torch.float64)\n"
        "analytical:tensor([[1., 0.],\n        [0., 1.]], dtype=torch.float64)\n")


def test_make_tensor_draws_as_torch():
    # recorded after torch.manual_seed(0)
    torch.manual_seed(0)
    a = torch.testing.make_tensor(2, 3, dtype=torch.float32, device="cpu")
    assert a.tolist() == [[-0.06738138198852539, 4.8279924392700195, -7.407406330108643],
                          [-6.623451232910156, -3.4663891792297363, 2.4134163856506348]]
    assert torch.testing.make_tensor((4,), dtype=torch.int64, device="cpu").tolist() == \
        [-4, 0, 0, -5]
    b = torch.testing.make_tensor((3,), dtype=torch.float64, device="cpu", low=-1, high=1,
                                  requires_grad=True)
    assert b.requires_grad and b.is_leaf and b.dtype == torch.float64
    with pytest.raises(ValueError, match="`low` must be less than `high`, but got 2 >= 1"):
        torch.testing.make_tensor((2,), dtype=torch.float32, device="cpu", low=2, high=1)


# ------------------------------------------------------------ forward-mode AD tutorial
def _dual_tangent(fn):
    import gradrepl.torch.autograd.forward_ad as fwAD

    torch.manual_seed(0)
    p = torch.randn(2, 3, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(p, torch.rand(2, 3))
        return fwAD.unpack_dual(fn(d, p)).tangent


@pytest.mark.parametrize("fn, grad_fn", [
    # recorded with real torch 2.13 (tangent.requires_grad, type(tangent.grad_fn).__name__)
    (lambda d, p: torch.ones(4, 3) @ d.T, "AddBackward0"),
    (lambda d, p: torch.nn.functional.linear(torch.ones(4, 3), d, p[:, 0]), "AddBackward0"),
    (lambda d, p: torch.nn.functional.linear(torch.ones(4, 3), d), "AddBackward0"),
    (lambda d, p: d * 2, "AddBackward0"),
    (lambda d, p: d * p, "AddBackward0"),
    (lambda d, p: d.exp(), "MulBackward0"),
    (lambda d, p: d + 1, None),
    (lambda d, p: d.sum(), None),
])
def test_tangents_of_products_are_recorded_when_a_primal_requires_grad(fn, grad_fn):
    # the module-jvp cell of the tutorial: real prints the tangent with grad_fn=<...>
    t = _dual_tangent(fn)
    assert t.requires_grad is (grad_fn is not None)
    assert (None if t.grad_fn is None else type(t.grad_fn).__name__) == grad_fn


def test_module_jvp_through_parameters_requires_grad_and_keeps_values():
    import gradrepl.torch.autograd.forward_ad as fwAD

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    inp = torch.randn(4, 3)
    tang = {n: torch.ones_like(p) for n, p in model.named_parameters()}
    want = inp.sum(1, keepdim=True) + 1  # J t with all-ones tangents: sum of inputs, plus 1
    with fwAD.dual_level():
        for n, p in dict(model.named_parameters()).items():
            delattr(model, n)
            setattr(model, n, fwAD.make_dual(p, tang[n]))
        jvp = fwAD.unpack_dual(model(inp)).tangent
    assert jvp.requires_grad
    assert torch.allclose(jvp, want.expand(4, 2))


def test_custom_function_jvp_result_has_no_tangent_of_its_own():
    import gradrepl.torch.autograd.forward_ad as fwAD

    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            ctx.result = torch.exp(foo)
            return ctx.result

        @staticmethod
        def jvp(ctx, gI):
            return gI * ctx.result

    x = torch.tensor([0.0, 1.0], dtype=torch.double, requires_grad=True)
    with fwAD.dual_level():
        out = Exp.apply(fwAD.make_dual(x, torch.ones(2, dtype=torch.double)))
        tangent = fwAD.unpack_dual(out).tangent
        assert fwAD.unpack_dual(tangent).tangent is None
        assert "tangent=" not in repr(tangent)
    assert torch.allclose(tangent, x.detach().exp())


def test_linearize_warns_from_const_fold_once(recwarn):
    # recorded: torch 2.13's linearize traces with make_fx and const_fold.py line 366 warns
    from gradrepl.torch.func import linearize

    x = torch.tensor([0.0, 1.0])
    out, f = linearize(lambda t: t.sin().sum(), x)
    linearize(lambda t: t * 2, x)
    msgs = [w for w in recwarn.list if "get_attr Node" in str(w.message)]
    assert len(msgs) <= 1  # once per process (an earlier test may have shown it already)
    if msgs:
        assert msgs[0].filename.replace("\\", "/").endswith("torch/fx/experimental/const_fold.py")
        assert msgs[0].lineno == 366
    assert f(torch.ones(2)).item() == pytest.approx(1 + 0.5403023058681398)


# ------------------------------------------------------------ torch.compile tutorial
def test_compile_module_is_an_optimized_module_wrapper():
    # recorded: type name OptimizedModule, repr with (_orig_mod), state_dict keys prefixed
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    c = torch.compile(model)
    assert type(c).__name__ == "OptimizedModule"
    assert type(c).__module__ == "torch._dynamo.eval_frame"
    assert repr(c) == ("OptimizedModule(\n  (_orig_mod): Sequential(\n"
                       "    (0): Linear(in_features=4, out_features=8, bias=True)\n"
                       "    (1): ReLU()\n"
                       "    (2): Linear(in_features=8, out_features=1, bias=True)\n  )\n)")
    assert list(c.state_dict().keys()) == ["_orig_mod.0.weight", "_orig_mod.0.bias",
                                           "_orig_mod.2.weight", "_orig_mod.2.bias"]
    x = torch.randn(3, 4)
    assert torch.equal(c(x), model(x))
    model.note = "kept"
    assert c._orig_mod is model and c.note == "kept"  # attributes pass to the wrapped module
    assert model.compile() is None


def test_compile_function_forms_and_dynamo_names():
    def foo(x, y):
        return torch.sin(x) + torch.cos(y)

    x = torch.randn(5)
    assert torch.equal(torch.compile(foo)(x, x), foo(x, x))
    assert torch.equal(torch.compile(mode="reduce-overhead")(foo)(x, x), foo(x, x))
    assert torch.compile(foo).__name__ == "foo"
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        torch.compile(foo, mode="default", options={})
    assert torch._dynamo.reset() is None
    assert torch.compiler.is_compiling() is False


# ------------------------------------------------------------ default device recipe
def test_device_is_a_context_manager_for_the_default_device():
    assert torch.get_default_device() == torch.device("cpu")
    with torch.device("cpu") as d:
        assert d == torch.device("cpu")
        assert torch.get_default_device() == torch.device("cpu")
        assert torch.nn.Linear(2, 2).weight.device == torch.device("cpu")
    from gradrepl.torch._base import _DefaultDevice

    assert _DefaultDevice.device is None  # put back when the block ends
    with pytest.raises(RuntimeError, match="Expected one of cpu"):
        with torch.device("nodevice"):
            pass
    assert torch.ones(2).is_cpu and not torch.ones(2).is_cuda


# ------------------------------------------------------------ reasoning about shapes: meta
def test_meta_conv_prints_shape_without_data_even_when_huge():
    # recorded (the recipe's two cells)
    conv = torch.nn.Conv2d(3, 5, 2, device="meta")
    out = conv(torch.rand(2, 3, 10, 10, device="meta"))
    assert repr(out) == ("tensor(..., device='meta', size=(2, 5, 9, 9), "
                         "grad_fn=<ConvolutionBackward0>)")
    assert out.is_meta and out.device == torch.device("meta") and str(out.device) == "meta"
    big = conv(torch.rand(2**10, 3, 2**16, 2**16, device="meta"))
    assert repr(big) == ("tensor(..., device='meta', size=(1024, 5, 65535, 65535),\n"
                         "       grad_fn=<ConvolutionBackward0>)")


def test_meta_reprs_and_views():
    # recorded with real torch 2.13
    assert repr(torch.empty(3, device="meta", dtype=torch.float64)) == \
        "tensor(..., device='meta', size=(3,), dtype=torch.float64)"
    assert repr(torch.arange(4, device="meta")) == \
        "tensor(..., device='meta', size=(4,), dtype=torch.int64)"
    assert repr(torch.zeros((), device="meta")) == "tensor(..., device='meta', size=())"
    x = torch.ones(2, 3, device="meta", requires_grad=True)
    assert repr(x) == "tensor(..., device='meta', size=(2, 3), requires_grad=True)"
    assert repr(x.t().reshape(6) * 2) == \
        "tensor(..., device='meta', size=(6,), grad_fn=<MulBackward0>)"
    assert repr(torch.randn(2, 2, device="meta").to(torch.float16)) == \
        "tensor(..., device='meta', size=(2, 2), dtype=torch.float16)"
    assert repr(torch.nn.functional.max_pool2d(torch.empty(1, 3, 9, 9, device="meta"), 2)) == \
        "tensor(..., device='meta', size=(1, 3, 4, 4))"
    emb = torch.nn.Embedding(10, 3, device="meta")(torch.tensor([1, 2], device="meta"))
    assert repr(emb) == "tensor(..., device='meta', size=(2, 3), grad_fn=<EmbeddingBackward0>)"
    assert repr(torch.rand_like(torch.empty(2, device="meta"))) == \
        "tensor(..., device='meta', size=(2,))"
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        x.tolist()
    with pytest.raises(RuntimeError, match="a Tensor with 6 elements cannot be converted"):
        x.item()


def test_meta_modules_draw_nothing_and_materialise_with_to_empty():
    # recorded: building under torch.device('meta') leaves the generator alone (torch.rand(2)
    # after manual_seed(0) is still [0.4962..., 0.7682...]); to_empty + reset_parameters gives
    # the ordinary init of the seed
    torch.manual_seed(0)
    with torch.device("meta"):
        m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3),
                                torch.nn.Conv2d(3, 2, 3))
        assert repr(torch.ones(1)) == "tensor(..., device='meta', size=(1,))"
    assert torch.rand(2).tolist() == [0.49625658988952637, 0.7682217955589294]
    assert repr(m[1].running_mean) == "tensor(..., device='meta', size=(3,))"
    assert repr(m[0].weight) == ("Parameter containing:\n"
                                 "tensor(..., device='meta', size=(3, 4), requires_grad=True)")
    m.to_empty(device="cpu")
    assert m[0].weight.device == torch.device("cpu") and not m[0].weight.is_meta
    torch.manual_seed(0)
    m[0].reset_parameters()
    assert m[0].bias.tolist() == [-0.4776742458343506, -0.33114105463027954,
                                  -0.20611155033111572]
    n = torch.nn.Linear(2, 2)
    n.to("meta")
    assert n.weight.is_meta and type(n.weight).__name__ == "Parameter" and n.weight.requires_grad
    assert not torch.ones(2).is_meta  # the CPU stays the default outside the block


# ------------------------------------------------------------ weight_norm's fused kernel
def _md5(t):
    import hashlib

    import numpy as np

    return hashlib.md5(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()[:12]


# recorded with real torch 2.13 on this machine: torch.manual_seed(3), then per shape
# v = randn(shape), g = rand(rows, 1...) + 0.5, w = torch._weight_norm(v, g, 0),
# (w * randn(shape)).sum().backward(); md5 of w, g.grad, v.grad (first 12 hex digits)
_WN_RECORDS = [
    ((6, 3), "298e1903d925", "6466e7889bcd", "44a0d17f8fb2"),
    ((5, 8), "6d815a286b7f", "099cc587d7e2", "9f8c6e17c237"),
    ((4, 9), "de12a0c16ef5", "3f1a58285895", "61eca22e15b4"),
    ((3, 17), "8c4aa364ea21", "ae45d4ea232b", "6e4819af9442"),
    ((2, 100), "2243de4d0a37", "a80d865d8019", "162b77c456fc"),
    ((4, 3, 3, 3), "c5974e0b5e1b", "a644c79f71ce", "092e91188488"),
]


def test_weight_norm_first_dim_is_torchs_fused_kernel_bit_for_bit():
    from gradrepl.torch import _capability

    if _capability.capability() not in ("AVX2", "AVX512"):
        pytest.skip("recorded against torch's AVX2/AVX512 kernels (8-lane reductions, fused "
                    f"multiply-add); the {_capability.capability()} build rounds otherwise")
    torch.manual_seed(3)
    for shape, w_md5, g_md5, v_md5 in _WN_RECORDS:
        v = torch.randn(*shape, requires_grad=True)
        g = (torch.rand(shape[0], *([1] * (len(shape) - 1))) + 0.5).requires_grad_()
        w = torch._weight_norm(v, g, 0)
        assert type(w.grad_fn).__name__ == "WeightNormInterfaceBackward0"
        (w * torch.randn(*shape)).sum().backward()
        assert (_md5(w), _md5(g.grad), _md5(v.grad)) == (w_md5, g_md5, v_md5), shape


def test_weight_norm_values_and_double_backward_against_the_composite():
    # the formula itself, independent of the kernel: w = g * v / ||v|| per row; the
    # create_graph path (Tensor ops) gives second derivatives equal to the composite's
    torch.manual_seed(0)
    v = torch.randn(3, 5, requires_grad=True)
    g = torch.rand(3, 1, requires_grad=True)
    w = torch._weight_norm(v, g, 0)
    ref = v * (g / v.norm(dim=1, keepdim=True))
    assert torch.allclose(w, ref, atol=1e-6)
    r = torch.randn(3, 5)
    gv, gg = torch.autograd.grad((w * r).sum(), (v, g), create_graph=True)
    rv, rg = torch.autograd.grad((ref * r).sum(), (v, g), create_graph=True)
    assert torch.allclose(gv, rv, atol=1e-5) and torch.allclose(gg, rg, atol=1e-5)
    h1 = torch.autograd.grad((gv ** 2).sum() + gg.sum(), v)[0]
    h2 = torch.autograd.grad((rv ** 2).sum() + rg.sum(), v)[0]
    assert torch.allclose(h1, h2, atol=1e-4)
    # other dims and dtypes keep the composite (torch's own fallback for dim=None/-1)
    m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(4, 2), dim=None)
    assert type(m.weight.grad_fn).__name__ == "MulBackward0"


# ------------------------------------------------------------ model ensembling: vmap
def test_vmap_linear_over_stacked_weights_is_bmm_then_bias():
    # recorded with real torch 2.13: vmap(F.linear)(x, w, b) over 10 stacked models is
    # bit-equal to torch.bmm(x, w.transpose(1, 2)) + b[:, None, :] (md5 717c7d7300 both), not
    # to the per-model addmm (899d3ee4b3): torch's batching rule for addmm with a batched weight
    import gradrepl.torch.nn.functional as F

    torch.manual_seed(0)
    x = torch.randn(10, 64, 784)
    w = torch.randn(10, 128, 784) * 0.03
    b = torch.randn(10, 128)
    want = torch.bmm(x, w.transpose(1, 2)) + b[:, None, :]
    assert torch.equal(torch.vmap(F.linear)(x, w, b), want)
    # a meta tensor's apply hook does not stop vmap's batched run
    torch.empty(2, device="meta")
    assert torch.equal(torch.vmap(F.linear)(x, w, b), want)


def test_func_jvp_of_inputs_that_require_grad_records_as_torch():
    # recorded with real torch 2.13 (x = randn(3, requires_grad=True), tangent ones):
    # (output.requires_grad, tangent.requires_grad, tangent grad_fn name)
    from gradrepl.torch.func import functional_call, jvp

    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    cases = [(lambda t: t + 1, False, None), (lambda t: t * 2, True, "AddBackward0"),
             (lambda t: t.sin(), True, "MulBackward0"),
             (lambda t: (t * t).sum(), True, "SumBackward0"),
             (lambda t: t @ torch.ones(3, 2), True, "SqueezeBackward4")]
    for f, req, name in cases:
        o, j = jvp(f, (x,), (torch.ones(3),))
        assert o.requires_grad and j.requires_grad is req
        assert (None if j.grad_fn is None else type(j.grad_fn).__name__) == name
    assert jvp(lambda t: t.sin(), (x,), (torch.ones(3),))[1].tolist() == \
        pytest.approx(x.detach().cos().tolist())
    # the tutorial's jvp over a module's parameters: the output an alias, the tangent
    # connected to the parameters (real: grad_fn=<AliasBackward0>, the tangent requires grad)
    m = torch.nn.Linear(3, 2)
    p = dict(m.named_parameters())
    o, j = jvp(lambda ps: functional_call(m, ps, (x,)), (p,),
               ({k: torch.ones_like(v) for k, v in p.items()},))
    assert type(o.grad_fn).__name__ == "AliasBackward0" and j.requires_grad
    assert torch.allclose(j, (x.detach().sum() + 1).expand(2))
