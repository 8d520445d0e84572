"""A second backward through Paddle's conv2d as real Paddle's conv double grad: where the
convolution's input took no gradient (data), the path back through grad_out ends and the filter
gets no gradient (w.grad None, not zeros; conv_family._paddle_grad_out, CONV2D.double_grad_links);
with the input taking one, the full second order (unchanged). Found by a HW15-style MAML script
(inner loop by paddle.grad(create_graph=True) over conv layers on data: meta-gradients of the
first conv 0.1% off). Expected: what real Paddle 3.3.1 and 2.6.2 printed for ``_SCRIPT`` here (the
same in both); float sums of gradients as hex (conv products by MKL: compared on the recording
CPU only), None where a parameter took no gradient (compared everywhere)."""
from __future__ import annotations

import pytest

from conftest import skip_unless_mkl_path

_SCRIPT = "import numpy as np\nimport paddle\nimport paddle.nn.functional as F\nrng = np.random.RandomState(0)\nx0 = rng.rand(2, 1, 4, 4).astype('float32'); w0 = rng.randn(3, 1, 3, 3).astype('float32')\nv = paddle.to_tensor(rng.randn(2, 3, 4, 4).astype('float32'))\nfor mode in ['xw_lin_gw', 'xw_lin_gx', 'xw_tanh', 'data_lin', 'data_yy', 'data_tanh_w']:\n    x = paddle.to_tensor(x0, stop_gradient=mode.startswith('data'))\n    w = paddle.to_tensor(w0, stop_gradient=False)\n    y = F.conv2d(x, paddle.tanh(w) if mode == 'data_tanh_w' else w, padding=1)\n    loss = (y * v).sum() if 'lin' in mode else ((paddle.tanh(y) * v).sum() if mode == 'xw_tanh' else (y * y).sum())\n    if mode.startswith('xw'):\n        gx, gw = paddle.grad(loss, [x, w], create_graph=True)\n        q = (gw * gw).sum() if mode.endswith('gw') else ((gx * gx).sum() if mode.endswith('gx') else (gx * gx).sum() + (gw * gw).sum())\n    else:\n        gw = paddle.grad(loss, [w], create_graph=True)[0]\n        q = (gw * gw).sum()\n    q.backward()\n    f = lambda t: None if t.grad is None else t.grad.numpy().astype('float64').sum().hex()\n    print(mode, gw.stop_gradient, f(w), f(x) if not x.stop_gradient else '-')\n"

_EXPECTED = 'xw_lin_gw False 0x0.0p+0 0x1.1e58180400000p+9\nxw_lin_gx False 0x1.661be4c000000p+8 0x0.0p+0\nxw_tanh False -0x1.b0c80f2000000p+8 -0x1.1fef52f000000p+8\ndata_lin False None -\ndata_yy False None -\ndata_tanh_w False 0x1.8228d62f80000p+11 -\n'


def _run(version, tmp_path):
    from gradrepl.runner import run_captured

    path = tmp_path / "conv_double_grad.py"
    path.write_text(_SCRIPT)
    out, error = run_captured(str(path), profile=version)
    assert error is None
    return out


def _nones(text):
    return [tuple(t == "None" for t in line.split()[2:]) for line in text.splitlines()]


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_conv_on_data_gives_no_second_order_to_the_filter(version, tmp_path):
    out = _run(version, tmp_path)
    assert _nones(out) == _nones(_EXPECTED)


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_conv_second_order_bits(version, tmp_path):
    skip_unless_mkl_path("Paddle conv double-grad sums")
    assert _run(version, tmp_path) == _EXPECTED
