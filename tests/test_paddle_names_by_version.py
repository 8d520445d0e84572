"""Each emulated Paddle module exposes the names of the emulated version (issue 28, names_gate.py):
under a 2.x profile a name only Paddle 3.3.1 has is real 2.6.2's AttributeError, ``hasattr`` is
False, ``dir()`` does not list it; under 3 the 3.3.1 names answer. Messages recorded from real
Paddle 2.6.2 (/work/vpaddle26) on this machine."""
import importlib

import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import profiles
from gradrepl.paddle._paddle_names import NAMES

MODULES = ["paddle", "paddle.nn", "paddle.nn.functional", "paddle.nn.initializer",
           "paddle.linalg", "paddle.optimizer", "paddle.optimizer.lr", "paddle.io",
           "paddle.vision.transforms", "paddle.vision.models", "paddle.metric", "paddle.static",
           "paddle.autograd", "paddle.distribution", "paddle.vision", "paddle.vision.ops",
           "paddle.vision.datasets", "paddle.text", "paddle.signal", "paddle.audio",
           "paddle.audio.functional", "paddle.audio.features", "paddle.nn.utils",
           "paddle.geometric", "paddle.utils", "paddle.regularizer"]


@pytest.fixture(params=["2.6", "3"])
def version(request):
    before = profiles.current()
    profiles.set_profile(request.param)
    yield request.param
    profiles.set_profile(before)


def _module(qualname):
    return importlib.import_module("gradrepl." + qualname)


@pytest.mark.parametrize("qualname", MODULES)
def test_dir_lists_only_the_versions_names_and_the_other_versions_raise(version, qualname):
    mod = _module(qualname)
    mine = NAMES[version][qualname]
    other = NAMES["3" if version == "2.6" else "2.6"][qualname] - mine
    listed = {n for n in dir(mod) if not n.startswith("_")}
    assert listed <= mine, sorted(listed - mine)
    for name in other:
        assert not hasattr(mod, name), name
        with pytest.raises(AttributeError) as e:
            getattr(mod, name)
        assert str(e.value) == f"module '{qualname}' has no attribute '{name}'"
    for name in listed:  # what dir() lists answers
        getattr(mod, name)


def test_tensor_names_follow_the_version(version):
    T = paddle.Tensor
    t = paddle.ones([2])
    mine = NAMES[version]["paddle.Tensor"]
    other = NAMES["3" if version == "2.6" else "2.6"]["paddle.Tensor"] - mine
    assert {n for n in dir(T) if not n.startswith("_")} <= mine
    assert {n for n in dir(t) if not n.startswith("_")} <= mine
    for name in other:
        assert not hasattr(T, name) and not hasattr(t, name), name


# real Paddle 2.6.2, this machine
REAL_26 = [
    ("paddle.nn", "SiLU", "module 'paddle.nn' has no attribute 'SiLU'"),
    ("paddle.nn.functional", "swiglu", "module 'paddle.nn.functional' has no attribute 'swiglu'"),
    ("paddle.optimizer", "NAdam", "module 'paddle.optimizer' has no attribute 'NAdam'"),
    ("paddle.io", "Foo", "module 'paddle.io' has no attribute 'Foo'"),
    ("paddle.optimizer.lr", "Foo", "module 'paddle.optimizer.lr' has no attribute 'Foo'"),
    ("paddle.metric", "Foo", "module 'paddle.metric' has no attribute 'Foo'"),
    ("paddle.linalg", "Foo", "module 'paddle.linalg' has no attribute 'Foo'"),
]


@pytest.mark.parametrize("qualname,name,message", REAL_26)
def test_messages_of_real_paddle_26(qualname, name, message):
    before = profiles.current()
    profiles.set_profile("2.6")
    try:
        with pytest.raises(AttributeError) as e:
            getattr(_module(qualname), name)
        assert str(e.value) == message
    finally:
        profiles.set_profile(before)


def test_from_import_hasattr_all_and_layers_that_need_a_3x_function():
    before = profiles.current()
    try:
        profiles.set_profile("2.6")
        nn = paddle.nn
        # real 2.6.2: False False False; ImportError "cannot import name 'SiLU' from 'paddle.nn'"
        assert (hasattr(nn, "SiLU"), "SiLU" in dir(nn), "SiLU" in nn.__all__) == (False,) * 3
        with pytest.raises(ImportError, match="cannot import name 'SiLU'"):
            from gradrepl.paddle.nn import SiLU  # noqa: F401
        for name in ("requires_grad", "apply", "tensor_split"):  # real 2.6.2's wording
            with pytest.raises(AttributeError) as e:
                getattr(paddle.Tensor, name)
            assert str(e.value) == f"type object 'Tensor' has no attribute '{name}'"
            with pytest.raises(AttributeError) as e:
                getattr(paddle.ones([1]), name)
            assert str(e.value) == f"'Tensor' object has no attribute '{name}'"
        # nn.GroupNorm is in 2.6.2 (F.group_norm is not): it still runs
        assert nn.GroupNorm(2, 4)(paddle.ones([1, 4, 2, 2])).shape == [1, 4, 2, 2]
        profiles.set_profile("3")
        # real 3.3.1: True True True
        assert (hasattr(nn, "SiLU"), "SiLU" in dir(nn), "SiLU" in nn.__all__) == (True,) * 3
        from gradrepl.paddle.nn import SiLU  # noqa: F401,F811
        assert hasattr(paddle.Tensor, "requires_grad") and hasattr(paddle.ones([1]), "apply")
    finally:
        profiles.set_profile(before)


@pytest.mark.parametrize("qualname,name", [("paddle.vision.ops", "decode_jpeg"),
                                           ("paddle.vision.ops", "read_file"),
                                           ("paddle.utils", "flops")])
def test_a_name_paddle_has_and_gradrepl_lacks_says_so(version, qualname, name):
    """Lecture code calling a detection op gradrepl does not emulate gets an AttributeError
    naming it as not emulated, not Paddle's "no attribute" (which would say the name is wrong)."""
    assert name in NAMES[version][qualname]
    with pytest.raises(AttributeError) as e:
        getattr(_module(qualname), name)
    assert f"does not emulate {qualname}.{name}" in str(e.value)


def test_every_gated_module_is_in_the_names_table():
    """A module that installs the gate has its names in the table (else every public name of it
    would raise)."""
    import pathlib
    import re

    root = pathlib.Path(paddle.__file__).parent
    gated = set()
    for path in root.rglob("*.py"):
        if re.search(r"^_gate\(__name__\)$", path.read_text(encoding="utf-8"), re.M):
            rel = path.relative_to(root).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            gated.add(".".join(["paddle", *parts]))
    assert gated <= set(NAMES["3"]) and gated <= set(NAMES["2.6"]), sorted(gated - set(NAMES["3"]))
    assert gated >= set(MODULES)


@pytest.mark.parametrize("version_key", ["3", "2.6"])
def test_importing_a_module_paddle_has_and_gradrepl_lacks_says_so(tmp_path, version_key):
    """``from paddle.quantization import QAT`` (a PaddleSlim-style QAT lecture, PM14A round 14):
    a ModuleNotFoundError naming the module as not emulated (it was Python's bare "No module
    named"); a module Paddle lacks too keeps Python's message, as real 3.3.1 printed it."""
    import subprocess
    import sys

    script = tmp_path / "s.py"
    script.write_text("try:\n    from paddle.quantization import QAT\nexcept ImportError as e:\n"
                      "    print(type(e).__name__, e.name, '|', e)\n"
                      "import paddle.nosuch\n")
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", version_key,
                        str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    assert r.stdout == ("ModuleNotFoundError paddle.quantization | No module named "
                        "'paddle.quantization' (gradrepl's paddle does not emulate "
                        "paddle.quantization)\n")
    assert r.stderr.splitlines()[-1] == "ModuleNotFoundError: No module named 'paddle.nosuch'"
