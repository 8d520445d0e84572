"""torch.nn.init.orthogonal_'s gain is torch's ``tensor.mul_(gain)``: a weak scalar taken in the
tensor's dtype, also when it is a numpy float64 (CleanRL's ``layer_init(std=np.sqrt(2))``).
gradrepl multiplied by the float64 gain and rounded once (numpy 2 keeps a np.float64 scalar
strong), which moved the last bit of some weights. Records from real torch 2.13 on this machine."""
import hashlib
import math

import numpy as np

import gradrepl.torch as torch
from conftest import record_for_mkl_branch

GAINS = (np.sqrt(2), math.sqrt(2), np.float64(0.01), 5.0 / 3)
SHAPES = ((64, 4), (4, 64), (6, 2, 3))
# real torch 2.13: sha256[:8] of the weights, and each equals orthogonal_(gain=1) * np.float32(gain)
REAL_E1 = ("a9c337ca d75146ec 45418b3b a9c337ca d75146ec 45418b3b e9c34442 ce42743f 5120babf "
           "7dfe280e 6179c323 effbf963").split()


def _orth(shape, gain=1):
    torch.manual_seed(1)
    return torch.nn.init.orthogonal_(torch.empty(shape), gain)


def test_gain_multiplies_in_the_tensors_dtype():
    for gain in GAINS:
        for shape in SHAPES:
            assert torch.equal(_orth(shape, gain), _orth(shape) * np.float32(gain)), (gain, shape)


def test_orthogonal_gain_bits_equal_real_torch():
    real = record_for_mkl_branch("orthogonal_ (MKL's QR)", {"AVX512_E1": REAL_E1})
    got = [hashlib.sha256(_orth(shape, gain).numpy().tobytes()).hexdigest()[:8]
           for gain in GAINS for shape in SHAPES]
    assert got == real
