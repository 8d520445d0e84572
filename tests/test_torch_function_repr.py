"""Functions, unbound Tensor methods and Tensor attributes of the torch dialect print as torch
2.13's do (``print(torch.relu)`` in a lecture). Literals from real torch 2.13 (/work/vtorch),
addresses masked; a sweep of every public callable of torch, torch.nn.functional and
torch.Tensor there: 1,402 of 1,414 names gradrepl has print the same (was 295)."""
from __future__ import annotations

import re

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F

WANT = {
    "torch.relu": "<built-in method relu of type object at 0x?>",
    "torch.abs": "<built-in method abs of type object at 0x?>",
    "torch.absolute": "<built-in method absolute of type object at 0x?>",
    "torch.matmul": "<built-in method matmul of type object at 0x?>",
    "torch.get_default_dtype": "<built-in function get_default_dtype>",
    "torch.is_grad_enabled": "<built-in function is_grad_enabled>",
    "torch.manual_seed": "<function manual_seed at 0x?>",
    "torch.atleast_1d": "<function atleast_1d at 0x?>",
    "torch.einsum": "<function einsum at 0x?>",
    "F.relu": "<function relu at 0x?>",
    "F.tanh": "<function tanh at 0x?>",
    "F.relu_": "<built-in method relu_ of type object at 0x?>",
    "F.conv2d": "<built-in method conv2d of type object at 0x?>",
    "F.gelu": "<built-in function gelu>",
    "F.logsigmoid": "<built-in function log_sigmoid>",
    "F.max_pool2d": "<function boolean_dispatch.<locals>.fn at 0x?>",
    "torch.Tensor.add": "<method 'add' of 'torch._C.TensorBase' objects>",
    "torch.Tensor.absolute": "<method 'absolute' of 'torch._C.TensorBase' objects>",
    "torch.Tensor.__add__": "<method '__add__' of 'torch._C.TensorBase' objects>",
    "torch.Tensor.__getitem__": "<slot wrapper '__getitem__' of 'torch._C.TensorBase' objects>",
    "torch.Tensor.backward": "<function Tensor.backward at 0x?>",
    "torch.Tensor.shape": "<attribute 'shape' of 'torch._C.TensorBase' objects>",
    "torch.Tensor.grad": "<attribute 'grad' of 'torch._C.TensorBase' objects>",
    "torch.Tensor.T": "<attribute 'T' of 'torch._C.TensorBase' objects>",
}


def test_function_and_attribute_reprs_as_torch():
    spaces = {"torch": torch, "F": F}
    got = {}
    for key in WANT:
        head, *path = key.split(".")
        obj = spaces[head]
        for p in path:
            obj = getattr(obj, p)
        got[key] = re.sub(r"0x[0-9a-f]+", "0x?", repr(obj))
    assert got == WANT


def test_calls_unchanged_and_other_functions_print_as_python():
    x = torch.tensor([-1.0, 2.0])
    assert torch.relu(x).tolist() == F.relu(x).tolist() == [0.0, 2.0]
    assert torch.absolute(x).tolist() == torch.abs(x).tolist() == [1.0, 2.0]

    def mine():
        pass

    assert repr(mine).startswith("<function test_calls_unchanged_and_other_functions_print_as_"
                                 "python.<locals>.mine at 0x")
    assert repr(property()).startswith("<property object at 0x")


def test_function_names_as_torch():
    """``f.__name__`` of the torch namespace's built-ins is the name torch gives (a plotting
    lecture titles a figure with it; torch.log2's was 'Log2Backward0')."""
    assert torch.log2.__name__ == "log2"
    assert torch.absolute.__name__ == "absolute"
    assert torch.relu.__name__ == F.relu.__name__ == "relu"
    assert F.logsigmoid.__name__ == "log_sigmoid"
