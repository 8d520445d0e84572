"""paddle.io against real Paddle: tests/data/paddle_io/io_script.py (a Dataset subclass,
TensorDataset, DataLoader batching / shuffle / drop_last / collate_fn / batch_size=None, the
samplers, random_split, Concat/Compose, an IterableDataset, errors) printed these bytes under
Paddle 3.3.1 and 2.6.2 (io.paddle3.txt, io.paddle26.txt); gradrepl must print the same."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest
from helpers import run_source

DATA = pathlib.Path(__file__).parent / "data" / "paddle_io"


@pytest.fixture
def paddle3():
    from gradrepl.paddle import profiles

    profiles.set_profile("3")
    import gradrepl.paddle as paddle

    return paddle


@pytest.mark.parametrize("profile,record", [("3", "io.paddle3.txt"), ("2.6", "io.paddle26.txt")])
def test_io_script_prints_what_paddle_printed(tmp_path, profile, record):
    out = run_source((DATA / "io_script.py").read_text(), profile, tmp_path)
    assert out == (DATA / record).read_text()


def test_shuffle_draws_numpys_global_generator(paddle3):
    paddle = paddle3

    ds = paddle.io.TensorDataset([paddle.arange(10)])
    loader = paddle.io.DataLoader(ds, batch_size=4, shuffle=True)
    np.random.seed(0)
    got = [b[0].numpy().tolist() for b in loader]
    # Paddle 3.3.1 after np.random.seed(0): [2, 8, 4, 9], [1, 6, 7, 3], [0, 5]
    assert got == [[2, 8, 4, 9], [1, 6, 7, 3], [0, 5]]
    paddle.seed(0)  # paddle's generator does not decide the order
    np.random.seed(0)
    assert [b[0].numpy().tolist() for b in loader] == got


def test_batches_are_fresh_tensors_without_gradient(paddle3):
    paddle = paddle3

    x = paddle.ones([4, 2])
    x.stop_gradient = False
    batch = next(iter(paddle.io.DataLoader(paddle.io.TensorDataset([x]), batch_size=4)))
    assert isinstance(batch, list) and batch[0].stop_gradient
    batch[0][0, 0] = 5.0
    assert float(x[0, 0]) == 1.0


def test_random_split_is_a_partition_by_paddle_seed(paddle3):
    paddle = paddle3

    ds = paddle.io.TensorDataset([paddle.arange(10)])
    paddle.seed(3)
    a, b = paddle.io.random_split(ds, [0.7, 0.3])
    paddle.seed(3)
    a2, _ = paddle.io.random_split(ds, [7, 3])
    assert (len(a), len(b)) == (7, 3)
    assert sorted(a.indices + b.indices) == list(range(10))
    assert a.indices == a2.indices
    paddle.seed(1)  # Paddle 3.3.1 and 2.6.2 split 10 samples [7, 3] after paddle.seed(1) so:
    a, b = paddle.io.random_split(ds, [7, 3])
    assert (a.indices, b.indices) == ([6, 3, 7, 8, 9, 2, 1], [5, 4, 0])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        paddle.io.random_split(ds, [3, 3])


def test_distributed_batch_sampler_deals_batches_as_real_paddle(paddle3):
    """Every (size, ranks, rank, shuffle, drop_last) of a grid, and set_epoch: the batches real
    paddle 3.3.1 printed for the same calls."""
    paddle = paddle3

    class Numbers(paddle.io.Dataset):
        def __init__(self, n):
            self.n = n

        def __getitem__(self, i):
            return i

        def __len__(self):
            return self.n

    out = []
    for n in (1, 7, 23, 100):
        for ranks in (1, 2, 3):
            for rank in range(ranks):
                for shuffle in (False, True):
                    for drop_last in (False, True):
                        s = paddle.io.DistributedBatchSampler(
                            Numbers(n), batch_size=4, num_replicas=ranks, rank=rank,
                            shuffle=shuffle, drop_last=drop_last)
                        out.append((n, ranks, rank, shuffle, drop_last, len(s), list(s),
                                    list(s)))
    s = paddle.io.DistributedBatchSampler(Numbers(10), batch_size=3, shuffle=True)
    s.set_epoch(5)
    out.append(list(s))
    want = (DATA / "distributed_batch_sampler_3.3.1.txt").read_text()
    assert repr(out) + "\n" == want



def test_loader_tensors_share_paddles_name_counter_with_to_tensor(paddle3):
    """A DataLoader's tensors are eager_in_tmp_N, numbered by the counter to_tensor's
    generated_tensor_N uses (real paddle 3.3.1 and 2.6.2 printed these names)."""
    paddle = paddle3
    from gradrepl.paddle import core

    core.reset_tensor_names()

    class Pairs(paddle.io.Dataset):
        def __getitem__(self, i):
            return np.ones([2], "float32") * i, np.array([i])

        def __len__(self):
            return 4

    names = [paddle.to_tensor(0).name]
    for x, y in paddle.io.DataLoader(Pairs(), batch_size=2):
        names += [x.name, y.name]
    names.append(paddle.to_tensor(0).name)
    assert names == ["generated_tensor_0", "eager_in_tmp_1", "eager_in_tmp_2", "eager_in_tmp_3",
                     "eager_in_tmp_4", "generated_tensor_5"]
