"""Indexing and in-place rules, as measured on Paddle 2.6.2 and 3.3.1.

Facts under test (all seen on the oracles):
* reads follow numpy's rules; an int out of range raises IndexError "... out of bounds ...";
* x[0, 1] of a 2-D tensor is 0-D in 2.6/3 and shape [1] in 2.2;
* gradients of repeated advanced indices accumulate;
* in-place *methods* on a leaf that requires grad write the data and then raise ValueError
  ("Leaf Var ... inplace"); ``x[i] = v`` raises before writing; both are fine under no_grad;
* in-place results keep identity and memory (slices, reshapes and detach() are views);
* x[i] = v on a non-leaf sends gradients to the untouched elements and to v.
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


BASE = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("index", [
    1, -1, (0, 1), (1, slice(None, 2)), (slice(None, None, 2), slice(1, None, 2)),
    (slice(None, None, -1), slice(None, None, -2), 1), (None, 1, None), (Ellipsis, 2),
    (1, Ellipsis, None), [0, 1, 0], (slice(None), [1, 1, 2]), ([0, 1], [1, 2]),
    ([0, 1], slice(None), [1, 3]), (slice(1, 100),), (slice(1, 1),)])
def test_reads_follow_numpy(index, profile):
    x = leaf(BASE)
    assert x[index].numpy().tolist() == BASE[index].tolist()


def test_read_gradients_accumulate_repeats():
    x = leaf(BASE)
    (x[[0, 0, 1]].sum() + x[:, [1, 1], 2].sum() * 10).backward()
    g = np.ones_like(BASE)
    g[0] += 1
    g[:, 1, 2] += 20
    assert x.grad.numpy().tolist() == g.tolist()


def test_tensor_and_mask_indices():
    profiles.set_profile("2.6")  # a 0-D index tensor (2.2 has none) reads like an int
    x = leaf(BASE)
    assert x[paddle.to_tensor([1, 0])].numpy().tolist() == BASE[[1, 0]].tolist()
    assert list(x[paddle.to_tensor(1)].shape) == [3, 4]
    mask = BASE > 20
    assert x[paddle.to_tensor(mask)].numpy().tolist() == [21.0, 22.0, 23.0]
    assert list(x[paddle.to_tensor([True, False])].shape) == [1, 3, 4]
    x[paddle.to_tensor(mask)].sum().backward()
    assert x.grad.numpy().tolist() == mask.astype(np.float32).tolist()


def test_scalar_reads_per_profile(profile):
    x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    expect = [] if profile != "2.2" else [1]
    assert list(x[0, 1].shape) == expect
    assert list(paddle.to_tensor([1.0, 2.0, 3.0])[-3].shape) == expect
    assert x[0, 1].numpy().reshape(-1).tolist() == [2.0]


def test_index_errors():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    for index in (5, -4, (0, 0)):
        with pytest.raises(IndexError, match="out of bounds"):
            x[index]
    with pytest.raises(ValueError, match="only allows indexing by"):
        x[1.5]


def test_inverted_slice_per_profile(profile):
    x = paddle.ones([3, 4])
    if profile == "3":
        assert list(x[2:1].shape) == [0, 4]
    else:
        with pytest.raises(ValueError, match="end should be greater than start"):
            x[2:1]
    assert list(x[1:1].shape) == [0, 4]


# str() of real Paddle 2.6.2's ValueErrors (its enforce hint and source line; 3.3.1 slices empty)
INVERTED_26 = {
    (5, 2, 1): "(InvalidArgument) When step > 0, end should be greater than start, but received "
               "end = 2, start = 5.\n  [Hint: Expected end >= start, but received end:2 < "
               "start:5.] (at /paddle/paddle/phi/kernels/funcs/slice_utils.h:78)\n",
    (2, 5, -1): "(InvalidArgument) The start index and end index are invalid for their "
                "corresponding stride.\n  [Hint: Expected neg_dim_condition == false, but received "
                "neg_dim_condition:1 != false:0.] (at "
                "/paddle/paddle/phi/kernels/funcs/strided_slice.h:100)\n",
}


def test_inverted_slice_message_26():
    profiles.set_profile("2.6")
    x = paddle.arange(20)
    for (a, b, c), text in INVERTED_26.items():
        with pytest.raises(ValueError) as err:
            x[a:b:c]
        assert str(err.value) == text


# ------------------------------------------------------------------------------ in-place
def test_inplace_on_grad_leaf_writes_then_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="inplace"):
        x.add_(paddle.to_tensor([1.0, 1.0]))
    assert x.numpy().tolist() == [2.0, 3.0]
    with pytest.raises(ValueError, match="inplace"):
        x[0] = 7.0
    assert x.numpy().tolist() == [2.0, 3.0]
    with paddle.no_grad():
        x.subtract_(paddle.to_tensor([0.5, 0.5]))
        x[1] = 9.0
    assert x.numpy().tolist() == [1.5, 9.0]
    assert x.is_leaf and not x.stop_gradient


def test_inplace_methods_on_nonleaf_record_gradients():
    a = leaf([1.0, 2.0, 3.0])
    b = a * 2
    assert b.add_(a) is b
    b.sum().backward()
    assert a.grad.numpy().tolist() == [3.0, 3.0, 3.0]
    a.clear_gradient(False)
    b = a * 2
    b.multiply_(a)
    b.sum().backward()
    assert a.grad.numpy().tolist() == [4.0, 8.0, 12.0]
    a.clear_gradient(False)
    b = a * 3
    b.scale_(2.0)
    b.sum().backward()
    assert a.grad.numpy().tolist() == [6.0, 6.0, 6.0]
    a.clear_gradient(False)
    b = a * 3
    b.zero_()
    b.sum().backward()
    assert a.grad.numpy().tolist() == [0.0, 0.0, 0.0]


def test_inplace_shape_error():
    c = paddle.to_tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="broadcast output"):
        c.add_(paddle.to_tensor([[1.0, 2.0]]))


def test_inplace_writes_through_views():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    x[0].add_(paddle.to_tensor([10.0, 10.0]))
    assert x.numpy().tolist() == [[11.0, 12.0], [3.0, 4.0]]
    x.reshape([4]).scale_(2.0)
    assert x.numpy().tolist() == [[22.0, 24.0], [6.0, 8.0]]
    x.detach().zero_()
    assert x.numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_setitem_gradients():
    a = leaf([1.0, 2.0, 3.0])
    b = a * 2
    v = paddle.to_tensor(10.0, stop_gradient=False)
    b[1] = v * 3
    assert b.numpy().tolist() == [2.0, 30.0, 6.0]
    b.sum().backward()
    assert a.grad.numpy().tolist() == [2.0, 0.0, 2.0]
    assert v.grad.numpy().reshape(-1).tolist() == [3.0]
    # a stop_gradient leaf receiving a grad-requiring value joins the graph
    c = paddle.zeros([3])
    w = leaf([1.0, 2.0])
    c[1:] = w
    assert not c.stop_gradient
    (c * c).sum().backward()
    assert w.grad.numpy().tolist() == [2.0, 4.0]


def test_setitem_values_and_errors():
    z = paddle.zeros([2, 3])
    z[0] = paddle.to_tensor([1.0, 2.0, 3.0])
    z[:, 1] = 9
    z[1] = np.array([4.0, 5.0, 6.0])
    assert z.numpy().tolist() == [[1.0, 9.0, 3.0], [4.0, 5.0, 6.0]]
    q = paddle.zeros([2], dtype="int64")
    q[0] = 3.7
    assert q.tolist() == [3, 0]
    with pytest.raises(ValueError, match="must match the shape of target"):
        z[0] = paddle.ones([2])
    z[1] = paddle.to_tensor([[7.0, 8.0, 9.0]])  # surplus leading 1s are dropped
    z[1, 1] = paddle.to_tensor([[5.0]])
    assert z.numpy().tolist() == [[1.0, 9.0, 3.0], [7.0, 5.0, 9.0]]
    with pytest.raises(ValueError, match="Value type error"):
        z[0] = [1.0, 2.0, 3.0]


def test_set_value_checks_shape_and_dtype():
    t = paddle.zeros([2, 2])
    with pytest.raises(AssertionError, match="Shape not match"):
        t.set_value(np.ones([3, 3], "float32"))
    with pytest.raises(AssertionError, match="dtype not match"):
        t.set_value(np.ones([2, 2], "float64"))
    x = leaf([1.0, 2.0])
    x.set_value(np.array([3.0, 4.0], "float32"))  # allowed on a grad-requiring leaf
    assert x.numpy().tolist() == [3.0, 4.0] and x.is_leaf


def test_fill_and_clip_inplace():
    t = paddle.to_tensor([-1.0, 0.5, 3.0])
    assert t.fill_(2.5).numpy().tolist() == [2.5, 2.5, 2.5]
    t = paddle.to_tensor([1.0, 2.0])
    assert t.clip_(1.2, 1.5).numpy().tolist() == [np.float32(1.2), 1.5]
