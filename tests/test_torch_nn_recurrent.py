"""torch dialect: RNN/LSTM/GRU and their cells, MultiheadAttention and the Transformer family,
F.scaled_dot_product_attention, against numpy reference computations and literals recorded from
real torch 2.13 (CPU) in this session."""
import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import nn
from gradrepl.torch.nn import functional as F


def _np(t):
    return np.asarray(t.detach().numpy(), np.float64)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _ref_rnn(mode, x, h0, params, c0=None):
    """One direction of one layer, numpy float64: x (T, B, I), params (w_ih, w_hh, b_ih, b_hh)."""
    w_ih, w_hh, b_ih, b_hh = params
    h, c, outs = h0, c0, []
    for t in range(x.shape[0]):
        gi, gh = x[t] @ w_ih.T + b_ih, h @ w_hh.T + b_hh
        if mode == "tanh":
            h = np.tanh(gi + gh)
        elif mode == "relu":
            h = np.maximum(gi + gh, 0)
        elif mode == "gru":
            ir, iz, inn = np.split(gi, 3, 1)
            hr, hz, hn = np.split(gh, 3, 1)
            r, z = _sig(ir + hr), _sig(iz + hz)
            n = np.tanh(inn + r * hn)
            h = (1 - z) * n + z * h
        else:
            i, f, g, o = np.split(gi + gh, 4, 1)
            c = _sig(f) * c + _sig(i) * np.tanh(g)
            h = _sig(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs), h, c


def _layer_params(m, suffix):
    return [_np(getattr(m, f"{n}{suffix}")) for n in ("weight_ih", "weight_hh", "bias_ih",
                                                      "bias_hh")]


@pytest.mark.parametrize("cls,mode", [(nn.RNN, "tanh"), (nn.GRU, "gru"), (nn.LSTM, "lstm")])
def test_two_layer_rnns_match_numpy(cls, mode):
    torch.manual_seed(1)
    m = cls(3, 4, 2)
    x = torch.randn(5, 2, 3)
    out, h = m(x)
    xs = _np(x)
    hs = []
    for layer in range(2):
        z = np.zeros((2, 4))
        xs, hT, cT = _ref_rnn(mode, xs, z, _layer_params(m, f"_l{layer}"), z)
        hs.append(hT)
    np.testing.assert_allclose(_np(out), xs, rtol=1e-5, atol=1e-6)
    hn = h[0] if mode == "lstm" else h
    np.testing.assert_allclose(_np(hn), np.stack(hs), rtol=1e-5, atol=1e-6)
    # a float32 LSTM runs on oneDNN in torch 2.13's CPU wheel (recorded): its output node is
    # the last layer's mkldnn_rnn_layer
    assert type(out.grad_fn).__name__ == ("MkldnnRnnLayerBackward0" if mode == "lstm"
                                          else "StackBackward0")
    assert type(hn.grad_fn).__name__ == "StackBackward0"


def test_bidirectional_batch_first_relu_rnn():
    torch.manual_seed(2)
    m = nn.RNN(3, 4, nonlinearity="relu", bidirectional=True, batch_first=True)
    x = torch.randn(2, 5, 3)
    out, h = m(x)
    xs = _np(x).transpose(1, 0, 2)
    z = np.zeros((2, 4))
    fw, hf, _ = _ref_rnn("relu", xs, z, _layer_params(m, "_l0"))
    bw, hb, _ = _ref_rnn("relu", xs[::-1], z, _layer_params(m, "_l0_reverse"))
    ref = np.concatenate([fw, bw[::-1]], -1).transpose(1, 0, 2)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(h), np.stack([hf, hb]), rtol=1e-5, atol=1e-6)
    assert out.shape == torch.Size([2, 5, 8])
    assert type(out.grad_fn).__name__ == "TransposeBackward1"  # as ATen's in-place transpose_


def test_parameter_names_order_init_and_repr():
    m = nn.LSTM(3, 4, num_layers=2, proj_size=2, bidirectional=True, batch_first=True,
                dropout=0.5)
    names = [n for n, _ in m.named_parameters()]
    assert names[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                         "weight_hr_l0"]
    assert names[5] == "weight_ih_l0_reverse" and len(names) == 20
    assert m.weight_ih_l1.shape == torch.Size([16, 4]) and m.weight_hh_l0.shape == torch.Size(
        [16, 2])
    assert repr(m) == ("LSTM(3, 4, proj_size=2, num_layers=2, batch_first=True, dropout=0.5, "
                       "bidirectional=True)")
    assert repr(nn.RNN(3, 4, nonlinearity="relu", bias=False)) == "RNN(3, 4, bias=False)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    assert repr(nn.GRUCell(3, 4, bias=False)) == "GRUCell(3, 4, bias=False)"
    for p in m.parameters():
        assert np.abs(_np(p)).max() <= 0.5  # uniform(-1/sqrt(4), 1/sqrt(4))
    assert type(m).__module__ == "torch.nn.modules.rnn"


def test_recorded_from_real_torch():
    # real torch 2.13: torch.manual_seed(0); nn.GRU(10, 20, 2); randn(5, 3, 10); randn(2, 3, 20)
    torch.manual_seed(0)
    rnn = nn.GRU(10, 20, 2)
    x = torch.randn(5, 3, 10)
    h0 = torch.randn(2, 3, 20)
    out, _hn = rnn(x, h0)
    np.testing.assert_allclose(_np(out[-1, 0, :4]),
                               [-0.19463878870010376, -0.0494866669178009, 0.3520088791847229,
                                -0.010178908705711365], rtol=1e-5)
    # real torch 2.13: manual_seed(0); nn.LSTM(4, 6, proj_size=3)(randn(2, 1, 4))
    torch.manual_seed(0)
    lstm = nn.LSTM(4, 6, proj_size=3)
    o, (h, c) = lstm(torch.randn(2, 1, 4))
    np.testing.assert_allclose(_np(o[-1, 0]), [-0.0429660938680172, -0.01095124613493681,
                                               0.041062597185373306], rtol=1e-5)
    np.testing.assert_allclose(_np(c[0, 0, :3]), [-0.007868386805057526, 0.029072731733322144,
                                                  0.04629451781511307], rtol=1e-5)
    assert h.shape == torch.Size([1, 1, 3]) and c.shape == torch.Size([1, 1, 6])


def test_cells_match_numpy_and_grad_fn_names():
    torch.manual_seed(3)
    x, h = torch.randn(2, 3), torch.randn(2, 4)
    cell = nn.RNNCell(3, 4)
    ref, _, _ = _ref_rnn("tanh", _np(x)[None], _np(h), [_np(p) for p in cell.parameters()])
    y = cell(x, h)
    np.testing.assert_allclose(_np(y), ref[0], rtol=1e-5, atol=1e-6)
    assert type(y.grad_fn).__name__ == "TanhBackward0"
    cell = nn.GRUCell(3, 4)
    y = cell(x, h)
    ref, _, _ = _ref_rnn("gru", _np(x)[None], _np(h), [_np(p) for p in cell.parameters()])
    np.testing.assert_allclose(_np(y), ref[0], rtol=1e-5, atol=1e-6)
    assert type(y.grad_fn).__name__ == "AddBackward0"
    cell = nn.LSTMCell(3, 4)
    c = torch.randn(2, 4)
    hy, cy = cell(x, (h, c))
    ref, _, cref = _ref_rnn("lstm", _np(x)[None], _np(h), [_np(p) for p in cell.parameters()],
                            _np(c))
    np.testing.assert_allclose(_np(hy), ref[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(cy), cref, rtol=1e-5, atol=1e-6)
    assert type(hy.grad_fn).__name__ == "MulBackward0"
    assert type(cy.grad_fn).__name__ == "AddBackward0"
    # unbatched input
    assert nn.GRUCell(3, 4)(torch.randn(3)).shape == torch.Size([4])


def test_packed_input_equals_each_sequence_alone():
    from gradrepl.torch.nn.utils.rnn import pack_sequence, pad_packed_sequence

    torch.manual_seed(4)
    seqs = [torch.randn(2, 3), torch.randn(4, 3), torch.randn(3, 3)]
    m = nn.GRU(3, 2, bidirectional=True)
    out, h = m(pack_sequence(seqs, enforce_sorted=False))
    padded, lengths = pad_packed_sequence(out, batch_first=True)
    assert lengths.tolist() == [2, 4, 3]
    for i, s in enumerate(seqs):
        o_i, h_i = m(s[:, None, :])
        np.testing.assert_allclose(_np(padded[i, :len(s)]), _np(o_i[:, 0]), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(_np(h[:, i]), _np(h_i[:, 0]), rtol=1e-5, atol=1e-6)


def test_backward_through_lstm_matches_finite_differences():
    torch.manual_seed(5)
    m = nn.LSTM(2, 3).double()
    x = torch.randn(3, 1, 2, dtype=torch.float64, requires_grad=True)
    out, _ = m(x)
    out.sum().backward()
    g = _np(x.grad)
    eps = 1e-6
    base = _np(x)
    for idx in [(0, 0, 0), (2, 0, 1)]:
        xp, xm = base.copy(), base.copy()
        xp[idx] += eps
        xm[idx] -= eps
        fp = float(m(torch.tensor(xp))[0].sum())
        fm = float(m(torch.tensor(xm))[0].sum())
        assert abs((fp - fm) / (2 * eps) - g[idx]) < 1e-6


def test_errors_as_torch():
    m = nn.RNN(3, 4)
    with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size. "
                                           "Expected 3, got 5"):
        m(torch.randn(2, 1, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 1, 4\), got \[1, 2, 4\]"):
        m(torch.randn(2, 1, 3), torch.randn(1, 2, 4))
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)


# ------------------------------------------------------------------------------ attention
def _ref_attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = s + mask
    s = np.exp(s - s.max(-1, keepdims=True))
    return (s / s.sum(-1, keepdims=True)) @ v


def test_scaled_dot_product_attention():
    torch.manual_seed(6)
    q = torch.randn(2, 3, 4, 8, requires_grad=True)
    k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 5, 8)
    o = F.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(_np(o), _ref_attention(_np(q), _np(k), _np(v)), rtol=1e-5,
                               atol=1e-6)
    assert type(o.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    causal = F.scaled_dot_product_attention(q, k[:, :, :4], v[:, :, :4], is_causal=True)
    mask = np.triu(np.full((4, 4), -np.inf), 1)
    np.testing.assert_allclose(_np(causal), _ref_attention(_np(q), _np(k)[:, :, :4],
                                                           _np(v)[:, :, :4], mask),
                               rtol=1e-5, atol=1e-6)
    bmask = torch.rand(4, 5) > 0.3
    ob = F.scaled_dot_product_attention(q, k, v, attn_mask=bmask)
    fmask = np.where(bmask.numpy(), 0.0, -np.inf)
    np.testing.assert_allclose(_np(ob), _ref_attention(_np(q), _np(k), _np(v), fmask),
                               rtol=1e-5, atol=1e-6)
    o.sum().backward()
    assert q.grad.shape == q.shape


def test_multihead_attention_matches_numpy():
    torch.manual_seed(0)
    m = nn.MultiheadAttention(4, 2)
    # real torch 2.13: manual_seed(0); nn.MultiheadAttention(4, 2)
    np.testing.assert_allclose(_np(m.in_proj_weight[0]),
                               [0.22242416441440582, 0.508506715297699, -0.12602636218070984,
                                0.45824551582336426], rtol=1e-6)
    np.testing.assert_allclose(_np(m.out_proj.weight[0]),
                               [-0.003743410110473633, 0.26822179555892944, -0.4115225672721863,
                                -0.3679695129394531], rtol=1e-6)
    assert [n for n, _ in m.named_parameters()] == ["in_proj_weight", "in_proj_bias",
                                                    "out_proj.weight", "out_proj.bias"]
    x = torch.randn(3, 2, 4)
    out, w = m(x, x, x)
    W, b = _np(m.in_proj_weight), _np(m.in_proj_bias)
    xs = _np(x)
    q, k, v = (xs @ W[i * 4:(i + 1) * 4].T + b[i * 4:(i + 1) * 4] for i in range(3))

    def heads(t):  # (L, N, E) -> (N, H, L, 2)
        return t.reshape(3, 2, 2, 2).transpose(1, 2, 0, 3)

    att = _ref_attention(heads(q), heads(k), heads(v))
    ref = att.transpose(2, 0, 1, 3).reshape(3, 2, 4) @ _np(m.out_proj.weight).T \
        + _np(m.out_proj.bias)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(w).sum(-1), np.ones((2, 3)), rtol=1e-6)
    assert type(out.grad_fn).__name__ == "ViewBackward0"
    assert type(w.grad_fn).__name__ == "MeanBackward1"
    out2, w2 = m(x, x, x, need_weights=False)
    assert w2 is None
    np.testing.assert_allclose(_np(out2), _np(out), rtol=1e-5, atol=1e-6)
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear("
                       "in_features=4, out_features=4, bias=True)\n)")


def test_transformer_layers_shapes_repr_and_mask():
    enc = nn.TransformerEncoderLayer(8, 2, 16)
    # recorded from real torch 2.13
    assert repr(enc) == """TransformerEncoderLayer(
  (self_attn): MultiheadAttention(
    (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)
  )
  (linear1): Linear(in_features=8, out_features=16, bias=True)
  (dropout): Dropout(p=0.1, inplace=False)
  (linear2): Linear(in_features=16, out_features=8, bias=True)
  (norm1): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)
  (norm2): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)
  (dropout1): Dropout(p=0.1, inplace=False)
  (dropout2): Dropout(p=0.1, inplace=False)
)"""
    stack = nn.TransformerEncoder(enc, num_layers=2)
    np.testing.assert_array_equal(_np(stack.layers[0].linear1.weight),
                                  _np(stack.layers[1].linear1.weight))  # deep copies
    assert stack.layers[0].linear1.weight is not stack.layers[1].linear1.weight
    assert stack(torch.rand(5, 3, 8)).shape == torch.Size([5, 3, 8])
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, batch_first=True), 2)
    assert dec(torch.rand(3, 4, 8), torch.rand(3, 5, 8)).shape == torch.Size([3, 4, 8])
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(mask.numpy(), np.triu(np.full((3, 3), -np.inf,
                                                                np.float32), 1))
    t = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                       dim_feedforward=16, dropout=0.0)
    out = t(torch.rand(5, 2, 8), torch.rand(4, 2, 8),
            tgt_mask=nn.Transformer.generate_square_subsequent_mask(4))
    assert out.shape == torch.Size([4, 2, 8])
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        t(torch.rand(5, 2, 8), torch.rand(4, 3, 8))


def test_eval_encoder_layer_matches_numpy():
    torch.manual_seed(7)
    layer = nn.TransformerEncoderLayer(4, 1, 6, dropout=0.0).eval()
    x = torch.randn(3, 1, 4)
    y = layer(x)
    xs = _np(x)[:, 0]
    W, b = _np(layer.self_attn.in_proj_weight), _np(layer.self_attn.in_proj_bias)
    q, k, v = (xs @ W[i * 4:(i + 1) * 4].T + b[i * 4:(i + 1) * 4] for i in range(3))
    a = _ref_attention(q, k, v) @ _np(layer.self_attn.out_proj.weight).T \
        + _np(layer.self_attn.out_proj.bias)

    def ln(t):
        return (t - t.mean(-1, keepdims=True)) / np.sqrt(t.var(-1, keepdims=True) + 1e-5)

    h = ln(xs + a)
    f = np.maximum(h @ _np(layer.linear1.weight).T + _np(layer.linear1.bias), 0) \
        @ _np(layer.linear2.weight).T + _np(layer.linear2.bias)
    np.testing.assert_allclose(_np(y)[:, 0], ln(h + f), rtol=1e-4, atol=1e-5)
