"""``torch.utils``: ``data`` (Dataset, TensorDataset, DataLoader), ``hooks``, ``benchmark``."""
from . import benchmark, data, hooks  # noqa: F401
