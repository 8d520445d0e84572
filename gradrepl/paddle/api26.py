"""The public names of Paddle 2.6.2 (``dir(paddle)``, ``dir(paddle.Tensor)``, ``dir(paddle.linalg)``),
from the names table (``_paddle_names.NAMES["2.6"]``, recorded from the real package): under a
2.x profile, a name Paddle 3 added is an AttributeError, as it is in real Paddle 2.6
(``paddle.tensor_split``, ``Tensor.set_`` ...). Every other module is gated by ``names_gate``."""
from ._paddle_names import NAMES as _NAMES

PADDLE = _NAMES["2.6"]["paddle"]
TENSOR = _NAMES["2.6"]["paddle.Tensor"]
LINALG = _NAMES["2.6"]["paddle.linalg"]
