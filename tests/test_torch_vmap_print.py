"""A batched tensor printed inside vmap prints as torch 2.13 prints it:
``BatchedTensor(lvl=1, bdim=0, value=`` and the batch's values indented by 4 (a vmapped input
with its own in_dim as bdim, an op's result with the batch dim first), inside vmap(grad(f)) in
``GradTrackingTensor(lvl=2, value=`` too; and the function's prints appear once (torch calls it
once, on the batch; gradrepl runs it on samples: the first run prints). gradrepl printed each
sample's tensor, once per traced sample (TSWEEP4; gradrepl/torch/_vmap_checks.batched_text).
Not covered: nested vmap levels and values made outside the traced ops (a cast): those print
the sample's tensor.

EXPECTED is SCRIPT's stdout under real torch 2.13.0 (/work/vtorch) here."""
import contextlib
import io

import gradrepl.torch as torch
from gradrepl.torch.func import grad, vmap

SCRIPT = 'torch.manual_seed(0)\nx = torch.arange(6.).reshape(2, 3)\ndef f(r):\n    print(r)\n    print(repr(r))\n    print(str(r))\n    print(r.shape, r.dim(), r.size())\n    return r * 2\nprint(vmap(f)(x))\ndef g(r):\n    print("inner", r)\n    return r.sum()\ndef h(r):\n    print("h", r)\n    return (r ** 2).sum()\nprint(vmap(grad(h))(x))\ndef k(r):\n    y = r * 3\n    print("k", y)\n    return y\nprint(vmap(k, in_dims=1)(x))\ntorch.manual_seed(0)\nx = torch.arange(6.).reshape(2, 3)\nw = torch.tensor([1., -1., 2.])\ndef f(r):\n    s = r.sum()\n    print("sum", s)\n    y = torch.tanh(r * w + 1)\n    print(f"y={y}")\n    print("str", str(y)[:20])\n    return y\nout = vmap(f)(x)\nprint(out)\nlin = torch.nn.Linear(3, 2)\ndef g(r):\n    h = lin(r)\n    print("h", h)\n    return h\nwith torch.no_grad():\n    print(vmap(g)(x))\ndef k(a, b):\n    print("ab", a, b)\n    return a * b\nprint(vmap(k, in_dims=(0, None))(x, w))\nprint(vmap(lambda r: (print(r.shape), r.sum())[1])(x))\n'

EXPECTED = 'BatchedTensor(lvl=1, bdim=0, value=\n    tensor([[0., 1., 2.],\n            [3., 4., 5.]])\n)\nBatchedTensor(lvl=1, bdim=0, value=\n    tensor([[0., 1., 2.],\n            [3., 4., 5.]])\n)\nBatchedTensor(lvl=1, bdim=0, value=\n    tensor([[0., 1., 2.],\n            [3., 4., 5.]])\n)\ntorch.Size([3]) 1 torch.Size([3])\ntensor([[ 0.,  2.,  4.],\n        [ 6.,  8., 10.]])\nh GradTrackingTensor(lvl=2, value=\n    BatchedTensor(lvl=1, bdim=0, value=\n        tensor([[0., 1., 2.],\n                [3., 4., 5.]])\n    )\n)\ntensor([[ 0.,  2.,  4.],\n        [ 6.,  8., 10.]])\nk BatchedTensor(lvl=1, bdim=0, value=\n    tensor([[ 0.,  9.],\n            [ 3., 12.],\n            [ 6., 15.]])\n)\ntensor([[ 0.,  9.],\n        [ 3., 12.],\n        [ 6., 15.]])\nsum BatchedTensor(lvl=1, bdim=0, value=\n    tensor([ 3., 12.])\n)\ny=BatchedTensor(lvl=1, bdim=0, value=\n    tensor([[ 0.7616,  0.0000,  0.9999],\n            [ 0.9993, -0.9951,  1.0000]])\n)\nstr BatchedTensor(lvl=1,\ntensor([[ 0.7616,  0.0000,  0.9999],\n        [ 0.9993, -0.9951,  1.0000]])\nh BatchedTensor(lvl=1, bdim=0, value=\n    tensor([[-0.6521,  0.5450],\n            [-1.1615, -0.9323]])\n)\ntensor([[-0.6521,  0.5450],\n        [-1.1615, -0.9323]])\nab BatchedTensor(lvl=1, bdim=0, value=\n    tensor([[0., 1., 2.],\n            [3., 4., 5.]])\n) tensor([ 1., -1.,  2.])\ntensor([[ 0., -1.,  4.],\n        [ 3., -4., 10.]])\ntorch.Size([3])\ntensor([ 3., 12.])\n'  # recorded


def test_batched_tensors_print_as_torch():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(SCRIPT, "<vmap_print>", "exec"), {"torch": torch, "vmap": vmap,
                                                        "grad": grad})
    assert out.getvalue() == EXPECTED
