"""The frames of a logged backward, drawn for the notebook's player.

The same frames as ``gradrepl graph --steps`` (``viz.steps.frames`` over the picture model, each
drawn with the chain-rule lines; ``step 3 of 7``, the step's sentence, the ready queue), as the
player's frame dicts, with the steps' sentences as plain text for frontends that show no HTML.
"""
from __future__ import annotations


def player_frames(tensor, run, namespace, recorder, view="backward"):
    """``(frames, text)``: the player's frame dicts for ``run`` (a ``steps.LoggedRun`` of
    ``tensor``'s backward), and one line per step as text."""
    from ..viz import model as _model
    from ..viz import render
    from ..viz.dot import to_dot
    from ..viz.steps import frames
    from ..viz.terminal import ready_text, step_title

    g = _model.build(tensor, namespace=namespace, recorder=recorder)
    step_view = view if view != "forward" else "backward"
    items, lines = [], []
    for f in frames(g, run, chain=True):   # (as gradrepl graph --steps makes them)
        counter, event = step_title(f.step), f.step.get("event") or ""
        items.append({"svg": render.svg(to_dot(f, view=step_view, chain=True)),
                      "counter": counter, "title": event,
                      "description": "ready queue: " + ready_text(f.step),
                      "code": f.step.get("code")})   # the engine functions of the step
        lines.append(f"{counter}: {event}" if event else counter)
    if not items:
        raise ValueError("the backward logged no steps")
    return items, "\n".join(lines) + "\n"
