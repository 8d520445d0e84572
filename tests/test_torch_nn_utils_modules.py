"""torch.nn.utils' submodules a lecture imports from (``from torch.nn.utils.clip_grad import
clip_grad_norm_``; convert_parameters, fusion, memory_format), holding the package's functions
(tools/torch_api_gaps.py listed them missing). Values from real torch 2.13 (/work/vtorch)."""
from __future__ import annotations

import gradrepl.torch as torch


def test_submodules_and_their_functions():
    from gradrepl.torch.nn.utils import clip_grad, convert_parameters, fusion, memory_format

    assert clip_grad.clip_grad_norm_ is torch.nn.utils.clip_grad_norm_
    assert convert_parameters.parameters_to_vector is torch.nn.utils.parameters_to_vector
    assert fusion.fuse_conv_bn_eval is torch.nn.utils.fuse_conv_bn_eval
    assert memory_format.convert_conv2d_weight_memory_format is \
        torch.nn.utils.convert_conv2d_weight_memory_format
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 2)
    m(torch.randn(4, 3)).pow(2).sum().backward()
    assert repr(clip_grad.clip_grad_norm_(m.parameters(), 0.5)) == "tensor(7.5441)"
