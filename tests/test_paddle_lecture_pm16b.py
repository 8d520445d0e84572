"""Issue 28, Paddle lecture round 16 (group B: the paper-reproduction alignment guide, X2Paddle's
API mapping, paddle.vision.ops in detection lectures, less common nn.functional): each difference
found, checked against what real Paddle 3.3.1 and 2.6.2 printed here (recorded in the comments).
"""
import warnings

import gradrepl.paddle as paddle


# ------------------------------------------------ Layer.to resets Python's warning registries
def test_layer_to_shows_batchnorm_warning_again(profile):
    # real 3.3.1 and 2.6.2: BatchNorm1D called twice warns once; after bn.to(dtype='float64')
    # (Paddle casts inside warnings.catch_warnings()) the next call warns again: 2 warnings.
    # An optimizer, set_state_dict or a new layer in between does not: 1 warning.
    bn = paddle.nn.BatchNorm1D(3)
    x = paddle.ones([2, 3])
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("default")
        bn(x)
        bn(x)
        paddle.optimizer.SGD(0.1, parameters=bn.parameters())
        bn.set_state_dict(bn.state_dict())
        bn(x)
        assert len(got) == 1
        bn.to(dtype="float64")
        bn(x.astype("float64"))
        bn.to()                       # nothing to do: no catch_warnings in Paddle either
        bn(x.astype("float64"))
    assert [str(w.message) for w in got] == [
        "When training, we now always track global mean and variance."] * 2


# ------------------------------------------------ paddle.vision.ops.psroi_pool / PSRoIPool
import hashlib  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

# real 3.3.1 and 2.6.2 printed the same (this session): the output, and the input gradient's
# md5 and sum for the weights arange(24)
PSROI_OUT = [
    0.2750000059604645, 0.6100000143051147, 0.8500000238418579, 0.5350000262260437, 0.875,
    0.8849999904632568, 0.15000000596046448, 0.48500001430511475, 0.46000000834465027,
    0.6550000309944153, 0.6600000262260437, 0.5299999713897705, 0.7350000143051147,
    0.6050000190734863, 0.6100000143051147, 0.8050000071525574, 0.8250000476837158,
    0.5099999904632568, 0.75, 1.0850000381469727, 0.7749999761581421, 0.7849999666213989,
    0.05000000074505806, 0.38499999046325684]
PSROI_GRAD = ("b812ddcd2cf59a342777407a6448e4f9", 276.0)


def test_psroi_pool_values_and_gradient(profile):
    x = paddle.to_tensor((np.arange(2 * 8 * 5 * 5) * 0.37 % 1.3).astype("float32")
                         .reshape(2, 8, 5, 5), stop_gradient=False)
    boxes = paddle.to_tensor([[0.5, 1.5, 3.49, 4.5], [-0.5, 0.0, 9.0, 7.0], [2.0, 2.5, 2.5, 3.0]])
    layer = paddle.vision.ops.PSRoIPool(2, spatial_scale=0.3)
    assert repr(layer) == "PSRoIPool()"
    out = layer(x, boxes, paddle.to_tensor([2, 1], dtype="int32"))
    assert out.shape == [3, 2, 2, 2]
    assert out.numpy().ravel().tolist() == PSROI_OUT
    (out * paddle.arange(out.size, dtype="float32").reshape(out.shape)).sum().backward()
    g = x.grad.numpy()
    assert (hashlib.md5(g.tobytes()).hexdigest(), float(g.sum())) == PSROI_GRAD


# real 3.3.1 / 2.6.2 texts (the C++ places differ per version)
@pytest.mark.parametrize("shape, size, words", [
    ([1, 5, 4, 4], 2, "the channel of X(5) should be equal to the product of output_channels(1), "
                      "pooled_height(2) and pooled_width(2)\n  [Hint: Expected input_dims[1] == "
                      "output_channels * pooled_height * pooled_width, but received input_dims[1]:5"
                      " != output_channels * pooled_height * pooled_width:4.] (at /paddle/paddle/"
                      "phi/infermeta/multiary.cc:{4668|3229})"),
    ([1, 4, 4, 4], 2, "The pooled output channels must greater than 1\n  [Hint: Expected "
                      "output_channels > 1, but received output_channels:1 <= 1:1.] (at "
                      "/paddle/paddle/phi/infermeta/multiary.cc:{4688|3242})"),
    ([2, 8, 4, 4], 2, "The batch size of rois and the batch size of images  must be the same. But "
                      "received the batch size of rois is 1, and the batch size of images is 2\n"
                      "  [Hint: Expected rois_batch_size == batch_size, but received "
                      "rois_batch_size:1 != batch_size:2.] (at /paddle/paddle/phi/kernels/cpu/"
                      "psroi_pool_kernel.cc:{60|68})"),
])
def test_psroi_pool_errors(profile, shape, size, words):
    a, b = words.split("{")[1].split("}")[0].split("|")
    text = "(InvalidArgument) " + words.replace("{" + a + "|" + b + "}", a if profile == "3" else b)
    with pytest.raises(ValueError) as e:
        paddle.vision.ops.psroi_pool(paddle.rand(shape), paddle.to_tensor([[0., 0., 3., 3.]]),
                                     paddle.to_tensor([1], dtype="int32"), size)
    assert str(e.value) == text + "\n"
    with pytest.raises(ValueError, match="output_size should not contain 0."):
        paddle.vision.ops.psroi_pool(paddle.rand(shape), paddle.to_tensor([[0., 0., 3., 3.]]),
                                     paddle.to_tensor([1], dtype="int32"), (2, 0))


# ------------------------------------------------ paddle.vision.ops.prior_box
# real 3.3.1 and 2.6.2 (same bits): md5 of the boxes and variances, 12 priors a cell
PRIOR_BOX_MD5 = {
    ("float32", False): ("c64856e0bfa018986db212c8c8cbbf4d", "6aacf33e2a70a46d7e610c0d9fc59e87"),
    ("float32", True): ("81717624d1eb8ce0bd015b19babb7132", "6aacf33e2a70a46d7e610c0d9fc59e87"),
    ("float64", False): ("58309de59b35ba51834e7b1a0aad605e", "29f515cadabde0e74941ba326ebc82e7"),
    ("float64", True): ("10087116371cc520bfc7bd34e80affca", "29f515cadabde0e74941ba326ebc82e7"),
}


@pytest.mark.parametrize("dt, order", sorted(PRIOR_BOX_MD5))
def test_prior_box_bits(profile, dt, order):
    b, v = paddle.vision.ops.prior_box(
        paddle.zeros([1, 2, 3, 5], dtype=dt), paddle.zeros([1, 3, 37, 53], dtype=dt),
        min_sizes=[7.3, 15.1], max_sizes=[12.7, 29.9], aspect_ratios=[2.0, 0.37, 1.0], flip=True,
        clip=order, offset=0.3, steps=[0.0, 0.0] if order else [6.1, 7.7],
        min_max_aspect_ratios_order=order)
    assert b.shape == [3, 5, 12, 4] and v.shape == [3, 5, 12, 4] and b.dtype == v.dtype
    got = tuple(hashlib.md5(t.numpy().tobytes()).hexdigest() for t in (b, v))
    assert got == PRIOR_BOX_MD5[(dt, order)]


# ------------------------------------------------ paddle.vision.ops.generate_proposals
# real 3.3.1 and 2.6.2 (the same): rois per image and md5 of the rois and probabilities
GEN_PROPOSALS = {
    "float32": ([25, 25], "dd1f183594781edaf54b119cb91f9a2b", "dea19cef3ca9152dc62f8d9d40b087cb"),
    "float64": ([25, 25], "2522cf3af4dab9309558b1c14af135f0", "0e4dd335d5d597664278cef5f6327c37"),
}


def test_generate_proposals_bits(profile):
    from conftest import skip_unless_x86_64

    skip_unless_x86_64("generate_proposals: the box sizes' exp is x86-64 glibc's, as real Paddle's")
    rs = np.random.RandomState(5)
    for dt, po in (("float32", False), ("float64", True)):
        n, a, h, w = 2, 3, 6, 6
        scores = paddle.to_tensor(rs.rand(n, a, h, w).astype(dt))
        deltas = paddle.to_tensor((rs.randn(n, 4 * a, h, w) * 0.5).astype(dt))
        ys, xs = np.meshgrid(np.arange(h) * 16 + 8, np.arange(w) * 16 + 8, indexing="ij")
        anc = np.stack([np.stack([xs - s / 2, ys - s * 0.7, xs + s / 2, ys + s * 0.7], -1)
                        for s in (12.3, 30.1, 55.0)], 2)
        var = np.tile(np.array([0.1, 0.1, 0.2, 0.2]), anc.shape[:-1] + (1,))
        im = paddle.to_tensor(np.array([[93.0, 101.0]] * n).astype(dt))
        rois, probs, num = paddle.vision.ops.generate_proposals(
            scores, deltas, im, paddle.to_tensor(anc.astype(dt)), paddle.to_tensor(var.astype(dt)),
            pre_nms_top_n=60, post_nms_top_n=25, nms_thresh=0.6, min_size=4.0, eta=0.95,
            pixel_offset=po, return_rois_num=True)
        assert (rois.dtype, probs.shape, num.dtype) == (scores.dtype, [50, 1], paddle.int32)
        got = (num.numpy().tolist(), hashlib.md5(rois.numpy().tobytes()).hexdigest(),
               hashlib.md5(probs.numpy().tobytes()).hexdigest())
        assert got == GEN_PROPOSALS[dt]
    with pytest.raises(AssertionError, match="return_rois_num should be True in dygraph mode."):
        paddle.vision.ops.generate_proposals(scores, deltas, im, paddle.to_tensor(anc.astype(dt)),
                                             paddle.to_tensor(var.astype(dt)))


# ------------------------------------------------ paddle.vision.ops.deform_conv2d / DeformConv2D
# real 3.3.1 and 2.6.2 (the same): md5 of the output and of the input, offset, filter (and mask)
# gradients; v2 float32 with groups and deformable groups, v1 float64 with one output channel a
# group (the filter gradient's one-row DGEMM)
DEFORM_MD5 = {
    "float32": ["693dcc771f9569dd2767a3802be1db51", "ee38835b476f66e566a9e32851032a1b",
                "4ee1d8aab3a7d6c33ba3e753140d40d2", "80a437396f08a6b367932d6635cc20a2",
                "475d0a27a6dc1a65c0c49c762eda066e"],
    "float64": ["a922239547ba90d308138ac937683564", "fcf9b796a29b1f71a0dd12a92aa6ea67",
                "58890ab993c4b3ef4073b37049e3b55b", "975a4f016c1d70ac9eae82cc7269041c"],
}


def test_deform_conv2d_bits(profile):
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("deform_conv2d: the products are MKL's GEMMs on its AVX512 path")

    def h(t):
        return hashlib.md5(t.numpy().tobytes()).hexdigest()

    rs = np.random.RandomState(11)
    for (b, c, hh, ww, m, k, s, p, d, dg, g, sc, v2, dt) in [
            (3, 4, 6, 7, 4, 3, 2, 1, 1, 2, 2, 1.5, True, "float32"),
            (3, 4, 6, 5, 2, 3, 2, 1, 2, 2, 2, 3.0, False, "float64")]:
        ho = (hh + 2 * p - (d * (k - 1) + 1)) // s + 1
        wo = (ww + 2 * p - (d * (k - 1) + 1)) // s + 1
        x = paddle.to_tensor(rs.randn(b, c, hh, ww).astype(dt), stop_gradient=False)
        off = paddle.to_tensor((rs.randn(b, 2 * dg * k * k, ho, wo) * sc).astype(dt),
                               stop_gradient=False)
        w = paddle.to_tensor((rs.randn(m, c // g, k, k) * 0.3).astype(dt), stop_gradient=False)
        mask = paddle.to_tensor(rs.rand(b, dg * k * k, ho, wo).astype(dt),
                                stop_gradient=False) if v2 else None
        out = paddle.vision.ops.deform_conv2d(x, off, w, stride=s, padding=p, dilation=d,
                                              deformable_groups=dg, groups=g, mask=mask)
        (out * paddle.to_tensor(rs.randn(*out.shape).astype(dt))).sum().backward()
        got = [h(out), h(x.grad), h(off.grad), h(w.grad)] + ([h(mask.grad)] if v2 else [])
        assert got == DEFORM_MD5[dt]


def test_deform_conv2d_zero_offsets_is_conv2d(profile):
    # real 3.3.1 and 2.6.2: with zero offsets the deformable convolution printed conv2d's bits
    # (max abs difference 0.0), v1 and v2 with a mask of ones
    rs = np.random.RandomState(4)
    x = paddle.to_tensor(rs.rand(2, 4, 6, 6).astype("float32"))
    w = paddle.to_tensor(rs.randn(5, 4, 3, 3).astype("float32") * 0.2)
    b = paddle.to_tensor(np.linspace(-0.1, 0.1, 5).astype("float32"))
    zero = paddle.zeros([2, 18, 6, 6])
    conv = paddle.nn.functional.conv2d(x, w, bias=b, padding=1).numpy()
    assert np.array_equal(paddle.vision.ops.deform_conv2d(x, zero, w, bias=b, padding=1).numpy(),
                          conv)
    layer = paddle.vision.ops.DeformConv2D(4, 5, 3, padding=1)
    assert [p.shape for p in layer.parameters()] == [[5, 4, 3, 3], [5]]
    assert type(layer).__module__ == "paddle.vision.ops"


# ------------------------------------------------ paddle.vision.ops.matrix_nms, distribute_fpn_proposals
# real 3.3.1 and 2.6.2 (the same): kept per image, md5 of the rows, the kept indices
MATRIX_NMS = {
    "float32": ([12, 12], "fb258b8d2bb69354bc69a57909d58417",
                [10, 12, 0, 12, 4, 3, 6, 14, 11, 2, 1, 2, 24, 17, 19, 25, 29, 20, 23, 17, 16, 28,
                 23, 29]),
    "float64": ([12, 12], "8b0331ab16b4507428e8dae606cdaa71",
                [2, 11, 6, 2, 1, 7, 9, 6, 10, 4, 5, 14, 26, 28, 19, 23, 18, 22, 29, 20, 15, 28, 19,
                 25]),
}
FPN_LEVELS = ([1, 4, 4, 0], [5, 6, 1, 7, 2, 3, 8, 0, 4], [[0, 1], [1, 3], [3, 1], [0, 0]])


def test_matrix_nms_and_fpn_levels(profile):
    from conftest import skip_unless_x86_64

    skip_unless_x86_64("matrix_nms: the Gaussian decay's exp is x86-64 glibc's, as real Paddle's")
    rs = np.random.RandomState(9)
    for dt, gauss in (("float32", False), ("float64", True)):
        xy, wh = rs.uniform(0, 50, size=(2, 15, 2)), rs.uniform(1, 30, size=(2, 15, 2))
        b = paddle.to_tensor(np.concatenate([xy, xy + wh], -1).astype(dt))
        s = paddle.to_tensor(rs.rand(2, 3, 15).astype(dt))
        out, num, idx = paddle.vision.ops.matrix_nms(
            b, s, 0.1, 0.05, 10, 12, use_gaussian=gauss, gaussian_sigma=2.0, background_label=0,
            normalized=False, return_index=True)
        assert (out.dtype, num.dtype, idx.dtype) == (b.dtype, paddle.int32, paddle.int32)
        got = (num.numpy().tolist(), hashlib.md5(out.numpy().tobytes()).hexdigest(),
               idx.numpy().ravel().tolist())
        assert got == MATRIX_NMS[dt]
    rois = np.concatenate([rs.uniform(0, 100, size=(9, 2)), rs.uniform(0, 300, size=(9, 2))], 1)
    rois[:, 2:] += rois[:, :2]
    multi, restore, nums = paddle.vision.ops.distribute_fpn_proposals(
        paddle.to_tensor(rois.astype("float32")), 2, 5, 4, 112, pixel_offset=True,
        rois_num=paddle.to_tensor([4, 5], dtype="int32"))
    assert ([m.shape[0] for m in multi], restore.numpy().ravel().tolist(),
            [n.numpy().tolist() for n in nums]) == FPN_LEVELS


# ------------------------------------------------ nn.Embedding(scale_grad_by_freq=True) (3.x)
def test_embedding_scale_grad_by_freq(profile):
    # real 3.3.1: the weight gradient's rows divided by their ids' counts, the node
    # EmbeddingWithScaledGradientGradNode; real 2.6.2 has no such argument (TypeError)
    if profile == "2.6":
        with pytest.raises(TypeError, match="unexpected keyword argument 'scale_grad_by_freq'"):
            paddle.nn.Embedding(6, 3, scale_grad_by_freq=True)
        with pytest.raises(TypeError, match="embedding.. got an unexpected keyword argument "
                                            "'max_norm'"):
            paddle.nn.functional.embedding(paddle.to_tensor([1]), paddle.rand([4, 3]),
                                           max_norm=1.0)
        return
    emb = paddle.nn.Embedding(6, 3, scale_grad_by_freq=True)
    out = emb(paddle.to_tensor([1, 1, 1, 4]))
    assert out.grad_fn.name() == "EmbeddingWithScaledGradientGradNode"
    (out * paddle.arange(12, dtype="float32").reshape([4, 3])).sum().backward()
    assert emb.weight.grad.numpy().tolist() == [  # real 3.3.1's
        [0.0, 0.0, 0.0], [3.0, 4.0, 5.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [9.0, 10.0, 11.0],
        [0.0, 0.0, 0.0]]
