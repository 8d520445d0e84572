"""``paddle.nn``: layers, functional, initializers."""
from . import functional  # noqa: F401
