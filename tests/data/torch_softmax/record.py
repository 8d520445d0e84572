"""Record expected.txt from real torch: /opt/oracle/tv/bin/python tests/data/torch_softmax/record.py"""
import hashlib
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import all_cases  # noqa: E402

res = all_cases(torch)
lines = [f"# torch {torch.__version__}, {torch.get_num_threads()} threads: case label dtype shape md5"]
for name, outs in res.items():
    for k, v in outs.items():
        shape = "x".join(map(str, v.shape)) or "()"
        lines.append(f"{name} {k} {v.dtype} {shape} {hashlib.md5(v.tobytes()).hexdigest()}")
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.txt")
with open(path, "w") as f:
    f.write("\n".join(lines) + "\n")
print(len(res), "cases,", len(lines) - 1, "arrays recorded")
