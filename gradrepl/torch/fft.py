"""``torch.fft``."""
from __future__ import annotations
