"""Adam's update for a SelectedRows gradient (a ``sparse=True`` embedding's weight): Paddle's
``adam_dense_param_sparse_grad`` CPU kernel, a plain scalar loop (no fused multiply-adds).

Differences from the dense kernel (``adam.py``), measured against real 3.3.1 and 2.6.2:

- the beta powers are advanced before the update reads them, so step t uses beta^(t+1):
  ``lr_t = lr * (sqrt(1 - b2p') / (1 - b1p'))`` with ``b1p' = b1p * beta1``;
- a row with a gradient (the ids merged and sorted): ``m = b1*m + (1-b1)*g``,
  ``v = b2*v + ((1-b2)*g)*g``, ``p -= lr_t * (m / (sqrt(v) + eps*sqrt(1 - b2p')))``;
- ``lazy_mode=False``: every other row decays its moments (``m = b1*m``, ``v = b2*v``) and
  moves by ``lr_t * (m / (sqrt(v) + eps))`` (epsilon unscaled); ``lazy_mode=True``: untouched.
  (Paddle walks the rows past the last gradient row by reading beyond its row list: undefined;
  here they are rows without a gradient.)
Each operation rounds to the parameter's dtype. (AdamW with such a gradient fails in real
Paddle: 3.3.1 raises OSError "Invalid dimension to be accessed", 2.6.2 aborts; AdamW here keeps
the dense kernel.)
"""
from __future__ import annotations

import numpy as np


def sparse_adam_update(p, g, m, v, rows, lr, beta1, beta2, eps, b1p, b2p, lazy, vmax=None):
    """Update ``p``, ``m``, ``v`` (2-D or more, rows on axis 0) in place. ``g`` is the dense
    gradient (its ``rows`` hold the SelectedRows values); ``b1p``, ``b2p`` are the already
    advanced beta powers."""
    dt = p.dtype.type
    one = dt(1)
    b1, b2, eps = dt(beta1), dt(beta2), dt(eps)
    lr_t = dt(lr) * (dt(np.sqrt(one - dt(b2p))) / (one - dt(b1p)))
    eps_t = eps * dt(np.sqrt(one - dt(b2p)))
    gr = g[rows]
    mr = b1 * m[rows] + (one - b1) * gr
    vr = b2 * v[rows] + ((one - b2) * gr) * gr
    den_v = vr
    if vmax is not None:
        den_v = np.maximum(vr, vmax[rows])
        vmax[rows] = den_v
    p[rows] = p[rows] - lr_t * (mr / (np.sqrt(den_v) + eps_t))
    m[rows], v[rows] = mr, vr
    if lazy:
        return
    rest = np.ones(p.shape[0], bool)
    rest[rows] = False
    mo = b1 * m[rest]
    vo = b2 * v[rest]
    den_v = vo
    if vmax is not None:
        den_v = np.maximum(vo, vmax[rest])
        vmax[rest] = den_v
    p[rest] = p[rest] - lr_t * (mo / (np.sqrt(den_v) + eps))
    m[rest], v[rest] = mo, vo
