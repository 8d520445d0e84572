"""vmap leaves the Tensor class alone (gradrepl/torch/_vmap_checks.py: its checks are a subclass
the batched tensors take). Assigning a class attribute invalidates the class's caches, and
after 1,000 changes CPython 3.12+ gives the type no version tag again: attribute reads on every
tensor are not specialised for the rest of the process. The checks patched the class on each
vmap call: after ~1,500 calls every op of the process ran slower (issue 29)."""
import sys

import pytest

import gradrepl.torch as torch
from gradrepl.torch import _tensor
from gradrepl.torch.func import grad, vmap

_testcapi = pytest.importorskip("_testcapi")


@pytest.mark.skipif(sys.version_info < (3, 12) or not hasattr(_testcapi, "type_get_version"),
                    reason="the per-class limit of version tags is CPython 3.12+'s")
def test_the_tensor_class_keeps_its_version_tag_after_3000_vmaps():
    x = torch.randn(4, 3)
    f = vmap(lambda r: (r * 2).sum())
    g = vmap(grad(lambda r: (r.tanh() ** 2).sum()))
    for i in range(3000):
        (f if i % 2 else g)(x)
    (x + 1).shape  # (a read of the class's attributes assigns a tag where it can)
    assert _testcapi.type_get_version(_tensor.Tensor) != 0


def test_a_batched_tensor_is_a_tensor_as_torch_s():
    seen = []

    def f(r):
        seen.append((str(type(r)), isinstance(r, torch.Tensor), len({r, r})))
        return r * 2
    out = vmap(f)(torch.ones(2, 3))
    assert seen[0] == ("<class 'torch.Tensor'>", True, 1)
    assert type(out) is torch.Tensor
