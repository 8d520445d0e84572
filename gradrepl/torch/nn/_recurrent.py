"""Recurrent layers (RNN, LSTM, GRU and their cells) and the Transformer family.

``__all__`` lists the layers (``torch.nn.NAME``); ``FUNCTIONAL`` the functions of
``torch.nn.functional``.

The layers compute as ATen's CPU kernels do (``aten/src/ATen/native/RNN.cpp``): a layer's input
projection is one ``linear`` over all time steps (``addmm`` on the flattened steps), then at each
step ``linear(h, w_hh, b_hh) + x_w[t]`` goes through the gates; the reverse direction of a
bidirectional layer projects step by step; the outputs are stacked, the final hidden states of
the layers and directions stacked in order (so ``output.grad_fn`` and ``h_n.grad_fn`` are
``StackBackward0``). Parameters are drawn as torch draws them: ``uniform(-1/sqrt(hidden),
1/sqrt(hidden))`` over ``parameters()`` in registration order."""
from __future__ import annotations

import math
import numbers
import sys
import warnings

import numpy as np

from .. import _creation, _ops
from ...engine.registry import apply
from .._base import EngineTensor, raw
from .._tensor import Tensor
from . import functional as F
from . import init
from .modules import Module
from .parameter import Parameter

__all__: list = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell",
                 "GRUCell"]
FUNCTIONAL: dict = {}


def _dtype_np(dtype):
    from .. import _dtypes

    return _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()


def _empty_param(shape, dt):
    return Parameter(Tensor._wrap(np.zeros(shape, dt)))


# ------------------------------------------------------------------------------ cells (ATen)
def _lin(x, w, b):
    return F.linear(x, w, b)


def _rnn_tanh_step(xw, h, p):
    return _ops.tanh(_ops.add(_lin(h, p[1], p[3]), xw))


def _rnn_relu_step(xw, h, p):
    return _ops.relu(_ops.add(_lin(h, p[1], p[3]), xw))


def _lstm_step(xw, hidden, p):
    hx, cx = hidden
    gates = _ops.add(_lin(hx, p[1], p[3]), xw)
    H = gates.shape[-1] // 4  # views, as ATen's chunks: sigmoid_/tanh_ run a row at a time
    i, f, g, o = gates[:, :H], gates[:, H:2 * H], gates[:, 2 * H:3 * H], gates[:, 3 * H:]
    i, f, g, o = _ops.sigmoid(i), _ops.sigmoid(f), _ops.tanh(g), _ops.sigmoid(o)
    cy = _ops.add(_ops.mul(f, cx), _ops.mul(i, g))
    hy = _ops.mul(o, _ops.tanh(cy))
    if p[4] is not None:
        hy = _ops.matmul(hy, _ops.t(p[4]))
    return hy, cy


def _gru_step(xw, h, p):
    ir, ii, inn = _ops.chunk(xw, 3, 1)
    hg = _lin(h, p[1], p[3])
    hr, hi, hn = _ops.chunk(hg, 3, 1)
    # ATen adds the r and z pre-activations into views of the gates and applies sigmoid_ to
    # those views (a row at a time: each row's tail takes the scalar exp)
    H = hr.shape[-1]
    rz = _ops.add(hg[:, :2 * H], xw[:, :2 * H])
    r_pre, z_pre = rz[:, :H], rz[:, H:]
    r = _ops.sigmoid(r_pre)
    z = _ops.sigmoid(z_pre)
    n = _ops.tanh(_ops.add(inn, _ops.mul(hn, r)))
    return _ops.add(_ops.mul(_ops.sub(h, n), z), n)


_STEPS = {"RNN_TANH": _rnn_tanh_step, "RNN_RELU": _rnn_relu_step, "LSTM": _lstm_step,
          "GRU": _gru_step}


def _h_out(mode, hidden):
    return hidden[0] if mode == "LSTM" else hidden


def _h_slice(mode, hidden, start, stop):
    if mode == "LSTM":
        return tuple(_ops.narrow(h, 0, start, stop - start) for h in hidden)
    return _ops.narrow(hidden, 0, start, stop - start)


def _h_cat(mode, hiddens):
    if len(hiddens) == 1:
        return hiddens[0]
    if mode == "LSTM":
        return tuple(_ops.cat([h[k] for h in hiddens], 0) for k in range(2))
    return _ops.cat(hiddens, 0)


def _full_layer(mode, x, hidden, p, reverse):
    step = _STEPS[mode]
    if not reverse:
        xw = _lin(x, p[0], p[2])
        outs = []
        for xt in _ops.unbind(xw, 0):
            hidden = step(xt, hidden, p)
            outs.append(_h_out(mode, hidden))
    else:  # ATen's FullBidirectionalLayer on CPU: linear_ih of the whole input, unbound
        outs = []
        for xt in reversed(_ops.unbind(_lin(x, p[0], p[2]), 0)):
            hidden = step(xt, hidden, p)
            outs.append(_h_out(mode, hidden))
        outs.reverse()
    return _ops.stack(outs, 0), hidden


def _packed_layer(mode, data, batch_sizes, hidden, p, reverse):
    step = _STEPS[mode]
    xw = _lin(data, p[0], p[2])
    outs = []
    if not reverse:
        offset, last, hiddens = 0, batch_sizes[0], []
        for bs in batch_sizes:
            xt = _ops.narrow(xw, 0, offset, bs)
            offset += bs
            if last - bs > 0:
                hiddens.append(_h_slice(mode, hidden, bs, last))
                hidden = _h_slice(mode, hidden, 0, bs)
            last = bs
            hidden = step(xt, hidden, p)
            outs.append(_h_out(mode, hidden))
        hiddens.append(hidden)
        hiddens.reverse()
        return _ops.cat(outs, 0), _h_cat(mode, hiddens)
    full = hidden
    offset = sum(batch_sizes)
    last = batch_sizes[-1]
    hidden = _h_slice(mode, full, 0, last)
    for bs in reversed(batch_sizes):
        if bs - last > 0:
            hidden = _h_cat(mode, [hidden, _h_slice(mode, full, last, bs)])
        xt = _ops.narrow(xw, 0, offset - bs, bs)
        offset -= bs
        last = bs
        hidden = step(xt, hidden, p)
        outs.append(_h_out(mode, hidden))
    outs.reverse()
    return _ops.cat(outs, 0), hidden


def _onednn_lstm(mode, out, params, batch_sizes):
    """Whether torch 2.13's CPU build runs this LSTM on oneDNN (RNN.cpp's use_mkldnn and
    lstm's ``!has_projections``; measured: float32 yes, float64, packed input, proj_size no)."""
    from .. import backends

    eligible = (mode == "LSTM" and batch_sizes is None and raw(out).dtype == np.float32
                and raw(out).size > 0 and bool(getattr(backends.mkldnn, "enabled", True)))
    if eligible and any(p[4] is not None for p in params) and not _PROJ_WARNED:
        # RNN.cpp's TORCH_WARN_ONCE, shown at the module's _VF.lstm call (nn/modules/rnn.py)
        from ... import _libsite

        _PROJ_WARNED.append(True)
        _libsite.warn_at("torch", "nn/modules/rnn.py", 1164, "            result = _VF.lstm(",
                         "LSTM with projections is not supported with oneDNN. Using default "
                         "implementation. (Triggered internally at /__w/pytorch/pytorch/aten/"
                         "src/ATen/native/RNN.cpp:1512.)")
    return eligible and all(p[4] is None for p in params)


_PROJ_WARNED: list = []


def _onednn_values(x, vals=None):
    return x if vals is None else vals


def _onednn_layer(out, hid, x, p, hidden0, reverse):
    """The oneDNN LSTM (ATen's use_mkldnn: float32, not packed, no projections): each layer and
    direction is an mkldnn_rnn_layer node whose output, h_T and c_T carry oneDNN's values
    (``_onednn_lstm``, where its kernels are emulated); the gradient flows through the default
    path's graph."""
    from . import _onednn_lstm as O

    node = _ops.top("assign", "MkldnnRnnLayerBackward0", "none", forward=_onednn_values)
    if not O.applies():
        return apply(node, (out,)), hid
    w = [None if t is None else raw(t) for t in p[:4]]
    vals, h_t, c_t = O.layer(raw(x), w[0], w[1], w[2], w[3], raw(hidden0[0]),
                             raw(hidden0[1]), reverse, bool(out.requires_grad))
    return (apply(node, (out,), {"vals": vals}),
            (apply(node, (hid[0],), {"vals": h_t}), apply(node, (hid[1],), {"vals": c_t})))


def _onednn_node_applies():
    from . import _onednn_lstm as O

    return O.applies()


def _onednn_node(x, p, hidden0, reverse):
    """One layer and direction as torch's mkldnn_rnn_layer: one node (inputs x, w_ih, w_hh,
    b_ih, b_hh, h0, c0) with oneDNN's forward values and its backward (``_onednn_lstm``)."""
    from ...engine import grad_mode
    from . import _onednn_lstm as O

    H = raw(p[1]).shape[1]
    zero = Tensor._wrap(np.zeros(4 * H, np.float32))
    ins = (x, p[0], p[1], zero if p[2] is None else p[2], zero if p[3] is None else p[3],
           hidden0[0], hidden0[1])
    training = grad_mode.STATE.enabled and any(t.requires_grad for t in ins)
    node = _ops.top("mkldnn_rnn_layer", "MkldnnRnnLayerBackward0", "none") \
        if O._register() else None
    out, h_t, c_t = apply(node, ins, {"reverse": reverse, "training": training, "keep": []})
    return out, (h_t, c_t)


def _run_rnn(mode, x, hx, params, num_layers, dropout, train, bidirectional, batch_first,
             batch_sizes=None):
    """``_VF.rnn_tanh``/``lstm``/``gru``: ``params`` is a list of per (layer, direction)
    tuples ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` (None where absent); ``hx`` a tensor (or the pair
    ``(h0, c0)``) with the layers and directions on dim 0."""
    ndir = 2 if bidirectional else 1
    if batch_sizes is not None and len(set(batch_sizes)) == 1 \
            and all(p[4] is None for p in params) and _onednn_lstm(mode, x, params, None):
        # ATen's packed lstm with every batch size equal runs oneDNN on the data viewed as
        # (T, B, I) and views the output back (measured: ViewBackward0 <- MkldnnRnnLayer)
        b = int(batch_sizes[0])
        out, hid = _run_rnn(mode, _ops.reshape(x, (-1, b, raw(x).shape[-1])), hx, params,
                            num_layers, dropout, train, bidirectional, False)
        return _ops.reshape(out, (-1, raw(out).shape[-1])), hid
    if batch_sizes is None and batch_first:
        x = _ops.transpose(x, 0, 1)
    if mode == "LSTM":
        h_all, c_all = _ops.unbind(hx[0], 0), _ops.unbind(hx[1], 0)
        hiddens = [(h_all[i], c_all[i]) for i in range(len(h_all))]
    else:
        hiddens = list(_ops.unbind(hx, 0))
    finals = []
    layer_in = x
    onednn = _onednn_lstm(mode, x, params, batch_sizes)
    for layer in range(num_layers):
        outs = []
        for d in range(ndir):
            idx = layer * ndir + d
            if onednn:
                out, hid = _onednn_node(layer_in, params[idx], hiddens[idx], d == 1)
                outs.append(out)
                finals.append(hid)
                continue
            if batch_sizes is None:
                out, hid = _full_layer(mode, layer_in, hiddens[idx], params[idx], d == 1)
            else:
                out, hid = _packed_layer(mode, layer_in, batch_sizes, hiddens[idx],
                                         params[idx], d == 1)
            if onednn:
                out, hid = _onednn_layer(out, hid, layer_in, params[idx], hiddens[idx], d == 1)
            outs.append(out)
            finals.append(hid)
        layer_out = outs[0] if ndir == 1 else _ops.cat(outs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_out = F.dropout(layer_out, dropout, True)
        layer_in = layer_out
    out = layer_in
    if batch_sizes is None and batch_first:
        # ATen transposes its result in place: TransposeBackward1; oneDNN's path returns
        # ``output.transpose(0, 1)``: TransposeBackward0
        perm = (1, 0) + tuple(range(2, raw(out).ndim))
        name = "TransposeBackward0" if onednn else "TransposeBackward1"
        out = apply(_ops.top("transpose", name, "none"), (out,), {"perm": perm})
    if mode == "LSTM":
        return out, (_ops.stack([h for h, _c in finals], 0), _ops.stack([c for _h, c in finals], 0))
    return out, _ops.stack(finals, 0)


# ------------------------------------------------------------------------------ modules
def _size_list(t):
    return list(raw(t).shape)


def _apply_permutation(t, permutation, dim=1):
    return _ops.index_select(t, dim, permutation)


#: torch 2.13's nn/modules/rnn.py: the line where RNN/LSTM/GRU.__init__ call RNNBase.__init__
#: (where its stacklevel=2 warnings show), and that line's text
_INIT_CALL_SITES = {
    "RNN.__init__": (655, "        super().__init__(mode, *args, **kwargs)"),
    "LSTM.__init__": (1011, '        super().__init__("LSTM", *args, **kwargs)'),
    "GRU.__init__": (1358, '        super().__init__("GRU", *args, **kwargs)'),
}


def _warn_from_init_caller(message):
    """A warning RNNBase.__init__ raises with stacklevel=2: from torch's RNN/LSTM/GRU.__init__
    line when one of them called it, else from the (user's) caller."""
    from ... import _libsite
    from .._base import GRADREPL_DIR
    from ._backward_hooks import _warn_at_user_frame

    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(GRADREPL_DIR):
        site = _INIT_CALL_SITES.get(f.f_code.co_qualname) if f.f_code.co_filename == __file__ \
            else None
        if site is not None:
            _libsite.warn_at("torch", "nn/modules/rnn.py", *site, message)
            return
        f = f.f_back
    _warn_at_user_frame(message)


class RNNBase(Module):
    """Base class of RNN, LSTM and GRU: the parameters ``weight_ih_l{k}[_reverse]``, ... ."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        ndir = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            _warn_from_init_caller("dropout option adds dropout after all but last recurrent "
                                   "layer, so non-zero dropout expects num_layers greater than "
                                   f"1, but got dropout={dropout} and num_layers={num_layers}")
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: "
                            f"{type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: "
                            f"{type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
        if mode not in gates:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = gates[mode] * hidden_size
        dt = _dtype_np(dtype)
        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(ndir):
                layer_in = input_size if layer == 0 else real_hidden * ndir
                w_ih = _empty_param((gate_size, layer_in), dt)
                w_hh = _empty_param((gate_size, real_hidden), dt)
                b_ih = _empty_param((gate_size,), dt)
                b_hh = _empty_param((gate_size,), dt)
                ps = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    ps = ps + (_empty_param((proj_size, hidden_size), dt),)
                    names += ["weight_hr_l{}{}"]
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for n, p in zip(names, ps):
                    setattr(self, n, p)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self):
        return None

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _layer_params(self):
        out = []
        for names in self._all_weights:
            ws = [getattr(self, n) for n in names]
            if self.bias:
                w_ih, w_hh, b_ih, b_hh = ws[:4]
            else:
                (w_ih, w_hh), b_ih, b_hh = ws[:2], None, None
            w_hr = ws[-1] if self.proj_size > 0 else None
            out.append((w_ih, w_hh, b_ih, b_hh, w_hr))
        return out

    def check_input(self, input, batch_sizes):  # noqa: A002
        w0 = raw(self._flat_weights[0])
        if raw(input).dtype != w0.dtype:
            from .. import _dtypes

            a, b = _dtypes.from_np(raw(input).dtype), _dtypes.from_np(w0.dtype)
            raise ValueError(f"RNN input dtype ({a}) does not match weight dtype ({b}). "
                             f"Convert input: input.to({b}), or convert model: "
                             f"model.to({a})")
        expected = 2 if batch_sizes is not None else 3
        if raw(input).ndim != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {raw(input).ndim}")
        if self.input_size != raw(input).shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {raw(input).shape[-1]}")

    def get_expected_hidden_size(self, input, batch_sizes):  # noqa: A002
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = raw(input).shape[0 if self.batch_first else 1]
        ndir = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * ndir, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg="Expected hidden size {}, got {}"):
        if tuple(raw(hx).shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, _size_list(hx)))

    def check_forward_args(self, input, hidden, batch_sizes):  # noqa: A002
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # -- the shared forward ---------------------------------------------------------------
    def _unpack(self, input, hx):  # noqa: A002
        from .utils.rnn import PackedSequence

        if isinstance(input, PackedSequence):
            data, bs, sorted_idx, unsorted_idx = input
            return data, [int(b) for b in raw(bs).tolist()], bs, sorted_idx, unsorted_idx
        return input, None, None, None, None

    def _zeros(self, n, batch, size, like):
        return Tensor._wrap(np.zeros((n, batch, size), raw(like).dtype))

    def _forward_common(self, input, hx):  # noqa: A002
        from .utils.rnn import PackedSequence

        ndir = 2 if self.bidirectional else 1
        packed = isinstance(input, PackedSequence)
        data, bsl, bs_t, sorted_idx, unsorted_idx = self._unpack(input, hx)
        lstm = self.mode == "LSTM"
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        is_batched = True
        if packed:
            max_batch = bsl[0]
        else:
            nd = raw(data).ndim
            if nd not in (2, 3):
                if lstm:
                    raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {nd}D instead")
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {nd}D tensor "
                                 "instead")
            is_batched = nd == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                data = _ops.unsqueeze(data, batch_dim)
                if hx is not None:
                    if lstm:
                        if raw(hx[0]).ndim != 2 or raw(hx[1]).ndim != 2:
                            raise RuntimeError(
                                "For unbatched 2-D input, hx and cx should also be 2-D but got "
                                f"({raw(hx[0]).ndim}-D, {raw(hx[1]).ndim}-D) tensors")
                        hx = (_ops.unsqueeze(hx[0], 1), _ops.unsqueeze(hx[1], 1))
                    else:
                        if raw(hx).ndim != 2:
                            raise RuntimeError("For unbatched 2-D input, hx should also be 2-D "
                                               f"but got {raw(hx).ndim}-D tensor")
                        hx = _ops.unsqueeze(hx, 1)
            elif hx is not None:
                if lstm:
                    if raw(hx[0]).ndim != 3 or raw(hx[1]).ndim != 3:
                        raise RuntimeError(
                            "For batched 3-D input, hx and cx should also be 3-D but got "
                            f"({raw(hx[0]).ndim}-D, {raw(hx[1]).ndim}-D) tensors")
                elif raw(hx).ndim != 3:
                    raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                                       f"{raw(hx).ndim}-D tensor")
            max_batch = raw(data).shape[0 if self.batch_first else 1]
        if hx is None:
            if lstm:
                hx = (self._zeros(self.num_layers * ndir, max_batch, real_hidden, data),
                      self._zeros(self.num_layers * ndir, max_batch, self.hidden_size, data))
            else:
                hx = self._zeros(self.num_layers * ndir, max_batch, self.hidden_size, data)
        elif sorted_idx is not None:
            hx = (tuple(self.permute_hidden(h, sorted_idx) for h in hx) if lstm
                  else self.permute_hidden(hx, sorted_idx))
        if lstm:
            self.check_input(data, bsl)
            self.check_hidden_size(hx[0], self.get_expected_hidden_size(data, bsl),
                                   "Expected hidden[0] size {}, got {}")
            exp_c = list(self.get_expected_hidden_size(data, bsl))
            exp_c[2] = self.hidden_size
            self.check_hidden_size(hx[1], tuple(exp_c), "Expected hidden[1] size {}, got {}")
        else:
            self.check_forward_args(data, hx, bsl)
        out, hidden = _run_rnn(self.mode, data, hx, self._layer_params(), self.num_layers,
                               self.dropout, self.training, self.bidirectional,
                               self.batch_first, bsl)
        if packed:
            out = PackedSequence(out, bs_t, sorted_idx, unsorted_idx)
            if unsorted_idx is not None:
                hidden = (tuple(self.permute_hidden(h, unsorted_idx) for h in hidden) if lstm
                          else self.permute_hidden(hidden, unsorted_idx))
            return out, hidden
        if not is_batched:
            out = _ops.squeeze(out, 0 if self.batch_first else 1)
            hidden = (tuple(_ops.squeeze(h, 1) for h in hidden) if lstm
                      else _ops.squeeze(hidden, 1))
        return out, hidden


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):  # noqa: A002
        return self._forward_common(input, hx)


class LSTM(RNNBase):
    """Long short-term memory; ``proj_size > 0`` projects ``h_t`` with ``weight_hr``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):  # noqa: A002
        e = self.get_expected_hidden_size(input, batch_sizes)
        return (e[0], e[1], self.hidden_size)

    def forward(self, input, hx=None):  # noqa: A002
        return self._forward_common(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):  # noqa: A002
        return self._forward_common(input, hx)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        dt = _dtype_np(dtype)
        self.weight_ih = _empty_param((num_chunks * hidden_size, input_size), dt)
        self.weight_hh = _empty_param((num_chunks * hidden_size, hidden_size), dt)
        if bias:
            self.bias_ih = _empty_param((num_chunks * hidden_size,), dt)
            self.bias_hh = _empty_param((num_chunks * hidden_size,), dt)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _params(self):
        return (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, None)

    def _prep(self, name, input, hx):  # noqa: A002
        nd = raw(input).ndim
        if nd not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {nd}D instead")
        return nd == 2


def _check_hx_dim(name, hx, what="hidden"):
    if hx is not None and raw(hx).ndim not in (1, 2):
        raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {raw(hx).ndim}D instead")


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):  # noqa: A002
        batched = self._prep("RNNCell", input, hx)
        _check_hx_dim("RNNCell", hx)
        if not batched:
            input = _ops.unsqueeze(input, 0)
        if hx is None:
            hx = Tensor._wrap(np.zeros((raw(input).shape[0], self.hidden_size),
                                       raw(input).dtype))
        elif not batched:
            hx = _ops.unsqueeze(hx, 0)
        p = self._params()
        if self.nonlinearity == "tanh":
            ret = _rnn_tanh_step(_lin(input, p[0], p[2]), hx, p)
        elif self.nonlinearity == "relu":
            ret = _rnn_relu_step(_lin(input, p[0], p[2]), hx, p)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        if not batched:
            ret = _ops.squeeze(ret, 0)
        return ret


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):  # noqa: A002
        batched = self._prep("LSTMCell", input, hx)
        if hx is not None:
            for h in hx:
                _check_hx_dim("LSTMCell", h, "hx[0]" if h is hx[0] else "hx[1]")
        if not batched:
            input = _ops.unsqueeze(input, 0)
        if hx is None:
            z = np.zeros((raw(input).shape[0], self.hidden_size), raw(input).dtype)
            hx = (Tensor._wrap(z), Tensor._wrap(z.copy()))
        elif not batched:
            hx = (_ops.unsqueeze(hx[0], 0), _ops.unsqueeze(hx[1], 0))
        p = self._params()
        ret = _lstm_step(_lin(input, p[0], p[2]), tuple(hx), p)
        if not batched:
            ret = (_ops.squeeze(ret[0], 0), _ops.squeeze(ret[1], 0))
        return ret


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):  # noqa: A002
        batched = self._prep("GRUCell", input, hx)
        _check_hx_dim("GRUCell", hx)
        if not batched:
            input = _ops.unsqueeze(input, 0)
        if hx is None:
            hx = Tensor._wrap(np.zeros((raw(input).shape[0], self.hidden_size),
                                       raw(input).dtype))
        elif not batched:
            hx = _ops.unsqueeze(hx, 0)
        p = self._params()
        ret = _gru_step(_lin(input, p[0], p[2]), hx, p)
        if not batched:
            ret = _ops.squeeze(ret, 0)
        return ret


for _c in (RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell):
    _c.__module__ = "torch.nn.modules.rnn"

from ._transformer import *  # noqa: F401,F403,E402
from ._transformer import FUNCTIONAL as _TF, __all__ as _TA  # noqa: E402

__all__ += _TA
FUNCTIONAL.update(_TF)
