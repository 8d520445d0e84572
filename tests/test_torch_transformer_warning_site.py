"""nn.Transformer's construction warns where torch's transformer.py builds its encoder.

Found by a pytorch/examples word_language_model-style lecture (TM15A, round 15): its
TransformerModel(nn.Transformer) with the default batch_first=False made real torch 2.13 print
TransformerEncoder's enable_nested_tensor UserWarning (raised with stacklevel=2, so at
nn/modules/transformer.py:143, ``self.encoder = TransformerEncoder(``); gradrepl printed
nothing there. A TransformerEncoder the script builds itself still warns at the script's line.

The expected stderr below is real torch 2.13.0's (this machine), site-packages path masked."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap

from conftest import without_lean_notice

SCRIPT = """\
import torch.nn as nn
m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1)
m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1)
m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, batch_first=True)
m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, batch_first=True, norm_first=True)
e = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2), 1)
print(type(m.encoder).__name__, m.encoder.use_nested_tensor, e.use_nested_tensor)
"""

_BATCH = ("enable_nested_tensor is True, but self.use_nested_tensor is False because "
          "encoder_layer.self_attn.batch_first was not True(use batch_first for better inference "
          "performance)")
EXPECTED_ERR = (  # recorded: real torch 2.13.0 stderr (path to site-packages masked)
    f"SITE/torch/nn/modules/transformer.py:143: UserWarning: {_BATCH}\n"
    "  self.encoder = TransformerEncoder(\n"
    "SITE/torch/nn/modules/transformer.py:143: UserWarning: enable_nested_tensor is True, but "
    "self.use_nested_tensor is False because encoder_layer.norm_first was True\n"
    "  self.encoder = TransformerEncoder(\n"
    f"SCRIPT:6: UserWarning: {_BATCH}\n"
    "  e = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2), 1)\n")
EXPECTED_OUT = "TransformerEncoder False False\n"  # recorded


def test_transformer_encoder_warning_at_torchs_line(tmp_path):
    script = tmp_path / "lect.py"
    script.write_text(textwrap.dedent(SCRIPT))
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(script)],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    err = without_lean_notice(proc.stderr)
    err = re.sub(r"/\S*?/(?:site|dist)-packages/torch/", "SITE/torch/", err)
    assert (proc.stdout, err.replace(str(script), "SCRIPT")) == (EXPECTED_OUT, EXPECTED_ERR)


# The mismatched-mask-types warning of F._canonical_mask (stacklevel=2 in torch): at the line of
# torch's caller (MultiheadAttention.forward, TransformerEncoder.forward,
# TransformerEncoderLayer.forward); gradrepl showed it at its own Module.__call__ line. Found by
# TM15A's language_translation-style s26 (bool padding masks beside nn.Transformer's float
# causal mask). Left: real torch shows the MultiheadAttention one again on a later call from
# the same line (something between calls resets Python's once-per-location registry there).
MASK_SCRIPT = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
q = torch.randn(2, 3, 8)
kpm = torch.tensor([[False, False, True], [False, False, False]])
am = nn.Transformer.generate_square_subsequent_mask(3)
o, w = mha(q, q, q, key_padding_mask=kpm, attn_mask=am)
print(o.shape)
layer = nn.TransformerEncoderLayer(8, 2, batch_first=True)
enc = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
print(enc(q, mask=am, src_key_padding_mask=kpm).shape)
print(layer(q, src_mask=am, src_key_padding_mask=kpm).shape)
"""
MASK_ERR = (  # recorded: real torch 2.13.0 stderr (path to site-packages masked)
    "SITE/torch/nn/modules/activation.py:1336: UserWarning: Support for mismatched "
    "key_padding_mask and attn_mask is deprecated. Use same type for both instead.\n"
    "  key_padding_mask = F._canonical_mask(\n"
    "SITE/torch/nn/modules/transformer.py:429: UserWarning: Support for mismatched "
    "src_key_padding_mask and mask is deprecated. Use same type for both instead.\n"
    "  src_key_padding_mask = F._canonical_mask(\n"
    "SITE/torch/nn/modules/transformer.py:819: UserWarning: Support for mismatched "
    "src_key_padding_mask and src_mask is deprecated. Use same type for both instead.\n"
    "  src_key_padding_mask = F._canonical_mask(\n")


def test_canonical_mask_warning_at_torchs_callers(tmp_path):
    script = tmp_path / "lect.py"
    script.write_text(MASK_SCRIPT)
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(script)],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    err = without_lean_notice(proc.stderr)
    err = re.sub(r"/\S*?/(?:site|dist)-packages/torch/", "SITE/torch/", err)
    assert (proc.stdout, err) == ("torch.Size([2, 3, 8])\n" * 3, MASK_ERR)
