"""paddle.sparse.nn.SubmConv3D / Conv3D / MaxPool3D / Conv2D / SubmConv2D
(gradrepl/paddle/sparse/nn/conv.py): outputs, filter gradients and input gradients of seven 3-D
and three 2-D conv settings and three pooling settings equal real Paddle's (md5 of the bytes).

The expected lines were printed by real Paddle 3.3.1 and 2.6.2 on this machine (Intel Sapphire
Rapids, MKL's AVX512_E1 path) running SRC. The products are MKL's sgemm on one thread, so the
records hold where MKL takes that path (skipped elsewhere, saying why).
"""
from __future__ import annotations

import pytest

from conftest import skip_unless_mkl_path
from helpers import run_source

SRC = "import hashlib\nimport numpy as np\nimport paddle\nimport paddle.sparse as sparse\nrng = np.random.RandomState(3)\ndef h(a):\n    return hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()[:10]\npaddle.seed(9)\nfor (B, D, H, W, Cin, Cout, k, s, p, d, subm, bias, n) in [\n        (1, 4, 6, 6, 4, 8, 3, 1, 1, 1, True, False, 18), (2, 5, 5, 5, 3, 16, 3, 2, 1, 1, False, False, 30),\n        (1, 6, 6, 6, 8, 8, 3, 1, 0, 1, False, True, 40), (1, 4, 4, 4, 2, 5, 1, 1, 0, 1, True, True, 12),\n        (2, 6, 8, 8, 16, 32, 3, 1, 1, 1, True, False, 60), (1, 6, 6, 6, 4, 4, (1, 3, 3), (1, 2, 2), (0, 1, 1), 1, False, False, 25),\n        (1, 5, 5, 5, 3, 6, 3, 1, 0, 1, True, False, 30)]:\n    cs = np.unique(np.stack([rng.randint(0, B, n), rng.randint(0, D, n), rng.randint(0, H, n), rng.randint(0, W, n)]), axis=1)\n    vals = paddle.to_tensor(rng.randn(cs.shape[1], Cin).astype('float32'), stop_gradient=False)\n    x = sparse.sparse_coo_tensor(paddle.to_tensor(cs), vals, [B, D, H, W, Cin], stop_gradient=False)\n    conv = (sparse.nn.SubmConv3D if subm else sparse.nn.Conv3D)(Cin, Cout, k, stride=s, padding=p, dilation=d, bias_attr=None if bias else False)\n    y = conv(x)\n    g = paddle.to_tensor(rng.randn(y.nnz(), Cout).astype('float32'))\n    (y.values() * g).sum().backward()\n    print(y.shape, y.nnz(), h(y.indices().numpy()), h(y.values().numpy()), 'wgrad', h(conv.weight.grad.numpy()) if conv.weight.grad is not None else None,\n          'vgrad', h(vals.grad.numpy()) if vals.grad is not None else None)\n"

EXPECTED_3 = 'paddle.Size([1, 4, 6, 6, 8]) 18 8c16503917 4e21e7965a wgrad 4c21f4ce64 vgrad e861497fd8\npaddle.Size([2, 3, 3, 3, 16]) 39 8113f954dd b94b2a71d0 wgrad 89d1bb14c1 vgrad df79e27c39\npaddle.Size([1, 4, 4, 4, 8]) 64 b0941414db 39183222f7 wgrad ab0d4aeff1 vgrad a4fce1e05a\npaddle.Size([1, 4, 4, 4, 5]) 10 386141cf6a 5826b9532b wgrad 16ffeb0d0f vgrad 76952ef145\npaddle.Size([2, 6, 8, 8, 32]) 60 cc660802dd 7afc44509e wgrad dd0361f27e vgrad 76cc37698f\npaddle.Size([1, 6, 3, 3, 4]) 33 aff97ee03e bcebb435b4 wgrad 10d39d9bf2 vgrad 32716124a7\npaddle.Size([1, 5, 5, 5, 6]) 26 a16452660b 462e858292 wgrad f87d0c645d vgrad d0faac4aa8\n'

EXPECTED_26 = '[1, 4, 6, 6, 8] 18 8c16503917 4e21e7965a wgrad 4c21f4ce64 vgrad e861497fd8\n[2, 3, 3, 3, 16] 39 8113f954dd b94b2a71d0 wgrad 89d1bb14c1 vgrad df79e27c39\n[1, 4, 4, 4, 8] 64 b0941414db 39183222f7 wgrad ab0d4aeff1 vgrad a4fce1e05a\n[1, 4, 4, 4, 5] 10 386141cf6a 5826b9532b wgrad 16ffeb0d0f vgrad 76952ef145\n[2, 6, 8, 8, 32] 60 cc660802dd 7afc44509e wgrad dd0361f27e vgrad 76cc37698f\n[1, 6, 3, 3, 4] 33 aff97ee03e bcebb435b4 wgrad 10d39d9bf2 vgrad 32716124a7\n[1, 5, 5, 5, 6] 26 a16452660b 462e858292 wgrad f87d0c645d vgrad d0faac4aa8\n'


@pytest.mark.parametrize("profile, expected", [("3", EXPECTED_3), ("2.6", EXPECTED_26)],
                         ids=["3", "2.6"])
def test_sparse_conv3d_digests_equal_real_paddle(profile, expected, tmp_path):
    skip_unless_mkl_path("sparse conv3d digests")
    assert run_source(SRC, profile, tmp_path) == expected


def test_dilated_submanifold_says_not_emulated():
    import gradrepl.paddle as paddle

    x = paddle.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0]], [1, 3, 3, 3, 1])
    with pytest.raises(NotImplementedError, match="dilated submanifold"):
        paddle.sparse.nn.SubmConv3D(1, 2, 3, dilation=2)(x)


# sparse MaxPool3D: maxima and comparisons only (no products): CPU-independent
SRC_POOL = "import hashlib\nimport numpy as np\nimport paddle\nrng = np.random.RandomState(4)\ndef h(a):\n    return hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()[:10]\nfor (B, D, H, W, C, k, s, p, n) in [(1, 4, 4, 4, 3, 3, 2, 1, 20), (2, 4, 6, 6, 2, 2, 2, 0, 30), (1, 3, 3, 3, 2, 3, 1, 1, 5)]:\n    cs = np.unique(np.stack([rng.randint(0, B, n), rng.randint(0, D, n), rng.randint(0, H, n), rng.randint(0, W, n)]), axis=1)\n    v = paddle.to_tensor((rng.randn(cs.shape[1], C) - 1.0).astype('float32'), stop_gradient=False)\n    x = paddle.sparse.sparse_coo_tensor(paddle.to_tensor(cs), v, [B, D, H, W, C], stop_gradient=False)\n    y = paddle.sparse.nn.MaxPool3D(kernel_size=k, stride=s, padding=p)(x)\n    print(y.shape, y.nnz(), y.indices().numpy().tolist()[1:][:2])\n    print(y.values().numpy()[:4])\n    (y.values() * paddle.arange(y.values().size, dtype='float32').reshape(y.values().shape)).sum().backward()\n    print(v.grad.numpy()[:6], h(y.values().numpy()), h(v.grad.numpy()), h(y.indices().numpy()))\nprint(paddle.sparse.nn.MaxPool3D(2))\n"

EXPECTED_POOL_3 = 'paddle.Size([1, 2, 2, 2, 3]) 8 [[0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 0, 0, 1, 1]]\n[[ 1.2233602  -0.6057048   0.6923577 ]\n [-0.94556725  0.63574755 -0.16216365]\n [ 1.2233602  -0.6057048   0.6923577 ]\n [ 1.0878708   0.63574755 -0.16216365]]\n[[ 0.  0.  0.]\n [ 3.  0.  0.]\n [ 6.  8. 10.]\n [ 0. 14.  0.]\n [ 0.  0.  0.]\n [ 0.  0. 16.]] 81d74fd804 a610b51e2c 041d048e5d\npaddle.Size([2, 2, 3, 3, 2]) 22 [[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 1, 1, 2, 0, 1, 1, 2, 2, 2]]\n[[-0.841151    0.10748795]\n [-1.6671305  -0.04952746]\n [-1.715338   -0.39022464]\n [ 0.1637556   0.0082198 ]]\n[[ 0.  0.]\n [ 2.  3.]\n [ 0.  1.]\n [ 0.  0.]\n [10. 11.]\n [ 4.  5.]] 4a6214ab07 aeb24ea3f8 49279ccdb3\npaddle.Size([1, 3, 3, 3, 2]) 27 [[0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2], [0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 0, 1, 1, 1, 2, 2, 2]]\n[[ 0.14797117  0.00773357]\n [ 0.14797117  0.00773357]\n [-1.4507209   0.00773357]\n [ 0.14797117  0.00773357]]\n[[192.   0.]\n [  0.   0.]\n [ 88.   0.]\n [422. 729.]\n [  0.   0.]] 376c733a8d aae8cbb545 442be00ea0\nMaxPool3D(kernel_size=2, stride=None, padding=0)\n'

EXPECTED_POOL_26 = '[1, 2, 2, 2, 3] 8 [[0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 0, 0, 1, 1]]\n[[ 1.2233602  -0.6057048   0.6923577 ]\n [-0.94556725  0.63574755 -0.16216365]\n [ 1.2233602  -0.6057048   0.6923577 ]\n [ 1.0878708   0.63574755 -0.16216365]]\n[[ 0.  0.  0.]\n [ 3.  0.  0.]\n [ 6.  8. 10.]\n [ 0. 14.  0.]\n [ 0.  0.  0.]\n [ 0.  0. 16.]] 81d74fd804 a610b51e2c 041d048e5d\n[2, 2, 3, 3, 2] 22 [[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 1, 1, 2, 0, 1, 1, 2, 2, 2]]\n[[-0.841151    0.10748795]\n [-1.6671305  -0.04952746]\n [-1.715338   -0.39022464]\n [ 0.1637556   0.0082198 ]]\n[[ 0.  0.]\n [ 2.  3.]\n [ 0.  1.]\n [ 0.  0.]\n [10. 11.]\n [ 4.  5.]] 4a6214ab07 aeb24ea3f8 49279ccdb3\n[1, 3, 3, 3, 2] 27 [[0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2], [0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 0, 1, 1, 1, 2, 2, 2]]\n[[ 0.14797117  0.00773357]\n [ 0.14797117  0.00773357]\n [-1.4507209   0.00773357]\n [ 0.14797117  0.00773357]]\n[[192.   0.]\n [  0.   0.]\n [ 88.   0.]\n [422. 729.]\n [  0.   0.]] 376c733a8d aae8cbb545 442be00ea0\nMaxPool3D(kernel_size=2, stride=None, padding=0)\n'


@pytest.mark.parametrize("profile, expected", [("3", EXPECTED_POOL_3), ("2.6", EXPECTED_POOL_26)],
                         ids=["3", "2.6"])
def test_sparse_max_pool3d_equals_real_paddle(profile, expected, tmp_path):
    assert run_source(SRC_POOL, profile, tmp_path) == expected


# sparse Conv2D / SubmConv2D (the 3-D kernel on a depth of one): MKL products, as the 3-D records
SRC_2D = "import hashlib\nimport numpy as np\nimport paddle\nimport paddle.sparse as sparse\nrng = np.random.RandomState(7)\ndef h(a):\n    return hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()[:10]\npaddle.seed(2)\nfor (B, H, W, Cin, Cout, k, s, p, subm, bias, n) in [(1, 6, 6, 3, 8, 3, 1, 1, True, False, 14), (2, 8, 8, 4, 6, 3, 2, 1, False, True, 30),\n                                                    (1, 5, 7, 2, 4, (1, 3), 1, (0, 1), False, False, 12)]:\n    cs = np.unique(np.stack([rng.randint(0, B, n), rng.randint(0, H, n), rng.randint(0, W, n)]), axis=1)\n    vals = paddle.to_tensor(rng.randn(cs.shape[1], Cin).astype('float32'), stop_gradient=False)\n    x = sparse.sparse_coo_tensor(paddle.to_tensor(cs), vals, [B, H, W, Cin], stop_gradient=False)\n    conv = (sparse.nn.SubmConv2D if subm else sparse.nn.Conv2D)(Cin, Cout, k, stride=s, padding=p, bias_attr=None if bias else False)\n    y = conv(x)\n    g = paddle.to_tensor(rng.randn(y.nnz(), Cout).astype('float32'))\n    (y.values() * g).sum().backward()\n    print(y.shape, y.nnz(), h(y.indices().numpy()), h(y.values().numpy()), 'wgrad', h(conv.weight.grad.numpy()), 'vgrad', h(vals.grad.numpy()))\n"

EXPECTED_2D_3 = 'paddle.Size([1, 6, 6, 8]) 12 7b7e55fbe0 831eae05db wgrad fb54286acc vgrad 2d80fe43c7\npaddle.Size([2, 4, 4, 6]) 25 ccb1cc146b 5064f3926d wgrad ac254bca83 vgrad 2b33445efe\npaddle.Size([1, 5, 7, 4]) 22 a980908d48 1db2162bc3 wgrad cebf752f69 vgrad 5916ea4543\n'

EXPECTED_2D_26 = '[1, 6, 6, 8] 12 7b7e55fbe0 831eae05db wgrad fb54286acc vgrad 2d80fe43c7\n[2, 4, 4, 6] 25 ccb1cc146b 5064f3926d wgrad ac254bca83 vgrad 2b33445efe\n[1, 5, 7, 4] 22 a980908d48 1db2162bc3 wgrad cebf752f69 vgrad 5916ea4543\n'


@pytest.mark.parametrize("profile, expected", [("3", EXPECTED_2D_3), ("2.6", EXPECTED_2D_26)],
                         ids=["3", "2.6"])
def test_sparse_conv2d_digests_equal_real_paddle(profile, expected, tmp_path):
    skip_unless_mkl_path("sparse conv2d digests")
    assert run_source(SRC_2D, profile, tmp_path) == expected
