"""``torch.sparse``: sparse COO tensors' products and sums (``_sparse_coo``), the legacy
``FloatTensor``/``DoubleTensor`` constructors (``_sparse_csr``). Other names of torch.sparse
raise the not-emulated AttributeError."""
from __future__ import annotations

from ._sparse_coo import mm, sparse_sum as sum  # noqa: A004,F401 - torch's names
from ._sparse_csr import DoubleTensor, FloatTensor  # noqa: F401 - the legacy constructors


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"module 'torch.sparse' has no attribute '{name}' (gradrepl's torch "
                         f"does not emulate torch.sparse.{name})")
