"""One loaded ``%load_ext gradrepl``: everything it put into the kernel, and taking it out.

Loading, for the kernel's IPython shell:

- ``import paddle`` / ``import torch`` served by gradrepl (``imports.ServedImports``), the state
  of a fresh session (``paddle.state.reset``: profile from ``GRADREPL_PADDLE`` or the default);
- each top-level statement of a cell marked in an engine provenance ``Recorder``
  (``labels.StatementMarks``, an AST transformer), the recorder active for Layer calls;
- the backward runs logged for ``%step`` (``viz.steps.BackwardLog``) and ``%why``
  (``viz.why.WhyLog``): the first few of each cell (``backlog.BackwardBudget``);
- numpy's floating-point warnings off while a cell runs, as ``gradrepl run`` and the shell do;
- the magics (``magics.Magics``) and the HTML displays of tensors and pictures.

:meth:`Extension.unload` undoes each of these, in the reverse order.
"""
from __future__ import annotations

import os

LOG_RUNS = 2  # backward runs kept for %step (a training loop's last ones)


class Extension:
    def __init__(self, shell):
        from ..engine import Recorder
        from ..viz.steps import BackwardLog
        from .imports import ServedImports
        from .labels import StatementMarks
        from .backlog import BackwardBudget
        from .magics import Magics
        from .why import why_module

        self.shell = shell
        self.imports = ServedImports()
        self.marks = StatementMarks()
        self.recorder = Recorder()
        self.log = BackwardLog(max_runs=LOG_RUNS)
        why = why_module()    # %why's log passes every event on to %step's
        self.why_log = why.WhyLog(forward=self.log) if why is not None else None
        self.sink = BackwardBudget(self.why_log if self.why_log is not None else self.log)
        self.magics = Magics(self)
        self.rich = True
        self.verbose = False     # tracebacks with gradrepl's own files (%gradrepl --verbose)
        self._quiet = None
        self._old_sink = None
        self._formatted = []

    # -- load / unload ------------------------------------------------------------------------
    def load(self) -> str:
        """Install everything; return what to tell the user."""
        from ..engine import set_trace_sink
        from ..paddle import state

        self.imports.enter()
        state.reset(os.environ.get("GRADREPL_PADDLE") or None)
        self.recorder.__enter__()
        self.shell.ast_transformers.append(self.marks)
        self.shell.events.register("pre_run_cell", self.pre_run_cell)
        self.shell.events.register("post_run_cell", self.post_run_cell)
        self._old_sink = set_trace_sink(self.sink)
        self.magics.register(self.shell)
        self._register_formatters()
        self._install_tracebacks()
        notice = self.imports.notice(self.shell.user_ns)
        return (notice + "\n" if notice else "") + self.status()

    def unload(self) -> str:
        from ..engine import provenance, set_trace_sink, trace_sink

        self._unregister_formatters()
        self._remove_tracebacks()
        self.magics.unregister(self.shell)
        if trace_sink() is self.sink or (trace_sink() is None and self.sink.switched_off):
            set_trace_sink(self._old_sink)
        for event, fn in (("pre_run_cell", self.pre_run_cell),
                          ("post_run_cell", self.post_run_cell)):
            try:
                self.shell.events.unregister(event, fn)
            except ValueError:
                pass
        if self.marks in self.shell.ast_transformers:
            self.shell.ast_transformers.remove(self.marks)
        if provenance.ACTIVE is self.recorder:
            self.recorder.__exit__(None, None, None)
        self._leave_quiet()
        self.imports.leave()
        return ("gradrepl unloaded: `import paddle` and `import torch` are this kernel's own "
                "again (names bound meanwhile still hold gradrepl's modules).")

    # -- each cell ----------------------------------------------------------------------------
    def pre_run_cell(self, info=None) -> None:
        raw = getattr(info, "raw_cell", None)
        if raw is not None:
            try:
                self.marks.remember(self.shell.transform_cell(raw))
            except Exception:  # noqa: BLE001 - labels then come from the tree
                self.marks.remember("")
        self.sink.new_cell()
        self._leave_quiet()
        from ..engine import quiet_fp

        self._quiet = quiet_fp()
        self._quiet.__enter__()

    def post_run_cell(self, result=None) -> None:
        self._leave_quiet()

    def _leave_quiet(self) -> None:
        q, self._quiet = self._quiet, None
        if q is not None:
            try:
                q.__exit__(None, None, None)
            except ValueError:  # (numpy's errstate entered in another context)
                from ..engine import reset_quiet_fp

                reset_quiet_fp()

    # -- options ------------------------------------------------------------------------------
    def set_profile(self, key=None, reset=False) -> None:
        from ..paddle import profiles, state
        from ..repl.commands import CommandError

        try:
            if key is not None:
                profiles.resolve(key)
            if reset:
                state.reset(key or profiles.current().key)
            else:
                profiles.set_profile(key)
        except ValueError as exc:
            raise CommandError(str(exc)) from None

    def set_log(self, value: str) -> None:
        """How many backward runs of each cell to log: a number, or ``all``."""
        from ..repl.commands import CommandError

        if value == "all":
            self.sink.per_cell = None
            return
        try:
            n = int(value)
            if n < 0:
                raise ValueError
        except ValueError:
            raise CommandError(f"--log takes a number of backward runs or 'all', got {value!r}") \
                from None
        self.sink.per_cell = n

    def set_rich(self, on: bool) -> None:
        self.rich = bool(on)

    def status(self) -> str:
        from ..paddle import profiles

        p = profiles.current()
        return (f"gradrepl: `import paddle` is gradrepl's Paddle {p.version} (profile {p.key}), "
                "`import torch` gradrepl's torch, in this kernel. Magics: %graph, %step, %why; "
                "%gradrepl --paddle 2.2|2.6|3 switches; %unload_ext gradrepl undoes.")

    # -- tracebacks ---------------------------------------------------------------------------
    def _install_tracebacks(self) -> None:
        """Errors as the shell shows them: gradrepl's own files left out of the traceback (the
        user's cell, Paddle's message whole), and an unknown %magic with the close one."""
        if getattr(self.shell, "custom_exceptions", ()):   # someone else's handler: theirs
            self._old_exc = None
            return
        self._old_exc = (self.shell.custom_exceptions, self.shell.CustomTB)
        ext = self

        def handler(shell, etype, value, tb, tb_offset=None):
            from .errors import compile_stage, shown_exception

            if issubclass(etype, SyntaxError) and compile_stage(tb):   # the cell's own typo:
                if issubclass(etype, IndentationError):                # as IPython shows it
                    shell.showindentationerror()
                else:
                    shell.showsyntaxerror()
                return
            etype, value, tb = shown_exception(shell, etype, value, tb, ext.verbose)
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset,
                                running_compiled_code=True)

        self.shell.set_custom_exc((Exception,), handler)

    def _remove_tracebacks(self) -> None:
        old = getattr(self, "_old_exc", None)
        if old is not None:
            self.shell.custom_exceptions, self.shell.CustomTB = old
            self._old_exc = None

    # -- rich display -------------------------------------------------------------------------
    def _register_formatters(self) -> None:
        from ..engine.tensor import Tensor
        from ..viz import Picture

        html = self.shell.display_formatter.formatters["text/html"]
        for cls, fn in ((Tensor, self._tensor_html), (Picture, self._picture_html)):
            html.for_type(cls, fn)
            self._formatted.append((html, cls))

    def _unregister_formatters(self) -> None:
        for fmt, cls in self._formatted:
            fmt.pop(cls, None)
        self._formatted.clear()

    def _tensor_html(self, tensor):
        if not self.rich:
            return None
        from .outputs import tensor_html
        from .captions import caption

        try:
            text = caption(tensor, self)
        except Exception:  # noqa: BLE001 - a caption is a nicety: the exact repr still shows
            text = ""
        return tensor_html(tensor, text)

    def _picture_html(self, picture):
        from .outputs import picture_html

        return picture_html(picture.svg())

    # -- %step's backward ---------------------------------------------------------------------
    def logged_backward(self, tensor):
        """``(run, ran_now)``: the logged backward from ``tensor``; if none was logged, run
        ``tensor.backward()`` now under the log, as the shell's ``%step`` does."""
        from ..engine import quiet_fp, trace_to
        from ..repl.commands import CommandError

        for run in reversed(self.log.runs):
            if any(r is tensor for r in run.roots):
                return run, False
        if self.sink.was_skipped(tensor):
            raise CommandError(
                f"its backward was not logged: that cell ran more than {self.sink.per_cell} "
                "backward passes and gradrepl logs the first ones of each cell (%gradrepl --log "
                "all logs every one, slower)")
        self.sink.count, self.sink.dropping = 0, False
        try:
            with trace_to(self.sink, chain=False), quiet_fp():
                tensor.backward()
        except Exception as exc:  # noqa: BLE001 - the engine's error, as the user would see it
            raise CommandError(f"{type(exc).__name__}: {exc} (no backward from this tensor was "
                               "logged since %load_ext gradrepl: run its cells again)") from None
        return self.log.runs[-1], True
