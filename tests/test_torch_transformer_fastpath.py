"""TransformerEncoder's sparsity fast path as torch 2.13 takes it: in eval mode, with nothing
to record (no_grad, or no parameter requiring grad), a left-aligned src_key_padding_mask and no
src mask, torch turns the batch into a nested tensor (NestedTensorImpl's prototype-stage
warning, once a process, shown at transformer.py:529) and the padded rows come back as zeros
(to_padded_tensor(0.0) before the final norm). gradrepl printed no warning and computed the
padded rows (found by TM16B's Géron-style transformer lecture: greedy translation under
no_grad). Left: the kept rows' last bits (torch's native encoder-layer kernels).

The expected output is real torch 2.13.0's on this machine (site-packages path masked)."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap

SCRIPT = """\
import torch, torch.nn as nn
torch.manual_seed(0)
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1).eval()
x = torch.randn(2, 4, 8)
pad = torch.tensor([[False] * 4, [False, False, True, True]])
with torch.no_grad():
    print(enc(x, src_key_padding_mask=pad)[1, 2:])            # fast path: zero rows
    print(enc(x, src_key_padding_mask=pad.flip(1))[1, :2].abs().sum() > 0)   # not left aligned: slow path
    print(enc(x, src_key_padding_mask=pad, mask=torch.zeros(4, 4)).shape)  # mask given: slow path
print(enc(x, src_key_padding_mask=pad)[1, 2:].abs().sum() > 0)   # grad enabled: slow path
enc.train()
with torch.no_grad():
    print(enc(x, src_key_padding_mask=pad)[1, 2:].abs().sum() > 0)
e2 = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1, enable_nested_tensor=False).eval()
with torch.no_grad():
    print(e2(x, src_key_padding_mask=pad)[1, 2:].abs().sum() > 0)
    print(enc.eval()(x, src_key_padding_mask=pad.float().masked_fill(pad, float("-inf")))[1, 2:].sum())
"""
EXPECTED = (  # recorded: real torch 2.13.0, stdout and stderr together (2>&1)
    "SITE/torch/nn/modules/transformer.py:529: UserWarning: The PyTorch API of nested tensors is "
    "in prototype stage and will change in the near future. We recommend specifying "
    "layout=torch.jagged when constructing a nested tensor, as this layout receives active "
    "development, has better operator coverage, and works with torch.compile. (Triggered "
    "internally at /__w/pytorch/pytorch/aten/src/ATen/NestedTensorImpl.cpp:177.)\n"
    "  output = torch._nested_tensor_from_mask(\n"
    "tensor([[0., 0., 0., 0., 0., 0., 0., 0.],\n"
    "        [0., 0., 0., 0., 0., 0., 0., 0.]])\n"
    "tensor(True)\n"
    "SITE/torch/nn/modules/transformer.py:429: UserWarning: Support for mismatched "
    "src_key_padding_mask and mask is deprecated. Use same type for both instead.\n"
    "  src_key_padding_mask = F._canonical_mask(\n"
    "torch.Size([2, 4, 8])\n"
    "tensor(True)\n"
    "tensor(True)\n"
    "tensor(True)\n"
    "tensor(0.)\n")


def test_encoder_fast_path_as_torch(tmp_path):
    script = tmp_path / "lect.py"
    script.write_text(textwrap.dedent(SCRIPT))
    proc = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(script)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout
    out = "".join(line for line in proc.stdout.splitlines(keepends=True)
                  if not line.startswith("gradrepl: torch's float math"))
    assert re.sub(r"/\S*?/(?:site|dist)-packages/torch/", "SITE/torch/", out) == EXPECTED
