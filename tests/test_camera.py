"""A camera for big-text slides (issue 30): ``gradrepl graph X --steps out.pdf --camera``. A graph
too big for one slide at text >= 18 px keeps its text size: each frame is a slide-sized
viewport on the part of the drawing where the step happens, its sentence in a caption band, a
map of the whole graph in a corner; the static picture is unchanged. Measured in the SVGs
(font sizes times the drawing's scale) and in the PDF's page boxes and the GIF's pixels."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from gradrepl.viz import camera, render, theme
from gradrepl.viz.cli import draw

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "examples" / "seeds" / "s000_example_two.py"
MLP = ROOT / "examples" / "graphs" / "mlp.py"


def has_layout():
    try:
        render.find_dot()
    except render.RenderError:
        return False
    return True


pytestmark = pytest.mark.skipif(not has_layout(), reason="no Graphviz layout program")


def _frames(out):
    return [p.read_text(encoding="utf-8") for p in sorted(out.glob("frame_*.svg"))]


def _css_px(points):
    return points * 4 / 3


@pytest.fixture(scope="module")
def seed_frames(tmp_path_factory):
    """The example's steps at 4x3 in with 30 pt text: too big for the slide, so the camera
    moves; the same without the camera."""
    root = tmp_path_factory.mktemp("cam")
    kw = dict(tensor="e", size="4x3", font_size=30, steps_from="forward")
    draw(str(SEED), steps=str(root / "plain"), **kw)
    msg = draw(str(SEED), steps=str(root / "cam"), camera=True, **kw)
    return _frames(root / "plain"), _frames(root / "cam"), msg


def test_frames_are_slides(seed_frames):
    plain, cam, msg = seed_frames
    assert "--camera: each frame is a 4x3 in slide following the step" in msg
    assert len(cam) == len(plain)
    for s in cam:
        assert render.svg_size(s) == (288.0, 216.0)         # 4x3 in, in points
    assert all(camera.needs_camera(s, (288, 216)) for s in plain)


def test_camera_keeps_the_text_size(seed_frames):
    """Every text of a camera frame is drawn at the size it has in the frame without the
    camera (the drawing is moved, never scaled); the caption at the header's size."""
    plain, cam, _ = seed_frames
    for p, c in zip(plain, cam):
        assert render.svg_scale(c) == pytest.approx(render.svg_scale(p), rel=1e-3)
        # (the frame holds only what it shows: its texts are some of the picture's, each at
        # a size the picture draws it at)
        sizes = render.text_points(p)
        for v in render.text_points(c):
            assert any(abs(v - w) <= 1e-3 * w for w in sizes), (v, sorted(set(sizes)))


def test_focus_is_in_view(seed_frames):
    plain, cam, _ = seed_frames
    ids = [["t0"], ["t1"], ["f0", "t2"]]   # what lines 4, 5, 6 made (the op and its output
    #                                        lie together; a leaf's gradient is far off)
    for p, c, want in zip(plain, cam, ids):
        geo = camera.Geometry(p)
        x, top, w, h = camera.Geometry(c).view_box
        boxes = [geo.boxes[i] for i in want]
        union = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                 max(b[2] for b in boxes), max(b[3] for b in boxes))
        if union[2] - union[0] <= w and union[3] - union[1] <= h:   # all in view
            assert x <= union[0] and union[2] <= x + w and top <= union[1] \
                and union[3] <= top + h
        else:   # the first: its start in view
            b = boxes[0]
            assert x <= b[0] + 1 < x + w and b[1] < top + h and b[3] > top


def test_caption_band_holds_the_sentence(seed_frames):
    plain, cam, _ = seed_frames
    text = re.sub(r"\s+", " ", " ".join(re.findall(r">([^<>]+)</text>", cam[2].split(
        '<g class="camera">')[1])))
    assert "forward 3 of 5: line 6" in text and "made c = 10." in text
    # the band is outside the drawing's group: it stays put however the camera moves
    assert cam[2].index('<g class="camera">') > cam[2].index("</g>\n</svg>") - 10 or \
        cam[2].rindex('<g class="camera">') > cam[2].rindex('class="graph"')


def test_minimap_shows_the_whole_graph(seed_frames):
    """The corner map: a box per node of the whole picture, in the node's own fill (an
    ellipse rounded), whatever the frame shows of the drawing itself."""
    plain, cam, _ = seed_frames
    rounded = 0
    for p, c in zip(plain, cam):
        geo = camera.Geometry(p)
        m = c.split('<g class="camera-map">')[1]
        rects = re.findall(r'<rect x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*" '
                           r'(?:rx="[^"]*" )?fill="(#[^"]*)" stroke', m)
        assert len(rects) == len(geo.boxes) == len(geo.fills) > 0
        assert sorted(rects) == sorted(geo.fills.values())
        assert m.count(' rx="') == len(geo.round)   # (the backward ops: ellipses)
        assert "#graph0" not in c
        rounded += len(geo.round)
    assert rounded > 0


def test_static_picture_unaffected(tmp_path):
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    draw(str(SEED), tensor="e", output=str(a), size="1080p")
    draw(str(SEED), tensor="e", output=str(b), size="1080p", camera=True,
         steps=str(tmp_path / "s"))
    assert a.read_bytes() == b.read_bytes()
    assert not camera.enabled()   # (turned off again after the command)


def test_camera_implies_the_big_text_look(tmp_path):
    """--camera alone: --size 1080p (the smallest text at least 18 CSS px), 16x9 in slides."""
    out = tmp_path / "steps.pdf"
    msg = draw(str(MLP), steps=str(out), camera=True)
    data = out.read_bytes()
    boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]", data)
    pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", data))
    assert pages > 5 and len(boxes) >= pages
    assert {(float(w), float(h)) for w, h in boxes} == {(1152.0, 648.0)}
    assert "16x9 in slide" in msg


def test_mlp_frames_keep_18px(tmp_path):
    out = tmp_path / "player"
    draw(str(MLP), steps=str(out), camera=True)
    for s in _frames(out):
        assert render.svg_size(s) == (1152.0, 648.0)
        assert _css_px(min(render.text_points(s))) >= theme.MIN_TEXT_PX


def test_gif_frames_are_cut_from_the_png(tmp_path):
    from PIL import Image

    out = tmp_path / "e.gif"
    draw(str(SEED), tensor="e", steps=str(out), size="4x3", font_size=30, camera=True)
    im = Image.open(out)
    assert im.n_frames == 8   # the backward's steps 0 to 7
    assert im.size == (384, 288)   # 4x3 in at Graphviz's 96 dpi


def test_camera_without_size_leaves_the_picture_alone(tmp_path):
    """--camera without --size: the step frames take 1080p, -o keeps the default look."""
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    draw(str(SEED), tensor="e", output=str(a))
    draw(str(SEED), tensor="e", output=str(b), camera=True, steps=str(tmp_path / "s"))
    assert a.read_bytes() == b.read_bytes()


def test_frames_hold_only_what_they_show(seed_frames):
    """Each camera frame keeps the nodes and edges that reach into its viewport and drops the
    rest (vgg11's frames held the whole drawing: 3.6 GB for its PDF); every node whose box
    meets the view is kept, none wholly outside it."""
    plain, cam, _ = seed_frames
    dropped = 0
    for p, c in zip(plain, cam):
        geo, seen = camera.Geometry(p), camera.Geometry(c)
        x, y, w, h = seen.view_box
        mx, my = w * camera.MARGIN, h * camera.MARGIN
        for i, b in geo.boxes.items():
            inside = not (b[2] < x - mx or b[0] > x + w + mx or b[3] < y - my
                          or b[1] > y + h + my)
            far = b[2] < x - w or b[0] > x + 2 * w or b[3] < y - h or b[1] > y + 2 * h
            if inside:
                assert i in seen.boxes, (i, b, (x, y, w, h))
            if far:   # (a viewport away: dropped)
                assert i not in seen.boxes, (i, b, (x, y, w, h))
            dropped += i not in seen.boxes
        kept_edges = c.count('class="edge"')
        assert kept_edges <= p.count('class="edge"')
        assert len(c) < len(p) or len(seen.boxes) == len(geo.boxes)
    assert dropped > 0


def test_crop_keeps_blocks_whole():
    """``crop`` drops a node's group with its comment and nested groups (a tooltip's
    anchor), and leaves the rest byte for byte."""
    svg = ('<svg width="100pt" height="100pt" viewBox="0 0 100 100" '
           'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\n'
           '<g id="graph0" class="graph" transform="scale(1 1) rotate(0) translate(0 100)">\n'
           '<!-- a -->\n<g id="node1" class="node">\n<title>a</title>\n'
           '<g id="a_node1"><a xlink:title="tip">\n'
           '<polygon fill="#ffffff" stroke="black" points="0,-100 10,-100 10,-90 0,-90"/>\n'
           '</a>\n</g>\n</g>\n'
           '<!-- b -->\n<g id="node2" class="node">\n<title>b</title>\n'
           '<polygon fill="#cccccc" stroke="black" points="80,-10 90,-10 90,0 80,0"/>\n'
           '</g>\n</g>\n</svg>\n')
    geo = camera.Geometry(svg)
    assert set(geo.boxes) == {"a", "b"} and geo.fills == {"a": "#ffffff", "b": "#cccccc"}
    out = camera.crop(svg, geo, (0, 0, 20, 20))
    assert "<title>a</title>" in out and "<title>b</title>" not in out and "<!-- b -->" not in out
    assert out == svg.replace('<!-- b -->\n<g id="node2" class="node">\n<title>b</title>\n'
                              '<polygon fill="#cccccc" stroke="black" points="80,-10 90,-10 '
                              '90,0 80,0"/>\n</g>\n', "")
    assert camera.crop(svg, geo, (0, 0, 100, 100)) == svg


def test_follower_cuts_each_frame_as_it_comes(seed_frames, tmp_path):
    """``Follower``: frames that fit are kept as they are until one does not; from then every
    frame (the earlier ones too) is a slide, equal to what the camera makes of all of them at
    once; a GIF frame from the kept ``Frame`` equals one from the whole SVG."""
    plain, cam, _ = seed_frames
    page = (288.0, 216.0)
    small = '<svg width="100pt" height="50pt" viewBox="0 0 100 50"></svg>'
    f = camera.Follower(theme.Style(size="4x3"))
    assert f.page == page
    assert f.add(small) == small and not f.on   # (fits: as it is, the camera still off)
    assert f.finish([]) is None
    f = camera.Follower(theme.Style(size="4x3"))
    focus = [["t0"], ["t1"], ["f0", "t2"]] + [()] * (len(plain) - 3)
    out = [f.add(p, ids) for p, ids in zip(plain, focus)]
    whole, _views = camera.follow(plain, focus, page)
    assert out == whole and f.on
    shot = f.finish(["digraph { a }"] * len(plain))
    assert shot.svgs == whole and len(shot._frames) == len(plain)
    meta = shot._frames[2]
    assert meta.texts == camera._split_label(plain[2])[0]
    assert meta.view_box == tuple(camera.Geometry(plain[2]).view_box)


def test_gif_frame_has_the_slides_size():
    """A GIF frame is the slide's own size in pixels, wherever its edges fall between pixels
    (rounding each edge gave vgg11's 1080p frames 1081 rows)."""
    from PIL import Image

    ns = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
    whole = (f'<svg width="300pt" height="300pt" viewBox="0 0 300 300" {ns}>\n'
             '<g id="graph0" class="graph" transform="scale(1 1) rotate(0) translate(0 300)">\n'
             '</g>\n</svg>\n')
    slide = f'<svg width="287.4pt" height="215.5pt" viewBox="0.2 0.2 287.4 215.5" {ns}></svg>'
    buf = io.BytesIO()
    Image.new("RGB", (400, 400), (255, 255, 255)).save(buf, format="PNG")
    out = Image.open(io.BytesIO(camera.camera_png(buf.getvalue(), whole, slide)))
    k = 400 / 300
    assert out.size == (round(287.4 * k), round(215.5 * k)) == (383, 287)
