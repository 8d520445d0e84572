"""The lines real Paddle's C++ core logs to stderr through glog before some exceptions.

glog's prefix is ``Lmmdd hh:mm:ss.uuuuuu  tid file:line] `` (severity letter, local time,
the thread id right-aligned in five columns). Which line a version logs, and from which source
line, is measured per profile: ``NODE_FAILED`` (eager backward.cc, 3.3.1: a grad node that raised)
and ``PLACE`` (place.cc: a GPU place asked of a CPU-only Paddle, 3.3.1 and 2.6.2).
"""
from __future__ import annotations

import datetime
import sys
import threading

from . import profiles

# profile key -> source line; a version absent here logs nothing (2.6.2's backward is silent)
NODE_FAILED = {"3": 685}
PLACE = {"CUDAPlace": {"3": 443, "2.6": 350}, "XPUPlace": {"3": 531, "2.6": 434}}


# A binary op whose two tensors differ in dtype and promote (float32 with float64, and in 3.x a
# float with an integer 0-D tensor, ...) logs once a process from its generated C++ function
# (LOG_FIRST_N): op -> (file, line) per profile, measured on real 3.3.1 and 2.6.2 (float32 with
# float64 tensors, and 3.3.1's other promoting pairs; an op that raises TypeError logs nothing).
# 2.6.2 logs only for the ops that widen floats there (add, subtract, multiply, where).
_DYG = "dygraph_functions.cc"
PROMOTION = {
    "3": {"add": (_DYG, 121856), "subtract": (_DYG, 130040),
          "multiply": ("multiply_fwd_func.cc", 86),
          "divide": (_DYG, 123772), "floor_divide": (_DYG, 125339), "remainder": (_DYG, 128798),
          "elementwise_pow": (_DYG, 124462), "maximum": (_DYG, 127697),
          "minimum": (_DYG, 128130), "equal": (_DYG, 125051), "not_equal": (_DYG, 128350),
          "less_than": (_DYG, 127174), "less_equal": (_DYG, 126886),
          "greater_than": (_DYG, 126399), "greater_equal": (_DYG, 126111),
          "logical_and": (_DYG, 66073), "logical_or": (_DYG, 66614), "logical_xor": (_DYG, 66902),
          "fmax": (_DYG, 43714), "fmin": (_DYG, 43946), "where": (_DYG, 118490),
          # the in-place twins' own functions (x.add_(y) with two float widths)
          "add_": (_DYG, 122072), "subtract_": (_DYG, 130256),
          "multiply_": ("multiply_fwd_func.cc", 315), "divide_": (_DYG, 123988)},
    "2.6": {"add": (_DYG, 52647), "subtract": (_DYG, 68164),
            "multiply": ("multiply_fwd_func.cc", 64),
            "where": (_DYG, 51846)},
}
# the text per profile (multiply's own file words it in lower case in 3.3.1; 2.6.2 misspells it)
_PROMOTION_TEXT = {"3": "Got different data type, run type promotion automatically, this may "
                        "cause data type been changed.",
                   "2.6": "got different data type, run type protmotion automatically, this may "
                          "cause data type been changed."}
_promoted: set = set()


def promoted(op: str) -> None:
    """Two tensors of ``op`` promoted to a common dtype: its one log line, the first time."""
    key = profiles.current().key
    where = PROMOTION.get(key, {}).get(op)
    if where is None or (key, op) in _promoted:
        return
    _promoted.add((key, op))
    text = _PROMOTION_TEXT[key]
    if where[0] != _DYG:
        text = "g" + text[1:]
    log("W", f"{where[0]}:{where[1]}", text)


# 3.x's math functions that compute an integer input in float32 log once a process, each from
# its generated function (dygraph_functions.cc, measured on 3.3.1 with an int64 input)
AUTOCAST = {"3": {"sqrt": 104469, "rsqrt": 94626, "reciprocal": 88929, "sin": 101289,
                  "cos": 22329, "tan": 108538, "asin": 7242, "acos": 765, "atan": 8509,
                  "sinh": 101686, "cosh": 22726, "tanh": 108935, "sigmoid": 99848, "erf": 33764,
                  "asinh": 7639, "acosh": 1162, "atanh": 9138, "lgamma": 62558, "erfinv": 34161,
                  "i0": 53817, "i0e": 54214, "i1": 54420, "i1e": 54626, "digamma": 29572,
                  "logsumexp": 67947}}
_AUTOCAST_TEXT = ("math operation got integer input data type, run type autocast, this may cause "
                  "data type been changed.")


def autocast(op: str) -> None:
    """An integer input of ``op`` computed in float32 (3.x): its one log line, the first time."""
    key = profiles.current().key
    line = AUTOCAST.get(key, {}).get(op)
    if line is None or (key, "autocast", op) in _promoted:
        return
    _promoted.add((key, "autocast", op))
    log("W", f"{_DYG}:{line}", _AUTOCAST_TEXT)


# lines logged once a process by the static executor (measured 3.3.1 / 2.6.2): "save" at
# jit.save's first program run (2.6.2 only), "run" when a jit.load-ed model first runs
EXECUTOR = {
    "save": {"2.6": [("I", "program_interpreter.cc:212", "New Executor is Running.")]},
    "run": {"3": [("I", "pir_interpreter.cc:1606", "New Executor is Running ..."),
                  ("I", "pir_interpreter.cc:1630",
                   "pir interpreter is running by multi-thread mode ...")],
            "2.6": [("W", "tensor.cc:399", "The `is_initialized` method is deprecated since "
                     "version 2.3, and will be removed in version 2.4! Please use `initialized` "
                     "method instead.")]},
    # paddle.static: an Executor's first run, a static.nn.fc call (3.3.1), the first run of a
    # program with an optimizer's minimize op (2.6.2) (measured on real 3.3.1 / 2.6.2)
    "static_run": {"3": [("I", "pir_interpreter.cc:1529", "New Executor is Running ..."),
                         ("I", "pir_interpreter.cc:1552",
                          "pir interpreter is running by multi-thread mode ...")]},
    #   (2.6.2's first run logs the line of "save", once for both: Executor.run logs "save" too)
    "static_fc": {"3": [("W", "eager_utils.cc:3584",
                         "Paddle static graph(PIR) not support input out tensor for now!!!!!")]},
    "static_train": {"2.6": [("I", "interpreter_util.cc:624", "Standalone Executor is Used.")]},
}


def executor(event: str) -> None:
    """The executor's once-a-process lines for ``event`` (a key of ``EXECUTOR``), if any."""
    key = profiles.current().key
    if (key, "executor", event) in _promoted:
        return
    _promoted.add((key, "executor", event))
    for severity, where, text in EXECUTOR[event].get(key, ()):
        log(severity, where, text)


def log(severity: str, where: str, text: str) -> None:
    """Write one glog record (``severity`` I, W, E or F) the way Paddle's core does."""
    now = datetime.datetime.now()
    tid = threading.get_native_id()
    sys.stderr.write(f"{severity}{now:%m%d %H:%M:%S}.{now.microsecond:06d} {tid:>5} "
                     f"{where}] {text}\n")
    sys.stderr.flush()


def node_failed(node_name: str) -> None:
    """Before an exception out of a grad node: ``While running Node (XGradNode) raises ...``."""
    line = NODE_FAILED.get(profiles.current().key)
    if line is not None:
        log("W", f"backward.cc:{line}",
            f"While running Node ({node_name}) raises an EnforceNotMet exception")


def place_refused(place: str, text: str) -> None:
    """A CUDAPlace/XPUPlace on a CPU-only build: the reason, logged before the error."""
    line = PLACE[place].get(profiles.current().key)
    if line is not None:
        log("E", f"place.cc:{line}", text)
