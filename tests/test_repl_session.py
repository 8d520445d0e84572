"""The evaluator and the % commands, without any terminal."""
from __future__ import annotations

from pathlib import Path

import pytest

from gradrepl.repl.commands import COMMANDS
from gradrepl.repl.session import Session, is_complete

SEEDS = Path(__file__).resolve().parent.parent / "examples" / "seeds"


@pytest.fixture
def s():
    return Session()


def run(s, *sources):
    return "".join(s.run(src).output for src in sources)


def test_echo_and_underscore(s):
    out = run(s, "import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
              "b = paddle.to_tensor(5.0, stop_gradient=True)", "c = a * b", "c")
    assert out == ("Tensor(shape=[1], dtype=float32, place=CPUPlace, stop_gradient=False,\n"
                   "       [10.])\n")
    assert s.namespace["_"] is s.namespace["c"]
    assert run(s, "None", "x = 3") == ""
    assert run(s, "print('hi'); 1 + 1") == "hi\n2\n"


def test_seed_example_one_prints_as_the_article(s):
    src = (SEEDS / "s000_example_one.py").read_text()
    expected = (SEEDS / "s000_example_one.out").read_text()
    # typed statement by statement, the prints are the article's bytes
    import ast

    tree = ast.parse(src)
    lines = src.splitlines()
    out = "".join(s.run("\n".join(lines[n.lineno - 1:n.end_lineno])).output for n in tree.body)
    assert out == expected


def test_errors_show_user_frames_only_and_the_session_goes_on(s):
    out = run(s, "import paddle", "1/0")
    assert out == ("Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
                   "ZeroDivisionError: division by zero\n")
    out = run(s, "paddle.to_tensor([[1.0, 2.0]]) @ paddle.to_tensor([[1.0, 2.0]])")
    assert "gradrepl" not in out and out.startswith("Traceback") and "File \"<stdin>\"" in out
    assert run(s, "undefined_name").endswith("NameError: name 'undefined_name' is not defined\n")
    out = run(s, "x = (")
    assert "SyntaxError" in out and "line 1" in out
    assert run(s, "1 + 1") == "2\n"


def test_verbose_keeps_gradrepl_frames():
    s = Session(verbose=True)
    out = run(s, "import paddle",
              "paddle.to_tensor([[1.0, 2.0]]) @ paddle.to_tensor([[1.0, 2.0]])")
    assert "gradrepl" in out


def test_no_empty_exception_message(s):
    out = run(s, "raise ValueError()")
    assert out.rstrip().split("\n")[-1] != "ValueError"


def test_deep_recursion_and_memory_errors_are_shown(s):
    out = run(s, "def f(n): return f(n + 1)", "f(0)")
    assert "RecursionError" in out
    out = run(s, "import numpy as np", "np.zeros((10**7, 10**7))")
    assert "MemoryError" in out or "Unable to allocate" in out
    assert run(s, "2 * 21") == "42\n"


def test_exit_and_system_exit(s):
    assert s.run("exit()").exit_code == 0
    assert s.run("exit(3)").exit_code == 3
    assert s.run("raise SystemExit(4)").exit_code == 4
    assert s.run("import sys; sys.exit()").exit_code == 0


def test_multi_statement_input_runs_like_the_console(s):
    out = run(s, "import paddle\nx = paddle.to_tensor([1.0, 2.0])\nx * 2\nprint('done')")
    assert out == ("Tensor(shape=[2], dtype=float32, place=CPUPlace, stop_gradient=True,\n"
                   "       [2., 4.])\ndone\n")
    assert run(s, "for i in range(3):\n    i\n") == "0\n1\n2\n"


def test_is_complete():
    assert is_complete("a = 1")
    assert not is_complete("for i in range(3):")
    assert not is_complete("for i in range(3):\n    print(i)")
    assert is_complete("for i in range(3):\n    print(i)\n\n")
    assert not is_complete("x = (1,")
    assert is_complete("%graph c")
    assert is_complete("x = )")  # a syntax error is complete: it is reported


def test_profile_command_and_reset(s):
    assert run(s, "%profile") == "profile 2.2 (Paddle 2.2.1)\n"
    assert run(s, "%profile 3") == "profile 3 (Paddle 3.3.1)\n"
    assert run(s, "import paddle", "paddle.to_tensor(2.0)") == (
        "Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       2.)\n")
    assert run(s, "%profile 9").startswith("%profile: unknown Paddle profile '9'")
    assert run(s, "%reset").startswith("a fresh session")
    assert "paddle" not in s.namespace


def test_help_lists_the_table(s):
    out = run(s, "%help")
    for name, cmd in COMMANDS.items():
        assert cmd.usage in out and cmd.summary in out
    assert run(s, "%help graph").startswith("%graph [NAME]")
    assert run(s, "%help nope") == "%help: no command %nope; %help lists them\n"
    assert run(s, "%nope") == "unknown command %nope; %help lists the commands\n"


def test_vars_table(s):
    run(s, "import paddle", "a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)",
        "y = (a * a).sum()", "y.backward()")
    res = s.run("%vars")
    assert res.table["columns"] == ["name", "shape", "dtype", "stop_gradient", "is_leaf", "grad"]
    assert res.table["rows"] == [["a", "[2]", "float32", "False", "True", "[2]"],
                                 ["y", "[1]", "float32", "False", "False", "[1]"]]
    assert res.output.splitlines()[0].split() == res.table["columns"]


def test_graph_command_text_and_files(s, tmp_path):
    run(s, "import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
        "b = paddle.to_tensor(5.0, stop_gradient=False)", "c = a * b")
    out = run(s, "%graph c")
    assert "Mul  c = a * b" in out and "MulBackward" in out and "a_grad = None" in out
    out = run(s, f"%graph c -o {tmp_path / 'c.svg'}")
    assert out == f"wrote {tmp_path / 'c.svg'}\n" and "<svg" in (tmp_path / "c.svg").read_text()
    assert run(s, "%graph c --view sideways").startswith("%graph: argument --view")
    assert run(s, "%graph nope") == "%graph: no variable named 'nope' (its tensors: a, b, c)\n"
    assert run(s, "%graph paddle") == "%graph: 'paddle' is a module, not a tensor\n"
    assert run(s, f"%graph c -o {tmp_path / 'c.gif'}").startswith("%graph: unknown picture ext")


def test_step_command_frames_and_backward_done(s):
    run(s, "import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
        "b = paddle.to_tensor(5.0, stop_gradient=False)", "c = a * b",
        "d = paddle.to_tensor(4.0, stop_gradient=False)", "e = c * d")
    res = s.run("%step e")
    assert res.frames and len(res.frames) == 8   # step 0 (before) to step 7 of 7
    assert "step 3 of 7: MulBackward #2 ran: it sent c_grad = e_grad * d = 1. * 4. = 4." \
        in res.frames[3]
    assert "ready queue" in res.frames[3]
    assert "a_grad = 20." in res.frames[-1]
    assert run(s, "a.grad") == ("Tensor(shape=[1], dtype=float32, place=CPUPlace, "
                                "stop_gradient=False,\n       [20.])\n")
    out = run(s, "%step e")  # the graph was freed: said plainly, the recorded steps replayed
    assert out.startswith("e.backward() already ran and released the graph")
    assert "a_grad = c_grad * b = 4. * 5. = 20." in out
    assert run(s, "a.grad").endswith("[20.])\n")  # nothing ran again
    out = run(s, "%step a")  # a leaf's backward: only its accumulation (20 + 1)
    assert "a.grad = 20. + 1. = 21." in out  # the accumulation, as a sum that adds up
    assert "ready queue: None" not in out and "(b0)" not in out
    assert run(s, "%step b_missing") == \
        "%step: no variable named 'b_missing' (its tensors: a, b, c, d, e)\n"
    assert run(s, "%stpe e") == "unknown command %stpe: did you mean %step? (%help lists the " \
        "commands)\n"


def test_time_and_history(s):
    out = run(s, "%time 2 + 3")
    assert out.startswith("5\nWall time: ") and out.endswith("\n")
    assert run(s, "%time").startswith("%time: usage")
    assert run(s, "%history") == "   1  %time 2 + 3\n   2  %time\n"


def test_record_then_load(s, tmp_path):
    run(s, "import paddle", "x = paddle.to_tensor([1.0, 2.0])", "x * 3")
    path = tmp_path / "s.txt"
    assert run(s, f"%record {path}") == f"recorded 3 inputs to {path}\n"
    text = path.read_text()
    assert text.startswith("# gradrepl: paddle=2.2\n>>> import paddle\n")
    s2 = Session()
    out = run(s2, f"%load {path}")
    assert ">>> x * 3\nTensor(shape=[2]" in out and "[3., 6.]" in out
    assert run(s2, f"%load {tmp_path / 'missing.txt'}").startswith("%load: cannot read")
    assert run(s2, "%record /nonexistent-dir/x.txt").startswith("%record: cannot write")


def test_statements_label_the_graph(s):
    run(s, "import paddle", "a = paddle.to_tensor(2.0, stop_gradient=False)",
        "b = a * a", "c = b + a")
    from gradrepl import viz

    g = viz.graph(s.namespace["c"], namespace=s.namespace, recorder=s.recorder).model
    assert [o.label for o in g.ops] == ["b = a * a", "c = b + a"]
    assert g.tensor_named("a").label == "a = paddle.to_tensor(2.0, stop_gradient=False)"
