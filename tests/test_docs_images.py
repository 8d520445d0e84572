"""The committed pictures under docs/img (the README shows example_two.svg; the site draws its own
before each build by docs/generate.py) say what gradrepl draws today: their text, word for word.

The layout (coordinates) depends on the Graphviz binary (system ``dot`` or graphviz-pure), so
the test compares the texts of the SVGs, which do not: every label, value and chain line. When it
fails, refresh them with ``python docs/gen_pictures.py`` (issue 30: a stale broadcast.svg still
said ``expand(1.)`` and flattened a 2x3 gradient).
"""
from __future__ import annotations

import html
import importlib.util
import os
import re
from collections import Counter

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMG = os.path.join(ROOT, "docs", "img")


def _gen():
    spec = importlib.util.spec_from_file_location("gen_pictures",
                                                  os.path.join(ROOT, "docs", "gen_pictures.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = _gen()
_TEXT = re.compile(r"<text\b[^>]*>([^<]*)</text>")


def texts(svg: str) -> Counter:
    return Counter(html.unescape(t).strip() for t in _TEXT.findall(svg))


def test_every_committed_picture_is_in_the_table():
    committed = sorted(f for f in os.listdir(IMG) if f.endswith(".svg"))
    assert committed == sorted(GEN.PICTURES), "docs/img holds a picture the table does not draw"


@pytest.mark.parametrize("name", sorted(GEN.PICTURES))
def test_committed_picture_says_what_gradrepl_draws_now(name, tmp_path):
    fresh = GEN.draw(name, str(tmp_path))
    with open(fresh, encoding="utf-8") as f:
        now = texts(f.read())
    with open(os.path.join(IMG, name), encoding="utf-8") as f:
        committed = texts(f.read())
    assert now, name
    missing = sorted((now - committed).elements())[:5]
    stale = sorted((committed - now).elements())[:5]
    assert committed == now, (f"docs/img/{name} is stale (python docs/gen_pictures.py): "
                              f"drawn now but not committed {missing}; committed but no longer "
                              f"drawn {stale}")


def test_broadcast_picture_speaks_todays_words():
    with open(os.path.join(IMG, "broadcast.svg"), encoding="utf-8") as f:
        said = texts(f.read())
    # the gradient's shape is kept (2x3), and the sum over the broadcast rows said in words
    assert "data = [[1., 1., 1.], [1., 1., 1.]] (2x3)" in said
    assert any("summed over the 2 broadcast rows" in t for t in said)
    assert not any("expand(" in t or "sum_to(" in t for t in said)
