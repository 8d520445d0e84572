"""What a backward node keeps, and how little: metadata read from the saved arrays, flat edges,
release of the large arrays only, and the few objects per op left for the garbage collector."""
import gc

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.engine.node import KEEP_BYTES
from gradrepl.engine.registry import needs_grad


def _chain(x, n):
    for _ in range(n):
        x = paddle.tanh(x * 1.5 + 0.25)
    return x


def test_meta_and_edges_before_and_after_release():
    a = paddle.to_tensor(np.ones((3, 200), np.float32), stop_gradient=False)  # 2,400 bytes
    b = paddle.to_tensor([2.0], stop_gradient=False)
    c = a * b
    node = c.grad_node
    assert node.in_meta == (((3, 200), np.dtype("float32")), ((1,), np.dtype("float32")))
    assert node.out_meta == (((3, 200), np.dtype("float32")),)
    edges = node.next_edges
    assert edges[0] == (a.accumulate_node(), 0) and edges[1] == (b.accumulate_node(), 0)
    assert needs_grad(node, 0) and needs_grad(node, 1)
    c.sum().backward()
    assert node.released and node.inputs is None
    assert node.in_data is None and node.out_data is None  # larger than KEEP_BYTES: freed
    assert node.in_meta[0] == ((3, 200), np.dtype("float32"))
    assert node.out_meta[0][0] == (3, 200)
    # the inputs are still found through their edges (pictures of a released graph)
    assert node.input_tensor(0) is a and node.input_tensor(1) is b


def test_small_arrays_stay_as_their_own_metadata():
    x = paddle.to_tensor([1.0], stop_gradient=False)
    y = x * 3.0
    z = paddle.tanh(y)
    z.backward()
    node = z.grad_node
    assert node.released and node.inputs is None
    assert node.in_data[0].nbytes <= KEEP_BYTES
    assert node.in_meta == (((1,), np.dtype("float32")),)
    assert node.input_tensor(0) is y  # through the edge to the scale node's output


def test_constant_inputs_are_remembered_by_weakref_only():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    k = paddle.to_tensor([3.0, 4.0])  # stops gradient: no edge
    y = x * k
    node = y.grad_node
    assert node.next_edges[1] is None and not needs_grad(node, 1)
    y.sum().backward()
    assert node.input_tensor(1) is k
    del k
    gc.collect()
    assert node.input_tensor(1) is None


def test_few_tracked_objects_per_recorded_op():
    x0 = paddle.to_tensor([1.0], stop_gradient=False)
    x = _chain(x0, 50)
    gc.collect()
    before = len(gc.get_objects())
    x = _chain(x, 1000)
    gc.collect()
    alive = (len(gc.get_objects()) - before) / 3000
    # a Tensor, its GradNode, the inputs tuple, the edge tuple and the output's weakref
    assert alive <= 5.5, alive
    x.backward()
    gc.collect()
    after = (len(gc.get_objects()) - before) / 3000
    assert after <= alive + 0.01, (alive, after)  # the backward leaves nothing per node


def test_one_walk_counts_the_same_dependencies_as_collect_then_count():
    from gradrepl.engine import backward

    rng = np.random.default_rng(4)
    leaves = [paddle.to_tensor(rng.standard_normal(3).astype(np.float32), stop_gradient=False)
              for _ in range(4)]
    pool = list(leaves)
    for _ in range(40):  # a random DAG: shared inputs, diamonds, several uses of one tensor
        a, b = (pool[i] for i in rng.integers(0, len(pool), 2))
        pool.append(a * b if rng.random() < 0.5 else paddle.tanh(a) + b)
    roots = [t.grad_node for t in pool[-3:]]
    slow = backward.count_deps(backward.collect_nodes(roots))
    fast = backward.walk_deps(roots)
    assert fast == slow and len(fast) > 30


def test_quiet_is_numpy_errstate_unless_the_run_is_already_quiet():
    from gradrepl.engine.ops import _util

    with _util.quiet(divide="raise"):  # not quiet: numpy's own errstate
        with pytest.raises(FloatingPointError):
            np.float64(1.0) / np.float64(0.0)
    with _util.quiet_fp():
        assert _util.FP.on
        with _util.quiet(divide="raise"):  # the whole run ignores float errors
            assert np.isinf(np.float64(1.0) / np.float64(0.0))
    assert not _util.FP.on
