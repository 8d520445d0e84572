"""ClipGradByGlobalNorm's scale is ``paddle.divide(max_norm, paddle.maximum(global_norm,
max_norm))``: two 0-d float32 tensors of one shape, so Paddle's forward divide kernel (MKL's
vsDiv on Intel AVX-512: an rcp14 reciprocal and one FMA step, not correctly rounded), not an
exact quotient. Found by a ConvNeXt lecture script (PM16A): AdamW with ClipGradByGlobalNorm(1.0)
drifted in the last bits after 4 steps. Expectations printed by real Paddle 3.3.1 and 2.6.2 on
this Sapphire Rapids (both the same); an exact 1 / norm makes the first parameter -1.0 (000080bf).
"""
import pytest

from conftest import skip_unless_paddle_vsdiv
from helpers import run_source

PROBE = '''import numpy as np
import paddle
for g in ['49ba0640', '1c7a3f40', 'a1f29b40', '00002040']:
    gv = np.frombuffer(bytes.fromhex(g), np.float32).copy()
    w = paddle.create_parameter([1], 'float32', default_initializer=paddle.nn.initializer.Constant(0.0))
    opt = paddle.optimizer.SGD(learning_rate=1.0, parameters=[w],
                               grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0))
    (w * paddle.to_tensor(gv)).sum().backward()
    opt.step()
    print(g, w.numpy().tobytes().hex())
'''

EXPECTED = "49ba0640 ffff7fbf\n1c7a3f40 ffff7fbf\na1f29b40 000080bf\n00002040 000080bf\n"


@pytest.mark.parametrize("profile", ["3", "2.6"])
def test_global_norm_scale_is_paddles_divide(profile, tmp_path):
    skip_unless_paddle_vsdiv("ClipGradByGlobalNorm scale")
    assert run_source(PROBE, profile, tmp_path) == EXPECTED
