"""The line magics: ``%gradrepl``, ``%graph``, ``%step``, ``%why``, ``%quiz`` (teach/notebook.py).

``%graph`` and ``%step`` take the shell's arguments (``gradrepl/repl/commands.py``): ``%graph``
is the shell's own command run on the notebook's namespace (IPython's names left out), shown as
inline SVG; ``%step`` shows the backward of a tensor in the HTML player, from the backward the
cell already ran (the extension logs every backward while it is loaded) or, if none ran yet,
from one it runs now, as the shell's ``%step`` does. ``%why`` is ``gradrepl.viz.why``'s text.
A bad argument prints one line (as the shell says it) and the notebook goes on.
"""
from __future__ import annotations

import argparse
import shlex
import sys

from .names import user_namespace



class _View:
    """What the shell's commands need of a session: the user's names and the recorder."""

    safe = False

    def __init__(self, ext):
        self.namespace = user_namespace(ext.shell)
        self.recorder = ext.recorder
        self.backward_log = getattr(ext, "log", None)   # %graph --chain: the numbers that flowed
        self._shell = ext.shell

    @property
    def history(self) -> list:
        """The notebook's cells run so far and this one (last), as inputs a fresh session can
        run again (``%graph --numeric``): magic and shell lines left out, ``%%`` cells too."""
        raw = list(getattr(getattr(self._shell, "history_manager", None), "input_hist_raw",
                           None) or [])[1:]
        keep = lambda ln: not ln.lstrip().startswith(("%", "!"))   # noqa: E731
        return ["\n".join(filter(keep, c.splitlines())) if not c.lstrip().startswith("%%")
                else "" for c in raw]

    @property
    def profile_key(self):
        from ..paddle import profiles

        return profiles.current().key


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        from ..repl.commands import CommandError

        raise CommandError(message)

    def exit(self, status=0, message=None):
        from ..repl.commands import CommandError

        raise CommandError(message or "bad arguments")


def _split(name, line):
    from ..repl.commands import CommandError

    try:
        return shlex.split(line)
    except ValueError as exc:
        raise CommandError(f"%{name}: {exc}") from None


def _say_error(name, exc) -> None:
    msg = str(exc).strip()
    if not msg.startswith("%"):
        msg = f"%{name}: {msg}"
    print(msg, file=sys.stderr)


class Magics:
    """The extension's line magics, bound to one loaded extension."""

    NAMES = ("gradrepl", "graph", "step", "why", "quiz")

    def __init__(self, ext):
        self.ext = ext

    def register(self, shell) -> None:
        for name in self.NAMES:
            shell.register_magic_function(self._wrapped(name), "line", name)

    def unregister(self, shell) -> None:
        table = shell.magics_manager.magics["line"]
        for name in self.NAMES:
            fn = table.get(name)
            if getattr(fn, "__gradrepl__", None) is self:
                del table[name]

    def _wrapped(self, name):
        method = getattr(self, name)

        def magic(line=""):
            from ..repl.commands import CommandError

            try:
                return method(line)
            except CommandError as exc:
                _say_error(name, exc)
            return None

        magic.__name__ = name
        magic.__doc__ = method.__doc__
        magic.__gradrepl__ = self
        return magic

    # -- %gradrepl ------------------------------------------------------------------------
    def gradrepl(self, line):
        """%gradrepl [--paddle 2.2|2.6|3] [--reset] [--plain | --rich] [--log N|all]
        [--verbose | --short]: show or change how gradrepl serves this kernel: the emulated
        Paddle version, a fresh state (names, seed), tensors shown as plain text only or with a
        caption, how many backward runs of each cell %step and %why can show (8 by default:
        loops stay fast), tracebacks with gradrepl's own files or (the default) without."""
        p = _Parser(prog="%gradrepl", add_help=False)
        p.add_argument("--paddle")
        p.add_argument("--reset", action="store_true")
        g = p.add_mutually_exclusive_group()
        g.add_argument("--plain", action="store_true")
        g.add_argument("--rich", action="store_true")
        p.add_argument("--log")
        t = p.add_mutually_exclusive_group()
        t.add_argument("--verbose", action="store_true")
        t.add_argument("--short", action="store_true")
        a = p.parse_args(_split("gradrepl", line))
        if a.verbose or a.short:
            self.ext.verbose = a.verbose
        if a.paddle is not None or a.reset:
            self.ext.set_profile(a.paddle, reset=a.reset)
        if a.plain or a.rich:
            self.ext.set_rich(a.rich)
        if a.log is not None:
            self.ext.set_log(a.log)
        print(self.ext.status())

    # -- %graph ---------------------------------------------------------------------------
    def graph(self, line):
        """%graph [NAME] [-o FILE] [--view forward|backward|both] [--chain] [--collapse]
        [--depth N] [--to NAME] [--layers N] [--look full|compact|auto] (and the slide
        options): draw NAME's forward and backward graphs inline (the shell's %graph; -o FILE
        writes .svg .png .pdf .dot .json .txt instead)."""
        from IPython.display import display

        from ..repl.commands import CommandError, cmd_graph
        from ..viz.render import RenderError
        from .outputs import picture_bundle

        res = cmd_graph(_View(self.ext), _split("graph", line))
        if res.value is None:          # -o FILE: "wrote FILE"
            print(res.output, end="")
            return
        try:
            bundle = picture_bundle(res.value)
        except RenderError as exc:
            raise CommandError(str(exc)) from None
        display(bundle, raw=True)
        from ..repl.commands import NUMERIC

        if NUMERIC in res.output:   # (--numeric: the check in words, under the picture)
            print((NUMERIC + res.output.rpartition(NUMERIC)[2]).lstrip("\n"), end="")

    # -- %step ----------------------------------------------------------------------------
    def step(self, line):
        """%step [NAME] [--view backward|both] [--from forward]: NAME's backward, step by step,
        in a player (the backward the notebook ran; if none ran for NAME yet, %step runs
        NAME.backward()); --from forward: first the forward pass, statement by statement."""
        from IPython.display import display

        from ..repl.commands import CommandError, _tensor_arg
        from .outputs import player_bundle
        from .steps import player_frames

        p = _Parser(prog="%step", add_help=False)
        p.add_argument("name", nargs="?")
        p.add_argument("--view", default="backward", choices=["forward", "backward", "both"])
        p.add_argument("--from", dest="start", default="backward",
                       choices=["backward", "forward"])
        a = p.parse_args(_split("step", line))
        view = _View(self.ext)
        name, tensor = _tensor_arg(view, a.name, need_graph=True)
        run, ran_now = self.ext.logged_backward(tensor)
        try:
            items, text = player_frames(tensor, run, view.namespace, self.ext.recorder, a.view,
                                        a.start)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        title = (f"gradrepl: {'forward and ' if a.start == 'forward' else ''}backward of "
                 f"{name}, step by step")
        if ran_now:
            title += f" ({name}.backward() ran now)"
        display(player_bundle(items, title, text), raw=True)

    # -- %why -----------------------------------------------------------------------------
    def why(self, line):
        """%why NAME (or NAME.grad, NAME.grad[i, j]): why NAME's gradient is that number, by
        the chain rule, with the engine's numbers."""
        from .why import why_text

        print(why_text(_View(self.ext), _split("why", line), self.ext.why_log), end="")

    # -- %quiz ----------------------------------------------------------------------------
    def quiz(self, line):
        """%quiz [NAME [ANSWER]]: the gradients to work out; NAME's question; ANSWER marked
        (right, or which step of the chain rule went astray, then the steps)."""
        from ..teach.notebook import show_quiz

        show_quiz(self.ext, line)
