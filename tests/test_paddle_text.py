"""paddle.text and paddle.distributed against outputs recorded from real paddlepaddle 3.3.1
(viterbi results identical on 2.6.2)."""
import json
from pathlib import Path

import numpy as np
import pytest

import gradrepl.paddle as paddle

DATA = Path(__file__).parent / "data" / "paddle_text"


def _viterbi_cases():
    """The 20 random CRF problems the real results were recorded for (seeded)."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        b, t, n = int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(3, 6))
        pot = rng.normal(size=(b, t, n)).astype("float32")
        trans = rng.normal(size=(n, n)).astype("float32")
        lengths = rng.integers(1, t + 1, size=b).astype("int64")
        yield pot, trans, lengths


def test_viterbi_decode_matches_real_paddle_bit_for_bit():
    real = iter(json.loads((DATA / "viterbi_real_3.3.1.json").read_text()))
    for pot, trans, lengths in _viterbi_cases():
        for with_tags in (True, False):
            scores, path = paddle.text.viterbi_decode(paddle.to_tensor(pot),
                                                      paddle.to_tensor(trans),
                                                      paddle.to_tensor(lengths), with_tags)
            want_scores, want_path = next(real)
            assert scores.numpy().tolist() == want_scores
            assert path.numpy().tolist() == want_path
            assert str(path.dtype) == "paddle.int64"


def test_viterbi_decoder_layer_prints_and_decodes():
    pot = paddle.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 4) % 5)
    trans = paddle.to_tensor((np.arange(16, dtype="float32").reshape(4, 4) * 7) % 3)
    lengths = paddle.to_tensor([3, 2], dtype="int64")
    decoder = paddle.text.ViterbiDecoder(trans, include_bos_eos_tag=False)
    assert repr(decoder) == "ViterbiDecoder()"
    scores, path = decoder(pot, lengths)
    assert scores.numpy().tolist() == [13.0, 10.0]
    assert path.numpy().tolist() == [[2, 0, 1], [2, 3, 0]]


def test_text_namespace_lists_what_real_paddle_lists():
    assert paddle.text.__all__ == ['Conll05st', 'Imdb', 'Imikolov', 'Movielens', 'UCIHousing',
                                   'WMT14', 'WMT16', 'ViterbiDecoder', 'viterbi_decode']
    with pytest.raises(NotImplementedError, match="Imdb"):
        paddle.text.Imdb(mode="train")


@pytest.mark.parametrize("mode", ["train", "test"])
def test_uci_housing_reads_a_file_as_real_paddle(mode):
    real = json.loads((DATA / "uci_real_3.3.1.json").read_text())[mode]
    ds = paddle.text.datasets.UCIHousing(data_file=str(DATA / "housing_small.data"), mode=mode)
    assert len(ds) == len(real)
    for i, (features, price, dtype) in enumerate(real):
        x, y = ds[i]
        assert x.tolist() == features and y.tolist() == price and str(x.dtype) == dtype


def test_uci_housing_never_downloads(tmp_path, monkeypatch):
    from gradrepl.paddle.vision.datasets import _download

    monkeypatch.setattr(_download, "DATA_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match="never downloads"):
        paddle.text.datasets.UCIHousing(mode="train")


def test_distributed_is_one_process():
    import gradrepl.paddle.distributed as dist

    env = dist.ParallelEnv()
    assert (env.rank, env.local_rank, env.world_size, env.nranks) == (0, 0, 1, 1)
    assert env.trainer_endpoints == [""] and env.current_endpoint == ""
    assert (dist.get_rank(), dist.get_world_size(), dist.is_initialized()) == (0, 1, False)
    assert str(type(env)) == "<class 'paddle.distributed.parallel.ParallelEnv'>"
    with pytest.raises(AttributeError, match="_device_id"):
        env.dev_id
