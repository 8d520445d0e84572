"""Progress on long work: a transient status line on stderr, only where someone can see it.

    from gradrepl import progress

    with progress.status("running vgg11.py") as say:
        ...
        say("laying out the graph")                   # the same line, new words
    for item in progress.each(items, "drawing frame {i} of {n}"):
        ...

The line (a rich spinner) is drawn only when stderr is a terminal whose TERM is not ``dumb``
and ``GRADREPL_PROGRESS`` is not ``0``; it is erased when the work ends, so what stays on the
screen is what the command printed. Piped, redirected, under ``TERM=dumb`` or in CI nothing is
written at all. ``NO_COLOR`` (https://no-color.org) keeps the spinner but drops its colour.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")


def enabled(stream=None) -> bool:
    """Whether a status line would be seen: ``stream`` (default stderr) is a terminal, TERM is
    not ``dumb`` and ``GRADREPL_PROGRESS`` is not ``0``."""
    stream = sys.stderr if stream is None else stream
    if os.environ.get("GRADREPL_PROGRESS", "") == "0":
        return False
    if os.environ.get("TERM", "") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):   # closed, or not a real file
        return False


def _nothing(text: str) -> None:
    return None


@contextmanager
def status(text: str, stream=None) -> Iterator[Callable[[str], None]]:
    """Show ``text`` with a spinner while the block runs; yields ``say(text)`` to change it.
    Silent (``say`` does nothing) where :func:`enabled` is false."""
    stream = sys.stderr if stream is None else stream
    if not enabled(stream):
        yield _nothing
        return
    from rich.console import Console
    from rich.live import Live
    from rich.spinner import Spinner

    console = Console(file=stream, no_color=bool(os.environ.get("NO_COLOR")) or None,
                      highlight=False)
    # what the work prints on stdout goes above the line when stdout is the same terminal;
    # piped stdout is left alone (the status never takes a byte of it)
    try:
        stdout_tty = sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        stdout_tty = False
    spinner = Spinner("dots", text=text, style="status.spinner")
    live = Live(spinner, console=console, transient=True, refresh_per_second=8,
                redirect_stdout=stdout_tty, redirect_stderr=False)
    try:
        live.start(refresh=True)
    except Exception:   # noqa: BLE001 - a status line must never stop the work
        yield _nothing
        return
    try:
        yield lambda words: spinner.update(text=words)
    finally:
        live.stop()


def each(items: Iterable[T], text: str, total: int | None = None, stream=None) -> Iterator[T]:
    """Iterate ``items`` under a status line ``text``, formatted with ``{i}`` (1-based) and
    ``{n}`` (``total``, or ``len(items)`` where it has one, else ``?``)."""
    if total is None:
        try:
            total = len(items)   # type: ignore[arg-type]
        except TypeError:
            total = None
    n = "?" if total is None else str(total)
    with status(text.format(i=1, n=n).replace(" of ?", ""), stream) as say:
        for i, item in enumerate(items, 1):
            say(text.format(i=i, n=n).replace(" of ?", ""))
            yield item
