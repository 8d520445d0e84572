"""torch's shape, indexing, search, reduction and creation functions beyond the core
(``_ops``), and their Tensor methods."""
from __future__ import annotations

EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
