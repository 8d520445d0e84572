"""paddle.full with a Tensor fill value, per version (LEFT17; PM16C's e18 beam-search lecture:
real 2.6.2's own BeamSearchDecoder.initialize calls paddle.full(fill_value=start_token_tensor),
a [1]-shaped Tensor, and fails there with numpy's TypeError; gradrepl ran it).

2.6.2's fill_constant takes ``float(value)``: a Tensor not 0-D raises "only 0-dimensional
arrays can be converted to Python scalars" (numpy 2 here); 3.3.1 fills with its value. Values
below: real Paddle 3.3.1 and 2.6.2 on this machine."""
from __future__ import annotations

import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import profiles

MESSAGE = "only 0-dimensional arrays can be converted to Python scalars"


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_full_of_a_tensor_value(version):
    profiles.set_profile(version)
    # a 0-D Tensor fills in both versions (real: [3., 3.] float32)
    r = paddle.full([2], paddle.to_tensor(3))
    assert (r.numpy().tolist(), str(r.dtype)) == ([3.0, 3.0], "paddle.float32")
    one = paddle.to_tensor([3])
    if version == "3":   # real 3.3.1: [3., 3.] float32; [2.5, 2.5] float64
        assert paddle.full([2], one).numpy().tolist() == [3.0, 3.0]
        assert paddle.full([2], paddle.to_tensor([2.5]), dtype="float64").numpy().tolist() == \
            [2.5, 2.5]
    else:                # real 2.6.2: TypeError for both
        for value in (one, paddle.to_tensor([2.5])):
            with pytest.raises(TypeError, match=f"^{MESSAGE}$"):
                paddle.full([2], value)
    with pytest.raises(TypeError, match=f"^{MESSAGE}$"):   # both versions
        float(one)
