"""Transformer layers against real paddlepaddle 3.3.1 (tests/data/transformer/real_3.3.1.json,
recorded with the same seed and inputs): the same parameters in the same order (so the same
initial values), the same outputs and input gradients to float32 rounding."""
import json
from pathlib import Path

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import profiles

REAL = json.loads((Path(__file__).parent / "data" / "transformer" / "real_3.3.1.json").read_text())


def _inputs():
    x = paddle.to_tensor(np.linspace(-1, 1, 48).reshape(2, 3, 8).astype("float32"),
                         stop_gradient=False)
    m = paddle.to_tensor(np.linspace(1, -1, 64).reshape(2, 4, 8).astype("float32"))
    return x, m


@pytest.mark.parametrize("before", [False, True])
def test_encoder_and_decoder_layers_match_real_paddle(before):
    profiles.set_profile("3")
    real = REAL[str(before)]
    paddle.seed(7)
    enc = paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, normalize_before=before)
    dec = paddle.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, normalize_before=before)
    assert list(enc.state_dict()) == real["enc_keys"]
    assert list(dec.state_dict()) == real["dec_keys"]
    assert repr(enc) == real["enc_repr"]
    x, m = _inputs()
    y = dec(enc(x), m)
    y.sum().backward()
    np.testing.assert_allclose(y.numpy(), real["y"], rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(x.grad.numpy(), real["x_grad"], rtol=2e-5, atol=2e-5)


def test_whole_transformer_matches_real_paddle():
    profiles.set_profile("3")
    real = REAL["transformer"]
    paddle.seed(3)
    t = paddle.nn.Transformer(8, 2, 2, 1, 16, dropout=0.0)
    assert len(t.parameters()) == real["n_params"]
    assert list(t.state_dict()) == real["keys"]
    x, m = _inputs()
    np.testing.assert_allclose(t(x, m).numpy(), real["y"], rtol=2e-6, atol=2e-6)
