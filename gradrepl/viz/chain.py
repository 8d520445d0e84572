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
    "sum": ("{g}",),
    "mean": ("{g} / {n}",),
    "reshape": ("{g}",),
    "transpose": ("{g}.T",),
    "cross_entropy_with_softmax": ("(softmax({x0}) - one_hot({x1})) * {g}",),
    "log_softmax": ("{g} - softmax({x0}) * (the row sums of {g})",),
    "fused_addmm": ("{g}", "{g} @ {x2}.T", "{x1}.T @ {g}"),
    "fused_nll_loss": ("-{g} / {n} at each sample's label, 0 elsewhere",),
}

# what a formula leaves unsaid, said once after it (not repeated with the numbers)
NOTES = {
    "sum": "(the same gradient to each of the {n} summed elements)",
    "mean": "(the mean of {n} elements: each gets 1/{n} of the gradient)",
    "reshape": "(reshaped back to {shape})",
    "cross_entropy_with_softmax": "(softmax minus one-hot, times each sample's loss gradient)",
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
    out_shape = by_id[op.outputs[0]].shape if op.outputs else None
    in_shape = xs[i].shape if i < len(xs) else None
    n_in, n_out = _size(in_shape), _size(out_shape)
    if n_in and n_out and "n" not in names:
        names["n"] = str(n_in // n_out) if n_in >= n_out else str(n_out // n_in)
    names["shape"] = str(list(in_shape)) if in_shape is not None else "?"
    if b.op == "fused_nll_loss" and in_shape:   # the mean over the batch, not the elements
        names["n"] = str(in_shape[0])
        if (attrs or {}).get("reduction", "mean") != "mean":
            templates = ("-{g} at each sample's label, 0 elsewhere",)
    tmpl = templates[i] if templates is not None and i < len(templates) else None
    if b.op == "transpose" and tuple((attrs or {}).get("perm", (1, 0))) != (1, 0):
        tmpl = None
    try:
        symbolic = tmpl.format(**names) if tmpl is not None else None
    except (KeyError, IndexError):
        tmpl = symbolic = None
    if tmpl is None:   # no formula: say which backward op computed it, in a sentence
        line = f"{target_name} = what {b.title or b.name} computes from {names['g']}"
        return line + (f" = {result}" if result is not None else "")
    note = NOTES.get(b.op) if i == 0 else None
    reduced = ((b.op in BROADCASTING or b.op == "fused_addmm") and out_shape is not None
               and in_shape is not None and list(in_shape) != list(out_shape))
    if reduced:  # broadcast in the forward: the gradient is summed back to the shape
        k = n_out // n_in if n_in else 0
        note = (f"(summed over the {k} broadcast {_broadcast_kind(in_shape, out_shape)}: "
                f"{xs[i].name if i < len(xs) else 'it'} {list(in_shape)} was broadcast to "
                f"{list(out_shape)})")
    line = f"{target_name} = {symbolic}"
    if note:
        try:
            line += " " + note.format(**names)
        except (KeyError, IndexError):
            pass
    nums = {"g": _value(g, values), **{f"x{k}": _value(x, values) for k, x in enumerate(xs)},
            **{k: _fmt_attr(v) for k, v in attrs.items()}}
    nums.setdefault("n", names.get("n"))
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


def _broadcast_kind(in_shape, out_shape):
    """What the broadcast copied a tensor along: "rows", "columns", or "copies"."""
    out = list(out_shape)
    inn = [1] * (len(out) - len(in_shape)) + list(in_shape)
    axes = [k for k, (a, b) in enumerate(zip(inn, out)) if a == 1 and b > 1]
    if len(out) >= 2 and axes == [len(out) - 2]:
        return "rows"
    if len(out) >= 2 and axes == [len(out) - 1]:
        return "columns"
    if len(out) == 1 and axes == [0]:
        return "copies"
    return "copies"


def _size(shape):
    if shape is None:
        return None
    n = 1
    for s in shape:
        n *= s
    return n


def _fmt_attr(v):
    if isinstance(v, float):
        from .model import fmt_number

        return fmt_number(v)
    return str(v)
