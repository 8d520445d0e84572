"""``torch.nn.utils.convert_parameters``: ``parameters_to_vector`` / ``vector_to_parameters``
(the package's functions) under the module torch defines them in."""
from . import parameters_to_vector, vector_to_parameters  # noqa: F401

__all__ = ["parameters_to_vector", "vector_to_parameters"]
