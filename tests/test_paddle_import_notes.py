"""What real Paddle prints on stderr while ``import paddle`` runs (gradrepl/paddle/import_notes.py).

Real Paddle 3.3.1 on a machine without ccache (this project's, 2026-12-07) began every script's
stderr with these two lines (the site-packages folder shown as SITE/):

    SITE/paddle/utils/cpp_extension/extension_utils.py:712: UserWarning: No ccache found. Please be aware that recompiling all source files may be required. You can download and install ccache from: https://github.com/ccache/ccache/blob/master/doc/INSTALL.md
      warnings.warn(warning_message)

real 2.6.2 printed nothing there; with a file named ``ccache`` in a $PATH folder 3.3.1 is silent too.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

_WANT_3 = ("SITE/paddle/utils/cpp_extension/extension_utils.py:712: UserWarning: No ccache found. "
           "Please be aware that recompiling all source files may be required. You can download "
           "and install ccache from: https://github.com/ccache/ccache/blob/master/doc/INSTALL.md\n"
           "  warnings.warn(warning_message)\n")
_SCRIPT = "import paddle.nn as nn\nimport paddle\nprint(paddle.to_tensor([1.0]).shape)\n"


def _run(tmp_path, version, path_dirs):
    script = tmp_path / "s.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PATH=os.pathsep.join(path_dirs))
    env.pop("GRADREPL_CCACHE", None)  # (conftest's "found"): the real look-up
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", version, str(script)],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r, re.sub(r"^\S*/paddle/utils/", "SITE/paddle/utils/", r.stderr, flags=re.M)


@pytest.mark.parametrize("version, want", [("3", _WANT_3), ("2.6", "")])
def test_import_without_ccache_warns_as_real_paddle(tmp_path, version, want):
    empty = tmp_path / "bin"
    empty.mkdir()
    r, err = _run(tmp_path, version, [str(empty)])
    assert err == want
    assert r.stdout in ("paddle.Size([1])\n", "[1]\n")


def test_import_with_ccache_on_path_is_silent(tmp_path):
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "ccache").write_text("")  # Paddle only asks whether the file exists
    r, err = _run(tmp_path, "3", [str(folder)])
    assert err == ""


def test_warning_is_said_once_per_process_and_only_in_a_script_run(monkeypatch):
    """Twice imported in script runs: said once. A session's import (the shell, a replayed
    .pycon or lesson: no script run) says nothing, so its transcript replays the same on
    machines with and without ccache."""
    import warnings

    from gradrepl.importhook import paddle_modules
    from gradrepl.paddle import import_notes

    monkeypatch.setenv("GRADREPL_CCACHE", "missing")
    with _profile("3"):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("default")
            with paddle_modules():
                import paddle  # noqa: F401
            assert not [w for w in seen if str(w.message).startswith("No ccache found")]
            for _ in range(2):
                with paddle_modules(), import_notes.script_run():
                    import paddle  # noqa: F401,F811
    assert [str(w.message)[:15] for w in seen].count("No ccache found") == 1


def test_environment_override(monkeypatch):
    from gradrepl.paddle import import_notes

    monkeypatch.setenv("GRADREPL_CCACHE", "missing")
    assert not import_notes.ccache_found()
    monkeypatch.setenv("GRADREPL_CCACHE", "found")
    assert import_notes.ccache_found()


class _profile:
    def __init__(self, key):
        self.key = key

    def __enter__(self):
        from gradrepl.paddle import profiles
        self.old = profiles.current().key
        profiles.set_profile(self.key)

    def __exit__(self, *exc):
        from gradrepl.paddle import profiles
        profiles.set_profile(self.old)
