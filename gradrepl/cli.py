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
                                              "backward event and an index.html player"),
          collapse: bool = typer.Option(False, "--collapse", help="each Layer call as one node"),
          depth: Optional[int] = typer.Option(None, "--depth", help="only ops at most N "
                                              "steps above the tensor"),
          to: Optional[str] = typer.Option(None, "--to", help="only what lies between the "
                                           "tensor NAME and the drawn tensor"),
          chain: bool = typer.Option(False, "--chain", help="write the chain-rule arithmetic "
                                     "on each backward op"),
          paddle: Optional[str] = PaddleOpt):
    """Run a script and draw a tensor's forward and backward graphs."""
    from .viz.cli import GraphError, draw

    try:
        message = draw(script, tensor=tensor, view=view, at=at, output=output, steps=steps,
                       collapse=collapse, depth=depth, to=to, chain=chain, paddle=paddle)
    except GraphError as exc:
        typer.echo(f"gradrepl graph: {exc}", err=True)
        raise typer.Exit(2)
    if message:
        typer.echo(message, err=True)


@app.callback(invoke_without_command=True)
def main(ctx: typer.Context):
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


if __name__ == "__main__":
    app()
