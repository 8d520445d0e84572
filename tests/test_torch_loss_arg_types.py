"""F.cross_entropy / F.nll_loss check ignore_index and label_smoothing as torch 2.13's argument
parser does (round 11A: an EECS 498 captioning loss passed ignore_index=None; gradrepl raised
int()'s TypeError, or ran with a float/bool/str index). Messages printed by real torch 2.13."""
import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F

X = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
Y = torch.tensor([0, 2])


@pytest.mark.parametrize("value, name", [(None, "NoneType"), (2.0, "float"), (True, "bool"),
                                         ("1", "str"), (torch.tensor(1.0), "Tensor"),
                                         (np.float64(2.0), "numpy.float64")])
def test_ignore_index_must_be_int(value, name):
    with pytest.raises(TypeError) as e:
        F.cross_entropy(X, Y, ignore_index=value)
    assert str(e.value) == ("cross_entropy_loss(): argument 'ignore_index' (position 5) must be "
                            f"int, not {name}")
    with pytest.raises(TypeError) as e:
        F.nll_loss(X, Y, ignore_index=value)
    assert str(e.value) == ("nll_loss_nd(): argument 'ignore_index' (position 5) must be int, "
                            f"not {name}")


def test_integer_like_ignore_index_is_taken():
    want = F.cross_entropy(X, Y, ignore_index=2).item()
    assert F.cross_entropy(X, Y, ignore_index=np.int64(2)).item() == want
    assert F.cross_entropy(X, Y, ignore_index=torch.tensor(2)).item() == want
    want = F.nll_loss(X, Y, ignore_index=2).item()
    assert F.nll_loss(X, Y, ignore_index=torch.tensor(2)).item() == want


@pytest.mark.parametrize("value, name", [(None, "NoneType"), ("0.1", "str")])
def test_label_smoothing_must_be_float(value, name):
    with pytest.raises(TypeError) as e:
        F.cross_entropy(X, Y, label_smoothing=value)
    assert str(e.value) == ("cross_entropy_loss(): argument 'label_smoothing' (position 6) must "
                            f"be float, not {name}")
    want = F.cross_entropy(X, Y, label_smoothing=1.0).item()
    assert F.cross_entropy(X, Y, label_smoothing=1).item() == want
