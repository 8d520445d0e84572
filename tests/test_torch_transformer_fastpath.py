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

import pytest

from conftest import without_lean_notice

SCRIPT = """\
import torch, torch.nn as nn
torch.manual_seed(0)
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1).eval()
x = torch.randn(2, 4, 8)
pad = torch.tensor([[False] * 4, [False, False, True, True]])
with torch.no_grad():
    print(enc(x, src_key_padding_mask=pad)[1, 2:])            # fast path: zero rows
    print(enc(x, src_key_padding_mask=pad.flip(1))[1, :2].abs().sum() > 0)   # not left aligned
    print(enc(x, src_key_padding_mask=pad, mask=torch.zeros(4, 4)).shape)  # mask given
print(enc(x, src_key_padding_mask=pad)[1, 2:].abs().sum() > 0)   # grad enabled: slow path
enc.train()
with torch.no_grad():
    print(enc(x, src_key_padding_mask=pad)[1, 2:].abs().sum() > 0)
e2 = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1,
                           enable_nested_tensor=False).eval()
with torch.no_grad():
    print(e2(x, src_key_padding_mask=pad)[1, 2:].abs().sum() > 0)
    fm = pad.float().masked_fill(pad, float("-inf"))
    print(enc.eval()(x, src_key_padding_mask=fm)[1, 2:].sum())
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
    out = without_lean_notice(proc.stdout)
    assert re.sub(r"/\S*?/(?:site|dist)-packages/torch/", "SITE/torch/", out) == EXPECTED


# MultiheadAttention's own fast path (eval, batch_first self-attention without masks, nothing to
# record): torch's _native_multi_head_attention computes the weights' route whatever need_weights
# (q scaled after its bias, bmm, softmax, bmm, addmm), not the SDPA of the slow need_weights=False
# path: 158 of 240 values differed in their last bits, and TransformerEncoderLayer's fast path
# (the same attention, then the usual ops) with them. Digests: real torch 2.13 here, sha256[:8]
# of (MultiheadAttention(need_weights=False), TransformerEncoderLayer) outputs under no_grad.
REAL_MHA_E1 = [("15eb2e6b", "2f2c9a08"), ("508b819d", "f2b1c6e5"), ("f40304d1", "ccb6d5c8"),
               ("7ed9fd7d", "10571d73")]


def test_mha_native_path_bits_equal_real_torch():
    import hashlib

    import gradrepl.torch as torch
    from conftest import record_for_mkl_branch
    from gradrepl.torch import nn

    real = record_for_mkl_branch("MHA fast path (MKL GEMMs)", {"AVX512_E1": REAL_MHA_E1})
    got = []
    for (B, T, E, H) in [(3, 5, 16, 4), (2, 7, 32, 2), (1, 9, 64, 8), (4, 3, 8, 2)]:
        torch.manual_seed(B * 100 + T)
        layer = nn.TransformerEncoderLayer(E, H, 2 * E, batch_first=True).eval()
        x = torch.randn(B, T, E)
        with torch.no_grad():
            fast = layer.self_attn(x, x, x, need_weights=False)[0]
            lay = layer(x)
        got.append(tuple(hashlib.sha256(t.numpy().tobytes()).hexdigest()[:8] for t in (fast, lay)))
    assert got == real


# With a boolean key padding mask the native attention scores go through ATen's masked softmax
# (host_softmax: expf of each kept score's difference, their sum in double, times its
# reciprocal), where the slow path adds -inf and runs the vectorised softmax; a
# TransformerEncoderLayer on its fast path hands its attention that boolean mask. Digests: real
# torch 2.13 here, sha256[:8] of (MHA output, averaged weights, per-head weights, layer output).
REAL_KPM_E1 = ["08ae18b0 af1cb3e2 4a17a4b6 c7e02ec8", "bd78a69f 75805aea 43445ac4 3b782879",
               "b2f9482d fe3ab836 0b04976b 01256a7e"]


def test_mha_native_key_padding_bits_equal_real_torch():
    import hashlib

    import gradrepl.torch as torch
    from conftest import record_for_mkl_branch
    from gradrepl.torch import nn

    real = record_for_mkl_branch("MHA fast path with a padding mask", {"AVX512_E1": REAL_KPM_E1})
    got = []
    for (B, T, E, H) in [(3, 5, 16, 4), (2, 7, 32, 2), (4, 3, 8, 2)]:
        torch.manual_seed(B * 10 + T)
        layer = nn.TransformerEncoderLayer(E, H, 2 * E, batch_first=True).eval()
        x = torch.randn(B, T, E)
        pad = torch.arange(T)[None, :] >= torch.randint(1, T + 1, (B,))[:, None]
        pad[0, -1] = True
        mha = layer.self_attn
        with torch.no_grad():
            o, w = mha(x, x, x, key_padding_mask=pad)
            _, w2 = mha(x, x, x, key_padding_mask=pad, average_attn_weights=False)
            lb = layer(x, src_key_padding_mask=pad)
        got.append(" ".join(hashlib.sha256(t.numpy().tobytes()).hexdigest()[:8]
                            for t in (o, w, w2, lb)))
    assert got == real


def test_masked_softmax_all_masked_row_is_nan():
    import numpy as np

    from gradrepl.torch.nn._transformer import _masked_softmax_lastdim

    s = np.array([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]], np.float32)
    out = _masked_softmax_lastdim(s, np.array([[False, True, False], [True, True, True]]))
    # real torch 2.13: torch._masked_softmax(s, mask, 1, 0) -> [[0.1824, 0., 0.8176], [nan]*3]
    assert out[0, 1] == 0 and np.isnan(out[1]).all()
    assert out[0].tolist() == np.float32([0.18242552876472473, 0.0, 0.8175745010375977]).tolist()


# TransformerEncoder's nested path: the kept rows packed through the projections, norms and
# feed-forward GEMMs, the attention over the zero-padded batch with the padded keys at -inf and
# the plain softmax. Digests: real torch 2.13 here (sha256[:8] of the padded output). Left: a
# 3 x 17 x 24, 4-head configuration still differs in last bits (real torch there is neither this
# nor a per-sequence attention; not understood yet).
NESTED_CASES = [(3, 5, 16, 4, "relu", True), (4, 6, 8, 2, "gelu", False),
                (2, 9, 32, 4, "relu", False), (4, 6, 8, 2, "relu", False),
                (5, 12, 16, 2, "relu", True)]
REAL_NESTED_E1 = ["bf60edd5", "22fb3610", "de77341b", "9186909b", "596f7cb3"]


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_encoder_nested_path_bits_equal_real_torch():
    import hashlib

    import gradrepl.torch as torch
    from conftest import record_for_mkl_branch
    from gradrepl.torch import nn

    real = record_for_mkl_branch("encoder nested fast path", {"AVX512_E1": REAL_NESTED_E1})
    got = []
    for (B, T, E, H, act, norm) in NESTED_CASES:
        torch.manual_seed(B + T)
        layer = nn.TransformerEncoderLayer(E, H, 2 * E, activation=act, batch_first=True)
        enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(E) if norm else None).eval()
        x = torch.randn(B, T, E)
        pad = torch.arange(T)[None, :] >= torch.randint(1, T + 1, (B,))[:, None]
        pad[0] = False
        with torch.no_grad():
            y = enc(x, src_key_padding_mask=pad)
        got.append(hashlib.sha256(y.numpy().tobytes()).hexdigest()[:8])
    assert got == real
