"""The frames of a logged backward, drawn for the notebook's player.

The same frames as ``gradrepl graph --steps`` (``viz.steps.frames`` over the picture model, each
drawn with the chain-rule lines), as the player's frame dicts, with the frames' titles and
sentences as plain text for frontends that show no HTML.
"""
from __future__ import annotations


def player_frames(tensor, run, namespace, recorder, view="backward"):
    """``(frames, text)``: the player's ``{"svg", "title", "description"}`` dicts for ``run``
    (a ``steps.LoggedRun`` of ``tensor``'s backward), and their titles and sentences as text."""
    from ..viz import model as _model
    from ..viz import render
    from ..viz.dot import to_dot
    from ..viz.steps import frames

    g = _model.build(tensor, namespace=namespace, recorder=recorder)
    step_view = view if view != "forward" else "backward"
    items, lines = [], []
    for f in frames(g, run, chain=True):
        k, n = f.step["index"], f.step["total"]
        title = f"event {k} of {n}" if k else "before backward"
        event = f.step.get("event") or ""
        items.append({"svg": render.svg(to_dot(f, view=step_view, chain=True)),
                      "title": title, "description": event})
        lines.append(f"{title}: {event}" if event else title)
    if not items:
        raise ValueError("the backward logged no steps")
    return items, "\n".join(lines) + "\n"
