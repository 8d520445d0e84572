"""``torch.signal``: its ``windows`` module (the window functions of SciPy's signal package)."""
from . import windows  # noqa: F401
