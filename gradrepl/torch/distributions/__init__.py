"""``torch.distributions``."""
from __future__ import annotations
