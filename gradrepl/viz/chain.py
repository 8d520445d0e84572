"""The chain-rule arithmetic of each backward op, for the pictures (``chain=True``).

One template per op and input: ``{g}`` is the gradient of the op's output (``c_grad``), ``{x0}``,
``{x1}`` its forward inputs, ``{attr}`` an attribute of the op. The same template is written with
names (``a_grad = c_grad * b``) and, when every operand is a single number, with values
(``= 4. * 5. = 20.``). Ops missing from the table show their backward op applied to ``out_grad``.
"""
from __future__ import annotations

from .model import flow_name

FORMULAS = {
    "multiply": ("{g} * {x1}", "{g} * {x0}"),
    "add": ("{g}", "{g}"),
    "subtract": ("{g}", "-{g}"),
    "divide": ("{g} / {x1}", "-{g} * {x0} / {x1}^2"),
    "matmul": ("{g} @ {x1}.T", "{x0}.T @ {g}"),
    "elementwise_pow": ("{g} * {x1} * {x0}^({x1} - 1)", "{g} * {x0}^{x1} * ln({x0})"),
    "pow": ("{g} * {factor} * {x0}^({factor} - 1)",),
    "scale": ("{g} * {scale}",),
    "div_scale": ("{g} / {divisor}",),
    "neg": ("-{g}",),
    "exp": ("{g} * exp({x0})",),
    "log": ("{g} / {x0}",),
    "square": ("{g} * 2 * {x0}",),
    "sqrt": ("{g} / (2 * sqrt({x0}))",),
    "tanh": ("{g} * (1 - tanh({x0})^2)",),
    "sigmoid": ("{g} * sigmoid({x0}) * (1 - sigmoid({x0}))",),
    "relu": ("{g} * ({x0} > 0)",),
    "sin": ("{g} * cos({x0})",),
    "cos": ("-{g} * sin({x0})",),
    "abs": ("{g} * sign({x0})",),
    "reciprocal": ("-{g} / {x0}^2",),
    "sum": ("expand({g})",),
    "mean": ("expand({g}) / n",),
    "reshape": ("reshape({g})",),
    "transpose": ("transpose({g})",),
}


BROADCASTING = {"multiply", "add", "subtract", "divide", "elementwise_pow", "maximum", "minimum"}


def _value(info, values=None):
    """A single number's text, or None (vectors and freed values are shown by name only).
    ``values``: {grad var id: preview} that override the model's data (the engine's values of
    the moment, where the model keeps none)."""
    if info is None:
        return None
    shape = getattr(info, "shape", None)
    if values is not None and info.id in values:
        data = values[info.id]
    elif hasattr(info, "preview"):
        data = info.preview
    else:   # a gradient: what flowed (torch keeps no .grad of a non-leaf), else its .grad
        data = info.flow if info.flow is not None else info.data
    if data is None or shape is None:
        return None
    n = 1
    for s in shape:
        n *= s
    return data if n == 1 else None


def lines_for(b, graph, attrs=None, contributions=None, values=None):
    """The chain-rule lines of backward op ``b`` (a model BackwardInfo), one per input that
    takes a gradient.

    ``contributions``: {input index: value text} of what this op delivered to each input, after
    any broadcast reduction (the step frames know it from the engine's events); otherwise a
    gradient variable with one producer shows its data as the result. ``values``: see
    :func:`_value`.
    """
    if b.kind != "op":
        return []
    ctx = _context(b, graph)
    if ctx is None:
        return []
    return [line for i in range(len(b.outputs))
            if (line := line_for(b, graph, i, attrs, contributions, values, ctx)) is not None]


def _context(b, graph):
    by_id = graph.by_id()
    op = by_id.get(b.forward)
    if op is None:
        return None
    gvs = [by_id[i] for i in b.inputs if i.startswith("g") and i in by_id]
    if not gvs:
        return None
    producers = {}
    for other in graph.backward_ops:
        for o in other.outputs:
            if o is not None:
                producers[o] = producers.get(o, 0) + 1
    return by_id, op, [by_id[t] for t in op.inputs], gvs[0], producers


def line_for(b, graph, i, attrs=None, contributions=None, values=None, ctx=None):
    """The chain-rule line of ``b``'s input ``i`` (None where it takes no gradient)."""
    if ctx is None:
        ctx = _context(b, graph)
        if ctx is None:
            return None
    by_id, op, xs, g, producers = ctx
    out = b.outputs[i] if i < len(b.outputs) else None
    if out is None or out not in by_id:
        return None
    target = by_id[out]
    result = None
    if contributions is not None:
        result = contributions.get(i)
    elif producers.get(out) == 1:
        result = _value(target, values)
    templates = FORMULAS.get(b.op)
    attrs = dict(attrs or {})
    target_name = flow_name(target, by_id, graph.profile)
    names = {"g": flow_name(g, by_id, graph.profile), **{f"x{k}": x.name for k, x in enumerate(xs)},
             **{k: _fmt_attr(v) for k, v in attrs.items()}}
    tmpl = templates[i] if templates is not None and i < len(templates) else None
    try:
        symbolic = tmpl.format(**names) if tmpl is not None else None
    except (KeyError, IndexError):
        tmpl = symbolic = None
    if tmpl is None:
        line = f"{target_name} = {b.title or b.name}({names['g']})"
        return line + (f" = {result}" if result is not None else "")
    out_shape = by_id[op.outputs[0]].shape if op.outputs else None
    reduced = (b.op in BROADCASTING and out_shape is not None and i < len(xs)
               and xs[i].shape != out_shape)
    if reduced:  # broadcast in the forward: the gradient is summed back to the shape
        tmpl = "sum_to(" + tmpl + ", " + str(xs[i].shape) + ")"
        symbolic = tmpl.format(**names)
    line = f"{target_name} = {symbolic}"
    nums = {"g": _value(g, values), **{f"x{k}": _value(x, values) for k, x in enumerate(xs)},
            **{k: _fmt_attr(v) for k, v in attrs.items()}}
    if all(v is not None for k, v in nums.items() if "{" + k + "}" in tmpl):
        try:
            numeric = tmpl.format(**nums)
        except (KeyError, IndexError):
            numeric = None
        if numeric and numeric != symbolic:
            line += f" = {numeric}"
    if result is not None and not line.endswith(f" = {result}"):
        line += f" = {result}"
    return line


def _fmt_attr(v):
    if isinstance(v, float):
        from .model import fmt_number

        return fmt_number(v)
    return str(v)
