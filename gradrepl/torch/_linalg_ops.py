"""torch's linear algebra in the ``torch`` namespace (``torch.logdet``, ``torch.cholesky``,
``torch.lu`` ...) and their Tensor methods; ``torch.linalg`` is ``linalg``."""
from __future__ import annotations

EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
