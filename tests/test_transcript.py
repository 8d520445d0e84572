"""Session files (gradrepl/repl/transcript.py) and ``gradrepl replay`` (replay_cli.py): the
format (both block endings, ``...``, comments, header, tracebacks, ``<BLANKLINE>``), --check
with its diffs and exit codes, --update (atomic, untouched on error), the round trip with
``%record``, and transcripts of Python's own console."""
from __future__ import annotations

import code
import contextlib
import io
import os
import subprocess
import sys
import textwrap

import pytest

from gradrepl.repl import replay_cli
from gradrepl.repl.replay_cli import replay_command
from gradrepl.repl.session import Session
from gradrepl.repl.transcript import (format_input, TranscriptError, format_output, format_transcript,
                                      inputs_of, matches, parse, updated)


def _t(text):
    return textwrap.dedent(text).lstrip("\n")


def _replay(*files, **kw):
    out, err = io.StringIO(), io.StringIO()
    code_ = replay_command([str(f) for f in files], out=out, err=err, **kw)
    return code_, out.getvalue(), err.getvalue()


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(_t(text), encoding="utf-8")
    return p


# --- reading ---------------------------------------------------------------------------------

TERMINAL = """\
    >>> for i in range(2):
    ...     print(i)
    ... 
    0
    1
    >>> x = 3
    >>> x
    3
"""
DOCTEST = TERMINAL.replace("    ... \n", "")


def test_both_block_endings_read_the_same():
    a, b = parse(_t(TERMINAL)), parse(_t(DOCTEST))
    assert "... \n" in _t(TERMINAL) and "... \n" not in _t(DOCTEST)
    for t in (a, b):
        assert [blk.source for blk in t.blocks] == ["for i in range(2):\n    print(i)",
                                                    "x = 3", "x"]
        assert [blk.expected for blk in t.blocks] == [["0", "1"], [], ["3"]]
    # an editor that strips the closing line's trailing space changes nothing
    c = parse(_t(TERMINAL).replace("... \n", "...\n"))
    assert [blk.source for blk in c.blocks] == [blk.source for blk in a.blocks]
    assert c.blocks[0].expected == ["0", "1"]


def test_bracket_continuation_and_nested_blocks():
    t = parse(_t("""\
        >>> x = (1 +
        ...      2)
        >>> for i in range(3):
        ...     if i % 2:
        ...         print(i)
        ... 
        1
        >>> x
        3
    """))
    assert [b.source for b in t.blocks] == [
        "x = (1 +\n     2)", "for i in range(3):\n    if i % 2:\n        print(i)", "x"]
    assert [b.expected for b in t.blocks] == [[], ["1"], ["3"]]


def test_percent_commands_are_inputs():
    t = parse(">>> %graph e --view backward\nsome picture\n>>> %vars\n")
    assert [b.source for b in t.blocks] == ["%graph e --view backward", "%vars"]
    assert t.blocks[0].expected == ["some picture"]


def test_comments_header_and_lines():
    t = parse(_t("""\
        # gradrepl: paddle=3
        # A lesson.
        >>> a = 1
        >>> a
        1

        # Look at this.
        #
        # Second paragraph.
        >>> a + 1
        2

        # the end
    """), "f.pycon")
    assert t.profile == "3"
    assert t.blocks[0].comments == ["# gradrepl: paddle=3", "# A lesson."]
    assert t.blocks[2].comments == ["# Look at this.", "#", "# Second paragraph."]
    assert t.trailing_comments == ["# the end"]
    assert [b.line for b in t.blocks] == [3, 4, 10]
    assert [b.output_line for b in t.blocks] == [4, 5, 11]
    assert parse(">>> 1\n1\n").profile is None


def test_where_an_expected_output_ends():
    t = parse(_t("""\
        >>> print("a\\n\\nb")
        a

        b
        >>> print("c\\n")
        c
        <BLANKLINE>

        # comment
        >>> print("# not a comment")
        # not a comment
        >>> 1
        1


        >>> 2
        2
    """))
    assert [b.expected for b in t.blocks] == [["a", "", "b"], ["c", ""], ["# not a comment"],
                                              ["1"], ["2"]]
    assert t.blocks[2].comments == ["# comment"]


def test_blankline_written_only_where_needed():
    assert format_output("a\n\nb\n") == ["a", "", "b"]
    assert format_output("a\n\n") == ["a", "<BLANKLINE>"]
    assert format_output("a\n\n# x\n") == ["a", "<BLANKLINE>", "# x"]
    assert format_output("") == []
    assert format_output("\n") == ["<BLANKLINE>"]


@pytest.mark.parametrize("text, line, what", [
    ("# intro\nsome prose\n>>> 1\n1\n", 2, "before the first"),
    (">>> 1\n1\n\n# c\nprose\n>>> 2\n", 5, "between blocks"),
    (">>> x = 1\n... y = 2\n", 2, "after a complete input"),
    (">>> 1\n>>>2\n", 2, "followed by a space"),
    ("# only a comment\n", 1, "no '>>> ' input"),
    ("", 1, "no '>>> ' input"),
])
def test_parse_errors_name_the_line(text, line, what):
    with pytest.raises(TranscriptError) as ei:
        parse(text, "bad.pycon")
    assert ei.value.line == line
    assert what in str(ei.value)
    assert str(ei.value).startswith(f"bad.pycon:{line}: ")


# --- matching --------------------------------------------------------------------------------

def test_wildcard_matches_any_lines_zero_or_more():
    assert matches(["a", "...", "z"], "a\nz\n")
    assert matches(["a", "...", "z"], "a\nb\nc\nz\n")
    assert matches(["..."], "")
    assert matches(["..."], "anything\nat all\n")
    assert matches(["...", "m", "..."], "a\nm\nz\n")
    assert not matches(["a", "...", "z"], "a\nb\n")
    assert not matches(["a", "...", "m", "...", "z"], "a\nb\nz\n")
    assert not matches(["a", "...", "a"], "a\n")  # the two ends may not overlap


def test_trailing_spaces_do_not_count_but_the_rest_does():
    assert matches(["a  ", "b"], "a\nb   \n")
    assert not matches([" a"], "a\n")
    assert not matches(["a"], "a\n\n")
    assert not matches([], "a\n")


TB_REAL = """\
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File "/usr/lib/python3/dist-packages/paddle/fluid/dygraph/varbase_patch_methods.py", line 255, in backward
    core.dygraph_run_backward([self], [grad_tensor], retain_graph, framework._dygraph_tracer())
RuntimeError: (Unavailable) boom
  [Hint: more] (at /paddle/x.cc:74)
"""


def test_traceback_frames_are_not_compared():
    ours = ('Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
            "RuntimeError: (Unavailable) boom\n  [Hint: more] (at /paddle/x.cc:74)\n")
    assert matches(TB_REAL.splitlines(), ours)
    assert matches(["Traceback (most recent call last):", "RuntimeError: (Unavailable) boom",
                    "  [Hint: more] (at /paddle/x.cc:74)"], ours)
    assert matches(["Traceback (most recent call last):", "  ...",
                    "RuntimeError: (Unavailable) boom", "..."], ours)
    # the exception line is compared
    assert not matches(TB_REAL.replace("boom", "bang").splitlines(), ours)
    assert not matches(["Traceback (most recent call last):", "ValueError: x"], ours)
    # output printed before the traceback is compared too
    assert matches(["before"] + TB_REAL.splitlines(), "before\n" + ours)
    assert not matches(["other"] + TB_REAL.splitlines(), "before\n" + ours)


def test_python_console_transcript_is_a_valid_expected_output(tmp_path):
    """A transcript recorded in code.InteractiveConsole (not gradrepl) replays and checks."""
    lines = ["x = 1", "x + 1", "for i in range(2):", "    print(i)", "", "x = (1 +",
             "     2)", "x", "1/0", "def f():", "    raise ValueError('bad')", "", "f()",
             "y = 1 +", "print('a\\n\\nb')", "print('c\\n')", "import paddle",
             "t = paddle.to_tensor([1.0, 2.0], stop_gradient=False)", "t * 2"]
    buf = io.StringIO()

    class Console(code.InteractiveConsole):
        def raw_input(self, prompt=""):
            if not lines:
                raise EOFError
            line = lines.pop(0)
            buf.write(prompt + line + "\n")
            return line

        def write(self, data):
            buf.write(data)

    import gradrepl.paddle as gp

    saved = sys.modules.get("paddle")
    sys.modules["paddle"] = gp  # what `import paddle` gives in a console with gradrepl
    # Python's own prompts (an in-process IPython shell, made by an earlier test, sets sys.ps1
    # to 'In : ', which the console would use)
    prompts = [getattr(sys, "ps1", None), getattr(sys, "ps2", None)]
    sys.ps1, sys.ps2 = ">>> ", "... "
    try:
        with contextlib.redirect_stdout(buf):
            Console().interact(banner="", exitmsg="")
    finally:
        for attr, value in zip(("ps1", "ps2"), prompts):
            if value is None:
                delattr(sys, attr)
            else:
                setattr(sys, attr, value)
        if saved is None:
            sys.modules.pop("paddle", None)
        else:
            sys.modules["paddle"] = saved
    text = buf.getvalue()
    assert 'File "<console>", line 2, in f' in text and "... \n" in text
    p = tmp_path / "console.pycon"
    p.write_text(text, encoding="utf-8")
    rc, out, err = _replay(p, check=True)
    assert rc == 0, out + err
    assert "ok, 14 blocks" in out


# --- check -----------------------------------------------------------------------------------

GOOD = """\
    # gradrepl: paddle=2.2
    # example one
    >>> import paddle
    >>> a = paddle.to_tensor(2.0, stop_gradient=False)
    >>> b = paddle.to_tensor(5.0)
    >>> c = a * b
    >>> c.backward()
    >>> a.grad
    Tensor(shape=[1], dtype=float32, place=CPUPlace, stop_gradient=False,
           [5.])

    # a freed graph (frames not compared; a "..." line matches the hint line)
    >>> c.backward()
    Traceback (most recent call last):
      ...
    RuntimeError: (Unavailable) eager_tmp_0 trying to backward through the same graph a second time, but this graph have already been freed. Please specify Tensor.backward(retain_graph=True) when calling backward at the first time.
    ...
"""


def test_check_passes_and_fails_with_a_diff_naming_file_and_line(tmp_path):
    good = _write(tmp_path, "good.pycon", GOOD)
    rc, out, err = _replay(good, check=True)
    assert rc == 0, out + err
    assert out == f"{good}: ok, 7 blocks (profile 2.2)\n"

    bad = _write(tmp_path, "bad.pycon", GOOD.replace("[5.]", "[6.]"))
    rc, out, err = _replay(bad, check=True)
    assert rc == 1
    assert f"{bad}:8: the output of '>>> a.grad' differs" in out
    assert f"--- {bad}:9 (expected)" in out and f"+++ {bad}:9 (got)" in out
    assert "@@ -9,2 +9,2 @@" in out  # numbered by the file's lines
    assert "-       [6.])" in out and "+       [5.])" in out
    assert f"{bad}: FAILED: 1 of 7 blocks differ" in out


def test_check_goes_on_after_a_failure_and_reports_every_difference(tmp_path):
    bad = _write(tmp_path, "bad.pycon", """\
        >>> 1
        2
        >>> 2
        2
        >>> 3
        4
    """)
    good = _write(tmp_path, "good.pycon", ">>> 1 + 1\n2\n")
    rc, out, err = _replay(bad, good, check=True)
    assert rc == 1
    assert f"{bad}:1: the output of '>>> 1' differs" in out
    assert f"{bad}:5: the output of '>>> 3' differs" in out
    assert "@@ -2 +2 @@" in out and "@@ -6 +6 @@" in out
    assert f"{bad}: FAILED: 2 of 3 blocks differ" in out
    assert f"{good}: ok, 1 block" in out
    assert "2 files, some differ" in out


def test_a_missing_output_is_a_difference_at_its_place(tmp_path):
    f = _write(tmp_path, "f.pycon", ">>> x = 1\n>>> x\n>>> y = 2\n")
    rc, out, _ = _replay(f, check=True)
    assert rc == 1
    assert "@@ -2,0 +3 @@" in out and "+1" in out


def test_a_stray_comment_is_read_as_output_and_said_so(tmp_path):
    f = _write(tmp_path, "f.pycon", ">>> x = 1\n# set x\n>>> x\n1\n")
    rc, out, _ = _replay(f, check=True)
    assert rc == 1
    assert "'# set x' reads as expected output; a comment must follow a blank line" in out
    # and --update will not delete it
    before = f.read_bytes()
    rc, out, err = _replay(f, update=True)
    assert rc == 2 and f.read_bytes() == before
    assert f"{f}:2:" in err and "add a blank line before it" in err


@pytest.mark.parametrize("how", ["missing", "parse", "header", "binary"])
def test_exit_2_for_a_file_that_cannot_be_read_or_parsed(tmp_path, how):
    good = _write(tmp_path, "good.pycon", ">>> 1\n1\n")
    if how == "missing":
        f, where = tmp_path / "nope.pycon", "no such file"
    elif how == "parse":
        f, where = _write(tmp_path, "p.pycon", ">>> 1\n1\n\n# c\nprose\n"), ":5: text between"
    elif how == "header":
        f, where = _write(tmp_path, "h.pycon", "# gradrepl: paddle=9\n>>> 1\n1\n"), \
            ":1: unknown Paddle profile '9'"
    else:
        f = tmp_path / "b.pycon"
        f.write_bytes(b">>> 1\n\xff\xfe\n")
        where = "not UTF-8"
    for flags in ({"check": True}, {}, {"update": True}):
        rc, out, err = _replay(f, good, **flags)
        assert rc == 2, (flags, out, err)
        if how == "missing":    # every command's wording: "no such file: PATH"
            assert err == f"gradrepl replay: no such file: {f}\n", err
        else:
            assert err.startswith(f"gradrepl replay: {f}") and where in err, err
    rc, out, _ = _replay(f, good, check=True)
    assert f"{good}: ok" in out  # the other file was still checked


def test_header_profile_wins_over_paddle_option(tmp_path):
    f = _write(tmp_path, "p3.pycon", """\
        # gradrepl: paddle=3
        >>> import paddle
        >>> paddle.__version__
        '3.3.1'
    """)
    assert _replay(f, check=True, paddle="2.2")[0] == 0
    g = _write(tmp_path, "plain.pycon", ">>> import paddle\n>>> paddle.__version__\n'2.6.2'\n")
    assert _replay(g, check=True)[0] == 1
    assert _replay(g, check=True, paddle="2.6")[0] == 0
    rc, _, err = _replay(g, check=True, paddle="1.8")
    assert rc == 2 and "unknown Paddle profile" in err


def test_check_and_update_together_is_a_usage_error(tmp_path):
    f = _write(tmp_path, "f.pycon", ">>> 1\n1\n")
    rc, _, err = _replay(f, check=True, update=True)
    assert rc == 2 and "do not go together" in err


def test_plain_replay_shows_the_session_as_the_shell_does(tmp_path):
    f = tmp_path / "f.pycon"
    f.write_text(_t(DOCTEST) + "\n# comment\n>>> 1/0\n")
    rc, out, err = _replay(f)
    assert rc == 0, err
    assert out == _t(TERMINAL) + (
        '>>> 1/0\nTraceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
        "ZeroDivisionError: division by zero\n")
    rc, out, _ = _replay(f, f)
    assert out.startswith(f"==> {f} <==\n>>> for") and f"\n\n==> {f} <==\n" in out


def test_exit_in_a_session(tmp_path):
    f = _write(tmp_path, "f.pycon", ">>> 1\n1\n>>> exit()\n>>> 2\n2\n")
    rc, out, _ = _replay(f, check=True)
    assert rc == 1 and f"{f}:3: the session exited here; 1 input after it did not run" in out
    before = f.read_bytes()
    rc, _, err = _replay(f, update=True)
    assert rc == 2 and "exited" in err and f.read_bytes() == before
    g = _write(tmp_path, "g.pycon", ">>> 1\n1\n>>> exit()\n")
    assert _replay(g, check=True)[0] == 0


# --- update ----------------------------------------------------------------------------------

def test_update_rewrites_only_what_differs_and_keeps_the_rest(tmp_path):
    src = GOOD.replace("[5.]", "[6.]").replace(
        "    >>> c = a * b\n", "    >>> c = a * b\n    >>> c\n    stale\n")
    f = _write(tmp_path, "f.pycon", src)
    rc, out, err = _replay(f, update=True)
    assert rc == 0, err
    assert out == f"{f}: updated 2 of 8 blocks (lines 7, 10)\n"
    text = f.read_text()
    expected = _t(GOOD).replace(">>> c = a * b\n", ">>> c = a * b\n>>> c\n"
                                "Tensor(shape=[1], dtype=float32, place=CPUPlace, "
                                "stop_gradient=False,\n       [10.])\n")
    assert text == expected  # header, comments, blank lines, wildcards: all kept
    assert _replay(f, check=True)[0] == 0
    mtime = os.stat(f).st_mtime_ns
    rc, out, _ = _replay(f, update=True)
    assert rc == 0 and out == f"{f}: up to date, 8 blocks\n"
    assert os.stat(f).st_mtime_ns == mtime  # not rewritten
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.pycon"]


def test_update_keeps_the_block_ending_style(tmp_path):
    f = _write(tmp_path, "f.pycon", DOCTEST.replace("    1\n    >>> x = 3", "    >>> x = 3"))
    assert _replay(f, update=True)[0] == 0
    assert f.read_text() == _t(DOCTEST)
    g = _write(tmp_path, "g.pycon", TERMINAL.replace("    1\n    >>> x = 3", "    >>> x = 3"))
    assert _replay(g, update=True)[0] == 0
    assert g.read_text() == _t(TERMINAL)


def test_update_is_atomic(tmp_path, monkeypatch):
    f = _write(tmp_path, "f.pycon", ">>> 1 + 1\n3\n")
    os.chmod(f, 0o640)
    before = f.read_bytes()

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(replay_cli.os, "replace", boom)
    rc, _, err = _replay(f, update=True)
    assert rc == 2 and "No space left on device" in err
    assert f.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.pycon"]  # no temporary left
    monkeypatch.undo()
    assert _replay(f, update=True)[0] == 0
    assert f.read_text() == ">>> 1 + 1\n2\n"
    assert os.stat(f).st_mode & 0o777 == 0o640  # permissions kept


def test_update_leaves_a_file_with_a_parse_error_untouched(tmp_path):
    f = _write(tmp_path, "f.pycon", ">>> 1 + 1\n3\n\n# c\nnot a comment\n>>> 2\n")
    before, mtime = f.read_bytes(), os.stat(f).st_mtime_ns
    rc, _, err = _replay(f, update=True)
    assert rc == 2 and f"{f}:5:" in err
    assert f.read_bytes() == before and os.stat(f).st_mtime_ns == mtime


def test_update_refuses_an_output_a_transcript_cannot_hold(tmp_path):
    inner = _write(tmp_path, "inner.pycon", ">>> x = 2\n>>> x\n2\n")
    f = _write(tmp_path, "f.pycon", f">>> %load {inner}\n")
    before = f.read_bytes()
    rc, _, err = _replay(f, update=True)
    assert rc == 2 and "cannot be written in a transcript" in err and f"{f}:1" in err
    assert f.read_bytes() == before
    t = parse(">>> print('x')\nx\n")
    with pytest.raises(TranscriptError):
        updated(t, ["x\n>>> y\n"])


# --- round trips -----------------------------------------------------------------------------

ENTRIES = [
    ("import paddle", ""),
    ("for i in range(2):\n    print(i)", "0\n1\n"),
    ("x = (1 +\n     2)", ""),
    ("print('a\\n\\nb\\n')", "a\n\nb\n\n"),
    ("print('# hash')", "# hash\n"),
    ("%vars", "no tensors yet\n"),
    ("def f():\n    return 1\n", ""),
    ("x", "3\n"),
]


def test_format_transcript_and_inputs_of_round_trip():
    text = format_transcript(ENTRIES, profile="3")
    assert text.startswith("# gradrepl: paddle=3\n>>> import paddle\n>>> for i in range(2):\n"
                           "...     print(i)\n... \n0\n1\n>>> x = (1 +\n...      2)\n>>> print")
    assert "a\n\nb\n<BLANKLINE>\n" in text
    t = parse(text)
    assert t.profile == "3"
    assert [b.source for b in t.blocks] == [s.rstrip("\n") for s, _ in ENTRIES]
    for b, (_, out) in zip(t.blocks, ENTRIES):
        assert matches(b.expected, out)
    assert inputs_of(text) == [s.rstrip("\n") for s, _ in ENTRIES]
    assert inputs_of(text, "x.pycon") == inputs_of(text)
    # a script is one input; so is a .py file even with a doctest inside
    assert inputs_of("a = 1\nb = 2\n") == ["a = 1\nb = 2\n"]
    assert inputs_of('"""\n>>> 1\n"""\n', "doc.py") == ['"""\n>>> 1\n"""\n']
    with pytest.raises(TranscriptError):
        inputs_of(">>> 1\n1\n\n# c\nprose\n")


def test_record_then_replay_check_passes(tmp_path):
    s = Session()
    for src in ["import paddle", "a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)",
                "b = (a * a).sum()", "b", "for i in range(2):\n    print(i)", "b.backward()",
                "a.grad", "%graph b --view backward", "print('x\\n')", "b.backward()",
                "%vars", "1 +"]:
        s.run(src)
    path = tmp_path / "rec.pycon"
    res = s.run(f"%record {path}")
    assert res.output == f"recorded 12 inputs to {path}\n"
    text = path.read_text()
    assert text.startswith("# gradrepl: paddle=2.2\n>>> import paddle\n")
    rc, out, err = _replay(path, check=True)
    assert rc == 0, out + err
    assert out == f"{path}: ok, 12 blocks (profile 2.2)\n"
    rc, out, _ = _replay(path, update=True)
    assert out == f"{path}: up to date, 12 blocks\n" and path.read_text() == text


def test_load_reads_transcripts_with_the_same_parser(tmp_path):
    f = _write(tmp_path, "f.pycon", DOCTEST)
    s = Session()
    res = s.run(f"%load {f}")
    # %load shows each block as the shell does, with its closing ``... `` line
    assert res.output == "".join(
        ln + "\n" for b in parse(_t(DOCTEST)).blocks for ln in format_input(b.source)
        + b.expected) or res.output.replace("... \n", "") == _t(DOCTEST).replace("... \n", "")
    bad = _write(tmp_path, "bad.pycon", ">>> 1\n1\n\n# c\nprose\n")
    res = s.run(f"%load {bad}")
    assert res.output.startswith("%load: ") and f"{bad}:5:" in res.output


# --- the command line ------------------------------------------------------------------------

def _cli(*args, cwd=None):
    env = dict(os.environ)
    env.pop("GRADREPL_PADDLE", None)
    return subprocess.run([sys.executable, "-m", "gradrepl", "replay", *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


def test_cli_exit_codes(tmp_path):
    good = _write(tmp_path, "good.pycon", GOOD)
    bad = _write(tmp_path, "bad.pycon", GOOD.replace("[5.]", "[6.]"))
    r = _cli("--check", good)
    assert r.returncode == 0 and r.stdout == f"{good}: ok, 7 blocks (profile 2.2)\n", r.stderr
    r = _cli("--check", good, bad)
    assert r.returncode == 1 and "@@ -9,2 +9,2 @@" in r.stdout
    r = _cli("--check", tmp_path / "missing.pycon", good)
    assert r.returncode == 2 and "no such file: " in r.stderr and "missing.pycon" in r.stderr
    r = _cli(good)
    assert r.returncode == 0 and r.stdout.startswith(">>> import paddle\n>>> a = ")
    r = _cli("--update", bad)
    assert r.returncode == 0 and "updated 1 of 7 blocks (line 8)" in r.stdout
    assert _cli("--check", bad).returncode == 0
    r = _cli()
    assert r.returncode == 2


def test_safe_without_the_sandbox_is_a_clear_error(tmp_path):
    try:
        import gradrepl.repl.sandbox  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("the sandbox exists: test_safe_replay_runs_in_the_sandbox covers --safe")
    f = _write(tmp_path, "f.pycon", ">>> 1\n1\n")
    rc, _, err = _replay(f, check=True, safe=True)
    assert rc == 2 and "--safe needs the sandbox" in err


def test_safe_replay_runs_in_the_sandbox(tmp_path):
    pytest.importorskip("gradrepl.repl.sandbox")
    from gradrepl.repl import kernel

    from gradrepl.engine import cpu

    if cpu.emulated():   # (qemu-x86_64 runs this process; the replay subprocess runs natively)
        pytest.skip("this test process runs under a user-mode emulator (qemu-user) while its "
                    "--safe subprocess runs natively: the probe here does not describe the child")
    f = _write(tmp_path, "f.pycon", GOOD)
    r = _cli("--safe", "--check", f)
    why = kernel.probe()
    if why:   # (qemu-user on aarch64, an old kernel): refused in one line saying why, exit 2
        assert r.returncode == 2 and why in r.stderr, r.stdout + r.stderr
        pytest.skip(why)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{f}: ok, 7 blocks" in r.stdout
    bad = _write(tmp_path, "bad.pycon", GOOD.replace("[5.]", "[6.]"))
    r = _cli("--safe", "--check", bad)
    assert r.returncode == 1 and "@@ -9,2 +9,2 @@" in r.stdout
    # the child's sessions are safe ones: what the sandbox refuses is refused
    s = _write(tmp_path, "s.pycon", ">>> import os\n>>> os.listdir('/')\n")
    r = _cli("--safe", "--check", s)
    # exit 3: lines were refused (it outranks 1, outputs that differ)
    assert r.returncode == 3 and "refused" in r.stdout, r.stdout + r.stderr
