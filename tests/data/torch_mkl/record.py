"""Record real torch's math functions over fixed inputs (run with the torch 2.13 oracle):
python record.py > expected.json. The inputs are made by tests/test_torch_mkl_bits.py's INPUTS."""
import hashlib
import json
import sys

import numpy as np
import torch

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else ".")
from inputs import inputs  # noqa: E402

out = {}
for name, x in inputs():
    for dt in ("float32", "float64"):
        y = getattr(torch, name)(torch.from_numpy(x.astype(dt))).numpy()
        out[f"{name}/{dt}"] = hashlib.md5(y.tobytes()).hexdigest()
print(json.dumps(out, indent=1, sort_keys=True))
