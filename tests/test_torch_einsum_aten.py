"""torch.einsum as ATen computes it (gradrepl/torch/_einsum.py): aligned operands contracted left
to right by permute/reshape/bmm, so the graph has real torch's nodes and the values its bits.
Lecture round TM12 (fastbook ch17's matmul4 = einsum('ik,kj->ij')): gradrepl's numpy einsum gave
other last bits than a @ b, where real torch gives the same. Also: bmm of a one-matrix batch is
MKL's ?gemm with the batch kernel's arguments (MKL_VERBOSE of real torch: SGEMM(N,N,1,1,500,..),
where mm passes SGEMM(T,T,...)), reshape of a viewable non-contiguous tensor is
ReshapeAliasBackward0, and torch.backends.opt_einsum answers as torch without opt_einsum."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from conftest import skip_unless_mkl_path

# Recorded with real torch 2.13.0+cpu on this Sapphire Rapids Xeon (MKL path AVX512_E1), two
# runs equal: equation -> (md5[:12] of the result, of each operand's .grad, the grad_fn chain
# along the first input). Operands: np.random.default_rng(28) standard normals in float32, in
# this order, then the incoming gradient of the result's shape.
CASES = [
    ("ik,kj->ij", [(2, 784), (784, 3)], "08e08598e0e8", ["af682fe89019", "9188cd7417ea"],
     ["ViewBackward0", "PermuteBackward0", "ViewBackward0", "BmmBackward0", "ViewBackward0",
      "PermuteBackward0", "PermuteBackward0", "UnsqueezeBackward0", "AccumulateGrad"]),
    ("ik,jk->ij", [(7, 300), (9, 300)], "9ae9d17f8393", ["ce77cd716d98", "d297beab5c87"],
     ["ViewBackward0", "PermuteBackward0", "ViewBackward0", "BmmBackward0", "ViewBackward0",
      "PermuteBackward0", "PermuteBackward0", "UnsqueezeBackward0", "AccumulateGrad"]),
    ("bhqd,bhkd->bhqk", [(2, 3, 5, 16), (2, 3, 7, 16)], "550d4491534f",
     ["1555429c9f4a", "4fb3608df118"],
     ["ViewBackward0", "PermuteBackward0", "ViewBackward0", "BmmBackward0", "ViewBackward0",
      "PermuteBackward0", "PermuteBackward0", "UnsqueezeBackward0", "AccumulateGrad"]),
    ("i,i->", [(500,), (500,)], "9dc6e7b6d801", ["0a584bb90c9c", "afafbf8662df"],
     ["ViewBackward0", "PermuteBackward0", "ViewBackward0", "BmmBackward0", "ViewBackward0",
      "PermuteBackward0", "PermuteBackward0", "AccumulateGrad"]),
    ("bn,anm,bm->ba", [(4, 30), (5, 30, 20), (4, 20)], "6c6ea134103f",
     ["b4bcf520f47d", "fd44c173d274", "20cb97bada88"],
     ["ViewBackward0", "PermuteBackward0", "ViewBackward0", "BmmBackward0", "ViewBackward0",
      "PermuteBackward0", "PermuteBackward0", "ViewBackward0", "BmmBackward0", "ViewBackward0",
      "PermuteBackward0", "PermuteBackward0", "UnsqueezeBackward0", "UnsqueezeBackward0",
      "AccumulateGrad"]),
    ("ij->j", [(300, 4)], "dcc005f79697", ["e2b3fad01965"],
     ["SumBackward1", "PermuteBackward0", "AccumulateGrad"]),
    ("ii->i", [(6, 6)], "9bd7ad793f18", ["097b5e2f49ce"],
     ["PermuteBackward0", "PermuteBackward0", "DiagonalBackward0", "AccumulateGrad"]),
    ("...ij,...jk->...ik", [(2, 3, 4, 50), (3, 50, 5)], "702d3d8919e8",
     ["bf97317e02c8", "d503232970da"],
     ["ViewBackward0", "PermuteBackward0", "ViewBackward0", "BmmBackward0",
      "UnsafeViewBackward0", "CloneBackward0", "PermuteBackward0", "PermuteBackward0",
      "UnsqueezeBackward0", "AccumulateGrad"]),
]
# then, from the same generator: bmm of (b, m, k) @ (b, k, n), md5[:12] of the result
BMM = [((1, 1, 500, 1), "float32", "f571f8fed472"), ((1, 1, 500, 1), "float64", "f82da954c004"),
       ((1, 1, 2000, 1), "float32", "b46530dfa555"), ((1, 1, 2000, 1), "float64", "74977cfae08d"),
       ((1, 1, 1200, 1), "float32", "0aa1b15318f1"), ((1, 1, 1200, 1), "float64", "dc11667a9f67")]


def _md5(t):
    return hashlib.md5(t.detach().contiguous().numpy().tobytes()).hexdigest()[:12]


def _chain(fn):
    names = []
    while fn is not None:
        names.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions if f is not None]
        fn = nxt[0] if nxt else None
    return names


def _run_all():
    import gradrepl.torch as torch

    rng = np.random.default_rng(28)
    got = []
    for eq, shapes, *_ in CASES:
        ops = [torch.from_numpy(rng.standard_normal(s).astype(np.float32)).requires_grad_()
               for s in shapes]
        r = torch.einsum(eq, *ops)
        r.backward(torch.from_numpy(rng.standard_normal(tuple(r.shape)).astype(np.float32)))
        got.append((_md5(r), [_md5(o.grad) for o in ops], _chain(r.grad_fn)))
    bmm = []
    for (b, m, k, n), dt, _ in BMM:
        a = torch.from_numpy(rng.standard_normal((b, m, k)).astype(dt))
        c = torch.from_numpy(rng.standard_normal((b, k, n)).astype(dt))
        bmm.append(_md5(torch.bmm(a, c)))
    return got, bmm


def test_einsum_graph_is_atens():
    got, _ = _run_all()
    for (eq, *_, chain), (_, _, names) in zip(CASES, got):
        assert names == [n.replace("torch::autograd::", "") for n in chain], eq


def test_einsum_and_one_matrix_bmm_bits_equal_real_torch():
    skip_unless_mkl_path("einsum/bmm bits of real torch 2.13 (MKL sgemm/dgemm)")
    got, bmm = _run_all()
    for (eq, _, out, grads, _), (g_out, g_grads, _) in zip(CASES, got):
        assert (g_out, g_grads) == (out, grads), eq
    assert bmm == [want for *_, want in BMM]


def test_einsum_errors_are_torchs():
    import gradrepl.torch as torch

    # messages of real torch 2.13
    with pytest.raises(RuntimeError, match=r"^einsum\(\): subscript j has size 4 for operand 1 "
                       r"which does not broadcast with previously seen size 3$"):
        torch.einsum("ij,jk->ik", torch.randn(2, 3), torch.randn(4, 5))
    with pytest.raises(RuntimeError, match=r"^einsum\(\): output subscript k does not appear in "
                       r"the equation for any input operand$"):
        torch.einsum("ij->k", torch.randn(2, 3))
    with pytest.raises(RuntimeError, match=r"^einsum\(\): the number of subscripts in the "
                       r"equation \(3\) does not match the number of dimensions \(2\) for "
                       r"operand 0 and no ellipsis was given$"):
        torch.einsum("ijk->ij", torch.randn(2, 3))


def test_reshape_of_a_viewable_non_contiguous_tensor_is_reshape_alias():
    import gradrepl.torch as torch

    # real torch 2.13: view() of a contiguous input, _reshape_alias of another viewable one,
    # clone + _unsafe_view of the rest
    x = torch.randn(3, 4, 5, requires_grad=True)
    z = x[:, :2]
    assert type(z.reshape(3, 10).grad_fn).__name__ == "ReshapeAliasBackward0"
    assert type(z.flatten(1).grad_fn).__name__ == "ReshapeAliasBackward0"
    assert type(x.permute(2, 0, 1).reshape(5, 12).grad_fn).__name__ == "ReshapeAliasBackward0"
    assert type(z.flatten().grad_fn).__name__ == "UnsafeViewBackward0"
    assert type(x.reshape(60).grad_fn).__name__ == "ViewBackward0"
    assert type(x[1].reshape(20).grad_fn).__name__ == "ViewBackward0"
    z.reshape(3, 10).sum().backward()
    assert float(x.grad.sum()) == 30.0


def test_backends_opt_einsum_as_without_the_package():
    import gradrepl.torch as torch

    # real torch 2.13 here (opt_einsum not installed): False False None None
    oe = torch.backends.opt_einsum
    assert (oe.is_available(), oe.enabled, oe.strategy, oe.get_opt_einsum()) == (
        False, False, None, None)
