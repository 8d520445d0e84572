"""Paddle nn names of issue 28's gap list (gradrepl/paddle/nn/gaps.py): values, gradients and
errors against real Paddle. Literals printed by real Paddle 3.3.1 and 2.6.2 (the same bytes) on
the Intel AVX-512 machine of this stop (/tmp scripts, not committed)."""
from __future__ import annotations

import numpy as np
import pytest

from gradrepl.paddle import profiles


@pytest.fixture
def paddle(profile):  # conftest's profile: Paddle 3 and 2.6
    import gradrepl.paddle as p

    return p


def _hex(t):
    return t.numpy().tobytes().hex()


# F.gumbel_softmax(x, 0.5) after paddle.seed(2024), x = linspace(-2, 2, 30) as [3, 10], then
# (y * arange(10)).sum().backward(); then the hard one-hot along axis 0 (its argmax)
GUMBEL_Y = (
    "930e293d1f92de38cb5669389cb883386b523f3f006d533aafa4913b553f6a395ac3163c7630493e961b973b"
    "a106343b4e21973b749f9b3c04fe4a3aa08f613fac27463cd5fb0b3ce9bd383df576af3c8a72cc3b3fb8113b"
    "c120633cbbdce73a5619fe3a26dc913c93ad3c3fe203393ef5ed103c1498f23c")
GUMBEL_GRAD = (
    "45924dbe3d00d7b9741127b9bb85f5b8324b25bf101be6380b75a53b6e2efa395c66ec3c2e08503fd90fc3bc"
    "a0623bbc280d6fbcb05828bd642f6cba7a8813bec9c0253cee89803c1501033eb14aa83def531dbd35d73bbc"
    "92ff6bbdb2f3b6bb23f988bb5ba5a8bc9fccebbdca1c1c3ef69b853c9d78ac3d")
GUMBEL_HARD_ARGMAX = [2, 2, 2, 2, 2, 2, 2, 2, 2, 1]
# F.temporal_shift(arange(64)/10 as [8, 4, 1, 2], seg_num=4), (y * linspace(-1, 1)).sum() backward
TEMPORAL_SHIFT_GRAD = (
    "f0fb3ebf6edb36bf0000000000000000f87d5fbf765d57bff43c4fbf721c47bfbfeffbbebbaeebbefcbe6fbf"
    "7a9e67bfe8791ebf665916bfe4380ebf621806bf3dcf73be354d53beecba2ebf6a9a26bfafebbabeabaaaabe"
    "a7699abea3288abe0000000000000000b76ddbbeb32ccbbe398ee3bd298aa2bd310c43bd210882bca3288a3e"
    "a7699a3e00000000000000002549123e2dcb323e354d533e3dcf733e6218063fe4380e3f298aa23d398ee33d"
    "b32ccb3eb76ddb3ebbaeeb3ebfeffb3e721c473ff43c4f3fabaaaa3eafebba3e6a9a263fecba2e3f6edb363f"
    "f0fb3e3f00000000000000006659163fe8791e3f7a9e673ffcbe6f3f7edf773f0000803f")


def test_gumbel_softmax_draws_values_and_gradient(paddle):
    import gradrepl.paddle.nn.functional as F

    paddle.seed(2024)
    x = paddle.to_tensor(np.linspace(-2, 2, 30).reshape(3, 10).astype("float32"),
                         stop_gradient=False)
    y = F.gumbel_softmax(x, temperature=0.5)
    (y * paddle.arange(10, dtype="float32")).sum().backward()
    assert _hex(y) == GUMBEL_Y
    assert _hex(x.grad) == GUMBEL_GRAD
    hard = F.gumbel_softmax(x, hard=True, axis=0)
    assert hard.numpy().argmax(0).tolist() == GUMBEL_HARD_ARGMAX
    assert sorted(set(hard.numpy().ravel().tolist())) == [0.0, 1.0]


def test_gumbel_softmax_temperature_error(paddle):
    import gradrepl.paddle.nn.functional as F

    line = 58 if profiles.current().api3 else 62
    with pytest.raises(ValueError) as e:
        F.gumbel_softmax(paddle.ones([2, 3]), temperature=0.0)
    assert str(e.value) == (
        "(InvalidArgument) The temperature must be greater than 0. But received temperature = "
        "0.000000\n  [Hint: Expected temperature > 0, but received temperature:0 <= 0:0.] (at "
        f"/paddle/paddle/phi/kernels/impl/gumbel_softmax_kernel_impl.h:{line})\n")


def test_temporal_shift_gradient(paddle):
    import gradrepl.paddle.nn.functional as F

    x = paddle.to_tensor(np.arange(64, dtype="float32").reshape(8, 4, 1, 2) / 10,
                         stop_gradient=False)
    y = F.temporal_shift(x, seg_num=4, shift_ratio=0.25)
    assert not y.stop_gradient
    w = paddle.to_tensor(np.linspace(-1, 1, 64).reshape(8, 4, 1, 2).astype("float32"))
    (y * w).sum().backward()
    assert _hex(x.grad) == TEMPORAL_SHIFT_GRAD


# paddle.seed(3); Linear(3, 4) weights by TruncatedNormalInitializer(0.5, 2.0) (3.3.1 cuts at
# [a, b] = [-2, 2] std, 2.6.2 at mean +- 2 std), then by TruncatedNormalInitializer(0, 1, seed=5)
TRUNC_INIT = {
    "3": "43e300bf447a333fcb0618bffaa0143f392c1ebe6250d43eb3f84f3f9316193fdf09eebe03ebfebfdd9a2bbf"
         "f903aebf",
    "2.6": "1c3cf6bece4e9e3f282b1cbf9721873f97921b3c2f15503fd94ab43f55728a3fad3adabed86d5dc0a36c38bf"
           "4825e8bf"}
TRUNC_INIT_SEED5 = ("9574da3eb18ec7bfbda336bf094fde3ec7ac9dbf89d699bf8e8186bf075eee3e1e33463f50323bbf"
                    "deafbabfd87b303e")


def test_initializer_2x_names(paddle, profile):
    from gradrepl.paddle.nn import initializer as I

    paddle.seed(3)
    attr = paddle.ParamAttr(initializer=I.TruncatedNormalInitializer(0.5, 2.0))
    assert _hex(paddle.nn.Linear(3, 4, weight_attr=attr).weight) == TRUNC_INIT[profile]
    attr = paddle.ParamAttr(initializer=I.TruncatedNormalInitializer(0.0, 1.0, seed=5))
    assert _hex(paddle.nn.Linear(3, 4, weight_attr=attr).weight) == TRUNC_INIT_SEED5
    w = np.arange(6.).reshape(2, 3)
    attr = paddle.ParamAttr(initializer=I.NumpyArrayInitializer(w))
    assert paddle.nn.Linear(2, 3, weight_attr=attr).weight.numpy().tolist() == w.tolist()
    with pytest.raises(AssertionError):
        I.NumpyArrayInitializer([1, 2])
    # the class tree as in real Paddle (both versions)
    assert [c.__module__ + "." + c.__name__ for c in I.Assign.__mro__[:3]] == [
        "paddle.nn.initializer.assign.Assign",
        "paddle.nn.initializer.assign.NumpyArrayInitializer",
        "paddle.nn.initializer.initializer.Initializer"]
    assert I.TruncatedNormal.__mro__[1] is I.TruncatedNormalInitializer


# real 3.3.1: F.embedding_renorm_(ids [[0, 2], [2, 4]], linspace(-3, 3, 20) as [5, 4], 2.0)
# float32; the same float64 with max_norm 1.5, norm_type 1; paddle.seed(1) Embedding(5, 4,
# max_norm=1.0)(ids)
RENORM_F32 = (
    "7a8996bfe6b086bfa5b06dbf7eff4dbfd850debf0de5b5bf43798dbff31a4abfbd86f2be28af21be28af213e"
    "bd86f23ef31a4a3f43798d3f0de5b53fd850de3f7eff4d3fa5b06d3fe6b0863f7a89963f")
RENORM_F64_L1 = (
    "5eaf44fbff7fdcbf1e31c4fbff7fd9bfdeb243fcff7fd6bf9f34c3fcff7fd3bfa2bc86f21acafbbfca6b28af"
    "a1bcf6bff31aca6b28aff1bf3894d7505e43e9bf10e53594d750debf6043790de535c4bf6043790de535c43f"
    "08e53594d750de3f3494d7505e43e93ff01aca6b28aff13fc86b28afa1bcf63fa0bc86f21acafb3f9e34c3fc"
    "ff7fd33fdeb243fcff7fd63f1e31c4fbff7fd93f5eaf44fbff7fdc3f")
EMBEDDING_MAX_NORM = (
    "250728bff4a8b83e6d6f753e94271ebfe0ec793d3abe27bf605f40bd323e153fe0ec793d3abe27bf605f40bd"
    "323e153fe8bba93d44ecb73e70edee3e649adf3e")


def test_embedding_renorm_(paddle, profile):
    import gradrepl.paddle.nn.functional as F

    ids = paddle.to_tensor([[0, 2], [2, 4]])
    if profile != "3":  # a 3.x name
        assert not hasattr(F, "embedding_renorm_")
        return
    w = paddle.to_tensor(np.linspace(-3, 3, 20).reshape(5, 4).astype("float32"))
    assert F.embedding_renorm_(ids, w, max_norm=2.0) is w
    assert _hex(w) == RENORM_F32
    w2 = paddle.to_tensor(np.linspace(-3, 3, 20).reshape(5, 4).astype("float64"))
    assert _hex(F.embedding_renorm_(ids, w2, max_norm=1.5, norm_type=1.0)) == RENORM_F64_L1
    paddle.seed(1)
    assert _hex(paddle.nn.Embedding(5, 4, max_norm=1.0)(ids)) == EMBEDDING_MAX_NORM
