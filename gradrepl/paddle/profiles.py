"""The profile table: every behaviour that differs between the emulated Paddle versions.

One row per profile, one field per behaviour; nothing else in gradrepl branches on a version
string. Selected by ``--paddle``, ``GRADREPL_PADDLE``, or ``# gradrepl: paddle=3`` in a script.
Facts measured on real Paddle 2.6.2 and 3.3.1 (``shared/conformance``); 2.2 is the seeds' Paddle.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Profile:
    key: str                      # "2.2" | "2.6" | "3"
    version: str                  # paddle.__version__
    place: str                    # the place as printed in a tensor's repr
    zero_d: bool                  # python scalars / full reductions give 0-D tensors (else [1])
    format_0d_as_scalar: bool     # '{}'.format(0-D) formats the python scalar (3.x)
    retain_nonleaf_grads: bool    # non-leaf .grad kept after backward without retain_grads()
    freed_graph_error: str        # "legacy" (RuntimeError, 2.2) | "eager" (SystemError)
    grad_frees_graph: bool        # paddle.grad without retain_graph frees the graph
    node_names: str               # "legacy" (MulBackward) | "eager" (MultiplyGradNode)
    shape_is_size: bool           # print(x.shape) -> paddle.Size([2, 3])
    dtype_enum: str               # "VarType" (<VarType.FP32: 5>) | "DataType" (<DataType.FLOAT32: 10>)
    promotion: str                # "left" (2.x: the left operand's dtype) | "strict" (3.x: TypeError)
    minmax_ties: str              # "all" (each tied element gets the gradient) | "split" (evenly)
    scalar_div: str               # "reciprocal" (x * (1/c), 2.x scale op) | "divide"
    topk_namedtuple: bool         # topk returns TopKRetType
    gradient_numpy: bool          # Tensor.gradient() returns numpy (all versions so far)
    complex_fixed: bool           # complex items print with the float precision (3.x) or as python's
    error_wording: str            # whose kernel error texts: "2.6" | "3" (matmul shape errors)


P26 = Profile(
    key="2.6", version="2.6.2", place="Place(cpu)", zero_d=True, format_0d_as_scalar=False,
    retain_nonleaf_grads=False, freed_graph_error="eager", grad_frees_graph=False,
    node_names="eager", shape_is_size=False, dtype_enum="VarType", promotion="left",
    minmax_ties="all", scalar_div="reciprocal", topk_namedtuple=False, gradient_numpy=True,
    complex_fixed=False, error_wording="2.6",
)
P22 = replace(P26, key="2.2", version="2.2.1", place="CPUPlace", zero_d=False,
              retain_nonleaf_grads=True, freed_graph_error="legacy", node_names="legacy")
P3 = replace(P26, key="3", version="3.3.1", format_0d_as_scalar=True, shape_is_size=True,
             dtype_enum="DataType", promotion="strict", minmax_ties="split",
             scalar_div="divide", topk_namedtuple=True, error_wording="3", complex_fixed=True)

PROFILES = {"2.2": P22, "2.6": P26, "3": P3}
ALIASES = {"2.2.1": "2.2", "2": "2.6", "2.6.2": "2.6", "3.3.1": "3", "3.3": "3", "3.0": "3"}
DEFAULT = "2.2"


def resolve(key: str) -> Profile:
    k = ALIASES.get(str(key).strip(), str(key).strip())
    if k not in PROFILES:
        raise ValueError(f"unknown Paddle profile {key!r}; choose one of {', '.join(PROFILES)}")
    return PROFILES[k]


class _Current:
    __slots__ = ("profile",)

    def __init__(self):
        self.profile = resolve(os.environ.get("GRADREPL_PADDLE", DEFAULT))


CURRENT = _Current()


def current() -> Profile:
    return CURRENT.profile


def set_profile(key) -> Profile:
    CURRENT.profile = key if isinstance(key, Profile) else resolve(key)
    return CURRENT.profile
