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


@app.callback(invoke_without_command=True)
def main(ctx: typer.Context):
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


if __name__ == "__main__":
    app()
