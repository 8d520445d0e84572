"""Record expected.txt from real torch: /opt/oracle/tv/bin/python tests/data/torch_softmax/record.py"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import md5_table  # noqa: E402
from cases import all_cases  # noqa: E402

res = all_cases(torch)
n = md5_table.write(res, os.path.join(HERE, "expected.txt"),
                    f"torch {torch.__version__}, {torch.get_num_threads()} threads")
print(len(res), "cases,", n, "arrays recorded")
