"""Run with REAL torch 2.13 (never gradrepl) on an AVX-512 machine with 2 threads:
    /path/to/real/python tests/data/torch_convtranspose/record.py
prints the EXPECTED table for tests/test_torch_convtranspose_bits.py."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import cases  # noqa: E402

print(f"# torch {torch.__version__}, threads {torch.get_num_threads()}")
print("EXPECTED = {")
for i, spec in enumerate(cases.CASES):
    print(f"    {spec[0]!r}: {cases.run(torch, i, spec)!r},")
print("}")
