"""torch dialect: the oneDNN LSTM's gradients (nn/_onednn_lstm.py ``layer_backward``), bit for bit.

Real torch 2.13 runs a float32 nn.LSTM's backward on oneDNN's ref_rnn with the JIT cell
postgemm (avx512_core). The sha256 prefixes below were printed by real torch 2.13.0 in this
session (AMD Zen 4) for the inputs ``_case`` builds (every value a float32 of sin(...), the same
in both). The kernels are emulated in numpy, so the check runs on any machine through
GRADREPL_TORCH_CAPABILITY=avx512."""
import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch

RECORDED = {
    (3, 2, 4, 3, 1, False): {
        "weight_ih_l0": "411a428d0117a793", "weight_hh_l0": "3f0359d5426d3e0e",
        "bias_ih_l0": "c7f74bb0b9e3bdea", "bias_hh_l0": "c7f74bb0b9e3bdea",
        "x": "8183db4e7fbd883b", "h0": "c087ff9227cff6a7", "c0": "4324600c88c9c935"},
    (4, 3, 5, 6, 2, True): {
        "weight_ih_l0": "3ba9739f88fe618b", "weight_hh_l0": "1f7fc24dcd65bbaf",
        "bias_ih_l0": "e9ef95b80553bda6", "bias_hh_l0": "e9ef95b80553bda6",
        "weight_ih_l0_reverse": "56fbd5ca4de4eb13", "weight_hh_l0_reverse": "332f853c3c0edb50",
        "bias_ih_l0_reverse": "a96ae5e2e352e264", "bias_hh_l0_reverse": "a96ae5e2e352e264",
        "weight_ih_l1": "6adaaa9462d91f1f", "weight_hh_l1": "eecd00a429c0860f",
        "bias_ih_l1": "3575008ecd0752d1", "bias_hh_l1": "3575008ecd0752d1",
        "weight_ih_l1_reverse": "59964e2b0a737832", "weight_hh_l1_reverse": "4d9a8e4c1aecdfa3",
        "bias_ih_l1_reverse": "5da4057e81ee1853", "bias_hh_l1_reverse": "5da4057e81ee1853",
        "x": "e5d51a811adf8350", "h0": "8e66823fc4350038", "c0": "de003bbd6f85b5c4"},
    (5, 1, 3, 4, 1, False): {
        "weight_ih_l0": "fcddb6c89ccebad0", "weight_hh_l0": "c66ee2eccfa65523",
        "bias_ih_l0": "8408e05b518fa9fa", "bias_hh_l0": "8408e05b518fa9fa",
        "x": "ac3b295da010099f", "h0": "b95e73a35e070de0", "c0": "f54a15a9274b5006"},
}
# real torch 2.13: the first 12 words of weight_ih_l0's gradient in the first case
WIH_HEAD = [0xbc43eaad, 0xbc1fba8e, 0x3c6d13b9, 0x3bc545ef, 0x3a46b421, 0xbd70230f,
            0x3c6b1a85, 0x3d60fdb5, 0x3d0ee76d, 0x3cee003c, 0xbd2d91b2, 0xbc948c14]


def _case(T, B, I, H, L, bi, create_graph=False):
    D = 2 if bi else 1
    k = [0]

    def arr(*shape):
        n = int(np.prod(shape))
        v = (np.sin(np.arange(k[0], k[0] + n, dtype=np.float64) * 1.7 + 0.3) * 0.6)
        k[0] += n
        return v.astype(np.float32).reshape(shape)

    m = torch.nn.LSTM(I, H, num_layers=L, bidirectional=bi)
    with torch.no_grad():
        for _n, p in m.named_parameters():
            p.copy_(torch.from_numpy(arr(*p.shape)))
    x = torch.from_numpy(arr(T, B, I)).requires_grad_()
    h0 = torch.from_numpy(arr(L * D, B, H)).requires_grad_()
    c0 = torch.from_numpy(arr(L * D, B, H)).requires_grad_()
    out, (h, c) = m(x, (h0, c0))
    seeds = [torch.from_numpy(arr(*t.shape)) for t in (out, h, c)]
    if create_graph:
        return m, out, h, c, seeds, (x, h0, c0)
    torch.autograd.backward([out, h, c], seeds)
    res = {n: p.grad.numpy() for n, p in m.named_parameters()}
    res.update(x=x.grad.numpy(), h0=h0.grad.numpy(), c0=c0.grad.numpy())
    return res


@pytest.mark.parametrize("case", list(RECORDED))
def test_lstm_gradient_bits(case, monkeypatch):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "avx512")  # the emulated oneDNN build
    got = _case(*case)
    digests = {k: hashlib.sha256(v.tobytes()).hexdigest()[:16] for k, v in got.items()}
    assert digests == RECORDED[case]


def test_lstm_gradient_words(monkeypatch):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "avx512")
    got = _case(3, 2, 4, 3, 1, False)
    assert got["weight_ih_l0"].view(np.uint32).ravel()[:12].tolist() == WIH_HEAD


def test_lstm_node_inputs_as_torch(monkeypatch):
    """One MkldnnRnnLayerBackward0 per layer and direction, its next functions x, w_ih, w_hh,
    b_ih, b_hh, h0, c0 (as real torch 2.13 prints them)."""
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "avx512")
    m = torch.nn.LSTM(3, 2)
    x = torch.randn(2, 1, 3, requires_grad=True)
    out, (h, _c) = m(x)
    assert type(out.grad_fn).__name__ == "MkldnnRnnLayerBackward0"
    nf = out.grad_fn.next_functions
    assert [type(f).__name__ if f is not None else None for f, _ in nf] == \
        ["AccumulateGrad"] * 5 + [None, None]
    assert nf[0][0].variable is x
    assert h.grad_fn.next_functions[0] == (out.grad_fn, 1)


def test_lstm_create_graph_composite_close(monkeypatch):
    """Under create_graph the gradient is torch's differentiable composite: close to the
    oneDNN values, and differentiable again."""
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "avx512")
    case = (3, 2, 4, 3, 1, False)
    exact = _case(*case)
    m, out, h, c, seeds, (x, h0, c0) = _case(*case, create_graph=True)
    params = list(m.parameters())
    grads = torch.autograd.grad([out, h, c], [x, h0, c0] + params, seeds, create_graph=True)
    names = ["x", "h0", "c0"] + [n for n, _ in m.named_parameters()]
    for n, g in zip(names, grads):
        np.testing.assert_allclose(g.detach().numpy(), exact[n], rtol=1e-5, atol=1e-6)
    sum(g.sum() for g in grads).backward()
    assert x.grad is not None and np.isfinite(x.grad.numpy()).all()
