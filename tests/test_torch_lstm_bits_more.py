"""torch dialect: recurrent layers' structure and bits beyond test_torch_nn_recurrent.py.

* A bidirectional RNN/GRU's reverse direction projects the whole input in one linear, as
  ATen's FullBidirectionalLayer does on CPU: outputs and every gradient equal real torch 2.13
  (sha256 prefixes of the bytes printed by real torch 2.13.0 in this session; AMD Zen 4, MKL).
* The oneDNN LSTM's autograd nodes (RNN.cpp use_mkldnn): one MkldnnRnnLayerBackward0 per layer
  and direction; a packed input whose batch sizes are all equal runs it too (the data viewed as
  (T, B, I), the output viewed back), recorded from real torch 2.13.
* Its forward values (nn/_onednn_lstm.py: oneDNN's avx512_core sigmoid/tanh and gate sums):
  output, h_n and c_n bytes recorded from real torch 2.13 here; checked on any machine through
  GRADREPL_TORCH_CAPABILITY=avx512 (the kernels are emulated)."""
import hashlib
import platform
import warnings

import numpy as np
import pytest
from conftest import skip_unless_mkl_branch

import gradrepl.torch as torch
from gradrepl.torch.nn.utils.rnn import pack_padded_sequence

CASES = [("RNN", 3, 8, 1, 7, 2), ("GRU", 1, 20, 2, 2, 32), ("RNN", 3, 16, 2, 8, 1)]
RECORDED = {
    0: {
        "y": "e2f961d102942eba",
        "x": "b304e34068f096f7",
        "weight_ih_l0": "d7c206582cdbbdf5",
        "weight_hh_l0": "020d68e9bc54da9b",
        "bias_ih_l0": "53d97c8824a88d98",
        "bias_hh_l0": "0d2e7b199b82369f",
        "weight_ih_l0_reverse": "6bbe5804d2973ae2",
        "weight_hh_l0_reverse": "cff9a1e69be6d2b2",
        "bias_ih_l0_reverse": "15aa45da8f53365a",
        "bias_hh_l0_reverse": "959442e4d13ba7a9",
    },
    1: {
        "y": "26806bf83672216c",
        "x": "e51846acca561386",
        "weight_ih_l0": "efda4db1b28f9d62",
        "weight_hh_l0": "387cde89c43a9af2",
        "bias_ih_l0": "4f338c3d86eb5c31",
        "bias_hh_l0": "381700a34617ab7b",
        "weight_ih_l0_reverse": "41fe457acdfeb43b",
        "weight_hh_l0_reverse": "d0a4544de4bcba26",
        "bias_ih_l0_reverse": "eb0f7c163499e1f9",
        "bias_hh_l0_reverse": "3b07eb0ac3d57c2a",
        "weight_ih_l1": "941016473d1d7905",
        "weight_hh_l1": "b3a909ca2ad1a743",
        "bias_ih_l1": "2f08b2ed3209e9ce",
        "bias_hh_l1": "6f3dad0d964d447d",
        "weight_ih_l1_reverse": "4907dd5456012fc7",
        "weight_hh_l1_reverse": "ec0da9802ac1e92d",
        "bias_ih_l1_reverse": "9691a2672fed2457",
        "bias_hh_l1_reverse": "3a735efb25199d59",
    },
    2: {
        "y": "a5075702dd6a446f",
        "x": "fa994d6ef3a44021",
        "weight_ih_l0": "9bf224110953e36f",
        "weight_hh_l0": "de7c340b9e3807b9",
        "bias_ih_l0": "c9b0e1fadba1755c",
        "bias_hh_l0": "0f8ccd724d8a4c69",
        "weight_ih_l0_reverse": "3da48b240d2b772e",
        "weight_hh_l0_reverse": "1677e39978150da8",
        "bias_ih_l0_reverse": "16ae0205016f5515",
        "bias_hh_l0_reverse": "ad8534a9ec6541f8",
        "weight_ih_l1": "3851a5f3be64a959",
        "weight_hh_l1": "f0d4330ce3213290",
        "bias_ih_l1": "5dabbfa6fc9d4eca",
        "bias_hh_l1": "19603160089f1a34",
        "weight_ih_l1_reverse": "18ef4ee15b7aa6c2",
        "weight_hh_l1_reverse": "c44366567effb169",
        "bias_ih_l1_reverse": "8a01faa80ce6594b",
        "bias_hh_l1_reverse": "e08965880a2fcf2e",
    },
}


def _digest(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="torch's x86-64 tanh/sigmoid kernels are emulated; an aarch64 torch "
                    "runs other ones")
@pytest.mark.parametrize("k", range(len(CASES)))
def test_bidirectional_reverse_projection_bits(k):
    from gradrepl.engine import mkl

    if not mkl.load():
        pytest.skip("real torch's linear layers are MKL's sgemm; without the MKL backend (the "
                    "exact extra) the last bits are not compared")
    want = RECORDED[k]
    if mkl.branch() == "AVX512_E1":   # real torch 2.13 on the Intel Sapphire Rapids Xeon
        import json
        import pathlib

        want = json.loads((pathlib.Path(__file__).parent / "data" /
                           "torch_bidirectional_rnn_AVX512_E1.json").read_text())[str(k)]
    else:
        skip_unless_mkl_branch("bidirectional RNN", approximations=False)
    mode, i, h, layers, t, b = CASES[k]
    rs = np.random.RandomState(70 + k)
    m = getattr(torch.nn, mode)(i, h, num_layers=layers, bidirectional=True)
    with torch.no_grad():
        for _, p in m.named_parameters():
            p.copy_(torch.from_numpy((rs.rand(*p.shape) - 0.5).astype(np.float32)))
    x = torch.from_numpy(rs.randn(t, b, i).astype(np.float32)).requires_grad_()
    y, _ = m(x)
    g = torch.from_numpy(rs.randn(*y.shape).astype(np.float32))
    (y * g).sum().backward()
    got = {"y": _digest(y.detach().numpy()), "x": _digest(x.grad.numpy())}
    for n, p in m.named_parameters():
        got[n] = _digest(p.grad.numpy())
    assert got == want


def _names(fn):
    return [type(f).__name__ for f, _ in fn.next_functions]


def test_onednn_lstm_nodes_per_layer_and_direction():
    torch.manual_seed(0)
    x = torch.randn(4, 2, 4, requires_grad=True)
    for layers in (1, 2):
        out, _ = torch.nn.LSTM(4, 3, num_layers=layers, bidirectional=True)(x)
        # real torch 2.13: CatBackward0 of the two directions' MkldnnRnnLayerBackward0
        assert type(out.grad_fn).__name__ == "CatBackward0"
        assert _names(out.grad_fn) == ["MkldnnRnnLayerBackward0"] * 2


def test_packed_lstm_with_equal_batch_sizes_runs_onednn():
    torch.manual_seed(0)
    m = torch.nn.LSTM(4, 3)
    for lens, first in (([4, 4], "ViewBackward0"), ([4], "ViewBackward0"),
                        ([4, 2], "CatBackward0")):
        x = torch.randn(4, len(lens), 4, requires_grad=True)
        out, _ = m(pack_padded_sequence(x, lens))
        # real torch 2.13: batch sizes all equal -> ViewBackward0 <- MkldnnRnnLayerBackward0
        assert type(out.data.grad_fn).__name__ == first
        if first == "ViewBackward0":
            assert _names(out.data.grad_fn) == ["MkldnnRnnLayerBackward0"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # real torch: no oneDNN warning on this path
        out, _ = torch.nn.LSTM(4, 3, proj_size=2)(pack_padded_sequence(
            torch.randn(4, 2, 4), [4, 4]))
    assert type(out.data.grad_fn).__name__ == "CatBackward0"


SIGMOID_BITS = [0x383e6998, 0x3d11b319, 0x3ea9e34a, 0x3f0001a4, 0x3f1f597f, 0x3f67972e,
                0x3f7ff710]
TANH_BITS = [0xbf800000, 0xbf7f4df0, 0xbf1ab7d9, 0x38d1b717, 0x3eec9a9f, 0x3f7a5feb, 0x3f7fffff]

# oneDNN's LSTM forward (avx512_core): output, h_n, c_n bytes of real torch 2.13 (sha256[:16])
ONEDNN_CASES = [(8, 4, 1, 7, 2, False, True), (16, 1, 1, 4, 2, True, False),
                (3, 32, 1, 4, 1, False, False), (16, 4, 2, 2, 1, True, True),
                (100, 64, 1, 3, 4, False, False), (1, 20, 2, 5, 3, False, False)]
ONEDNN_RECORDED = {
    0: ("ef437b07aec51d6d", "8ed74a5f4f0e096e", "e17df375f9e1eac5"),
    1: ("d7239299a609f264", "53cd32c27b4398f7", "d02876c6ff50aa38"),
    2: ("8863204e66d35f14", "41f8e03e32ca865c", "7130360857f0e77e"),
    3: ("6677cb4cc07e57a0", "0df8ba43f6f19c2f", "641b59434227b5f9"),
    4: ("52828935d64aaadb", "51c5735434d557bc", "f59491beada090d6"),
    5: ("8ca75c6c4824c9bb", "7ec289b426894b0c", "82c34d7d547c09f2"),
}


@pytest.mark.parametrize("k", range(len(ONEDNN_CASES)))
def test_onednn_lstm_forward_bits(k, monkeypatch):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "avx512")  # the emulated oneDNN build
    i, h, layers, t, b, bf, bi = ONEDNN_CASES[k]
    rs = np.random.RandomState(90 + k)
    m = torch.nn.LSTM(i, h, num_layers=layers, batch_first=bf, bidirectional=bi)
    with torch.no_grad():
        for _, p in m.named_parameters():
            p.copy_(torch.from_numpy(((rs.rand(*p.shape) - 0.5) * 0.8).astype(np.float32)))
    x = torch.from_numpy(rs.randn(*((b, t, i) if bf else (t, b, i))).astype(np.float32))
    hx = None
    if k % 2:
        nd = 2 if bi else 1
        hx = (torch.from_numpy(rs.randn(layers * nd, b, h).astype(np.float32)),
              torch.from_numpy(rs.randn(layers * nd, b, h).astype(np.float32)))
    with torch.no_grad():
        y, (hn, cn) = m(x, hx)
    got = tuple(_digest(np.asarray(a.numpy())) for a in (y, hn, cn))
    assert got == ONEDNN_RECORDED[k]


def test_onednn_activations():
    from gradrepl.torch.nn import _onednn_lstm as O

    # values printed by real torch 2.13 (an LSTM whose other gate saturates: c = sigmoid(x)
    # or tanh(x) exactly), as float32 bit patterns
    x = np.array([-10.0, -3.3, -0.7, 1e-4, 0.5, 2.25, 8.9], np.float32)
    assert O.sigmoid(x).view(np.uint32).tolist() == SIGMOID_BITS
    assert O.tanh(x).view(np.uint32).tolist() == TANH_BITS
