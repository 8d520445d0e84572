"""``gradrepl graph``: run a script, then draw one of its tensors (the command's logic; the
typer wrapper in ``gradrepl/cli.py`` only parses arguments and prints the one-line error)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from . import EXTENSIONS, VIEWS
from .capture import describe_error as _describe_error  # (teach/ imports it from here too)


class GraphError(Exception):
    """A bad argument or a failed script: one line for the user, exit status 2."""


def pick_tensor(namespace, name, path):
    from ..engine.tensor import Tensor

    if name is not None:
        if name not in namespace:
            tensors = [k for k, v in namespace.items() if isinstance(v, Tensor)
                       and not k.startswith("_")]
            hint = f" (its tensors: {', '.join(tensors)})" if tensors else " (it has no tensors)"
            raise GraphError(f"no variable named {name!r} in {path}{hint}")
        value = namespace[name]
        if not isinstance(value, Tensor):
            raise GraphError(f"{name!r} is a {type(value).__name__}, not a tensor")
        return name, value
    last = None
    for k, v in namespace.items():
        if isinstance(v, Tensor) and not k.startswith("_") and v.grad_node is not None:
            last = (k, v)
    if last is None:
        raise GraphError(f"{path} left no tensor with a graph; name one with --tensor")
    return last


def draw(script, tensor=None, view="both", at=None, output=None, steps=None, collapse=False,
         depth=None, to=None, chain=False, paddle=None, layers=None, rankdir=None, size=None,
         dpi=None, theme=None, font_size=None, look="auto", values=None,
         steps_from=None, heatmap=False, numeric=False, camera=False) -> str | None:
    """Do what ``gradrepl graph`` does; returns a message for stderr, raises GraphError.
    ``values``: arrays of at most this many elements are shown whole (default 12);
    ``steps_from``: "backward" (the default: the backward's steps) or "forward" (the
    forward pass statement by statement first, then the backward's steps); ``camera``: step
    frames larger than the slide follow each step through a slide-sized viewport (``viz.camera``;
    without ``size``, the frames take the big-text look ``1080p``)."""
    if values is not None and values < 1:
        raise GraphError(f"--values must be 1 or more, got {values}")
    if steps_from not in STEPS_FROM + (None,):
        raise GraphError(f"unknown --steps-from {steps_from!r}: choose one of "
                         f"{', '.join(STEPS_FROM)}")
    if steps is None and (steps_from is not None or camera):
        raise GraphError(f"{'--steps-from' if steps_from is not None else '--camera'} goes "
                         "with --steps DIR (or FILE.pdf, .gif, .svg): it shapes the step frames")
    from . import heatmap as _heatmap
    from .model import preview_items

    old = preview_items(values)
    old_heat = _heatmap.enable(heatmap)   # (--heatmap: arrays past --values as heat maps)
    from . import camera as _camera

    old_camera = _camera.enable(camera)
    try:
        return _draw(script, tensor, view, at, output, steps, collapse, depth, to, chain, paddle,
                     layers, rankdir, size, dpi, theme, font_size, look, steps_from, numeric)
    finally:
        preview_items(old)
        _heatmap.enable(old_heat)
        _camera.enable(old_camera)


def _draw(script, tensor, view, at, output, steps, collapse, depth, to, chain, paddle, layers,
          rankdir, size, dpi, theme, font_size, look, steps_from=None, numeric=False):
    from . import graph as make_picture
    from . import render
    from .capture import run_for_pictures

    if view not in VIEWS:
        raise GraphError(f"unknown view {view!r}: choose one of {', '.join(VIEWS)}")
    if output is not None:
        ext = Path(output).suffix.lower()
        if ext not in EXTENSIONS:
            raise GraphError(f"unknown extension {ext or '(none)'!r} for -o {output}: use one "
                             f"of {', '.join(EXTENSIONS)}")
        parent = Path(output).parent
        if not parent.is_dir():
            raise GraphError(f"no such folder: {parent}")
    if at is not None and at < 1:
        raise GraphError(f"--at must be a line number (1 or more), got {at}")
    if depth is not None and depth < 0:
        raise GraphError(f"--depth must be 0 or more, got {depth}")
    if layers is not None and layers < 0:
        raise GraphError(f"--layers must be 0 or more, got {layers}")
    from .dot import LOOKS

    if look not in LOOKS:
        raise GraphError(f"unknown --look {look!r}: choose one of {', '.join(LOOKS)}")
    from .theme import Style

    try:  # the slide options, checked before the script runs
        Style(rankdir, size, dpi, theme, font_size)
    except ValueError as exc:
        raise GraphError(str(exc)) from None
    if not os.path.isfile(script):
        raise GraphError(f"no such file: {script}")
    if at is not None:   # a line past the end would silently draw the whole script
        try:
            with open(script, encoding="utf-8", errors="replace") as f:
                n_lines = sum(1 for _ in f)
        except OSError:
            n_lines = None
        if n_lines is not None and at > n_lines:
            raise GraphError(f"--at {at}: {script} has {n_lines} line"
                             f"{'' if n_lines == 1 else 's'}")
    if paddle:
        from ..paddle import profiles

        try:
            profiles.resolve(paddle)
        except ValueError as exc:
            raise GraphError(str(exc)) from None
    from .. import progress   # (a status line on a terminal's stderr; nothing when piped)

    tape = None
    if numeric:   # (--numeric: the ops recorded to run the forward again, nudged)
        from ..teach.numeric import Tape

        tape = Tape()
    try:
        with progress.status(f"running {script}"), _taped(tape):
            run = run_for_pictures(script, profile=paddle, at=at,
                                   steps=steps is not None or chain)
    except SyntaxError as exc:
        raise GraphError(f"{script} line {exc.lineno}: SyntaxError: {exc.msg}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GraphError(f"cannot read {script}: {exc}") from None
    except ValueError as exc:  # a bad profile name
        raise GraphError(str(exc)) from None
    if run.error is not None:
        raise GraphError(_describe_error(run.error, script))
    name, target = pick_tensor(run.namespace, tensor, script)
    try:
        with progress.status(f"building the graph of {name}"):
            pic = make_picture(target, view=view, namespace=run.namespace, recorder=run.recorder,
                               chain=chain, collapse=collapse, depth=depth, to=to,
                               layers=layers, rankdir=rankdir, size=size, dpi=dpi,
                               theme=theme, font_size=font_size, look=look)
    except ValueError as exc:
        raise GraphError(str(exc)) from None
    if chain and run.log is not None:  # the numbers that flowed in the last backward
        from .steps import fill_final_chain

        logged = run.log.run_for(target)
        if logged is not None and logged.finished and logged.events:
            fill_final_chain(pic.model, logged, run.log.runs)
    checked = {}
    if tape is not None:   # each leaf's gradient box: central differences beside autograd
        from .numeric import annotate
        from .why import Namer

        with progress.status("checking the gradients numerically"):
            checked = annotate(pic, tape, run.namespace, Namer(run.namespace))
    messages = []
    if steps is not None:
        messages.append(write_steps(run, target, name, pic, Path(steps), view, chain,
                                    steps_from))
    if output is None:
        if steps is None:
            from .terminal import render_text

            sys.stdout.write(render_text(pic.model, view=view, color=None))
            if checked:   # (--numeric as text: gradcheck's words, under the graph)
                from ..teach.numeric import describe

                sys.stdout.write("\nnumerically (central differences beside autograd):\n"
                                 + "".join(describe(c) for c in checked.values()))
        return "\n".join(messages) or None
    try:
        with progress.status(f"laying out and drawing {output}"):
            pic.render(output)
        ext = Path(output).suffix.lower()[1:]
        note = render.fit_note(pic.dot(), ext) if ext in render.FORMATS else None
    except render.RenderError as exc:
        raise GraphError(str(exc)) from None
    except OSError as exc:
        raise GraphError(f"cannot write {output}: {exc}") from None
    messages.append(f"wrote {output}")
    if note:   # drawn larger than --size (text kept), or shrunk to fit: said
        messages.append(note)
    return "\n".join(messages)


STEPS_FROM = ("backward", "forward")


def _taped(tape):
    """Record the script's ops on ``tape`` (``graph --numeric``), or nothing."""
    import contextlib

    if tape is None:
        return contextlib.nullcontext()
    from ..teach.numeric import recording

    return recording(tape)


def write_steps(run, target, name, pic, out_dir: Path, view, chain, steps_from=None) -> str:
    """The backward's frames, drawn with the picture's own options (``pic.style``: theme,
    rankdir, size, dpi, font size; ``pic.look``), into a player folder, or one file for slides
    (``player.EXPORTS``): a PDF (one frame per page), an animated GIF or SVG.
    ``steps_from="forward"``: the forward pass's frames first (``viz.forward``: one per
    statement that made part of the graph), then the backward's."""
    from . import render
    from .dot import to_dot
    from .player import export_kind, write_animated_svg, write_gif, write_pdf, write_player
    from . import theme
    from .steps import frames
    from . import camera
    from .camera import focus_of

    logged = run.log.run_for(target) if run.log is not None else None
    with_forward = steps_from == "forward"
    if (logged is None or not logged.events) and not with_forward:
        raise GraphError(f"no backward ran in {run.path}"
                         + (f" up to line {run.stopped_at}" if run.stopped_at else "")
                         + f": nothing to step through for {name!r}")
    from .terminal import ready_text, step_title

    kind = export_kind(out_dir)
    if kind is None and out_dir.exists() and not out_dir.is_dir():
        raise GraphError(f"--steps {out_dir}: exists and is not a folder")
    if kind is not None and not out_dir.parent.is_dir():
        raise GraphError(f"no such folder: {out_dir.parent}")
    g = pic.model
    step_view = view if view != "forward" else "backward"
    style = pic.style
    if camera.enabled() and (style is None or style.size is None):   # (the frames only: -o
        import dataclasses                                             # keeps its own size)

        style = dataclasses.replace(style or theme.Style(), size="1080p")
    keep = style is not None and style.keep_text
    items, sources = [], []
    follow = camera.Follower(style) if camera.enabled() else None   # (--camera: each frame's
    try:                                                    # slide cut as soon as it is drawn)
        from .. import progress

        backward = frames(g, logged, chain=True, history=run.log.runs) \
            if logged is not None and logged.events else []
        if with_forward:   # the graph as the forward left it: the backward's step 0
            from .forward import forward_items

            fitems, fsources = forward_items(backward[0] if backward else g, run, view,
                                             style, pic.look, keep)
            if follow is not None:
                fitems = [dict(it, svg=follow.add(it["svg"], it.get("focus"))) for it in fitems]
            items += fitems
            sources += fsources
        for f in progress.each(backward, "laying out the backward pass: frame {i} of {n}"):
            source = to_dot(f, view=step_view, chain=True, style=style, look=pic.look)
            sources.append(source)
            focus = focus_of(f)
            svg = render.svg(source)
            items.append({"svg": follow.add(svg, focus) if follow is not None else svg,
                          "counter": step_title(f.step),
                          "title": f.step["event"], "focus": focus,
                          "description": "ready queue: " + ready_text(f.step),
                          "code": f.step.get("code"),   # the engine functions of the step
                          "keep": keep})
        largest = max(range(len(items)), key=lambda i: render.svg_size(items[i]["svg"])[0]
                      * render.svg_size(items[i]["svg"])[1])
        note = render.fit_note(sources[largest], kind if kind in ("pdf",) else
                               "png" if kind == "gif" else "svg")
        if note is None and kind is None and not keep:   # the player's Fit on a wide strip
            from .player import fit_text_note

            note = fit_text_note(items[largest]["svg"], lr="rankdir=LR" in sources[largest])
        svgs = [it["svg"] for it in items]
        shot = follow.finish(sources) if follow is not None else None
        if shot is not None:   # (--camera: one slide per frame, following the step)
            svgs, note = shot.svgs, shot.note
            items = [dict(it, svg=s, keep=False) for it, s in zip(items, svgs)]
        if kind == "pdf":
            box = style.size and theme.size_inches(style.size) if style is not None else None
            done = write_pdf(out_dir, svgs, page=shot.page if shot is not None else
                             (box[0] * 72, box[1] * 72) if box else None)
        elif kind == "gif":
            done = write_gif(out_dir, shot.pngs() if shot is not None else
                             [render.png(s) for s in sources])
        elif kind == "svg":
            done = write_animated_svg(out_dir, svgs,
                                      titles=[f"{it['counter']}: {it['title']}" for it in items])
        else:
            write_player(out_dir, items, title=f"gradrepl: {'forward and ' if with_forward else ''}"
                         f"backward of {name}, step by step")
    except render.RenderError as exc:
        raise GraphError(str(exc)) from None
    except OSError as exc:
        raise GraphError(f"cannot write {out_dir}: {exc}") from None
    said = f"\n{note}" if note else ""
    if kind == "pdf":
        return f"wrote {out_dir}: {done} frames, one per page{said}"
    if kind is not None:
        return f"wrote {out_dir}: {done} frames, animated{said}"
    return f"wrote {len(items)} frames and {out_dir / 'index.html'}{said}"
