"""``torch.utils.hooks.RemovableHandle``."""
from ..autograd._engine import RemovableHandle  # noqa: F401
