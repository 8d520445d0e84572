"""``F.mse_loss``'s backward with torch's arithmetic (``mse_backward_cpu_kernel``:
``norm * (x - y) * grad``, ``norm`` = 2 / N for 'mean' rounded to the dtype first). Literals
recorded from real torch 2.13.0+cpu in this session; the numpy lines compute the same kernel
independently. Elementwise IEEE float32 arithmetic: the same bits on every CPU."""
from __future__ import annotations

import numpy as np

from gradrepl import torch
from gradrepl.torch.nn import functional as F

X = [0.3965791165828705, 0.03850893676280975, -1.25, 7.5, 3.3333, -0.1, 2.0, 5.5, 1e-3]
Y = [13.5, 6.8, 11.3, 2.2, 9.87, 0.4, 14.6, 6.5, 28.1]


def test_mean_backward_bits():
    x = torch.tensor(X, requires_grad=True)
    F.mse_loss(x, torch.tensor(Y)).backward()
    # real torch 2.13 (the engine's 2 (x - y) / N gave 1.1777777671813965 for the fourth)
    assert x.grad.tolist() == [-2.9118714332580566, -1.5025535821914673, -2.788888931274414,
                               1.177777886390686, -1.4526000022888184, -0.1111111119389534,
                               -2.8000001907348633, -0.2222222238779068, -6.244222640991211]
    xs, ys = np.array(X, np.float32), np.array(Y, np.float32)
    expect = np.float32(2.0 / 9) * (xs - ys) * np.float32(1.0)
    assert x.grad.tolist() == expect.tolist()


def test_sum_backward_with_a_grad_bits():
    x = torch.tensor(X, requires_grad=True)
    F.mse_loss(x.view(3, 3), torch.tensor(Y).view(3, 3), reduction="sum").backward(
        torch.tensor(0.3))
    assert x.grad.tolist() == [-7.862052917480469, -4.056894779205322, -7.53000020980835,
                               3.1800003051757812, -3.9220199584960938, -0.30000001192092896,
                               -7.560000419616699, -0.6000000238418579, -16.85940170288086]
