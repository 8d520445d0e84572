"""torch names ``tools/torch_api_gaps.py`` still found missing (issue 28, the second pass), each
written as torch 2.13 computes it, from torch ops so the gradients and last bits follow:

* ``stft`` / ``istft`` (SpectralOps.cpp: centre padding, frames as strided views times the
  window, a one-sided or full transform, overlap-add divided by the squared-window envelope);
* ``svd_lowrank`` / ``pca_lowrank`` (torch/_lowrank.py: Halko et al.'s randomized range finder
  with torch's draws: ``randn(n, q)``, QR, ``niter`` power iterations, then an SVD);
* ``poisson`` / ``binomial`` (the samplers of ``torch.distributions``);
* ``convolution`` (the dispatcher to conv/conv_transpose 1-3d), ``embedding_bag`` (torch's
  4-tuple), ``embedding_renorm_``, ``norm_except_dim``, ``segment_reduce`` (lengths),
  ``from_file``; ``Tensor.stft``, ``Tensor.istft``, ``Tensor.grad_dtype``.
"""
from __future__ import annotations

import warnings

import numpy as np


def _T():
    import gradrepl.torch as T

    return T


# ------------------------------------------------------------------------------ stft / istft
_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known "
              "to cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
              "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
              "device=<device>)`.")


def _padded_window(T, window, n_fft, win_length, like):
    if window is None:
        return None
    if window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    if win_length == n_fft:
        return window
    w = T.zeros(n_fft, dtype=window.dtype)
    left = (n_fft - win_length) // 2
    w[left:left + win_length] = window
    return w


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,  # noqa: A002
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    T = _T()
    x = input
    if return_complex is None and not x.is_complex() and not (
            window is not None and window.is_complex()):
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if return_complex is False:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.\nNote: you can still call "
                      "torch.view_as_real on the complex output to recover the old return "
                      "format.", UserWarning, stacklevel=2)
    if window is None:
        warnings.warn(_NO_WINDOW, UserWarning, stacklevel=2)
    if x.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {x.dim()}D tensor")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    if center:
        pad = n_fft // 2
        shape = x.shape
        x3 = x.reshape((1,) * (3 - x.dim()) + tuple(shape))
        x = T.nn.functional.pad(x3, [pad, pad], mode=pad_mode).reshape(
            tuple(shape[:-1]) + (shape[-1] + 2 * pad,))
    one = x.dim() == 1
    if one:
        x = x.unsqueeze(0)
    batch, length = x.shape
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length="
                           f"{win_length}")
    w = _padded_window(T, window, n_fft, win_length, x)
    frames = 1 + (length - n_fft) // hop
    s0, s1 = x.stride()
    x = x.as_strided((batch, frames, n_fft), (s0, hop * s1, s1))
    if w is not None:
        x = x.mul(w)
    complex_in = x.is_complex()
    onesided = (not complex_in) if onesided is None else bool(onesided)
    norm = "ortho" if normalized else "backward"
    if complex_in:
        out = T.fft.fft(x, dim=2, norm=norm)
    elif onesided:
        out = T.fft.rfft(x, dim=2, norm=norm)
    else:
        out = T.fft.fft(x, dim=2, norm=norm)
    out = out.transpose(1, 2)
    if one:
        out = out.squeeze(0)
    return out if return_complex or return_complex is None else T.view_as_real(out)


def _overlap_add(frames, hop):
    """(B, F, n) frames -> (B, n + hop (F - 1)) sums, frame after frame."""
    b, f, n = frames.shape
    out = np.zeros((b, n + hop * (f - 1)), frames.dtype)
    for i in range(f):
        out[:, i * hop:i * hop + n] += frames[:, i]
    return out


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,  # noqa: A002
          normalized=False, onesided=None, length=None, return_complex=False):
    T = _T()
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor.")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    x = input
    if x.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, but "
                           f"got {x.dim()}")
    one = x.dim() == 2
    if one:
        x = x.unsqueeze(0)
    fft_size, frames = x.shape[1], x.shape[2]
    onesided = (fft_size != n_fft) if onesided is None else bool(onesided)
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{fft_size}")
    real_dt = T.float64 if x.dtype == T.complex128 else T.float32
    w = _padded_window(T, window if window is not None else T.ones(win_length, dtype=real_dt),
                       n_fft, win_length, x)
    x = x.transpose(1, 2)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        y = T.fft.ifft(x, dim=-1, norm=norm)
    else:
        if not onesided:
            x = x[..., :n_fft // 2 + 1]
        y = T.fft.irfft(x, n=n_fft, dim=-1, norm=norm)
    y = y * w.view(1, 1, n_fft)
    total = n_fft + hop * (frames - 1)
    ya = _overlap_add(np.asarray(y.detach().numpy()), hop)
    env = _overlap_add(np.broadcast_to(np.asarray((w * w).numpy()), (1, frames, n_fft)), hop)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + int(length)
    else:
        end = total - n_fft // 2 if center else total
    end_c = min(end, total)
    ya, env = ya[:, start:end_c], env[:, start:end_c]
    if env.size and np.abs(env).min() < 1e-11:
        raise RuntimeError("istft(...) window overlap add min: 0")
    out = T.from_numpy(np.ascontiguousarray(ya / env))
    if end > total:
        warnings.warn("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.", UserWarning, stacklevel=2)
        out = T.nn.functional.pad(out, [0, end - total])
    return out.squeeze(0) if one else out


# ------------------------------------------------------------------------------ low-rank SVD
def _approximate_basis(T, A, q, niter, M):
    dtype = A.dtype if A.is_floating_point() or A.is_complex() else T.get_default_dtype()
    R = T.randn(A.shape[-1], q, dtype=dtype)
    X = T.matmul(A, R)
    if M is not None:
        X = X - T.matmul(M, R)
    Q = T.linalg.qr(X).Q
    for _ in range(2 if niter is None else niter):
        X = T.matmul(A.mH, Q)
        if M is not None:
            X = X - T.matmul(M.mH, Q)
        Q = T.linalg.qr(X).Q
        X = T.matmul(A, Q)
        if M is not None:
            X = X - T.matmul(M, Q)
        Q = T.linalg.qr(X).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    T = _T()
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(T, A, q, niter, M)
    B = T.matmul(Q.mH, A)
    if M is not None:
        B = B - T.matmul(Q.mH, M)
    U, S, Vh = T.linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def svd_lowrank(A, q=6, niter=2, M=None):
    return _svd_lowrank(A, q, niter=niter, M=M)


def pca_lowrank(A, q=None, center=True, niter=2):
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)="
                         f"{min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)


# ------------------------------------------------------------------------------ samplers
def poisson(input, generator=None):  # noqa: A002
    from .distributions import _samplers

    T = _T()
    out = T.from_numpy(_samplers.poisson(input.detach().numpy(), generator))
    return out


def binomial(count, prob, generator=None):
    from .distributions import _samplers

    T = _T()
    return T.from_numpy(np.asarray(_samplers.binomial(count.detach().numpy(),
                                                      prob.detach().numpy(), generator)))


# ------------------------------------------------------------------------------ nn dispatchers
def convolution(input, weight, bias, stride, padding, dilation, transposed,  # noqa: A002
                output_padding, groups):
    F = _T().nn.functional
    d = weight.dim() - 2
    if d not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D, 4D or 5D weight for convolution, but got weight of "
                           f"size {list(weight.shape)}")
    if transposed:
        fn = getattr(F, f"conv_transpose{d}d")
        return fn(input, weight, bias, stride=stride, padding=padding,
                  output_padding=output_padding, groups=groups, dilation=dilation)
    fn = getattr(F, f"conv{d}d")
    return fn(input, weight, bias, stride=stride, padding=padding, dilation=dilation,
              groups=groups)


_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``torch.embedding_bag`` (the ATen op): (output, offset2bag, bag_size, max_indices); the
    three bookkeeping tensors as torch's CPU kernel fills them for the sum/mean modes."""
    T = _T()
    name = _BAG_MODES.get(int(mode), mode)
    out = T.nn.functional.embedding_bag(indices, weight, offsets, mode=name,
                                        per_sample_weights=per_sample_weights,
                                        include_last_offset=include_last_offset,
                                        padding_idx=padding_idx)
    idx = indices.numpy().reshape(-1)
    off = offsets.numpy().reshape(-1) if offsets is not None else np.array([0])
    n_bags = out.shape[0]
    ends = list(off[1:n_bags + 1]) if include_last_offset else list(off[1:]) + [idx.size]
    sizes = np.array([max(0, int(e) - int(s)) for s, e in zip(off[:n_bags], ends)], np.int64)
    o2b = np.zeros(idx.size, np.int64)
    for b, (s, e) in enumerate(zip(off[:n_bags], ends)):
        o2b[int(s):int(e)] = b
    if name == "max":
        maxi = np.zeros((n_bags, weight.shape[1]), np.int64)
        w = weight.detach().numpy()
        for b, (s, e) in enumerate(zip(off[:n_bags], ends)):
            rows = idx[int(s):int(e)]
            if rows.size:
                maxi[b] = rows[np.argmax(w[rows], axis=0)]
        max_indices = T.from_numpy(maxi)
    else:
        max_indices = T.from_numpy(sizes.copy() if name == "mean" else np.zeros(n_bags, np.int64))
    if name == "sum":  # (torch's CPU kernel fills neither for sums)
        return (out, T.from_numpy(np.zeros(0, np.int64)), T.from_numpy(np.zeros(n_bags, np.int64)),
                max_indices)
    return out, T.from_numpy(o2b), T.from_numpy(sizes), max_indices


def embedding_renorm_(input, indices, max_norm, norm_type):  # noqa: A002
    """Rescale, in place, the rows of ``input`` named in ``indices`` whose ``norm_type`` norm
    exceeds ``max_norm`` to that norm (torch: scale = max_norm / (norm + 1e-7))."""
    from . import _inplace
    from .nn._embedding import renorm_rows_

    _inplace.check_leaf(input)   # (an in-place op: a leaf requiring grad only under no_grad)
    return renorm_rows_(input, indices, max_norm, norm_type)   # one version bump, as torch


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002 - torch's name
    T = _T()
    if dim == -1:
        return v.norm(pow)
    dims = [d for d in range(v.dim()) if d != dim]
    return T.linalg.vector_norm(v, pow, dim=dims, keepdim=True)


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    T = _T()
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    if axis != 0:
        data = data.movedim(axis, 0)
    if lengths is not None:
        ls = [int(v) for v in lengths.reshape(-1).tolist()]
        starts = np.concatenate([[0], np.cumsum(ls)[:-1]]).astype(int).tolist() if ls else []
    else:
        o = [int(v) for v in offsets.reshape(-1).tolist()]
        starts, ls = o[:-1], [b - a for a, b in zip(o[:-1], o[1:])]
    outs = []
    for s, n in zip(starts, ls):
        seg = data[s:s + n]
        if n == 0:
            fill = initial if initial is not None else {"max": -np.inf, "min": np.inf,
                                                        "sum": 0.0, "prod": 1.0}.get(reduce,
                                                                                    np.nan)
            outs.append(T.full(tuple(data.shape[1:]), fill, dtype=data.dtype))
            continue
        if reduce == "sum":
            r = seg.sum(0)
        elif reduce == "mean":
            r = seg.mean(0)
        elif reduce == "max":
            r = seg.amax(0)
        elif reduce == "min":
            r = seg.amin(0)
        elif reduce == "prod":
            r = seg.prod(0)
        else:
            raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                               f"got {reduce}")
        if initial is not None and reduce in ("sum", "prod", "max", "min"):
            init = T.full_like(r, initial)
            r = {"sum": T.add, "prod": T.mul, "max": T.maximum, "min": T.minimum}[reduce](r, init)
        outs.append(r)
    out = T.stack(outs) if outs else data[:0]
    return out.movedim(0, axis) if axis != 0 else out


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False):
    T = _T()
    dt = dtype or T.get_default_dtype()
    npdt = T.empty(0, dtype=dt).numpy().dtype
    data = np.fromfile(filename, dtype=npdt, count=int(size))
    if data.size < int(size):
        raise RuntimeError(f"Trying to read {int(size) * npdt.itemsize} bytes from {filename}, "
                           f"but the file holds {data.size * npdt.itemsize}")
    return T.from_numpy(data.copy())


def _rnn_fn(mode):
    """``torch.lstm``/``gru``/``rnn_tanh``/``rnn_relu`` (the ATen ops behind nn.RNN): flat
    ``params`` (per layer and direction: w_ih, w_hh, [b_ih, b_hh], [w_hr]); lstm answers
    (output, h_n, c_n), the others (output, h_n)."""
    def fn(input, hx, params, has_biases, num_layers, dropout, train,  # noqa: A002
           bidirectional, batch_first):
        from .nn import _recurrent as R

        ndir = 2 if bidirectional else 1
        params = list(params)
        per = len(params) // (num_layers * ndir)
        groups = []
        for i in range(num_layers * ndir):
            g = params[i * per:(i + 1) * per]
            w_ih, w_hh = g[0], g[1]
            b_ih, b_hh = (g[2], g[3]) if has_biases else (None, None)
            w_hr = g[4 if has_biases else 2] if per in (3, 5) else None
            groups.append((w_ih, w_hh, b_ih, b_hh, w_hr))
        out, h = R._run_rnn(mode, input, hx, groups, num_layers, dropout, train,
                            bidirectional, batch_first)
        return (out, h[0], h[1]) if mode == "LSTM" else (out, h)
    fn.__name__ = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh",
                   "RNN_RELU": "rnn_relu"}[mode]
    return fn


def _grad_dtype(self):
    if self.grad_fn is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return self.dtype


EXPORTS = {"stft": stft, "istft": istft, "svd_lowrank": svd_lowrank, "pca_lowrank": pca_lowrank,
           "poisson": poisson, "binomial": binomial, "convolution": convolution,
           "embedding_bag": embedding_bag, "embedding_renorm_": embedding_renorm_,
           "norm_except_dim": norm_except_dim, "segment_reduce": segment_reduce,
           "from_file": from_file, "lstm": _rnn_fn("LSTM"), "gru": _rnn_fn("GRU"),
           "rnn_tanh": _rnn_fn("RNN_TANH"), "rnn_relu": _rnn_fn("RNN_RELU")}
TENSOR_METHODS = {"stft": stft, "istft": istft}


def _sigmoid_backward_fwd(out, dout):
    """torch's ``sigmoid_backward``: ``grad * (1 - y) * y``, left to right (the engine's op
    keeps Paddle's ``dout * y * (1 - y)``, which rounds differently)."""
    one = np.ones((), out.dtype)
    with np.errstate(all="ignore"):
        return np.asarray((dout * (one - out)) * out, out.dtype)


_SIGMOID_BACKWARD = []


def _sigmoid_backward_op():
    """``sigmoid_backward(grad, y)`` as torch records it under create_graph: one node,
    SigmoidBackwardBackward0 (was the engine's multiplies: MulBackward0)."""
    if not _SIGMOID_BACKWARD:
        from . import _ops

        op = _ops.top("sigmoid_grad", "SigmoidBackwardBackward0", "all", inputs=(1, 0),
                      forward=_sigmoid_backward_fwd)   # (next_functions: grad_output, output)
        op.vjp = _sigmoid_backward_vjp
        _SIGMOID_BACKWARD.append(op)
    return _SIGMOID_BACKWARD[0]


def _sigmoid_backward_vjp(n, gg):
    """derivatives.yaml's ``sigmoid_backward``: grad_output's gradient
    ``sigmoid_backward(gg, y)`` (this node again), output's ``gg * grad_output * (-2 * y + 1)``
    (left to right; ``-2 * y`` is exact, so one scale rounds as torch's mul then add)."""
    from ..engine.ops import math as EM
    from ..engine.registry import apply, needs_grad

    out, dout = n.inputs
    d_dout = apply(_sigmoid_backward_op(), (out, gg)) if needs_grad(n, 1) else None
    d_out = None
    if needs_grad(n, 0):
        d_out = EM.multiply(EM.multiply(gg, dout), EM.scale(out, -2.0, 1.0))
    return d_out, d_dout


def _sigmoid_vjp(n, g):
    from ..engine.registry import apply

    return apply(_sigmoid_backward_op(), (n.out(), g))


def install(T):
    from . import _fake_quant, _ops

    _ops.sigmoid._op.vjp = _sigmoid_vjp
    _fake_quant.install(T)   # torch.fake_quantize_per_tensor/per_channel_affine
    for k, v in EXPORTS.items():
        if not hasattr(T, k):
            setattr(T, k, v)
    for k, v in TENSOR_METHODS.items():
        if k not in T.Tensor.__dict__:
            setattr(T.Tensor, k, v)
    if "grad_dtype" not in T.Tensor.__dict__:
        T.Tensor.grad_dtype = property(_grad_dtype)
