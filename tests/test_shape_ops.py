"""Shape manipulation: values, gradients and errors as measured on Paddle 2.6.2 / 3.3.1.

Expected values were captured from the real oracles; gradients are also compared with the numpy
formula they must equal (the sum of upstream gradients over the copies of each element).
"""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import profiles


@pytest.fixture(params=["2.2", "2.6", "3"])
def profile(request):
    profiles.set_profile(request.param)
    return request.param


def leaf(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float32), stop_gradient=False)


def grad_of(x, fn, weights=None):
    """x.grad after backward of sum(fn(x) * w) for a fixed w (ones by default)."""
    x.clear_gradient(False)
    y = fn(x)
    w = np.ones(y.shape, np.float32) if weights is None else weights
    (y * paddle.to_tensor(w)).sum().backward()
    return x.grad.numpy()


def err(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


# ------------------------------------------------------------------------------ reshape family
def test_reshape_zero_and_minus_one(profile):
    x = paddle.ones([2, 3, 4])
    assert list(x.reshape([0, -1]).shape) == [2, 12]
    assert list(paddle.reshape(x, [4, 0, -1]).shape) == [4, 3, 2]


@pytest.mark.parametrize("shape, words", [
    ([4, 2], "equal to the capacity"), ([4, -1], "divisible by known capacity"),
    ([-1, -1], "Only one dimension value"), ([0, 6], "capacity of 'shape' is 36")])
def test_reshape_errors(shape, words):
    kind, msg = err(lambda: paddle.arange(6).reshape(shape))
    assert kind == "ValueError" and "ReshapeOp" in msg and words in msg


def test_squeeze_unsqueeze_flatten(profile):
    x = leaf(np.arange(6).reshape(1, 3, 1, 2))
    assert list(x.squeeze().shape) == [3, 2]
    assert list(x.squeeze([0, 1]).shape) == [3, 1, 2]   # size-3 axis silently kept
    assert list(x.squeeze(-2).shape) == [1, 3, 2]
    assert list(paddle.unsqueeze(x, [0, 5]).shape) == [1, 1, 3, 1, 2, 1]
    assert list(paddle.ones([2, 3]).unsqueeze([-1, 1]).shape) == [2, 1, 3, 1]
    assert list(x.flatten(1, 2).shape) == [1, 3, 2]
    assert list(x.flatten().shape) == [6]
    assert grad_of(x, lambda t: t.flatten() * 2).tolist() == np.full((1, 3, 1, 2), 2.0).tolist()
    assert err(lambda: paddle.flatten(x, 2, 1))[0] == "ValueError"
    assert err(lambda: paddle.unsqueeze(x, 9))[0] == "ValueError"


def test_squeeze_to_0d_follows_profile(profile):
    s = paddle.squeeze(paddle.to_tensor([5.0]))
    assert list(s.shape) == ([] if profile != "2.2" else [1])


# ------------------------------------------------------------------------------ joins and splits
def test_concat_and_gradient():
    a = leaf([[1.0, 2.0]])
    b = leaf([[3.0, 4.0], [5.0, 6.0]])
    c = paddle.concat([a, b], axis=0)
    w = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    (c * w).sum().backward()
    assert a.grad.numpy().tolist() == [[1.0, 2.0]]
    assert b.grad.numpy().tolist() == [[3.0, 4.0], [5.0, 6.0]]
    kind, msg = err(lambda: paddle.concat([paddle.ones([2, 3]), paddle.ones([3, 3])], axis=1))
    assert kind == "ValueError" and "0-th dimension" in msg


def test_stack_unbind_roundtrip(profile):
    x = leaf(np.arange(6).reshape(2, 3))
    parts = paddle.unbind(x, axis=1)
    assert [list(p.shape) for p in parts] == [[2]] * 3
    s = paddle.stack(parts, axis=0)
    assert s.numpy().tolist() == x.numpy().T.tolist()
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert grad_of(x, lambda t: paddle.stack(paddle.unbind(t, 1)), w).tolist() == w.T.tolist()


def test_split_sections_and_errors():
    x = leaf([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    p, q, r = paddle.split(x, 3, axis=1)
    assert q.numpy().tolist() == [[1.0], [4.0]]
    u, v = paddle.split(x, [1, -1], axis=1)
    assert list(v.shape) == [2, 2]
    (q * 5 + r).sum().backward()
    assert x.grad.numpy().tolist() == [[0.0, 5.0, 1.0], [0.0, 5.0, 1.0]]
    kind, msg = err(lambda: paddle.split(paddle.arange(5), 2))
    assert kind == "ValueError" and "divisible" in msg
    assert err(lambda: paddle.split(paddle.arange(5), [2, 2]))[1].startswith(
        "(InvalidArgument) Sum of Attr(num_or_sections) must be equal")
    assert "can be -1" in err(lambda: paddle.split(paddle.arange(5), [-1, -1]))[1]
    assert [t.tolist() for t in paddle.chunk(paddle.arange(6), 3)] == [[0, 1], [2, 3], [4, 5]]


def test_split_pieces_are_copies():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    paddle.split(x, 2)[0].zero_()
    assert x.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


# ------------------------------------------------------------------------------ copies
def test_expand_broadcast_to_and_gradient():
    x = leaf([[1.0], [2.0]])
    e = x.expand([2, 3])
    b = paddle.broadcast_to(x, [3, 2, 2])
    (e.sum() + b.sum()).backward()
    assert x.grad.numpy().tolist() == [[9.0], [9.0]]
    assert list(x.expand([-1, 4]).shape) == [2, 4]
    assert list(paddle.ones([1, 3]).expand_as(paddle.ones([2, 3])).shape) == [2, 3]
    kind, msg = err(lambda: paddle.expand(paddle.ones([2, 3]), [4, 3]))
    assert kind == "ValueError" and "expand_v2" in msg


def test_tile_flip_roll_gradients():
    x = leaf(np.arange(6).reshape(2, 3))
    w = np.arange(24, dtype=np.float32).reshape(4, 6)
    g = grad_of(x, lambda t: paddle.tile(t, [2, 2]), w)
    expect = w.reshape(2, 2, 2, 3).sum(axis=(0, 2))
    assert g.tolist() == expect.tolist()
    assert paddle.tile(paddle.to_tensor([1, 2]), [2, 2]).tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    w6 = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert grad_of(x, lambda t: paddle.flip(t, [0, 1]), w6).tolist() == w6[::-1, ::-1].tolist()
    assert grad_of(x, lambda t: paddle.roll(t, 1, axis=1), w6).tolist() == \
        np.roll(w6, -1, axis=1).tolist()
    assert paddle.roll(paddle.to_tensor([[1, 2], [3, 4]]), 1).tolist() == [[4, 1], [2, 3]]


# ------------------------------------------------------------------------------ gathers
def test_gather_repeated_index_accumulates():
    x = leaf([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    g = paddle.gather(x, paddle.to_tensor([2, 0, 2]))
    assert g.numpy().tolist() == [[5.0, 6.0], [1.0, 2.0], [5.0, 6.0]]
    g.sum().backward()
    assert x.grad.numpy().tolist() == [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
    assert paddle.gather(x, paddle.to_tensor([1]), axis=1).numpy().tolist() == [[2.0], [4.0], [6.0]]
    kind, msg = err(lambda: paddle.gather(x, paddle.to_tensor([5])))
    assert kind == "IndexError"


def test_gather_nd_index_select_masked_select_take_along_axis():
    x = leaf(np.arange(12).reshape(3, 4))
    idx = paddle.to_tensor([[0, 1], [2, 3], [0, 1]])
    assert paddle.gather_nd(x, idx).numpy().tolist() == [1.0, 11.0, 1.0]
    assert grad_of(x, lambda t: paddle.gather_nd(t, idx))[0, 1] == 2.0
    assert paddle.index_select(x, paddle.to_tensor([3, 0]), axis=1).numpy().tolist() == \
        [[3.0, 0.0], [7.0, 4.0], [11.0, 8.0]]
    mask = paddle.to_tensor(np.arange(12).reshape(3, 4) % 5 == 0)
    assert paddle.masked_select(x, mask).numpy().tolist() == [0.0, 5.0, 10.0]
    assert grad_of(x, lambda t: paddle.masked_select(t, mask)).sum() == 3.0
    # the mask broadcasts against x
    assert paddle.masked_select(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]]),
                                paddle.to_tensor([True, False])).numpy().tolist() == [1.0, 3.0]
    t = paddle.take_along_axis(x, paddle.to_tensor([[0], [3], [3]]), 1)
    assert t.numpy().tolist() == [[0.0], [7.0], [11.0]]


def test_scatter_overwrite_and_add():
    x = leaf(np.zeros((3, 2)))
    u = leaf([[1.0, 2.0], [3.0, 4.0]])
    out = paddle.scatter(x, paddle.to_tensor([2, 0]), u)
    assert out.numpy().tolist() == [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]]
    out.sum().backward()
    assert x.grad.numpy().tolist() == [[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]
    assert u.grad.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    added = paddle.scatter(paddle.ones([3, 2]), paddle.to_tensor([1, 1]), u.detach(), overwrite=False)
    assert added.numpy().tolist() == [[1.0, 1.0], [4.0, 6.0], [1.0, 1.0]]


def test_transpose_moveaxis_and_second_order():
    x = leaf(np.arange(6).reshape(2, 3))
    assert list(paddle.moveaxis(paddle.ones([2, 3, 4]), 0, -1).shape) == [3, 4, 2]
    assert x.T.numpy().tolist() == np.arange(6).reshape(2, 3).T.tolist()
    y = (paddle.concat([x, x * x], axis=0) ** 2).sum()
    (g,) = paddle.grad([y], [x], create_graph=True)
    (gg,) = paddle.grad([g.sum()], [x])
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert gg.numpy().tolist() == (2 + 12 * xv ** 2).tolist()
