"""``replay --safe``'s one budget (``gradrepl/repl/safe_budget.py``): the whole command's wall
time, Graphviz's limits per picture, the disk of the child's folder, the pictures a handout
keeps, and the child's scrubbed environment. Each budget, exhausted, is one line naming it, the
verdicts so far, exit 2, and no child or folder left."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

import pytest

from gradrepl.repl import kernel, safe_budget, safe_pictures, safe_replay
from gradrepl.repl.replay_cli import replay_command

WHY = kernel.probe()
needs_kernel = pytest.mark.skipif(WHY is not None, reason=WHY or "")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the real child with the static check and the audit hook taken away: the session reaches os
NO_FILTERS = textwrap.dedent("""
    import builtins, sys
    from gradrepl.repl import sandbox, safe_replay
    sandbox.SessionChecker.check = lambda self, *a, **k: []
    sandbox.check_session_blocks = lambda *a, **k: []
    sandbox.install_runtime_guard = lambda *a, **k: None
    sandbox.safe_builtins = lambda: dict(vars(builtins))
    safe_replay.child_main(sys.argv[1:])
""")


def _replay(files, **kw):
    out, err = io.StringIO(), io.StringIO()
    rc = replay_command([str(f) for f in files], out=out, err=err, **kw)
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """The children's folders go here: the test sees whether one is left."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


# ============================================================================ stated
def _words(text: str) -> str:
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def test_replay_help_states_the_budget_with_its_numbers():
    res = subprocess.run([sys.executable, "-m", "gradrepl", "replay", "--help"],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "COLUMNS": "100"})
    shown = _words(res.stdout)
    assert _words(safe_budget.help_text()) in shown, shown
    for n in ("300 s", "60 s wall", "30 s CPU", "2048 MB memory", "64 MB and 10000 entries",
              "10 MB of output", "Graphviz 30 s and 1024 MB"):
        assert n in shown, n
    assert "--budget" in shown
    # the numbers are the ones the code uses
    assert (safe_budget.BUDGET_SECONDS, safe_replay.TIMEOUT_SECONDS, safe_replay.CPU_SECONDS,
            safe_replay.MEMORY_MB, safe_budget.DISK_MB, safe_budget.DISK_ENTRIES,
            safe_replay.OUTPUT_LIMIT_MB, safe_budget.GRAPHVIZ_SECONDS,
            safe_budget.GRAPHVIZ_MEMORY_MB, safe_pictures.RENDER_SECONDS) == \
        (300, 60, 30, 2048, 64, 10000, 10, 30, 1024, 30)


def test_the_replay_docs_page_states_the_budget():
    with open(os.path.join(ROOT, "docs", "commands", "replay.md"), encoding="utf-8") as f:
        page = _words(f.read())
    for n in ("--budget", "300 s", "1024 MB", "64 MB", "10000", "exit status 2"):
        assert n in page, n


def test_budget_without_safe_or_out_of_range_is_one_line(tmp_path):
    f = tmp_path / "a.pycon"
    f.write_text(">>> print(1)\n1\n")
    assert _replay([f], budget=10) == (2, "", "gradrepl replay: --budget is the time of a "
                                              "--safe replay: give --safe too\n")
    rc, out, err = _replay([f], budget=0, safe=True)
    assert rc == 2 and err.count("\n") == 1 and "more than 0" in err


# ============================================================================ wall time
@needs_kernel
def test_a_used_up_budget_keeps_the_verdicts_so_far_and_runs_nothing_more(tmp_path, own_tmp):
    quick = tmp_path / "quick.pycon"
    quick.write_text(">>> print(1 + 1)\n2\n")
    loop = tmp_path / "loop.pycon"
    loop.write_text(">>> n = 0\n>>> while True:\n...     n += 1\n... \n>>> print(n > 0)\nTrue\n")
    later = tmp_path / "later.pycon"
    later.write_text(">>> print(3)\n3\n")
    rc, out, err = _replay([quick, loop, later, later], check=True, safe=True, budget=8)
    assert rc == 2, (out, err)
    assert f"{quick}: ok, 1 block" in out                      # the verdict so far
    assert f"{loop}: FAILED" in out and f"{later}: ok" not in out
    assert err.splitlines() == [
        f"gradrepl replay --safe: {loop}: time budget (8 s) used up",
        f"gradrepl replay --safe: time budget (8 s) used up: {later} and the file after it "
        "did not run"], err
    assert "Traceback" not in out + err
    assert os.listdir(own_tmp) == []


def test_the_backstop_stops_the_parents_own_work_in_one_line(tmp_path, monkeypatch):
    """Past the budget (and its grace), whatever the parent does (here: a diff that never
    ends) stops: one line, exit 2, the handout not written."""
    if WHY:
        pytest.skip(WHY)
    import gradrepl.repl.replay_cli as cli

    monkeypatch.setattr(safe_budget, "GRACE_SECONDS", 0.5)

    def endless_diff(*a, **k):
        while True:
            pass

    monkeypatch.setattr(cli, "diff", endless_diff)
    f = tmp_path / "a.pycon"
    f.write_text(">>> print(1 + 1)\n3\n")
    html = tmp_path / "a.html"
    rc, out, err = _replay([f], check=True, safe=True, budget=6)
    assert (rc, err) == (2, "gradrepl replay --safe: time budget (6 s) used up; stopped "
                            "(nothing more was written)\n"), (out, err)
    rc, out, err = _replay([f], html=str(html), safe=True, budget=6, check=True)
    assert rc == 2 and not html.exists()
    import signal

    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)   # disarmed
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


# ============================================================================ Graphviz
def _limits_seen(preexec) -> dict:
    code = ("import json, resource; print(json.dumps({n: resource.getrlimit(getattr(resource, n))"
            "[0] for n in ('RLIMIT_AS', 'RLIMIT_CPU', 'RLIMIT_FSIZE', 'RLIMIT_CORE')}))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         preexec_fn=preexec, timeout=60)
    return json.loads(res.stdout)


# qemu-user keeps RLIMIT_AS to itself (setrlimit answers 0, the limit reads unlimited: it would
# starve the emulator), so under emulation no memory limit can be checked (--safe refuses there)
# (also qemu-x86_64 -cpu Haswell-v4 on an x86-64 host: cpu.emulated(), the limit read -1 there)
from gradrepl.engine import cpu as _cpu  # noqa: E402

no_as_limit = pytest.mark.skipif(kernel._emulated_on() is not None or _cpu.emulated(),
                                 reason="under qemu-user emulation RLIMIT_AS is not applied")


@no_as_limit
def test_graphviz_runs_under_its_memory_cpu_and_file_limits():
    seen = _limits_seen(safe_budget.graphviz_preexec(12.5))
    assert seen == {"RLIMIT_AS": 1024 * 1024 * 1024, "RLIMIT_CPU": 13, "RLIMIT_FSIZE": 0,
                    "RLIMIT_CORE": 0}


@no_as_limit
def test_a_picture_past_graphviz_memory_is_a_note_not_a_crash(monkeypatch):
    from gradrepl.viz import render

    try:
        render.find_dot()
    except render.RenderError as exc:
        pytest.skip(str(exc))
    sys.path.insert(0, os.path.dirname(__file__))
    from test_safe_handout import _real_data

    data, _pic = _real_data()
    svg, why = safe_pictures.draw(data)
    assert svg is not None and why is None and "<svg" in svg
    monkeypatch.setattr(safe_budget, "GRAPHVIZ_MEMORY_MB", 1)       # 1 MB: nothing starts
    svg, why = safe_pictures.draw(data)
    assert svg is None and why and "\n" not in why, why
    assert getattr(render.limits, "preexec", None) is None         # taken off after the call


def test_the_drawer_keeps_the_handouts_pictures_within_their_budgets():
    from gradrepl.repl.handout import Figure
    from gradrepl.viz import render

    try:
        render.find_dot()
    except render.RenderError as exc:
        pytest.skip(str(exc))
    sys.path.insert(0, os.path.dirname(__file__))
    from test_safe_handout import _real_data

    data, _pic = _real_data()
    drawer = safe_pictures.Drawer()
    figs = [Figure(f"t{k}", "") for k in range(3)]
    drawer.add(figs[0], data)
    drawer.finish()
    size = len(figs[0].svg)
    drawer = safe_pictures.Drawer()
    drawer.svg_left = size + size // 2                    # room for one picture and a half
    for f in figs[1:]:
        drawer.add(f, data)
    drawer.finish()
    assert figs[1].svg is not None and figs[2].svg is None
    assert figs[2].note == "no picture of t2: the handout's pictures are over the --safe limit"
    late = Figure("late", "")
    drawer = safe_pictures.Drawer(safe_budget.Budget(0))   # no time left
    drawer.add(late, data)
    drawer.finish()
    assert late.svg is None
    assert late.note == "no picture of late: the time budget of replay --safe was used up"


# ============================================================================ disk
FILL = """>>> import os
>>> try:
...     for k in range(100):
...         with open(f'f{k}', 'wb') as f:
...             n = f.write(b'x' * (1 << 20))
... except OSError as e:
...     print('stopped', e.errno)
... 
>>> print('done')
done
"""

MANY = """>>> import os
>>> try:
...     for k in range(400):
...         os.mkdir(f'd{k}')
... except OSError as e:
...     print('stopped', e.errno)
... 
>>> print('done')
done
"""


def _view_available() -> bool:
    code = ("import os, tempfile; from gradrepl.repl import fsview\n"
            "d = tempfile.mkdtemp(); print(fsview._trial(fsview._libc(), d) is None); "
            "os.rmdir(d)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    return res.stdout.strip() == "True"


NO_VIEW = NO_FILTERS.replace("safe_replay.child_main", (
    "from gradrepl.repl import fsview\n"
    "fsview.enter = lambda *a, **k: 'taken away by the test'\n"
    "safe_replay.child_main"))


@needs_kernel
@pytest.mark.parametrize("view", [True, False], ids=["view", "no_view"])
@pytest.mark.parametrize("text,kw,line", [
    (FILL, {"disk_mb": 8}, "disk limit (8 MB in the session's folder) exceeded"),
    (MANY, {"disk_entries": 100},
     "disk limit (100 files and folders in the session's folder) exceeded"),
], ids=["bytes", "entries"])
def test_the_childs_folder_has_a_disk_budget(tmp_path, own_tmp, monkeypatch, text, kw, line,
                                             view):
    """With the child's own file system view the kernel holds it (the folder is a tmpfs of
    that size: the session's write fails with ENOSPC, 28); without it, the parent measures the
    folder and stops the child in one line."""
    if view and not _view_available():
        pytest.skip("no user namespaces here: the child has no file system view of its own")
    monkeypatch.setattr(safe_replay, "CHILD_ARGS", ("-c", NO_FILTERS if view else NO_VIEW))
    res = safe_replay.run_file(text, "fill.pycon", None, **kw)
    if view:
        assert res.limit is None and res.ended, (res.limit, res.error)
        assert [r["output"] for r in res.records if r["output"]] == ["stopped 28\n", "done\n"]
        assert "no file system view" not in res.diagnostics
    else:
        assert res.limit == line, (res.limit, res.error, res.diagnostics[-2000:])
        assert "done\n" not in [r["output"] for r in res.records]
        assert "no file system view of its own: taken away by the test" in res.diagnostics
    assert os.listdir(own_tmp) == []
    # within the budget, the same session runs to its end
    res = safe_replay.run_file(text.replace("range(100)", "range(2)").replace(
        "range(400)", "range(20)"), "fill.pycon", None, **kw)
    assert res.limit is None and res.ended and res.records[-1]["output"] == "done\n", res


def test_folder_usage_counts_bytes_and_entries_without_following_links(tmp_path):
    (tmp_path / "a").write_bytes(b"x" * 100_000)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "b").write_bytes(b"y" * 100_000)
    os.symlink("/usr", tmp_path / "out")
    assert safe_budget.folder_usage(str(tmp_path), 10 << 20, 100) is None
    assert safe_budget.folder_usage(str(tmp_path), 150_000, 100) == "bytes"
    assert safe_budget.folder_usage(str(tmp_path), 10 << 20, 3) == "entries"


# ============================================================================ environment
def test_the_child_starts_with_a_scrubbed_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/ssh-XXXX/agent.1")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setenv("GRADREPL_SECRET_TOKEN", "tok")
    monkeypatch.setenv("PATH", "/home/teacher/bin:/usr/bin:/bin")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "avx2")
    env = safe_replay.child_environment(str(tmp_path))
    assert env["PATH"] == "/usr/bin:/bin" and env["HOME"] == env["TMPDIR"] == str(tmp_path)
    assert env["LANG"] == "de_DE.UTF-8" and env["GRADREPL_CPU_CLASS"] == "avx2"
    for k in ("SSH_AUTH_SOCK", "GITHUB_TOKEN", "GRADREPL_SECRET_TOKEN"):
        assert k not in env
    assert "ghp_secret" not in json.dumps(env) and "teacher" not in json.dumps(env)
    monkeypatch.setenv("LANG", "C.UTF-8\x1b]0;x")                 # not a locale name
    assert safe_replay.child_environment(str(tmp_path))["LANG"] == "C.UTF-8"


@needs_kernel
def test_the_child_sees_only_that_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/ssh-XXXX/agent.1")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setattr(safe_replay, "CHILD_ARGS", ("-c", NO_FILTERS))
    text = (">>> import os, json\n"
            ">>> print(json.dumps(sorted(os.environ)))\n[]\n")
    res = safe_replay.run_file(text, "env.pycon", None)
    seen = [k for k in json.loads(res.records[-1]["output"]) if k != "LC_CTYPE"]  # (coercion)
    expected = sorted({*safe_replay.child_environment("/x"), "GRADREPL_SAFE_DISK"})
    assert seen == expected and "SSH_AUTH_SOCK" not in seen and "GITHUB_TOKEN" not in seen


# ============================================================================ read buffers
LONG_ACK = r'''
import json, os, sys
ctrl, out, ack = map(int, sys.argv[1:4])
requests = os.fdopen(ctrl, "rb")
setup = json.loads(requests.readline())
req = json.loads(requests.readline())
os.write(out, b"1\n")
os.write(ack, (json.dumps({"n": req["n"], "kind": "statement", "failed": False,
                           "error_name": "E" * WIDTH, "pictures": [], "exit": False})
               + "\n").encode())
'''


@pytest.mark.parametrize("width,problem", [
    (100, None),
    (200_000, "an acknowledgement longer than one without pictures can be"),
], ids=["within", "past_64_kb"])
def test_without_pictures_an_acknowledgement_is_64_kb_at_most(tmp_path, monkeypatch, width,
                                                              problem):
    if WHY:
        pytest.skip(WHY)
    monkeypatch.setattr(safe_replay, "CHILD_ARGS",
                        ("-c", LONG_ACK.replace("WIDTH", str(width))))
    res = safe_replay.run_file(">>> print(1)\n1\n", "t.pycon", None)
    if problem is None:
        assert res.error is None and res.records[0]["error_name"] == "E" * 100, res.error
    else:
        assert res.error == f"the sandboxed session's results were tampered with ({problem})"


def test_values_are_counted_before_an_acknowledgement_is_parsed(monkeypatch):
    monkeypatch.setattr(safe_replay, "_ACK_VALUES", 1000)
    line = ('{"n": "x", "pictures": [' + ",".join(["[]"] * 1000) + "]}").encode()
    with pytest.raises(safe_replay._Tampered, match="more than 1000 values"):
        safe_replay._check_ack(line, "x")
    with pytest.raises(safe_replay._Tampered, match="nonce"):     # (parsed: under the count)
        safe_replay._check_ack(b'{"n": "y"}', "x")
