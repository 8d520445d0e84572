"""The benchmarks still run: graph_dot.py's gradrepl part at tiny sizes (no timing asserts)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow   # (the benchmarks' scripts, run for real)

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "graph_dot.py"


def load_graph_dot():
    spec = importlib.util.spec_from_file_location("bench_graph_dot", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_graph_dot_gradrepl_part_runs_small():
    bench = load_graph_dot()
    res = bench.gradrepl_part(chain_n=6, layers=2, repeat=1, render=False)
    assert res["seed"]["both"]["source"].startswith("digraph")
    for key in ("chain", "mlp"):
        for view in ("forward", "backward", "both"):
            r = res[key][view]
            assert r["source"].startswith("digraph") and r["total"] >= 0
    assert res["chain"]["both"]["nodes"] == 6
    assert res["mlp"]["both"]["nodes"] >= 2 * 3 + 3  # Linear (matmul, add) + act, then the loss
    text = bench.table(res, None, 1)
    assert "model+DOT both" in text and "chain 6 ops" in text


def test_graph_dot_main_quick_without_peer(capsys):
    bench = load_graph_dot()
    assert bench.main(["--quick", "--chain", "4", "--layers", "1", "--repeat", "1",
                       "--torch-python", "none", "--no-render"]) == 0
    out = capsys.readouterr().out
    assert "not asked for" in out and "grad_fn walk" in out


def test_graph_dot_render_timing_small():
    bench = load_graph_dot()
    binaries = bench.binaries()
    if not binaries:  # neither graphviz-pure nor a system dot: nothing to lay out
        return
    src = bench.gradrepl_part(chain_n=2, layers=1, repeat=1, render=False)["seed"]["both"]
    _label, prefer = binaries[0]
    t = bench.render_time(src["source"], "svg", prefer, 1, timeout=60)
    assert isinstance(t, float) or t == "timeout"


def _load(name):
    """A benchmark script as a module, with its folder on sys.path as when it is run (the
    scripts share ``benchmarks/_turns.py``)."""
    path = BENCH.parent / f"{name}.py"
    folder = str(BENCH.parent)
    if folder not in sys.path:
        sys.path.append(folder)
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_mlp_step_runs_and_the_loss_falls(capsys):
    bench = _load("mlp_step")
    assert bench.main(["--steps", "8", "--rounds", "2", "--burst", "2", "--paddle-python",
                       "none", "--torch-python", "none"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("gradrepl"))
    first, last = (float(v) for v in row.split()[-2:])
    assert last < first


def test_vgg11_step_runs_tiny(capsys):
    bench = _load("vgg11_step")
    assert bench.main(["--size", "32", "--steps", "1", "--warmup", "0", "--paddle-python", "none",
                       "--torch-python", "none"]) == 0
    assert "gradrepl" in capsys.readouterr().out


def test_graph_dot_vgg_rows_pieces(tmp_path):
    """The whole-vgg11 rows: the seed at another image size, gradrepl's picture child on it
    (one run), the table with and without the peer."""
    bench = load_graph_dot()
    assert bench.vgg_script(224, str(tmp_path)).endswith("s000_vgg11.py")
    small = bench.vgg_script(32, str(tmp_path))
    assert "paddle.rand([1,3,32,32])" in Path(small).read_text()
    out = tmp_path / "v.png"
    res = bench.json_run([sys.executable, "-c", bench.GR_VGG, small, str(out), "1", "1"])
    assert set(res) == {"picture", "model", "dot", "png"}, res
    assert res["picture"] >= res["model"] >= 0
    w, h = bench.png_pixels(str(out))
    assert max(w, h) <= 2500  # (as test_layers_view: font metrics move it ~1% by Graphviz build)
    v = {"size": 32, "peer": {"time": None, "picture": None, "pixels": None,
                              "why": "not asked for (--torch-python none)"},
         "rows": [{"what": "gradrepl graph --layers 1", "time": 5.0, "picture": res["picture"],
                   "split": res, "pixels": (w, h)}]}
    text = bench.vgg_table(v)
    assert "not asked for" in text and f"{w}x{h}" in text and "whole command" in text
    v["peer"].update(time=2.5, picture=res["picture"] / 2, pixels=(10, 20), why=None)
    text = bench.vgg_table(v)
    assert "10x20" in text and " 2.00" in text  # the whole command's ratio: 5.0 / 2.5
    assert bench.json_run([sys.executable, "-c", "raise SystemExit('nope')"])["error"] \
        .startswith("error")


def test_lecture_loops_run_one_tiny_step_each(capsys):
    """Every lecture loop runs under gradrepl (one check step, one one-step burst; no timing)."""
    bench = _load("lecture_loops")
    assert bench.main(["--steps", "1", "--rounds", "1", "--burst", "1",
                       "--torch-python", "none"]) == 0
    out = capsys.readouterr().out
    for loop in bench.LOOPS:
        row = next(line for line in out.splitlines() if line.startswith(loop))
        assert "gradrepl" in row and row.split()[-1].isalnum()  # the parameters' hash
