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
    assert _thresholds() == "(10000, 100, 10)"


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


def test_empty_huge_asks_for_huge_pages_for_that_array_only():
    import numpy as np

    from gradrepl.engine import tuning

    get = np._core.multiarray._get_madvise_hugepage
    set_ = np._core.multiarray._set_madvise_hugepage
    seen = []
    previous = set_(False)
    try:
        real = np.empty

        def spy(shape, dtype):
            seen.append(get())
            return real(shape, dtype)

        np.empty = spy
        try:
            big = tuning.empty_huge((tuning.HUGE_MIN_BYTES // 4,), np.float32)
            small = tuning.empty_huge((1000,), np.float32)
        finally:
            np.empty = real
        assert seen == [True, False]  # asked for while the big one was allocated
        assert get() is False  # and the process-wide setting is back
        assert big.shape == (tuning.HUGE_MIN_BYTES // 4,) and big.dtype == np.float32
        assert small.shape == (1000,)
    finally:
        set_(previous)


def _large_block_report(env_extra=None):
    """In a fresh interpreter: the bytes glibc holds in mapped blocks (``mallinfo2().hblkhd``)
    while a 64 MiB array lives, and the minor page faults while an equal one is made again
    after it was freed."""
    env = dict(os.environ)
    for k in ("GRADREPL_MALLOC", "MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_"):
        env.pop(k, None)
    env.update(env_extra or {})
    code = ("import ctypes, resource, numpy as np\nimport gradrepl.engine\n"
            "class Info(ctypes.Structure):\n"
            "    _fields_ = [(n, ctypes.c_size_t) for n in ('arena', 'ordblks', 'smblks', "
            "'hblks', 'hblkhd', 'usmblks', 'fsmblks', 'uordblks', 'fordblks', 'keepcost')]\n"
            "libc = ctypes.CDLL(None)\nlibc.mallinfo2.restype = Info\n"
            "faults = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
            "a = np.ones(16 << 20, np.float32)\nmapped = libc.mallinfo2().hblkhd\ndel a\n"
            "f0 = faults()\nb = np.ones(16 << 20, np.float32)\nprint(mapped, faults() - f0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout.split()
    return int(out[0]), int(out[1])


def test_large_arrays_reuse_freed_memory_instead_of_faulting_it_in_again():
    import ctypes

    import pytest

    try:
        glibc = os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (ValueError, OSError):
        glibc = False
    if not glibc or not hasattr(ctypes.CDLL(None), "mallinfo2"):
        pytest.skip("malloc's large blocks are tuned with glibc only (mallinfo2: 2.33+)")
    size = 64 << 20
    mapped, faults = _large_block_report()
    assert mapped < size                              # the array came from the heap
    assert faults < size // 4096 // 20                # and its successor reused that memory
    for env in ({"GRADREPL_MALLOC": "default"}, {"MALLOC_MMAP_MAX_": "65536"}):
        mapped, _ = _large_block_report(env)
        assert mapped >= size                         # malloc as it was: a block of its own
