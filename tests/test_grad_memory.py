"""Gradient memory: leaf gradients are summed and cleared in place, and a backward pass without
``retain_graph`` frees each node's saved tensors as it goes."""
import gc
import tracemalloc

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


def test_clear_grad_zeroes_in_place_and_the_next_backward_refills_it():
    lin = paddle.nn.Linear(3, 2)
    x = paddle.ones([4, 3])
    opt = paddle.optimizer.SGD(parameters=lin.parameters())
    _step(lin, x)
    arr = lin.weight.grad.data
    want = lin.weight.grad.numpy()
    opt.clear_grad()
    assert lin.weight.grad.data is arr and not arr.any()
    _step(lin, x)
    assert lin.weight.grad.data is arr
    np.testing.assert_array_equal(lin.weight.grad.numpy(), want)


def test_a_gradient_the_user_supplied_is_never_written_into():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    seed = paddle.to_tensor([1.0, 1.0])
    x.backward(seed)  # x.grad is a copy of the user's tensor, not the tensor itself
    (x * 3).sum().backward()
    np.testing.assert_array_equal(seed.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])


def _peak_backward_bytes(retain_graph):
    """tracemalloc's peak during one backward through a chain of 20 tanh ops on 1M floats."""
    x = paddle.randn([1000, 1000])
    x.stop_gradient = False
    y = x
    for _ in range(20):
        y = paddle.tanh(y)
    loss = y.sum()
    del y
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    loss.backward(retain_graph=retain_graph)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak - base, current - base


def test_backward_without_retain_graph_frees_saved_tensors_as_it_goes():
    freed_peak, freed_after = _peak_backward_bytes(False)
    kept_peak, kept_after = _peak_backward_bytes(True)
    mb = 1 << 20
    # 20 saved 4 MB outputs: released as backward passes them, so memory falls during the pass
    # (the graph's saved tensors go: what remains is about one gradient, x.grad)
    assert freed_after < 12 * mb, freed_after / mb
    assert kept_after > freed_after + 60 * mb, (kept_after / mb, freed_after / mb)
    assert freed_peak < 24 * mb, freed_peak / mb
