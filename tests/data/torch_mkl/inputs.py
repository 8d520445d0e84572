"""The inputs of tests/test_torch_mkl_bits.py: 20,000 values per function over its domain,
with edge values (0, -0, tiny, huge, inf, nan) at the front."""
import numpy as np

DOMAINS = {"exp": (-90, 90), "log": (1e-30, 1e30), "log2": (1e-6, 1e6), "log10": (1e-6, 1e6),
           "tanh": (-12, 12), "sin": (-1e4, 1e4), "cos": (-1e4, 1e4), "tan": (-1.57, 1.57),
           "asin": (-1, 1), "acos": (-1, 1), "atan": (-1e3, 1e3), "erf": (-6, 6)}
EDGES = [0.0, -0.0, 1e-40, -1e-40, 1e-7, 1.0, -1.0, float("inf"), float("-inf"), float("nan")]


def inputs():
    rs = np.random.RandomState(2026)
    for name, (a, b) in DOMAINS.items():
        yield name, np.concatenate([np.array(EDGES), rs.uniform(a, b, 20000)])
