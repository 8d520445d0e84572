import paddle
def T(label, f):
    try:
        r = f(); print(label, r.numpy().tolist() if hasattr(r, 'numpy') else r)
    except Exception as e:
        print(label, "EXC", type(e).__name__)
T("cumprod none", lambda: paddle.cumprod(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])))
for d in ([3.0, float('nan'), 1.0], [float('nan'), 3.0, 1.0], [1.0, 3.0, float('nan')], [1.0, 5.0, float('nan'), 2.0, 3.0, 0.5, 4.0, 6.0, float('nan'), 7.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 0.0]):
    for fn in ['max', 'min', 'amax', 'amin']:
        T(f"{fn} {d}", lambda: getattr(paddle, fn)(paddle.to_tensor(d)))
    T(f"max ax {d}", lambda: paddle.max(paddle.to_tensor([d, d]), axis=1))
    T(f"argmax {d}", lambda: paddle.argmax(paddle.to_tensor(d)))
    T(f"argmin {d}", lambda: paddle.argmin(paddle.to_tensor(d)))
    T(f"lse {d}", lambda: paddle.logsumexp(paddle.to_tensor(d)))
    T(f"norm inf {d}", lambda: paddle.linalg.norm(paddle.to_tensor(d), p=float('inf')))
