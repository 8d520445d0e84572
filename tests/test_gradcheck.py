"""Every registered op's VJP, checked against finite differences, first and second order.

The tests are generated from the op registry: whatever is registered when the tests are
collected is checked, using each entry's own metadata (see ``OpDef`` in
``gradrepl/engine/registry.py``):

- ``examples``: ``[(inputs, attrs)]``; an input is a shape tuple (values are drawn) or a concrete
  numpy array (used as given: integer/bool arrays are indices, labels or masks and are never
  perturbed);
- ``domain``: where drawn values live (``DOMAINS`` below), so the op is smooth around them;
- ``diff_inputs`` / ``diff_outputs``: which inputs are checked and which outputs carry gradients;
- ``check=False``: piecewise-constant or otherwise not checkable (skipped);
  ``second_order=False``: only the first order is checked;
- ``broadcast=True``: also checked with inputs that broadcast against each other.

First order: for a random cotangent ``u`` of the outputs, the VJP (run by the engine's backward,
capturing the inputs' gradients) must equal the central finite differences of ``<f(x), u>``.
Second order: for a random direction ``v``, differentiating ``<vjp(x), v>`` again through the
graph the VJP built (``create_graph=True``) must equal the finite differences of that same
first-order quantity. A VJP written with raw numpy on gradient values passes the first check and
fails the second. Values are float64, drawn with hypothesis (derandomized, so runs repeat).

Run one op with ``pytest tests/test_gradcheck.py -k exp``.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gradrepl.engine  # noqa: F401  (registers the engine's ops)
import gradrepl.paddle  # noqa: F401  (and any op the API layer registers)
from gradrepl.engine import OPS, OpDef, Tensor, apply, enable_grad, run_backward

STEP = 1e-6    # central-difference step
RTOL = 1e-4    # |analytic - numeric| <= ATOL + RTOL * |numeric|
ATOL = 1e-5
MAX_EXAMPLES = 10

HYPOTHESIS = settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
                      phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                             HealthCheck.filter_too_much])


# ------------------------------------------------------------------------------ domains
def _away_from_zero():
    return st.tuples(st.floats(0.3, 2.0), st.booleans()).map(lambda t: t[0] if t[1] else -t[0])


# element strategies per domain; "distinct" is drawn jointly over all inputs (draw_distinct)
ELEMENTS = {
    "real": st.floats(-2.0, 2.0),
    "positive": st.floats(0.5, 2.0, exclude_min=True, exclude_max=True),
    "unit": st.floats(-0.9, 0.9, exclude_min=True, exclude_max=True),
    "away0": _away_from_zero(),
}
DOMAINS = set(ELEMENTS) | {"distinct"}


# ------------------------------------------------------------------------------ cases
class Case:
    """One op applied to one list of input specs (shapes or concrete arrays) with attrs."""

    __slots__ = ("op", "label", "specs", "attrs")

    def __init__(self, op: OpDef, label: str, specs: tuple, attrs: dict):
        self.op = op
        self.label = label
        self.specs = specs
        self.attrs = attrs

    @property
    def op_name(self):
        return self.op.name

    @property
    def id(self):
        return f"{self.op_name}-{self.label}"

    def __repr__(self):
        return f"<case {self.id} attrs={self.attrs}>"


def is_shape(spec) -> bool:
    return isinstance(spec, (tuple, list)) and all(
        isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in spec)


def checkable_ops():
    return [op for op in OPS.values() if op.check and op.vjp is not None]


def example_cases():
    """One case per example of every checkable op (malformed examples: see test_op_metadata)."""
    cases = []
    for op in checkable_ops():
        for k, example in enumerate(op.examples):
            if example_problems(op, k, example):
                continue
            specs, attrs = example
            cases.append(Case(op, f"ex{k}", tuple(specs), dict(attrs)))
    return cases


# shapes that broadcast against each other: [2,3]/[3], [2,1]/[1,3], 0-D/[2,2] (both orders)
BROADCAST_PAIRS = [((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2))]


def _shape_label(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def is_elementwise_broadcast(op) -> bool:
    """An op whose inputs broadcast against each other elementwise (add, maximum, pow...).

    ``broadcast=True`` also marks ops that only need the central gradient reduction (writing a
    broadcast value into a slice, masked_select), so the variant is generated only for entries
    whose first example is two or more input shapes without attrs.
    """
    if not op.broadcast or not op.examples or example_problems(op, 0, op.examples[0]):
        return False
    specs, attrs = op.examples[0]
    return len(specs) >= 2 and not attrs and all(is_shape(s) for s in specs)


def broadcast_cases():
    """Broadcasting variants ([2,3]/[3], [2,1]/[1,3], 0-D/[2,2]) of elementwise broadcast ops."""
    cases = []
    for op in checkable_ops():
        if not is_elementwise_broadcast(op):
            continue
        specs, attrs = op.examples[0]
        for a, b in BROADCAST_PAIRS:
            for first, second in ((a, b), (b, a)):
                shapes = (first, second) + (second,) * (len(specs) - 2)
                label = f"bcast-{_shape_label(first)}-{_shape_label(second)}"
                cases.append(Case(op, label, shapes, dict(attrs)))
    return cases


def second_order_cases(cases):
    return [c for c in cases if c.op.second_order]


def params(cases):
    return [pytest.param(c, id=c.id) for c in cases]


# ------------------------------------------------------------------------------ drawing inputs
@st.composite
def draw_distinct(draw, shapes):
    """Arrays of the given shapes whose values are all pairwise far apart (no ties anywhere).

    A random permutation of evenly spaced slots in (-2, 2), each moved by its own random
    fraction of the spacing, so that no difference of two values is a round number either
    (kinks such as ``|x - y| = delta`` of a Huber loss are not hit).
    """
    total = int(sum(np.prod(s, dtype=int) for s in shapes))
    order = draw(st.permutations(range(total))) if total else []
    spacing = 4.0 / max(total, 1)
    jitter = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).uniform(0.1, 0.4, total)
    values = -2.0 + spacing * (np.asarray(order, dtype=np.float64) + 0.5 + jitter)
    arrays, start = [], 0
    for s in shapes:
        n = int(np.prod(s, dtype=int))
        arrays.append(values[start:start + n].reshape(s))
        start += n
    return arrays


@st.composite
def draw_inputs(draw, case):
    """The op's input arrays: shapes drawn in the op's domain (float64), arrays as given."""
    domain = case.op.domain
    if domain not in DOMAINS:
        raise ValueError(f"op {case.op_name}: unknown domain {domain!r}; use one of {sorted(DOMAINS)}")
    shape_specs = [tuple(s) for s in case.specs if is_shape(s)]
    if domain == "distinct":
        drawn = iter(draw(draw_distinct(shape_specs)))
    else:
        drawn = iter([draw(hnp.arrays(np.float64, s, elements=ELEMENTS[domain]))
                      for s in shape_specs])
    arrays = []
    for spec in case.specs:
        if is_shape(spec):
            arrays.append(np.array(next(drawn), dtype=np.float64))
        elif isinstance(spec, np.ndarray):
            arrays.append(spec.astype(np.float64) if spec.dtype.kind == "f" else spec.copy())
        else:
            raise TypeError(f"op {case.op_name} {case.label}: an example input must be a shape "
                            f"tuple or a numpy array, got {spec!r}")
    return arrays


class Problem:
    """Everything one check needs: inputs, which are checked, cotangents and directions."""

    __slots__ = ("case", "arrays", "checked", "diff_outputs", "cotangents", "directions")

    def __init__(self, case, arrays, checked, diff_outputs, cotangents, directions):
        self.case = case
        self.arrays = arrays              # the op's inputs (float64 where float)
        self.checked = checked            # indices of inputs whose gradient is checked
        self.diff_outputs = diff_outputs  # indices of outputs that carry a cotangent
        self.cotangents = cotangents      # one per differentiable output
        self.directions = directions      # one per checked input (second order)

    def __repr__(self):
        arrays = ", ".join(np.array2string(a, precision=4, separator=",").replace("\n", "")
                           for a in self.arrays)
        return f"<{self.case.id} inputs=[{arrays}] checked={self.checked}>"


def as_outputs(op, out):
    """The op's result as a list of outputs (``n_outputs=None``: a variable number, a tuple)."""
    return [out] if op.n_outputs == 1 else list(out)


def run_forward(case, arrays):
    """The op's numpy forward on copies of ``arrays``: the list of output arrays."""
    out = case.op.forward(*[a.copy() for a in arrays], **case.attrs)
    return [np.asarray(o) for o in as_outputs(case.op, out)]


@st.composite
def draw_problem(draw, case):
    op = case.op
    arrays = draw(draw_inputs(case))
    checked = [i for i, a in enumerate(arrays)
               if a.dtype.kind == "f" and (op.diff_inputs is None or i in op.diff_inputs)]
    outs = run_forward(case, arrays)
    if op.n_outputs is not None and len(outs) != op.n_outputs:
        raise AssertionError(f"op {op.name} {case.label}: forward returned {len(outs)} outputs, "
                             f"n_outputs is {op.n_outputs}")
    diff_outputs = [k for k, o in enumerate(outs)
                    if o.dtype.kind == "f" and (op.diff_outputs is None or k in op.diff_outputs)]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cotangents = [rng.standard_normal(outs[k].shape) for k in diff_outputs]
    directions = [rng.standard_normal(arrays[i].shape) for i in checked]
    return Problem(case, arrays, checked, diff_outputs, cotangents, directions)


# ------------------------------------------------------------------------------ analytic side
def leaf_tensors(p: Problem):
    return [Tensor(a.copy(), stop_gradient=i not in p.checked) for i, a in enumerate(p.arrays)]


def first_order_grads(p: Problem, arrays=None, create_graph=False):
    """The VJP of the op at ``arrays`` (default: the problem's) for the problem's cotangents.

    Returns (input tensors, gradients): one gradient Tensor or None per checked input.
    """
    q = p if arrays is None else Problem(p.case, arrays, p.checked, p.diff_outputs,
                                         p.cotangents, p.directions)
    xs = leaf_tensors(q)
    with enable_grad():
        outs = as_outputs(p.case.op, apply(p.case.op, xs, p.case.attrs))
    roots = [outs[k] for k in p.diff_outputs]
    seeds = [Tensor(u) for u in p.cotangents]
    grads = run_backward(roots, seeds, inputs=[xs[i] for i in p.checked],
                         create_graph=create_graph, retain_graph=create_graph)
    return xs, list(grads)


def grads_as_arrays(p: Problem, grads):
    """Gradient Tensors as arrays (zeros for None), checking each has its input's shape."""
    out = []
    for i, g in zip(p.checked, grads):
        shape = p.arrays[i].shape
        if g is None:
            out.append(np.zeros(shape))
            continue
        if g.data.shape != shape:
            raise AssertionError(f"{p.case.id}: the gradient of input {i} has shape "
                                 f"{list(g.data.shape)}, the input has shape {list(shape)}")
        out.append(np.asarray(g.data, dtype=np.float64))
    return out


def second_order_grads(p: Problem):
    """d/dx <vjp(x), v>, by running backward again through the graph the VJP built."""
    xs, grads = first_order_grads(p, create_graph=True)
    pairs = [(g, v) for g, v in zip(grads, p.directions) if g is not None and not g.stop_gradient]
    first = grads_as_arrays(p, grads)
    if not pairs:
        return first, [None] * len(p.checked)
    seconds = run_backward([g for g, _ in pairs], [Tensor(v) for _, v in pairs],
                           inputs=[xs[i] for i in p.checked])
    return first, list(seconds)


# ------------------------------------------------------------------------------ numeric side
def loss(p: Problem, arrays):
    """<f(x), u>: the op's outputs against the cotangents."""
    outs = run_forward(p.case, arrays)
    return float(sum(np.sum(outs[k] * u) for k, u in zip(p.diff_outputs, p.cotangents)))


def first_order_directional(p: Problem, arrays):
    """<vjp(x), v>: the first-order gradients against the directions."""
    _, grads = first_order_grads(p, arrays)
    return float(sum(np.sum(g * v) for g, v in zip(grads_as_arrays(p, grads), p.directions)))


def numeric_grads(p: Problem, fn):
    """Central finite differences of the scalar ``fn(arrays)`` for every checked input."""
    result = []
    for i in p.checked:
        base = p.arrays[i]
        g = np.zeros(base.shape)
        for j in np.ndindex(base.shape):
            arrays = list(p.arrays)
            plus, minus = base.copy(), base.copy()
            plus[j] += STEP
            minus[j] -= STEP
            arrays[i] = plus
            f_plus = fn(p, arrays)
            arrays[i] = minus
            g[j] = (f_plus - fn(p, arrays)) / (2 * STEP)
        result.append(g)
    return result


# ------------------------------------------------------------------------------ comparing
def assert_close(p: Problem, what, analytic, numeric):
    for i, a, n in zip(p.checked, analytic, numeric):
        err = np.abs(a - n)
        if np.all(err <= ATOL + RTOL * np.abs(n)):
            continue
        inputs = "\n".join(f"  input {k}: {np.array2string(x, precision=6)}"
                           for k, x in enumerate(p.arrays))
        raise AssertionError(
            f"{p.case.id} ({p.case.op_name}, attrs {p.case.attrs}): {what} of input {i} is wrong, "
            f"max abs error {float(np.max(err)):.3g}\n{inputs}\n"
            f"  analytic: {np.array2string(a, precision=6)}\n"
            f"  numeric:  {np.array2string(n, precision=6)}")


def check_first_order(p: Problem):
    _, grads = first_order_grads(p)
    assert_close(p, "first-order gradient", grads_as_arrays(p, grads), numeric_grads(p, loss))


def check_second_order(p: Problem):
    first, seconds = second_order_grads(p)
    _, plain = first_order_grads(p)
    assert_close(p, "first-order gradient with create_graph=True", first,
                 grads_as_arrays(p, plain))
    assert_close(p, "second-order gradient", grads_as_arrays(p, seconds),
                 numeric_grads(p, first_order_directional))


def run_check(case: Case, check):
    """Run ``check`` on hypothesis-drawn problems for ``case``."""

    @HYPOTHESIS
    @given(problem=draw_problem(case))
    def run(problem):
        check(problem)

    run()


# ------------------------------------------------------------------------------ metadata
def metadata_problems(op):
    """What is wrong with an op's gradient-check metadata (empty list: nothing)."""
    problems = []
    if op.check and not op.examples:
        problems.append("check=True but no examples: add examples=[([shapes], {attrs})] "
                        "or set check=False")
    if op.check and op.vjp is None:
        problems.append("check=True but no vjp: a non-differentiable op needs check=False")
    if op.vjp is not None and not op.legacy_name:
        problems.append("no legacy_name (the 2.2-style backward op name, e.g. MulBackward)")
    if op.domain not in DOMAINS:
        problems.append(f"unknown domain {op.domain!r} (use one of {sorted(DOMAINS)})")
    for k, example in enumerate(op.examples):
        problems += example_problems(op, k, example)
    return problems


def example_problems(op, k, example):
    try:
        specs, attrs = example
    except (TypeError, ValueError):
        return [f"example {k} is not a pair (inputs, attrs): {example!r}"]
    if not isinstance(attrs, dict):
        return [f"example {k}: attrs must be a dict, got {attrs!r}"]
    problems = [f"example {k}: input {i} is neither a shape tuple nor a numpy array: {s!r}"
                for i, s in enumerate(specs) if not (is_shape(s) or isinstance(s, np.ndarray))]
    for i in op.diff_inputs or ():
        if not 0 <= i < len(specs):
            problems.append(f"example {k}: diff_inputs names input {i}, the example has "
                            f"{len(specs)} inputs")
    return problems


# ------------------------------------------------------------------------------ the tests
EXAMPLE_CASES = example_cases()
BROADCAST_CASES = broadcast_cases()


@pytest.mark.parametrize("case", params(EXAMPLE_CASES))
def test_first_order(case):
    run_check(case, check_first_order)


@pytest.mark.parametrize("case", params(second_order_cases(EXAMPLE_CASES)))
def test_second_order(case):
    run_check(case, check_second_order)


@pytest.mark.parametrize("case", params(BROADCAST_CASES))
def test_broadcast_first_order(case):
    run_check(case, check_first_order)


@pytest.mark.parametrize("case", params(second_order_cases(BROADCAST_CASES)))
def test_broadcast_second_order(case):
    run_check(case, check_second_order)


@pytest.mark.parametrize("op_name", sorted(OPS))
def test_op_metadata(op_name):
    """Each op has usable gradient-check metadata (so adding an op without it fails here)."""
    problems = metadata_problems(OPS[op_name])
    assert not problems, f"op {op_name}: " + "; ".join(problems)


def test_registry_is_checked():
    """The registry is not empty and the checker generated cases from it."""
    assert OPS, "no ops registered"
    assert EXAMPLE_CASES, "no gradient-check cases were generated"


# ------------------------------------------------------------------------------ the checker itself
def _square_vjp_correct(n, g):
    from gradrepl.engine.ops.math import multiply, scale

    return multiply(g, scale(n.inputs[0], 2.0))


def _square_vjp_wrong(n, g):
    from gradrepl.engine.ops.math import multiply, scale

    return multiply(g, scale(n.inputs[0], 3.0))


def _square_vjp_detached(n, g):
    """Right values, but computed with raw numpy: create_graph=True cannot see through it."""
    return Tensor(2.0 * n.inputs[0].data * g.data)


def _test_op(vjp):
    """An unregistered square op (the registry is not touched by these tests)."""
    return OpDef("test_square", lambda x: x * x, vjp, legacy_name="TestSquareBackward")


def test_checker_accepts_a_correct_vjp():
    case = Case(_test_op(_square_vjp_correct), "ex0", ((2, 3),), {})
    run_check(case, check_first_order)
    run_check(case, check_second_order)


def test_checker_catches_a_wrong_vjp():
    case = Case(_test_op(_square_vjp_wrong), "ex0", ((2, 3),), {})
    with pytest.raises(AssertionError, match="test_square-ex0.*first-order gradient of input 0"):
        run_check(case, check_first_order)


def test_checker_catches_a_vjp_that_is_not_differentiable_again():
    case = Case(_test_op(_square_vjp_detached), "ex0", ((2, 3),), {})
    run_check(case, check_first_order)
    with pytest.raises(AssertionError, match="second-order gradient of input 0"):
        run_check(case, check_second_order)


def test_checker_catches_missing_metadata():
    op = OpDef("test_nometa", lambda x: x, lambda n, g: g)
    problems = metadata_problems(op)
    assert any("no examples" in p for p in problems)
    assert any("legacy_name" in p for p in problems)


# ------------------------------------------------------------------------------ dropped inputs
DROPPING_CASES = [c for c in EXAMPLE_CASES + BROADCAST_CASES
                  if (not c.op.saves_inputs and not c.op.reads_inputs) or not c.op.saves_output]


@pytest.mark.parametrize("case", params(DROPPING_CASES))
def test_vjps_work_once_the_inputs_or_outputs_they_do_not_read_are_dropped(case, monkeypatch):
    """An op that saves no inputs lets go of large ones when it records (``drop_inputs``), and
    one whose VJP does not read its output lets go of a large output (``drop_outputs``); with
    the threshold below zero every recorded node does, and its gradients, first and second
    order, still check against finite differences."""
    from gradrepl.engine import registry

    monkeypatch.setattr(registry, "DROP_BYTES", -1)
    run_check(case, check_second_order if case.op.second_order else check_first_order)


def test_a_large_activation_is_not_kept_by_nodes_that_do_not_need_it():
    import gc
    import weakref

    import gradrepl.paddle as paddle

    x = paddle.randn([1, 4, 300, 300])       # 1.4 MB
    x.stop_gradient = False
    conv_out = paddle.nn.functional.conv2d(x, paddle.randn([4, 4, 3, 3]), padding=1)
    biased = conv_out + paddle.ones([1, 4, 1, 1])
    y = paddle.nn.functional.relu(biased)
    gone = weakref.ref(conv_out.data), weakref.ref(biased.data)
    del conv_out, biased
    gc.collect()
    assert gone[0]() is None and gone[1]() is None  # conv's output, the add's: both freed
    y.sum().backward()
    assert x.grad.shape == [1, 4, 300, 300]
