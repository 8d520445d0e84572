"""The chain-rule arithmetic of each backward op, for the pictures (``chain=True``).

One template per op and input: ``{g}`` is the gradient of the op's output (``c_grad``), ``{x0}``,
``{x1}`` its forward inputs, ``{attr}`` an attribute of the op. The same template is written with
names (``a_grad = c_grad * b``) and, when every operand is a single number, with values
(``= 4. * 5. = 20.``). Ops missing from the table show their backward op applied to ``out_grad``.
"""
from __future__ import annotations

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


def _value(info):
    """A single number's text, or None (vectors and freed values are shown by name only)."""
    if info is None:
        return None
    shape = getattr(info, "shape", None)
    data = info.preview if hasattr(info, "preview") else info.data
    if data is None or shape is None:
        return None
    n = 1
    for s in shape:
        n *= s
    return data if n == 1 else None


def lines_for(b, graph, attrs=None, contributions=None):
    """The chain-rule lines of backward op ``b`` (a model BackwardInfo).

    ``contributions``: {input index: value text} of what this op sent to each input (the step
    frames know it from the engine's Run event); otherwise a gradient variable with one producer
    shows its data as the result.
    """
    if b.kind != "op":
        return []
    by_id = graph.by_id()
    op = by_id[b.forward]
    xs = [by_id[t] for t in op.inputs]
    gvs = [by_id[i] for i in b.inputs if i.startswith("g")]
    if not gvs:
        return []
    g = gvs[0]
    attrs = dict(attrs or {})
    producers = {}
    for other in graph.backward_ops:
        for o in other.outputs:
            if o is not None:
                producers[o] = producers.get(o, 0) + 1
    templates = FORMULAS.get(b.op)
    lines = []
    for i, out in enumerate(b.outputs):
        if out is None:
            continue
        target = by_id[out]
        if templates is None or i >= len(templates):
            lines.append(f"{target.name} = {b.name}({g.name})")
            continue
        tmpl = templates[i]
        names = {"g": g.name, **{f"x{k}": x.name for k, x in enumerate(xs)},
                 **{k: _fmt_attr(v) for k, v in attrs.items()}}
        try:
            symbolic = tmpl.format(**names)
        except (KeyError, IndexError):
            lines.append(f"{target.name} = {b.name}({g.name})")
            continue
        out_shape = by_id[op.outputs[0]].shape if op.outputs else None
        reduced = (b.op in BROADCASTING and out_shape is not None and i < len(xs)
                   and xs[i].shape != out_shape)
        if reduced:  # broadcast in the forward: the gradient is summed back to the shape
            tmpl = "sum_to(" + tmpl + ", " + str(xs[i].shape) + ")"
            symbolic = tmpl.format(**names)
        line = f"{target.name} = {symbolic}"
        values = {"g": _value(g), **{f"x{k}": _value(x) for k, x in enumerate(xs)},
                  **{k: _fmt_attr(v) for k, v in attrs.items()}}
        if all(v is not None for k, v in values.items() if "{" + k + "}" in tmpl):
            try:
                numeric = tmpl.format(**values)
            except (KeyError, IndexError):
                numeric = None
            if numeric and numeric != symbolic:
                line += f" = {numeric}"
        result = None
        if contributions is not None:
            result = contributions.get(i)
        elif producers.get(out) == 1:
            result = _value(target)
        if result is not None:
            line += f" = {result}"
        lines.append(line)
    return lines


def _fmt_attr(v):
    if isinstance(v, float):
        from .model import fmt_number

        return fmt_number(v)
    return str(v)
