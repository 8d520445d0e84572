"""Record real torch's matrix products over cases.py's cases (run with the torch 2.13 oracle):
python record.py > expected.json (md5 of each result's bytes); ``--npz FILE`` also saves the
arrays (for counting differing values while developing)."""
import hashlib
import json
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from cases import CASES, run  # noqa: E402

out, arrays = {}, {}
for name in CASES:
    for i, y in enumerate(run(torch, name)):
        out[f"{name}/{i}"] = hashlib.md5(np.ascontiguousarray(y).tobytes()).hexdigest()
        arrays[f"{name}/{i}"] = y
if "--npz" in sys.argv:
    np.savez(sys.argv[sys.argv.index("--npz") + 1], **arrays)
print(json.dumps(out, indent=1, sort_keys=True))
