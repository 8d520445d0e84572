"""``torch.autograd.profiler``: ``profile`` (a context that times every op the dialect runs),
``record_function`` (a named span of the user's own), ``key_averages().table()`` in torch's
layout (the columns, widths, percentages and time units of torch 2.13's table; the times are
gradrepl's own).

While a ``profile`` is on, the dialect's calls to the engine go through a timing layer
(``_dispatch``); an op is named as torch's ATen operator behind it (``MmBackward0`` ->
``aten::mm``). Nested spans give each event a total time and a self time (total less its
children's), as torch reports them.
"""
from __future__ import annotations

import functools
import re
import time

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]

_ACTIVE: list = []  # the running profile objects (the innermost last)
_perf = time.perf_counter


def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_share(us, total):
    if total == 0:
        return "NaN"
    return f"{us * 100.0 / total:.2f}%"


class _Times:
    """The time columns an event and an average of events both print (torch's names)."""

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))
    self_cpu_memory_usage = cpu_memory_usage = 0
    device_time_total = self_device_time_total = 0.0


class FunctionEvent(_Times):
    """One timed span: an op or a ``record_function`` block."""

    def __init__(self, name, input_shapes=None, parent=None):
        self.name = name
        self.key = name
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_parent = parent
        self.cpu_children: list = []
        self.count = 1
        self.start = 0.0
        self.cpu_time_total = 0.0
        self.children_time = 0.0
        self.node_id = -1
        self.is_async = False
        self.stack: list = []

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - self.children_time


    def __repr__(self):
        return (f"<FunctionEvent id={id(self)} name={self.name} "
                f"cpu_time={self.cpu_time_total_str} input_shapes={self.input_shapes}>")


class FunctionEventAvg(_Times):
    """The events of one key summed (``key_averages``)."""

    def __init__(self, key, input_shapes):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.node_id = -1
        self.is_async = False
        self.stack: list = []

    def add(self, evt):
        self.count += evt.count
        self.cpu_time_total += evt.cpu_time_total
        self.self_cpu_time_total += evt.self_cpu_time_total


    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str}"
                f" cpu_time={self.cpu_time_str}  self_cuda_time=0.000us cuda_time=0.000us "
                f"input_shapes={self.input_shapes} cpu_memory_usage=0 cuda_memory_usage=0>")


class EventList(list):
    """A list of events: ``key_averages()``, ``table()``, ``total_average()``."""

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        stats: dict = {}
        for e in self:
            k = (e.key, str(e.input_shapes)) if group_by_input_shape else (e.key,)
            avg = stats.get(k)
            if avg is None:
                avg = stats[k] = FunctionEventAvg(e.key, e.input_shapes
                                                  if group_by_input_shape else "")
            avg.add(e)
        return EventList(stats.values())

    def total_average(self):
        total = FunctionEventAvg("Total", "")
        for e in self:
            total.add(e)
        return total

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as torch's profiler table."""
        return _build_table(self, sort_by, header, row_limit, max_name_column_width,
                            max_shapes_column_width, top_level_events_only, time_unit)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        import json

        trace = [{"name": e.name, "ph": "X", "ts": e.start, "dur": e.cpu_time_total,
                  "pid": "CPU functions", "tid": 0, "args": {}} for e in self]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)


def _override_time(us, default, unit):
    if unit == "s":
        return f"{us / 1e6:.3f}s"
    if unit == "ms":
        return f"{us / 1e3:.3f}ms"
    if unit == "us":
        return f"{us:.3f}us"
    return default


def _build_table(events, sort_by, header, row_limit, max_name, max_shapes, top_only,
                 time_unit):
    if not events:
        return ""
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device")
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    name_w = max(len(e.key) for e in events) + 4
    if max_name is not None:
        name_w = min(name_w, max_name)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes is not None:
        shapes_w = min(shapes_w, max_shapes)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
               "# of Calls"]
    widths = [name_w] + [12] * (len(headers) - 1)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_w)
    row_format = "".join("{: >" + str(w) + "}  " for w in widths)
    sep = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2
    total_self = sum(e.self_cpu_time_total for e in events)
    out = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [sep, row_format.format(*headers), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_only and getattr(e, "cpu_parent", None) is not None:
            continue
        shown += 1
        name = e.key
        if max_name is not None and len(name) >= max_name - 3:
            name = name[:max_name - 3] + "..."
        row = [name, _format_share(e.self_cpu_time_total, total_self),
               _override_time(e.self_cpu_time_total, e.self_cpu_time_total_str, time_unit),
               _format_share(e.cpu_time_total, total_self),
               _override_time(e.cpu_time_total, e.cpu_time_total_str, time_unit),
               _override_time(e.cpu_time, e.cpu_time_str, time_unit), e.count]
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        out.append(row_format.format(*row))
    total_str = _override_time(total_self, _format_time(total_self), time_unit)
    out += [sep, f"Self CPU time total: {total_str}"]
    return "".join(line + "\n" for line in out)


# ------------------------------------------------------------------------------ recording
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=None)
def aten_name(op):
    """``aten::mm`` for an op whose node torch calls MmBackward0 (the engine's name else)."""
    name = getattr(op, "torch_name", None)
    if not name:
        return f"aten::{op.name}"
    base = re.sub(r"Backward\d*$", "", name)
    return "aten::" + _CAMEL.sub("_", base).lower()


class _Recorder:
    def __init__(self, record_shapes):
        self.events = []
        self.stack = []
        self.record_shapes = record_shapes

    def open(self, name, shapes=None):
        parent = self.stack[-1] if self.stack else None
        e = FunctionEvent(name, shapes, parent)
        if parent is not None:
            parent.cpu_children.append(e)
        self.events.append(e)
        self.stack.append(e)
        e.start = _perf() * 1e6
        return e

    def close(self, e):
        e.cpu_time_total = _perf() * 1e6 - e.start
        self.stack.remove(e)
        if e.cpu_parent is not None:
            e.cpu_parent.children_time += e.cpu_time_total


def _shapes(inputs):
    from .._base import raw

    return [list(raw(t).shape) for t in inputs]


def _timing_layer(inner):
    def apply(op, inputs, attrs=None):
        rec = _ACTIVE[-1]._rec if _ACTIVE else None
        if rec is None:
            return inner(op, inputs, attrs)
        e = rec.open(aten_name(op), _shapes(inputs) if rec.record_shapes else None)
        try:
            return inner(op, inputs, attrs)
        finally:
            rec.close(e)
    return apply


def _torch_ops():
    """The dialect's op copies (their backward nodes are torch's ``...Backward0``)."""
    from ...engine.registry import OpDef
    from .. import _ops
    from ..nn import _spatial

    ops = list(_ops._COPIES.values())
    ops += [v for v in vars(_spatial).values() if isinstance(v, OpDef)]
    return [op for op in ops if op.vjp is not None and getattr(op, "torch_name", None)]


def _timed_vjp(op, vjp):
    name = f"autograd::engine::evaluate_function: {op.torch_name}"

    def timed(node, *grads):
        rec = _ACTIVE[-1]._rec if _ACTIVE else None
        if rec is None:
            return vjp(node, *grads)
        e = rec.open(name, [] if rec.record_shapes else None)
        try:
            return vjp(node, *grads)
        finally:
            rec.close(e)
    timed.__wrapped_vjp__ = vjp
    return timed


def _time_backward(on):
    """Backward nodes become events too while a profile runs (their VJPs wrapped)."""
    for op in _torch_ops():
        inner = getattr(op.vjp, "__wrapped_vjp__", None)
        if on and inner is None:
            op.vjp = _timed_vjp(op, op.vjp)
        elif not on and inner is not None:
            op.vjp = inner


class profile:
    """``with profile() as prof:`` times the ops run inside; ``prof.key_averages()``."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=True, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.function_events = None
        self._rec = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._rec = _Recorder(self.record_shapes)
        _ACTIVE.append(self)
        from .. import _dispatch

        _dispatch.set_layer("profiler", _timing_layer)
        _time_backward(True)
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        _ACTIVE.remove(self)
        if not _ACTIVE:
            from .. import _dispatch

            _dispatch.set_layer("profiler", None)
            _time_backward(False)
        self.function_events = EventList(self._rec.events)
        self._rec = None
        return False

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        self._check_finish()
        return self.function_events.table(sort_by, row_limit, max_src_column_width,
                                          max_name_column_width, max_shapes_column_width,
                                          header, top_level_events_only)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def __str__(self):
        self._check_finish()
        return str(self.function_events)

    __repr__ = __str__


class record_function:
    """A named span in the profile (a context manager or a decorator)."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._event = None

    def __enter__(self):
        rec = _ACTIVE[-1]._rec if _ACTIVE else None
        if rec is not None:
            self._event = (rec, rec.open(self.name, [] if rec.record_shapes else None))
        return self

    def __exit__(self, *exc):
        if self._event is not None:
            rec, e = self._event
            rec.close(e)
            self._event = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapped

