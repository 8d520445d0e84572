"""The dtype-promotion matrix of Paddle's binary operators and functions.

Every binary operator (``+ - * / ** // %``, ``==``, ``<``) and four functions (``paddle.add``,
``multiply``, ``divide``, ``pow``) over every pair of operands drawn from: a tensor, a 0-D tensor
(each of bool, int8, int16, int32, int64, uint8, float16, float32, float64) and a python bool,
int, float; left and right. Each entry records the result's dtype, values and shape, or the
exception type.

Run with real Paddle to record: ``python promotion_matrix.py OUT.json`` (``promotion_3.3.1.json.gz``
and ``promotion_2.6.2.json.gz`` here were made so, then gzipped). ``tests/test_promotion.py``
imports ``measure`` and runs it on gradrepl.
"""
import json
import sys
import warnings

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]
SCALARS = {"pybool": True, "pyint": 2, "pyfloat": 2.5}
OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "pow": lambda a, b: a ** b, "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b, "eq": lambda a, b: a == b, "lt": lambda a, b: a < b,
}


def _functions(paddle):
    return {"f_add": paddle.add, "f_mul": paddle.multiply, "f_div": paddle.divide,
            "f_pow": paddle.pow}


def _tensor(paddle, dtype, zero_d):
    if dtype == "bool":
        v = True if zero_d else [True, True]
    elif dtype.startswith("float"):
        v = 2.5 if zero_d else [3.5, 5.0]
    else:
        v = 2 if zero_d else [3, 5]
    return paddle.to_tensor(v, dtype=dtype)


def _run(paddle, f, a, b):
    try:
        r = f(a, b)
    except Exception as e:  # noqa: BLE001 - the exception type is the measurement
        return ["ERR", type(e).__name__]
    if isinstance(r, paddle.Tensor):
        return [str(r.dtype).replace("paddle.", ""), str(r.numpy().tolist()), list(r.shape)]
    return ["PY", repr(r)]


def measure(paddle):
    """{"op|left:kind|right:kind": [dtype, values, shape] or ["ERR", type]}; kinds T, 0, S."""
    operands = [(d, "T") for d in DTYPES] + [(d, "0") for d in DTYPES] + [(s, "S") for s in SCALARS]

    def make(o):
        name, kind = o
        return SCALARS[name] if kind == "S" else _tensor(paddle, name, kind == "0")

    out = {}
    ops = dict(OPS, **_functions(paddle))
    for opname, f in ops.items():
        for left in operands:
            for right in operands:
                if left[1] == "S" and (right[1] == "S" or opname.startswith("f_")):
                    continue
                key = f"{opname}|{left[0]}:{left[1]}|{right[0]}:{right[1]}"
                out[key] = _run(paddle, f, make(left), make(right))
    return out


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    import paddle

    json.dump(measure(paddle), open(sys.argv[1], "w"), indent=0)
