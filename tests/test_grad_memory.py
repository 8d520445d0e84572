"""Gradient memory: leaf gradients are summed in place, cleared without a pass over them, and
a backward pass without ``retain_graph`` frees each node's saved tensors as it goes."""
import gc
import tracemalloc
import weakref

import numpy as np

import gradrepl.paddle as paddle


def _step(lin, x):
    lin(x).sum().backward()


def test_second_backward_sums_into_the_same_gradient_array():
    lin = paddle.nn.Linear(3, 2)
    x = paddle.ones([4, 3])
    _step(lin, x)
    held = lin.weight.grad
    arr = held.data
    first = held.numpy()
    _step(lin, x)
    assert lin.weight.grad is held and held.data is arr  # no new array, a held reference sees it
    np.testing.assert_array_equal(held.numpy(), first * 2)


def test_clear_grad_shows_zeros_without_memory_and_the_next_backward_takes_its_place():
    lin = paddle.nn.Linear(3, 2)
    x = paddle.ones([4, 3])
    opt = paddle.optimizer.SGD(parameters=lin.parameters())
    _step(lin, x)
    held = lin.weight.grad
    want = held.numpy()
    opt.clear_grad()
    assert lin.weight.grad is held                       # the same tensor, now zeros
    np.testing.assert_array_equal(held.numpy(), np.zeros((3, 2), np.float32))
    assert held.data.strides == (0, 0)                   # one zero, viewed: no (3, 2) buffer
    _step(lin, x)
    assert lin.weight.grad is held                       # a held reference sees the new values
    np.testing.assert_array_equal(held.numpy(), want)
    arr = held.data
    assert arr.flags.writeable and arr.strides != (0, 0)
    _step(lin, x)                                        # and later ones are summed in place
    assert held.data is arr
    np.testing.assert_array_equal(held.numpy(), want * 2)


def test_after_clear_grad_the_new_gradient_array_is_taken_not_added_into_zeros():
    """A Linear's weight gradient (4 MB) becomes the cleared .grad's data: the backward after
    clear_grad allocates no more than the first one did (no zeros of the weight's size)."""
    import tracemalloc

    lin = paddle.nn.Linear(1000, 1000)
    x = paddle.ones([2, 1000])
    opt = paddle.optimizer.SGD(parameters=lin.parameters())

    def backward_peak():
        loss = lin(x).sum()
        tracemalloc.start()
        loss.backward()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak

    first = backward_peak()
    opt.clear_grad()
    after_clear = backward_peak()
    assert after_clear < first + 1_000_000, (first, after_clear)


def test_after_clear_grad_a_negative_zero_gradient_reads_plus_zero():
    """0 + g: as adding into zeroed memory gives (Paddle), while a first gradient keeps -0."""
    x = paddle.to_tensor([-1.0, 2.0], stop_gradient=False)
    c = paddle.to_tensor([-1.0, 1.0])
    (paddle.nn.functional.relu(x) * c).sum().backward()
    assert np.signbit(x.grad.numpy()[0])                 # relu_grad: -1 * 0 = -0
    x.clear_grad()
    (paddle.nn.functional.relu(x) * c).sum().backward()
    assert x.grad.numpy()[0] == 0 and not np.signbit(x.grad.numpy()[0])
    assert "-0." not in str(x.grad)


def test_a_write_into_the_cleared_gradient_is_kept_and_summed_into():
    lin = paddle.nn.Linear(2, 2)
    x = paddle.ones([1, 2])
    _step(lin, x)
    g = lin.bias.grad.numpy()
    lin.bias.clear_grad()
    lin.bias.grad.set_value(np.array([10.0, 20.0], np.float32))
    _step(lin, x)
    np.testing.assert_array_equal(lin.bias.grad.numpy(), g + [10.0, 20.0])


def test_an_optimizer_step_on_cleared_gradients_leaves_the_parameters():
    lin = paddle.nn.Linear(3, 2)
    opt = paddle.optimizer.Adam(parameters=lin.parameters())
    _step(lin, paddle.ones([2, 3]))
    opt.clear_grad()
    w = lin.weight.numpy()
    paddle.optimizer.SGD(learning_rate=0.5, parameters=lin.parameters()).step()
    np.testing.assert_array_equal(lin.weight.numpy(), w)


def test_a_gradient_the_user_supplied_is_never_written_into():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    seed = paddle.to_tensor([1.0, 1.0])
    x.backward(seed)  # x.grad is a copy of the user's tensor, not the tensor itself
    (x * 3).sum().backward()
    np.testing.assert_array_equal(seed.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])


def _tanh_chain(n=20):
    """A chain of ``n`` tanh ops on 1M floats: the loss and weakrefs to the saved outputs."""
    x = paddle.randn([1000, 1000])
    x.stop_gradient = False
    y, saved = x, []
    for _ in range(n):
        y = paddle.tanh(y)
        saved.append(weakref.ref(y.data))
    loss = y.sum()
    del y
    gc.collect()
    return loss, saved


def test_backward_without_retain_graph_frees_saved_tensors_as_it_goes():
    mb = 1 << 20
    loss, saved = _tanh_chain()
    assert all(r() is not None for r in saved)       # tanh's VJP reads its output: kept
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    loss.backward()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    gc.collect()
    assert all(r() is None for r in saved)           # released as the backward passed them
    assert peak - base < 24 * mb, (peak - base) / mb  # one or two 4 MB gradients at a time
    loss, saved = _tanh_chain()
    loss.backward(retain_graph=True)
    gc.collect()
    assert all(r() is not None for r in saved)       # retain_graph keeps them


# ---------------------------------------------------------------- the first gradient is not copied
def _backward_peak(fn):
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def test_a_fresh_gradient_becomes_the_leafs_grad_without_a_copy():
    """A Linear weight's gradient (4 MB here) is the array the matmul VJP made: the backward's
    peak holds it once, not twice."""
    lin = paddle.nn.Linear(1000, 1000)
    x = paddle.randn([1, 1000])
    loss = lin(x).sum()
    peak = _backward_peak(loss.backward)
    weight_grad = 1000 * 1000 * 4
    assert weight_grad <= peak < 1.5 * weight_grad


def test_a_gradient_sent_to_two_leaves_is_copied_for_each():
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
    (a + b).sum().backward()
    assert a.grad.data is not b.grad.data
    (a * 2).sum().backward()  # summed in place into a's gradient only
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])


def test_a_gradient_a_hook_kept_is_not_written_into():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    kept = []
    x.register_hook(lambda g: kept.append(g))
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])


def test_a_gradient_a_pylayer_kept_is_not_written_into():
    kept = []

    class Twice(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            out = g * 2
            kept.append(out)
            return out

    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    Twice.apply(x).sum().backward()
    Twice.apply(x).sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])


def test_a_view_is_copied():
    """``reshape``'s VJP hands back a view of its out_grad; the leaf gets its own array."""
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    y = paddle.reshape(x, [4])
    y.stop_gradient = False
    y.retain_grads()
    (y * 1).sum().backward()
    assert x.grad.data.base is None or x.grad.data.base is not y.grad.data
    (x * 1).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [[2.0, 2.0], [2.0, 2.0]])


def test_after_clear_grad_a_gradient_a_hook_keeps_is_summed_into_zeros_not_taken():
    """A gradient something else holds cannot become .grad's data: the cleared zeros become a
    real array, and the gradient is added into it (the hook's copy stays the hook's)."""
    x = paddle.to_tensor([1.0, -2.0], stop_gradient=False)
    kept = []
    x.register_hook(lambda g: kept.append(g))
    (x * 3).sum().backward()
    x.clear_grad()
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    assert x.grad.data is not kept[-1].data and x.grad.data.flags.writeable
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])
    np.testing.assert_array_equal(kept[-1].numpy(), [3.0, 3.0])
