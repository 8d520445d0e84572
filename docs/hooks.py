"""MkDocs hook (mkdocs.yml ``hooks:``): the site's pictures are drawn by gradrepl at build time.

Every picture of ``docs/gen_pictures.py``'s table is drawn afresh into a temporary folder and
served as ``img/NAME`` in place of any committed copy, so the site always shows what this
checkout's engine builds.
"""
from __future__ import annotations

import importlib.util
import os
import tempfile

from mkdocs.structure.files import File

_HERE = os.path.dirname(os.path.abspath(__file__))
_TMP = tempfile.TemporaryDirectory(prefix="gradrepl-docs-img-")


def _gen_pictures():
    spec = importlib.util.spec_from_file_location("gen_pictures",
                                                  os.path.join(_HERE, "gen_pictures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_files(files, config):
    for path in _gen_pictures().generate(_TMP.name):
        src_uri = "img/" + os.path.basename(path)
        old = files.get_file_from_path(src_uri)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, src_uri, abs_src_path=path))
    return files
