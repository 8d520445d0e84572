"""Pictures for a handout made under ``--safe``: the confined child sends each picture as data,
the parent draws it.

Graphviz cannot run in the child (no new processes), and the child is not trusted: so it sends
the picture model (``Graph.to_dict()``) and the options it was drawn with (``picture_data``),
and the parent (``draw``):

1. checks the data against a schema (``check``): only known keys, each of its type; ids of the
   one form gradrepl gives them (``t3``, ``b12``, ``bc0``: they are written into DOT as they
   are); every id a record refers to exists; strings, lists, shapes and record counts within
   limits; the options only those ``%graph`` takes, with their values;
2. rebuilds the ``Graph`` (``Graph.from_dict``) and writes the DOT with ``dot.py``, this
   process's own code, which quotes every name, label and value;
3. renders it here with a time limit and a size limit on the DOT and the SVG, and passes the
   SVG through ``sanitize.svg``.

Anything that fails a step (a key too many, a wrong type, a count over the limit, a render
that takes too long) gives that picture a note (``picture not drawn: ...``), never a failed
handout: the rest of the page is drawn.
"""
from __future__ import annotations

import re

# limits: far above any lesson's picture, far below what would hurt the parent
MAX_RECORDS = 6000            # tensors + ops + gradient variables + backward ops
MAX_LIST = 4096               # items in one list (inputs, chain lines, params ...)
MAX_STRING = 4000             # characters in one string (a long statement label)
MAX_DIMS = 32                 # a shape's dimensions
MAX_DATA = 8 * 1024 * 1024    # characters of one picture's JSON data, as the child sends it
MAX_DOT = 8 * 1024 * 1024     # characters of the DOT written from it
MAX_SVG = 32 * 1024 * 1024    # characters of the SVG Graphviz gives back
RENDER_SECONDS = 30           # one picture's Graphviz run (safe_budget.GRAPHVIZ_SECONDS)

_ID = re.compile(r"[A-Za-z]{1,3}[0-9]{1,7}\Z")   # gradrepl's ids (a digit: never a DOT keyword)
PROFILES = ("2.2", "2.6", "3", "torch")
VIEWS = ("forward", "backward", "both")


class PictureDataError(ValueError):
    """The data is not a picture gradrepl would send: one line saying what is wrong."""


# ---------------------------------------------------------------------------- the schema
# a type is a function (value, where) -> None raising PictureDataError
def _fail(where, what):
    raise PictureDataError(f"{where}: {what}")


def STR(v, where):
    if type(v) is not str:
        _fail(where, "not a string")
    if len(v) > MAX_STRING:
        _fail(where, f"a string longer than {MAX_STRING} characters")


def BOOL(v, where):
    if type(v) is not bool:
        _fail(where, "not true or false")


def INT(v, where):
    if type(v) is not int or not 0 <= v < 2 ** 63:
        _fail(where, "not a whole number from 0")


def ORDER(v, where):
    if type(v) is not int or not 0 <= v <= 64:
        _fail(where, "not a derivative order (0 to 64)")


def ID(v, where):
    if type(v) is not str or _ID.match(v) is None:
        _fail(where, "not an id")


def opt(t):
    def check(v, where):
        if v is not None:
            t(v, where)
    return check


def one_of(*values):
    def check(v, where):
        if type(v) not in (str, type(None)) or v not in values:
            _fail(where, f"not one of {', '.join(map(str, values))}")
    return check


def list_of(t, limit=MAX_LIST):
    def check(v, where):
        if type(v) is not list:
            _fail(where, "not a list")
        if len(v) > limit:
            _fail(where, f"more than {limit} items")
        for k, x in enumerate(v):
            t(x, f"{where}[{k}]")
    return check


def record(schema):
    def check(v, where):
        if type(v) is not dict:
            _fail(where, "not a record")
        if set(v) != set(schema):
            odd = sorted(set(v) ^ set(schema), key=str)[:3]
            _fail(where, f"keys {', '.join(map(repr, odd))} unknown or missing")
        for k, t in schema.items():
            t(v[k], f"{where}.{k}")
    return check


def dict_of(key, value, limit=MAX_LIST):
    def check(v, where):
        if type(v) is not dict:
            _fail(where, "not a record")
        if len(v) > limit:
            _fail(where, f"more than {limit} items")
        for k, x in v.items():
            key(k, f"{where} key")
            value(x, f"{where}[{k!r}]")
    return check


SHAPE = list_of(INT, MAX_DIMS)
IDS = list_of(ID)

TENSOR = record({"id": ID, "name": STR, "shape": SHAPE, "dtype": STR, "preview": opt(STR),
                 "stop_gradient": BOOL, "is_leaf": BOOL, "grad_var": opt(ID), "op": opt(ID),
                 "parameter": BOOL, "live": BOOL, "label": opt(STR), "cut": BOOL,
                 "unnamed": BOOL})
OP = record({"id": ID, "op": STR, "title": STR, "label": opt(STR), "inputs": IDS,
             "outputs": IDS, "backward": ID, "layers": list_of(STR), "order": ORDER,
             "calls": IDS})
GRAD_VAR = record({"id": ID, "name": STR, "tensor": ID, "shape": SHAPE, "dtype": STR,
                   "data": opt(STR), "grad_op": opt(ID), "kept": BOOL, "flow": opt(STR)})
BACKWARD = record({"id": ID, "name": STR, "kind": one_of("op", "accumulate"), "op": opt(STR),
                   "forward": opt(ID), "inputs": IDS, "outputs": list_of(opt(ID)),
                   "grad_pending_ops": IDS, "released": BOOL, "order": ORDER,
                   "deps": opt(INT), "state": one_of(None, "ready", "running", "done"),
                   "chain": list_of(STR, 64), "title": opt(STR)})
CLUSTER = record({"id": ID, "name": STR, "ops": IDS, "layers": list_of(STR)})
GROUP = record({"id": ID, "name": STR, "ops": dict_of(STR, INT),
                "params": list_of(lambda v, w: _param(v, w)), "param_values": INT,
                "param_grads": list_of(STR), "constants": INT})


def _param(v, where):
    if type(v) is not list or len(v) != 3:
        _fail(where, "not [name, shape, dtype]")
    STR(v[0], where + "[0]")
    SHAPE(v[1], where + "[1]")
    STR(v[2], where + "[2]")


def _none(v, where):
    if v is not None:
        _fail(where, "a step frame (a handout's pictures have none)")


GRAPH = record({"profile": one_of(*PROFILES), "targets": IDS, "tensors": list_of(TENSOR),
                "ops": list_of(OP), "grad_vars": list_of(GRAD_VAR),
                "backward_ops": list_of(BACKWARD), "clusters": list_of(CLUSTER),
                "step": _none, "groups": list_of(GROUP)})


def _size(v, where):
    STR(v, where)
    if not re.fullmatch(r"[0-9]{1,3}(\.[0-9]{1,3})?x[0-9]{1,3}(\.[0-9]{1,3})?", v):
        _fail(where, "not WxH")


def _number(low, high):
    def check(v, where):
        if type(v) not in (int, float) or not low < v <= high:
            _fail(where, f"not a number above {low} and at most {high}")
    return check


STYLE = record({"rankdir": one_of(None, "TB", "LR"), "size": opt(_size),
                "dpi": opt(_number(0, 600)), "theme": one_of(None, "light", "dark", "print"),
                "font_size": opt(_number(0, 200))})
PICTURE = record({"graph": GRAPH, "view": one_of(*VIEWS), "chain": BOOL, "title": opt(STR),
                  "style": opt(STYLE), "look": one_of("auto", "full", "compact")})


def check(data) -> None:
    """Raise ``PictureDataError`` unless ``data`` is a picture as ``picture_data`` makes it:
    the schema above, the record count, and every id referred to is a record's id."""
    PICTURE(data, "picture")
    g = data["graph"]
    n = sum(len(g[k]) for k in ("tensors", "ops", "grad_vars", "backward_ops"))
    if n > MAX_RECORDS:
        _fail("picture", f"{n} records, more than {MAX_RECORDS}")
    ids = {}
    for key in ("tensors", "ops", "grad_vars", "backward_ops"):
        for rec in g[key]:
            if rec["id"] in ids:
                _fail(f"graph.{key}", f"the id {rec['id']} twice")
            ids[rec["id"]] = key
    refs = [("targets", i, "tensors") for i in g["targets"]]
    for t in g["tensors"]:
        refs += [("tensor.grad_var", t["grad_var"], "grad_vars"), ("tensor.op", t["op"], "ops")]
    for o in g["ops"]:
        refs += [("op.inputs", i, "tensors") for i in o["inputs"]]
        refs += [("op.outputs", i, "tensors") for i in o["outputs"]]
    for gv in g["grad_vars"]:
        refs += [("grad_var.tensor", gv["tensor"], "tensors"),
                 ("grad_var.grad_op", gv["grad_op"], "backward_ops")]
    for b in g["backward_ops"]:
        refs += [("backward.outputs", i, "grad_vars") for i in b["outputs"]]
        refs += [("backward.grad_pending_ops", i, "backward_ops") for i in b["grad_pending_ops"]]
        refs += [("backward.inputs", i, ("tensors", "grad_vars")) for i in b["inputs"]]
        refs.append(("backward.forward", b["forward"], "ops"))
        if b["kind"] == "accumulate" and not b["outputs"]:
            _fail("backward", "an accumulation node that writes nothing")
    for where, i, kinds in refs:
        if i is not None and ids.get(i) not in ((kinds,) if isinstance(kinds, str) else kinds):
            _fail(where, f"{i} is no record of the picture")
    # an op's backward may be left out of a picture; a group is drawn for its own op only
    for gr in g["groups"]:
        if ids.get(gr["id"]) != "ops":
            _fail("graph.groups", f"{gr['id']} is no op of the picture")


# ---------------------------------------------------------------------------- both sides
def picture_data(pic) -> dict:
    """In the child: a ``viz.Picture`` as data (what ``draw`` takes)."""
    st = pic.style
    style = None if st is None else {
        "rankdir": st.rankdir, "size": st.size,
        "dpi": None if st.dpi is None else float(st.dpi), "theme": st.theme,
        "font_size": None if st.font_size is None else float(st.font_size)}
    return {"graph": pic.model.to_dict(), "view": pic.view, "chain": bool(pic.chain),
            "title": pic.title, "style": style, "look": pic.look}


def dot_of(data) -> str:
    """The DOT of checked picture data, written by this process's ``dot.py``."""
    from ..viz.dot import to_dot
    from ..viz.model import Graph
    from ..viz.theme import Style

    check(data)
    g = Graph.from_dict(data["graph"])
    style = None
    if data["style"] is not None:
        style = Style(**data["style"])
        if style.default:
            style = None
    return to_dot(g, view=data["view"], chain=data["chain"], title=data["title"], style=style,
                  look=data["look"])


def draw(data, seconds: float = RENDER_SECONDS) -> tuple[str | None, str | None]:
    """``(svg, None)``, or ``(None, why not)``: the picture ``data`` describes, checked, written
    as DOT here, rendered here and cleaned (``sanitize.svg``). Graphviz gets ``seconds`` (wall
    and CPU) and ``safe_budget.GRAPHVIZ_MEMORY_MB`` of address space, writes no file and dies
    with this process (``safe_budget.graphviz_preexec``)."""
    from ..viz import render
    from ..viz.sanitize import svg as clean_svg
    from .safe_budget import graphviz_preexec

    try:
        source = dot_of(data)
    except PictureDataError as exc:
        return None, f"its data from the sandbox was refused ({exc})"
    except Exception as exc:  # noqa: BLE001 - data that passed the schema but does not draw
        return None, f"its data from the sandbox does not draw ({type(exc).__name__})"
    if len(source) > MAX_DOT:
        return None, f"its DOT is larger than {MAX_DOT // (1024 * 1024)} MB"
    render.limits.preexec = graphviz_preexec(seconds)
    try:
        out = render.run_dot(source, "svg", timeout=seconds)
    except render.RenderError as exc:
        return None, str(exc).strip().splitlines()[0][:300]
    finally:
        render.limits.preexec = None
    if len(out) > MAX_SVG:
        return None, f"its SVG is larger than {MAX_SVG // (1024 * 1024)} MB"
    return clean_svg(out.decode("utf-8", "replace")), None


class Drawer:
    """Draws the child's pictures in a thread of the parent while the child runs on: the
    picture modules are imported and each picture rendered (``draw``) alongside the child, not
    after it. ``add(figure, data)`` as records come; ``finish()`` waits for the last one and
    sets each figure's ``svg``, or its ``note`` saying why not."""

    def __init__(self, budget=None):
        import queue
        import threading

        from .safe_budget import HANDOUT_SVG_MB

        self.budget = budget                             # the command's (safe_budget.Budget)
        self.svg_left = HANDOUT_SVG_MB * 1024 * 1024     # the handout's pictures, together
        self._queue = queue.Queue()
        self._thread = threading.Thread(target=self._work, name="gradrepl-safe-pictures",
                                        daemon=True)
        self._thread.start()

    def add(self, fig, data) -> None:
        self._queue.put((fig, data))

    def _work(self) -> None:
        try:
            from ..viz import dot, render, sanitize  # noqa: F401 - imported while the child runs
        except Exception:  # noqa: BLE001 - draw() says what fails, per picture
            pass
        while True:
            item = self._queue.get()
            if item is None:
                return
            fig, data = item
            seconds = RENDER_SECONDS
            if self.budget is not None:
                seconds = min(seconds, self.budget.left())
            try:
                if seconds <= 0:
                    fig.svg, why = None, "the time budget of replay --safe was used up"
                elif self.svg_left <= 0:
                    fig.svg, why = None, "the handout's pictures are over the --safe limit"
                else:
                    fig.svg, why = draw(data, seconds)
            except Exception as exc:  # noqa: BLE001 - one picture's note, never the page
                fig.svg, why = None, f"it could not be drawn ({type(exc).__name__})"
            if fig.svg is not None:
                self.svg_left -= len(fig.svg)
                if self.svg_left < 0:
                    fig.svg, why = None, "the handout's pictures are over the --safe limit"
            if fig.svg is None:
                fig.note = f"no picture of {fig.name}: {why}"

    def finish(self) -> None:
        self._queue.put(None)
        self._thread.join()
