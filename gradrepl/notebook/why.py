"""``%why NAME`` (``NAME.grad``, ``NAME.grad[i, j]``, ``model.fc.weight``): why NAME's gradient is
that number, by the chain rule with the engine's own numbers (``gradrepl.viz.why``), as text.

The extension records every backward for it (a ``why.WhyLog`` as the engine's trace sink, which
passes each event on to the step-through's log). If this gradrepl has no ``viz.why``, ``%why``
says so in one line.
"""
from __future__ import annotations


def why_module():
    """``gradrepl.viz.why``, or None where this gradrepl does not have it."""
    import importlib

    try:   # (by its module name: ``gradrepl.viz`` may export a function called why)
        return importlib.import_module("gradrepl.viz.why")
    except ImportError:
        return None


def why_text(view, args, log) -> str:
    from ..repl.commands import CommandError

    mod = why_module()
    if mod is None:
        return "%why is not available in this gradrepl (gradrepl.viz.why is missing)\n"
    if not args:
        raise CommandError("usage: %why NAME (or NAME.grad, NAME.grad[i, j])")
    try:
        if hasattr(mod, "resolve_target"):   # model[0].weight.grad[0, 1]
            tensor, name, element = mod.resolve_target(view.namespace, " ".join(args))
        else:
            name, element = mod.parse_target(" ".join(args))
            tensor = mod.lookup(view.namespace, name)
        try:
            ex = mod.why(tensor, namespace=view.namespace, element=element, log=log,
                         name=name, recorder=getattr(view, "recorder", None))
        except TypeError:   # (a why without recorder=)
            ex = mod.why(tensor, namespace=view.namespace, element=element, log=log, name=name)
        text = ex.text()
    except (ValueError, KeyError, IndexError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise CommandError(str(msg)) from None
    return text if text.endswith("\n") else text + "\n"
