"""torch dialect: the oneDNN LSTM's weight gradients when a reduction is longer than 384 rows.

Found by TM15A's pytorch/examples mnist_rnn-style lecture (round 15): nn.LSTM(14, 32,
batch_first=True) on batches of 32 rows of 14 steps: the gate and bias gradients equal real
torch 2.13, weight_ih/weight_hh gradients off in last bits (K = 14 x 32 = 448 rows). oneDNN's
sgemm splits such a K into ceil(K / 384) equal blocks, each a chain from zero, added in order
(``_onednn_lstm._mm_wgrad``). The digests below were printed by real torch 2.13.0 on this Intel
machine (avx512_core; seeded inputs, the same arithmetic under gradrepl): K of 400 to 700, one
and two layers, both directions. Left: K of 768 and more (3 blocks) still differs."""
import hashlib

import gradrepl.torch as torch
from conftest import skip_unless_onednn_avx512_core


def _h(t):
    return hashlib.md5(t.detach().numpy().tobytes()).hexdigest()[:12]


CASES = [(14, 32, 14, 32, 1, False), (20, 20, 8, 16, 1, False), (25, 24, 6, 8, 1, False),
         (7, 100, 3, 8, 1, False), (14, 32, 10, 16, 2, True), (10, 50, 10, 16, 2, True)]
EXPECTED = [  # recorded: real torch 2.13.0 (x.grad, then each weight's grad)
    ['71cd805b2538', 'edaea01bf4de', '8bcd0c390f36'],
    ['d6c0c250d12a', '413703fdf42d', 'e03ace400c5a'],
    ['64fa16817db8', '677083d62c0b', '750cba38cdb1'],
    ['559d81a0f7a8', '8c12229b337d', '1535b36aa9ac'],
    ['004238dc0a7e', '039d8f6dcebe', 'e9b51c7758fe', '22ec21961d61', '67bf39c3b178',
     'a6bd59e370d6', '35c73552b939', 'e7c931e0beba', 'fdcd6fbd494c'],
    ['7062b5dbb545', 'c5eda3392ab9', '2ad3e364d95d', '3fa746f58338', '5315bbf62b71',
     'e5cea9afb032', '88054cd9e6ae', '006e4940bb07', 'eef80475eea5']]


def test_lstm_weight_gradients_with_long_reductions():
    skip_unless_onednn_avx512_core("LSTM weight gradients (oneDNN sgemm K blocks)")
    got = []
    for T, B, I, H, L, bi in CASES:
        torch.manual_seed(2)
        rnn = torch.nn.LSTM(I, H, num_layers=L, bidirectional=bi)
        x = torch.randn(T, B, I, requires_grad=True)
        out, _ = rnn(x)
        out.backward(torch.randn_like(out))
        got.append([_h(x.grad)] + [_h(p.grad) for n, p in rnn.named_parameters()
                                   if "weight" in n])
    assert got == EXPECTED
