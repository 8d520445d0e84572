"""The backward of torch's matrix products, as torch's autograd formulas compute it.

``MmBackward0``/``AddmmBackward0`` multiply the gradient by the other operand transposed, and
keep a column-major operand's layout: the gradient of ``W.t()`` in ``linear`` is computed as
``(g^T @ x)^T``, which MKL's gemm sums in another order than ``x^T @ g``. ``MvBackward0`` takes an
outer product and a transposed matrix @ vector, ``BmmBackward0`` one product per batch; the
bias gradient of ``addmm`` is torch's sum over the rows. The products run on the dialect's
forward kernel (MKL gemm where it is there); each result is an op of its own, so the gradients
differentiate again (create_graph).
"""
from __future__ import annotations

import copy

import numpy as np

from ..engine import grad_mode
from ..engine.ops.broadcast import sum_to
from ..engine.ops.math import multiply
from ..engine.ops.shape import reshape, swap_last
from ..engine.registry import OPS, apply, needs_grad, plain_array, plain_result
from ._base import raw

_MATMUL = None


def _mm(a, b, transpose_x=False, transpose_y=False):
    """``a @ b`` (optional transposes) as a graph op computed by the dialect's kernel."""
    global _MATMUL
    if _MATMUL is None:
        from ._ops import _np_matmul

        op = copy.copy(OPS["matmul"])
        op.forward = _np_matmul
        op.vjp = _product_vjp
        _MATMUL = op
    attrs = {}
    if transpose_x:
        attrs["transpose_x"] = True
    if transpose_y:
        attrs["transpose_y"] = True
    return apply(_MATMUL, (a, b), attrs)


def _column_major(t):
    d = raw(t)   # (the slot: the dialect's .data property looks at its caller's frame)
    return d.ndim == 2 and d.shape[0] > 1 and d.shape[1] > 1 and not d.flags.c_contiguous \
        and d.T.flags.c_contiguous


def _torch_column_major(t):
    """ATen's test in ``mm_mat1_backward``/``mm_mat2_backward``: ``strides[0] == 1 and
    strides[1] == sizes[0]`` (a vector's transpose too: ``W.t()`` of a (1, n) or (n, 1) weight,
    whose product torch then computes transposed; ``_column_major`` leaves those out for the
    first-order kernels, whose bits are the same either way)."""
    d = raw(t)
    if d.ndim != 2:
        return False
    item = d.itemsize
    return d.strides[0] == item and d.strides[1] == d.shape[0] * item


def _recording():
    """A create_graph backward: the products are recorded with their transposes as nodes of
    their own (torch's ``grad.mm(mat2.t())`` makes a TBackward0 then an MmBackward0), so a
    later backward through them runs, and sums, in torch's order."""
    return grad_mode.STATE.enabled


def _t(x):
    """``x.t()`` of a matrix as torch records it inside a backward (a TBackward0 node)."""
    global _T
    if _T is None:
        from ._ops import t as _T
    return _T(x)


_T = None


def _mat1_grad(g, mat1, mat2):
    if _recording():
        if _torch_column_major(mat1):
            return _t(_mm(mat2, _t(g)))
        return _mm(g, _t(mat2))
    if _column_major(mat1):
        return swap_last(_mm(mat2, g, transpose_y=True))
    return _mm(g, mat2, transpose_y=True)


def _mat2_grad(g, mat1, mat2):
    if _recording():
        if _torch_column_major(mat2):
            return _t(_mm(_t(g), mat1))
        return _mm(_t(mat1), g)
    if _column_major(mat2):
        return swap_last(_mm(g, mat1, transpose_x=True))
    return _mm(mat1, g, transpose_x=True)


def _product_vjp(n, g):
    """The VJP of the products recorded above (a create_graph backward differentiated again,
    a PINN's u_xx): torch's mm/bmm backward of the matrices actually multiplied, ``x.t()``
    where ``transpose_x`` being the transposed view torch's ``grad.mm(mat2.t())`` multiplies
    (so its layout rule sees the same strides), on the dialect's kernel; the engine's VJP (its
    kernels) gave other last bits (w.r.t. weights: x^T @ g summed in Paddle's order)."""
    x, y = n.inputs
    xs, ys = n.in_meta[0][0], n.in_meta[1][0]
    if not (len(xs) == len(ys) == 2 or (len(xs) == len(ys) == 3 and xs[0] == ys[0])):
        from ..engine.ops.linalg import _matmul_vjp

        return _matmul_vjp(n, g)
    tx, ty = n.attrs.get("transpose_x", False), n.attrs.get("transpose_y", False)
    a = swap_last(x) if tx else x
    b = swap_last(y) if ty else y
    da = db = None
    if len(xs) == 2:
        da = _mat1_grad(g, a, b) if needs_grad(n, 0) else None
        db = _mat2_grad(g, a, b) if needs_grad(n, 1) else None
    else:
        da = _mm(g, b, transpose_y=True) if needs_grad(n, 0) else None
        db = _mm(a, g, transpose_x=True) if needs_grad(n, 1) else None
    return (swap_last(da) if tx and da is not None else da,
            swap_last(db) if ty and db is not None else db)


def mm_vjp(n, g):
    """MmBackward0 / MvBackward0 / BmmBackward0 (the op is told apart by its operands' ranks)."""
    x, y = n.inputs
    meta = n.in_meta   # (a property: read once)
    xs, ys = meta[0][0], meta[1][0]
    if len(xs) == 2 and len(ys) == 2:
        ga = plain_array(g)
        if ga is not None:
            xa, ya = plain_array(x), plain_array(y)
            if xa is not None and ya is not None and xa.dtype is ga.dtype is ya.dtype:
                return _plain_mm_grads(n, g, x, y, ga, xa, ya)
        return (_mat1_grad(g, x, y) if needs_grad(n, 0) else None,
                _mat2_grad(g, x, y) if needs_grad(n, 1) else None)
    if len(xs) == 2 and len(ys) == 1:
        dx = multiply(reshape(g, (xs[0], 1)), reshape(y, (1, ys[0]))) if needs_grad(n, 0) else None
        return dx, (_mm(x, g, transpose_x=True) if needs_grad(n, 1) else None)
    if len(xs) == 3 and len(ys) == 3:
        return (_mm(g, y, transpose_y=True) if needs_grad(n, 0) else None,
                _mm(x, g, transpose_x=True) if needs_grad(n, 1) else None)
    from ..engine.ops.linalg import _matmul_vjp

    return _matmul_vjp(n, g)


def _plain_mm_grads(n, g, x, y, ga, xa, ya):
    """MmBackward0's two gradients with nothing recorded (a backward without create_graph, no
    apply hook; float32/float64 arrays ``ga``, ``xa``, ``ya`` of ``g``, ``x``, ``y``): the products
    of ``_mat1_grad``/``_mat2_grad``'s plain branches, same layouts, same kernel
    (``_np_matmul``), computed on the arrays without an op per product (each went through
    ``apply``, ~15 Python calls from the VJP to MKL's gemm)."""
    mm = _NP_MATMUL[0]
    if mm is None:
        from ._ops import _np_matmul as mm
        _NP_MATMUL[0] = mm
    edges = n.edges
    dx = dy = None
    if edges[0] is not None:      # (needs_grad(n, 0))
        if _column_major_array(xa):
            dx = plain_result(type(y), mm(ya, ga, transpose_y=True).T)
        else:
            dx = plain_result(type(g), mm(ga, ya, transpose_y=True))
    if edges[2] is not None:      # (needs_grad(n, 1))
        if _column_major_array(ya):
            dy = plain_result(type(g), mm(ga, xa, transpose_x=True).T)
        else:
            dy = plain_result(type(x), mm(xa, ga, transpose_x=True))
    return dx, dy


_NP_MATMUL = [None]


def _column_major_array(d):
    """``_column_major`` of an array (2-D here)."""
    return d.shape[0] > 1 and d.shape[1] > 1 and not d.flags.c_contiguous \
        and d.T.flags.c_contiguous


def _mkl_available():
    global _MKL
    if _MKL is None:   # (imported on first use and kept: an import in the function cost ~10k
        from . import _mkl as _MKL   # instructions a call, two a char-MLP step)
    return _MKL.available()


_MKL = None


def with_vjp(op, vjp, always=False):
    """``op`` (a dialect copy) with the VJP above when MKL is there; without it the engine's VJP
    is kept (its kernels, not torch's, compute the gradients then), unless ``always`` (an op
    whose attributes only this VJP reads: addmm's alpha and beta). (A holomorphic op's copy
    holds ``vjp`` wrapped for complex gradients, ``__wrapped__`` pointing to it: set once, not
    wrapped again at every product.)"""
    cur = op.vjp
    if cur is not vjp and getattr(cur, "__wrapped__", None) is not vjp and (
            always or _mkl_available()):
        op.vjp = vjp
    return op


def _scaled(g, s):
    """``g * s`` as torch's ``maybe_multiply``: ``g`` itself for 1, else a product (a
    MulBackward0 node under create_graph)."""
    if s == 1:
        return g
    from ._ops import mul

    return mul(g, s)


def _bias_grad(g, bias, beta):
    """The added tensor's gradient of the alpha/beta products: ``grad * beta`` summed to its
    shape."""
    gb = _scaled(g, beta)
    if bias.data.shape != gb.data.shape:
        gb = sum_to(gb, bias.data.shape, "torch")
    return gb


def addmv_vjp(n, g):
    """AddmvBackward0 with alpha/beta (derivatives.yaml): mat's ``grad.ger(vec) * alpha``,
    vec's ``mat.t().mv(grad) * alpha``, self's ``grad * beta`` summed to its shape."""
    bias, m, v = n.inputs
    alpha, beta = n.attrs.get("alpha", 1), n.attrs.get("beta", 1)
    gm = gv = gb = None
    rows, k = n.in_meta[1][0]
    if needs_grad(n, 1):
        gm = multiply(reshape(g, (rows, 1)), reshape(v, (1, k)))
        gm = _scaled(gm, alpha)
    if needs_grad(n, 2):
        gv = _mm(m, g, transpose_x=True)
        gv = _scaled(gv, alpha)
    if needs_grad(n, 0):
        gb = _bias_grad(g, bias, beta)
    return gb, gm, gv


def baddbmm_vjp(n, g):
    """BaddbmmBackward0 with alpha/beta (derivatives.yaml): batch1's
    ``grad.bmm(batch2^T) * alpha``, batch2's ``batch1^T.bmm(grad) * alpha``, self's
    ``grad * beta`` summed to its shape."""
    bias, x, w = n.inputs
    alpha, beta = n.attrs.get("alpha", 1), n.attrs.get("beta", 1)
    gx = gw = gb = None
    if needs_grad(n, 1):
        gx = _mm(g, w, transpose_y=True)
        gx = _scaled(gx, alpha)
    if needs_grad(n, 2):
        gw = _mm(x, g, transpose_x=True)
        gw = _scaled(gw, alpha)
    if needs_grad(n, 0):
        gb = _bias_grad(g, bias, beta)
    return gb, gx, gw


def addbmm_vjp(n, g):
    """AddbmmBackward0 (derivatives.yaml): the gradient expanded over the batch, then
    batch1's ``bmm(G, batch2^T) * alpha``, batch2's ``bmm(batch1^T, G) * alpha``; self's
    ``grad * beta`` summed to its shape."""
    from ._ops import expand, unsqueeze

    bias, x, w = n.inputs
    alpha, beta = n.attrs.get("alpha", 1), n.attrs.get("beta", 1)
    nb, m, _ = n.in_meta[1][0]
    gx = gw = gb = None
    if needs_grad(n, 1) or needs_grad(n, 2):
        big = expand(unsqueeze(g, 0), (nb, m, n.in_meta[2][0][2]))
        if needs_grad(n, 1):
            gx = _mm(big, w, transpose_y=True)
            gx = _scaled(gx, alpha)
        if needs_grad(n, 2):
            gw = _mm(x, big, transpose_x=True)
            gw = _scaled(gw, alpha)
    if needs_grad(n, 0):
        gb = _bias_grad(g, bias, beta)
    return gb, gx, gw


def addr_vjp(n, g):
    """AddrBackward0 (derivatives.yaml): vec1's ``grad.mv(vec2) * alpha``, vec2's
    ``grad.t().mv(vec1) * alpha``, self's ``grad * beta`` summed to its shape."""
    from ._ops import mv, t

    bias, v1, v2 = n.inputs
    alpha, beta = n.attrs.get("alpha", 1), n.attrs.get("beta", 1)
    g1 = g2 = gb = None
    if needs_grad(n, 1):
        g1 = mv(g, v2)
        g1 = _scaled(g1, alpha)
    if needs_grad(n, 2):
        g2 = mv(t(g), v1)
        g2 = _scaled(g2, alpha)
    if needs_grad(n, 0):
        gb = _bias_grad(g, bias, beta)
    return gb, g1, g2


def addmm_vjp(n, g):
    """AddmmBackward0: mat1's, mat2's, then the bias's gradient, in the
    order torch's node computes them (under create_graph their nodes are made in that order,
    and a later backward runs the last made first: the order in which it sums the three
    gradients reaching the loss's gradient node, e.g. a MAML outer step)."""
    bias, x, w = n.inputs
    alpha, beta = n.attrs.get("alpha", 1), n.attrs.get("beta", 1)
    gx = _mat1_grad(g, x, w) if needs_grad(n, 1) else None
    gw = _mat2_grad(g, x, w) if needs_grad(n, 2) else None
    if alpha != 1:   # (derivatives.yaml's maybe_multiply: the product's gradient times alpha)
        gx = None if gx is None else _scaled(gx, alpha)
        gw = None if gw is None else _scaled(gw, alpha)
    gb = None
    if needs_grad(n, 0):
        shape = bias.data.shape
        if beta != 1:     # (grad * beta, then summed to the bias's shape)
            g = _scaled(g, beta)
        if shape == g.data.shape:
            gb = g
        elif _recording() and len(shape) == 1:
            # (torch's sum_to: the sum over the rows kept as (1, n), then a view: SumBackward1
            # and ViewBackward0 nodes)
            from ._ops import sum as _sum, view

            gb = view(_sum(g, 0, True), shape)
        else:
            gb = sum_to(g, shape, "torch")
    return gb, gx, gw
