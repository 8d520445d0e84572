"""The issue-29 BLAS path of the torch dialect's oneDNN convolution emulation
(``_fma_gemm.chains``): numpy's BLAS stands for the fused multiply-add chains only where it gave
their bits, and then gives the bits of the replay it stands for; where it is not checked (or
fails the check) the replay runs. The replays are what tests/test_torch_onednn_conv_bits.py and
test_torch_conv_strided_grads.py check against real torch 2.13's recorded bits; the small CNN
below is real torch's own record."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from gradrepl.torch.nn import _fma_gemm as G
from gradrepl.torch.nn import _onednn_conv as O
from gradrepl.torch.nn._onednn_conv_bwd_w import fma_chains

from conftest import skip_unless_onednn_avx512_core, skip_unless_mkl_path

F32 = np.float32


def _same(a, b):
    return a.shape == b.shape and np.array_equal(np.asarray(a, F32).view(np.uint32),
                                                 np.asarray(b, F32).view(np.uint32))


def _replayed(monkeypatch, fn):
    monkeypatch.setenv("GRADREPL_NO_BLAS_CHAINS", "1")
    try:
        return fn()
    finally:
        monkeypatch.delenv("GRADREPL_NO_BLAS_CHAINS")


@pytest.mark.parametrize("p,m,length,n", [(2, 8, 6272, 9), (1, 16, 3136, 72), (1, 8, 144, 700),
                                          (3, 5, 700, 7), (1, 1, 50, 1), (1, 17, 300, 33)])
def test_chains_are_the_replay_or_none(p, m, length, n):
    rng = np.random.default_rng(p * 1000 + m)
    a = rng.standard_normal((p, m, length)).astype(F32)
    b = rng.standard_normal((p, length, n)).astype(F32)
    a[a < -0.7] = 0                          # zero terms (a ReLU's, a max pool's gradient)
    b[:, ::5] *= np.float32(1e-3)
    got = G.chains(a, b)
    if got is not None:
        assert _same(got, G.replay(a, b))


def test_chains_refuse_non_finite_and_unchecked_shapes(monkeypatch):
    a = np.ones((1, 4, 20), F32)
    b = np.ones((1, 20, 16), F32)
    b[0, 3, 2] = np.inf
    assert G.chains(a, b) is None
    b[0, 3, 2] = 1
    monkeypatch.setattr(G, "_VERIFIED", {})
    monkeypatch.setattr(G, "WAYS", ())       # no layout passes the check: the replay
    assert G.chains(a, b) is None


CASES = [  # x shape, w shape, stride, pads (before, after), dilation
    ((16, 1, 28, 28), (8, 1, 3, 3), (1, 1), [(1, 1), (1, 1)], (1, 1)),
    ((16, 8, 14, 14), (16, 8, 3, 3), (1, 1), [(1, 1), (1, 1)], (1, 1)),
    ((3, 33, 7, 7), (17, 33, 3, 3), (1, 1), [(2, 2), (2, 2)], (2, 2)),
    ((4, 20, 9, 11), (5, 20, 3, 2), (2, 1), [(1, 0), (0, 1)], (1, 2)),
    ((2, 3, 5, 6, 7), (4, 3, 2, 3, 2), (1, 1, 1), [(1, 1), (0, 1), (1, 0)], (1, 1, 1)),
]


@pytest.mark.parametrize("xs,ws,stride,pads,dil", CASES)
def test_convolution_kernels_equal_their_replay(monkeypatch, xs, ws, stride, pads, dil):
    rng = np.random.default_rng(len(xs) + ws[0])
    x = rng.standard_normal(xs).astype(F32)
    x[x < -0.5] = 0
    w = rng.standard_normal(ws).astype(F32)
    b = rng.standard_normal(ws[0]).astype(F32)

    def forward():
        return O.conv_forward(x, w, b, stride, pads, dil)
    y = forward()
    assert _same(y, _replayed(monkeypatch, forward))
    g = rng.standard_normal(y.shape).astype(F32)
    g[g < 0.3] = 0
    if all(s == 1 for s in stride):
        bias_t = rng.standard_normal(xs[1]).astype(F32)     # (as a transposed conv's bias)

        def data():
            return O.conv_backward_data(g, w, bias_t, stride, pads, dil, xs[2:])
        assert _same(data(), _replayed(monkeypatch, data))

    def weights():
        return O.conv_backward_weights(x, g, ws[2:], stride, pads, dil, 2)
    (dw, db), (dw0, db0) = weights(), _replayed(monkeypatch, weights)
    assert _same(dw, dw0) and _same(db, db0)


def test_fma_chains_with_uneven_parts(monkeypatch):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((1000, 5)).astype(F32).astype(np.float64)
    b = rng.standard_normal((1000, 7)).astype(F32)
    bounds = [(0, 300), (300, 1000)]
    assert _same(fma_chains(a, b, bounds), _replayed(monkeypatch, lambda: fma_chains(a, b, bounds)))


SMALL_CNN = """
import hashlib, torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(16 * 7 * 7, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(16, 1, 28, 28)
y = torch.randint(0, 10, (16,))
for _ in range(20):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
h = hashlib.sha256()
for p in model.parameters():
    h.update(p.detach().numpy().tobytes())
print(float(loss.item()).hex(), h.hexdigest()[:16])
"""


def test_small_cnn_twenty_sgd_steps_are_real_torchs(tmp_path):
    skip_unless_mkl_path("the small CNN's record (its Linear layer is MKL sgemm)")
    # benchmarks/lecture_loops.py's small_cnn: real torch 2.13.0 (2 threads: conftest) on this Intel
    # Sapphire Rapids printed this after 20 steps (the last loss, the parameters' sha256)
    skip_unless_onednn_avx512_core("the small CNN's record")
    import subprocess
    script = tmp_path / "cnn.py"
    script.write_text(SMALL_CNN)
    out = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(script)],
                         capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["0x1.d1bc280000000p-1", "9f2aac56fd2347ce"], out.stderr[-2000:]


BATCH_128 = """
import hashlib, torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
conv = nn.Conv2d(1, 8, 3, padding=1)
x = torch.randn(128, 1, 28, 28)
F.max_pool2d(F.relu(conv(x)), 2).square().sum().backward()
print(hashlib.sha256(conv.weight.grad.numpy().tobytes()).hexdigest()[:16],
      hashlib.sha256(conv.bias.grad.numpy().tobytes()).hexdigest()[:16])
"""


def test_first_convolution_of_128_images_is_real_torchs(tmp_path):
    # 128 x 784 = 100,352 steps a chain: past the replay's limit (STEPS), so only the BLAS
    # chains give it (before: the general path, another filter gradient and bias gradient).
    # Real torch 2.13.0 (2 threads: conftest) on this Intel Sapphire Rapids printed this.
    skip_unless_onednn_avx512_core("the batch-128 record")
    if os.environ.get("GRADREPL_NO_BLAS_CHAINS") == "1":
        pytest.skip("GRADREPL_NO_BLAS_CHAINS=1: past the replay's limit only the BLAS chains "
                    "give torch's filter gradient")
    import subprocess
    script = tmp_path / "b128.py"
    script.write_text(BATCH_128)
    out = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(script)],
                         capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["e307c76d7239a24a", "977b35e39783aa11"], out.stderr[-2000:]


def test_strided_transposed_convolution_equals_its_replay(monkeypatch):
    from gradrepl.torch.nn import _onednn_convT as T
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 20, 5, 6)).astype(F32)
    x[x < -0.4] = 0
    w = rng.standard_normal((20, 6, 4, 3)).astype(F32)
    b = rng.standard_normal(6).astype(F32)
    for stride, pads, out_pad in (((2, 2), (1, 1), (0, 0)), ((2, 3), (0, 1), (1, 2))):
        def run():
            return T.forward(x, w, b, stride, pads, out_pad)
        assert _same(run(), _replayed(monkeypatch, run))


DCGAN = """
import hashlib, torch, torch.nn as nn
torch.manual_seed(0)
g = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
                  nn.ConvTranspose2d(16, 1, 4, 2, 1), nn.Tanh())
z = torch.randn(16, 32, 7, 7)
conv = nn.Conv2d(1, 8, 4, 2, 1)
y = g(z)
conv(y).square().mean().backward()
for p in list(g.parameters()) + list(conv.parameters()):
    print(hashlib.sha256(p.grad.numpy().tobytes()).hexdigest()[:12])
print(hashlib.sha256(y.detach().numpy().tobytes()).hexdigest()[:12])
"""


def test_dcgan_generator_layers_are_real_torchs(tmp_path):
    skip_unless_mkl_path("the DCGAN layers' record (MKL products)")
    # stride-2 ConvTranspose2d (oneDNN's brgconv_strided, its chains now by BLAS) into a
    # stride-2 Conv2d; real torch 2.13.0 (2 threads) on this Intel Sapphire Rapids printed these
    skip_unless_onednn_avx512_core("the DCGAN layers' record")
    import subprocess
    script = tmp_path / "dcgan.py"
    script.write_text(DCGAN)
    out = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(script)],
                         capture_output=True, text=True, timeout=300)
    want = ["68806f775168", "c35d4c7295bb", "e8826a02e2c0", "59b2b08880e2", "48e5673deeed",
            "8f31fcc667d5", "ea4f8503c1a1"]
    assert out.stdout.split() == want, out.stderr[-2000:]


@pytest.mark.parametrize("n,c,o,p,chunk", [(4, 64, 32, 49, 16), (2, 20, 8, 100, 20),
                                           (3, 300, 16, 9, 128)])
def test_jit_1x1_chunked_chains_equal_their_replay(monkeypatch, n, c, o, p, chunk):
    from gradrepl.torch.nn import _onednn_conv_gemm as M
    rng = np.random.default_rng(n * c)
    x = rng.standard_normal((n, c, p)).astype(F32).astype(np.float64)
    w = rng.standard_normal((o, c)).astype(F32)
    bias = np.broadcast_to(rng.standard_normal((1, o, 1)).astype(F32), (n, o, p)).copy()
    for init in (bias, np.zeros((n, o, p), F32)):
        def run():
            return M._chains_from(init, w, x, chunk)
        assert _same(run(), _replayed(monkeypatch, run))
    minus = np.full((n, o, p), -0.0, F32)
    assert M._blas_chains_from(minus, w, x, chunk) is None     # (-0 kept by the replay only)


@pytest.mark.parametrize("m,k,n", [(6, 100, 9), (3, 700, 27), (8, 33, 5), (1, 16, 1)])
def test_small_n_lanes_equal_their_replay(monkeypatch, m, k, n):
    # x64:gemm:jit's small-N kernel: lane l one chain over k = l, l + 16, ...
    from gradrepl.torch.nn import _onednn_conv_gemm as M
    rng = np.random.default_rng(m * k)
    a = rng.standard_normal((m, k)).astype(F32)
    b = rng.standard_normal((n, k)).astype(F32)
    assert _same(M._lanes(a, b), _replayed(monkeypatch, lambda: M._lanes(a, b)))
