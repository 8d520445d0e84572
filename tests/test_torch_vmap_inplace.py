"""vmap refuses an in-place op that writes a batched value into an unbatched tensor (a tensor
made inside the function, or a captured one), as torch 2.13 does (gradrepl/torch/_vmap_checks.py
INPLACE_OPS): add-like ops with TensorIterator's broadcast error (the batch sizes in front),
arithmetic ones and copy_/index assignment with "inplace arithmetic", ops without a batching rule
with their aten name, the level, and the fallback's performance UserWarning. gradrepl ran one
sample at a time, where each write fits, and returned a result (TSWEEP4).

EXPECTED is SCRIPT's stdout under real torch 2.13.0 (/work/vtorch) here (no numerics)."""
import contextlib
import io
import warnings

import gradrepl.torch as torch
from gradrepl.torch.func import grad, vmap

SCRIPT = 'x = torch.arange(6.).reshape(2, 3)\ndef t(name, fn):\n    try:\n        vmap(fn)(x)\n        print(name, "ok")\n    except Exception as e:\n        print(name, type(e).__name__, e)\ndef mk(op):\n    def f(r):\n        z = torch.zeros(3)\n        op(z, r)\n        return z\n    return f\nt("sub_", mk(lambda z, r: z.sub_(r)))\nt("div_", mk(lambda z, r: z.div_(r + 1)))\nt("iadd", mk(lambda z, r: z.__iadd__(r)))\nt("imul", mk(lambda z, r: z.__imul__(r)))\nt("add_alpha", mk(lambda z, r: z.add_(r, alpha=2)))\nt("addcmul_", mk(lambda z, r: z.addcmul_(r, r)))\nt("clamp_", mk(lambda z, r: z.clamp_(min=r)))\nt("pow_", mk(lambda z, r: z.pow_(r)))\nt("setitem", mk(lambda z, r: z.__setitem__(slice(0, 3), r)))\nt("setitem0", mk(lambda z, r: z.__setitem__(0, r[1])))\nt("fill_", mk(lambda z, r: z.fill_(r[0])))\nt("lerp_", mk(lambda z, r: z.lerp_(r, 0.5)))\nt("mul_2d", lambda r: torch.zeros(2, 3).mul_(r))\nt("add_2d", lambda r: torch.zeros(4, 3).add_(r))\nt("add_scalar_self", lambda r: torch.tensor(1.).add_(r))\nt("sub_2d", lambda r: torch.zeros(4, 3).sub_(r))\nt("captured", lambda r: x[0].clone().add_(r))\nt("batched_self_ok", lambda r: r.clone().add_(torch.ones(3)))\nt("zero_ok", mk(lambda z, r: z.zero_()))\nfor fn in (lambda r: torch.zeros(()).mul_(r), lambda r: torch.zeros(()).addcmul_(r, r), lambda r: torch.zeros(2).add_(r)):\n    try:\n        vmap(vmap(fn))(x)\n    except Exception as e:\n        print(type(e).__name__, e)\ntry:\n    vmap(grad(lambda r: torch.zeros(3).addcmul_(r, r).sum()))(x)\nexcept Exception as e:\n    print(type(e).__name__, e)\nprint(vmap(lambda r: r.clone().mul_(2).add_(r))(x))\n'

EXPECTED = "sub_ RuntimeError vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report instead.\ndiv_ RuntimeError vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report instead.\niadd RuntimeError output with shape [3] doesn't match the broadcast shape [2, 3]\nimul RuntimeError vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nadd_alpha RuntimeError output with shape [3] doesn't match the broadcast shape [2, 3]\naddcmul_ RuntimeError vmap: aten::addcmul_(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over at level 1. Please try to use out-of-place operators instead of aten::addcmul_. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nclamp_ RuntimeError vmap: aten::clamp_(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over at level 1. Please try to use out-of-place operators instead of aten::clamp_. If said operator is being called inside the PyTorch framework, please file a bug report instead.\npow_ RuntimeError vmap: aten::pow_(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over at level 1. Please try to use out-of-place operators instead of aten::pow_. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nsetitem RuntimeError vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nsetitem0 RuntimeError vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nfill_ RuntimeError vmap: fill_(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of fill_. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nlerp_ RuntimeError vmap: aten::lerp_(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over at level 1. Please try to use out-of-place operators instead of aten::lerp_. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nmul_2d RuntimeError vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nadd_2d RuntimeError output with shape [4, 3] doesn't match the broadcast shape [2, 4, 3]\nadd_scalar_self RuntimeError output with shape [] doesn't match the broadcast shape [2, 3]\nsub_2d RuntimeError vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report instead.\ncaptured RuntimeError output with shape [3] doesn't match the broadcast shape [2, 3]\nbatched_self_ok ok\nzero_ok ok\nRuntimeError vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nRuntimeError vmap: aten::addcmul_(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over at level 2. Please try to use out-of-place operators instead of aten::addcmul_. If said operator is being called inside the PyTorch framework, please file a bug report instead.\nRuntimeError output with shape [2] doesn't match the broadcast shape [2, 3, 2]\nRuntimeError vmap: aten::addcmul_(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over at level 1. Please try to use out-of-place operators instead of aten::addcmul_. If said operator is being called inside the PyTorch framework, please file a bug report instead.\ntensor([[ 0.,  3.,  6.],\n        [ 9., 12., 15.]])\n"  # recorded


def test_inplace_refusals_as_torch():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(SCRIPT, "<vmap_inplace>", "exec"), {"torch": torch, "vmap": vmap,
                                                          "grad": grad})
    assert out.getvalue() == EXPECTED


def test_fallback_warning_at_the_users_line():
    x = torch.arange(6.).reshape(2, 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            vmap(lambda r: torch.zeros(3).addcmul_(r, r))(x)
        except RuntimeError:
            pass
    # recorded: real torch's UserWarning text, at the line of the addcmul_ call
    assert [str(m.message) for m in w] == [
        "There is a performance drop because we have not yet implemented the batching rule for "
        "aten::addcmul_. Please file us an issue on GitHub so that we can prioritize its "
        "implementation. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/functorch/"
        "BatchedFallback.cpp:82.)"]
    assert w[0].filename == __file__


OUT_SCRIPT = 'x = torch.arange(6.).reshape(2, 3)\nfor name, fn in [("add", lambda r: torch.add(r, 1, out=torch.empty(3))),\n                 ("mul", lambda r: torch.mul(r, r, out=torch.empty(3))),\n                 ("exp", lambda r: torch.exp(r, out=torch.empty(3))),\n                 ("mm", lambda r: torch.mm(r[None], torch.ones(3, 2), out=torch.empty(1, 2))),\n                 ("ok", lambda r: torch.add(torch.ones(3), 1, out=torch.empty(3)) + r)]:\n    try:\n        print(name, vmap(fn)(x))\n    except Exception as e:\n        print(name, type(e).__name__, e)\n'
OUT_EXPECTED = "add RuntimeError Batching rule not implemented for aten::add.out; the fallback path doesn't work on out= or view ops.\nmul RuntimeError Batching rule not implemented for aten::mul.out; the fallback path doesn't work on out= or view ops.\nexp RuntimeError Batching rule not implemented for aten::exp.out; the fallback path doesn't work on out= or view ops.\nmm RuntimeError Batching rule not implemented for aten::mm.out; the fallback path doesn't work on out= or view ops.\nok tensor([[2., 3., 4.],\n        [5., 6., 7.]])\n"  # recorded (real torch 2.13 here)


def test_out_variants_refused_under_vmap():
    # functorch has no batching rule for out= variants: a batched input or out raises
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(OUT_SCRIPT, "<vmap_out>", "exec"), {"torch": torch, "vmap": vmap})
    assert out.getvalue() == OUT_EXPECTED


def test_a_tensor_made_before_the_vmap_is_refused_too():
    """A captured tensor made before the vmap (a plain Tensor, not the checked class of the
    vmap's tensors) written with a batched value: real torch 2.13 raised, for this script,
    ``RuntimeError output with shape [3] doesn't match the broadcast shape [2, 3]`` and, for
    mul_, its "inplace arithmetic" refusal (recorded here); the tensor keeps its value."""
    z = torch.zeros(3)
    raised = []
    for op in (lambda r: z.add_(r), lambda r: z.mul_(r), lambda r: z.copy_(r)):
        try:
            vmap(op)(torch.ones(2, 3))
        except RuntimeError as e:
            raised.append(str(e).split(" This happened")[0])
    assert raised == [
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
        "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
        "Tensor `other` in extra_args that has more elements than `self`.",
        "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
        "Tensor `other` in extra_args that has more elements than `self`."]
    assert z.tolist() == [0.0, 0.0, 0.0]
    # outside a vmap the same methods write as before
    z.add_(torch.ones(3))
    assert z.tolist() == [1.0, 1.0, 1.0]
