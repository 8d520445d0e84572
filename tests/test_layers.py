"""paddle.nn.Layer, Linear, the containers and paddle.nn.initializer.

The scripts in ``CASES`` print layer reprs, parameter names, structure and values that do not
depend on random numbers; their expected output is what real Paddle printed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import gradrepl.paddle as paddle
import gradrepl.paddle.nn as nn
from gradrepl.paddle.nn.layer.layers import reset_names

from conftest import reset_gradrepl_state
from helpers import run_source

# scripts and what Paddle 3.3.1 / 2.6.2 printed (the second string: 2.6.2's when it differs)
CASES = {
    'layer_a': (
        'import paddle, numpy as np\nimport paddle.nn as nn\npaddle.seed(1)\nl1 = nn.Linear(2, 3)\nl2 = nn.Linear(3, 1, bias_attr=False)\nprint(l1.weight.name, l1.bias.name, l2.weight.name, l2.bias)\ns = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2), nn.Sigmoid(), nn.Dropout(0.2), nn.Softmax(), nn.Tanh(), nn.Flatten())\nprint(s)\nprint([n for n, p in s.named_parameters()])\nprint(list(s.state_dict().keys()))\nll = nn.LayerList([nn.Linear(2,2), nn.ReLU()])\nprint(ll)\nprint(nn.CrossEntropyLoss(), nn.MSELoss(), nn.L1Loss())\nclass Net(nn.Layer):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\n        self.w = self.create_parameter([2, 3])\n        self.register_buffer("buf", paddle.ones([2]))\n        self.act = nn.LeakyReLU(0.2)\n    def forward(self, x):\n        return self.act(self.fc(x))\nn = Net()\nprint(n)\nprint(n.w.name, n.w.dtype, n.w.stop_gradient, n.w.trainable)\nprint([k for k in n.state_dict().keys()])\nprint([name for name, _ in n.named_sublayers()], [type(c).__name__ for c in n.children()], n.training)\nn.eval(); print(n.training, n.fc.training)\nprint(n.parameters()[0].name, len(n.parameters()))\nprint(type(n.state_dict()).__name__)\nprint(repr(nn.Linear(2,2).weight.name))\np = nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name="myw"))\nprint(p.weight.name, p.bias.name)\nprint(nn.Linear(3,4).extra_repr())\ne = nn.ELU(); g = nn.GELU(); print(e, g, nn.LeakyReLU(), nn.Softplus(), nn.Hardtanh(), nn.LogSoftmax(), nn.ReLU6(), nn.Swish(), nn.BCELoss(), nn.BCEWithLogitsLoss(), nn.NLLLoss(), nn.SmoothL1Loss(), nn.KLDivLoss())\n',
        "linear_0.w_0 linear_0.b_0 linear_1.w_0 None\nSequential(\n  (0): Linear(in_features=4, out_features=5, dtype=float32)\n  (1): ReLU()\n  (2): Linear(in_features=5, out_features=2, dtype=float32)\n  (3): Sigmoid()\n  (4): Dropout(p=0.2, axis=None, mode=upscale_in_train, inplace=False)\n  (5): Softmax(axis=-1)\n  (6): Tanh()\n  (7): Flatten()\n)\n['0.weight', '0.bias', '2.weight', '2.bias']\n['0.weight', '0.bias', '2.weight', '2.bias']\nLayerList(\n  (0): Linear(in_features=2, out_features=2, dtype=float32)\n  (1): ReLU()\n)\nCrossEntropyLoss() MSELoss() L1Loss()\nNet(\n  (fc): Linear(in_features=2, out_features=2, dtype=float32)\n  (act): LeakyReLU(negative_slope=0.2)\n)\nnet_0.w_0 paddle.float32 False True\n['w', 'buf', 'fc.weight', 'fc.bias']\n['fc', 'act'] ['Linear', 'LeakyReLU'] True\nFalse False\nnet_0.w_0 3\nOrderedDict\n'linear_6.w_0'\nmyw linear_7.b_0\nin_features=3, out_features=4, dtype=float32\nELU(alpha=1.0) GELU(approximate=False) LeakyReLU(negative_slope=0.01) Softplus(beta=1, threshold=20) Hardtanh(min=-1.0, max=1.0) LogSoftmax(axis=-1) ReLU6() Swish() BCELoss() BCEWithLogitsLoss() NLLLoss() SmoothL1Loss() KLDivLoss()\n",
        "linear_0.w_0 linear_0.b_0 linear_1.w_0 None\nSequential(\n  (0): Linear(in_features=4, out_features=5, dtype=float32)\n  (1): ReLU()\n  (2): Linear(in_features=5, out_features=2, dtype=float32)\n  (3): Sigmoid()\n  (4): Dropout(p=0.2, axis=None, mode=upscale_in_train)\n  (5): Softmax(axis=-1)\n  (6): Tanh()\n  (7): Flatten()\n)\n['0.weight', '0.bias', '2.weight', '2.bias']\n['0.weight', '0.bias', '2.weight', '2.bias']\nLayerList(\n  (0): Linear(in_features=2, out_features=2, dtype=float32)\n  (1): ReLU()\n)\nCrossEntropyLoss() MSELoss() L1Loss()\nNet(\n  (fc): Linear(in_features=2, out_features=2, dtype=float32)\n  (act): LeakyReLU(negative_slope=0.2)\n)\nnet_0.w_0 paddle.float32 False True\n['w', 'buf', 'fc.weight', 'fc.bias']\n['fc', 'act'] ['Linear', 'LeakyReLU'] True\nFalse False\nnet_0.w_0 3\nOrderedDict\n'linear_6.w_0'\nmyw linear_7.b_0\nin_features=3, out_features=4, dtype=float32\nELU(alpha=1.0) GELU(approximate=False) LeakyReLU(negative_slope=0.01) Softplus(beta=1, threshold=20) Hardtanh(min=-1.0, max=1.0) LogSoftmax(axis=-1) ReLU6() Swish() BCELoss() BCEWithLogitsLoss() NLLLoss() SmoothL1Loss() KLDivLoss()\n"),
    'layer_c': (
        "import paddle\nimport numpy as np\nimport paddle.nn as nn\nC = nn.initializer.Constant\nclass Net(nn.Layer):\n    def __init__(self):\n        super().__init__()\n        self.l1 = nn.Linear(3, 4, weight_attr=paddle.ParamAttr(initializer=C(0.1)), bias_attr=paddle.ParamAttr(initializer=C(-0.2)))\n        self.act = nn.ReLU()\n        self.l2 = nn.Linear(4, 2, weight_attr=paddle.ParamAttr(initializer=nn.initializer.Assign(np.arange(8, dtype='float32').reshape(4, 2) / 10)), bias_attr=False)\n        self.drop = nn.Dropout(0.5)\n    def forward(self, x):\n        return self.drop(self.l2(self.act(self.l1(x))))\nnet = Net()\nprint(net)\nfor n, p in net.named_parameters():\n    print(n, p.name, p.shape, p.stop_gradient, p.trainable)\nnet.eval()\nprint(net.training, net.drop.training)\nx = paddle.to_tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])\ny = net(x)\nprint(y)\ny.sum().backward()\nprint(net.l1.weight.grad)\nprint(net.l2.weight.grad)\nnet.clear_gradients()\nprint(net.l1.weight.grad)\nnet.train()\nprint(net.training)\nsd = net.state_dict()\nprint(list(sd.keys()))\nnet2 = Net()\nprint(net2.l1.weight.name, net2.l2.weight.name)\nmissing, unexpected = net2.set_state_dict({'l1.weight': paddle.ones([3, 4]), 'extra': paddle.ones([1])})\nprint(missing, unexpected)\nprint(net2.l1.weight)\nprint([type(l).__name__ for l in net.sublayers()])\nprint([n for n, _ in net.named_children()])\nprint(len(net.parameters()), len(list(net.children())))\nll = nn.LayerList([nn.Linear(1, 1) for _ in range(2)])\nll.append(nn.ReLU())\nprint(len(ll), type(ll[-1]).__name__)\nseq = nn.Sequential(nn.Linear(2, 2), nn.Tanh())\nprint(len(seq), type(seq[1]).__name__)\nprint(seq[0].weight.name)\np = net.create_parameter([2, 2], default_initializer=C(3.0))\nprint(p.name, p)\nnet.add_parameter('extra_p', p)\nprint([n for n, _ in net.named_parameters()])\nnet.register_buffer('buf', paddle.zeros([2]))\nprint(list(net.state_dict().keys()))\nprint(nn.Linear(2, 3, bias_attr=False).bias)\nlin = nn.Linear(2, 2, weight_attr=nn.initializer.Constant(2.0))\nprint(lin.weight)\nemb_w = paddle.ParamAttr(name='w_custom', initializer=C(0.5), trainable=False)\nl3 = nn.Linear(2, 1, weight_attr=emb_w)\nprint(l3.weight.name, l3.weight.stop_gradient, l3.bias.name)\n",
        "Net(\n  (l1): Linear(in_features=3, out_features=4, dtype=float32)\n  (act): ReLU()\n  (l2): Linear(in_features=4, out_features=2, dtype=float32)\n  (drop): Dropout(p=0.5, axis=None, mode=upscale_in_train, inplace=False)\n)\nl1.weight linear_0.w_0 paddle.Size([3, 4]) False True\nl1.bias linear_0.b_0 paddle.Size([4]) False True\nl2.weight linear_1.w_0 paddle.Size([4, 2]) False True\nFalse False\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0.48000005, 0.64000005],\n        [0.        , 0.        ]])\nTensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0.10000000, 0.50000000, 0.89999998, 1.29999995],\n        [0.20000000, 1.        , 1.79999995, 2.59999990],\n        [0.30000001, 1.50000000, 2.69999981, 3.89999986]])\nTensor(shape=[4, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0.40000004, 0.40000004],\n        [0.40000004, 0.40000004],\n        [0.40000004, 0.40000004],\n        [0.40000004, 0.40000004]])\nTensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0., 0., 0., 0.],\n        [0., 0., 0., 0.],\n        [0., 0., 0., 0.]])\nTrue\n['l1.weight', 'l1.bias', 'l2.weight']\nlinear_2.w_0 linear_3.w_0\n['l1.bias', 'l2.weight'] ['extra']\nParameter containing:\nTensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[1., 1., 1., 1.],\n        [1., 1., 1., 1.],\n        [1., 1., 1., 1.]])\n['Linear', 'ReLU', 'Linear', 'Dropout']\n['l1', 'act', 'l2', 'drop']\n3 4\n3 ReLU\n2 Tanh\nlinear_6.w_0\nnet_0.w_0 Parameter containing:\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[3., 3.],\n        [3., 3.]])\n['extra_p', 'l1.weight', 'l1.bias', 'l2.weight']\n['extra_p', 'buf', 'l1.weight', 'l1.bias', 'l2.weight']\nNone\nParameter containing:\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[2., 2.],\n        [2., 2.]])\nw_custom True linear_9.b_0\n",
        "Net(\n  (l1): Linear(in_features=3, out_features=4, dtype=float32)\n  (act): ReLU()\n  (l2): Linear(in_features=4, out_features=2, dtype=float32)\n  (drop): Dropout(p=0.5, axis=None, mode=upscale_in_train)\n)\nl1.weight linear_0.w_0 [3, 4] False True\nl1.bias linear_0.b_0 [4] False True\nl2.weight linear_1.w_0 [4, 2] False True\nFalse False\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0.48000005, 0.64000005],\n        [0.        , 0.        ]])\nTensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0.10000000, 0.50000000, 0.89999998, 1.29999995],\n        [0.20000000, 1.        , 1.79999995, 2.59999990],\n        [0.30000001, 1.50000000, 2.69999981, 3.89999986]])\nTensor(shape=[4, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0.40000004, 0.40000004],\n        [0.40000004, 0.40000004],\n        [0.40000004, 0.40000004],\n        [0.40000004, 0.40000004]])\nTensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[0., 0., 0., 0.],\n        [0., 0., 0., 0.],\n        [0., 0., 0., 0.]])\nTrue\n['l1.weight', 'l1.bias', 'l2.weight']\nlinear_2.w_0 linear_3.w_0\n['l1.bias', 'l2.weight'] ['extra']\nParameter containing:\nTensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[1., 1., 1., 1.],\n        [1., 1., 1., 1.],\n        [1., 1., 1., 1.]])\n['Linear', 'ReLU', 'Linear', 'Dropout']\n['l1', 'act', 'l2', 'drop']\n3 4\n3 ReLU\n2 Tanh\nlinear_6.w_0\nnet_0.w_0 Parameter containing:\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[3., 3.],\n        [3., 3.]])\n['extra_p', 'l1.weight', 'l1.bias', 'l2.weight']\n['extra_p', 'buf', 'l1.weight', 'l1.bias', 'l2.weight']\nNone\nParameter containing:\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[2., 2.],\n        [2., 2.]])\nw_custom True linear_9.b_0\n"),
    'layers_misc': (
        "import paddle\nimport paddle.nn as nn\nx = paddle.arange(24, dtype='float32').reshape([2, 3, 4])\nx.stop_gradient = False\nf = nn.Flatten()\ny = f(x)\nprint(y.shape, f)\nprint(nn.Flatten(0, 1)(x).shape)\n(y * 2).sum().backward()\nprint(x.grad.shape)\ns = nn.Softmax(axis=1)\nprint(s, s(paddle.to_tensor([[1.0, 2.0], [3.0, 5.0]])))\nprint(nn.Sigmoid()(paddle.to_tensor([0.0, 1.0])), nn.Tanh()(paddle.to_tensor([0.5])))\nd = nn.Dropout(0.3)\nd.eval()\nprint(d(paddle.to_tensor([1.0, 2.0])))\nprint(nn.LeakyReLU(0.2)(paddle.to_tensor([-1.0, 1.0])))\nprint(nn.ReLU6(), nn.GELU(True), nn.Hardtanh(-2.0, 2.0), nn.Softplus(2, 10))\n",
        'paddle.Size([2, 12]) Flatten()\npaddle.Size([6, 4])\npaddle.Size([2, 3, 4])\nSoftmax(axis=1) Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[0.26894143, 0.73105860],\n        [0.11920291, 0.88079703]])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.50000000, 0.73105860]) Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.46211717])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [1., 2.])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [-0.20000000,  1.        ])\nReLU6() GELU(approximate=True) Hardtanh(min=-2.0, max=2.0) Softplus(beta=2, threshold=10)\n',
        '[2, 12] Flatten()\n[6, 4]\n[2, 3, 4]\nSoftmax(axis=1) Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [[0.26894143, 0.73105860],\n        [0.11920291, 0.88079703]])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.50000000, 0.73105860]) Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.46211717])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [1., 2.])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [-0.20000000,  1.        ])\nReLU6() GELU(approximate=True) Hardtanh(min=-2.0, max=2.0) Softplus(beta=2, threshold=10)\n'),
}


@pytest.mark.parametrize("profile", ["3", "2.6"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_paddle(case, profile, tmp_path):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = run_source(CASES[case][0], profile, tmp_path)
    want = CASES[case][2] if profile == "2.6" and CASES[case][2] is not None else CASES[case][1]
    assert got == want


@pytest.fixture(autouse=True)
def fresh_names():
    reset_names()
    yield
    reset_names()


def test_names_count_per_class_and_key():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    assert (a.weight.name, a.bias.name, b.weight.name) == ("linear_0.w_0", "linear_0.b_0",
                                                           "linear_1.w_0")
    assert nn.Sequential().full_name() == "sequential_0"
    p = a.create_parameter([1])
    assert p.name == "linear_0.w_1"


def test_parameters_are_trainable_parameters():
    lin = nn.Linear(3, 2)
    assert isinstance(lin.weight, paddle.Parameter)
    assert lin.weight.shape == [3, 2] or list(lin.weight.shape) == [3, 2]
    assert lin.weight.stop_gradient is False and lin.weight.trainable is True
    assert repr(lin.weight).startswith("Parameter containing:\nTensor(shape=[3, 2]")
    assert np.all(lin.bias.numpy() == 0)


def test_xavier_uniform_default_bounds_and_seed():
    paddle.seed(11)
    w1 = nn.Linear(30, 20).weight.numpy()
    paddle.seed(11)
    w2 = nn.Linear(30, 20).weight.numpy()
    assert (w1 == w2).all()
    limit = math.sqrt(6.0 / 50)
    assert np.abs(w1).max() <= limit and np.abs(w1).max() > 0.8 * limit


def test_initializers():
    p = nn.Linear(2, 3, weight_attr=nn.initializer.Constant(0.5)).weight
    assert np.all(p.numpy() == np.float32(0.5))
    a = nn.Linear(2, 2, weight_attr=paddle.ParamAttr(
        initializer=nn.initializer.Assign(np.array([[1, 2], [3, 4]], "float32")))).weight
    assert a.numpy().tolist() == [[1, 2], [3, 4]]
    paddle.seed(1)
    k = nn.Linear(400, 300, weight_attr=nn.initializer.KaimingNormal()).weight.numpy()
    assert abs(k.std() - math.sqrt(2.0 / 400)) < 0.01 * math.sqrt(2.0 / 400) * 10
    t = nn.Linear(50, 40, weight_attr=nn.initializer.TruncatedNormal(std=0.1)).weight.numpy()
    assert np.abs(t).max() <= 0.2 + 1e-7
    u = nn.Linear(10, 10, weight_attr=nn.initializer.Uniform(-0.1, 0.3)).weight.numpy()
    assert u.min() >= -0.1 and u.max() <= 0.3
    assert nn.initializer.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))


def test_bias_attr_false_and_named_param_attr():
    lin = nn.Linear(2, 3, weight_attr=paddle.ParamAttr(name="myw", trainable=False),
                    bias_attr=False)
    assert lin.bias is None
    assert lin.weight.name == "myw" and lin.weight.stop_gradient is True
    assert [n for n, _ in lin.named_parameters()] == ["weight"]


class _Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2, weight_attr=nn.initializer.Constant(1.0))
        self.w = self.create_parameter([2, 3], default_initializer=nn.initializer.Constant(2.0))
        self.register_buffer("buf", paddle.ones([2]))
        self.tmp = paddle.zeros([1])  # a plain tensor attribute: a non-persistable buffer
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


def test_registration_order_and_state_dict():
    net = _Net()
    assert [n for n, _ in net.named_parameters()] == ["w", "fc.weight", "fc.bias"]
    assert list(net.state_dict()) == ["w", "buf", "fc.weight", "fc.bias"]
    assert [n for n, _ in net.named_sublayers()] == ["fc", "act"]
    assert repr(net) == ("_Net(\n  (fc): Linear(in_features=2, out_features=2, dtype=float32)\n"
                         "  (act): ReLU()\n)")
    other = _Net()
    with pytest.warns(UserWarning, match="Skip loading"):
        missing, unexpected = other.set_state_dict({"w": np.zeros([2, 3], "float32"), "zz": 1})
    assert missing == ["buf", "fc.weight", "fc.bias"]
    assert unexpected == ["zz"]
    assert np.all(other.w.numpy() == 0)


def test_train_eval_and_dropout_layer():
    net = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    net.eval()
    assert not net.training and not net[1].training
    x = paddle.ones([3, 2])
    assert np.allclose(net(x).numpy(), net[0](x).numpy())
    net.train()
    assert net[1].training


def test_assignment_rules():
    lin = nn.Linear(1, 1)
    with pytest.raises(TypeError):
        lin.weight = paddle.ones([1, 1])
    lin.weight = None
    assert lin.weight is None and "weight" not in [n for n, _ in lin.named_parameters()]

    class NoInit(nn.Layer):
        def __init__(self):
            self.l = nn.Linear(1, 1)

    with pytest.raises(ValueError):
        NoInit()


def test_containers():
    ll = nn.LayerList([nn.Linear(1, 1), nn.ReLU()])
    ll.append(nn.Tanh())
    ll.insert(0, nn.Sigmoid())
    assert [type(m).__name__ for m in ll] == ["Sigmoid", "Linear", "ReLU", "Tanh"]
    del ll[0]
    assert len(ll) == 3 and type(ll[-1]).__name__ == "Tanh"
    seq = nn.Sequential(("a", nn.Linear(2, 2)), ("b", nn.ReLU()))
    assert seq["a"] is seq[0] and type(seq[0:1]).__name__ == "Sequential"
    d = nn.LayerDict({"x": nn.ReLU()})
    assert "x" in d and len(d) == 1
    pl = nn.ParameterList([nn.Linear(1, 1).weight])
    assert len(list(pl)) == 1 and len(pl.parameters()) == 1


def test_forward_hooks():
    lin = nn.Linear(1, 1, weight_attr=nn.initializer.Constant(2.0))
    seen = []
    h = lin.register_forward_post_hook(lambda layer, inp, out: seen.append(out) or out * 10)
    out = lin(paddle.ones([1, 1]))
    assert float(out.item()) == 20.0 and len(seen) == 1
    h.remove()
    assert float(lin(paddle.ones([1, 1])).item()) == 2.0


def test_clear_gradients_zeroes():
    lin = nn.Linear(2, 1)
    lin(paddle.ones([1, 2])).sum().backward()
    lin.clear_gradients()
    assert np.all(lin.weight.grad.numpy() == 0)


def test_loss_layers_call_functional():
    x = paddle.to_tensor([[1.0, 2.0, 0.5]])
    y = paddle.to_tensor([2])
    assert float(nn.CrossEntropyLoss()(x, y).item()) == pytest.approx(
        float(paddle.nn.functional.cross_entropy(x, y).item()))
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"
    assert float(nn.MSELoss(reduction="sum")(x, x * 0).item()) == pytest.approx(5.25)
    assert float(nn.L1Loss()(x, x * 0).item()) == pytest.approx(3.5 / 3)


def test_reprs_follow_profile():
    reset_gradrepl_state("3")
    assert repr(nn.Dropout(0.2)) == "Dropout(p=0.2, axis=None, mode=upscale_in_train, inplace=False)"
    assert repr(nn.Silu()) == "Silu(inplace=False)"
    reset_gradrepl_state("2.6")
    assert repr(nn.Dropout(0.2)) == "Dropout(p=0.2, axis=None, mode=upscale_in_train)"
    assert repr(nn.Silu()) == "Silu()"
    reset_gradrepl_state()


def test_layer_names_follow_paddles_camel_to_snake():
    import gradrepl.paddle as paddle
    from gradrepl.paddle.nn.layer.layers import camel_to_snake

    # Paddle's rule puts no underscore between a digit and a capital: Dropout2D -> dropout2d
    assert camel_to_snake("Dropout2D") == "dropout2d"
    assert camel_to_snake("BatchNorm2D") == "batch_norm2d"
    assert camel_to_snake("AdaptiveAvgPool2D") == "adaptive_avg_pool2d"
    assert paddle.nn.Dropout2D().full_name().startswith("dropout2d_")
