"""A script that shows every warning (``warnings.simplefilter('always')``, common in lecture
code that wants to see deprecations) sees none from gradrepl's own imports: under the
``paddle``/``torch`` mapping each module keeps its own ``__spec__``, so a relative import inside
gradrepl's functions does not find ``__package__ != __spec__.parent`` (Python's ImportWarning,
printed twice in a round-15 lecture script before the fix)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gradrepl.importhook import dialect_modules

SCRIPTS = {
    # a relative import inside torch.get_num_threads / paddle.disable_static's bodies
    "torch": ("import warnings\nwarnings.simplefilter('always')\nimport torch\n"
              "print(torch.get_num_threads() > 0)\n"),
    "paddle": ("import warnings\nwarnings.simplefilter('always')\nimport paddle\n"
               "paddle.disable_static()\nprint(paddle.in_dynamic_mode())\n"),
}


@pytest.mark.parametrize("dialect", sorted(SCRIPTS))
def test_no_import_warning_under_simplefilter_always(tmp_path, dialect):
    script = tmp_path / f"{dialect}_warnings.py"
    script.write_text(SCRIPTS[dialect])
    r = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", "3", str(script)],
                       capture_output=True, text=True, timeout=300, env={
                           **__import__("os").environ, "GRADREPL_CCACHE": "found"})
    assert r.returncode == 0, r.stderr
    assert r.stdout == "True\n"
    assert "ImportWarning" not in r.stderr, r.stderr


def test_mapped_modules_keep_package_and_spec_parent_in_agreement():
    with dialect_modules():
        import paddle  # noqa: F401
        import paddle.nn  # noqa: F401
        import torch  # noqa: F401
        import torch.nn.functional  # noqa: F401

        mapped = {k: m for k, m in sys.modules.items()
                  if k.split(".")[0] in ("paddle", "torch")}
        assert {"paddle", "paddle.nn", "torch", "torch.nn.functional"} <= set(mapped)
        wrong = [(k, m.__package__, m.__spec__.parent) for k, m in mapped.items()
                 if getattr(m, "__spec__", None) is not None
                 and getattr(m, "__package__", None) is not None
                 and m.__package__ != m.__spec__.parent]
        assert wrong == []
