"""Record tests/data/torch_sweep/expected_<MKL path>.txt with real torch (2.13, 2 threads):
``python record.py`` under the real torch's interpreter, on the machine whose MKL path it names
(the softmax/cross-entropy records hold on any AVX512 capability; the linear ones follow MKL)."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import md5_table  # noqa: E402
from torch_sweep import cases as C  # noqa: E402

torch.set_num_threads(2)
out = {}
for spec in C.SOFTMAX64:
    out[spec[0]] = C.run_softmax(torch, *spec)
for spec in C.CROSS_ENTROPY64:
    out[spec[0]] = C.run_cross_entropy(torch, *spec)
for spec in C.CONV_GEMM_LD1024:
    out[spec[0]] = C.run_conv_gemm(torch, *spec)
for spec in C.LAYER_NORM64:
    out[spec[0]] = C.run_layer_norm64(torch, *spec)
for spec in C.GROUP_NORM64:
    out[spec[0]] = C.run_group_norm64(torch, *spec)
for spec in C.SDPA_MATH:
    out[spec[0]] = C.run_sdpa_math(torch, *spec)
for spec in C.BATCH_NORM64:
    out[spec[0]] = C.run_batch_norm64(torch, *spec)
for spec in C.CONV64_GROUPS:
    out[spec[0]] = C.run_conv64_groups(torch, *spec)
for spec in C.CIRCULAR_PAD:
    out[spec[0]] = C.run_circular_pad(torch, *spec)
for spec in C.CONVT64:
    out[spec[0]] = C.run_convT64(torch, *spec)
for spec in C.CE_SMOOTH_WEIGHTED:
    out[spec[0]] = C.run_ce_smooth_weighted(torch, *spec)
for spec in C.LINEAR_STRIDED:
    out[spec[0]] = C.run_linear_strided(torch, *spec)
path = sys.argv[1] if len(sys.argv) > 1 else "AVX512_E1"
n = md5_table.write(out, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      f"expected_{path}.txt"),
                    f"real torch {torch.__version__}, MKL path {path}")
print(n, "arrays")
