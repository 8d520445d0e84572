"""The docs site's sources, made by gradrepl BEFORE the site is built (no build-time hooks).

    python docs/generate.py                  # writes build/docs/ (git-ignored)
    zensical build --strict -f build/docs/mkdocs.yml    # the site, into build/docs/site/

    python docs/generate.py --build          # both steps (what .ci/run does)
    python docs/generate.py --out DIR        # DIR/src, DIR/mkdocs.yml, DIR/site

``build/docs/src/`` is ``docs/``'s pages with every marker replaced by what gradrepl prints
today (``docs/gen_reference.py``), plus the generated pages: one per shell ``%`` command and
their index (from ``gradrepl.repl.commands.COMMANDS``), the README as ``readme.md``, the lesson
notebook executed (``notebooks.md``, and the ``.ipynb`` to download), and every picture of
``docs/gen_pictures.py``'s table drawn afresh into ``img/``. ``build/docs/mkdocs.yml`` is
``docs/site.yml`` (the site's settings, theme and nav) with its paths pointed there and the
``%`` commands' pages in the nav; the site goes to ``build/docs/site/`` (Zensical wants it
inside the folder of its config). The Python API page is made from the docstrings by
mkdocstrings while the site is built (``:::`` lines in ``docs/api.md``).

The site is built by Zensical (the maintained successor of Material for MkDocs, from the same
authors; it reads this mkdocs.yml format) and would build the same with mkdocs + Material 9.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TEMPLATE = os.path.join(HERE, "site.yml")
SHELL_SECTION = "Shell % commands"
# what docs/ holds that is not the site's (the generators) or is drawn afresh (img/)
NOT_COPIED = (".py", ".pyc", "site.yml")


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = _load("gen_reference")
PICTURES = _load("gen_pictures")


def _source_files():
    """docs/'s files that go into the site: (path relative to docs/, absolute path)."""
    for folder, dirs, names in os.walk(HERE):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "img"))
        for name in sorted(names):
            if not name.endswith(NOT_COPIED):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, HERE), path


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def pages(src: str) -> int:
    """Write the site's pages into src: docs/'s with markers expanded, and the generated ones."""
    texts = {}
    for rel, path in _source_files():
        if rel.endswith(".md"):
            with open(path, encoding="utf-8") as f:
                texts[rel] = f.read()
        else:
            os.makedirs(os.path.dirname(os.path.join(src, rel)), exist_ok=True)
            shutil.copyfile(path, os.path.join(src, rel))
    REF.prefetch(list(texts.values()))             # every marker, two gradrepl runs at a time
    names = list(REF.shell_commands())
    with ThreadPoolExecutor(max_workers=2) as pool:   # one gradrepl replay per % command
        shell = dict(zip(names, pool.map(REF.shell_page, names)))
    generated = {"shell/index.md": REF.shell_index(), "readme.md": REF.readme_page(),
                 **{f"shell/{name}.md": text for name, text in shell.items()}}
    for rel, text in texts.items():
        if "<!-- notebook -->" in text:
            text = text.replace("<!-- notebook -->", REF.notebook_page())
        generated[rel] = REF.expand(text)
    for rel, text in generated.items():
        _write(os.path.join(src, rel), text)
    _write(os.path.join(src, "notebooks", "example_two.ipynb"), REF.notebook_json())
    return len(generated)


def config(out: str, src: str, site_dir: str) -> str:
    """build/docs/mkdocs.yml: docs/site.yml with its paths and the % commands' nav filled in."""
    with open(TEMPLATE, encoding="utf-8") as f:
        conf = yaml.safe_load(f)
    conf["docs_dir"] = os.path.relpath(src, out)
    conf["site_dir"] = os.path.relpath(site_dir, out)
    for i, item in enumerate(conf["nav"]):
        if isinstance(item, dict) and SHELL_SECTION in item:
            conf["nav"][i] = {SHELL_SECTION: REF.shell_nav()}
    for plugin in conf.get("plugins", []):
        if isinstance(plugin, dict) and "mkdocstrings" in plugin:
            plugin["mkdocstrings"]["handlers"]["python"]["paths"] = [ROOT]
    path = os.path.join(out, "mkdocs.yml")
    _write(path, "# made by docs/generate.py from docs/site.yml: edit that, not this\n"
           + yaml.safe_dump(conf, sort_keys=False, allow_unicode=True))
    return path


def generate(out: str) -> str:
    """Make out/src/ (pages, pictures, the notebook) and out/mkdocs.yml (the site to go to
    out/site/); return its path."""
    out = os.path.abspath(out)
    src = os.path.join(out, "src")
    shutil.rmtree(src, ignore_errors=True)
    n = pages(src)
    pictures = PICTURES.generate(os.path.join(src, "img"))
    path = config(out, src, os.path.join(out, "site"))
    print(f"docs/generate.py: {n} pages, {len(pictures)} pictures in "
          f"{os.path.relpath(src, os.getcwd())}")
    return path


def build(config_path: str) -> int:
    """``zensical build --strict`` of the generated config; its exit status."""
    return subprocess.call([sys.executable, "-m", "zensical", "build", "--strict", "--clean",
                            "-f", config_path], cwd=os.path.dirname(config_path))


def _nav_pages(nav) -> list[str]:
    pages = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


API_ITEM = re.compile(r"^::: ([\w.]+)\s*$", re.M)


def check(config_path: str) -> list[str]:
    """What the built site misses (empty when whole): a page of the nav without its HTML, an
    object of the API page (``::: NAME``) not rendered from its docstring, no search index (or
    not the one that a page opened from disk reads)."""
    with open(config_path, encoding="utf-8") as f:
        conf = yaml.safe_load(f)
    out = os.path.dirname(config_path)
    site, src = os.path.join(out, conf["site_dir"]), os.path.join(out, conf["docs_dir"])
    missing = [page for page in _nav_pages(conf["nav"])
               if not os.path.exists(os.path.join(site, page[:-3] + ".html"))]
    with open(os.path.join(src, "api.md"), encoding="utf-8") as f:
        names = API_ITEM.findall(f.read())
    api = os.path.join(site, "api.html")
    html = open(api, encoding="utf-8").read() if os.path.exists(api) else ""
    missing += [f"api.html: {name}" for name in names if f'id="{name}"' not in html]
    if not names:
        missing.append("api.md: no ::: line")
    for name in ("search.json", "search.js", "js/iframe-worker-local.js"):   # (search.js and
        if not os.path.exists(os.path.join(site, name)):     # the frame: search from disk)
            missing.append(name)
    return missing


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "docs"),
                        help="where the sources go (default: build/docs)")
    parser.add_argument("--build", action="store_true",
                        help="then build the site: zensical build --strict")
    args = parser.parse_args(argv)
    start = time.monotonic()
    path = generate(args.out)
    print(f"docs/generate.py: made in {time.monotonic() - start:.0f} s; "
          f"build with: zensical build --strict -f {os.path.relpath(path, os.getcwd())}")
    if not args.build:
        return 0
    rc = build(path)
    missing = check(path) if rc == 0 else []
    if missing:
        print(f"docs/generate.py: the site misses {missing}", file=sys.stderr)
        return 1
    if rc == 0:
        site = os.path.join(args.out, "site", "index.html")
        print(f"docs/generate.py: the site is {os.path.relpath(site, os.getcwd())}"
              f" ({time.monotonic() - start:.0f} s in all)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
