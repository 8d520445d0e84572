"""Record what real Paddle prints for the random cases of tests/test_paddle_random.py.

Run with an oracle interpreter (not part of the test suite):
    /opt/oracle/p3/bin/python tests/data/paddle_random/record.py 3
    /opt/oracle/p26/bin/python tests/data/paddle_random/record.py 2.6
Each case runs ``paddle.seed(seed)`` and then its code; the result (a tensor, a number, a list
of them, or the error) is stored as exact values: float.hex of every element of small tensors,
the sha1 of the bytes (and the first values) of large ones, and repr() text where asked.
"""
import hashlib
import json
import pathlib
import sys

import numpy as np

CASES = {
    # name: (seed, code)  -- code is an expression over ``paddle``, ``F`` and ``I``
    "rand_7_s0": (0, "paddle.rand([7])"),
    "rand_7_s1": (1, "paddle.rand([7])"),
    "rand_7_big_seed": (123456789012, "paddle.rand([7])"),
    "rand_f64_2x3": (5, "paddle.rand([2, 3], dtype='float64')"),
    "rand_repr": (0, "repr(paddle.rand([3]))"),
    "randn_repr": (0, "repr(paddle.randn([3]))"),
    "randn_sequence": (7, "[paddle.randn([5]), paddle.randn([4]), paddle.randn([1]), "
                          "paddle.randn([2, 3])]"),
    "randn_f64_sequence": (3, "[paddle.randn([3], dtype='float64'), "
                              "paddle.randn([4], dtype='float64')]"),
    "randn_100001": (11, "paddle.randn([100001])"),
    "rand_70001_f64": (12, "paddle.rand([70001], dtype='float64')"),
    "standard_normal": (5, "paddle.standard_normal([2, 5])"),
    "uniform_f32": (2, "paddle.uniform([9], min=-0.3, max=0.7)"),
    "uniform_f64": (2, "paddle.uniform([9], dtype='float64', min=0.1, max=0.7)"),
    "uniform_defaults": (2, "paddle.uniform([6])"),
    "uniform_own_seed": (2, "[paddle.uniform([4], seed=99), paddle.rand([2])]"),
    "normal_floats": (4, "paddle.normal(2.5, 0.3, [7])"),
    "normal_tensor_mean": (4, "paddle.normal(paddle.to_tensor([1.0, 2.0, 3.0]), 0.5)"),
    "randint_small": (6, "[paddle.randint(-5, 1000, [10]), "
                         "paddle.randint(0, 7, [9], dtype='int32')]"),
    "randint_high_only": (6, "paddle.randint(10, shape=[6])"),
    "randint_large_span": (6, "paddle.randint(0, 10**9 + 7, [300])"),
    "randint_beyond_int32": (6, "paddle.randint(-2**40, 2**40, [5])"),
    "randperm_10": (3, "paddle.randperm(10)"),
    "randperm_11_int32": (3, "paddle.randperm(11, dtype='int32')"),
    "randperm_1000": (3, "paddle.randperm(1000)"),
    "dropout": (9, "F.dropout(paddle.ones([20]), 0.3)"),
    "dropout_f64_downscale": (9, "F.dropout(paddle.ones([9], dtype='float64'), 0.5, "
                                 "mode='downscale_in_infer')"),
    "dropout_axis": (9, "F.dropout(paddle.ones([4, 5]), 0.5, axis=0)"),
    "dropout2d": (9, "F.dropout2d(paddle.ones([2, 3, 2, 2]), 0.5)"),
    "alpha_dropout": (9, "F.alpha_dropout(paddle.ones([10]), 0.5)"),
    "dropout_layer": (9, "paddle.nn.Dropout(0.25)(paddle.arange(12, dtype='float32'))"),
    "rrelu": (0, "[F.rrelu(paddle.to_tensor([-1.0, 2.0, -3.0, 0.0, -4.0, 5.0]), training=True), "
                 "paddle.rand([2])]"),
    "rrelu_f64": (0, "F.rrelu(paddle.to_tensor([-1.0, 2.0, -3.0], dtype='float64'), "
                     "training=True)"),
    "linear_3_2": (0, "[paddle.nn.Linear(3, 2).weight, paddle.nn.Linear(3, 2).bias]"),
    "linear_repr": (0, "repr(paddle.nn.Linear(3, 2).weight)"),
    "linear_100_50": (1, "[paddle.nn.Linear(100, 50).weight, paddle.nn.Linear(50, 3).weight]"),
    "conv2d": (4, "[paddle.nn.Conv2D(3, 4, 3).weight, paddle.nn.Conv2D(2, 2, 1).bias]"),
    "xavier_normal": (2, "param([30, 20], I.XavierNormal())"),
    "xavier_uniform_f64": (2, "param([30, 20], I.XavierUniform(), 'float64')"),
    "kaiming_normal": (2, "param([3, 4, 5, 5], I.KaimingNormal())"),
    "kaiming_uniform": (2, "param([30, 20], I.KaimingUniform())"),
    "normal_init_f64": (2, "param([101], I.Normal(0.5, 2.0), 'float64')"),
    "uniform_init": (2, "[param([5], I.Uniform(-0.3, 0.9)), paddle.rand([2])]"),
    "uniform_init_seed_kw": (2, "I.Uniform(-0.3, 0.9, seed=5)"),
    "uniform_initializer_own_seed": (2, "[param([5], I.UniformInitializer(-0.3, 0.9, seed=5)), "
                                        "paddle.rand([2])]"),
    "normal_initializer_own_seed": (2, "[param([5], I.NormalInitializer(0.5, 2.0, seed=5)), "
                                       "paddle.rand([2])]"),
    "truncated_normal": (2, "param([1001], I.TruncatedNormal())"),
    "truncated_normal_mean_std": (2, "param([1001], I.TruncatedNormal(0.5, 2.0))"),
    "truncated_normal_f64": (2, "param([501], I.TruncatedNormal(0.5, 2.0), 'float64')"),
    "generator": (3, "[GEN.random(), GEN.random(), GEN.initial_seed(), paddle.rand([2])]"),
    "generator_state": (3, "state_roundtrip()"),
    "rng_state": (3, "rng_state_roundtrip()"),
    "state_text": (3, "state_text()"),
    "bernoulli": (4, "[paddle.bernoulli(paddle.to_tensor([0.1, 0.5, 0.9, 0.3, 0.7])), "
                     "paddle.bernoulli(paddle.full([6], 0.4, dtype='float64'))]"),
    "bernoulli_p": (0, "[paddle.bernoulli(paddle.zeros([4]), p=0.6), "
                    "paddle.bernoulli(paddle.full([4], 0.9), p=0.2)]"),
    "randint_like": (4, "[paddle.randint_like(paddle.zeros([2, 3]), 0, 10), "
                        "paddle.randint_like(paddle.zeros([4], dtype='int32'), 5)]"),
    "uniform_inplace": (4, "[paddle.zeros([5]).uniform_(), paddle.zeros([3], dtype='float64')"
                           ".uniform_(min=-2.0, max=3.0)]"),
    "normal_inplace": (4, "[paddle.zeros([5]).normal_(), "
                          "paddle.normal_(paddle.zeros([3]), 1.0, 2.0)]"),
    "rand_f16": (1, "paddle.rand([3], dtype='float16')"),
    "randn_f16": (1, "paddle.randn([3], dtype='float16')"),
    "rand_int32_error": (1, "paddle.rand([3], dtype='int32')"),
}


def encode(v):
    """A JSON form of a result that keeps every bit."""
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    if isinstance(v, str):
        return {"text": v}
    if isinstance(v, (bool, int)):
        return {"int": int(v)}
    if isinstance(v, float):
        return {"float": float(v).hex()}
    a = np.ascontiguousarray(v.numpy())
    out = {"dtype": str(a.dtype), "shape": list(a.shape)}
    flat = a.reshape(-1)
    if flat.size <= 64:
        out["values"] = [float(x).hex() if a.dtype.kind == "f" else int(x) for x in flat]
    else:
        out["sha1"] = hashlib.sha1(a.tobytes()).hexdigest()
        out["head"] = [float(x).hex() if a.dtype.kind == "f" else int(x) for x in flat[:4]]
    return out


def run_case(paddle, seed, code):
    F = paddle.nn.functional  # noqa: N806
    I = paddle.nn.initializer  # noqa: N806

    def param(shape, init, dtype="float32"):
        return paddle.create_parameter(shape, dtype, default_initializer=init)

    def state_roundtrip():
        gen = paddle.seed(seed)
        st = gen.get_state()
        a = paddle.randn([3])
        gen.set_state(st)
        return [a, paddle.randn([3]), st.current_seed()]

    def rng_state_roundtrip():
        st = paddle.get_rng_state()
        a = paddle.rand([3])
        paddle.set_rng_state(st)
        return [a, paddle.rand([3]), len(st)]

    def state_text():
        paddle.rand([5])
        words = str(paddle.get_rng_state()[0]).split()
        return " ".join("ADDR" if w.startswith("0x") else w for w in words)

    GEN = paddle.seed(seed)  # noqa: N806
    try:
        return encode(eval(code))
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}


if __name__ == "__main__":
    import paddle

    profile = sys.argv[1]
    results = {name: {"seed": seed, "code": code, "result": run_case(paddle, seed, code)}
               for name, (seed, code) in CASES.items()}
    out = pathlib.Path(__file__).with_name(f"paddle_{profile}.json")
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(out, len(results))
