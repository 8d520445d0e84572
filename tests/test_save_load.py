"""paddle.save / paddle.load in Paddle's own format: files written by real Paddle 3.3.1
(tests/data/paddle_io, made by the same calls as below) load here, and what gradrepl writes has
the same pickle structure (real Paddle 3.3.1 loaded gradrepl's files when they were recorded)."""
import io
import pickle
from pathlib import Path

import numpy as np
import pytest

import gradrepl.paddle as paddle

DATA = Path(__file__).parent / "data" / "paddle_io"
W = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
B = np.array([0.5, -1, 2], np.float32)


def _linear():
    lin = paddle.nn.Linear(2, 3)
    lin.weight.set_value(W)
    lin.bias.set_value(B)
    return lin


def _raw(path):
    with open(path, "rb") as f:
        return pickle.load(f, encoding="latin1")


def test_loads_a_state_dict_saved_by_paddle_with_names():
    sd = paddle.load(str(DATA / "paddle_linear.pdparams"))
    assert list(sd) == ["weight", "bias"]
    np.testing.assert_array_equal(sd["weight"].numpy(), W)
    np.testing.assert_array_equal(sd["bias"].numpy(), B)
    assert sd["weight"].name == "linear_0.w_0" and sd["bias"].name == "linear_0.b_0"
    lin = paddle.nn.Linear(2, 3)
    lin.set_state_dict(sd)
    np.testing.assert_array_equal(lin(paddle.ones([1, 2])).numpy(), (np.ones((1, 2)) @ W + B).astype(np.float32))


def test_loads_a_tensor_and_a_nested_structure_saved_by_paddle():
    t = paddle.load(str(DATA / "paddle_tensor.pdtensor"))
    assert t.name == "my_tensor"
    np.testing.assert_array_equal(t.numpy(), [1.5, -2.25])
    nested = paddle.load(str(DATA / "paddle_nested.pd"))
    assert nested["step"] == 3 and nested["items"][1:] == ["x", (1, 2)]
    np.testing.assert_array_equal(nested["items"][0].numpy(), [1.5, -2.25])
    arr = paddle.load(str(DATA / "paddle_tensor.pdtensor"), return_numpy=True)
    assert isinstance(arr, np.ndarray)


def test_an_optimizer_state_saved_by_paddle_has_gradrepls_keys_and_loads():
    lin = _linear()
    opt = paddle.optimizer.Adam(parameters=lin.parameters())
    lin(paddle.ones([1, 2])).sum().backward()
    opt.step()
    ours = opt.state_dict()
    theirs = paddle.load(str(DATA / "paddle_adam.pdopt"))
    assert list(theirs) == list(ours)
    for key in ours:
        np.testing.assert_array_equal(theirs[key].numpy(), ours[key].numpy())
    opt.set_state_dict(theirs)


def test_gradrepls_files_have_paddles_pickle_structure(tmp_path):
    lin = _linear()
    paddle.save(lin.state_dict(), str(tmp_path / "lin.pdparams"))
    ours, theirs = _raw(tmp_path / "lin.pdparams"), _raw(DATA / "paddle_linear.pdparams")
    assert list(ours) == list(theirs)
    assert ours["StructuredToParameterName@@"].keys() == theirs["StructuredToParameterName@@"].keys()
    for key in ("weight", "bias"):
        assert type(ours[key]) is np.ndarray
        assert ours[key].dtype == theirs[key].dtype
        np.testing.assert_array_equal(ours[key], theirs[key])
    t = paddle.to_tensor([1.5, -2.25])
    t.name = "my_tensor"
    paddle.save(t, str(tmp_path / "t.pdtensor"))
    raw = _raw(tmp_path / "t.pdtensor")
    want = _raw(DATA / "paddle_tensor.pdtensor")
    assert raw[0] == want[0] and raw[1].tobytes() == want[1].tobytes()
    paddle.save({"step": 3, "items": [t, "x", (1, 2)]}, str(tmp_path / "n.pd"))
    raw, want = _raw(tmp_path / "n.pd"), _raw(DATA / "paddle_nested.pd")
    assert raw["step"] == want["step"] and raw["items"][1:] == want["items"][1:]
    assert raw["items"][0][0] == want["items"][0][0]


def test_round_trip_through_bytesio_and_options():
    lin = _linear()
    buf = io.BytesIO()
    paddle.save(lin.state_dict(), buf)
    buf.seek(0)
    sd = paddle.load(buf, keep_name_table=True)
    assert sd["StructuredToParameterName@@"] == {"weight": lin.weight.name,
                                                 "bias": lin.bias.name}
    buf.seek(0)
    arrays = paddle.load(buf, return_numpy=True)
    np.testing.assert_array_equal(arrays["weight"], W)


def test_save_and_load_errors_are_paddles(tmp_path):
    t = paddle.to_tensor([1.0])
    with pytest.raises(ValueError, match="filename is empty string"):
        paddle.save(t, str(tmp_path) + "/")
    with pytest.raises(ValueError, match=r"Expected 1<'protocol'<5, but received protocol=1"):
        paddle.save(t, str(tmp_path / "p.pd"), 1)
    with pytest.raises(ValueError, match="The 'protocol' MUST be `int`"):
        paddle.save(t, str(tmp_path / "p.pd"), "4")
    with pytest.raises(ValueError, match="paddle do not support saving `paddle.nn.Layer` object."):
        paddle.save(paddle.nn.Linear(1, 1), str(tmp_path / "layer.pd"))
    with pytest.raises(ValueError, match=r"to load model not exists"):
        paddle.load(str(tmp_path / "missing.pd"))
    (tmp_path / "junk.pd").write_bytes(b"not a pickle")
    with pytest.raises(ValueError, match="can not parse the file"):
        paddle.load(str(tmp_path / "junk.pd"))


def test_save_makes_missing_directories(tmp_path):
    path = tmp_path / "a" / "b" / "t.pdtensor"
    paddle.save(paddle.to_tensor([2.0]), str(path))
    np.testing.assert_array_equal(paddle.load(str(path)).numpy(), [2.0])
