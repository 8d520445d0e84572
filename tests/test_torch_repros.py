"""Reproducers a student ran into (issue 28), with real torch 2.13's answers recorded on an AMD
EPYC (Zen 4) machine: the values below are the bits torch printed there."""
import pytest

import gradrepl.torch as torch


def _seeded(seed=2147483647):
    return torch.Generator().manual_seed(seed)


def test_multinomial_one_sample_is_the_exponential_race():
    p = torch.tensor([.1, .2, .3, .4])
    g = _seeded()
    assert [torch.multinomial(p, 1, True, generator=g).item() for _ in range(8)] == \
        [3, 3, 3, 3, 2, 0, 2, 3]


def test_multinomial_with_replacement_many_samples():
    g = _seeded()
    p = torch.tensor([.1, .2, .3, .4])
    assert torch.multinomial(p, 10, True, generator=g).tolist() == [3, 3, 3, 0, 0, 3, 3, 0, 3, 3]


def test_multinomial_without_replacement_and_rows():
    p = torch.tensor([.1, .2, .3, .4])
    g = _seeded()
    assert torch.multinomial(p.repeat(3, 1), 1, True, generator=g).tolist() == [[3], [3], [3]]
    g = _seeded()
    assert torch.multinomial(p, 1, False, generator=g).tolist() == [3]
    assert torch.multinomial(p, 2, False, generator=g).tolist() == [3, 0]
    with pytest.raises(RuntimeError, match="without replacement"):
        torch.multinomial(p, 5, False)


def test_setitem_drops_leading_ones_of_the_value():
    t = torch.zeros(2, 3)
    t[0] = torch.ones(1, 3)
    assert t.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    t[:, 1] = torch.full((1, 1, 2), 5.0)
    assert t.tolist() == [[1.0, 5.0, 1.0], [0.0, 5.0, 0.0]]
    with pytest.raises(RuntimeError, match="shape mismatch"):
        t[0] = torch.ones(2, 3)


def test_setitem_leading_ones_keep_the_gradient():
    v = torch.ones(1, 3, requires_grad=True)
    t = torch.zeros(2, 3)
    t[1] = v * 2
    t.sum().backward()
    assert v.grad.tolist() == [[2.0, 2.0, 2.0]]


def test_two_live_nodes_never_share_an_address():
    a = torch.ones(2, requires_grad=True)
    b, c = a * 2, a * 3
    assert repr(b.grad_fn) != repr(c.grad_fn)
    assert b.grad_fn is b.grad_fn
    assert repr(b.grad_fn).startswith("<MulBackward0 object at 0x")


def test_asarray_shares_keeps_or_detaches_as_torch():
    import numpy as np

    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a + 2
    assert torch.asarray(b).grad_fn is not None           # history kept by default
    assert torch.asarray(b, requires_grad=False).grad_fn is None
    assert torch.asarray(b, requires_grad=True).grad_fn is not None
    arr = np.array([1, 2, 3])
    assert torch.asarray(arr).data_ptr() == arr.__array_interface__["data"][0]
    assert torch.asarray(arr, copy=True).data_ptr() != arr.__array_interface__["data"][0]
    assert torch.asarray(arr, dtype=torch.float32).dtype == torch.float32


def test_einsum_sublist_form_and_inner():
    import numpy as np

    A, B = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
    got = torch.einsum(A, [..., 0, 1], B, [..., 1, 2], [..., 0, 2])
    np.testing.assert_allclose(got.numpy(), torch.einsum("bij,bjk->bik", A, B).numpy())
    a, b = torch.randn(2, 3), torch.randn(2, 4, 3)
    assert torch.inner(a, b).shape == torch.Size([2, 2, 4])
    np.testing.assert_allclose(torch.inner(a, b).numpy(),
                               np.einsum("ik,jlk->ijl", a.numpy(), b.numpy()), rtol=1e-5)
    assert torch.inner(a, torch.tensor(2.0)).tolist() == (a * 2).tolist()
    with pytest.raises(RuntimeError, match="last dimension must match"):
        torch.inner(a, torch.randn(4))


def test_sequential_insert_renumbers():
    nn = torch.nn
    s = nn.Sequential(nn.ReLU(), nn.Tanh())
    s.insert(1, nn.Sigmoid())
    assert [type(m).__name__ for m in s] == ["ReLU", "Sigmoid", "Tanh"]
    assert list(s._modules) == ["0", "1", "2"]


def test_post_accumulate_hook_runs_without_grad_mode():
    v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-0.01))
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    assert repr(v) == "tensor([-0.0100, -0.0200, -0.0300], requires_grad=True)"


def test_functional_reexports_the_override_helpers():
    from gradrepl.torch.nn.functional import handle_torch_function, has_torch_function_unary

    assert callable(handle_torch_function) and has_torch_function_unary(torch.ones(1)) is False


def test_dist_of_complex_tensors_is_real():
    x = torch.tensor([1 + 1j, 2 + 0j], dtype=torch.complex128)
    y = torch.tensor([1 + 0j, 0 + 0j], dtype=torch.complex128)
    d = torch.dist(x, y)
    assert d.dtype == torch.float64 and abs(d.item() - 5 ** 0.5) < 1e-15


@pytest.mark.skipif(not __import__("gradrepl.engine.mkl", fromlist=["load"]).load(),
                    reason="std's float32 sqrt is MKL's kernel in torch (gradrepl[exact])")
def test_var_and_std_backward_as_torch_writes_them(monkeypatch):
    # torch's var_backward: ((2 / dof) * grad) * (x - x.mean(dim, keepdim=True)), the scalar
    # in float32 first; std_backward divides by 2 * result first (0 where the result is 0).
    # md5 prefixes of x.grad recorded from real torch 2.13 (the same script, seed 0) on an AMD
    # EPYC whose torch ran its AVX512 kernels: that capability is chosen here on any machine.
    import hashlib

    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")

    torch.manual_seed(0)
    got = []
    for shape, dim in (((32, 200), 0), ((32, 200), 1), ((7, 5), None), ((4, 3, 5), (0, 2)),
                       ((50,), 0)):
        for fn in ("var", "std"):
            x = torch.randn(*shape, requires_grad=True)
            y = getattr(x, fn)(dim, keepdim=True) if dim is not None else getattr(x, fn)()
            (y * torch.randn(y.shape)).sum().backward()
            got.append(hashlib.md5(x.grad.numpy().tobytes()).hexdigest()[:8])
    assert got == ['ecffef1d', '229ba88b', '2371b1d1', '1370a966', '054d9466', '12fe98ba',
                   'e0e5c962', '8401ef72', 'a5930481', 'fe1ad60b']
    x = torch.zeros(3, requires_grad=True)
    x.std().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]  # the result is 0: masked, not nan


def test_a_cached_minus_zero_never_answers_for_zero():
    # -0.0 == 0.0 and they hash alike: the constant cache keys on the sign too
    import gradrepl.torch.nn.functional as F

    a = torch.tensor([1.0], requires_grad=True)
    (a * -0.0).sum().backward()
    z = torch.tensor([-1.0, 0.2], requires_grad=True)
    F.threshold(z, 0.1, 20.0).sum().backward()
    assert [str(v) for v in z.grad.tolist()] == ["0.0", "1.0"]  # as real torch prints
