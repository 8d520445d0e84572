"""``%quiz`` in a Jupyter notebook (issue 30): executed headless with nbclient and ipykernel (the
dev extras; skipped where they are missing). The question shown, the student's answer typed as
``%quiz NAME ANSWER`` (no widget: plain Jupyter and Colab alike), the verdict and the diagnosis
shown, as HTML and as plain text; Paddle and torch; a bad name is one line on stderr and the
notebook goes on. The marking's numbers: y = x * x + x at x = 3 has dy/dx = 3 + 3 + 1 = 7 by
hand; the guide's example two a.grad = c_grad * b = (e_grad * d) * b = 4 * 5 = 20."""
from __future__ import annotations

import os

import pytest

from gradrepl.teach.notebook import quiz_html

pytestmark = pytest.mark.slow   # (a Jupyter kernel per notebook: seconds each)

PADDLE_CELLS = [
    "%load_ext gradrepl",
    "import paddle",
    "x = paddle.to_tensor(3.0, stop_gradient=False)\ny = x * x + x\ny.backward()",
    "%quiz",
    "%quiz x",
    "%quiz x 6",
    "%quiz x = 2*3 + 1",
    "%quiz zz 1",
    "print('still running')",
    "b = paddle.to_tensor([10.0, 20.0, 30.0], stop_gradient=False)\n"
    "w = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)\n"
    "loss = (w * b).sum()\nloss.backward()",
    "%quiz b [1, 2, 3]",
]

TORCH_CELLS = [
    "%load_ext gradrepl",
    "import torch",
    "a = torch.tensor(2.0, requires_grad=True)\nb = torch.tensor(5.0, requires_grad=True)\n"
    "c = a * b\nd = torch.tensor(4.0, requires_grad=True)\ne = c * d\ne.backward()",
    "%quiz a",
    "%quiz a 20",
    "%quiz b 5",
]


def _execute(cells, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        pytest.skip("no python3 Jupyter kernel (pip install ipykernel)")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    env = {k: v for k, v in os.environ.items() if k != "GRADREPL_PADDLE"}
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=240,
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=env)
    return nb.cells


def _plain(cell) -> str:
    out = []
    for o in cell.outputs:
        if o.output_type == "stream":
            out.append(o.text)
        elif "data" in o:
            out.append(o.data.get("text/plain", "") + "\n")
    return "".join(out)


def _html(cell) -> str:
    return "".join(o.data.get("text/html", "") for o in cell.outputs if "data" in o)


def _stderr(cell) -> str:
    return "".join(o.text for o in cell.outputs
                   if o.output_type == "stream" and o.name == "stderr")


@pytest.fixture(scope="module")
def paddle_nb(tmp_path_factory):
    return _execute(PADDLE_CELLS, tmp_path_factory.mktemp("nbq"))


@pytest.fixture(scope="module")
def torch_nb(tmp_path_factory):
    return _execute(TORCH_CELLS, tmp_path_factory.mktemp("nbqt"))


def test_list_and_question(paddle_nb):
    assert _plain(paddle_nb[3]).startswith("gradients to work out: x.grad\n")
    q = _plain(paddle_nb[4])
    assert q.startswith("x.grad = ?   (one number")
    assert "answer in a cell: %quiz x ANSWER" in q
    assert "7" not in q     # the question gives nothing away


def test_wrong_answer_named_slip(paddle_nb):
    text = _plain(paddle_nb[5])
    assert text.startswith("wrong: x.grad = 7, not 6\n")
    assert "you left out the path y -> x, which contributes 1" in text
    assert "3 + 3 + 1 = 7" in text            # the steps
    h = _html(paddle_nb[5])
    assert "&#x2718;" in h and "#c8102e" in h and "<details open>" in h
    assert "you left out the path y -&gt; x" in h


def test_right_answer(paddle_nb):
    text = _plain(paddle_nb[6])
    assert text.startswith("right: x.grad = 7")
    assert "&#x2714;" in _html(paddle_nb[6]) and "#1a7f37" in _html(paddle_nb[6])


def test_bad_name_one_line_and_goes_on(paddle_nb):
    err = _stderr(paddle_nb[7])
    assert err.startswith("%quiz: ") and "zz" in err and err.count("\n") == 1
    assert not any(o.output_type == "error" for o in paddle_nb[7].outputs)
    assert _plain(paddle_nb[8]) == "still running\n"


def test_broadcast_sum_forgotten(paddle_nb):
    text = _plain(paddle_nb[10])
    assert text.startswith("wrong: b.grad = [5, 7, 9], not [1, 2, 3]")
    assert "without the broadcast sum" in text


def test_torch_notebook(torch_nb):
    assert _plain(torch_nb[3]).startswith("a.grad = ?   (one number")
    assert _plain(torch_nb[4]).startswith("right: a.grad = 20")
    wrong = _plain(torch_nb[5])
    assert wrong.startswith("wrong: b.grad = 8")     # c_grad * a = 4 * 2
    assert "the steps" in wrong


def test_html_escapes_and_folds():
    h = quiz_html("wrong: a.grad = 1, not <2>\nthe slip & more\nthe steps:\n    x < y\n")
    assert "not &lt;2&gt;" in h and "the slip &amp; more" in h
    assert "<pre style=\"margin: 4px 0 0 0\">    x &lt; y</pre>" in h
    assert "<details" not in quiz_html("right: a.grad = 20\n")
