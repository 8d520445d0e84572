"""SGD: ``param - lr * grad`` (Paddle's sgd kernel, a fused multiply-add: one rounding); a
``sparse=True`` embedding's SelectedRows gradient row by row in lookup order."""
from __future__ import annotations

import numpy as np

from .. import selected_rows
from .kernels import as_param_array, sgd_update
from .optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _update(self, param, grad, group):
        p = self._owned_data(param)
        found = selected_rows.lookups(param)
        clip = group.get("grad_clip", self._grad_clip) if group else self._grad_clip
        if found is not None and clip is None and not self._decays(param, group) and p.ndim == 2:
            _sparse_sgd(p, *found, self._param_lr(param))
            return p
        sgd_update(p, as_param_array(grad, p), self._param_lr(param))
        return p


def _sparse_sgd(p, ids, rows, lr):
    """Paddle's SGD for a SelectedRows gradient: each looked-up row's gradient subtracted from
    its parameter row in lookup order (no merging of repeated ids; the kernel is chosen by the
    row width). Repeated ids are done in waves: the k-th occurrence of every id in wave k."""
    seen = {}
    wave = np.empty(ids.size, np.int64)
    for k, i in enumerate(ids.tolist()):
        wave[k] = seen[i] = seen.get(i, -1) + 1
    width = p.shape[1]
    for w in range(int(wave.max()) + 1 if ids.size else 0):
        pick = np.nonzero(wave == w)[0]
        target = ids[pick]
        block = np.ascontiguousarray(p[target])
        sgd_update(block, np.ascontiguousarray(rows[pick], dtype=p.dtype), lr, width)
        p[target] = block

