"""TransformerEncoderLayer's activation_relu_or_gelu flag and activation as torch 2.13 sets them.

nn.functional's relu and gelu are wrapped after the layers' signatures bound their default
(the complex refusals, torch/_complex_unsupported): the default F.relu was no longer ``is
F.relu``, so every batch_first nn.Transformer / TransformerEncoder warned 'enable_nested_tensor
is True, but self.use_nested_tensor is False because encoder_layer.activation_relu_or_gelu was
not True' where real torch is silent (found by TM16B's Géron-style transformer lecture). nn.ReLU
and nn.GELU instances count too, as in torch. Expected values: real torch 2.13.0 on this machine."""
import warnings

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F
from gradrepl.torch import nn


def test_activation_flags_as_torch():
    flags = [nn.TransformerEncoderLayer(8, 2, activation=a).activation_relu_or_gelu
             for a in (F.relu, "relu", "gelu", F.gelu, nn.GELU(), nn.ReLU(inplace=True),
                       torch.relu, F.silu, lambda x: F.relu(x))]
    assert flags == [1, 1, 2, 2, 2, 1, 0, 0, 0]  # real torch 2.13
    assert nn.TransformerEncoderLayer(8, 2).activation_relu_or_gelu == 1
    assert nn.TransformerEncoderLayer(8, 2).activation is F.relu
    assert nn.TransformerDecoderLayer(8, 2).activation is F.relu
    assert nn.TransformerDecoderLayer(8, 2, activation="gelu").activation is F.gelu


def test_batch_first_transformer_builds_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = nn.Transformer(8, 2, 1, 1, 16, batch_first=True)
        e = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True), 2)
    assert t.encoder.use_nested_tensor and e.use_nested_tensor   # real torch: True True
