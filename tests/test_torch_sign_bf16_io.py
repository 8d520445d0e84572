"""torch's sign of NaN, bfloat16 predicates and bfloat16 save/load (issue 28).

Expected values recorded from real torch 2.13 (CPU) in this session; none depend on the CPU.
"""
import io
import math
import pickle
import zipfile

import pytest

import gradrepl.torch as torch

NAN = float("nan")


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_sign_of_nan_is_zero_as_aten(dt):
    # real torch: tensor([0., 0., 0., 1.]) for every floating dtype (ATen: (0 < x) - (x < 0))
    a = torch.tensor([NAN, -0.0, 0.0, 2.0, -5.0], dtype=getattr(torch, dt))
    assert a.sign().float().tolist() == [0.0, 0.0, 0.0, 1.0, -1.0]
    assert torch.sgn(a).float().tolist() == [0.0, 0.0, 0.0, 1.0, -1.0]
    b = a.clone()
    b.sign_()
    assert b.float().tolist() == [0.0, 0.0, 0.0, 1.0, -1.0]


def test_sign_gradient_and_node_name():
    x = torch.tensor([NAN, -1.5, 2.0], requires_grad=True)
    y = x.sign()
    y.sum().backward()
    assert y.grad_fn.name() == "SignBackward0"
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_bfloat16_predicates_read_values_not_bits():
    # real torch: signbit tensor([False,  True, False, False]); isposinf/isneginf as float32
    a = torch.tensor([NAN, -0.0, 0.0, 2.0], dtype=torch.bfloat16)
    assert a.signbit().tolist() == [False, True, False, False]
    big = torch.tensor([1e38, -1e38, 1.0], dtype=torch.bfloat16) * 100
    assert torch.isposinf(big).tolist() == [True, False, False]
    assert torch.isneginf(big).tolist() == [False, True, False]


def _saved(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def test_bfloat16_save_names_the_storage_and_keeps_two_bytes():
    w = torch.tensor([1.0, -2.5, 3.14159, 1e-3]).bfloat16()
    raw = _saved({"w": w})
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        names = z.namelist()
        data = [n for n in names if "/data/" in n and not n.endswith(".pkl")]
        assert [z.getinfo(n).file_size for n in data] == [8]   # 4 values x 2 bytes
        pkl = z.read([n for n in names if n.endswith("data.pkl")][0])
    assert b"BFloat16Storage" in pkl and b"FloatStorage" not in pkl.replace(b"BFloat16Storage", b"")
    # real torch prints the loaded tensor as
    # tensor([ 1.0000e+00, -2.5000e+00,  3.1406e+00,  9.9945e-04], dtype=torch.bfloat16)
    back = torch.load(io.BytesIO(raw))["w"]
    assert back.dtype == torch.bfloat16
    assert back.float().tolist() == [1.0, -2.5, 3.140625, 0.00099945068359375]
    assert repr(back) == ("tensor([ 1.0000e+00, -2.5000e+00,  3.1406e+00,  9.9945e-04],\n"
                          "       dtype=torch.bfloat16)")
    assert not math.isnan(back.float()[0].item())
    with pytest.raises(pickle.UnpicklingError):
        torch.serialization._storage_dtype("NoSuchStorage")
