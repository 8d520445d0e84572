"""Sums and means over transposed / permuted views read where the values lie, as torch 2.13's
TensorIterator reads them (round 11A, EECS 498 A3 spatial batch norm: ``out.mean(dim=(0, 2, 3))``
of an NHWC tensor viewed as NCHW differed in the last bits; gradrepl summed a C-contiguous copy):
the reduced dims first by rising stride, then the kept ones in the output's order, neighbours
merged where their strides chain. Literals: float.hex of what real torch 2.13 printed in this
session (the 60000-value cases split between 2 threads, as conftest sets and the reference ran).
"""
import pytest

import gradrepl.torch as torch


def _data(n, dtype):
    i = torch.arange(n, dtype=torch.float64)
    return ((i * 0.37) % 1.3 * 7 - 4 + (i * 0.011) % 0.5 * 3).to(dtype)


def _h(t):
    return [float(v).hex() for v in t.reshape(-1).tolist()[:6]]


def _views(dt):
    return {"x": _data(120, dt).reshape(2, 4, 5, 3).permute(0, 3, 1, 2),
            "y": _data(1200, dt).reshape(40, 30).t(),
            "z": _data(33 * 8 * 4, dt).reshape(33, 8, 4).permute(1, 2, 0),
            "w": _data(60000, dt).reshape(300, 200).t()}


WANT = {    "float64": {
        "x.sum(dim=(0, 2, 3))": [
            '0x1.8dc28f5c28f2ep+5', '0x1.9c51eb851eb5ep+5', '0x1.7a147ae147abep+5',
        ],
        "x.mean(dim=(0, 2, 3))": [
            '0x1.3e353f7ced8f2p+0', '0x1.49db22d0e55e5p+0', '0x1.2e76c8b439565p+0',
        ],
        "y.sum(0)": [
            '0x1.31a3d70a3d703p+5', '0x1.8270a3d70a3c2p+5', '0x1.29a3d70a3d6e7p+5',
            '0x1.8ce147ae1473dp+4', '0x1.600a3d70a3d2cp+5', '0x1.d5a3d70a3d6c1p+5',
        ],
        "y.sum(1)": [
            '0x1.60ccccccccb66p+5', '0x1.c428f5c28f3fbp+5', '0x1.95eb851eb83bap+5',
            '0x1.67ae147ae12a9p+5', '0x1.cb0a3d70a3bb2p+5', '0x1.9cccccccccb7ep+5',
        ],
        "z.sum(0)": [
            '0x1.be76c8b439568p+2', '0x1.053f7ced91666p+3', '0x1.f6872b020c470p+2',
            '0x1.228f5c28f5ba5p+2', '0x1.aa7ef9db22cbbp+3', '0x1.a083126e9788dp+3',
        ],
        "w.sum(0)": [
            '0x1.0b7ffffffffd5p+8', '0x1.f166666666564p+7', '0x1.16999999998c4p+8',
            '0x1.e99999999973cp+7', '0x1.189999999980cp+8', '0x1.03199999997ccp+8',
        ],
        "w.mean(1)": [
            '0x1.7fa89e60ed53cp+0', '0x1.50e5604181984p+0', '0x1.25f92c5f8ce14p+0',
            '0x1.f619f0fb378efp-1', '0x1.7af72015d2b87p+0', '0x1.500aec33dd5a9p+0',
        ],
    },
    "float32": {
        "x.sum(dim=(0, 2, 3))": [
            '0x1.8dc2920000000p+5', '0x1.9c51ec0000000p+5', '0x1.7a147c0000000p+5',
        ],
        "x.mean(dim=(0, 2, 3))": [
            '0x1.3e35420000000p+0', '0x1.49db240000000p+0', '0x1.2e76ca0000000p+0',
        ],
        "y.sum(0)": [
            '0x1.31a3d80000000p+5', '0x1.8270a40000000p+5', '0x1.29a3d60000000p+5',
            '0x1.8ce1460000000p+4', '0x1.600a3e0000000p+5', '0x1.d5a3d80000000p+5',
        ],
        "y.sum(1)": [
            '0x1.60cccc0000000p+5', '0x1.c428f60000000p+5', '0x1.95eb840000000p+5',
            '0x1.67ae140000000p+5', '0x1.cb0a3e0000000p+5', '0x1.9ccccc0000000p+5',
        ],
        "z.sum(0)": [
            '0x1.be76c80000000p+2', '0x1.053f7e0000000p+3', '0x1.f6872c0000000p+2',
            '0x1.228f5c0000000p+2', '0x1.aa7ef80000000p+3', '0x1.a083140000000p+3',
        ],
        "w.sum(0)": [
            '0x1.0b80020000000p+8', '0x1.f166660000000p+7', '0x1.16999a0000000p+8',
            '0x1.e9999a0000000p+7', '0x1.1899980000000p+8', '0x1.03199a0000000p+8',
        ],
        "w.mean(1)": [
            '0x1.7fa89e0000000p+0', '0x1.50e55c0000000p+0', '0x1.25f92a0000000p+0',
            '0x1.f619ee0000000p-1', '0x1.7af71e0000000p+0', '0x1.500aec0000000p+0',
        ],
    },
}


@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_reductions_of_strided_views_as_torch(dt):
    env = _views(getattr(torch, dt))
    for expr, want in WANT[dt].items():
        assert _h(eval(expr, {}, env)) == want, expr


# x.norm / F.normalize over a view: torch's is_reduce_lastdim path when the reduced dims form the
# innermost contiguous run in memory (a transposed matrix's dim 0), else each output's values one
# by one in memory order (gradrepl decided on a C-contiguous copy). Real torch 2.13 literals.
NORM_WANT = {
    "float64": [
        ['0x1.52952669d49b0p+4', '0x1.4e39623432916p+4', '0x1.5c72a513f3b80p+4',
         '0x1.41927077f4cfap+4'],
        ['0x1.59e7ae7bab373p+4', '0x1.41943852233c4p+4', '0x1.409807f39f62cp+4',
         '0x1.53fedb94c1589p+4'],
        ['-0x1.7aecc27b93030p-3', '0x1.acc88fb20d99ep-4', '-0x1.6cafb7bf48cfep-5',
         '0x1.f6521d1f39c62p-3']],
    "float32": [
        ['0x1.5295260000000p+4', '0x1.4e39620000000p+4', '0x1.5c72a60000000p+4',
         '0x1.41926e0000000p+4'],
        ['0x1.59e7ae0000000p+4', '0x1.4194380000000p+4', '0x1.4098080000000p+4',
         '0x1.53fedc0000000p+4'],
        ['-0x1.7aecc40000000p-3', '0x1.acc8920000000p-4', '-0x1.6cafb80000000p-5',
         '0x1.f6521c0000000p-3']],
}


@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_norm_of_strided_views_as_torch(dt):
    import gradrepl.torch.nn.functional as F

    d = getattr(torch, dt)
    x = _data(6 * 50 * 9, d).reshape(6, 50, 9).permute(2, 0, 1)
    y = _data(64 * 48, d).reshape(64, 48).t()
    got = [_h(x.norm(dim=2))[:4], _h(y.norm(dim=0))[:4], _h(F.normalize(y, dim=0)[0])[:4]]
    assert got == NORM_WANT[dt]
