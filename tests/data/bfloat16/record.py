"""Record the bfloat16 cases in real Paddle: ``/opt/oracle/p3/bin/python record.py 3.3.1``
(writes expected_3.3.1.json here); the same with /opt/oracle/p26 and 2.6.2."""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(__file__))
import paddle  # noqa: E402

import cases  # noqa: E402

env = cases.setup(paddle)
out = {c: cases.run_case(paddle, c, env) for c in cases.CASES}
with open(os.path.join(os.path.dirname(__file__), f"expected_{sys.argv[1]}.json"), "w") as fh:
    json.dump(out, fh, indent=0, sort_keys=False)
