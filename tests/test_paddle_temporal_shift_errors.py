"""F.temporal_shift's argument errors as real Paddle raises them: the Python data_format check,
then TemporalShiftInferMeta's checks in order (rank, seg_num > 0, shift_ratio in (0, 0.5), N*T
divisible by seg_num), each a ValueError whose text names its line of phi/infermeta/unary.cc.
Found by PM14A's round-14 PaddleVideo script (shift_ratio=0.5: real raised, gradrepl shifted)."""
from __future__ import annotations

import pytest

# (x's shape, seg_num, shift_ratio, data_format) -> the message real 3.3.1 and 2.6.2 raised, the
# line of unary.cc as {line}; both versions' texts are the same but for that line
CASES = [
    ((4, 8, 1, 1), 2, 0.5, "NCHW", "(InvalidArgument) Attr(shift_ratio) should be less than 0.5, "
     "but received 0.5\n  [Hint: Expected shift_ratio < 0.5, but received shift_ratio:0.5 >= "
     "0.5:0.5.] (at /paddle/paddle/phi/infermeta/unary.cc:{line})\n", {"3": 5634, "2.6": 4351}),
    ((4, 8, 1, 1), 3, 0.25, "NCHW", "(InvalidArgument) Input(X) dimension[0] should be divided "
     "exactly by Attr(seg_num), but received X dimension[0](4) mod seg_num(3) != 0\n  [Hint: "
     "Expected dim_x[0] % seg_num == 0, but received dim_x[0] % seg_num:1 != 0:0.] (at "
     "/paddle/paddle/phi/infermeta/unary.cc:{line})\n", {"3": 5642, "2.6": 4361}),
    ((4, 8, 1, 1), 2, -0.1, "NCHW", "(InvalidArgument) Attr(shift_ratio) should be greater than "
     "0, but received -0.1\n  [Hint: Expected shift_ratio > 0., but received shift_ratio:-0.1 <= "
     "0.:0.] (at /paddle/paddle/phi/infermeta/unary.cc:{line})\n", {"3": 5628, "2.6": 4345}),
    ((4, 8, 1, 1), 2, 0.0, "NCHW", "(InvalidArgument) Attr(shift_ratio) should be greater than "
     "0, but received 0\n  [Hint: Expected shift_ratio > 0., but received shift_ratio:0 <= "
     "0.:0.] (at /paddle/paddle/phi/infermeta/unary.cc:{line})\n", {"3": 5628, "2.6": 4345}),
    ((4, 8, 1, 1), -2, 0.25, "NCHW", "(InvalidArgument) Attr(seg_num) should be greater than 0, "
     "but received -2\n  [Hint: Expected seg_num > 0, but received seg_num:-2 <= 0:0.] (at "
     "/paddle/paddle/phi/infermeta/unary.cc:{line})\n", {"3": 5623, "2.6": 4339}),
    ((4, 8, 1), 2, 0.25, "NCHW", "(InvalidArgument) Input(X) rank should be 4 in shape of [N*T, "
     "C, H, W], but received X rank(3)\n  [Hint: Expected dim_x.size() == 4, but received "
     "dim_x.size():3 != 4:4.] (at /paddle/paddle/phi/infermeta/unary.cc:{line})\n",
     {"3": 5616, "2.6": 4333}),
    ((4, 8, 1, 1), 2, 0.25, "NCDHW", "Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
     "Attr(data_format): NCDHW.", {"3": None, "2.6": None}),
    ((4, 1, 1, 8), 3, 0.5, "NHWC", "(InvalidArgument) Attr(shift_ratio) should be less than 0.5, "
     "but received 0.5\n  [Hint: Expected shift_ratio < 0.5, but received shift_ratio:0.5 >= "
     "0.5:0.5.] (at /paddle/paddle/phi/infermeta/unary.cc:{line})\n", {"3": 5634, "2.6": 4351}),
]


@pytest.mark.parametrize("shape, seg_num, ratio, fmt, text, lines", CASES)
def test_temporal_shift_errors_as_real_paddle(profile, shape, seg_num, ratio, fmt, text, lines):
    import gradrepl.paddle as paddle
    import gradrepl.paddle.nn.functional as F

    with pytest.raises(ValueError) as e:
        F.temporal_shift(paddle.ones(list(shape)), seg_num, ratio, data_format=fmt)
    assert str(e.value) == text.format(line=lines[profile])


def test_temporal_shift_below_half_still_shifts(profile):
    import gradrepl.paddle as paddle
    import gradrepl.paddle.nn.functional as F

    # real 3.3.1 and 2.6.2 printed this for [2, 4, 1, 1], seg_num 2, ratio 0.49 (int(4 * 0.49)
    # = 1 channel from the frame before, int(8 * 0.49) - 1 = 2 from the frame after)
    x = paddle.arange(8, dtype="float32").reshape([2, 4, 1, 1])
    assert F.temporal_shift(x, 2, 0.49).flatten().tolist() == [0.0, 5.0, 6.0, 3.0,
                                                                 0.0, 0.0, 0.0, 7.0]
