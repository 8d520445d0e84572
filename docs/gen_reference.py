"""The reference pages' generated parts, made by gradrepl before the site is built
(``docs/generate.py``).

Nothing here is copied by hand, so the reference never drifts from the code:

- ``<!-- gradrepl-help: COMMAND -->`` in a page becomes ``gradrepl COMMAND --help`` as it prints
  today; ``<!-- $ gradrepl ARGS -->`` becomes a console block: the command and what it prints
  (run in a scratch folder that sees examples/ and sessions/, so files it writes land there);
  ``<!-- pycon: INPUT ; INPUT ... -->`` becomes a shell transcript of those inputs, replayed;
- the shell's ``%`` commands get one page each (``shell/NAME.md``) and an index, from the one
  table ``gradrepl.repl.commands.COMMANDS`` (usage, summary) with an example transcript each
  (``SHELL_EXAMPLES``, replayed by ``gradrepl replay``);
- ``readme.md`` is the repository's README with its links pointed into the site;
- ``notebook.md`` is the lesson notebook tests/data/notebooks/example_two.ipynb, executed
  (nbclient + ipykernel, the docs extra) and rendered with its outputs.
"""
from __future__ import annotations

import atexit
import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOK = os.path.join(ROOT, "tests", "data", "notebooks", "example_two.ipynb")

# the prelude every % command example starts from: the Paddle guide's example two
EXAMPLE_TWO = [
    "import paddle",
    "a = paddle.to_tensor(2.0, stop_gradient=False)",
    "b = paddle.to_tensor(5.0, stop_gradient=False)",
    "c = a * b",
    "d = paddle.to_tensor(4.0, stop_gradient=False)",
    "e = c * d",
]
BACKWARD = EXAMPLE_TWO + ["e.backward()"]

# % command -> (inputs run first, not shown; the inputs shown with their outputs)
SHELL_EXAMPLES = {
    "graph": (BACKWARD, ["%graph e", "%graph e --view backward --chain", "%graph e -o e.svg"]),
    "step": (EXAMPLE_TWO, ["%step e"]),
    "why": (BACKWARD, ["%why a", "%why e -o why.svg"]),
    "vars": (BACKWARD, ["%vars"]),
    "profile": ([], ["%profile", "%profile 3", "%profile 2.2"]),
    "record": (BACKWARD, ["%record my_session.pycon"]),
    "load": ([], ["%load examples/seeds/s000_example_one.py"]),
    "reset": (BACKWARD, ["%reset", "%vars"]),
    "time": (EXAMPLE_TWO, ["%time e.backward()"]),
    "history": (EXAMPLE_TWO, ["%history"]),
    "quiz": (BACKWARD, ["%quiz a 20", "%quiz b 4"]),
    "gradcheck": (BACKWARD, ["%gradcheck"]),
    "help": ([], ["%help why"]),
}

# more words for a % command's page than its one-line summary (optional)
SHELL_NOTES = {
    "graph": "The same options as [`gradrepl graph`](../commands/graph.md); without `-o` the "
             "picture is printed as text. In a notebook the picture is drawn inline.",
    "step": "In the terminal each step waits for Enter (`q` finishes); replayed or in a "
            "notebook all steps are shown (a notebook gets a player). If `e.backward()` "
            "already ran, `%step e` shows the steps it took, as they were recorded.",
    "why": "`%why a.grad[0]` explains one element. The same as "
           "[`gradrepl why`](../commands/why.md) for a script.",
    "record": "The file is a session file: `gradrepl replay --check` replays it "
              "([session files](../sessions.md)).",
    "quiz": "Without ANSWER the shell asks for it; the same as "
            "[`gradrepl quiz`](../commands/quiz.md) for a script.",
    "gradcheck": "The same check as [`gradrepl gradcheck`](../commands/gradcheck.md).",
}


def _env(columns: int = 88) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GRADREPL_PADDLE", "FORCE_COLOR", "COLUMNS", "LINES")}
    env.update(NO_COLOR="1", TERM="dumb", COLUMNS=str(columns))
    return env


def _scratch(prefix: str) -> str:
    """A temporary folder, removed when the build ends (a build makes about fifty)."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    return tmp


def _workdir() -> str:
    """A scratch folder that sees the repository's examples/ and sessions/."""
    tmp = _scratch("gradrepl-docs-run-")
    for name in ("examples", "sessions"):
        os.symlink(os.path.join(ROOT, name), os.path.join(tmp, name))
    return tmp


def gradrepl(args: list[str], cwd: str | None = None, stdin: str = "",
             columns: int = 88) -> tuple[int, str]:
    """Run ``gradrepl ARGS``: its exit status and what it printed (stdout, then stderr)."""
    done = subprocess.run([sys.executable, "-m", "gradrepl", *args], cwd=cwd or _workdir(),
                          env=_env(columns), capture_output=True, text=True, timeout=300,
                          input=stdin)
    out = (done.stdout + done.stderr).replace(ROOT + os.sep, "")   # (lesson:NAME's paths)
    return done.returncode, out


def help_text(command: str) -> str:
    # (72 columns: the width of the page's text, so the help's boxes are not cut)
    rc, out = gradrepl([command, "--help"] if command else ["--help"], columns=72)
    if rc != 0:
        raise RuntimeError(f"gradrepl {command} --help failed (exit {rc}): {out}")
    return "\n".join(line.rstrip() for line in out.strip("\n").splitlines())


def console(command_line: str, stdin: str | None = None) -> str:
    """A ```console block: ``$ gradrepl ARGS`` and what it prints (stdout, stderr); with
    ``stdin``, shown as ``$ echo 'STDIN' | gradrepl ARGS``."""
    rc, out = gradrepl(shlex.split(command_line), stdin=(stdin + "\n") if stdin else "")
    if rc not in (0, 1):
        raise RuntimeError(f"gradrepl {command_line} failed (exit {rc}): {out}")
    body = "\n".join(line.rstrip() for line in out.rstrip("\n").splitlines())
    shown = f"echo {shlex.quote(stdin)} | gradrepl" if stdin else "gradrepl"
    return f"```console\n$ {shown} {command_line}\n{body}\n```"


def transcript(setup: list[str], shown: list[str]) -> str:
    """The inputs ``shown`` replayed after ``setup`` (run, not shown): a ```pycon block."""
    cwd = _workdir()
    text = "".join(f">>> {line}\n" for line in [*setup, *shown])
    path = os.path.join(cwd, "example.pycon")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    rc, out = gradrepl(["replay", path], cwd)
    if rc != 0:
        raise RuntimeError(f"replaying {shown} failed (exit {rc}): {out}")
    lines = out.splitlines()
    # drop the setup's inputs (one line each) and their outputs: start at the first shown input
    first = f">>> {shown[0]}"
    start = max(i for i, line in enumerate(lines) if line == first) if setup else 0
    body = "\n".join(line.rstrip() for line in lines[start:])
    return f"```pycon\n{body}\n```"


# ------------------------------------------------------------------ the markers in pages
HELP = re.compile(r"^<!-- gradrepl-help: ?(\S*) -->$", re.M)
RUN = re.compile(r"^<!-- \$ (?:echo (.+?) \| )?gradrepl (.+?) -->$", re.M)
PYCON = re.compile(r"^<!-- pycon: (.+?) -->$", re.M)


def _made(marker: re.Match) -> str:
    """What one marker stands for (each is made once per build: ``_MADE``)."""
    text = marker.group(0)
    if text not in _MADE:
        if marker.re is HELP:
            _MADE[text] = "```text\n" + help_text(marker.group(1)) + "\n```"
        elif marker.re is RUN:
            _MADE[text] = console(marker.group(2), shlex.split(marker.group(1))[0]
                                  if marker.group(1) else None)
        else:
            _MADE[text] = transcript([], [s.strip() for s in marker.group(1).split(" ;; ")])
    return _MADE[text]


_MADE: dict[str, str] = {}


def prefetch(pages: list[str], workers: int = 2) -> None:
    """Make every marker of these pages' texts, ``workers`` gradrepl processes at a time."""
    from concurrent.futures import ThreadPoolExecutor

    found = {m.group(0): m for text in pages for pattern in (HELP, RUN, PYCON)
             for m in pattern.finditer(text)}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(_made, found.values()))


def expand(markdown: str) -> str:
    """A page's markers replaced by what gradrepl prints today."""
    for pattern in (HELP, RUN, PYCON):
        markdown = pattern.sub(_made, markdown)
    return markdown


# ------------------------------------------------------------------ the % commands' pages
def shell_commands():
    sys.path.insert(0, ROOT)
    from gradrepl.repl.commands import COMMANDS

    return COMMANDS


def shell_nav() -> list:
    """The nav entries of the % commands: the index, then one page per command."""
    return [{"All % commands": "shell/index.md"},
            *({f"%{name}": f"shell/{name}.md"} for name in shell_commands())]


def _cell(text: str, code: bool = False) -> str:
    """Text for a table cell: | [ ] as entities (a backslash would stay visible in code)."""
    text = html.escape(text, quote=False)
    for char, entity in (("|", "&#124;"), ("[", "&#91;"), ("]", "&#93;")):   # (not table
        text = text.replace(char, entity)            # cells, not Markdown links / autorefs)
    return f"<code>{text}</code>" if code else text


def shell_index() -> str:
    rows = "\n".join(f"| [`%{c.name}`]({c.name}.md) | {_cell(c.usage, code=True)} | "
                     f"{_cell(c.summary)} |" for c in shell_commands().values())
    return ("# The shell's % commands\n\n"
            "Typed at the shell's `>>>` prompt ([`gradrepl shell`](../commands/shell.md)), "
            "replayed from session files, and (`%graph`, `%step`, `%why`, `%gradrepl`) in "
            "notebooks after `%load_ext gradrepl`. `%help` prints this table; this page is "
            "made from the same table (`gradrepl/repl/commands.py`) when the site is built.\n\n"
            "| command | usage | what it does |\n| --- | --- | --- |\n" + rows + "\n")


def shell_page(name: str) -> str:
    cmd = shell_commands()[name]
    setup, shown = SHELL_EXAMPLES.get(name, ([], [f"%help {name}"]))
    parts = [f"# %{name}", "", "```text", cmd.usage, "```", "", cmd.summary[0].upper()
             + cmd.summary[1:] + ".", ""]
    if name in SHELL_NOTES:
        parts += [SHELL_NOTES[name], ""]
    parts += ["## Example", ""]
    if setup:
        parts += ["After example two (" + ("`e.backward()` run" if "e.backward()" in setup
                                           else "before `e.backward()`") + "):", "",
                  "```python", *setup, "```", ""]
    parts += [transcript(setup, shown), "",
              "*Replayed by gradrepl when this site was built.*", ""]
    return "\n".join(parts)


def shell_pages() -> dict[str, str]:
    pages = {"shell/index.md": shell_index()}
    for name in shell_commands():
        pages[f"shell/{name}.md"] = shell_page(name)
    return pages


# ------------------------------------------------------------------ the README, in the site
def readme_page() -> str:
    """README.md with its links into docs/ pointed at the site's pages."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"\]\(docs/", "](", text)
    # links to the repository's own folders and files (sessions/, examples/, LICENSE,
    # CHANGELOG.md ...) become text: only docs/'s pages and pictures are in the site
    def link(m: re.Match) -> str:
        target = m.group(2).split("#")[0]
        if re.match(r"https?:|#", m.group(2)) or os.path.exists(os.path.join(ROOT, "docs", target)):
            return m.group(0)
        return m.group(1)

    return re.sub(r"\[([^\]]+)\]\(([^)]+)\)", link, text)


# ------------------------------------------------------------------ the lesson notebook
def _svg_img(svg: str) -> str:
    import base64

    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img alt="a picture drawn by gradrepl" src="data:image/svg+xml;base64,{data}">'


def notebook_page() -> str:
    """The lesson notebook executed now, as Markdown: each cell's code and its outputs."""
    import nbclient
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    cwd = _scratch("gradrepl-docs-nb-")
    env = {k: v for k, v in os.environ.items() if k != "GRADREPL_PADDLE"}
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=240,
                            resources={"metadata": {"path": cwd}}).execute(env=env)
    out = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":   # (its headings under the page's)
            out += [re.sub(r"^#", "###", cell.source, flags=re.M), ""]
            continue
        out += ["```python", cell.source, "```", ""]
        for o in cell.outputs:
            if o.output_type == "stream":
                out += ["```text", o.text.rstrip("\n"), "```", ""]
            elif o.output_type == "error":
                out += ["```text", f"{o.ename}: {o.evalue}", "```", ""]
            else:
                data = o.get("data", {})
                if "image/svg+xml" in data:
                    out += [f'<div class="nb-output">{_svg_img(data["image/svg+xml"])}</div>', ""]
                elif "text/html" in data:
                    body = data["text/html"]
                    out += ['<div class="nb-output" markdown="0">',
                            body if "<script" not in body else
                            '<iframe class="nb-player" style="width: 100%; height: 720px; border: 1px solid #ccc" '
                            'title="the backward pass, step by step" srcdoc="' + html.escape(body) + '"></iframe>',
                            "</div>", ""]
                elif "text/plain" in data:
                    out += ["```text", data["text/plain"].rstrip("\n"), "```", ""]
    return "\n".join(out)


def notebook_json() -> str:
    with open(NOTEBOOK, encoding="utf-8") as f:
        return json.dumps(json.load(f), indent=1)


if __name__ == "__main__":   # print one generated page: python docs/gen_reference.py shell/why.md
    name = sys.argv[1] if len(sys.argv) > 1 else "shell/index.md"
    if name == "readme.md":
        print(readme_page())
    elif name == "notebook":
        print(notebook_page())
    else:
        print(shell_pages()[name])
