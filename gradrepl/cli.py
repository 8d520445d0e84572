"""The ``gradrepl`` command (typer)."""
from __future__ import annotations

import os
import sys
from typing import Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=False,
                  help="gradrepl: an autograd workbench that speaks Paddle.")

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


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run(ctx: typer.Context, script: str = typer.Argument(..., help="a Paddle script (.py)"),
        paddle: Optional[str] = PaddleOpt):
    """Run a Paddle script unchanged, printing what Paddle prints."""
    from .runner import header_profile, run_script

    _profile(paddle or header_profile(script))
    if not os.path.exists(script):
        typer.echo(f"gradrepl: no such file: {script}", err=True)
        raise typer.Exit(2)
    try:
        run_script(script, ctx.args, profile=None)
    except SystemExit as exc:
        raise typer.Exit(exc.code if isinstance(exc.code, int) else 1)
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        raise typer.Exit(0)
    except BaseException:  # the script's own error: show it like python does
        import traceback

        sys.stdout.flush()
        traceback.print_exc()
        raise typer.Exit(1)


@app.command()
def graph(script: str = typer.Argument(..., help="a Paddle script (.py)"),
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
                                              "player"),
          collapse: bool = typer.Option(False, "--collapse", help="each Layer call as one node"),
          depth: Optional[int] = typer.Option(None, "--depth", help="only ops at most N "
                                              "steps above the tensor"),
          to: Optional[str] = typer.Option(None, "--to", help="only what lies between the "
                                           "tensor NAME and the drawn tensor"),
          chain: bool = typer.Option(False, "--chain", help="write the chain-rule arithmetic "
                                     "on each backward op"),
          layers: Optional[int] = typer.Option(None, "--layers", help="Layer calls nested "
                                               "deeper than N as one box each (a whole model "
                                               "on one slide: 1 = the model's children)"),
          rankdir: Optional[str] = typer.Option(None, "--rankdir", help="TB (top to bottom, "
                                                "the default) or LR (left to right)"),
          size: Optional[str] = typer.Option(None, "--size", help="WxH in inches (16x9): "
                                             "the drawing scaled to fill it"),
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
          paddle: Optional[str] = PaddleOpt):
    """Run a script and draw a tensor's forward and backward graphs."""
    from .viz.cli import GraphError, draw

    try:
        message = draw(script, tensor=tensor, view=view, at=at, output=output, steps=steps,
                       collapse=collapse, depth=depth, to=to, chain=chain, paddle=paddle,
                       layers=layers, rankdir=rankdir, size=size, dpi=dpi, theme=theme,
                       font_size=font_size, look=look)
    except GraphError as exc:
        typer.echo(f"gradrepl graph: {exc}", err=True)
        raise typer.Exit(2)
    if message:
        typer.echo(message, err=True)


@app.command()
def why(script: str = typer.Argument(..., help="a Paddle or torch script (.py)"),
        name: str = typer.Argument(..., help="NAME, NAME.grad or one element, "
                                   "NAME.grad\\[i, j]"),
        output: Optional[str] = typer.Option(
            None, "-o", "--output", help="FILE: the graph with the paths highlighted "
            "(.svg .png .pdf .dot)"),
        paddle: Optional[str] = PaddleOpt):
    """Run a script and explain a gradient by the chain rule: each path, the sum over paths."""
    from .viz.why import WhyError, why_command

    try:
        text, message = why_command(script, name, output=output, paddle=paddle)
    except WhyError as exc:
        from .viz.sanitize import for_terminal   # (names from the script: escaped on a tty)

        typer.echo(for_terminal(sys.stderr, f"gradrepl why: {exc}"), err=True)
        raise typer.Exit(2)
    from .viz.sanitize import for_terminal

    sys.stdout.write(for_terminal(sys.stdout, text))
    if message:
        typer.echo(message, err=True)


@app.command()
def replay(files: list[str] = typer.Argument(..., metavar="FILE",
                                             help="session files (transcripts: '>>> ' inputs, "
                                             "then the expected output)"),
           check: bool = typer.Option(False, "--check", help="compare each output with the "
                                      "expected one: a diff per difference, exit 1 if any"),
           update: bool = typer.Option(False, "--update", help="rewrite the expected outputs "
                                       "that differ, in place (atomically)"),
           html: Optional[str] = typer.Option(None, "--html", metavar="OUT.html",
                                              help="write a handout: the transcript with the "
                                              "pictures of its tensors inline"),
           safe: bool = typer.Option(False, "--safe", help="run each file in a child the "
                                     "kernel confines (Landlock, seccomp); this process "
                                     "checks and writes"),
           present: bool = typer.Option(False, "--present", help="walk the session in front "
                                        "of a class: each block's comments and input, Enter "
                                        "runs it, q quits"),
           inside_sandbox: bool = typer.Option(False, "--inside-sandbox", hidden=True),
           paddle: Optional[str] = PaddleOpt):
    """Run session files, showing them as the shell would; check or update their outputs.

    Exit status: 0 all ran (and matched, with --check); 1 --check found outputs that differ or
    inputs that did not run; 2 a file could not be read or parsed (missing, not a regular
    file, not UTF-8), --safe cannot sandbox on this system, or a limit stopped the session;
    3 --safe refused lines of a file (3 outranks 1, and 2 outranks 3).
    """
    from .repl.replay_cli import replay_command

    raise typer.Exit(replay_command(files, check=check, update=update, html=html,
                                    paddle=paddle, safe=safe, inside_sandbox=inside_sandbox,
                                    present=present))


# The shell's options are read by the shell itself, and --help is a plain flag here: typer
# coerces every option value it processes through pydantic (its own --help's too), an import
# of 0.1-0.2 s that would come before the first prompt.
@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
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
         help_: bool = typer.Option(False, "--help", is_eager=True, is_flag=True,
                                    help="Show this message and exit.")):
    """Without a command: the interactive shell (gradrepl shell)."""
    if help_:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        from .repl.shell import main as shell_main

        raise typer.Exit(shell_main())


if __name__ == "__main__":
    app()
