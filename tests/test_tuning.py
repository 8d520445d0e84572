"""The engine's process settings (tuning.py): the collector's first threshold and numpy's huge
pages, each left alone when the user chose."""
import os
import subprocess
import sys


def _thresholds(env_extra=None, pre=""):
    env = dict(os.environ, **(env_extra or {}))
    env.pop("GRADREPL_GC", None) if not env_extra else None
    code = f"import gc\n{pre}\nimport gradrepl.engine\nprint(gc.get_threshold())"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True).stdout.strip()


def test_default_thresholds_are_raised_on_import():
    assert _thresholds() == "(10000, 10, 10)"


def test_a_users_own_thresholds_are_kept():
    assert _thresholds(pre="gc.set_threshold(500, 5, 5)") == "(500, 5, 5)"


def test_the_environment_can_keep_cpythons():
    assert _thresholds({"GRADREPL_GC": "default"}) == "(700, 10, 10)"


def test_a_graph_is_freed_without_the_collector():
    code = (
        "import gc, weakref\n"
        "gc.disable()\n"
        "import gradrepl.paddle as paddle\n"
        "x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)\n"
        "y = (x * 2).tanh().sum()\n"
        "node = weakref.ref(y.grad_node)\n"
        "y.backward()\n"
        "del y\n"
        "print(node() is None)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def _hugepage(env_extra=None):
    env = dict(os.environ)
    env.pop("NUMPY_MADVISE_HUGEPAGE", None)
    env.update(env_extra or {})
    code = ("import numpy._core.multiarray as m\nimport gradrepl.engine\n"
            "print(m._get_madvise_hugepage())")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True).stdout.strip()


def test_numpys_huge_page_requests_are_turned_off():
    assert _hugepage() == "False"


def test_the_users_numpy_madvise_choice_is_kept():
    assert _hugepage({"NUMPY_MADVISE_HUGEPAGE": "1"}) == "True"
