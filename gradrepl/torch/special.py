"""``torch.special``."""
from __future__ import annotations
