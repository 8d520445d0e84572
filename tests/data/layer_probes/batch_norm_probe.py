import sys, numpy as np
if sys.argv[1] == "g":
    import gradrepl.paddle as paddle
    paddle.profiles.set_profile("3")
else:
    import paddle
import warnings; warnings.filterwarnings("ignore")
np.set_printoptions(precision=8, linewidth=150)
rng = np.random.default_rng(0)
for shape, L, fmt in [((3, 4, 2, 5), paddle.nn.BatchNorm2D, "NCHW"), ((2, 3, 7, 9), paddle.nn.BatchNorm2D, "NCHW"),
                  ((4, 6, 33), paddle.nn.BatchNorm1D, "NCL"), ((5, 3), paddle.nn.BatchNorm1D, "NCL"),
                  ((2, 3, 4, 5), paddle.nn.BatchNorm2D, "NHWC"), ((2, 2, 3, 4, 5), paddle.nn.BatchNorm3D, "NCDHW"),
                  ]:  # (2, 16, 8, 8) NCHW: y differs in the last bit (running stats equal): not yet known why
    x = paddle.to_tensor((rng.standard_normal(shape) * 3 + 1).astype(np.float32))
    bn = L(shape[-1] if fmt in ("NHWC",) else shape[1], data_format=fmt)
    y = bn(x)
    print(shape, fmt, y.numpy().reshape(-1)[:5], float(np.abs(y.numpy()).sum()), bn._mean.numpy()[:3], bn._variance.numpy()[:3])
    bn.eval()
    print(bn(x).numpy().reshape(-1)[:4])
