"""Run each elementwise op on N float32 values (N // 8 * 8 in 8-wide packets, the rest tail), forward and
gradient with a random upstream gradient; save everything to OUT.npz.  Runs under real paddle or
under gradrepl (same script)."""
import sys, numpy as np
import paddle
import paddle.nn.functional as F
OUT = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1007
ONLY = sys.argv[3:]
rng = np.random.default_rng(11)

D = {
    "real": (rng.standard_normal(N) * 3).astype(np.float32),
    "pos": (np.abs(rng.standard_normal(N)) * 3 + 1e-3).astype(np.float32),
    "unit": ((rng.random(N) * 2 - 1) * 0.999).astype(np.float32),
    "small": (rng.standard_normal(N) * 0.01).astype(np.float32),
    "big": (rng.standard_normal(N) * 40).astype(np.float32),
    "gt1": (np.abs(rng.standard_normal(N)) * 3 + 1.001).astype(np.float32),
    "halves": (np.round(rng.standard_normal(N) * 6) / 2).astype(np.float32),
}
G = (rng.standard_normal(N)).astype(np.float32)
D2 = (rng.standard_normal(N) * 3).astype(np.float32)
P2 = (np.abs(rng.standard_normal(N)) * 2 + 0.1).astype(np.float32)
U = {
    "exp": ("real", paddle.exp), "expm1": ("real", paddle.expm1), "log": ("pos", paddle.log),
    "log1p": ("pos", paddle.log1p), "log2": ("pos", paddle.log2), "log10": ("pos", paddle.log10),
    "sqrt": ("pos", paddle.sqrt), "rsqrt": ("pos", paddle.rsqrt), "square": ("real", paddle.square),
    "sin": ("real", paddle.sin), "cos": ("real", paddle.cos), "tan": ("real", paddle.tan),
    "asin": ("unit", paddle.asin), "acos": ("unit", paddle.acos), "atan": ("real", paddle.atan),
    "sinh": ("real", paddle.sinh), "cosh": ("real", paddle.cosh), "tanh": ("real", paddle.tanh),
    "sigmoid": ("real", F.sigmoid), "psigmoid": ("real", paddle.nn.functional.sigmoid),
    "erf": ("real", paddle.erf), "reciprocal": ("real", paddle.reciprocal),
    "abs": ("real", paddle.abs), "neg": ("real", paddle.neg), "sign": ("real", paddle.sign),
    "floor": ("halves", paddle.floor), "ceil": ("halves", paddle.ceil), "round": ("halves", paddle.round),
    "trunc": ("halves", paddle.trunc),
    "exp_small": ("small", paddle.exp), "expm1_small": ("small", paddle.expm1), "tanh_small": ("small", paddle.tanh),
    "log1p_small": ("small", paddle.log1p), "sigmoid_big": ("big", F.sigmoid), "tanh_big": ("big", paddle.tanh),
    "exp_big": ("big", paddle.exp), "stanh": ("real", paddle.stanh),
    "stanh2": ("real", lambda x: paddle.stanh(x, 0.5, 2.0)),
    "pow2": ("real", lambda x: x ** 2), "pow3": ("real", lambda x: x ** 3), "pow05": ("pos", lambda x: x ** 0.5),
    "pow25": ("pos", lambda x: x ** 2.5), "powm1": ("real", lambda x: x ** -1), "powm2": ("real", lambda x: x ** -2),
    "ppow3": ("real", lambda x: paddle.pow(x, 3)), "ppow17": ("pos", lambda x: paddle.pow(x, 1.7)),
    "rpow2": ("real", lambda x: 2 ** x), "rpow07": ("real", lambda x: 0.7 ** x),
    "add_s": ("real", lambda x: x + 0.3), "radd_s": ("real", lambda x: 0.3 + x), "sub_s": ("real", lambda x: x - 0.3),
    "rsub_s": ("real", lambda x: 0.3 - x), "mul_s": ("real", lambda x: x * 0.3), "rmul_s": ("real", lambda x: 0.3 * x),
    "div_s": ("real", lambda x: x / 0.3), "div_7": ("real", lambda x: x / 7), "rdiv_s": ("real", lambda x: 0.3 / x),
    "rdiv_1": ("real", lambda x: 1 / x), "floordiv_s": ("real", lambda x: x // 0.7), "mod_s": ("real", lambda x: x % 0.7),
    "mod_neg": ("real", lambda x: x % -0.7),
    "scale": ("real", lambda x: paddle.scale(x, 0.3, 1.7)), "scale_b": ("real", lambda x: paddle.scale(x, 0.3, 1.7, bias_after_scale=False)),
    "clip": ("halves", lambda x: paddle.clip(x, -1.0, 1.5)), "clip_min": ("halves", lambda x: paddle.clip(x, min=-1.0)),
    "clip_max": ("halves", lambda x: paddle.clip(x, max=0.5)),
    "relu": ("halves", F.relu),
}
B = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y, "div": lambda x, y: x / y,
    "pow": lambda x, y: x ** y, "floordiv": lambda x, y: x // y, "mod": lambda x, y: x % y,
    "maximum": paddle.maximum, "minimum": paddle.minimum, "fmax": paddle.fmax, "fmin": paddle.fmin,
    "div_bc": lambda x, y: x / y[:1], "div_bc0": lambda x, y: x / y[0], "rdiv_bc": lambda x, y: y[:1] / x,
    "mul_bc": lambda x, y: x * y[:1], "pow_bc": lambda x, y: x ** y[:1],
}
res = {}
def run(name, f, xs):
    if ONLY and name not in ONLY: return
    try:
        ts = [paddle.to_tensor(v, stop_gradient=False) for v in xs]
        y = f(*ts)
        res[name + ":out"] = y.numpy()
        if not y.stop_gradient:
            y.backward(paddle.to_tensor(G[: y.shape[0]] if y.ndim else G[0]))
            for i, t in enumerate(ts):
                if t.grad is not None:
                    res[name + f":g{i}"] = t.grad.numpy()
    except Exception as e:
        res[name + ":err"] = np.array(type(e).__name__ + ": " + str(e)[:200])
for name, (d, f) in U.items():
    run(name, f, [D[d]])
for name, f in B.items():
    xs = [D["real"], P2 if name.startswith("pow") or name.startswith("floordiv") or name.startswith("mod") else D2]
    if name.startswith("pow"):
        xs = [D["pos"], D2 * 0.5]
    run(name, f, xs)
np.savez(OUT, **res)
print(len(res), "arrays")
