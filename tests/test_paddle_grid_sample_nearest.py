"""F.grid_sample(mode='nearest') picks a tie (a source coordinate x.5) as each version's kernel:
3.3.1 by nearbyint (to even), 2.6.2 by round() (away from zero), for 4-D and 5-D inputs, forward
and gradient (profile field grid_sample_half_even). Found by PM14A's round-14 PaddleSeg/Video
warping script (an affine grid's nearest sample differed under 3 only)."""
from __future__ import annotations

import numpy as np

# printed by real Paddle (see the test's steps): out, x's gradient, the 5-D out, the
# align_corners=False out
REAL = {
    "3": ([1, 2, 2, 4, 4, 6], [0, 1, 5, 0, 9, 0, 6], [1, 2, 2, 4, 4, 6], [0, 1, 2, 4, 4, 6]),
    "2.6": ([1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6], [0, 1, 3, 4, 5, 6]),
}


def test_nearest_ties_follow_the_version(profile):
    import gradrepl.paddle as paddle
    import gradrepl.paddle.nn.functional as F

    img = paddle.arange(7, dtype="float32").reshape([1, 1, 1, 7])
    img.stop_gradient = False
    xs = np.array([0.5, 1.5, 2.5, 3.5, 4.5, 5.5], "float64") / 3 - 1  # x_in = 3 (g + 1): ties
    zeros = np.zeros_like(xs)
    g = paddle.to_tensor(np.stack([xs, zeros], -1).reshape(1, 1, 6, 2).astype("float32"))
    out = F.grid_sample(img, g, mode="nearest", align_corners=True)
    (out * paddle.arange(1, 7, dtype="float32").reshape([1, 1, 1, 6])).sum().backward()
    v = paddle.arange(7, dtype="float32").reshape([1, 1, 1, 1, 7])
    g3 = paddle.to_tensor(np.stack([xs, zeros, zeros], -1).reshape(1, 1, 1, 6, 3)
                          .astype("float32"))
    out3 = F.grid_sample(v, g3, mode="nearest", align_corners=True)
    xs2 = np.array([(2 * k + 2) / 7 - 1 for k in range(6)])  # x_in = ((g + 1) 7 - 1) / 2
    g2 = paddle.to_tensor(np.stack([xs2, np.zeros_like(xs2)], -1).reshape(1, 1, 6, 2)
                          .astype("float32"))
    out2 = F.grid_sample(img.detach(), g2, mode="nearest", align_corners=False)
    got = tuple(t.flatten().numpy().tolist() for t in (out, img.grad, out3, out2))
    assert got == tuple([float(v) for v in row] for row in REAL[profile])
