"""``nn.Embedding(..., sparse=True)``: Paddle's SelectedRows gradient (gradrepl/paddle/
selected_rows.py) and Adam's sparse-gradient kernel (gradrepl/paddle/optimizer/sparse_adam.py).

The records are real Paddle 3.3.1 and 2.6.2 on this project's Intel machine, 2026-12-07 (both
printed the same): the sha256 (first 16 hex digits) of the weight after three Adam steps, two
of its values as float.hex, and the gradient after ``opt.clear_grad()``; and the SGD case where
the padding row, read as zeros, still takes its gradient. Before this change gradrepl gave the
dense kernel's weights (digests cf2cbbe821f04c39, 8a95a5c664a1f429), a zero gradient instead of
None, and no update of the padding row.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_W0 = (np.arange(40, dtype=np.float32).reshape(10, 4) % 7 - 3) / 4
_C = np.linspace(-2, 2, 24, dtype=np.float32).reshape(2, 3, 4)
_IDS = [[[3, 1, 3], [0, 3, 1]], [[2, 2, 5], [9, 0, 2]], [[3, 0, 0], [7, 7, 7]]]
_ADAM = {False: ("7c56bc275a5f4bec", "-0x1.3b7fa80000000p-1"),
         True: ("199399265490b529", "-0x1.20b5000000000p-1")}


@pytest.fixture(params=["3", "2.6"])
def paddle(request):
    from gradrepl.paddle import state

    state.reset(request.param)
    import gradrepl.paddle as paddle

    yield paddle
    state.reset()


@pytest.mark.parametrize("lazy", [False, True])
def test_adam_on_a_sparse_embedding(paddle, lazy):
    emb = paddle.nn.Embedding(10, 4, sparse=True, padding_idx=7)
    emb.weight.set_value(_W0)
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=emb.parameters(), lazy_mode=lazy)
    for ids in _IDS:
        (emb(paddle.to_tensor(ids)) * paddle.to_tensor(_C)).sum().backward()
        opt.step()
        opt.clear_grad()
    w = emb.weight.numpy()
    assert (hashlib.sha256(w.tobytes()).hexdigest()[:16], float(w[9, 0]).hex()) == _ADAM[lazy]
    assert float(w[4, 1]) == 0.0
    assert emb.weight.grad is None


def test_padding_row_takes_its_gradient(paddle):
    emb = paddle.nn.Embedding(5, 2, sparse=True, padding_idx=1)
    emb.weight.set_value(np.arange(10, dtype="float32").reshape(5, 2))
    out = emb(paddle.to_tensor([1, 2, 1]))
    assert out.numpy().tolist() == [[0.0, 0.0], [4.0, 5.0], [0.0, 0.0]]
    (out * paddle.to_tensor([[1., 2.], [3., 4.], [5., 6.]])).sum().backward()
    paddle.optimizer.SGD(0.5, parameters=emb.parameters()).step()
    assert emb.weight.numpy().tolist() == [[0.0, 1.0], [-1.0, -1.0], [2.5, 3.0], [6.0, 7.0],
                                           [8.0, 9.0]]


def test_cleared_sparse_gradient_is_none(paddle):
    emb = paddle.nn.Embedding(6, 3, sparse=True)
    emb(paddle.to_tensor([[3, 1]])).sum().backward()
    assert emb.weight.grad is not None
    emb.clear_gradients()
    assert emb.weight.grad is None  # real: None with set_to_zero either way
    emb(paddle.to_tensor([[3, 1]])).sum().backward()
    emb.weight.clear_gradient(False)
    assert emb.weight.grad is None
    dense = paddle.nn.Embedding(6, 3)
    dense(paddle.to_tensor([[3, 1]])).sum().backward()
    dense.clear_gradients()
    assert dense.weight.grad.numpy().sum() == 0.0


# real 3.3.1 and 2.6.2 (both the same): the weight after three steps of each optimizer on the
# sparse embedding above (dense-gradient kernels gave other last bits: SGD 3a4fd353986b8893,
# Adagrad 3b7f787d2fb3736f, RMSProp be131fbad2019c22)
_OTHERS = {("Adagrad", ()): "5f1d959fb1ac168a", ("RMSProp", ()): "9cc6cbb41fd5f82b",
           ("RMSProp", (("centered", True), ("momentum", 0.5))): "3fdf8aa36176bc27",
           ("Momentum", (("momentum", 0.9),)): "7b6767e8d6b78c10",
           ("SGD", (("weight_decay", 0.01),)): "c5a315c44d5d5065"}


@pytest.mark.parametrize("name,kw", list(_OTHERS), ids=str)
def test_other_optimizers_on_a_sparse_embedding(paddle, name, kw):
    emb = paddle.nn.Embedding(10, 4, sparse=True, padding_idx=7)
    emb.weight.set_value(_W0)
    opt = getattr(paddle.optimizer, name)(learning_rate=0.1, parameters=emb.parameters(),
                                          **dict(kw))
    for ids in _IDS:
        (emb(paddle.to_tensor(ids)) * paddle.to_tensor(_C)).sum().backward()
        opt.step()
        opt.clear_grad()
    assert hashlib.sha256(emb.weight.numpy().tobytes()).hexdigest()[:16] == _OTHERS[(name, kw)]


# real 3.3.1 and 2.6.2: SGD subtracts each looked-up row's gradient in lookup order, with the
# kernel Paddle picks by the row width (JIT code for whole 8-float rows, MKL's axpy otherwise)
_SGD = {("float32", 3): "868567c07200b3b8", ("float32", 5): "6c85c8604666bbff",
        ("float32", 8): "1041dfef2b8cfebf", ("float32", 16): "5cb2b7767f17377a",
        ("float32", 24): "0afce1902d026c4a", ("float64", 3): "a1a36836ae212a06",
        ("float64", 5): "57a607194602e950", ("float64", 8): "d34ac0626d824e57",
        ("float64", 16): "b1030df1627b56ef", ("float64", 24): "00f9b7eb4278c9c7"}


def test_sgd_row_by_row(paddle):
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("sparse SGD (MKL's axpy on Intel for the row widths)")
    rs = np.random.RandomState(5)
    got = {}
    for dt, d in _SGD:
        paddle.set_default_dtype(dt)
        emb = paddle.nn.Embedding(10, d, sparse=True)
        emb.weight.set_value(rs.randn(10, d).astype(dt))
        opt = paddle.optimizer.SGD(learning_rate=0.37, parameters=emb.parameters())
        for ids in _IDS:
            c = paddle.to_tensor(rs.randn(2, 3, d).astype(dt))
            (emb(paddle.to_tensor(ids)) * c).sum().backward()
            opt.step()
            opt.clear_grad()
        got[(dt, d)] = hashlib.sha256(emb.weight.numpy().tobytes()).hexdigest()[:16]
    paddle.set_default_dtype("float32")
    assert got == _SGD


def test_adam_refuses_weight_decay_on_sparse_gradients(paddle):
    emb = paddle.nn.Embedding(10, 4, sparse=True)
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=emb.parameters(), weight_decay=0.01)
    emb(paddle.to_tensor([1, 2])).sum().backward()
    with pytest.raises(RuntimeError) as e:
        opt.step()
    assert str(e.value) == ("Adam don't support weight_decay with sparse parameters, please set "
                            "it to None.")


# real 3.3.1 and 2.6.2 (the same): one weight looked up several times in one loss; Paddle merges
# the SelectedRows gradients with the lookup made last first, whatever the order of the loss's
# terms (the dense sum gave other last bits)
_MULTI = ["797290739318", "c923a0abb56c", "c74b5b2c04b6"]


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_several_lookups_merge_in_paddles_order(paddle, mode):
    rs = np.random.RandomState(0)
    w0 = rs.randn(12, 3).astype("float32")
    for _ in range(mode + 1):  # the draws of the earlier modes, as recorded
        emb = paddle.nn.Embedding(12, 3, sparse=True)
        emb.weight.set_value(w0)
        ids = [paddle.to_tensor([[1, 5, 1, 7]]), paddle.to_tensor([[5, 1, 2]]),
               paddle.to_tensor([[1, 2, 1, 5, 9]])]
        cs = [paddle.to_tensor(rs.randn(1, t.shape[1], 3).astype("float32") * 2.3) for t in ids]
    terms = [(emb(i) * c).sum() for i, c in zip(ids, cs)]
    loss = [lambda: terms[0] + terms[1] + terms[2], lambda: terms[2] + terms[0] + terms[1],
            lambda: terms[1] + (terms[2] + terms[0])][mode]()
    loss.backward()
    paddle.optimizer.Adam(learning_rate=1.0, parameters=emb.parameters()).step()
    assert hashlib.sha256(emb.weight.numpy().tobytes()).hexdigest()[:12] == _MULTI[mode]
