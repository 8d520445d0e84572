"""torch sums, broadcast gradients and dots for tests/test_numerics_more.py, written against
torch's API so the same code runs in real torch (``python torch_cases.py > torch_2.13.json``
records) and in gradrepl's torch dialect (``results(torch)``)."""
import hashlib
import itertools
import json
import sys

import numpy as np

SUM_SHAPES = [(5,), (9,), (17,), (2000,), (3, 50), (50, 3), (7, 33), (33, 7), (16, 100), (4, 9, 9),
              (2, 4, 5, 5), (6, 7, 9), (3, 1, 20), (10, 12, 3), (2, 3, 4, 5), (8, 1, 16),
              (40, 17, 5), (3, 300, 2), (64, 64)]
BROADCAST = [((3,), (700, 3)), ((5, 1), (5, 300)), ((1, 4, 1, 1), (2, 4, 5, 5)), ((300,), (2, 300)),
             ((), (5000,)), ((), (123,)), ((17,), (40, 17)), ((1, 17), (40, 17)),
             ((40, 1), (40, 17)), ((1, 1, 9), (6, 7, 9)), ((6, 1, 1), (6, 7, 9)),
             ((1, 7, 1), (6, 7, 9)), ((1,), (3000,))]
DOT_SIZES = list(range(1, 70)) + [100, 127, 128, 129, 200, 333, 511, 1000, 2000, 4095, 4096, 5000,
                                  8191]


def digest(a):
    a = np.ascontiguousarray(a)
    return hashlib.sha256(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes()).hexdigest()[:20]


def results(torch):
    rs = np.random.RandomState(3)
    res = {}
    for shape in SUM_SHAPES:
        t = torch.tensor((rs.randn(*shape) * 10).astype(np.float32))
        nd = len(shape)
        for r in range(1, nd + 1):
            for axes in itertools.combinations(range(nd), r):
                res[f"sum{shape}{axes}"] = digest(t.sum(dim=axes).numpy())
        t = torch.tensor(rs.randn(*shape) * 10)
        for axes in [tuple(range(nd)), (0,), (nd - 1,)]:
            res[f"sum64{shape}{axes}"] = digest(t.sum(dim=axes).numpy())
    for ws, xs in BROADCAST:
        w = torch.tensor(np.asarray(rs.randn(*ws), np.float32), requires_grad=True)
        x = torch.tensor((rs.randn(*xs) * 10).astype(np.float32))
        (w * x).backward(torch.tensor((rs.randn(*xs) * 10).astype(np.float32)))
        res[f"bgrad{ws}{xs}"] = [repr(v) for v in w.grad.reshape(-1).tolist()[:3]]
    for dt in (np.float32, np.float64):
        for n in DOT_SIZES:
            if n * np.dtype(dt).itemsize >= 32768:   # MKL's two threads: not modelled exactly
                continue
            a, b = torch.tensor(rs.randn(n).astype(dt)), torch.tensor(rs.randn(n).astype(dt))
            res[f"dot{np.dtype(dt).name}-{n}"] = repr(torch.dot(a, b).item())
    return res


if __name__ == "__main__":
    import torch

    json.dump({"torch": torch.__version__, "results": results(torch)}, sys.stdout, indent=0,
              sort_keys=True)
