"""The registered ops, grouped by kind. Importing this package registers them all."""
from . import broadcast, math, logic, reduce, search, shape, index, linalg, nn  # noqa: F401
from . import conv  # noqa: F401
