"""torch's views as torch has them: ``expand``/``expand_as``/``broadcast_to`` (stride 0),
``diagonal``, ``unfold``, ``as_strided``, ``split``/``chunk``/``unbind`` and the views that were
numpy views already (``t``, ``transpose``, ``permute``, ``view``, ``narrow``, ``select``,
``unsqueeze``, ``T``/``mT``) report torch's ``stride()``, ``storage_offset()``,
``is_contiguous()``, storage size and shared ``data_ptr``; writes through a view show in the base
and the reverse; in-place ops on an expanded tensor raise torch's overlap error, fills write
through. Every literal below was recorded from real torch 2.13.0+cpu in this session
(/work/vtorch/bin/python), unless the comment says it is computed."""
from __future__ import annotations

import warnings

import pytest

from gradrepl import torch

OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.")


def _m():
    return torch.arange(12.).reshape(3, 4)


def _c():
    return torch.tensor([10., 20., 30., 40.])


# name, make(m, c) -> (view, base); recorded from real torch: shape, stride, storage_offset,
# is_contiguous, untyped_storage().size(), storage data_ptr shared with the base's,
# data_ptr() - base.data_ptr()
VIEWS = [
    ("expand_as", lambda m, c: (c.expand_as(m), c), (3, 4), (0, 1), 0, False, 16, True, 0),
    ("expand", lambda m, c: (c.expand(3, 4), c), (3, 4), (0, 1), 0, False, 16, True, 0),
    ("expand-1", lambda m, c: (c[None].expand(3, -1), c), (3, 4), (0, 1), 0, False, 16, True, 0),
    ("broadcast_to", lambda m, c: (c.broadcast_to((2, 3, 4)), c), (2, 3, 4), (0, 0, 1), 0, False,
     16, True, 0),
    ("torch.broadcast_to", lambda m, c: (torch.broadcast_to(c, (2, 4)), c), (2, 4), (0, 1), 0,
     False, 16, True, 0),
    ("t", lambda m, c: (m.t(), m), (4, 3), (1, 4), 0, False, 48, True, 0),
    ("T", lambda m, c: (m.T, m), (4, 3), (1, 4), 0, False, 48, True, 0),
    ("mT", lambda m, c: (m.mT, m), (4, 3), (1, 4), 0, False, 48, True, 0),
    ("transpose", lambda m, c: (m.transpose(0, 1), m), (4, 3), (1, 4), 0, False, 48, True, 0),
    ("permute", lambda m, c: (m.permute(1, 0), m), (4, 3), (1, 4), 0, False, 48, True, 0),
    ("view", lambda m, c: (m.view(4, 3), m), (4, 3), (3, 1), 0, True, 48, True, 0),
    ("narrow", lambda m, c: (m.narrow(1, 1, 2), m), (3, 2), (4, 1), 1, False, 48, True, 4),
    ("select", lambda m, c: (m.select(1, 2), m), (3,), (4,), 2, False, 48, True, 8),
    ("slice-step", lambda m, c: (m[:, ::2], m), (3, 2), (4, 2), 0, False, 48, True, 0),
    ("unsqueeze", lambda m, c: (m.unsqueeze(1), m), (3, 1, 4), (4, 4, 1), 0, True, 48, True, 0),
    ("diagonal", lambda m, c: (m.diagonal(), m), (3,), (5,), 0, False, 48, True, 0),
    ("diagonal1", lambda m, c: (m.diagonal(1), m), (3,), (5,), 1, False, 48, True, 4),
    ("as_strided", lambda m, c: (m.as_strided((2, 2), (1, 2), 1), m), (2, 2), (1, 2), 1, False,
     48, True, 4),
    ("unfold", lambda m, c: (c.unfold(0, 2, 1), c), (3, 2), (1, 1), 0, False, 16, True, 0),
    ("unfold2", lambda m, c: (m.unfold(1, 2, 2), m), (3, 2, 2), (4, 2, 1), 0, True, 48, True, 0),
    ("split", lambda m, c: (m.split(2)[1], m), (1, 4), (4, 1), 8, True, 48, True, 32),
    ("chunk", lambda m, c: (m.chunk(2, 1)[1], m), (3, 2), (4, 1), 2, False, 48, True, 8),
    ("unbind", lambda m, c: (m.unbind(1)[2], m), (3,), (4,), 2, False, 48, True, 8),
    ("movedim", lambda m, c: (m.movedim(0, 1), m), (4, 3), (1, 4), 0, False, 48, True, 0),
    ("expand_chain", lambda m, c: (c.expand(3, 4).t(), c), (4, 3), (1, 0), 0, False, 16, True, 0),
]


@pytest.mark.parametrize("case", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_strides_and_storage(case):
    name, make, shape, stride, off, contig, nbytes, shared, dptr = case
    v, base = make(_m(), _c())
    assert tuple(v.shape) == shape
    assert v.stride() == stride
    assert v.storage_offset() == off
    assert v.is_contiguous() is contig
    assert v.untyped_storage().size() == nbytes
    assert (v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()) is shared
    assert v.data_ptr() - base.data_ptr() == dptr


def test_copies_are_not_views():
    m = _m()
    for r, stride in ((m.t().contiguous(), (3, 1)), (m.t().reshape(-1), (1,)),
                      (_c().expand(3, 4).contiguous(), (4, 1))):
        assert r.stride() == stride  # real torch
        assert r.untyped_storage().data_ptr() != m.untyped_storage().data_ptr()


def test_clone_and_cast_keep_torchs_layout():
    m = torch.ones(3, 4)
    e = torch.ones(3).expand(2, 3)
    assert m.t().clone().stride() == (1, 4)  # preserve_format keeps a dense input's strides
    assert m.t().clone(memory_format=torch.contiguous_format).stride() == (3, 1)
    assert e.clone().stride() == (3, 1)  # an expanded input's copy is contiguous
    assert e.double().stride() == (3, 1)
    assert m.t().double().stride() == (1, 4)
    assert (e + 1).stride() == (3, 1)
    assert (m.t() * 2).stride() == (1, 4)


def test_writes_through_views_show_in_the_base():
    x = torch.arange(6.)
    v = x.view(2, 3)
    v[0, 1] = 100
    x[5] = -1
    assert x.tolist() == [0., 100., 2., 3., 4., -1.]
    assert v.tolist() == [[0., 100., 2.], [3., 4., -1.]]
    m = _m()
    m.t()[0, 2] = 99.
    m.diagonal().fill_(7.)
    # real torch: [[7, 1, 2, 3], [4, 7, 6, 7], [99, 9, 7, 11]]
    assert m.tolist() == [[7., 1., 2., 3.], [4., 7., 6., 7.], [99., 9., 7., 11.]]
    k = torch.zeros(2, 3)
    k.diagonal().fill_(5)
    k.unbind(0)[1].add_(1)
    k.split(1, 1)[2].mul_(3)
    assert k.tolist() == [[5., 0., 0.], [1., 6., 3.]]  # real torch
    m = torch.arange(12.).reshape(3, 4)
    a, _ = m.split(2)
    a.mul_(-1)
    m.chunk(2, 1)[1].zero_()
    m.as_strided((2, 2), (1, 2), 1).fill_(-3)
    # real torch (the same steps on a fresh arange)
    assert m.tolist() == [[-0., -3., -3., -3.], [-3., -5., 0., 0.], [8., 9., 0., 0.]]


INPLACE_RAISES = ["e.add_(1)", "e.mul_(2)", "e.sub_(1)", "e.div_(2)", "e.pow_(2)", "e.neg_()",
                  "e.abs_()", "e.sigmoid_()", "e.relu_()", "e.exp_()", "e.clamp_(0, 1)",
                  "e.copy_(torch.ones(3, 4))", "e.uniform_()", "e.normal_()", "e.random_(0, 5)",
                  "e.bernoulli_()", "e.exponential_()", "e.addcmul_(e, e)", "e.lerp_(e, 0.5)",
                  "torch.nn.init.normal_(e)", "torch.add(c, 1, out=e)", "e.data.add_(1)",
                  "e.detach().add_(1)", "e[:, 0] = 5"]


@pytest.mark.parametrize("code", INPLACE_RAISES)
def test_inplace_on_expanded_raises_torchs_error(code):
    c = _c()
    e = c.expand(3, 4)
    with pytest.raises(RuntimeError) as ei:
        exec(code, {"torch": torch, "e": e, "c": c})
    assert str(ei.value) == OVERLAP
    assert c.tolist() == [10., 20., 30., 40.]


def test_fills_write_through_an_expanded_tensor():
    c = _c()
    e = c.expand(3, 4)
    e.fill_(1)
    assert c.tolist() == [1.] * 4 and e.stride() == (0, 1)
    e.zero_()
    assert c.tolist() == [0.] * 4
    e[0, 0] = 5
    assert e.tolist() == [[5., 0., 0., 0.]] * 3
    e[0] = 3
    assert c.tolist() == [3.] * 4
    e[1] = torch.tensor([1., 2, 3, 4])
    assert c.tolist() == [1., 2., 3., 4.]
    torch.nn.init.ones_(e)
    assert c.tolist() == [1.] * 4
    torch.nn.init.zeros_(e)
    assert c.tolist() == [0.] * 4 and e.stride() == (0, 1)


def test_shape_inplace_keeps_the_expanded_view():
    c = torch.ones(4)
    e = c.expand(3, 4)
    e.t_()
    assert tuple(e.shape) == (4, 3) and e.stride() == (1, 0)  # real torch
    e.unsqueeze_(0)
    assert e.stride() == (4, 1, 0)
    e.squeeze_()
    e.fill_diagonal_(7)
    assert c.tolist() == [7., 7., 7., 1.]  # computed: rows 0..2 of the (4, 3) view
    e[..., 1] += 1
    assert c.tolist() == [8., 8., 8., 2.] and e.stride() == (1, 0)


EXPANDED_WARNING = ("Use of {op} on expanded tensors is deprecated. Please clone() the tensor "
                    "before performing this operation. This also applies to advanced indexing "
                    "e.g. tensor[{what}] = {value} (Triggered internally at /__w/pytorch/pytorch/"
                    "aten/src/ATen/native/TensorAdvancedIndexing.cpp:{line}.)")


def _warned(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [str(x.message) for x in w]


def test_advanced_index_writes_into_expanded_warn_and_write_through():
    c = _c()
    e = c.expand(3, 4)
    msgs = _warned(lambda: e.__setitem__(e > 25, 0))
    assert msgs == [EXPANDED_WARNING.format(op="index_put_", what="indices", value="tensor",
                                            line=976),
                    EXPANDED_WARNING.format(op="masked_fill_", what="mask", value="scalar",
                                            line=2450)]
    assert c.tolist() == [10., 20., 0., 0.]
    msgs = _warned(lambda: e.index_fill_(1, torch.tensor([0]), 9.))
    assert msgs == [EXPANDED_WARNING.format(op="index_fill_", what="mask", value="scalar",
                                            line=1913)]
    assert c.tolist() == [9., 20., 0., 0.]
    msgs = _warned(lambda: e.__setitem__((slice(None), torch.tensor([2])), torch.tensor(7.)))
    assert len(msgs) == 1 and "index_put_" in msgs[0]
    assert c.tolist() == [9., 20., 7., 0.]
    msgs = _warned(lambda: e.masked_fill_(e > 15, 2.))
    assert len(msgs) == 1 and "masked_fill_" in msgs[0]
    assert c.tolist() == [9., 2., 7., 0.]


def test_expanded_storage_prints_the_base():
    c = torch.tensor([3., 3., 3., 3.])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = c.expand(3, 4).storage()
    # real torch: four lines then the size 4 footer
    assert str(s) == (" 3.0\n 3.0\n 3.0\n 3.0\n[torch.storage.TypedStorage(dtype=torch.float32, "
                      "device=cpu) of size 4]")
    assert c.expand(2, 4).untyped_storage().nbytes() == 16
    m = _m()
    assert m.t().storage().size() == 12 and len(m.t().untyped_storage()) == 48


def test_gradients_through_the_views():
    x = torch.arange(12., requires_grad=True)
    m = x.reshape(3, 4)
    u = m.unfold(1, 2, 1)
    assert u.grad_fn.name() == "UnfoldBackward0"
    (u * torch.arange(18.).reshape(3, 3, 2)).sum().backward()
    assert x.grad.tolist() == [0., 3., 7., 5., 6., 15., 19., 11., 12., 27., 31., 17.]
    x.grad = None
    d = m.diagonal(1)
    assert d.grad_fn.name() == "DiagonalBackward0"
    (d * 2).sum().backward()
    assert x.grad.tolist() == [0., 2., 0., 0., 0., 0., 2., 0., 0., 0., 0., 2.]
    x.grad = None
    s = m.as_strided((2, 2), (1, 2), 1)
    assert s.grad_fn.name() == "AsStridedBackward0"
    (s * torch.tensor([[1., 2], [3, 4]])).sum().backward()
    assert x.grad.tolist() == [0., 1., 3., 2., 4., 0., 0., 0., 0., 0., 0., 0.]
    c = torch.tensor([1., 2., 3.], requires_grad=True)
    e = c.expand(2, 3)
    assert e.grad_fn.name() == "ExpandBackward0"
    (e * torch.tensor([[1.], [10.]])).sum().backward()
    assert c.grad.tolist() == [11., 11., 11.]
    a, b = m.split(2)
    assert a.grad_fn.name() == "SplitBackward0" and a.stride() == (4, 1)
    assert b.storage_offset() == 8
    r = m.unbind(1)
    assert r[1].grad_fn.name() == "UnbindBackward0" and r[1].stride() == (4,)
    assert r[1].storage_offset() == 1


def test_inplace_through_a_view_is_seen_by_backward():
    w = torch.ones(3, requires_grad=True)
    y = w * 2
    q = (y ** 2).sum()
    y.unfold(0, 2, 1).zero_()
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient "
                                           "computation has been modified by an inplace "
                                           "operation: \\[torch.FloatTensor \\[3\\]\\]"):
        q.backward()


def test_expanded_values_and_reductions():
    assert torch.ones(2, 3).expand(4, 2, 3).sum(0).tolist() == [[4.] * 3] * 2
    e = torch.arange(3.).expand(2, 3)
    assert (e * e).tolist() == [[0., 1., 4.]] * 2  # computed
    assert e.view(2, 3).stride() == (0, 1)
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's "
                                           "size and stride"):
        e.view(6)
    assert e.reshape(6).stride() == (1,)


def test_optim_dir_shows_torchs_names_only():
    # real torch 2.13: dir(torch.optim)[:8] (DLwPT ch. 5 prints it)
    assert dir(torch.optim)[:8] == ['ASGD', 'Adadelta', 'Adafactor', 'Adagrad', 'Adam', 'AdamW',
                                    'Adamax', 'LBFGS']
    names = dir(torch.optim)
    for helper in ("np", "raw", "EngineTensor", "Tensor", "defaultdict", "grad_mode"):
        assert helper not in names
    assert "SGD" in torch.optim.__all__ and "np" not in torch.optim.__all__


def test_channels_last_layout():
    # real torch 2.13
    x = torch.randn(2, 3, 4, 5)
    c = x.contiguous(memory_format=torch.channels_last)
    assert c.stride() == (60, 1, 15, 3) and torch.equal(c, x)
    assert not c.is_contiguous() and c.is_contiguous(memory_format=torch.channels_last)
    assert not x.is_contiguous(memory_format=torch.channels_last)
    assert x.to(memory_format=torch.channels_last).stride() == (60, 1, 15, 3)
    assert (c * 2).stride() == (60, 1, 15, 3) and c.clone().stride() == (60, 1, 15, 3)
    assert c.contiguous().stride() == (60, 20, 5, 1)
    assert x.clone(memory_format=torch.channels_last).stride() == (60, 1, 15, 3)
    # a size-1 channel dim: already channels-last contiguous, returned as it is
    assert torch.ones(2, 1, 4, 5).contiguous(memory_format=torch.channels_last).stride() == \
        (20, 20, 5, 1)
    assert torch.ones(2, 3, 1, 1).is_contiguous(memory_format=torch.channels_last)
    assert torch.ones(3, 4).is_contiguous(memory_format=torch.channels_last) is False
    for f in (lambda: torch.ones(3, 4).contiguous(memory_format=torch.channels_last),
              lambda: torch.ones(3, 4).clone(memory_format=torch.channels_last)):
        with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last "
                                               "format$"):
            f()
    assert torch.randn(2, 3, 4, 5, 6).contiguous(
        memory_format=torch.channels_last_3d).stride() == (360, 1, 90, 18, 3)
    assert c.permute(0, 2, 3, 1).is_contiguous() and c.permute(0, 2, 3, 1).stride() == \
        (60, 15, 3, 1)


def test_optimizer_param_group_keys_in_torchs_order():
    # real torch 2.13: the caller's keys first (params, param_names), then the defaults
    m = torch.nn.Linear(2, 1)
    p = torch.nn.Parameter(torch.ones(2))
    o = torch.optim.SGD([{"params": [p], "momentum": 0.5, "zz": 1}], lr=0.1)
    assert list(o.param_groups[0]) == ["params", "momentum", "zz", "lr", "dampening",
                                       "weight_decay", "nesterov", "maximize", "foreach",
                                       "differentiable", "fused"]
    assert list(o.state_dict()["param_groups"][0]) == ["momentum", "zz", "lr", "dampening",
                                                       "weight_decay", "nesterov", "maximize",
                                                       "foreach", "differentiable", "fused",
                                                       "params"]
    o = torch.optim.SGD(m.named_parameters(), lr=0.1)
    assert list(o.param_groups[0])[:3] == ["params", "param_names", "lr"]
    o = torch.optim.Adam([p], lr=0.1)
    assert list(o.param_groups[0]) == ["params", "lr", "betas", "eps", "weight_decay", "amsgrad",
                                       "maximize", "foreach", "capturable", "differentiable",
                                       "fused", "decoupled_weight_decay"]


def test_lr_scheduler_dir_as_torchs():
    # fastai 12_accel_sgd's line, real torch 2.13's output
    from gradrepl.torch.optim import lr_scheduler
    names = ' '.join(o for o in dir(lr_scheduler) if o[0].isupper() and o[1].islower())
    assert names == ("Any ChainedScheduler ConstantLR CosineAnnealingLR CosineAnnealingWarmRestarts "
                     "Counter CyclicLR ExponentialLR LambdaLR LinearLR Literal MultiStepLR "
                     "MultiplicativeLR OneCycleLR Optimizer PolynomialLR ReduceLROnPlateau Self "
                     "SequentialLR StepLR SupportsFloat Tensor TypedDict")
    assert "StepLR" in lr_scheduler.__all__


def test_random_fills_of_views_draw_as_torch():
    # real torch 2.13: normal_ into a non-contiguous view takes the serial path (its values
    # differ from the vectorised fill of 16+ elements); uniform_/normal_ into x.t() write the
    # draws in memory order
    torch.manual_seed(0)
    x = torch.zeros(8, 1, 12, 12)
    torch.nn.init.normal_(x[:, :, 2:4, 3:5], mean=torch.tensor(0.5), std=2.)
    assert x[0, 0, 2:4, 3:5].tolist() == [[3.5819921493530273, -0.08685781061649323],
                                         [-3.857578754425049, 1.6368625164031982]]
    assert x[7, 0, 3, 4].item() == -2.1250438690185547 and x.count_nonzero().item() == 32
    torch.manual_seed(0)  # a contiguous 32: the vectorised fill, other values
    assert torch.zeros(32).normal_(0.5, 2.)[:2].tolist() == [-1.7516796588897705,
                                                             -1.804720401763916]
    torch.manual_seed(0)
    y = torch.zeros(5, 4)
    y.t().uniform_()
    z = torch.zeros(5, 4)
    torch.manual_seed(0)
    z.uniform_()
    assert y.tolist() == z.tolist()  # the same draws in the same memory slots


def test_cat_and_stack_results_are_contiguous():
    # real torch 2.13 (DLwPT ch. 7 stacks permuted images at dim 3, then views them)
    a = torch.arange(24.).reshape(2, 3, 4)
    p = [a.permute(2, 0, 1) for _ in range(3)]
    s = torch.stack(p, dim=3)
    assert s.stride() == (18, 9, 3, 1) and tuple(s.view(4, -1).shape) == (4, 18)
    assert torch.cat(p, 1).stride() == (18, 3, 1)
    assert torch.cat([a.transpose(1, 2)] * 2, 0).stride() == (12, 3, 1)
    assert torch.stack([a.transpose(1, 2)] * 2).stride() == (24, 12, 3, 1)
    assert torch.stack([a[:, :, ::2]] * 2, 1).stride() == (12, 6, 2, 1)
    cl = a[None].expand(2, 2, 3, 4).contiguous(memory_format=torch.channels_last)
    assert torch.cat([cl, cl]).stride() == (24, 1, 8, 2)  # channels-last inputs stay so
    assert torch.stack([cl, cl]).stride() == (48, 24, 1, 8, 2)


def test_results_follow_the_inputs_layout():
    # real torch 2.13: unary elementwise ops and *_like keep a transposed input's layout
    m = torch.randn(3, 4).abs() + 0.5
    t = m.t()
    for f in (torch.exp, torch.log, torch.sqrt, torch.tanh, torch.sin, torch.erf,
              torch.zeros_like, torch.ones_like, torch.empty_like, torch.rand_like,
              torch.randn_like, lambda x: torch.full_like(x, 7.)):
        assert f(t).stride() == (1, 4)
    assert torch.zeros_like(t, memory_format=torch.contiguous_format).stride() == (3, 1)
    assert torch.zeros_like(m[:, ::2]).stride() == (2, 1)
    assert torch.zeros_like(torch.ones(3).expand(2, 3)).stride() == (3, 1)
    x = torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    assert torch.zeros_like(x).stride() == (60, 1, 15, 3)
    assert torch.zeros_like(torch.randn(2, 3, 4, 5),
                            memory_format=torch.channels_last).stride() == (60, 1, 15, 3)
    torch.manual_seed(0)
    r = torch.rand_like(torch.zeros(4, 5).t())
    torch.manual_seed(0)
    assert r.t().tolist() == torch.rand(4, 5).tolist()  # the draws in memory order
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        torch.exp(t).view(12)  # as in torch: the result is not contiguous
    assert t.pow(0.5).stride() == (1, 4) and (t ** 2).stride() == (1, 4)
    assert t.masked_fill(t > 1, 0.).stride() == (3, 1)  # torch clones row-major first
    assert t.cumsum(0).stride() == (3, 1)
