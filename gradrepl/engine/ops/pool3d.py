"""3-D pooling (NCDHW): ``pool3d``, ``pool3d_grad`` and ``pool3d_double_grad``, one registry op
each, as ``pool2d`` in ``conv.py`` (see there for the rules): max or average, plain or adaptive,
padding (front, back, top, bottom, left, right), ``ceil_mode``, ``exclusive``.

The windows are products of one interval per axis, so one axis's windows (``_axis_windows``) are
computed once and combined: a loop over the kernel offsets in row-major order (d, h, w), each a
strided view of the padded input when every window has the kernel's size, a gather otherwise
(adaptive windows of unequal sizes). Averages add the offsets' values in that order and divide
by the window's size (inside the input when ``exclusive`` or adaptive, padding included
otherwise); max takes the first maximum in that order, and its gradient goes there.
"""
from __future__ import annotations

import itertools

import numpy as np

from .pooling import (Windows, _axis_windows, appliers, double_grad_by, grad_by,
                      register_pool_ops, values_by)

_AXES = 3


class _PoolND(Windows):
    def __init__(self, spatial, a):
        ksize = a["ksize"]
        stride = a.get("stride", (1,) * _AXES)
        pads = a.get("padding", (0,) * (2 * _AXES))
        ceil = a.get("ceil_mode", False)
        adaptive = a.get("adaptive", False)
        self.spatial = tuple(spatial)
        if adaptive:
            outs = tuple(ksize)  # an adaptive pool's "kernel" is its output size
            self.regular = all(n % o == 0 for n, o in zip(spatial, outs))
            if self.regular:  # equal windows: a plain pool, kernel = stride = n / out
                ksize = stride = tuple(n // o for n, o in zip(spatial, outs))
                pads = (0,) * (2 * _AXES)
                adaptive = False
        else:
            outs = (None,) * _AXES
            self.regular = True
        self.out, self.starts, self.ends, fulls = [], [], [], []
        for i, (n, k, s, o) in enumerate(zip(spatial, ksize, stride, outs)):
            out, st, en, full = _axis_windows(n, k, s, pads[2 * i], pads[2 * i + 1], ceil,
                                              adaptive, o)
            self.out.append(out)
            self.starts.append(st)
            self.ends.append(en)
            fulls.append(full)
        if any(o <= 0 for o in self.out):
            raise ValueError(
                f"(InvalidArgument) The output of pool3d has a non-positive size {self.out}: "
                f"the input is too small for the kernel, padding and stride")
        if self.regular:
            self.k, self.s, self.pads = tuple(ksize), tuple(stride), tuple(pads)
            self.min_size = tuple((o - 1) * s + k for o, s, k in zip(self.out, stride, ksize))
        else:
            self.k = tuple(int((e - s).max()) for s, e in zip(self.starts, self.ends))
        sizes = [e - s for s, e in zip(self.starts, self.ends)]
        self.exclusive_size = np.einsum("i,j,k->ijk", *sizes)
        self.full_size = np.einsum("i,j,k->ijk", *fulls)

    def offsets(self):
        for n, offs in enumerate(itertools.product(*(range(k) for k in self.k))):
            yield n, offs

    def prepare(self, x, fill):
        if not self.regular:
            return x
        size = self.padded_size()
        if size == self.spatial:
            return x
        out = np.full(x.shape[:2] + tuple(size), fill, x.dtype)
        out[(slice(None),) * 2 + tuple(slice(self.pads[2 * i], self.pads[2 * i] + n)
                                       for i, n in enumerate(self.spatial))] = x
        return out

    def _regular_index(self, offs):
        return (slice(None),) * 2 + tuple(slice(o, o + s * (n - 1) + 1, s)
                                          for o, s, n in zip(offs, self.s, self.out))

    def _gather(self, offs):
        idx, valid = [], None
        shape = [1] * _AXES
        for i, (o, st, en, n) in enumerate(zip(offs, self.starts, self.ends, self.spatial)):
            r = st + o
            sh = list(shape)
            sh[i] = len(r)
            idx.append(np.minimum(r, n - 1).reshape(sh))
            ok = (r < en).reshape(sh)
            valid = ok if valid is None else valid & ok
        return (slice(None), slice(None)) + tuple(idx), valid

    def slab(self, xp, offs, fill):
        """The values at kernel offset ``offs`` of every window: (N, C, *out)."""
        if self.regular:
            return xp[self._regular_index(offs)]
        index, valid = self._gather(offs)
        return np.where(valid, xp[index], np.asarray(fill, xp.dtype))

    def padded_size(self):
        """The spatial size ``prepare`` pads to (the input's own for gathered windows)."""
        if not self.regular:
            return self.spatial
        return tuple(max(n + self.pads[2 * i] + self.pads[2 * i + 1], m)
                     for i, (n, m) in enumerate(zip(self.spatial, self.min_size)))

    def scatter_add(self, dxp, offs, vals):
        if self.regular:
            dxp[self._regular_index(offs)] += vals
            return
        index, valid = self._gather(offs)
        vals = np.where(valid, vals, np.zeros((), vals.dtype))
        full = vals.shape
        np.add.at(dxp, (slice(None), slice(None)) + tuple(np.broadcast_to(i, full[2:])
                                                          for i in index[2:]), vals)

    def crop(self, dxp):
        if not self.regular:
            return dxp
        return np.ascontiguousarray(dxp[(slice(None),) * 2 + tuple(
            slice(self.pads[2 * i], self.pads[2 * i] + n) for i, n in enumerate(self.spatial))])

    def zeros_like_input(self, shape, dtype):
        return np.zeros(tuple(shape[:2]) + tuple(self.padded_size()), dtype)


_EXAMPLES = [
    {"ksize": (2, 3, 3), "stride": (1, 2, 2), "padding": (0, 1, 1, 1, 1, 1)},
    {"ksize": (2, 2, 2), "stride": (2, 2, 2), "ceil_mode": True},
    {"ksize": (2, 2, 3), "stride": (1, 1, 2), "padding": (1, 0, 0, 1, 1, 0),
     "pooling_type": "avg"},
    {"ksize": (2, 3, 3), "stride": (2, 2, 2), "padding": (1, 1, 1, 1, 1, 1),
     "pooling_type": "avg", "exclusive": False, "ceil_mode": True},
    {"ksize": (2, 2, 3), "adaptive": True},
    {"ksize": (2, 3, 2), "adaptive": True, "pooling_type": "avg"},
]
_IN = [(1, 2, 3, 5, 5), (1, 1, 3, 4, 5), (2, 1, 3, 4, 5), (1, 1, 3, 5, 5), (1, 2, 3, 5, 5),
       (1, 1, 3, 5, 4)]


POOL3D, POOL3D_GRAD, POOL3D_DOUBLE_GRAD = register_pool_ops(
    "pool3d", _PoolND, values_by(_PoolND), grad_by(_PoolND), double_grad_by(_PoolND), _IN,
    _EXAMPLES)


def pool3d_attrs(ksize, stride=(1,) * 3, padding=(0,) * 6, ceil_mode=False, exclusive=True,
                 adaptive=False, pooling_type="max"):
    return {"ksize": tuple(int(v) for v in ksize), "stride": tuple(int(v) for v in stride),
            "padding": tuple(int(v) for v in padding), "ceil_mode": bool(ceil_mode),
            "exclusive": bool(exclusive), "adaptive": bool(adaptive),
            "pooling_type": pooling_type}


pool3d, pool3d_grad, pool3d_double_grad = appliers(POOL3D, POOL3D_GRAD, POOL3D_DOUBLE_GRAD)
pool3d.__doc__ = """Max or average pooling of ``x`` [N, C, D, H, W] (``attrs`` from
    ``pool3d_attrs``)."""


def max_pool3d_mask(x, attrs):
    """The flat index (d * H * W + h * W + w, int32) of each window's maximum in the unpadded
    input, as Paddle's max_pool3d_with_index returns it (no gradient)."""
    p = _PoolND(x.shape[2:], attrs)
    idx = p.argmax(x)
    coords = np.unravel_index(idx, p.k)
    flat = np.zeros(idx.shape, np.int64)
    for i, (c, n) in enumerate(zip(coords, p.spatial)):
        sh = [1] * _AXES
        sh[i] = p.out[i]
        if p.regular:
            base = (np.arange(p.out[i]) * p.s[i] - p.pads[2 * i]).reshape(sh)
        else:
            base = p.starts[i].reshape(sh)
        flat = flat * n + (base + c)
    return flat.astype(np.int32)
