"""Names of the ``paddle`` namespace that tutorials call (the in-place twins ``sin_`` ...,
``finfo``/``iinfo``, ``get_flags``/``set_flags``, ``einsum``): each case script in
``tests/data/namespace/`` is our own, and its expected output was printed by real Paddle 3.3.1
(``*.p3.txt``) and 2.6.2 (``*.p26.txt``)."""
from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from helpers import run_source

DATA = Path(__file__).parent / "data" / "namespace"
CASES = sorted(p.stem for p in DATA.glob("*.py"))
PROFILES = {"3": "p3", "2.6": "p26"}


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("case", CASES)
def test_case_prints_what_real_paddle_printed(case, profile, tmp_path):
    src = (DATA / f"{case}.py").read_text()
    if "from IPython" in src:       # (the case prints through IPython's pretty printer, as a
        pytest.importorskip("IPython")  # notebook shows values; the dev extra installs it)
    expected = _expected(case, profile).read_text()
    assert run_source(src, profile, tmp_path) == expected


def _expected(case, profile):
    """The record of real Paddle for this machine: ``{case}.{p3|p26}.{MKL path}.txt`` where one
    was made on a CPU whose MKL path this is (einsum on the Intel Sapphire Rapids Xeon, MKL's
    AVX512_E1 path: Paddle's einsum is MKL's sgemm there, fused), else the common record."""
    from gradrepl.engine import cpu, mkl

    name = f"{case}.{PROFILES[profile]}"
    if mkl.load() and cpu.cpu_class() == cpu.detected() != "amd":
        here = DATA / f"{name}.{mkl.branch()}.txt"
        if here.exists():
            return here
        if any(DATA.glob(f"{name}.*.txt")):     # recorded on another MKL path only
            reason = (f"{case}: Paddle computes it with MKL on Intel, recorded where MKL's path is "
                      f"{', '.join(p.name.split('.')[-2] for p in DATA.glob(f'{name}.*.txt'))}; "
                      f"here it is {mkl.branch()}: bytes not compared")
            print(reason)
            pytest.skip(reason)
    return DATA / f"{name}.txt"


def test_every_twin_is_its_function_stored_back():
    import numpy as np

    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles
    from gradrepl.paddle.tensor import exported, inplace

    profiles.set_profile("3")
    try:
        have = exported()
        twins = inplace.make(have)
        assert {"sin_", "cumsum_", "equal_", "transpose_", "sub_"} <= set(twins)
        unary = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                 "atanh", "erf", "expm1", "digamma", "lgamma", "log", "log10", "log1p", "log2",
                 "frac", "i0", "trunc", "tril", "triu", "sinc")
        binary = ("pow", "remainder", "mod", "floor_mod", "hypot", "multiply", "subtract",
                  "divide", "copysign")
        for name in unary + binary:
            y = paddle.to_tensor([[0.5, 0.25], [2.0, 1.5]])
            args = (y,) if name in binary else ()
            x = paddle.to_tensor([[0.25, 0.5], [0.75, 0.125]])
            want = have[name](x, *args).numpy()
            got = getattr(paddle, name + "_")(x, *args)
            assert got is x, name
            np.testing.assert_array_equal(x.numpy(), want, err_msg=name)
            assert str(inspect.signature(twins[name + "_"])) == str(inspect.signature(have[name]))
    finally:
        profiles.set_profile("2.2")


def test_twins_paddle_26_lacks_are_attribute_errors_under_26():
    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile("2.6")
    try:
        assert callable(paddle.sin_)
        with pytest.raises(AttributeError):
            paddle.sub_  # noqa: B018 (3.x only)
        with pytest.raises(AttributeError):
            paddle.to_tensor([1.0]).sub_  # noqa: B018
    finally:
        profiles.set_profile("2.2")


def test_help_shows_paddle_modules_and_a_docstring_for_every_function(tmp_path):
    import pydoc

    import gradrepl.paddle as paddle
    from gradrepl.paddle import profiles

    profiles.set_profile("3")
    try:
        names = set(n for n in dir(paddle) if not n.startswith("_")) | {
            n for n in paddle._SINCE3 if hasattr(paddle, n)}  # (TopKRetType ...: not Paddle names)
        functions = {n: getattr(paddle, n) for n in names}
        functions = {n: f for n, f in functions.items() if inspect.isfunction(f)}
        assert len(functions) > 400
        undocumented = sorted(n for n, f in functions.items() if not (f.__doc__ or "").strip())
        assert undocumented == []
        internal = sorted(n for n, f in functions.items() if "gradrepl" in f.__module__)
        assert internal == []
    finally:
        profiles.set_profile("2.2")
    text = pydoc.render_doc(paddle.ones, renderer=pydoc.plaintext)
    assert "ones(shape, dtype=None, name=None)" in text and "gradrepl" not in text
    assert paddle.ones.__module__ == "paddle.tensor.creation"
    assert paddle._SINCE3["clamp"].__module__ == "paddle.tensor.math"
