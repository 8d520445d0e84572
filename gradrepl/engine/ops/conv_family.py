"""What 2-D and 3-D convolution share: their geometry attributes and the VJPs of the three ops
that close under differentiation (with ``x``, ``w``, ``dy`` and ``G`` of any spatial rank):

d conv = (conv_transpose(g, w), conv_grad_filter(x, g));
d conv_transpose = (conv(g, w), conv_grad_filter(g, x));
d conv_grad_filter = (conv_transpose(dy, G), conv(x, G)).
"""
from __future__ import annotations

from .. import grad_mode
from ..registry import needs_grad


def _paddle_grad_out(x, g):
    """The ``dy`` a create_graph filter gradient reads. Paddle's conv double grad gives no
    gradient through grad_out when the convolution's input took none (measured, real 3.3.1 and
    2.6.2: gw = grad(sum(conv(data, w)^2), w, create_graph=True), then sum(gw^2).backward()
    leaves w.grad None; through tanh(w) only tanh's second order): there ``g`` is read as a fresh
    leaf, so the path back through dy ends. The torch dialect's tensors keep ``g``."""
    if getattr(type(x), "_paddle_path", None) is None or not grad_mode.STATE.enabled \
            or g.grad_node is None:
        return g
    return type(g)._wrap(g.data, False)


def geom_attrs(stride, padding, dilation, groups):
    """The attributes every op of the family carries, as plain ints."""
    return {"stride": tuple(int(v) for v in stride), "padding": tuple(int(v) for v in padding),
            "dilation": tuple(int(v) for v in dilation), "groups": int(groups)}


def geom_reader(nd):
    """``geom(attrs)``: the geometry attributes of a node, defaults filled in (nd axes)."""
    defaults = (("stride", (1,) * nd), ("padding", (0,) * (2 * nd)), ("dilation", (1,) * nd),
                ("groups", 1))

    def geom(a):
        return {k: a.get(k, d) for k, d in defaults}
    return geom


def family_vjps(nd, ops, out_size_kw):
    """The three VJPs; ``ops()`` gives (conv, conv_transpose, conv_grad_filter) when called
    (they are defined after their VJPs); ``out_size_kw`` names conv_transpose's output-size
    argument (``out_hw`` in 2-D, ``out_size`` in 3-D)."""
    geom = geom_reader(nd)

    def conv_vjp(n, g):
        conv, transpose, grad_filter = ops()
        x, w = n.inputs
        a = n.attrs
        xs, ws = n.in_meta[0][0], n.in_meta[1][0]
        dx = transpose(g, w, **{out_size_kw: xs[2:]}, **geom(a)) if needs_grad(n, 0) else None
        if needs_grad(n, 1):
            gd = g if needs_grad(n, 0) else _paddle_grad_out(x, g)
            dw = grad_filter(x, gd, ksize=ws[2:], **geom(a))
        else:
            dw = None
        return dx, dw

    def transpose_vjp(n, g):
        conv, _transpose, grad_filter = ops()
        x, w = n.inputs
        a = n.attrs
        ws = n.in_meta[1][0]
        dx = conv(g, w, **geom(a)) if needs_grad(n, 0) else None
        dw = grad_filter(g, x, ksize=ws[2:], **geom(a)) if needs_grad(n, 1) else None
        return dx, dw

    def grad_filter_vjp(n, G):
        conv, transpose, _grad_filter = ops()
        x, dy = n.inputs
        a = n.attrs
        xs = n.in_meta[0][0]
        d_x = transpose(dy, G, **{out_size_kw: xs[2:]}, **geom(a)) if needs_grad(n, 0) else None
        d_dy = conv(x, G, **geom(a)) if needs_grad(n, 1) else None
        return d_x, d_dy

    return conv_vjp, transpose_vjp, grad_filter_vjp
