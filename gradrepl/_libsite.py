"""A warning shown where a real framework's own Python module raises it.

Python prints a warning as ``FILE:LINE: Category: message`` and then that line's source text.
For a warning the real framework raises inside its library (a file under site-packages) the
dialects name the same file and line: ``package_dir`` finds where the real package is or would
be installed for this interpreter (looked up by path on ``sys.path``, never imported: gradrepl's
import hook is not consulted; else ``sysconfig``'s purelib), and ``warn_at`` registers the
measured source line in ``linecache`` (so it prints whether or not that file exists) and warns
with that module's own registry (Python's once-per-location rule). Used by ``paddle.libwarn``
and ``torch.libwarn``, which hold the measured sites.
"""
from __future__ import annotations

import functools
import importlib.machinery
import linecache
import os
import sysconfig
import warnings

_registries: dict = {}


@functools.lru_cache(maxsize=None)
def package_dir(name: str) -> str:
    """The folder the real package ``name`` lives in (or would, installed for this
    interpreter)."""
    try:
        spec = importlib.machinery.PathFinder.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        return list(spec.submodule_search_locations)[0]
    return os.path.join(sysconfig.get_paths()["purelib"], name)


def warn_at(package: str, rel: str, line: int, source: str, message: str,
            category=UserWarning) -> None:
    """Warn ``message`` from line ``line`` of ``rel`` (a path under the real ``package``) whose
    text is ``source``."""
    filename = os.path.join(package_dir(package), *rel.split("/"))
    lines = linecache.cache.get(filename)
    if lines is None or len(lines) != 4 or lines[1] is not None:
        # a fake file of blank lines with the measured source at ``line`` (mtime None: kept)
        text = ["\n"] * (line - 1) + [source + "\n"]
    else:
        text = list(lines[2])
        text += ["\n"] * max(0, line - len(text))
        text[line - 1] = source + "\n"
    linecache.cache[filename] = (len(text), None, text, filename)
    module = package + "." + rel[:-3].replace("/", ".")
    registry = _registries.setdefault(filename, {})
    warnings.warn_explicit(message, category, filename, line, module=module, registry=registry)
