"""The Paddle names added for issue 28's breadth (``tensor/breadth.py``, ``nn/breadth.py``):
each script's stdout equals what real Paddle printed for it.

The expected texts were recorded in this session from real Paddle 3.3.1 and 2.6.2 (CPU build,
this machine) running the same scripts; none of these values depends on the CPU class (no float
products are summed: casts, comparisons, softmax of 2-3 values, maxout, 2-element norms, and
multinomial's draws from the seeded MT19937-64).
"""
from __future__ import annotations

import pytest

from helpers import run_source

EXPECTED_METHODS3_3 = 'float32 paddle.float32 False\nfloat paddle.float32 False\ndouble paddle.float64 False\nint paddle.int32 False\nlong paddle.int64 False\nhalf paddle.float16 False\nbool paddle.bool False\nbyte paddle.uint8 False\nchar paddle.int8 False\nshort paddle.int16 False\ncfloat paddle.complex64 False\ncdouble paddle.complex128 False\nbfloat16 paddle.bfloat16 False\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[ 1.50000000,  0.50000000],\n        [-2.25000000,  4.        ]])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [1., 2.]) False True\nTensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [1, 2])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [3., 5.]) Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [3., 5.])\nTensor(shape=[2, 2], dtype=bool, place=Place(cpu), stop_gradient=True,\n       [[True , False],\n        [False, True ]]) Tensor(shape=[2, 2], dtype=bool, place=Place(cpu), stop_gradient=True,\n       [[False, True ],\n        [True , False]])\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0.73105860, 0.00192673],\n        [0.26894143, 0.99807322]]) Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0.97702265, 0.02297737],\n        [0.02931223, 0.97068775]])\nceil_ Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [1., 1.])\nfloor_ Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0., 0.])\nround_ Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0., 1.])\nrsqrt_ Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [1.82574177, 1.19522858])\nreciprocal_ Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [3.33333325, 1.42857146])\nsigmoid_ Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.57444251, 0.66818774])\nerfinv_ Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.27246267, 0.73286903])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [2.        , 3.50000000])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [1.50000000, 4.        ]) False True Tensor(shape=[], dtype=int32, place=Place(cpu), stop_gradient=True,\n       2)\nTensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[0.19999999],\n        [0.60000002]]) Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[5. , 5. ],\n        [5. , 10.]])\nTensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[2., 4.]])\nTensor(shape=[], dtype=complex64, place=Place(cpu), stop_gradient=True,\n       (1.00000000+2.00000000j))\nValueError Tensor.ndim(1) is required to be greater than or equal to 2.\n'

EXPECTED_TOP3_3 = 'True\nTrue\nTensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[0.09003057, 0.24472848, 0.66524094],\n        [0.66524088, 0.09003057, 0.24472845]]) Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[0.26894143, 0.88079703, 0.88079703],\n        [0.73105860, 0.11920291, 0.11920291]]) Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.26894143, 0.73105860])\nGenerator cpu\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[3., 4.],\n        [6., 8.]])\nTensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[1., 2.]])\n3.141592653589793 2.718281828459045 inf None paddle.float32 paddle.float64 paddle.int64 paddle.complex64\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [1.50000000, 2.        ]) Tensor(shape=[1], dtype=float64, place=Place(cpu), stop_gradient=True,\n       [0.])\nTensor(shape=[1, 1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[[[1., 1.],\n          [1., 1.]]]])\n'

EXPECTED_MULTINOMIAL_3 = "Tensor(shape=[8], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [2, 3, 1, 3, 2, 2, 3, 3])\nTensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [[2, 3, 0],\n        [0, 3, 1]])\nTensor(shape=[5], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [2, 3, 1, 3, 2])\nTensor(shape=[3, 6], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [[5, 4, 2, 1, 3, 0],\n        [4, 1, 3, 2, 5, 0],\n        [4, 2, 3, 0, 5, 1]]) Tensor(shape=[3, 20], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [[5, 4, 5, 4, 3, 5, 2, 3, 1, 4, 1, 2, 4, 2, 5, 1, 2, 5, 3, 2],\n        [5, 0, 1, 3, 1, 2, 2, 1, 1, 1, 1, 1, 2, 1, 4, 2, 1, 4, 2, 2],\n        [0, 0, 3, 3, 0, 4, 3, 3, 5, 3, 4, 3, 4, 4, 1, 1, 5, 4, 3, 5]]) Tensor(shape=[1], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [1])\nTensor(shape=[3, 2], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [[2, 1],\n        [2, 1],\n        [2, 1]])\nValueError '(InvalidArgument) The input of multinomial distribution should be >= 0, but got -0.200000.\\n  [Hint: Expected prob_value >= 0.0, but received prob_value:-0.2 < 0.0:0.] (at /paddle/paddle/phi/kernels/funcs/multinomial_functor.h:42)\\n'\nValueError '(InvalidArgument) When replacement is False, number of samples should be less than non-zero categories.\\n  [Hint: Expected (replacement || (num_categories - num_zeros >= num_samples)) == true, but received (replacement || (num_categories - num_zeros >= num_samples)):0 != true:1.] (at /paddle/paddle/phi/kernels/funcs/multinomial_functor.h:61)\\n'\nValueError '(InvalidArgument) The sum of one multinomial distribution probability should be > 0, but got 0.000000.\\n  [Hint: Expected probs_sum > 0.0, but received probs_sum:0 <= 0.0:0.] (at /paddle/paddle/phi/kernels/funcs/multinomial_functor.h:55)\\n'\nValueError '(InvalidArgument) The number of dimensions of the input probability distribution should be <= 2, but got 3.\\n  [Hint: Expected x_rank <= 2, but received x_rank:3 > 2:2.] (at /paddle/paddle/phi/infermeta/unary.cc:3185)\\n'\nValueError '(InvalidArgument) The number of dimensions of the input probability distribution should be > 0, but got 0.\\n  [Hint: Expected x_rank > 0, but received x_rank:0 <= 0:0.] (at /paddle/paddle/phi/infermeta/unary.cc:3179)\\n'\n"

EXPECTED_MULTINOMIAL_26 = "Tensor(shape=[8], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [2, 3, 1, 3, 2, 2, 3, 3])\nTensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [[2, 3, 0],\n        [0, 3, 1]])\nTensor(shape=[5], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [2, 3, 1, 3, 2])\nTensor(shape=[3, 6], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [[5, 4, 2, 1, 3, 0],\n        [4, 1, 3, 2, 5, 0],\n        [4, 2, 3, 0, 5, 1]]) Tensor(shape=[3, 20], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [[5, 4, 5, 4, 3, 5, 2, 3, 1, 4, 1, 2, 4, 2, 5, 1, 2, 5, 3, 2],\n        [5, 0, 1, 3, 1, 2, 2, 1, 1, 1, 1, 1, 2, 1, 4, 2, 1, 4, 2, 2],\n        [0, 0, 3, 3, 0, 4, 3, 3, 5, 3, 4, 3, 4, 4, 1, 1, 5, 4, 3, 5]]) Tensor(shape=[1], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [1])\nTensor(shape=[3, 2], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [[2, 1],\n        [2, 1],\n        [2, 1]])\nValueError '(InvalidArgument) The input of multinomial distribution should be >= 0, but got -0.200000.\\n  [Hint: Expected prob_value >= 0.0, but received prob_value:-0.2 < 0.0:0.] (at /paddle/paddle/phi/kernels/funcs/multinomial_functor.h:47)\\n'\nValueError '(InvalidArgument) When replacement is False, number of samples should be less than non-zero categories.\\n  [Hint: Expected (replacement || (num_categories - num_zeros >= num_samples)) == true, but received (replacement || (num_categories - num_zeros >= num_samples)):0 != true:1.] (at /paddle/paddle/phi/kernels/funcs/multinomial_functor.h:66)\\n'\nValueError '(InvalidArgument) The sum of one multinomial distribution probability should be > 0, but got 0.000000.\\n  [Hint: Expected probs_sum > 0.0, but received probs_sum:0 <= 0.0:0.] (at /paddle/paddle/phi/kernels/funcs/multinomial_functor.h:60)\\n'\nValueError '(InvalidArgument) The number of dimensions of the input probability distribution should be <= 2, but got 3.\\n  [Hint: Expected x_rank <= 2, but received x_rank:3 > 2:2.] (at /paddle/paddle/phi/infermeta/unary.cc:2431)\\n'\nValueError '(InvalidArgument) The number of dimensions of the input probability distribution should be > 0, but got 0.\\n  [Hint: Expected x_rank > 0, but received x_rank:0 <= 0:0.] (at /paddle/paddle/phi/infermeta/unary.cc:2425)\\n'\n"

EXPECTED_NN3_3 = "True True True True True <class 'paddle.base.framework.EagerParamBase'>\nZeroPad2D(padding=[1, 1, 1, 1], mode=constant, value=0.0, data_format=NCHW) ReflectionPad2D(padding=[1, 1, 1, 1], mode=reflect, value=0.0, data_format=NCHW) ConstantPad2D(padding=[1, 1, 1, 1], mode=constant, value=2.0, data_format=NCHW)\nNet(\n  (fc): Linear(in_features=2, out_features=2, dtype=float32)\n  (blocks): LayerList(\n    (0): ReLU()\n  )\n)\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [-0.31326166, -2.12692809])\nTensor(shape=[1, 2, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[[-0.75711036, -0.38059190],\n          [ 2.47224617,  1.34467661]],\n\n         [[ 0.60608417,  0.93557298],\n          [ 1.35604191,  0.10350471]]]])\nMaxout(groups=2, axis=1)\nTensor(shape=[1, 4, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[[1., 1.],\n          [0., 1.]],\n\n         [[0., 0.],\n          [1., 0.]],\n\n         [[1., 0.],\n          [1., 1.]],\n\n         [[0., 1.],\n          [0., 0.]]]])\nTensor(shape=[1, 2, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[[1., 1.]],\n\n         [[0., 0.]]]])\nTensor(shape=[1, 2, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[[[-0.35230345,  0.73034632],\n          [ 0.92902696, -0.59687734]],\n\n         [[ 0.08846574,  0.53215128],\n          [ 1.59716594, -1.44572771]]]])\nValueError (InvalidArgument) The number of input channels for Op(maxout) should be divisible by Attr(groups). But received: the input's channels is [4], the shape of input is [1, 4, 2, 2], the Attr(groups) is [3], the Attr(axis) is [1]. The error may come from wrong Attr(groups) or Attr(axis) setting.\n  [Hint: Expected in_x_dims[axis] % groups == 0, but received in_x_dims[axis] % groups:1 != 0:0.] (at /paddle/paddle/phi/infermeta/unary.cc:2838)\n\nValueError (InvalidArgument) axis only supported 1, -1 or 3, but received axis is: 2.\n  [Hint: Expected axis == 1 || axis == -1 || axis == 3 == true, but received axis == 1 || axis == -1 || axis == 3:0 != true:1.] (at /paddle/paddle/phi/infermeta/unary.cc:2824)\n\nTensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [3.60555124, 3.16227770, 4.12310553])\nTensor(shape=[3, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[-1.50338340, -0.51582253],\n        [ 0.31216455,  1.80219293],\n        [ 1.19121885, -1.28637028]])\nTensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [5., 4., 5.]) Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [3., 3., 4.])\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[1., 0.],\n        [0., 2.]])\n"

EXPECTED_NN26_26 = "Conv2d False\nModule False\nModuleList False\nMaxout True\nParameter False\nHuberLoss False\nlogsigmoid False\nmaxout True\npdist False\ndiag_embed True\nTensor(shape=[1, 2, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[[-0.75711036, -0.38059190],\n          [ 2.47224617,  1.34467661]],\n\n         [[ 0.60608417,  0.93557298],\n          [ 1.35604191,  0.10350471]]]])\nMaxout(groups=2, axis=1)\nTensor(shape=[1, 4, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[[1., 1.],\n          [0., 1.]],\n\n         [[0., 0.],\n          [1., 0.]],\n\n         [[1., 0.],\n          [1., 1.]],\n\n         [[0., 1.],\n          [0., 0.]]]])\nValueError (InvalidArgument) The number of input channels for Op(maxout) should be divisible by Attr(groups). But received: the input's channels is [4], the shape of input is [1, 4, 2, 2], the Attr(groups) is [3], the Attr(axis) is [1]. The error may come from wrong Attr(groups) or Attr(axis) setting.\n  [Hint: Expected in_x_dims[axis] % groups == 0, but received in_x_dims[axis] % groups:1 != 0:0.] (at /paddle/paddle/phi/infermeta/unary.cc:2262)\n\nValueError (InvalidArgument) axis only supported 1, -1 or 3, but recevied axis is: 2.\n  [Hint: Expected axis == 1 || axis == -1 || axis == 3 == true, but received axis == 1 || axis == -1 || axis == 3:0 != true:1.] (at /paddle/paddle/phi/infermeta/unary.cc:2240)\n\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[1., 0.],\n        [0., 2.]])\n"

SRC_METHODS3 = "import paddle\nx = paddle.to_tensor([[1.5, -2.25], [0.5, 4.0]], stop_gradient=False)\nfor n in ['float32', 'float', 'double', 'int', 'long', 'half', 'bool', 'byte', 'char', 'short', 'cfloat', 'cdouble', 'bfloat16']:\n    r = getattr(x, n)()\n    print(n, r.dtype, r.stop_gradient)\nprint(x.mT)\ny = paddle.to_tensor([1.0, 2.0])\nprint(y.requires_grad_(), y.stop_gradient, y.requires_grad_(False).stop_gradient)\nprint(y.type_as(paddle.to_tensor([1, 2])))\nz = paddle.to_tensor([1.0, 2.0]); print(z.mul_(paddle.to_tensor([3.0, 4.0])), z.clamp_(0, 5))\nprint(x.greater(paddle.to_tensor(1.0)), x.less(paddle.to_tensor(1.0)))\nprint(x.softmax(0), x.softmax())\nfor n in ['ceil_', 'floor_', 'round_', 'rsqrt_', 'reciprocal_', 'sigmoid_', 'erfinv_']:\n    v = paddle.to_tensor([0.3, 0.7]); print(n, getattr(v, n)())\nv = paddle.to_tensor([1.0, 2.0]); print(v.lerp_(paddle.to_tensor([3.0, 5.0]), 0.5))\nprint(x.diag(), x.is_same_shape(y), x.is_same_shape(x), x.rank())\na = paddle.to_tensor([[2.0, 1.0], [1.0, 3.0]]); b = paddle.to_tensor([[1.0], [2.0]])\nprint(a.solve(b), a.matrix_power(2))\nw = paddle.to_tensor([[1.0, 2.0]], stop_gradient=False)\n(w.float() * w.double().float()).sum().backward(); print(w.grad)\nprint(paddle.to_tensor([1.0, 2.0]).view_as_complex())\ntry:\n    paddle.to_tensor([1.0, 2.0]).mT\nexcept Exception as e:\n    print(type(e).__name__, e)\n"

SRC_TOP3 = 'import paddle\npaddle.seed(1); a = paddle.rand([3]); paddle.seed(1); b = paddle.rand_like(paddle.zeros([3])); print((a == b).all().item())\npaddle.seed(1); a = paddle.randn([3]); paddle.seed(1); b = paddle.randn_like(paddle.zeros([3])); print((a == b).all().item())\nx = paddle.to_tensor([[1., 2., 3.], [2., 0., 1.]])\nprint(paddle.softmax(x), paddle.softmax(x, dim=0), paddle.softmax(paddle.to_tensor([1., 2.])))\nprint(type(paddle.manual_seed(2)).__name__, paddle.get_default_device())\nprint(paddle.ger(paddle.to_tensor([1., 2.]), paddle.to_tensor([3., 4.])))\nprint(paddle.view_as_real(paddle.to_tensor([1+2j])))\nprint(paddle.pi, paddle.e, paddle.inf, paddle.newaxis, paddle.float, paddle.double, paddle.long, paddle.cfloat)\nprint(paddle.as_tensor([1.5, 2]), paddle.zeros([1], dtype=paddle.double))\nprint(paddle.conv2d(paddle.ones([1, 1, 2, 2]), paddle.ones([1, 1, 1, 1])))\n'

SRC_MULTINOMIAL = 'import paddle\npaddle.seed(3); print(paddle.multinomial(paddle.to_tensor([0.1, 0.2, 0.3, 0.4]), 8, True))\npaddle.seed(3); print(paddle.multinomial(paddle.to_tensor([[0.1, 0.2, 0.3, 0.4], [5., 1., 0., 2.]]), 3, False))\npaddle.seed(3); print(paddle.multinomial(paddle.to_tensor([0.1, 0.2, 0.3, 0.4], \'float64\'), 5, True))\npaddle.seed(7); p = paddle.rand([3, 6]); print(paddle.multinomial(p, 6), paddle.multinomial(p, 20, True), paddle.multinomial(p[0]))\nprint(p.multinomial(2))\nfor s in ["paddle.multinomial(paddle.to_tensor([0.1, -0.2]), 1)", "paddle.multinomial(paddle.to_tensor([0.1, 0.0]), 2)",\n          "paddle.multinomial(paddle.zeros([2]), 1)", "paddle.multinomial(paddle.zeros([2, 2, 2]), 1)",\n          "paddle.multinomial(paddle.to_tensor(1.0), 1)"]:\n    try:\n        eval(s)\n    except Exception as e:\n        print(type(e).__name__, repr(str(e)))\n'

SRC_NN3 = "import paddle\nimport paddle.nn as nn, paddle.nn.functional as F\nprint(nn.Conv2d is nn.Conv2D, nn.Module is nn.Layer, nn.ModuleList is nn.LayerList, nn.HuberLoss is nn.SmoothL1Loss, nn.MaxUnpool2d is nn.MaxUnPool2D, nn.Parameter)\nprint(nn.ZeroPad2d(1), nn.ReflectionPad2d(1), nn.ConstantPad2d(1, 2.0))\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\n        self.blocks = nn.ModuleList([nn.ReLU()])\n    def forward(self, x):\n        return self.blocks[0](self.fc(x))\nprint(Net())\nprint(F.logsigmoid(paddle.to_tensor([1., -2.])))\npaddle.seed(0)\nx2 = paddle.randn([1, 4, 2, 2]); x2.stop_gradient=False\nprint(F.maxout(x2, groups=2)); print(nn.Maxout(groups=2))\nF.maxout(x2, groups=2).sum().backward(); print(x2.grad)\nx3 = paddle.to_tensor([[[[1., 1.]], [[1., 0.]]]], stop_gradient=False)\nF.maxout(x3, groups=2).sum().backward(); print(x3.grad)\nx4 = paddle.randn([1, 2, 2, 4]); print(F.maxout(x4, groups=2, axis=-1))\ntry: F.maxout(x2, groups=3)\nexcept Exception as e: print(type(e).__name__, e)\ntry: F.maxout(x2, groups=2, axis=2)\nexcept Exception as e: print(type(e).__name__, e)\na = paddle.to_tensor([[0., 1.], [2., 4.], [3., 0.]], stop_gradient=False)\nd = F.pdist(a); print(d); d.sum().backward(); print(a.grad)\nprint(F.pdist(a, p=1.0), F.pdist(a, p=float('inf')))\nprint(F.diag_embed(paddle.to_tensor([1., 2.])))\n"

SRC_NN26 = "import paddle\nimport paddle.nn as nn, paddle.nn.functional as F\nfor n in ['Conv2d', 'Module', 'ModuleList', 'Maxout', 'Parameter', 'HuberLoss']:\n    print(n, hasattr(nn, n))\nfor n in ['logsigmoid', 'maxout', 'pdist', 'diag_embed']:\n    print(n, hasattr(F, n))\npaddle.seed(0)\nx2 = paddle.randn([1, 4, 2, 2]); x2.stop_gradient=False\nprint(F.maxout(x2, groups=2)); print(nn.Maxout(groups=2))\nF.maxout(x2, groups=2).sum().backward(); print(x2.grad)\ntry: F.maxout(x2, groups=3)\nexcept Exception as e: print(type(e).__name__, e)\ntry: F.maxout(x2, groups=2, axis=2)\nexcept Exception as e: print(type(e).__name__, e)\nprint(F.diag_embed(paddle.to_tensor([1., 2.])))\n"

EXPECTED_INORM_3 = 'InstanceNorm1D(num_features=3, epsilon=1e-05)\n[Parameter containing:\nTensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [1., 1., 1.]), Parameter containing:\nTensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [0., 0., 0.])]\nTensor(shape=[2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[-1.14100766, -0.63527435,  0.28942209,  1.48685980],\n         [-1.29918444, -0.48892036,  0.40701339,  1.38109171],\n         [-1.31754827, -0.47105753,  0.42386809,  1.36473656]],\n\n        [[-1.32481122, -0.46392012,  0.43075365,  1.35797775],\n         [-1.32870841, -0.46007365,  0.43449956,  1.35428035],\n         [-1.33113933, -0.45766851,  0.43685612,  1.35194778]]])\nTensor(shape=[2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[-0.12325126,  0.10087394,  0.09170739, -0.06933000],\n         [-0.01240403,  0.01176307,  0.01154811, -0.01090724],\n         [-0.00529471,  0.00513215,  0.00507869, -0.00491589]],\n\n        [[-0.00308762,  0.00302075,  0.00299827, -0.00293141],\n         [-0.00208044,  0.00204323,  0.00203279, -0.00199524],\n         [-0.00152404,  0.00149857,  0.00149395, -0.00146791]]]) Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [8.87567139, 8.94011593, 8.94268894]) Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [60. , 92. , 124.])\nInstanceNorm2D(num_features=2, epsilon=1e-05)\nweight_attr and bias_attr must be set to False at the same time in InstanceNorm\nValueError expected 2D or 3D input (got 4D input)\nTensor(shape=[1, 2, 5, 7], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[[ 0.09985516,  0.35942215,  0.58385789,  0.74278617,  0.81469673,\n            0.78985685,  0.67162848],\n          [ 0.47601318,  0.22948682, -0.03458457, -0.28046042, -0.47486225,\n           -0.59147859, -0.61452633],\n          [-0.54088569, -0.38052395, -0.15514520,  0.10474667,  0.36397648,\n            0.58745903,  0.74494636],\n          [ 0.81512362,  0.78849274,  0.66865796,  0.47183841,  0.22467273,\n           -0.03938640, -0.28459984],\n          [-0.47777954, -0.59277862, -0.61403292, -0.53866595, -0.37687820,\n           -0.15056682,  0.10963795]],\n\n         [[-0.57839578, -1.24311090, -1.70923805, -1.91368628, -1.82878685,\n           -1.46603012, -0.87451345],\n          [-0.13429575,  0.65443802,  1.38493824,  1.95833015,  2.29701328,\n            2.35514569,  2.12485957],\n          [ 1.63732243,  0.95852387,  0.18033011, -0.59192705, -1.25373340,\n           -1.71551025, -1.91476321],\n          [-1.82452083, -1.45699954, -0.86193818, -0.11988099,  0.66874492,\n            1.39719534,  1.96688509],\n          [ 2.30070376,  2.35347390,  2.11805081,  1.62630141,  0.94477654,\n            0.16572407, -0.60542232]]]])\nTensor(shape=[1, 2, 5, 7], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[[ 0.15817876, -0.03938901, -0.11664461, -0.05338286,  0.00621120,\n           -0.01622157, -0.09431292],\n          [-0.10107792,  0.06049210,  0.22000670,  0.15546611, -0.04018566,\n           -0.17750233, -0.20339154],\n          [-0.11852311,  0.06527557,  0.21916276,  0.15496610, -0.04246718,\n           -0.11635949, -0.05184295],\n          [ 0.00661218, -0.01740014, -0.09558932, -0.09959029,  0.06438702,\n            0.22108696,  0.15234801],\n          [-0.04361914, -0.17898308, -0.20284598, -0.11589298,  0.06903677,\n            0.22029047,  0.15170132]],\n\n         [[ 0.11687554,  0.32661474,  0.12964390, -0.04178877,  0.03475478,\n            0.26899514,  0.27340856],\n          [-0.22236359, -0.68066245, -0.46186897,  0.12507628,  0.52405334,\n            0.58937401,  0.32306784],\n          [-0.23330306, -0.67800373, -0.46120375,  0.12573643,  0.32544228,\n            0.12506895, -0.04280427],\n          [ 0.03840974,  0.27266818,  0.26858065, -0.23397115, -0.68333423,\n           -0.45227370,  0.13518803],\n          [ 0.52824926,  0.58751988,  0.31497851, -0.24450193, -0.68088245,\n           -0.45117897,  0.13443588]]]])\n'

EXPECTED_INORM_26 = 'InstanceNorm1D(num_features=3, epsilon=1e-05)\n[Parameter containing:\nTensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [1., 1., 1.]), Parameter containing:\nTensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [0., 0., 0.])]\nTensor(shape=[2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[-1.14100766, -0.63527435,  0.28942209,  1.48685980],\n         [-1.29918444, -0.48892036,  0.40701339,  1.38109171],\n         [-1.31754827, -0.47105753,  0.42386809,  1.36473656]],\n\n        [[-1.32481122, -0.46392012,  0.43075365,  1.35797775],\n         [-1.32870841, -0.46007365,  0.43449956,  1.35428035],\n         [-1.33113933, -0.45766851,  0.43685612,  1.35194778]]])\nTensor(shape=[2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[-0.12325126,  0.10087394,  0.09170739, -0.06933000],\n         [-0.01240403,  0.01176307,  0.01154811, -0.01090724],\n         [-0.00529471,  0.00513215,  0.00507869, -0.00491589]],\n\n        [[-0.00308762,  0.00302075,  0.00299827, -0.00293141],\n         [-0.00208044,  0.00204323,  0.00203279, -0.00199524],\n         [-0.00152404,  0.00149857,  0.00149395, -0.00146791]]]) Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [8.87567139, 8.94011593, 8.94268894]) Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [60. , 92. , 124.])\nInstanceNorm2D(num_features=2, epsilon=1e-05)\nweight_attr and bias_attr must be set to False at the same time in InstanceNorm\nValueError expected 2D or 3D input (got 4D input)\nTensor(shape=[1, 2, 5, 7], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[[ 0.09985516,  0.35942215,  0.58385789,  0.74278617,  0.81469673,\n            0.78985691,  0.67162853],\n          [ 0.47601318,  0.22948682, -0.03458457, -0.28046036, -0.47486219,\n           -0.59147859, -0.61452633],\n          [-0.54088575, -0.38052395, -0.15514520,  0.10474667,  0.36397648,\n            0.58745897,  0.74494636],\n          [ 0.81512368,  0.78849274,  0.66865790,  0.47183841,  0.22467273,\n           -0.03938640, -0.28459987],\n          [-0.47777954, -0.59277856, -0.61403292, -0.53866595, -0.37687820,\n           -0.15056685,  0.10963795]],\n\n         [[-0.57839578, -1.24311090, -1.70923805, -1.91368628, -1.82878685,\n           -1.46603012, -0.87451345],\n          [-0.13429575,  0.65443802,  1.38493824,  1.95833015,  2.29701352,\n            2.35514569,  2.12485957],\n          [ 1.63732243,  0.95852393,  0.18033011, -0.59192705, -1.25373340,\n           -1.71551061, -1.91476321],\n          [-1.82452083, -1.45699954, -0.86193794, -0.11988099,  0.66874492,\n            1.39719534,  1.96688509],\n          [ 2.30070376,  2.35347414,  2.11805081,  1.62630141,  0.94477654,\n            0.16572407, -0.60542232]]]])\nTensor(shape=[1, 2, 5, 7], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[[[ 0.15817876, -0.03938901, -0.11664463, -0.05338286,  0.00621120,\n           -0.01622151, -0.09431289],\n          [-0.10107794,  0.06049209,  0.22000670,  0.15546617, -0.04018559,\n           -0.17750235, -0.20339154],\n          [-0.11852320,  0.06527557,  0.21916276,  0.15496610, -0.04246719,\n           -0.11635950, -0.05184295],\n          [ 0.00661226, -0.01740014, -0.09558935, -0.09959029,  0.06438702,\n            0.22108695,  0.15234798],\n          [-0.04361915, -0.17898302, -0.20284598, -0.11589299,  0.06903677,\n            0.22029045,  0.15170133]],\n\n         [[ 0.11687551,  0.32661480,  0.12964395, -0.04178873,  0.03475474,\n            0.26899517,  0.27340856],\n          [-0.22236359, -0.68066239, -0.46186897,  0.12507625,  0.52405357,\n            0.58937401,  0.32306784],\n          [-0.23330308, -0.67800373, -0.46120378,  0.12573642,  0.32544234,\n            0.12506877, -0.04280423],\n          [ 0.03840974,  0.27266821,  0.26858062, -0.23397116, -0.68333423,\n           -0.45227379,  0.13518800],\n          [ 0.52824926,  0.58752006,  0.31497845, -0.24450195, -0.68088251,\n           -0.45117897,  0.13443589]]]])\n'

SRC_INORM = "import paddle\nimport paddle.nn as nn, paddle.nn.functional as F\nm = nn.InstanceNorm1D(3); print(m); print(m.parameters())\nx = paddle.arange(24, dtype='float32').reshape([2, 3, 4]) ** 1.5\nx.stop_gradient = False\ny = m(x); print(y); (y * paddle.arange(24, dtype='float32').reshape([2, 3, 4])).sum().backward(); print(x.grad, m.scale.grad, m.bias.grad)\nprint(nn.InstanceNorm2D(2, weight_attr=False, bias_attr=False))\ntry:\n    nn.InstanceNorm2D(2, weight_attr=False)\nexcept AssertionError as e:\n    print(e)\ntry:\n    m(paddle.ones([2, 3, 4, 5]))\nexcept Exception as e:\n    print(type(e).__name__, e)\n# 35 positions a row: Eigen's 8-lane sums (4 packets and 3 left over)\nz = (paddle.arange(70, dtype='float32').reshape([1, 2, 5, 7]) * 0.37).sin() * 3 + 1\nz.stop_gradient = False\nw = paddle.to_tensor([0.5, -1.5])\nout = F.instance_norm(z, weight=w, bias=paddle.to_tensor([0.1, 0.2]))\nprint(out)\n(out * z.detach().cos()).sum().backward()\nprint(z.grad)\n"


EXPECTED_EXPO_3 = 'Tensor(shape=[6], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.84213495, 0.25619337, 0.17782098, 0.39445043, 0.14090332, 0.43236816])\nTensor(shape=[2, 3], dtype=float64, place=Place(cpu), stop_gradient=True,\n       [[2.52640510, 0.76858014, 0.53346294],\n        [1.18335135, 0.42271000, 1.29710444]])\nTensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.62452155, 1.91916418, 1.10041606, 1.73400140]) Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.62452155, 1.91916418, 1.10041606, 1.73400140])\nTensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       562.55737305) Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       4.46578598) Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       0.00007623)\n'

EXPECTED_EXPO_26 = 'Tensor(shape=[6], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.84213495, 0.25619337, 0.17782098, 0.39445043, 0.14090332, 0.43236816])\nTensor(shape=[2, 3], dtype=float64, place=Place(cpu), stop_gradient=True,\n       [[2.52640510, 0.76858014, 0.53346294],\n        [1.18335135, 0.42271000, 1.29710444]])\nTensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.62452155, 1.91916418, 1.10041606, 1.73400140]) Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.62452155, 1.91916418, 1.10041606, 1.73400140])\nTensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       562.55737305) Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       4.46578598) Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       0.00007623)\n'

EXPECTED_BERN3_3 = 'Tensor(shape=[8], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.92005408, 0.53632903, 0.41342980, 0.69374931, 0.34473136, 0.72667795,\n        0.74902534, 0.70921999])\nTensor(shape=[8], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.92005408, 0.53632903, 0.41342980, 0.69374931, 0.34473136, 0.72667795,\n        0.74902534, 0.70921999])\nTensor(shape=[8], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0., 0., 0., 0., 0., 0., 0., 0.])\nTensor(shape=[8], dtype=float64, place=Place(cpu), stop_gradient=True,\n       [0., 1., 1., 0., 1., 0., 0., 0.])\nTensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [3.60555124, 3.16227770, 4.12310553])\n'

SRC_EXPO = "import paddle\npaddle.seed(5); print(paddle.empty([6]).exponential_(3.0))\npaddle.seed(5); print(paddle.zeros([2, 3], dtype='float64').exponential_())\npaddle.seed(11); w = paddle.ones([4]); print(w.exponential_(0.5), w)\npaddle.seed(12); v = paddle.ones([1000]).exponential_(1.7); print(v.sum(), v.max(), v.min())\n"

SRC_BERN3 = "import paddle\npaddle.seed(5); print(paddle.rand([8]))\npaddle.seed(5); print(paddle.zeros([8]).uniform_(0.0, 1.0))\npaddle.seed(5); print(paddle.zeros([8]).bernoulli_(0.3))\npaddle.seed(5); print(paddle.zeros([8], dtype='float64').bernoulli_(paddle.full([8], 0.6, 'float64')))\na = paddle.to_tensor([[0., 1.], [2., 4.], [3., 0.]]); print(paddle.pdist(a))\n"


EXPECTED_SDPA_3 = 'Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[0.        , 0.12890498, 0.25780997, 0.38671494],\n        [0.        , 0.15925770, 0.31851539, 0.47777307],\n        [0.        , 0.10945588, 0.21891177, 0.32836765]])\nTensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[1.        , 1.25000000, 1.50000000, 1.75000000],\n        [0.49218810, 0.61523509, 0.73828214, 0.86132920],\n        [0.61508787, 0.76885986, 0.92263180, 1.07640374]])\nTensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[2.        , 2.25000000, 2.50000000, 2.75000000],\n        [2.        , 2.25000000, 2.50000000, 2.75000000],\n        [2.        , 2.25000000, 2.50000000, 2.75000000]])\npaddle.Size([3, 4, 4])\n'

EXPECTED_SDPA_26 = 'Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[0.        , 0.12890498, 0.25780997, 0.38671494],\n        [0.        , 0.15925770, 0.31851539, 0.47777307],\n        [0.        , 0.10945588, 0.21891177, 0.32836765]])\nNotImplementedError (Unimplemented) Softmax mask fuse op only supports GPU now.\n  [Hint: Expected is_gpu_place == true, but received is_gpu_place:0 != true:1.] (at /paddle/paddle/phi/kernels/fusion/cpu/fused_softmax_mask_upper_triangle_kernel.cc:30)\n\nRuntimeError (NotFound) The kernel `flash_attn` is not registered.\n  [Hint: Expected iter != kernels_.end(), but received iter == kernels_.end().] (at /paddle/paddle/phi/core/kernel_factory.cc:225)\n\nIndexError list index out of range\n'

SRC_SDPA = 'import paddle\nimport paddle.nn.functional as F\n# values in quarters and head_dim 4 (scale 0.5): the scores are exact, and the second key\'s\n# values are 0, so each output is one product: the same bits whatever the summation order\nq = (paddle.arange(48, dtype=\'float32\').reshape([1, 3, 4, 4]) % 7 - 3) / 4\nk = (paddle.arange(32, dtype=\'float32\').reshape([1, 2, 4, 4]) % 5 - 2) / 4\nv = paddle.concat([paddle.arange(16, dtype=\'float32\').reshape([1, 1, 4, 4]) / 4 - 1,\n                   paddle.zeros([1, 1, 4, 4])], axis=1)\nprint(F.scaled_dot_product_attention(q, k, v)[0, :, 1])\ntry:\n    print(F.scaled_dot_product_attention(q, k, v, is_causal=True)[0, :, 2])\nexcept NotImplementedError as e:\n    print(\'NotImplementedError\', e)\ntry:\n    print(F.scaled_dot_product_attention(q, k, v, attn_mask=paddle.to_tensor([[True, False]] * 3))[0, :, 3])\nexcept RuntimeError as e:\n    print(\'RuntimeError\', e)\ntry:\n    print(F.scaled_dot_product_attention(q[0], k[0], v[0]).shape)\nexcept IndexError as e:\n    print("IndexError", e)\n'


EXPECTED_TRELU_3 = 'True Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.        , 1.50000000, 0.        , 0.        ])\nTensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.        , 1.50000000, 0.        , 3.        ]) 1\n'

EXPECTED_TRELU_26 = 'True Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.        , 1.50000000, -0.       , 0.        ])\nTensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.        , 1.50000000, -0.       , 3.        ]) 1\n'

EXPECTED_FUNC3_3 = 'Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [2., 4.]) Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [2., 2.])\n'

SRC_TRELU = 'import paddle\nimport paddle.nn.functional as F\nx = paddle.to_tensor([0.5, 1.5, -2.0, 1.0]); r = F.thresholded_relu_(x); print(r is x, x)\ny = paddle.to_tensor([0.5, 1.5, -2.0, 3.0]); print(F.thresholded_relu_(y, 1.0), y.inplace_version)\n'

SRC_FUNC3 = 'import paddle\nclass Double(paddle.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x * 2\n    @staticmethod\n    def backward(ctx, g):\n        return g * 2\nx = paddle.to_tensor([1.0, 2.0], stop_gradient=False)\ny = Double.apply(x); y.sum().backward(); print(y, x.grad)\n'


EXPECTED_FACT3_3 = "Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [1., 2.]) paddle.Size([2, 3]) paddle.float32\nTensor(shape=[1, 1], dtype=float64, place=Place(cpu), stop_gradient=True,\n       [[1.50000000]]) <class 'paddle.tensor.creation.dtype_tensor_factory.<locals>._DtypeTensorFactory'>\nFalse Tensor(shape=[0], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [])\nValueError (InvalidArgument) We support construct Tensor from numpy value or tensor(Tensor or phi::DenseTensor) with python args and kwargs by this initializer, but the first argument should be PyArray or Tensor or phi::DenseTensor. Please check your input first and make sure you call the existed constructor. (at /paddle/paddle/fluid/pybind/eager.cc:1069)\n\nTensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,\n       [True , False]) paddle.uint8 paddle.int8 paddle.float16 paddle.bfloat16 paddle.int16 paddle.int32\nTensor(shape=[3], dtype=int32, place=Place(cpu), stop_gradient=True,\n       [2 , 4 , 48]) Tensor(shape=[3], dtype=int32, place=Place(cpu), stop_gradient=True,\n       [2 , 4 , 48])\nTensor(shape=[3], dtype=int32, place=Place(cpu), stop_gradient=True,\n       [-2 , -3 , -25]) Tensor(shape=[3], dtype=int32, place=Place(cpu), stop_gradient=True,\n       [-2 , -3 , -25])\n"

SRC_FACT3 = "import paddle\nprint(paddle.FloatTensor([1, 2]), paddle.LongTensor(2, 3).shape, paddle.FloatTensor(2).dtype)\nprint(paddle.DoubleTensor([[1.5]]), paddle.FloatTensor)\nprint(isinstance(paddle.to_tensor([1.]), paddle.FloatTensor), paddle.FloatTensor())\ntry: paddle.FloatTensor('a')\nexcept Exception as e: print(type(e).__name__, e)\nprint(paddle.BoolTensor([1, 0]), paddle.ByteTensor([1]).dtype, paddle.CharTensor([1]).dtype, paddle.HalfTensor([1]).dtype, paddle.BFloat16Tensor([1]).dtype, paddle.ShortTensor([1]).dtype, paddle.IntTensor([1]).dtype)\nx = paddle.to_tensor([1, 2, 12], dtype='int32')\nprint(x.bitwise_left_shift_(paddle.to_tensor([1, 1, 2], dtype='int32')), x)\nprint(paddle.bitwise_invert_(x), x.bitwise_right_shift_(paddle.to_tensor([1, 1, 1], dtype='int32')))\n"


EXPECTED_DROP1D_3 = 'Tensor(shape=[2, 4, 3], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[[0., 0., 0.],\n         [2., 2., 2.],\n         [0., 0., 0.],\n         [2., 2., 2.]],\n\n        [[0., 0., 0.],\n         [2., 2., 2.],\n         [0., 0., 0.],\n         [2., 2., 2.]]])\nTensor(shape=[4, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[1.33333337, 1.33333337],\n        [1.33333337, 1.33333337],\n        [1.33333337, 1.33333337],\n        [1.33333337, 1.33333337]])\nTensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       24.)\nValueError dropout probability must be in [0, 1], got 1.5\nRuntimeError dropout1d expects 2D or 3D input, got 1D\n'

SRC_DROP1D = 'import paddle\nimport paddle.nn.functional as F\npaddle.seed(3)\nx = paddle.ones([2, 4, 3])\nprint(F.dropout1d(x, 0.5))\nprint(F.dropout1d(paddle.ones([4, 2]), 0.25))\nprint(F.dropout1d(x, 0.5, training=False).sum())\nfor bad in ("F.dropout1d(x, 1.5)", "F.dropout1d(paddle.ones([2]), 0.5)"):\n    try:\n        eval(bad)\n    except Exception as e:\n        print(type(e).__name__, e)\n'


@pytest.mark.parametrize("src,profile,expected", [
    (SRC_METHODS3, '3', EXPECTED_METHODS3_3),
    (SRC_TOP3, '3', EXPECTED_TOP3_3),
    (SRC_MULTINOMIAL, '3', EXPECTED_MULTINOMIAL_3),
    (SRC_MULTINOMIAL, '2.6', EXPECTED_MULTINOMIAL_26),
    (SRC_NN3, '3', EXPECTED_NN3_3),
    (SRC_NN26, '2.6', EXPECTED_NN26_26),
    (SRC_INORM, '3', EXPECTED_INORM_3),
    (SRC_INORM, '2.6', EXPECTED_INORM_26),
    (SRC_EXPO, '3', EXPECTED_EXPO_3),
    (SRC_EXPO, '2.6', EXPECTED_EXPO_26),
    (SRC_BERN3, '3', EXPECTED_BERN3_3),
    (SRC_SDPA, '3', EXPECTED_SDPA_3),
    (SRC_SDPA, '2.6', EXPECTED_SDPA_26),
    (SRC_TRELU, '3', EXPECTED_TRELU_3),
    (SRC_TRELU, '2.6', EXPECTED_TRELU_26),
    (SRC_FUNC3, '3', EXPECTED_FUNC3_3),
    (SRC_FACT3, '3', EXPECTED_FACT3_3),
    (SRC_DROP1D, '3', EXPECTED_DROP1D_3),
], ids=['methods3-3', 'top3-3', 'multinomial-3', 'multinomial-26', 'nn3-3', 'nn26-26', 'instance_norm-3', 'instance_norm-26', 'exponential_-3', 'exponential_-26', 'bernoulli_pdist-3', 'sdpa-3', 'sdpa-26', 'thresholded_relu_-3', 'thresholded_relu_-26', 'autograd_Function-3', 'dtype_tensors_bitwise-3', 'dropout1d-3'])
def test_script_prints_what_real_paddle_printed(src, profile, expected, tmp_path):
    assert run_source(src, profile, tmp_path) == expected


# ------------------------------------------------------------------ names not emulated
@pytest.mark.parametrize("profile", ["3", "2.6"])
def test_not_emulated_names_say_so(profile):
    """A name the emulated Paddle has (in either version: ``paddle.inference``, ``Tensor.is_dist``) and
    gradrepl lacks raises AttributeError naming it as not emulated; an unknown name raises
    Paddle's plain message; ``hasattr`` stays False for both."""
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile(profile)
    x = paddle.ones([2])
    with pytest.raises(AttributeError, match=r"^module 'paddle' has no attribute 'inference' "
                       r"\(gradrepl's paddle does not emulate paddle.inference: the inference"):
        paddle.inference  # noqa: B018
    with pytest.raises(AttributeError, match=r"^module 'paddle' has no attribute 'nope'$"):
        paddle.nope  # noqa: B018
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute 'is_dist' "
                       r"\(gradrepl's paddle does not emulate paddle.Tensor.is_dist"):
        x.is_dist  # noqa: B018
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute 'nope'$"):
        x.nope  # noqa: B018
    with pytest.raises(AttributeError, match="does not emulate paddle.nn.quant"):
        paddle.nn.quant  # noqa: B018
    assert not hasattr(x, "is_dist") and not hasattr(paddle, "inference")


def test_not_emulated_follows_the_version():
    """``paddle.get_autocast_cpu_dtype`` is Paddle 3 only (not emulated) (absent from real 2.6.2's dir): under 2.6 the
    plain message, under 3 the not-emulated one; the 3-only Tensor methods added here are plain
    AttributeErrors under 2.6 (``x.mT``), as in real 2.6.2."""
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile("2.6")
    with pytest.raises(AttributeError, match=r"^module 'paddle' has no attribute 'get_autocast_cpu_dtype'$"):
        paddle.get_autocast_cpu_dtype  # noqa: B018
    assert not hasattr(paddle.ones([2, 2]), "mT")
    assert not hasattr(paddle.nn, "Conv2d") and hasattr(paddle.nn, "Maxout")
    profiles.set_profile("3")
    with pytest.raises(AttributeError,
                       match="does not emulate paddle.get_autocast_cpu_dtype"):
        paddle.get_autocast_cpu_dtype  # noqa: B018
    assert paddle.ones([2, 3]).mT.shape == [3, 2]
    assert paddle.nn.Conv2d is paddle.nn.Conv2D


def test_names_table_is_real_paddles():
    """The generated table holds each version's public names (recorded from real Paddle here:
    626 names in dir(paddle) for 3.3.1, 454 for 2.6.2)."""
    from gradrepl.paddle._paddle_names import NAMES

    assert len(NAMES["3"]["paddle"]) == 626 and len(NAMES["2.6"]["paddle"]) == 454
    assert "fft" in NAMES["3"]["paddle.fft"] and "as_tensor" not in NAMES["2.6"]["paddle"]


def test_eigen_row_sums_order():
    """The 8-lane order on float32 (independent computation: lanes summed column by column, the
    tail added one by one, lanes folded pairwise) and 4 lanes on float64."""
    import numpy as np

    from gradrepl.engine.ops.paddle_breadth import eigen_row_sums

    rng = np.random.default_rng(3)
    x = (rng.standard_normal((3, 21)) * 1e3).astype(np.float32)
    lanes = np.zeros((3, 8), np.float32)
    for j in (0, 8):
        lanes = lanes + x[:, j:j + 8]
    tail = np.zeros(3, np.float32)
    for j in range(16, 21):
        tail = tail + x[:, j]
    half = lanes[:, :4] + lanes[:, 4:]
    quarter = half[:, :2] + half[:, 2:]
    expected = tail + (quarter[:, 0] + quarter[:, 1])
    assert np.array_equal(eigen_row_sums(x), expected)
    d = rng.standard_normal((2, 6))
    lanes = d[:, :4]
    expected = (d[:, 4] + d[:, 5]) + ((lanes[:, 0] + lanes[:, 2]) + (lanes[:, 1] + lanes[:, 3]))
    assert np.array_equal(eigen_row_sums(d), expected)
    assert np.array_equal(eigen_row_sums(x[:, :5]), x[:, 0] + x[:, 1] + x[:, 2] + x[:, 3] + x[:, 4])


# ------------------------------------------------------------------ docstrings
def _doc_examples(doc):
    """The example's statements and the printed lines after each (docstrings.py's layout)."""
    steps, lines = [], doc.split("Examples:", 1)[1].splitlines()
    for line in lines:
        body = line[8:]
        if body.startswith(">>> "):
            steps.append([body[4:], []])
        elif steps and line.strip():
            steps[-1][1].append(body)
    return steps


def test_docstrings_layout_and_examples_print_what_paddle_printed(tmp_path):
    """help(paddle.ones) shows Paddle's sections; each example, run by gradrepl under the
    Paddle 3 profile, prints the output written under it (recorded from real Paddle 3.3.1)."""
    import gradrepl.paddle as paddle
    from gradrepl.paddle.docstrings import DOCSTRINGS

    assert len(DOCSTRINGS) == 30
    for name, doc in DOCSTRINGS.items():
        assert getattr(paddle, name).__doc__ == doc
        for section in ("Args:", "Returns:", "Examples:", ">>> import paddle"):
            assert section in doc, (name, section)
        steps = _doc_examples(doc)
        src = "\n".join(stmt for stmt, _ in steps) + "\n"
        expected = "".join(line.rstrip() + "\n" for _, out in steps for line in out)
        got = run_source(src, "3", tmp_path)
        assert "".join(line.rstrip() + "\n" for line in got.splitlines()) == expected, name


SRC_PROGRESSBAR = '''import paddle
from paddle.hapi.progressbar import ProgressBar
print(ProgressBar)
bar = ProgressBar(num=5, verbose=2)
for i in range(1, 6):
    bar.update(i, [("loss", 0.5 / i), ("acc", [0.25 * i])])
bar = ProgressBar(verbose=2, name="batch")
bar.update(3, [("loss", 1e-5)])
try:
    ProgressBar(num=0)
except TypeError as e:
    print(e)
'''
# real Paddle 3.3.1 and 2.6.2 printed this (the speeds masked: they are timings)
EXPECTED_PROGRESSBAR = """<class 'paddle.hapi.progressbar.ProgressBar'>
step 1/5 - loss: 0.5000 - acc: 0.2500 - T/step
step 2/5 - loss: 0.2500 - acc: 0.5000 - T/step
step 3/5 - loss: 0.1667 - acc: 0.7500 - T/step
step 4/5 - loss: 0.1250 - acc: 1.0000 - T/step
step 5/5 - loss: 0.1000 - acc: 1.2500 - T/step
batch   3 - loss: 1.0000e-05 - T/batch
num should be None or integer (> 0)
"""


@pytest.mark.parametrize("profile", ["3", "2.6"])
def test_hapi_progressbar_module(profile, tmp_path):
    import re

    out = run_source(SRC_PROGRESSBAR, profile, tmp_path)
    assert re.sub(r" - \d+(us|ms|s)/(step|batch)", r" - T/\2", out) == EXPECTED_PROGRESSBAR


def test_import_paddle_fft(tmp_path):
    # paddle.fft is emulated (tests/test_paddle_fft.py); real 3.3.1 prints the same
    src = ("import paddle.fft\nimport paddle\nprint(hasattr(paddle, 'fft'), "
           "paddle.fft.rfftfreq(4).numpy().tolist())\n")
    assert run_source(src, "3", tmp_path) == "True [0.0, 0.25, 0.5]\n"


def test_static_names_not_emulated_say_so():
    """``paddle.static.accuracy`` (in real Paddle 3.3.1 and 2.6.2's dir) says it is not
    emulated; an unknown name keeps Paddle's plain message."""
    import gradrepl.paddle as paddle

    with pytest.raises(AttributeError, match="does not emulate paddle.static.accuracy"):
        paddle.static.accuracy  # noqa: B018
    with pytest.raises(AttributeError, match=r"^module 'paddle.static' has no attribute 'nope'$"):
        paddle.static.nope  # noqa: B018


def test_rms_norm_is_gpu_only_as_in_paddle_3(tmp_path):
    """Real Paddle 3.3.1's CPU build has no rms_norm kernel: its RuntimeError (recorded here)."""
    src = ("import paddle\nimport paddle.nn.functional as F\ntry:\n"
           "    F.rms_norm(paddle.ones([2, 3]), [3])\nexcept RuntimeError as e:\n"
           "    print(repr(str(e)))\n")
    assert run_source(src, "3", tmp_path) == (
        "'(NotFound) The kernel `rms_norm` is not registered.\\n  [Hint: Expected iter != "
        "kernels_.end(), but received iter == kernels_.end().] (at /paddle/paddle/phi/core/"
        "kernel_factory.cc:273)\\n'\n")


def _gap_tool():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "paddle_api_gaps.py"
    spec = importlib.util.spec_from_file_location("paddle_api_gaps", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gap_tool_skips_the_families_not_emulated_and_lists_gradrepls_names():
    """tools/paddle_api_gaps.py without real Paddle: its skip list drops device, sparse and
    distributed names and keeps the API ones; its gradrepl dump (the profile in force) holds
    the names added here and resolves the lazy ones it is asked about."""
    from gradrepl.paddle import profiles

    tool = _gap_tool()
    for name in ("cuda", "is_compiled_with_xpu", "sparse_coo_tensor", "DataParallel", "flash_attn"):
        assert tool.SKIP.search(name), name
    for name in ("multinomial", "scaled_dot_product_attention", "Conv2d", "mT", "cond"):
        assert not tool.SKIP.search(name), name
    import sys

    profiles.set_profile("3")
    had = "paddle" in sys.modules
    try:
        got = tool.dump("gradrepl", {"paddle.nn": ["Conv2d", "quant"]})
    finally:
        if not had:  # the dump aliases gradrepl's paddle as "paddle": leave no trace
            sys.modules.pop("paddle", None)
    assert "multinomial" in got["paddle"] and "mT" in got["paddle.Tensor"]
    assert "Conv2d" in got["paddle.nn"] and "quant" not in got["paddle.nn"]
    assert "rfft" in got["paddle.fft"]  # (emulated since issue 28's paddle.fft)
