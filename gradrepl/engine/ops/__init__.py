"""The registered ops, grouped by kind. Importing this package registers them all."""
from . import broadcast, math, logic, reduce, search, shape, index, linalg, nn  # noqa: F401
from . import conv, conv3d, pool3d, unpool, lp_pool  # noqa: F401
from . import manip, special, linalg_more, nn_more  # noqa: F401
from . import complex  # noqa: F401  (after the others: it wraps their VJPs)
from . import fused  # noqa: F401  (ops some frameworks record as one node: addmm, mse_loss...)
from . import special_torch  # noqa: F401  (torch's special functions, torch.special)
from . import scan_more  # noqa: F401  (logcumsumexp)
from . import paddle_breadth  # noqa: F401  (instance_norm, Eigen-ordered row means)
from . import instance_norm_grad  # noqa: F401  (instance_norm_grad and its double-grad kernel)
from . import paddle_rnn  # noqa: F401  (Paddle's fused rnn op: LSTM, GRU, SimpleRNN)
from . import graph  # noqa: F401  (segment_reduce: paddle.geometric)
from . import detection  # noqa: F401  (yolov3_loss: paddle.vision.ops)
from . import deform_conv  # noqa: F401  (deformable_conv: paddle.vision.ops.deform_conv2d)
from . import paddle_nn_gaps  # noqa: F401  (gumbel_softmax, temporal_shift: paddle/nn/gaps.py)
from . import fft  # noqa: F401  (Paddle fft_c2c / fft_r2c / fft_c2r: paddle.fft)
from . import spectral_norm  # noqa: F401  (Paddle's spectral_norm op: nn.SpectralNorm)
from . import paddle_interp  # noqa: F401  (Paddle's linear/bilinear/trilinear_interp)
from . import tanh_grads  # noqa: F401  (Paddle's tanh_double_grad and its triple gradient)
