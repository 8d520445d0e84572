"""``paddle.summary``: runs the model once on random input (``paddle.rand``, so the generator
advances as in Paddle) with a post-forward hook on each layer, and prints Paddle's table: one row
per layer call (``ClassName-k`` from the layer's unique name), its input and output shapes and
parameter count, then the totals and size estimates in MB. Returns Paddle's dict of totals."""
from __future__ import annotations

import numbers

import numpy as np

from ..numpy_era import numpy1_scalars

_MIN_WIDTHS = {"layer": 15, "input": 20, "output": 20, "params": 15}
_MIN_TABLE = 75


def _all_numbers(items):
    return all(isinstance(i, numbers.Number) for i in items)


def _is_shape(shape):
    return not any(isinstance(d, (list, tuple)) for d in shape)


def _checked_shape(shape):
    unknown, out = 0, []
    for d in shape:
        if d is None or d == -1:
            unknown += 1
            if unknown > 1:
                raise ValueError("Option input_size only the dim of batch_size can be None or -1.")
            d = 1
        elif isinstance(d, numbers.Number) and d <= 0:
            raise ValueError(f"Expected element in input size greater than zero, but got {d}")
        out.append(d)
    return tuple(out)


def _checked_input(size):
    if isinstance(size, (list, tuple)) and _is_shape(size):
        return _checked_shape(size)
    return [_checked_input(s) for s in size]


def _sizes_of(input_size, input):
    """input_size as Paddle normalises it (from ``input`` when only that is given)."""
    from ..static import InputSpec
    import gradrepl.paddle as paddle

    if input_size is None and input is None:
        raise ValueError("input_size and input cannot be None at the same time")
    if input_size is None:
        if paddle.is_tensor(input):
            input_size = tuple(input.shape)
        elif isinstance(input, (list, tuple)):
            input_size = [tuple(x.shape) for x in input]
        elif isinstance(input, dict):
            input_size = [tuple(v.shape) for v in input.values()]
        else:
            raise ValueError("Input is not tensor, list, tuple and dict, unable to determine "
                             "input_size, please input input_size.")
    if isinstance(input_size, InputSpec):
        return _checked_input(tuple(input_size.shape))
    if isinstance(input_size, list):
        items = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            assert isinstance(item, (tuple, InputSpec)), (
                "When input_size is list,             expect item in input_size is a tuple or "
                f"InputSpec, but got {type(item)}")
            items.append(tuple(item.shape) if isinstance(item, InputSpec) else item)
        return _checked_input(items)
    if isinstance(input_size, int):
        return _checked_input((input_size,))
    return _checked_input(input_size)


def summary(net, input_size=None, dtypes=None, input=None):
    """Print the table of ``net``'s layers for ``input_size`` (or ``input``); return
    ``{'total_params': ..., 'trainable_params': ...}``."""
    sizes = _sizes_of(input_size, input)
    was_training = net.training
    if was_training:
        net.eval()
    text, totals = summary_string(net, sizes, dtypes, input)
    print(text)
    if was_training:
        net.train()
    return totals


def _dtype_tree(size, dtype):
    if isinstance(size, (list, tuple)) and _all_numbers(size):
        return [dtype or "float32"]
    return [_dtype_tree(s, dtype) for s in size]


def _random_input(size, dtypes):
    import gradrepl.paddle as paddle

    if isinstance(size, (list, tuple)) and _all_numbers(size):
        dtype = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
        return paddle.cast(paddle.rand(list(size)), dtype)
    return [_random_input(s, d) for s, d in zip(size, dtypes)]


def _shapes(x):
    import gradrepl.paddle as paddle

    if paddle.is_tensor(x):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_shapes(v) for v in x]
    return None


def _output_shape(out):
    if isinstance(out, (list, tuple)):
        return [_output_shape(o) for o in out]
    return list(out.shape) if hasattr(out, "shape") else []


def _row_key(layer, rows):
    try:
        idx = int(layer._full_name.split("_")[-1])
    except (AttributeError, ValueError):
        idx = len(rows)
    return f"{type(layer).__name__}-{idx + 1}"


def _record(rows):
    def hook(layer, inputs, output):
        row = rows[_row_key(layer, rows)] = {}
        row["input_shape"] = _shapes(inputs)
        row["output_shape"] = _output_shape(output)
        row["trainable_params"] = 0
        params, seen_trainable = 0, False
        for name, p in layer._parameters.items():
            count = np.prod(p.shape)
            params += count
            if getattr(p, "trainable", True) and not p.stop_gradient:
                row["trainable_params"] += count
                row["trainable"] = seen_trainable = True
            elif not seen_trainable:
                row["trainable"] = False
        row["nb_params"] = params
    return hook


def _run(model, input_size, dtypes, input):
    from ..base.dygraph.base import no_grad
    from ..nn import LayerList, Sequential

    rows, handles = {}, []
    depth = len(list(model.sublayers()))
    hook = _record(rows)

    def attach(layer):
        if (not isinstance(layer, (Sequential, LayerList))
                and (layer is not model or depth < 1)):
            handles.append(layer.register_forward_post_hook(hook))

    if isinstance(input_size, tuple):
        input_size = [input_size]
    if not isinstance(dtypes, (list, tuple)):
        dtypes = _dtype_tree(input_size, dtypes)
    with no_grad():
        model.apply(attach)
        if input is not None:
            model(input)
        else:
            model(*_random_input(input_size, dtypes))
    for h in handles:
        h.remove()
    return rows, input_size


def _widths(rows):
    w = dict(_MIN_WIDTHS)
    for key, row in rows.items():
        w["output"] = max(w["output"], len(str(row["output_shape"])))
        w["input"] = max(w["input"], len(str(row["input_shape"])))
        w["layer"] = max(w["layer"], len(str(key)))
        w["params"] = max(w["params"], len(str(row["nb_params"])))
    return w, max(_MIN_TABLE, sum(w.values()) + 5)


def _output_count(shape):
    try:
        return np.sum(np.prod(shape, axis=-1))
    except ValueError:
        return sum(np.sum(np.prod(s, axis=-1)) for s in shape)


def _input_mb(size):
    if isinstance(size, (list, tuple)) and _all_numbers(size):
        return abs(np.prod(size) * 4.0 / 1024 ** 2.0)
    return sum(_input_mb(s) for s in size)


def summary_string(model, input_size=None, dtypes=None, input=None):
    """The table ``summary`` prints, and its totals."""
    rows, input_size = _run(model, input_size, dtypes, input)
    w, width = _widths(rows)

    def line(a, b, c, d):
        return (f"{a:^{w['layer']}} {b:^{w['input']}} {c:^{w['output']}} "
                f"{d:^{w['params']}}\n")

    out = ["-" * width + "\n", line("Layer (type)", "Input Shape", "Output Shape", "Param #"),
           "=" * width + "\n"]
    total = trainable = outputs = 0
    for key, row in rows.items():
        out.append(line(key, str(row["input_shape"]), str(row["output_shape"]),
                        f"{row['nb_params']:,}"))
        total += row["nb_params"]
        outputs += _output_count(row["output_shape"])
        if row.get("trainable"):
            trainable += row["trainable_params"]
    in_mb = _input_mb(input_size)
    out_mb = abs(2.0 * outputs * 4.0 / 1024 ** 2.0)
    params_mb = abs(total * 4.0 / 1024 ** 2.0)
    out += ["=" * width + "\n",
            f"Total params: {total:,}\n",
            f"Trainable params: {trainable:,}\n",
            f"Non-trainable params: {total - trainable:,}\n",
            "-" * width + "\n",
            f"Input size (MB): {in_mb:0.2f}\n",
            f"Forward/backward pass size (MB): {out_mb:0.2f}\n",
            f"Params size (MB): {params_mb:0.2f}\n",
            f"Estimated Total Size (MB): {params_mb + out_mb + in_mb:0.2f}\n",
            "-" * width + "\n"]
    if numpy1_scalars():  # a Paddle on numpy 1: its np.int64 counts print as 61610
        total, trainable = int(total), int(trainable)
    return "".join(out), {"total_params": total, "trainable_params": trainable}
