"""torch.prod's gradient as torch 2.13's ``prod_backward`` (FunctionsManual.cpp) writes it where
the input has no zero: ``grad * (result / input)``, the grad and result unsqueezed (broadcast)
over the reduced dims, with the dialect's ops (create_graph works). With a zero in the input
the engine's rule stays (torch's prod_safe_zeros_backward, not emulated). The engine's formula
rounded another way: 10 of the TSWEEP2 sweep's prod cases had other gradient bits."""
from __future__ import annotations

import numpy as np


def prod_vjp(engine_vjp):
    def vjp(n, g):
        from . import _ops
        from ._base import raw

        x = n.inputs[0]
        xa = raw(x)
        if xa.dtype.kind != "f" or xa.ndim == 0 or not np.all(xa != 0):
            return engine_vjp(n, g)
        axes = tuple(a % xa.ndim for a in (n.attrs.get("axis") or range(xa.ndim)))
        keep = bool(n.attrs.get("keepdim", False))
        grad, res = g, n.out()
        if not keep:
            for d in sorted(axes):
                grad = _ops.unsqueeze(grad, d)
                res = _ops.unsqueeze(res, d)
        return (_ops.mul(grad, _ops.div(res, x)),)
    return vjp
