"""``torch.utils``: ``data`` (Dataset, TensorDataset, DataLoader), ``hooks``, ``benchmark``,
``checkpoint`` (imported with the package, as real torch's ``import torch`` does)."""
from . import benchmark, checkpoint, data, hooks  # noqa: F401
