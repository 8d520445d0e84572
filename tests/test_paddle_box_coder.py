"""paddle.vision.ops.box_coder: Paddle's CPU box_coder kernel (encode_center_size /
decode_center_size, variances as a list or a tensor, box_normalized, axis 0/1; glibc's logf and
expf), against real Paddle 3.3.1 and 2.6.2 (the same bytes), printed on this stop's machine
(/tmp script, not committed). Before: AttributeError (the name was missing)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

# sha256[:10] of each output, in the order of the calls below
EXPECTED = ["2a62230c69", "e3fcd627aa", "2ce149a33d", "033b101c94", "ab9baa6b05", "3c0b66f31f",
            "fd2abcc0fa", "845eaf5d00", "5f288a2776", "b7616359cd", "4d61b50a1b", "3db0ef2d61",
            "959c4fecbc", "c90ceacd81"]


@pytest.fixture
def paddle(profile):  # conftest's profile: Paddle 3 and 2.6
    import gradrepl.paddle as p

    return p


def test_box_coder_encode_decode(paddle):
    ops = paddle.vision.ops
    rng = np.random.RandomState(2)

    def hx(t):
        return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:10]

    xy, wh = rng.uniform(0, 50, (6, 2)), rng.uniform(5, 30, (6, 2))
    prior = paddle.to_tensor(np.concatenate([xy, xy + wh], 1).astype("float32"))
    xy2, wh2 = rng.uniform(0, 50, (4, 2)), rng.uniform(5, 30, (4, 2))
    target = paddle.to_tensor(np.concatenate([xy2, xy2 + wh2], 1).astype("float32"))
    pvar = paddle.to_tensor(rng.uniform(0.1, 0.3, (6, 4)).astype("float32"))
    got = []
    variances = [[0.1, 0.1, 0.2, 0.2], pvar, (1.0, 1.0, 1.0, 1.0)]
    for var in variances:
        for norm in [True, False]:
            got.append(hx(ops.box_coder(prior, var, target, code_type="encode_center_size",
                                        box_normalized=norm)))
    deltas = paddle.to_tensor(rng.randn(4, 6, 4).astype("float32") * 0.5)
    for var in variances:
        for norm in [True, False]:
            got.append(hx(ops.box_coder(prior, var, deltas, code_type="decode_center_size",
                                        box_normalized=norm, axis=0)))
    deltas1 = paddle.to_tensor(rng.randn(6, 4, 4).astype("float32") * 0.5)
    for var in variances[:2]:
        got.append(hx(ops.box_coder(prior, var, deltas1, code_type="decode_center_size",
                                    axis=1)))
    assert got == EXPECTED
    with pytest.raises(AssertionError, match="with 4 elements"):
        ops.box_coder(prior, [0.1, 0.2], target)
    with pytest.raises(TypeError, match=r"^Input prior_box_var must be Variable or list\|tuple$"):
        ops.box_coder(prior, 0.1, target)


def test_roi_layers(paddle):
    # real 3.3.1 and 2.6.2 print (repr) "RoIAlign()" and "RoIPool(output_size=(2, 2),
    # spatial_scale=0.5)"; values after paddle.seed(1), x = rand([1, 2, 8, 8])
    from gradrepl.paddle.vision.ops import RoIAlign, RoIPool

    paddle.seed(1)
    x = paddle.rand([1, 2, 8, 8])
    boxes = paddle.to_tensor([[1.0, 1.0, 5.0, 6.0], [0.0, 2.0, 7.0, 7.0]])
    num = paddle.to_tensor([2], dtype="int32")
    ra, rp = RoIAlign(output_size=3), RoIPool(output_size=(2, 2), spatial_scale=0.5)
    assert (repr(ra), repr(rp)) == ("RoIAlign()", "RoIPool(output_size=(2, 2), spatial_scale=0.5)")
    assert ra(x, boxes, num, aligned=False).numpy()[0, 0].tolist() == [
        [0.6210968494415283, 0.6329264640808105, 0.4321461021900177],
        [0.5604370832443237, 0.48350411653518677, 0.5649704933166504],
        [0.6091845035552979, 0.31248074769973755, 0.4847159683704376]]
    assert rp(x, boxes, num).numpy()[1].tolist() == [
        [[0.7857668399810791, 0.8570010662078857], [0.9584829807281494, 0.9601794481277466]],
        [[0.8979513645172119, 0.8951903581619263], [0.9408619999885559, 0.6244866251945496]]]
