"""`gradrepl run`: scripts run unchanged, the profile is chosen by flag, env or header line, and
importing gradrepl leaves sys.modules alone."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""\
    import paddle
    import paddle.nn.functional as F
    from paddle import to_tensor
    print(paddle.__version__)
    print(to_tensor(2.0))
""")


def _run(tmp_path, body, *args, env=None):
    path = tmp_path / "s.py"
    path.write_text(body)
    e = dict(os.environ)
    e.pop("GRADREPL_PADDLE", None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "gradrepl", "run", *args, str(path)],
                          capture_output=True, text=True, env=e, timeout=120)


def test_default_profile_is_paddle_2_2(tmp_path):
    r = _run(tmp_path, SCRIPT)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("2.2.1\nTensor(shape=[1], dtype=float32, place=CPUPlace, "
                        "stop_gradient=True,\n       [2.])\n")


@pytest.mark.parametrize("how", ["flag", "env", "header"])
def test_profile_3_selected(tmp_path, how):
    body, args, env = SCRIPT, [], None
    if how == "flag":
        args = ["--paddle", "3"]
    elif how == "env":
        env = {"GRADREPL_PADDLE": "3"}
    else:
        body = "# gradrepl: paddle=3\n" + SCRIPT
    r = _run(tmp_path, body, *args, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("3.3.1\nTensor(shape=[], dtype=float32, place=Place(cpu), "
                        "stop_gradient=True,\n       2.)\n")


def test_unknown_profile_is_a_clear_error(tmp_path):
    r = _run(tmp_path, SCRIPT, "--paddle", "1.8")
    assert r.returncode == 2
    assert "unknown Paddle profile" in r.stderr


def test_script_error_shows_traceback_and_exit_1(tmp_path):
    r = _run(tmp_path, "import paddle\nprint('before')\npaddle.to_tensor([[1.0], [2.0, 3.0]])\n")
    assert r.returncode == 1
    assert r.stdout == "before\n"
    assert "ValueError" in r.stderr and "inhomogeneous" in r.stderr


def test_missing_script(tmp_path):
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", str(tmp_path / "nope.py")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no such file" in r.stderr


def test_importing_gradrepl_paddle_does_not_touch_sys_modules():
    code = ("import sys; import gradrepl.paddle as p; "
            "print('paddle' in sys.modules, p.to_tensor([1.0]).shape)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == "False [1]"


def test_import_hook_is_removed_after_a_run(tmp_path):
    from gradrepl.runner import run_script

    path = tmp_path / "s.py"
    path.write_text("import paddle\nimport paddle.nn.functional as F\n")
    before = set(sys.modules)
    run_script(str(path))
    assert not any(m == "paddle" or m.startswith("paddle.") for m in set(sys.modules) - before)
    assert "paddle" not in sys.modules or sys.modules["paddle"].__name__ == "paddle"


def test_script_can_import_a_module_beside_it(tmp_path):
    (tmp_path / "helper_mod.py").write_text("VALUE = 41\n")
    r = _run(tmp_path, "import helper_mod\nimport paddle\nprint(helper_mod.VALUE + 1)\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "42\n"
