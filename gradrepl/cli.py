"""The ``gradrepl`` command (typer)."""
from __future__ import annotations

import os
import sys
from typing import Optional

import typer
import typer.core

# markdown: a docstring's paragraphs are re-wrapped to the width (rich mode kept their line
# breaks, so --help broke lines mid-phrase); rich draws no colour under NO_COLOR or TERM=dumb
# and 80 columns where stdout is not a terminal (COLUMNS sets another)
app = typer.Typer(add_completion=False, no_args_is_help=False, rich_markup_mode="markdown",
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="gradrepl: an autograd workbench that speaks Paddle (and torch).")


def Flag(*decls, **kw):
    """An on/off option: --help shows no ``<bool>`` type after it."""
    return typer.Option(False, *decls, metavar="", **kw)


class _Command(typer.core.TyperCommand):
    """A command whose own -h/--help shows no ``<bool>`` either."""

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option


PaddleOpt = typer.Option(None, "--paddle", help="Paddle version to emulate: 2.2 (default), 2.6, 3",
                         envvar="GRADREPL_PADDLE")


def _profile(key):
    from .paddle import profiles

    if key:
        try:
            profiles.set_profile(key)
        except ValueError as exc:
            typer.echo(f"gradrepl: {exc}", err=True)
            raise typer.Exit(2)


def _lesson(arg: str, command: str) -> str:
    """A file argument: ``lesson:NAME`` is a lesson shipped with gradrepl (``gradrepl lessons``)."""
    from .lessons import PREFIX, LessonError, resolve

    if not arg.startswith(PREFIX):
        return arg
    try:
        kind = {"replay": "sessions", "quiz": None, "gradcheck": None}.get(command, "examples")
        return resolve(arg, kind)   # (quiz and gradcheck take a script or a session)
    except LessonError as exc:
        typer.echo(f"gradrepl {command}: {exc}", err=True)
        raise typer.Exit(2)


@app.command(cls=_Command,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                               "help_option_names": ["-h", "--help"]})
def run(ctx: typer.Context,
        script: str = typer.Argument(..., metavar="SCRIPT",
                                     help="a Paddle or torch script (.py)"),
        paddle: Optional[str] = PaddleOpt,
        debug: bool = Flag("--debug", help="keep gradrepl's own frames in a "
                    "script's traceback")):
    """Run a Paddle or torch script unchanged, printing what the framework prints.

    Arguments after the script (or after --) go to the script's sys.argv."""
    from .runner import header_profile, run_script

    script = _lesson(script, "run")
    if script.startswith("-") and script != "-":
        typer.echo(f"gradrepl run: no such option: {script} (gradrepl run -h lists them)",
                   err=True)
        raise typer.Exit(2)
    args = list(ctx.args)
    if args[:1] == ["--"]:
        args = args[1:]
    _profile(paddle or header_profile(script))
    if not os.path.isfile(script):
        typer.echo(f"gradrepl run: no such file: {script}", err=True)
        raise typer.Exit(2)
    try:
        run_script(script, args, profile=None)
    except SystemExit as exc:
        code = exc.code
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)  # sys.exit("message"), as python prints it
            code = 1
        raise typer.Exit(code or 0)
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        raise typer.Exit(0)
    except KeyboardInterrupt:  # Ctrl-C: python's one line and the shell's 128 + SIGINT
        sys.stdout.flush()
        print("KeyboardInterrupt", file=sys.stderr)
        raise typer.Exit(130)
    except BaseException as exc:  # the script's own error: show it like python does
        sys.stdout.flush()
        sys.stderr.write(script_traceback(exc, debug))
        raise typer.Exit(1)


def script_traceback(exc: BaseException, debug: bool = False) -> str:
    """A script's error as python prints it: the script's own frames (and those of libraries it
    called), without gradrepl's and runpy's unless ``debug``; chained exceptions kept."""
    import traceback

    here = os.path.dirname(os.path.abspath(__file__)) + os.sep

    def hidden(frame):
        name = frame.filename
        return name.startswith("<frozen ") or os.path.abspath(name).startswith(here)

    te = traceback.TracebackException.from_exception(exc)
    if not debug:
        seen = set()
        todo = [te]
        while todo:
            t = todo.pop()
            if id(t) in seen:
                continue
            seen.add(id(t))
            t.stack = traceback.StackSummary.from_list(
                [f for f in t.stack if not hidden(f)])
            todo += [c for c in (t.__cause__, t.__context__) if c is not None]
    return "".join(te.format())


@app.command(cls=_Command)
def graph(script: str = typer.Argument(..., metavar="SCRIPT",
                                       help="a Paddle or torch script (.py)"),
          tensor: Optional[str] = typer.Option(
              None, "--tensor", "-t", help="the variable to draw (default: the last tensor "
              "the script assigned that has a graph)"),
          view: str = typer.Option("both", "--view", help="forward | backward | both"),
          at: Optional[int] = typer.Option(None, "--at", help="stop the script after this "
                                           "line and draw the graph as it stood then"),
          output: Optional[str] = typer.Option(
              None, "-o", "--output", help="FILE: .svg .png .pdf .dot .json .txt "
              "(default: text on stdout)"),
          steps: Optional[str] = typer.Option(None, "--steps", help="DIR: one SVG per "
                                              "step of the backward pass and an index.html "
                                              "player; FILE.pdf: one step per page; "
                                              "FILE.gif or FILE.svg: animated (slides)"),
          collapse: bool = Flag("--collapse", help="each Layer call as one node"),
          depth: Optional[int] = typer.Option(None, "--depth", help="only ops at most N "
                                              "steps above the tensor"),
          to: Optional[str] = typer.Option(None, "--to", help="only what lies between the "
                                           "tensor NAME and the drawn tensor"),
          chain: bool = Flag("--chain", help="write the chain-rule arithmetic "
                      "on each backward op"),
          layers: Optional[int] = typer.Option(None, "--layers", help="Layer calls nested "
                                               "deeper than N as one box each (a whole model "
                                               "on one slide: 1 = the model's children)"),
          rankdir: Optional[str] = typer.Option(None, "--rankdir", help="TB (top to bottom, "
                                                "the default) or LR (left to right)"),
          size: Optional[str] = typer.Option(None, "--size", help="WxH in inches (16x9): "
                                             "the drawing scaled to fill it (with "
                                             "--font-size the text keeps its size: a larger "
                                             "drawing grows past the box, said); 1080p or "
                                             "720p: big text for projectors (at least 18 px)"),
          dpi: Optional[float] = typer.Option(None, "--dpi", help="pixels per inch of PNG "
                                              "output (default 96)"),
          theme: Optional[str] = typer.Option(None, "--theme", help="light (default), dark "
                                              "(projectors) or print (greyscale)"),
          font_size: Optional[float] = typer.Option(None, "--font-size", help="points of the "
                                                    "text (default 12; the rest scales)"),
          look: str = typer.Option("auto", "--look", help="full (every record), compact "
                                   "(unnamed tensors, parameters, their gradients and "
                                   "backward ops on one line; rows in SVG tooltips) or auto (compact past "
                                   "40 tensors and gradients, 20 with --layers)"),
          values: Optional[int] = typer.Option(None, "--values", help="show arrays of at most "
                                               "N elements whole, with their shape (default "
                                               "12)"),
          heatmap: bool = Flag("--heatmap", help="arrays of more than --values elements "
                               "drawn as heat maps (zero white, positive red, negative blue; "
                               "min, max, shape written), the value and its gradient alike"),
          numeric: bool = Flag("--numeric", help="each leaf's gradient box also shows "
                               "central differences beside autograd, the step and the error "
                               "(as gradrepl gradcheck)"),
          camera: bool = Flag("--camera", help="with --steps: frames larger than a "
                              "slide follow each step through a slide-sized viewport, the text "
                              "kept at its size (default --size 1080p: at least 18 px), a map "
                              "of the whole graph in a corner; the static picture is unchanged"),
          steps_from: Optional[str] = typer.Option(
              None, "--steps-from", help="with --steps: backward (the default: the "
              "backward's steps) or forward (first the forward pass, one frame per statement "
              "that made part of the graph, then the backward's steps)"),
          paddle: Optional[str] = PaddleOpt):
    """Run a script and draw a tensor's forward and backward graphs."""
    from .viz.cli import GraphError, draw

    script = _lesson(script, "graph")
    try:
        message = draw(script, tensor=tensor, view=view, at=at, output=output, steps=steps,
                       collapse=collapse, depth=depth, to=to, chain=chain, paddle=paddle,
                       layers=layers, rankdir=rankdir, size=size, dpi=dpi, theme=theme,
                       font_size=font_size, look=look, values=values,
                       steps_from=steps_from, heatmap=heatmap, numeric=numeric,
                       camera=camera)
    except GraphError as exc:
        typer.echo(f"gradrepl graph: {exc}", err=True)
        raise typer.Exit(2)
    if message:
        typer.echo(message, err=True)


@app.command(cls=_Command)
def why(script: str = typer.Argument(..., metavar="SCRIPT", help="a Paddle or torch script (.py)"),
        name: str = typer.Argument(..., metavar="NAME", help="NAME, NAME.grad or one element, "
                                   "NAME.grad\\[i, j]"),
        output: Optional[str] = typer.Option(
            None, "-o", "--output", help="FILE: the graph with the paths highlighted "
            "(.svg .png .pdf .dot)"),
        numeric: bool = Flag("--numeric", help="check the gradient numerically too: central "
                             "differences beside autograd, the step and the error (in the "
                             "text and in the picture's gradient box)"),
        paddle: Optional[str] = PaddleOpt):
    """Run a script and explain a gradient by the chain rule: each path, the sum over paths."""
    from .viz.why import WhyError, why_command

    from . import progress

    script = _lesson(script, "why")
    try:
        with progress.status(f"running {script} and following the chain rule to {name}"
                             + (f", drawing {output}" if output else "")):
            text, message = why_command(script, name, output=output, paddle=paddle,
                                        numeric=numeric)
    except WhyError as exc:
        from .viz.sanitize import for_terminal   # (names from the script: escaped on a tty)

        typer.echo(for_terminal(sys.stderr, f"gradrepl why: {exc}"), err=True)
        raise typer.Exit(2)
    from .viz.sanitize import for_terminal

    sys.stdout.write(for_terminal(sys.stdout, text))
    if message:
        typer.echo(message, err=True)


@app.command(cls=_Command)
def replay(files: list[str] = typer.Argument(..., metavar="FILE",
                                             help="session files (transcripts: '>>> ' inputs, "
                                             "then the expected output)"),
           check: bool = Flag("--check", help="compare each output with the "
                       "expected one: a diff per difference, exit 1 if any"),
           update: bool = Flag("--update", help="rewrite the expected outputs "
                        "that differ, in place (atomically)"),
           html: Optional[str] = typer.Option(None, "--html", metavar="OUT.html",
                                              help="write a handout: the transcript with the "
                                              "pictures of its tensors inline"),
           figures: Optional[str] = typer.Option(
               None, "--figures", metavar="WHICH", help="the handout's pictures: auto (the "
               "default: every %graph and %step picture and at most 4 others per file), all, "
               "none, N (at most N per file) or tensor names (a,e)"),
           safe: bool = Flag("--safe", help="run each file in a child the "
                      "kernel confines (Landlock, seccomp); this process "
                      "checks and writes"),
           present: bool = Flag("--present", help="walk the session in front "
                         "of a class: each block's comments and input, Enter "
                         "runs it, q quits"),
           budget: Optional[float] = typer.Option(
               None, "--budget", metavar="SECONDS", help="--safe's total wall time for the "
               "whole command (default 300): every file's child, every picture, the handout"),
           inside_sandbox: bool = Flag("--inside-sandbox", hidden=True),
           paddle: Optional[str] = PaddleOpt):
    """Run session files, showing them as the shell would; check or update their outputs.

    Exit status: 0 all ran (and matched, with --check); 1 --check found outputs that differ or
    inputs that did not run; 2 a file could not be read or parsed (missing, not a regular
    file, not UTF-8), --safe cannot sandbox on this system, or a limit stopped the session;
    3 --safe refused lines of a file (3 outranks 1, and 2 outranks 3).

    --safe's budget (exhausted: one line naming it, the verdicts so far, exit 2, no process
    or folder left): the whole command 300 s of wall time (--budget); each file's child 60 s
    wall, 30 s CPU, 2048 MB memory, 256 threads, 64 MB and 10000 entries of disk, 10 MB of
    output; each picture's Graphviz 30 s and 1024 MB; 64 MB of pictures per handout.
    """
    from .repl import replay_cli
    from .repl.replay_cli import replay_command

    paths = [_lesson(f, "replay") for f in files]
    replay_cli.SHOWN_AS.update({p: f for p, f in zip(paths, files) if p != f})
    files = paths
    raise typer.Exit(replay_command(files, check=check, update=update, html=html,
                                    paddle=paddle, safe=safe, inside_sandbox=inside_sandbox,
                                    present=present, figures=figures, budget=budget))


@app.command(cls=_Command)
def lessons():
    """List the lessons shipped with gradrepl: session files (replay them) and scripts (run,
    graph, why them); name one as lesson:NAME wherever a command takes a file."""
    from .lessons import catalogue

    entries = catalogue()
    if not entries:
        typer.echo("gradrepl lessons: no lessons are installed with this gradrepl", err=True)
        raise typer.Exit(1)
    for kind, title, how in (("sessions", "Sessions", "gradrepl replay --check lesson:NAME"),
                             ("examples", "Scripts", "gradrepl graph lesson:NAME")):
        names = [name for name, k, _ in entries if k == kind]
        if names:
            typer.echo(f"{title} ({how}):")
            for name in names:
                typer.echo(f"  {name}")


# The shell's options are read by the shell itself, and --help is a plain flag here: typer
# coerces every option value it processes through pydantic (its own --help's too), an import
# of 0.1-0.2 s that would come before the first prompt.
@app.command(cls=_Command,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
             options_metavar="[--paddle 2.2|2.6|3] [--verbose]", add_help_option=False)
def shell(ctx: typer.Context):
    """The interactive shell: Python's prompts, Paddle's tensors (also: gradrepl alone).

    --paddle 2.2|2.6|3 (or GRADREPL_PADDLE): the Paddle version to emulate.
    --verbose: keep gradrepl's own frames in tracebacks.
    """
    from .repl.shell import main_args

    if "--help" in ctx.args or "-h" in ctx.args:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)
    raise typer.Exit(main_args(ctx.args))


@app.callback(invoke_without_command=True, add_help_option=False)
def main(ctx: typer.Context,
         help_: bool = Flag("--help", "-h", is_eager=True,
                                    help="Show this message and exit."),
         version: bool = Flag("--version", "-V", is_eager=True,
                                      help="Show gradrepl's version and exit."),
         paddle: Optional[str] = typer.Option(
             None, "--paddle", help="Paddle version to emulate: 2.2 (default), 2.6, 3; for "
             "the shell and every command (gradrepl --paddle 3 run x.py)"),
         verbose: bool = Flag("--verbose", help="the shell keeps gradrepl's own frames in "
                              "tracebacks")):
    """Without a command: the interactive shell (gradrepl shell)."""
    if paddle is not None:
        _profile(paddle)                      # a wrong version: one line, exit 2
        os.environ["GRADREPL_PADDLE"] = paddle  # the commands' --paddle default
    if help_:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)
    if version:
        from importlib import metadata

        try:
            v = metadata.version("gradrepl")
        except metadata.PackageNotFoundError:  # (run from a checkout without installing)
            v = "unknown"
        typer.echo(f"gradrepl {v}")
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        from .repl.shell import main as shell_main

        raise typer.Exit(shell_main(profile=paddle, verbose=verbose))


@app.command(cls=_Command)
def quiz(script: str = typer.Argument(..., metavar="SCRIPT",
                                      help="a Paddle or torch script (.py) or a session "
                                      "file (.pycon)"),
         tensor: Optional[list[str]] = typer.Option(
             None, "--tensor", "-t", help="a gradient to ask for: NAME or NAME.grad\\[i, j] "
             "(repeat it; default: every named leaf that got a gradient)"),
         answers: Optional[str] = typer.Option(
             None, "--answers", help="FILE: the answers, one a line (NAME = ANSWER, or in "
             "order); default: typed at the prompt, or read from a pipe"),
         sheet: Optional[str] = typer.Option(
             None, "--sheet", help="OUT.html: write a printable exercise sheet (the code, "
             "blanks) and its answer page (solutions with the steps) instead of asking"),
         paddle: Optional[str] = PaddleOpt):
    """Hide a script's gradients and ask for them; a wrong answer is told which step of the
    chain rule went astray (a forgotten path, a missing broadcast sum, ...), then the steps.

    Exit status: 0 every answer right (or --sheet written), 1 some wrong or unanswered, 2 a
    bad argument or a failed script."""
    from .teach.cli import quiz_command

    script = _lesson(script, "quiz")
    raise typer.Exit(quiz_command(script, tensor or [], answers=answers, sheet=sheet,
                                  paddle=paddle))


@app.command(cls=_Command)
def gradcheck(script: str = typer.Argument(..., metavar="SCRIPT",
                                           help="a Paddle or torch script (.py) or a "
                                           "session file (.pycon)"),
              names: Optional[list[str]] = typer.Argument(None, help="the leaves to check "
                                                          "(default: every one with a .grad)"),
              h: float = typer.Option(1e-6, "--h", help="the step of the central differences"),
              elements: int = typer.Option(16, "--elements", help="elements checked per "
                                           "tensor (more: the largest and a sample)"),
              seconds: float = typer.Option(2.0, "--seconds", help="per tensor: no more "
                                            "elements once its checks took this long"),
              paddle: Optional[str] = PaddleOpt):
    """Check autograd against numbers: central finite differences in float64 beside each
    leaf's .grad (and each paddle.grad / torch.autograd.grad result), the step and the error
    said plainly.

    Exit status: 0 all agree, 1 some disagree, 2 a bad argument or a failed script."""
    from .teach.cli import gradcheck_command

    script = _lesson(script, "gradcheck")
    raise typer.Exit(gradcheck_command(script, names or [], h=h, elements=elements,
                                       seconds=seconds, paddle=paddle))


if __name__ == "__main__":
    app()
