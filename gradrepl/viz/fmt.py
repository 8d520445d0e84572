"""How a picture writes one number: short, in Paddle's style of float (``2.``, 4 significant
digits), ints as ints (``model.fmt_number``; below the picture model so that every module that
draws values can use it)."""
from __future__ import annotations

import numpy as np


def fmt_number(v) -> str:
    """One value, short: Paddle's style of float (``2.``), ints as ints."""
    if type(v) is float:
        return _fmt_float(v)
    if isinstance(v, (bool, np.bool_)):
        return "True" if v else "False"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (complex, np.complexfloating)):
        return f"{complex(v):.4g}"
    return _fmt_float(float(v))


def _fmt_float(f: float) -> str:
    if f != f or f == _INF or f == -_INF:
        return str(f)
    s = f"{f:.4g}"
    if "." not in s and "e" not in s:
        s += "."
    return s


_INF = float("inf")
