"""gradrepl quiz / %quiz: the student's own gradient marked, and a wrong one told which step
of the chain rule went astray (from why's paths), then the steps."""
from __future__ import annotations

import io
import os

import numpy as np
import pytest

from gradrepl.teach import quiz as Q

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ex(*parts):
    return os.path.join(ROOT, "examples", *parts)


def _q(path, name=None, targets=None):
    ex = Q.load_exercise(path, targets)
    if name is None:
        return ex, ex.questions
    return ex, next(q for q in ex.questions if q.label == name or q.name == name)


# ---------------------------------------------------------------------------- answers
@pytest.mark.parametrize("text,want", [
    ("20", 20.0), (" 2*3 ", 6.0), ("-1.5e1", -15.0), ("[1, 2]", [1.0, 2.0]),
    ("[[1, 2], [3, 4]]", [[1, 2], [3, 4]]), ("2 ** 3 - 1", 7.0), ("sqrt(16) / 2", 2.0),
    ("[1, 2] * 3", [3.0, 6.0]),
])
def test_parse_answer(text, want):
    assert np.allclose(Q.parse_answer(text), want)


def test_parse_answer_names_and_refusals():
    ns = {"d": type("T", (), {})()}
    from gradrepl.engine.tensor import Tensor

    ns = {"d": Tensor(np.array([4.0], np.float32)), "b": Tensor(np.array([5.0], np.float32))}
    assert np.allclose(Q.parse_answer("d * b", ns), 20)
    for bad in ("", "a.grad", "__import__('os')", "[1, [2]]", "zz + 1", "2 ** 1000", "[1, 2"):
        with pytest.raises(Q.AnswerError):
            Q.parse_answer(bad, ns)


def test_typed_digits_and_printed_precision():
    assert Q._close(np.float64(0.333), np.float64(1 / 3), "0.333")
    assert not Q._close(np.float64(0.3), np.float64(1 / 3), "0.3")
    assert Q._close(np.float64(20.0), np.float64(20.000001))
    assert Q._close(np.array([2, 2, 2.0]), np.array([2, 2, 2.0]))
    assert not Q._close(np.array([1, 1, 1, 1, 1, 1.0]), np.array([2, 2, 2.0]))


# ---------------------------------------------------------------------------- example two
def test_example_two_right_answers():
    ex, qs = _q(_ex("seeds", "s000_example_two.py"))
    assert [q.label for q in qs] == ["a.grad", "b.grad", "d.grad"]
    for q, text in zip(qs, ["d * b", "8", "10."]):
        v = Q.mark(q, text, ex.namespace, qs)
        assert v.right, v.text
        assert v.text.startswith(f"right: {q.label} = ")


def test_example_two_a_factor_left_out_and_another_tensor():
    ex, q = _q(_ex("seeds", "s000_example_two.py"), "a.grad")
    v = Q.mark(q, "5", ex.namespace, ex.questions)       # d * b without d
    assert not v.right and v.slip.kind == "factor"
    assert "left out the local derivative d = 4" in v.text
    assert "e -> c -> a" in v.text
    v = Q.mark(q, "8", ex.namespace, ex.questions)       # b's gradient
    assert v.slip.kind == "other-tensor" and "that is b.grad" in v.text
    assert "e -> c -> a: d * b = 4 * 5 = 20" in v.steps   # the why text follows


def test_the_code_shown_hides_the_gradients():
    ex, _ = _q(_ex("seeds", "s000_example_two.py"))
    assert "e.backward()" in ex.code and "e = c * d" in ex.code
    assert "print" not in ex.code and ".grad" not in ex.code


# ---------------------------------------------------------------------------- paths
def test_square_plus_forgotten_path_and_one_path():
    ex, q = _q(_ex("quiz", "square_plus.py"), "x.grad")
    v = Q.mark(q, "6", ex.namespace)
    assert v.slip.kind == "forgot-path"
    assert "you left out the path y -> x, which contributes 1" in v.text
    assert "3 + 3 + 1 = 7" in v.text
    v = Q.mark(q, "4", ex.namespace)
    assert v.slip.kind == "forgot-path" and "(as the left operand)" in v.text
    v = Q.mark(q, "3", ex.namespace)
    assert v.slip.kind == "one-path" and "3 paths reach x" in v.text
    v = Q.mark(q, "2*3 + 1", ex.namespace)
    assert v.right


def test_two_paths_forgotten_path_and_mis_multiplied():
    ex, q = _q(_ex("quiz", "two_paths.py"), "w.grad")
    v = Q.mark(q, "15", ex.namespace)
    assert v.slip.kind == "forgot-path" and "L -> h -> w, which contributes 5" in v.text
    v = Q.mark(q, "5 + 5", ex.namespace)                 # x left out of the first path
    assert v.slip.kind == "factor" and "x = 3" in v.text
    v = Q.mark(q, "5 + (5 + 1 + 3)", ex.namespace)      # local derivatives added
    assert v.slip.kind == "added" and "multiplies them" in v.text


# ---------------------------------------------------------------------------- broadcast
def test_broadcast_sum_forgotten():
    ex, q = _q(_ex("graphs", "broadcast.py"), "b.grad")
    v = Q.mark(q, "[1, 1, 1]", ex.namespace)
    assert v.slip.kind == "broadcast"
    assert "b [3] was broadcast to [2, 3]" in v.text and "sums the gradient over the 2" in v.text
    v = Q.mark(q, "[[1, 1, 1], [1, 1, 1]]", ex.namespace)
    assert v.slip.kind == "broadcast" and "before the broadcast sum (shape [2, 3])" in v.text
    assert Q.mark(q, "[2, 2, 2]", ex.namespace).right


def test_broadcast_with_values():
    """b * x: the broadcast sum of x's rows, not one row."""
    from gradrepl.repl.session import Session

    s = Session()
    for src in ["import paddle",
                "x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)",
                "b = paddle.to_tensor([10.0, 20.0, 30.0], stop_gradient=False)",
                "loss = (x * b).sum()", "loss.backward()"]:
        s.run(src)
    out = s.run("%quiz b [1, 2, 3]").output
    assert out.startswith("wrong: b.grad = [5, 7, 9], not [1, 2, 3]")
    assert "without the broadcast sum" in out
    assert "[1, 2, 3] + [4, 5, 6] = [5, 7, 9]" in out     # the steps
    assert s.run("%quiz b = [5, 7, 9]").output.startswith("right: b.grad = [5, 7, 9]")


# ---------------------------------------------------------------------------- accumulation
def test_accumulation_one_backward_of_two():
    ex, q = _q(_ex("quiz", "accumulate.py"), "x.grad")
    v = Q.mark(q, "4", ex.namespace)
    assert v.slip.kind == "accumulation"
    assert "backward() ran 2 times" in v.text and "4 + 4" in v.text
    v = Q.mark(q, "2", ex.namespace)
    assert "one backward() only" in v.text and "left out the path" in v.text
    assert Q.mark(q, "8", ex.namespace).right


# ---------------------------------------------------------------------------- an MLP
def test_mlp_bias_broadcast_and_mean():
    ex, q = _q(_ex("graphs", "mlp.py"), "model.fc2.bias.grad")
    g = q.value
    assert q.element is None and g.shape == (3,)
    run = q.explanation.terms[0]
    row = np.asarray(run.pre)[0]          # one sample's share
    v = Q.mark(q, "[" + ", ".join(repr(float(x)) for x in row) + "]", ex.namespace)
    assert v.slip.kind == "broadcast" and "broadcast to [5, 3]" in v.text
    v = Q.mark(q, "[" + ", ".join(repr(float(x) * 5) for x in g) + "]", ex.namespace)
    assert v.slip.kind == "mean" and "mean over 5 values" in v.text
    right = "[" + ", ".join(f"{x:.6f}" for x in g) + "]"
    assert Q.mark(q, right, ex.namespace).right


def test_mlp_large_gradients_asked_one_element():
    ex, qs = _q(_ex("graphs", "mlp.py"))
    w = next(q for q in qs if q.name == "model.fc1.weight")
    assert w.element is not None and w.label.startswith("model.fc1.weight.grad[")
    assert "one number: the element" in w.prompt_words()
    assert Q.mark(w, repr(float(w.value)), ex.namespace).right


# ---------------------------------------------------------------------------- torch
def test_torch_example_two():
    ex, qs = _q(_ex("quiz", "torch_example_two.py"))
    assert [q.label for q in qs] == ["a.grad", "b.grad", "d.grad"]
    assert Q.mark(qs[0], "20", ex.namespace).right
    v = Q.mark(qs[1], "20", ex.namespace, qs)
    assert not v.right and v.slip.kind == "other-tensor"


# ---------------------------------------------------------------------------- the command
def _quiz(args, stdin=""):
    from gradrepl.teach.cli import quiz_command

    out = io.StringIO()
    code = quiz_command(*args, stdin=io.StringIO(stdin), stdout=out)
    return code, out.getvalue()


def test_cli_piped_answers_and_exit_status():
    code, out = _quiz([_ex("seeds", "s000_example_two.py"), []], "20\nb = 8\nd: 9\n")
    assert code == 1
    assert "1. a.grad = ?" in out and "right: a.grad = 20" in out and "right: b.grad = 8" in out
    assert "wrong: d.grad = 10, not 9" in out and "the steps:" in out
    assert out.rstrip().endswith("2 of 3 right")
    code, out = _quiz([_ex("seeds", "s000_example_two.py"), ["a"]], "20\n")
    assert code == 0 and "1 of 1 right" in out


def test_cli_answers_file_and_named_targets(tmp_path):
    f = tmp_path / "answers.txt"
    f.write_text("# my answers\n\nb.grad = [1, 1, 1]\n")
    from gradrepl.teach.cli import quiz_command

    out = io.StringIO()
    code = quiz_command(_ex("graphs", "broadcast.py"), ["b"], answers=str(f), stdout=out)
    assert code == 1 and "without the broadcast sum" in out.getvalue()


def test_cli_missing_answers_show_the_value():
    code, out = _quiz([_ex("quiz", "square_plus.py"), []], "")
    assert code == 1 and "(no answer) x.grad = 7" in out and "0 of 1 right" in out


def test_cli_errors():
    code, _ = _quiz(["no_such.py", []])
    assert code == 2
    code, _ = _quiz([_ex("seeds", "s000_example_two.py"), ["zz"]])
    assert code == 2


def test_cli_through_typer(tmp_path):
    from typer.testing import CliRunner

    from gradrepl.cli import app

    r = CliRunner().invoke(app, ["quiz", _ex("quiz", "two_paths.py")], input="15\n")
    assert r.exit_code == 1, r.output
    assert "you left out the path L -> h -> w" in r.output


# ---------------------------------------------------------------------------- the sheet
def test_sheet_has_blanks_and_an_answer_page(tmp_path):
    from gradrepl.teach.cli import quiz_command

    out = tmp_path / "sheet.html"
    code = quiz_command(_ex("graphs", "broadcast.py"), [], sheet=str(out), stdout=io.StringIO())
    assert code == 0
    html = out.read_text()
    assert html.count('<table class="blank"') == 2          # x (2x3) and b ([3])
    assert "loss.backward()" in html and "print(b.grad)" not in html
    assert 'class="answers"' in html and "page-break-before: always" in html
    assert "summed over the 2 broadcast rows" in html        # the why steps
    code = quiz_command(_ex("graphs", "broadcast.py"), [], sheet=str(tmp_path / "x.txt"),
                        stdout=io.StringIO())
    assert code == 2


def test_sheet_escapes_names(tmp_path):
    p = tmp_path / "evil.py"
    p.write_text("import paddle\n"
                 "x = paddle.to_tensor(2.0, stop_gradient=False)\n"
                 "label = '</pre><script>alert(1)</script>'\n"
                 "y = x * x\n"
                 "y.backward()\n")
    ex = Q.load_exercise(str(p))
    from gradrepl.teach.sheet import render

    html = render([ex])
    assert "<script>" not in html and "&lt;script&gt;" in html


# ---------------------------------------------------------------------------- the shell
def test_shell_quiz_flow():
    from gradrepl.repl.session import Session

    s = Session()
    for src in ["import paddle", "x = paddle.to_tensor(3.0, stop_gradient=False)",
                "y = x * x + x", "y.backward()"]:
        s.run(src)
    assert "gradients to work out: x.grad" in s.run("%quiz").output
    asked = s.run("%quiz x").output
    assert asked.startswith("x.grad = ?") and "answer with %quiz x ANSWER" in asked
    out = s.run("%quiz x 6").output
    assert "you left out the path y -> x" in out and "the steps:" in out
    assert s.run("%quiz x = 2*3 + 1").output.startswith("right: x.grad = 7")
    assert s.run("%quiz x [1,").output.startswith("%quiz: cannot read")
    s.quiz_input = lambda prompt: "7"          # the terminal's answer, read at once
    assert "right: x.grad = 7" in s.run("%quiz x").output
    assert "%quiz [NAME [ANSWER]]" in s.run("%help").output


def test_every_diagnosis_names_a_path_of_why():
    """The path a slip names is one that why's explanation lists (one source of truth)."""
    for path, name, answer in [(_ex("quiz", "square_plus.py"), "x.grad", "6"),
                               (_ex("quiz", "two_paths.py"), "w.grad", "15"),
                               (_ex("quiz", "accumulate.py"), "x.grad", "2")]:
        ex, q = _q(path, name)
        v = Q.mark(q, answer, ex.namespace)
        named = v.text.split("the path ", 1)[1].split(",")[0].split(" (")[0]
        assert named.split(":")[0].strip() in v.steps, (path, v.text)
