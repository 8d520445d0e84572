"""What torch's vmap refuses is refused here, with torch's message (gradrepl/torch/_vmap_checks.py).

gradrepl runs a vmapped function one sample at a time, where reading a value into Python
works; torch's batched tensors have no one value per sample, so a function that branches on a
sample, calls ``.item()``, ``.tolist()``, ``.numpy()`` or an op whose output shape depends on
the values raises there. Students meet these errors when they learn vmap; before this, the same
code ran here and printed a result. The messages and the cases that still run are real torch
2.13's, run in this session (``/work/vtorch``) on ``x = torch.randn(3, 4)``."""
import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch.func import grad, jacrev, vmap

ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
        "calling .item() on a Tensor, please try to rewrite what you're doing with other "
        "operations. If error is occurring somewhere inside PyTorch internals, please file a "
        "bug report.")
FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
        "flow. We don't support that yet, please file an issue at "
        "https://github.com/pytorch/pytorch/issues .")
EITHER = ("vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting "
          "to use a Tensor in some data-dependent control flow or (3) encountering this error "
          "in PyTorch internals. For (1): we don't support vmap over calling .item() on a "
          "Tensor, please try to rewrite what you're doing with other operations. For (2): we "
          "don't support data-dependent control flow in vmap yet, please file an issue at "
          "https://github.com/pytorch/pytorch/issues . For (3): please file an issue.")
STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"
NONZERO = ("vmap: We do not support batching operators that can output dynamic shape. Attempted "
           "to vmap over aten::{}. Please file an issue at "
           "https://github.com/pytorch/pytorch/issues if you need this feature.")

X = torch.randn(3, 4)

REFUSED = [
    ("item", lambda r: torch.tensor(r.sum().item()), ITEM),
    ("float", lambda r: r * float(r.sum()), ITEM),
    ("int", lambda r: r * int(r.sum()), ITEM),
    ("index", lambda r: r * [1, 2, 3, 4, 5][(r.sum() > 0).long()], ITEM),
    ("item0", lambda r: r * r[0].item(), ITEM),
    ("bool", lambda r: r * bool(r.sum() > 0), FLOW),
    ("if", lambda r: r if r.sum() > 0 else -r, FLOW),
    ("ifany", lambda r: r if (r > 0).any() else -r, FLOW),
    ("numpy", lambda r: torch.from_numpy(r.numpy()), STORAGE),
    ("tolist", lambda r: torch.tensor(r.tolist()), STORAGE),
    ("asarray", lambda r: torch.tensor(np.asarray(r)), STORAGE),
    ("nonzero", lambda r: r.nonzero(), NONZERO.format("nonzero")),
    ("unique", lambda r: torch.unique(r), NONZERO.format("_unique2")),
    ("masked_select", lambda r: r.masked_select(r > 0),
     "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support "
     "this because for each batch this would return a differently shaped Tensor. Please file "
     "an issue at https://github.com/pytorch/pytorch/issues if you need this feature."),
    ("bool-index", lambda r: r[r > 0],
     "vmap: We do not support batching operators that can support dynamic shape. Attempting to "
     "batch over indexing with a boolean mask."),
    # inside a transform within vmap, torch cannot tell the read from a branch
    ("grad-item", lambda r: grad(lambda v: v.sum() * v[0].item())(r), EITHER),
    ("grad-bool", lambda r: grad(lambda v: v.sum() if v.sum() > 0 else -v.sum())(r), EITHER),
    ("grad-numpy", lambda r: grad(lambda v: v.sum() * float(v.detach().numpy()[0]))(r),
     STORAGE),
    ("grad-tolist", lambda r: grad(lambda v: v.sum() * v.tolist()[0])(r), STORAGE),
    ("jacrev-item", lambda r: jacrev(lambda v: v * v[0].item())(r), EITHER),
    ("nested-item", lambda r: vmap(lambda v: v * v.item())(r), ITEM),
]


@pytest.mark.parametrize("name,fn,message", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_as_torch_refuses(name, fn, message):
    with pytest.raises(RuntimeError) as e:
        vmap(fn)(X)
    assert str(e.value) == message


def test_one_sample_and_inputs_that_require_grad_are_refused_too():
    with pytest.raises(RuntimeError, match=r"calling \.item\(\)"):
        vmap(lambda r: r * r.sum().item())(X[:1])
    w = torch.randn(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"calling \.item\(\)"):
        vmap(lambda a: a * a.sum().item())(w)


@pytest.mark.parametrize("fn,shape", [
    (lambda r: r[r.argmax()], (3,)),                          # an index tensor: batched gather
    (lambda r: torch.stack([v * 2 for v in r]), (3, 4)),      # iterating: unbind
    (lambda r: r * len(r), (3, 4)),
    (lambda r: r * X[0, 0].item(), (3, 4)),                   # an unbatched tensor's value
    (lambda r: r * (r > 0).any(), (3, 4)),
    (lambda r: r * (r == r).all(), (3, 4)),
    (lambda r: r * (1 + (r.sum() > 0).float()), (3, 4)),
])
def test_what_torch_runs_still_runs(fn, shape):
    out = vmap(fn)(X)
    assert tuple(out.shape) == shape
    assert torch.equal(out, torch.stack([fn(X[i]) for i in range(3)]))


def test_an_unbatched_argument_may_be_read():
    out = vmap(lambda a, b: a * b.sum().item(), in_dims=(0, None))(X, X[0])
    assert torch.equal(out, X * X[0].sum().item())


def test_outside_vmap_the_class_is_as_it_was():
    # (the wrappers are on only while a vmap runs: method reprs, warnings' frames and numpy's
    # protocols outside it see the originals)
    from gradrepl.torch import _tensor, _vmap_checks

    before = dict(_tensor.Tensor.__dict__)
    module_before = dict(vars(torch))
    with pytest.raises(RuntimeError):
        vmap(lambda r: r * r.sum().item())(X)
    vmap(lambda r: r * 2 if bool(X[0, 0] > -100) else r)(X)
    assert not _vmap_checks._SCOPES
    assert dict(_tensor.Tensor.__dict__) == before
    assert dict(vars(torch)) == module_before
    assert torch.tensor(2.5).item() == 2.5 and bool(torch.tensor(1)) and X.numpy().shape == (3, 4)
    assert X.nonzero().shape[1] == 2 and (X > 0).long().sum().item() >= 0
