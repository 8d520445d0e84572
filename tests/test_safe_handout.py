"""Handouts made under ``--safe`` have their pictures: the confined child sends each picture as
data, the parent checks it against a schema, writes the DOT with its own code, renders and
cleans it (``gradrepl/repl/safe_pictures.py``). A forged record gives a safe picture or a note,
never a link or a script, and the handout is still written."""
from __future__ import annotations

import copy
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from gradrepl.repl import safe_pictures, safe_replay
from gradrepl.repl.safe_pictures import PictureDataError, check, draw, picture_data

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_injection import HOSTILE, _assert_inert  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = ROOT / "sessions"

needs_dot = pytest.mark.skipif(shutil.which("dot") is None and not __import__(
    "gradrepl.viz.render", fromlist=["pure_binary"]).pure_binary(), reason="no Graphviz")


def _kernel_reason():
    from gradrepl.repl import kernel

    return kernel.probe()


_FIG = re.compile(r'<figure class="pic" id="fig\d+">(.*?)</figure>', re.S)
_TEXT = re.compile(r"<text[^>]*>([^<]*)</text>")


def _picture_texts(page: str) -> list:
    """Each figure's drawn texts, in order (what a reader sees in the pictures)."""
    return [_TEXT.findall(f) for f in _FIG.findall(page)]


@needs_dot
@pytest.mark.parametrize("session", ["s000_example_two", "lesson_broadcasting"])
def test_safe_handout_has_the_plain_handouts_pictures(session, tmp_path):
    why = _kernel_reason()
    if why:
        pytest.skip(why)
    from gradrepl.repl.replay_cli import replay_command

    path = str(SESSIONS / f"{session}.pycon")
    plain, safe = tmp_path / "plain.html", tmp_path / "safe.html"
    import io

    err = io.StringIO()
    assert replay_command([path], html=str(plain), out=io.StringIO(), err=err) == 0, \
        err.getvalue()
    assert replay_command([path], html=str(safe), safe=True, out=io.StringIO(), err=err) == 0, \
        err.getvalue()
    p, s = plain.read_text(), safe.read_text()
    texts = _picture_texts(p)
    assert len(texts) >= 3 and all(texts)
    assert _picture_texts(s) == texts
    assert "not drawn inside the --safe sandbox" not in s
    assert "no picture of" not in s
    assert s == p      # the same model, the same DOT, the same Graphviz: the same page


# ---------------------------------------------------------------------------- the schema
def _real_data(chain=False, **kw):
    import gradrepl.paddle as paddle
    from gradrepl import viz
    from gradrepl.paddle import state

    state.reset("2.2")
    a = paddle.to_tensor(2.0, stop_gradient=False)
    b = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    e = (a * b).sum()
    e.backward()
    pic = viz.graph(e, namespace={"a": a, "b": b, "e": e}, chain=chain, **kw)
    return json.loads(json.dumps(picture_data(pic))), pic


def test_picture_data_round_trips_to_the_same_dot():
    from gradrepl.repl.safe_pictures import dot_of

    for kw in ({}, {"chain": True, "view": "backward"}, {"theme": "dark", "rankdir": "LR",
                                                         "size": "8x5", "font_size": 14},
               {"look": "compact"}, {"look": "full", "view": "forward"}):
        data, pic = _real_data(**kw)
        check(data)
        assert dot_of(data) == pic.dot()


def _forge(mutate):
    data, _pic = _real_data()
    mutate(data)
    return data


def _set(path, value):
    def mutate(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return mutate


REFUSED = {
    "id that writes DOT": _set(["graph", "tensors", 0, "id"], 't0 [URL="javascript:alert(1)"]'),
    "keyword id": _set(["graph", "ops", 0, "id"], "node"),
    "bool as text": _set(["graph", "tensors", 0, "stop_gradient"],
                         'True</b>"] x [URL="javascript:alert(1)"'),
    "unknown key": _set(["graph", "tensors", 0, "URL"], "javascript:alert(1)"),
    "missing key": lambda d: d["graph"]["ops"][0].pop("label"),
    "int as float": _set(["graph", "ops", 0, "order"], 1.5),
    "shape of text": _set(["graph", "tensors", 0, "shape"], ["3]; x [URL=javascript:1]"]),
    "long string": _set(["graph", "tensors", 0, "name"], "x" * 5000),
    "a step frame": _set(["graph", "step"], {"index": 0}),
    "bad view": _set(["view"], "all"),
    "bad look": _set(["look"], "x\"] [URL=\"j"),
    "bad theme": _set(["style"], {"rankdir": None, "size": None, "dpi": None,
                                  "theme": "javascript:", "font_size": None}),
    "size that writes DOT": _set(["style"], {"rankdir": None, "size": '3x3"] x [URL="j',
                                             "dpi": None, "theme": None, "font_size": None}),
    "dangling reference": _set(["graph", "tensors", 0, "grad_var"], "g99"),
    "reference of the wrong kind": _set(["graph", "targets"], ["f0"]),
    "duplicate id": lambda d: d["graph"]["tensors"].append(copy.deepcopy(
        d["graph"]["tensors"][0])),
    "too many records": lambda d: d["graph"]["tensors"].extend(
        dict(d["graph"]["tensors"][0], id=f"t{k}") for k in range(100, 6200)),
    "a list too long": _set(["graph", "ops", 0, "layers"], ["L"] * 5000),
    "not a record": lambda d: d.__setitem__("graph", [1, 2, 3]),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_forged_data_is_refused_by_the_schema(case):
    data = _forge(REFUSED[case])
    with pytest.raises(PictureDataError):
        check(data)
    svg, why = draw(data)
    assert svg is None and why.startswith("its data from the sandbox was refused")


@needs_dot
def test_hostile_strings_in_names_draw_as_text():
    def mutate(d):
        g = d["graph"]
        # (an empty name is left out: Graphviz refuses the empty <b></b> dot.py writes for it;
        # draw() then gives a note, and the page is still written)
        for k, s in enumerate(x for x in HOSTILE if x):
            recs = g["tensors"] + g["grad_vars"] + g["backward_ops"]
            rec = recs[k % len(recs)]
            rec["name"] = s
        g["ops"][0]["label"] = '<x URL="javascript:alert(9)">'
        g["ops"][0]["title"] = '"] y [URL="javascript:alert(8)"'
        g["tensors"][0]["preview"] = "<<table><tr><td href='javascript:alert(7)'>1</td>" \
                                     "</tr></table>>"
        g["backward_ops"][0]["chain"] = ['a_grad = "] z [URL="javascript:alert(6)"']
        d["chain"] = True
        d["title"] = 'URL="javascript:alert(5)"\\'
    data = _forge(mutate)
    check(data)
    svg, why = draw(data)
    assert why is None and svg.lstrip().startswith("<")
    _assert_inert(svg, where="forged picture")
    assert "<a " not in svg and "<a>" not in svg    # (the strings are text in the picture)
    assert svg.count("<g id=\"node") == len(data["graph"]["tensors"]) + len(
        data["graph"]["ops"]) + len(data["graph"]["grad_vars"]) + len(
        data["graph"]["backward_ops"])


# ---------------------------------------------------------------------------- a forged child
FAKE_CHILD = r'''
import json, os, sys
ctrl, out, ack = map(int, sys.argv[1:4])
requests = os.fdopen(ctrl, "rb")
setup = json.loads(requests.readline())
def answer(output, pictures):
    req = json.loads(requests.readline())
    os.write(out, output.encode())
    os.write(ack, (json.dumps({"n": req["n"], "kind": "statement", "failed": False,
                               "error_name": None, "pictures": pictures, "exit": False})
                   + "\n").encode())
answer("", json.load(open(PICTURES)))
answer("6.\n", [{"name": "n", "caption": "c", "note": None, "picture": "<svg onload=alert(1)>"}])
'''


def _forged_handout(tmp_path, monkeypatch):
    """The FileRun and the page of a handout whose child forged its pictures' data."""
    from gradrepl.repl.handout import handout_html
    from gradrepl.repl.replay_cli import _run_safe_file
    from gradrepl.repl.transcript import parse

    good, _ = _real_data()
    hostile = _forge(lambda d: d["graph"]["tensors"][0].__setitem__(
        "name", '<<table><tr><td href="javascript:alert(1)">a</td></tr></table>>'))
    refused = [_forge(REFUSED[c]) for c in ("id that writes DOT", "too many records",
                                           "bool as text", "unknown key")]
    pictures = [{"name": f"p{k}", "caption": f"p{k}: a picture", "note": None, "picture": d}
                for k, d in enumerate([good, hostile, *refused])]
    pictures.append({"name": "raw", "caption": "raw", "note": None,
                     "picture": {"svg": "<svg><script>alert(1)</script></svg>"}})
    data_file = tmp_path / "pictures.json"
    data_file.write_text(json.dumps(pictures))
    script = FAKE_CHILD.replace("PICTURES", repr(str(data_file)))
    monkeypatch.setattr(safe_replay, "CHILD_ARGS", ("-c", script))
    text = ">>> x = 1\n>>> 6.0\n6.\n"
    t = parse(text, str(tmp_path / "forged.pycon"))
    t.text = text
    import io

    err = io.StringIO()
    fr, refusedlines, ok = _run_safe_file(t, None, True, None, err)
    assert ok, err.getvalue()
    return fr, handout_html([fr])


@needs_dot
def test_a_forged_child_record_gives_safe_pictures_or_notes(tmp_path, monkeypatch):
    fr, page = _forged_handout(tmp_path, monkeypatch)
    figs = fr.runs[0].pictures
    assert [f.svg is not None for f in figs] == [True, True, False, False, False, False, False]
    for f in figs[2:]:
        assert f.note.startswith(f"no picture of {f.name}: its data from the sandbox "
                                 "was refused"), f.note
    _assert_inert(page, where="handout of a forged child")
    assert not re.search(r"<a\b[^>]*javascript", page)
    assert page.count('<figure class="pic"') == 2
    assert "6." in page and page.rstrip().endswith("</html>")


def test_the_child_sends_pictures_as_data_within_the_limit():
    from gradrepl.repl.handout import Figure

    data, _ = _real_data()
    assert json.loads(json.dumps(data)) == data   # (plain JSON: what the pipe carries)
    assert safe_pictures.MAX_DATA <= safe_replay.PICTURES_LIMIT_MB * 1024 * 1024
    assert Figure("a", "b", data=data).data is data


NESTED_CHILD = r'''
import json, os, sys
ctrl, out, ack = map(int, sys.argv[1:4])
requests = os.fdopen(ctrl, "rb")
setup = json.loads(requests.readline())
req = json.loads(requests.readline())
deep = "[" * 200000 + "]" * 200000
os.write(ack, ('{"n": "%s", "kind": "statement", "failed": false, "error_name": null, '
               '"exit": false, "pictures": [{"name": "n", "caption": "c", "note": null, '
               '"picture": %s}]}\n' % (req["n"], deep)).encode())
'''
JUNK_CHILD = NESTED_CHILD.replace('deep = "[" * 200000 + "]" * 200000', 'deep = "1"').replace(
    '"pictures": [{', '"pictures": ["junk", 3, {')


def test_a_record_nested_past_the_stack_fails_the_file_as_tampered(tmp_path, monkeypatch):
    from gradrepl.repl.replay_cli import _run_safe_file
    from gradrepl.repl.transcript import parse

    monkeypatch.setattr(safe_replay, "CHILD_ARGS", ("-c", NESTED_CHILD))
    text = ">>> x = 1\n"
    t = parse(text, str(tmp_path / "deep.pycon"))
    t.text = text
    import io

    err = io.StringIO()
    fr, _refused, ok = _run_safe_file(t, None, True, None, err)
    assert not ok and "tampered with (not a record)" in err.getvalue()
    assert fr.runs[0].output is None
    # a picture list with things that are not pictures: the record's schema is exact
    monkeypatch.setattr(safe_replay, "CHILD_ARGS", ("-c", JUNK_CHILD))
    err = io.StringIO()
    fr, _refused, ok = _run_safe_file(t, None, True, None, err)
    assert not ok and "tampered with (an acknowledgement with wrong pictures)" in err.getvalue()
    assert fr.runs[0].output is None


@needs_dot
def test_the_forged_handout_in_headless_chromium(tmp_path, monkeypatch):
    from test_injection import _chromium, _dump_dom

    chromium = _chromium()
    _fr, page = _forged_handout(tmp_path, monkeypatch)
    path = tmp_path / "forged.html"
    path.write_text(page, encoding="utf-8")
    dom = _dump_dom(chromium, tmp_path, path)
    assert dom.count("<svg") == 2
    m = _assert_inert(dom, where="forged handout in chromium")
    assert not any("javascript:" in v.lower() for _t, _k, v in m.links)
