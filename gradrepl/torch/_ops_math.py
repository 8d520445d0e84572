"""torch's pointwise math beyond the core (``_ops``): the special functions of the
namespace, number theory, float bits and their Tensor methods."""
from __future__ import annotations

EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
