"""``torch.utils``: ``data`` (Dataset, TensorDataset, DataLoader) and ``hooks``."""
from . import data, hooks  # noqa: F401
