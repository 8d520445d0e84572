"""Run with REAL torch 2.13 (never gradrepl) on an AVX-512 machine with 2 cores:
    /path/to/real/python tests/data/torch_conv_strided_grads/record.py
prints the EXPECTED table for tests/test_torch_conv_strided_grads.py (each case with its own
thread count: torch.set_num_threads)."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import cases  # noqa: E402

print(f"# torch {torch.__version__}")
print("EXPECTED = {")
for i, spec in enumerate(cases.CASES):
    torch.set_num_threads(spec[-1])
    print(f"    {spec[0]!r}: {cases.run(torch, i, spec)!r},")
print("}")
