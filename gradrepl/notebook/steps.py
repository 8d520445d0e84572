"""The frames of a logged backward, drawn for the notebook's player.

The same frames as ``gradrepl graph --steps`` (``viz.steps.frames`` over the picture model, each
drawn with the chain-rule lines; ``step 3 of 7``, the step's sentence, the ready queue), as the
player's frame dicts, with the steps' sentences as plain text for frontends that show no HTML.
"""
from __future__ import annotations


def player_frames(tensor, run, namespace, recorder, view="backward", steps_from="backward"):
    """``(frames, text)``: the player's frame dicts for ``run`` (a ``steps.LoggedRun`` of
    ``tensor``'s backward), and one line per step as text; ``steps_from="forward"``: the
    forward pass's frames first (``viz.forward``: one per statement that built ``tensor``)."""
    from ..viz import model as _model
    from ..viz import render
    from ..viz.dot import to_dot
    from ..viz.steps import frames
    from ..viz.terminal import ready_text, step_title

    g = _model.build(tensor, namespace=namespace, recorder=recorder)
    step_view = view if view != "forward" else "backward"
    items, lines = [], []
    shown = frames(g, run, chain=True)
    for f in shown:   # (as gradrepl graph --steps makes them)
        counter, event = step_title(f.step), f.step.get("event") or ""
        items.append({"svg": render.svg(to_dot(f, view=step_view, chain=True)),
                      "counter": counter, "title": event,
                      "description": "ready queue: " + ready_text(f.step),
                      "code": f.step.get("code")})   # the engine functions of the step
        lines.append(f"{counter}: {event}" if event else counter)
    if not items:
        raise ValueError("the backward logged no steps")
    if steps_from == "forward":   # (from the graph as the forward left it: step 0)
        from ..viz.forward import player_items

        fitems, _src = player_items(shown[0], recorder, None,
                                    "both" if view == "both" else "forward")
        items = fitems + items
        lines = [f"{it['counter']}: {it['title']}" for it in fitems] + lines
    return items, "\n".join(lines) + "\n"
