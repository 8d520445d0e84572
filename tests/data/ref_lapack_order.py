# tests/test_paddle_ref_lapack.py: Paddle linalg through the reference LAPACK, with or without MKL
# (the torch dialect's) loaded before it ("mkl" as the argument); prints digests of the results.
import sys, numpy as np
if sys.argv[1] == "mkl":
    from gradrepl.engine import mkl
    import gradrepl.torch as torch
    A = torch.randn(5, 5); b = torch.randn(5, 2)
    torch.linalg.solve(A, b); torch.linalg.eigvals(A)
from gradrepl.paddle import _ref_lapack as RL
import gradrepl.paddle as paddle
rng = np.random.default_rng(0)
a = rng.normal(size=(6, 6)).astype("float32")
w = paddle.linalg.eigvals(paddle.to_tensor(a))
lu, piv = paddle.linalg.lu(paddle.to_tensor(a))
print(RL.available(), w.numpy().tobytes().hex()[:40], lu.numpy().tobytes().hex()[-40:])
