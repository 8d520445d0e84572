"""The docs site is made in two steps (docs/generate.py): the sources written by gradrepl, then
a build with no code of ours (Zensical, strict). These check the first step's config and the
check of a built site; .ci/run runs the whole build (`python docs/generate.py --build`).

- the site's config (docs/site.yml) has no build-time hooks and reads its search from disk,
  and there is no mkdocs.yml left that would build without the generated pages;
- the generated config points at the generated sources, lists one page per % command of the
  shell's table under "Shell % commands", and gives mkdocstrings this checkout;
- ``check`` finds a page of the nav without its HTML, an API object not rendered, no search
  index for a page opened from disk (and nothing in a whole site);
- the README's page in the site links only to pages and pictures of the site.
"""
from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _generate():
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_needs_no_hooks():
    conf = yaml.safe_load((DOCS / "site.yml").read_text(encoding="utf-8"))
    assert "hooks" not in conf
    assert not (DOCS / "hooks.py").exists()
    # a mkdocs.yml at the root would build a site without its generated pages
    assert not (ROOT / "mkdocs.yml").exists()
    assert {"search", "offline", "mkdocstrings"} <= {next(iter(p)) if isinstance(p, dict)
                                                    else p for p in conf["plugins"]}
    # search from disk: our frame for the search's worker, not a shim fetched from the network
    assert conf["extra"]["polyfills"] == ["js/iframe-worker-local.js"]
    assert (DOCS / "js" / "iframe-worker-local.js").exists()
    assert conf["theme"]["font"] is False          # no fonts fetched either


def test_generated_config_lists_every_percent_command(tmp_path):
    from gradrepl.repl.commands import COMMANDS

    gen = _generate()
    path = gen.config(str(tmp_path), str(tmp_path / "src"), str(tmp_path / "site"))
    conf = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    assert conf["docs_dir"] == "src" and conf["site_dir"] == "site"
    assert "hooks" not in conf
    shell = next(item[gen.SHELL_SECTION] for item in conf["nav"]
                 if isinstance(item, dict) and gen.SHELL_SECTION in item)
    pages = [next(iter(entry.values())) for entry in shell]
    assert pages[0] == "shell/index.md"
    assert pages[1:] == [f"shell/{name}.md" for name in COMMANDS]
    assert [next(iter(entry)) for entry in shell][1:] == [f"%{name}" for name in COMMANDS]
    python = next(p["mkdocstrings"] for p in conf["plugins"] if isinstance(p, dict)
                  and "mkdocstrings" in p)["handlers"]["python"]
    assert python["paths"] == [str(ROOT)]
    # every other page of docs/site.yml's nav is kept, in its order
    template = yaml.safe_load((DOCS / "site.yml").read_text(encoding="utf-8"))
    assert gen._nav_pages(template["nav"]) == [
        p for p in gen._nav_pages(conf["nav"]) if not p.startswith("shell/")
        or p == "shell/index.md"]


def _fake_site(tmp_path, gen, api_ids, pages=None):
    path = gen.config(str(tmp_path), str(tmp_path / "src"), str(tmp_path / "site"))
    conf = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "api.md").write_text("# API\n\n::: gradrepl.viz.graph\n\n"
                                             "::: gradrepl.viz.why.why\n", encoding="utf-8")
    for page in pages if pages is not None else gen._nav_pages(conf["nav"]):
        html = tmp_path / "site" / (page[:-3] + ".html")
        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text("<html></html>", encoding="utf-8")
    (tmp_path / "site" / "api.html").write_text(
        "".join(f'<h3 id="{name}">' for name in api_ids), encoding="utf-8")
    for name in ("search.json", "search.js", "js/iframe-worker-local.js"):
        (tmp_path / "site" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "site" / name).write_text("{}", encoding="utf-8")
    return path


def test_check_passes_a_whole_site(tmp_path):
    gen = _generate()
    path = _fake_site(tmp_path, gen, ["gradrepl.viz.graph", "gradrepl.viz.why.why"])
    assert gen.check(path) == []


def test_check_finds_what_a_site_misses(tmp_path):
    gen = _generate()
    path = _fake_site(tmp_path, gen, ["gradrepl.viz.graph"])
    (tmp_path / "site" / "shell" / "why.html").unlink()
    (tmp_path / "site" / "search.js").unlink()
    assert gen.check(path) == ["shell/why.md", "api.html: gradrepl.viz.why.why", "search.js"]


def test_the_readme_page_links_only_into_the_site():
    ref = _generate().REF
    text = ref.readme_page()
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert "img/example_two.svg" in targets and "install.md" in targets
    for target in targets:
        if not re.match(r"https?:|#", target):
            assert (DOCS / target.split("#")[0]).exists(), target
    # a link to a file of the repository that is not in the site (LICENSE, CHANGELOG.md)
    # keeps its words, not its link
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for words, target in re.findall(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)", readme):
        if not target.startswith(("docs/", "http", "#")):
            assert f"]({target})" not in text and words in text


def test_the_generation_step_copies_docs_but_not_its_code():
    gen = _generate()
    copied = {rel for rel, _ in gen._source_files()}
    assert {"index.md", "css/extra.css", "commands/why.md", "js/iframe-worker-local.js"} <= copied
    assert not {rel for rel in copied if rel.endswith(".py") or rel == "site.yml"
                or rel.startswith("img" + os.sep)}


# ------------------------------------------------------------------ search from disk
def _chromium():
    import shutil

    for cand in (shutil.which("chromium"), "/usr/bin/chromium"):
        if cand and os.access(cand, os.X_OK):
            return cand
    pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run does it "
                "where it can): the browser test of search from disk is skipped")


# a page opened from disk that starts a worker through docs/js/iframe-worker-local.js, as the
# theme's search does: the worker answers each message, changing the message it was given (the
# search worker does): the page must keep its own copy, as with a real worker
PAGE = """<!doctype html><html><head><script src="js/iframe-worker-local.js"></script></head>
<body><div id="out">waiting</div><script>
var sent = {input: "chain rule", n: 1};
var w = new Worker("echo.js");
w.onmessage = function (event) {
  document.getElementById("out").textContent =
    "answer " + event.data.input + " " + event.data.n + "; kept " + sent.input +
    "; worker " + (w instanceof window.Worker) + " " + location.protocol;
};
w.postMessage(sent);
</script></body></html>"""
ECHO = """self.onmessage = function (event) {
  var q = event.data; q.n += 1; q.input = q.input.toUpperCase();
  self.postMessage(q);
};"""


@pytest.mark.slow
def test_the_search_worker_runs_from_disk(tmp_path):
    import subprocess

    chromium = _chromium()
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "iframe-worker-local.js").write_bytes(
        (DOCS / "js" / "iframe-worker-local.js").read_bytes())
    (tmp_path / "echo.js").write_text(ECHO, encoding="utf-8")
    (tmp_path / "index.html").write_text(PAGE, encoding="utf-8")
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-extensions",
                        "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}",
                        "--virtual-time-budget=3000", "--dump-dom",
                        (tmp_path / "index.html").as_uri()],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-2000:]
    out = re.search(r'<div id="out">(.*?)</div>', r.stdout, re.S).group(1)
    # the worker ran (a real Worker from file:// is refused) and the page's message is its own
    assert out == "answer CHAIN RULE 2; kept chain rule; worker true file:", out
