"""MkDocs hook (mkdocs.yml ``hooks:``): what the site shows is made by gradrepl at build time.

- every picture of ``docs/gen_pictures.py``'s table is drawn afresh into a temporary folder and
  served as ``img/NAME`` in place of any committed copy;
- the reference parts of ``docs/gen_reference.py``: one page per shell ``%`` command (from
  ``gradrepl.repl.commands.COMMANDS``, added to the nav under "Shell % commands"), the README as
  ``readme.md``, the lesson notebook executed, and each page's ``<!-- gradrepl-help: CMD -->``,
  ``<!-- $ gradrepl ARGS -->`` and ``<!-- pycon: ... -->`` markers replaced by what gradrepl
  prints today.

So the site always shows what this checkout's gradrepl does.
"""
from __future__ import annotations

import importlib.util
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor

from mkdocs.structure.files import File

_HERE = os.path.dirname(os.path.abspath(__file__))
_TMP = tempfile.TemporaryDirectory(prefix="gradrepl-docs-img-")
SHELL_SECTION = "Shell % commands"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gen_pictures():
    return _load("gen_pictures")


_REF = _load("gen_reference")


def on_config(config):
    # the % commands' pages, one per entry of the shell's table, in the nav
    for i, item in enumerate(config["nav"] or []):
        if isinstance(item, dict) and SHELL_SECTION in item:
            config["nav"][i] = {SHELL_SECTION: _REF.shell_nav()}
    return config


def on_files(files, config):
    for path in _gen_pictures().generate(_TMP.name):
        src_uri = "img/" + os.path.basename(path)
        old = files.get_file_from_path(src_uri)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, src_uri, abs_src_path=path))
    names = list(_REF.shell_commands())
    with ThreadPoolExecutor(max_workers=2) as pool:   # one gradrepl replay per page
        pages = dict(zip(names, pool.map(_REF.shell_page, names)))
    generated = {"shell/index.md": _REF.shell_index(), "readme.md": _REF.readme_page(),
                 **{f"shell/{name}.md": text for name, text in pages.items()}}
    for src_uri, text in generated.items():
        files.append(File.generated(config, src_uri, content=text))
    nb = os.path.join(_TMP.name, "example_two.ipynb")
    with open(nb, "w", encoding="utf-8") as f:
        f.write(_REF.notebook_json())
    files.append(File.generated(config, "notebooks/example_two.ipynb", abs_src_path=nb))
    return files


def on_nav(nav, config, files):
    # every page's markers made up front, two gradrepl processes at a time
    texts = []
    for f in files.documentation_pages():
        if f.abs_src_path and os.path.exists(f.abs_src_path):
            with open(f.abs_src_path, encoding="utf-8") as fh:
                texts.append(fh.read())
    _REF.prefetch(texts)
    return nav


def on_page_markdown(markdown, page, config, files):
    if "<!-- notebook -->" in markdown:
        markdown = markdown.replace("<!-- notebook -->", _REF.notebook_page())
    return _REF.expand(markdown)
