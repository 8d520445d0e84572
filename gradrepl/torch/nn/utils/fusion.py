"""``torch.nn.utils.fusion``: folding a BatchNorm into the convolution or linear layer before
it (the package's functions, under the module torch defines them in)."""
from . import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: F401
               fuse_linear_bn_weights)
