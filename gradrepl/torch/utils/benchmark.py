"""``torch.utils.benchmark``: ``Timer`` (``timeit``, ``blocked_autorange``) and the
``Measurement`` it returns, printed as torch prints it (the title, the time in the unit torch
picks, the number of measurements and runs)."""
from __future__ import annotations

import textwrap
import timeit as _timeit

import numpy as np

__all__ = ["Timer", "Measurement"]

_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def select_unit(t):
    """(unit, scale) for printing ``t`` seconds: ns, us, ms or s."""
    exp = int(np.floor(np.log10(t) // 3)) if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exp, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


class _TaskSpec:
    def __init__(self, stmt, setup, label, sub_label, description, num_threads):
        self.stmt, self.setup = stmt, setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.num_threads = num_threads

    @property
    def title(self):
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return (f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n"
                f"{textwrap.indent(self.stmt, '  ')}")

    def setup_str(self):
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self):
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


class Measurement:
    """The times of a Timer's runs: ``times`` (seconds per run), ``mean``, ``median``, ``iqr``."""

    def __init__(self, number_per_run, raw_times, task_spec):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    def _q(self, q):
        return float(np.quantile(np.array(sorted(self.times), np.float64), q))

    @property
    def median(self):
        return self._q(0.5)

    @property
    def mean(self):
        return float(np.mean(self.times))

    @property
    def iqr(self):
        return self._q(0.75) - self._q(0.25)

    @property
    def num_threads(self):
        return self.task_spec.num_threads

    @property
    def title(self):
        return self.task_spec.title

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    def _warnings(self):
        if self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD) and \
                self.meets_confidence(_IQR_WARN_THRESHOLD):
            return []
        msg = ("This suggests significant environmental influence."
               if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD)
               else "This could indicate system fluctuation.")
        return [f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% of the "
                f"median measurement.\n           {msg}"]

    def __repr__(self):
        n = len(self.raw_times)
        unit, scale = select_unit(self.median)
        lines = [f"<torch.utils.benchmark.utils.common.Measurement object at {hex(id(self))}>",
                 self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._q(0.25) / scale:.2f} "
                         f"to {self._q(0.75) / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {self.num_threads} "
                     f"thread{'s' if self.num_threads > 1 else ''}")
        lines += self._warnings()
        return "\n".join(lines).strip()

    __str__ = __repr__


class Timer:
    """Times ``stmt`` (a string run with ``globals``), as ``timeit`` does."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=None, globals=None,  # noqa: A002
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language="python"):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._task_spec = _TaskSpec(stmt, setup, label, sub_label, description, num_threads)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, globals=dict(globals or {}),
                                    timer=timer or _timeit.default_timer)

    def _run(self, number):
        return self._timer.timeit(number)

    def timeit(self, number=1000000):
        """Run ``stmt`` ``number`` times (after a warm-up) as one measurement."""
        self._run(max(int(number // 100), 2))
        return Measurement(number, [self._run(number)], self._task_spec)

    def _block_size(self, min_run_time):
        overhead = float(np.median([self._run(0) for _ in range(5)]))
        number = 1
        while True:
            taken = self._run(number)
            if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) \
                    or taken > min_run_time or number * 10 > 2147483647:
                return number
            number *= 10

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of runs until ``min_run_time`` seconds have been measured."""
        number = self._block_size(0.05)
        times, total = [], 0.0
        while total < min_run_time:
            t = self._run(number)
            times.append(t)
            total += t
            if callback:
                callback(number, t)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        return self.blocked_autorange(callback, max(min_run_time, 0.01))
