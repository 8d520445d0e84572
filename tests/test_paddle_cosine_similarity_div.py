"""``F.cosine_similarity`` ends with ``w12 / n12`` in Paddle: its divide kernel (MKL's vsDiv on
Intel AVX-512, not correctly rounded), not an exact quotient. Found by a recommender lecture
script (PM16C): a 1-ulp cosine in one row at step 4 moved every later loss. The hash and the
first values were printed by real Paddle 3.3.1 and 2.6.2 on this Sapphire Rapids (both the same);
an exact quotient gives another hash (af1517218c0de01c).
"""
import pytest

from conftest import skip_unless_paddle_vsdiv
from helpers import run_source

PROBE = '''import hashlib
import numpy as np
import paddle
import paddle.nn.functional as F
rs = np.random.RandomState(7)
a = paddle.to_tensor(rs.randn(256, 10).astype('float32'))
b = paddle.to_tensor(rs.randn(256, 10).astype('float32'))
c = F.cosine_similarity(a, b, axis=1).numpy()
print(hashlib.sha256(c.tobytes()).hexdigest()[:16], c[:3].tolist())
'''

EXPECTED = "55e38fd74643a5ef [0.08765596896409988, -0.6574767231941223, 0.34375661611557007]\n"


@pytest.mark.parametrize("profile", ["3", "2.6"])
def test_cosine_similarity_divides_as_paddle(profile, tmp_path):
    skip_unless_paddle_vsdiv("cosine_similarity")
    assert run_source(PROBE, profile, tmp_path) == EXPECTED
