"""``torch.nn.utils.memory_format``: the package's ``convert_conv2d/3d_weight_memory_format``
(memory formats are not modelled) under the module torch defines them in."""
from . import (convert_conv2d_weight_memory_format,  # noqa: F401
               convert_conv3d_weight_memory_format)
