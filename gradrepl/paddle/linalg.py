"""``paddle.linalg``."""
from .tensor.linalg import matmul  # noqa: F401
