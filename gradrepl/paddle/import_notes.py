"""What real Paddle prints while ``import paddle`` runs, said when a script imports the dialect.

Paddle 3.x imports ``paddle.utils.cpp_extension`` on the way in (``base/core.py`` checks the prim
flags through ``paddle.utils``), and that module looks for ``ccache`` once: in each folder of
``$PATH`` (a file named ``ccache`` there), then by ``which ccache``. Found nowhere, it warns
"No ccache found. ..." from ``utils/cpp_extension/extension_utils.py``. So every Paddle 3 script
on a machine without ccache starts with that UserWarning on stderr; Paddle 2.6 has no such check
(measured: 3.3.1 and 2.6.2 on this project's machines). The site per version is
``libwarn.SITES['no_ccache']``; a version without one says nothing. ``GRADREPL_CCACHE``
(``found`` / ``missing``) overrides the look-up, as the test suite does for its records.

Only a script run (``gradrepl run``, compared with ``python script.py``) says it: a session (the
shell, a replayed ``.pycon`` or lesson) records no such machine-dependent import noise, so that
its transcript replays the same on machines with and without ccache.
"""
from __future__ import annotations

import contextlib
import os
import shutil

from . import libwarn, profiles

NO_CCACHE = ("No ccache found. Please be aware that recompiling all source files may be required. "
             "You can download and install ccache from: "
             "https://github.com/ccache/ccache/blob/master/doc/INSTALL.md")


def ccache_found() -> bool:
    """Paddle's ``find_ccache_home`` heuristic: a ``ccache`` in a ``$PATH`` folder, or ``which``."""
    forced = os.environ.get("GRADREPL_CCACHE")
    if forced in ("found", "missing"):
        return forced == "found"
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if os.path.exists(os.path.join(folder, "ccache")):
            return True
    return shutil.which("ccache") is not None


_SCRIPT_RUNS = [0]  # how many script runs (runner.run_script) are in progress


@contextlib.contextmanager
def script_run():
    """The block runs a script file: its ``import paddle`` says what real Paddle's says."""
    _SCRIPT_RUNS[0] += 1
    try:
        yield
    finally:
        _SCRIPT_RUNS[0] -= 1


def on_script_import() -> None:
    """Called by the import hook when a script's ``import paddle`` loads the dialect."""
    if not _SCRIPT_RUNS[0]:
        return  # a session: see the module's docstring
    if profiles.current().key in libwarn.SITES["no_ccache"] and not ccache_found():
        libwarn.warn("no_ccache", NO_CCACHE)
