"""``torch.signal.windows``: scipy-style windows (symmetric by default, ``sym=False`` for the
periodic ones), computed with the same torch ops in the same order as torch 2.13 (a
``linspace`` of sample positions, then ``exp``/``sin``/``cos``/``i0``), so the values carry
torch's last bits. Float32 or float64 only, as in torch."""
from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _torch():
    import gradrepl.torch as torch

    return torch


def _check(name, M, dtype, layout):
    torch = _torch()
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and layout is not torch.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _start(name, M, dtype, layout, requires_grad, one=False):
    """(dtype, early result): the empty window for M == 0 (and ones for M == 1 where the
    window says so), else None."""
    torch = _torch()
    dtype = dtype or torch.get_default_dtype()
    _check(name, M, dtype, layout)
    if M == 0:
        return dtype, torch.empty((0,), dtype=dtype, requires_grad=requires_grad)
    if one and M == 1:
        return dtype, torch.ones((1,), dtype=dtype, requires_grad=requires_grad)
    return dtype, None


def _positions(start, step, M, dtype, requires_grad):
    return _torch().linspace(start=start * 1.0, end=start + (M - 1) * step, steps=M,
                             dtype=dtype, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    torch = _torch()
    dtype = dtype or torch.get_default_dtype()
    _check("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return torch.empty((0,), dtype=dtype, requires_grad=requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / tau
    k = torch.linspace(start=-center * c, end=(-center + (M - 1)) * c, steps=M, dtype=dtype,
                       requires_grad=requires_grad)
    return torch.exp(-torch.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    torch = _torch()
    dtype, early = _start("cosine", M, dtype, layout, requires_grad)
    if early is not None:
        return early
    c = torch.pi / (M + 1 if not sym and M > 1 else M)
    k = torch.linspace(start=0.5 * c, end=(0.5 + (M - 1)) * c, steps=M, dtype=dtype,
                       requires_grad=requires_grad)
    return torch.sin(k)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    torch = _torch()
    dtype = dtype or torch.get_default_dtype()
    _check("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return torch.empty((0,), dtype=dtype, requires_grad=requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / (std * math.sqrt(2))
    k = torch.linspace(start=start * c, end=(start + (M - 1)) * c, steps=M, dtype=dtype,
                       requires_grad=requires_grad)
    return torch.exp(-k ** 2)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    torch = _torch()
    dtype = dtype or torch.get_default_dtype()
    _check("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M == 0:
        return torch.empty((0,), dtype=dtype, requires_grad=requires_grad)
    if M == 1:
        return torch.ones((1,), dtype=dtype, requires_grad=requires_grad)
    b = torch.tensor(beta, dtype=dtype)
    start = -b
    c = 2.0 * b / (M if not sym else M - 1)
    end = torch.minimum(b, start + (M - 1) * c)
    k = torch.linspace(start=start, end=end, steps=M, dtype=dtype, requires_grad=requires_grad)
    return torch.i0(torch.sqrt(b * b - torch.pow(k, 2))) / torch.i0(b)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    torch = _torch()
    dtype, early = _start("general_cosine", M, dtype, layout, requires_grad, one=True)
    if early is not None:
        return early
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    c = 2 * torch.pi / (M if not sym else M - 1)
    k = torch.linspace(start=0, end=(M - 1) * c, steps=M, dtype=dtype,
                       requires_grad=requires_grad)
    a_i = torch.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype,
                       requires_grad=requires_grad)
    i = torch.arange(a_i.shape[0], dtype=a_i.dtype, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * torch.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    torch = _torch()
    dtype = dtype or torch.get_default_dtype()
    _check("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    torch = _torch()
    dtype, early = _start("bartlett", M, dtype, layout, requires_grad, one=True)
    if early is not None:
        return early
    c = 2 / (M if not sym else M - 1)
    k = torch.linspace(start=-1, end=-1 + (M - 1) * c, steps=M, dtype=dtype,
                       requires_grad=requires_grad)
    return 1 - torch.abs(k)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, requires_grad=requires_grad)
