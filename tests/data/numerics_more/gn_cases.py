"""The group_norm cases of tests/test_numerics_more.py (numpy only, so the same file drives the
recording with real Paddle: ``python gn_cases.py 3.3.1 > group_norm_3.3.1.json`` in a venv
with paddlepaddle, which calls ``record``)."""
import hashlib
import json
import sys

import numpy as np

SHAPES = [((2, 6, 3, 4), 1), ((2, 6, 3, 4), 2), ((2, 6, 3, 4), 3), ((2, 6, 3, 4), 6),
          ((3, 4, 5), 2), ((1, 8, 17), 4), ((2, 4, 9, 9), 2)]
CONSTANTS = [(0.5, "none"), (0.5, "wb"), (1.3, "none"), (1.3, "wb"), (-2.7, "w"), (0.1, "b")]


def cases():
    """(key, x, dy, weight or None, bias or None, groups, layout) per case, channels first or
    last as the layout says."""
    rs = np.random.RandomState(0)
    out = []
    for dt in ("float32", "float64"):
        for shape, groups in SHAPES:
            for last in (False, True):
                for wb in ("none", "w", "b", "wb"):
                    xs = rs.randn(*shape) * 3 + 1
                    gs = rs.randn(*shape)
                    if last:
                        xs, gs = np.moveaxis(xs, 1, -1).copy(), np.moveaxis(gs, 1, -1).copy()
                    ws, bs = rs.randn(shape[1]), rs.randn(shape[1])
                    key = f"{dt}-{'x'.join(map(str, shape))}-g{groups}-{'last' if last else 'first'}-{wb}"
                    out.append((key, xs.astype(dt), gs.astype(dt),
                                ws.astype(dt) if "w" in wb else None,
                                bs.astype(dt) if "b" in wb else None, groups, last))
    for val, wb in CONSTANTS:
        for dt in ("float32", "float64"):
            x = np.full((2, 4, 3, 3), val, dt)
            out.append((f"const{val}-{wb}-{dt}", x, np.ones_like(x),
                        np.array([0.5, -1.5, 2.0, 0.3], dt) if "w" in wb else None,
                        np.array([0.1, 0.2, -0.3, 0.4], dt) if "b" in wb else None, 2, False))
    return out


def digest(a):
    a = np.ascontiguousarray(a)
    return hashlib.sha256(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes()).hexdigest()[:20]


def record():
    import paddle

    res = {}
    for key, xs, gs, ws, bs, groups, last in cases():
        x = paddle.to_tensor(xs, stop_gradient=False)
        w = paddle.to_tensor(ws, stop_gradient=False) if ws is not None else None
        b = paddle.to_tensor(bs, stop_gradient=False) if bs is not None else None
        y = paddle._C_ops.group_norm(x, w, b, 1e-5, groups, "NHWC" if last else "NCHW")
        (y * paddle.to_tensor(gs)).sum().backward()
        res[key] = {"y": digest(y.numpy()), "dx": digest(x.grad.numpy())}
        if w is not None:
            res[key]["dw"] = digest(w.grad.numpy())
        if b is not None:
            res[key]["db"] = digest(b.grad.numpy())
        if key.startswith("const"):
            res[key]["dx0"] = repr(float(x.grad.numpy().ravel()[0]))
    json.dump({"paddle": paddle.__version__, "cases": res}, sys.stdout, indent=0, sort_keys=True)


if __name__ == "__main__":
    record()
