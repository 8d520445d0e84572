"""Recurrent layers: the cells (SimpleRNNCell, LSTMCell, GRUCell), ``RNN``/``BiRNN`` that run a
cell over time, and the stacked ``SimpleRNN``/``LSTM``/``GRU``.

Written as Paddle's Python layers are, over the API (matmul, activations, stack), so the
gradients follow through every step. Parameters are Paddle's: ``weight_ih`` [gates*hidden,
input], ``weight_hh`` [gates*hidden, hidden], ``bias_ih``, ``bias_hh``, drawn uniformly in
[-1/sqrt(hidden), 1/sqrt(hidden)].
"""
from __future__ import annotations

import math

from .layers import Layer

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN", "SimpleRNN", "LSTM", "GRU",
           "RNNCellBase"]


def _paddle():
    from .... import paddle as _p

    return _p


class RNNCellBase(Layer):
    """A cell: ``cell(inputs, states) -> (outputs, new_states)``."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        paddle = _paddle()
        batch = batch_ref.shape[batch_dim_idx]
        shapes = self.state_shape
        dt = dtype or batch_ref.dtype
        if isinstance(shapes[0], (list, tuple)):
            return tuple(paddle.full([batch] + list(s), init_value, dt) for s in shapes)
        return paddle.full([batch] + list(shapes), init_value, dt)

    def _make(self, gates, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
              bias_ih_attr, bias_hh_attr):
        from ..initializer import Uniform
        from .common import _default_dtype_name

        std = 1.0 / math.sqrt(hidden_size)
        init = Uniform(-std, std)
        dt = _default_dtype_name()   # (paddle.set_default_dtype("float64"): float64 weights)
        self.weight_ih = self.create_parameter([gates * hidden_size, input_size],
                                               weight_ih_attr, dt, default_initializer=init)
        self.weight_hh = self.create_parameter([gates * hidden_size, hidden_size],
                                               weight_hh_attr, dt, default_initializer=init)
        self.bias_ih = self.create_parameter([gates * hidden_size], bias_ih_attr, dt,
                                             is_bias=True, default_initializer=init)
        self.bias_hh = self.create_parameter([gates * hidden_size], bias_hh_attr, dt,
                                             is_bias=True, default_initializer=init)
        self.input_size, self.hidden_size = input_size, hidden_size

    def _affine(self, x, h):
        paddle = _paddle()
        i2h = paddle.matmul(x, self.weight_ih, transpose_y=True)
        if self.bias_ih is not None:
            i2h = i2h + self.bias_ih
        h2h = paddle.matmul(h, self.weight_hh, transpose_y=True)
        if self.bias_hh is not None:
            h2h = h2h + self.bias_hh
        return i2h, h2h


class SimpleRNNCell(RNNCellBase):
    """h = act(W_ih x + b_ih + W_hh h + b_hh) (act: tanh or relu)."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        if hidden_size <= 0:
            raise ValueError(f"hidden_size of {type(self).__name__} must be greater than 0, "
                             f"but now equals to {hidden_size}")
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get "
                             f"{activation}")
        self._make(1, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                   bias_hh_attr)
        self.activation = activation

    def forward(self, inputs, states=None):
        paddle = _paddle()
        if states is None:
            states = self.get_initial_states(inputs)
        i2h, h2h = self._affine(inputs, states)
        h = i2h + h2h
        h = paddle.tanh(h) if self.activation == "tanh" else paddle.nn.functional.relu(h)
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.activation != "tanh":
            s += ", activation={activation}"
        return s.format(**self.__dict__)


class LSTMCell(RNNCellBase):
    """Gates i, f, g, o from W_ih x + W_hh h (+ biases); c = f c + i g; h = o tanh(c)."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        if hidden_size <= 0:
            raise ValueError(f"hidden_size of {type(self).__name__} must be greater than 0, "
                             f"but now equals to {hidden_size}")
        self._make(4, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                   bias_hh_attr)
        self.proj_size = proj_size

    def forward(self, inputs, states=None):
        paddle = _paddle()
        if states is None:
            states = self.get_initial_states(inputs)
        h, c = states
        # Paddle's order of the sums: ((x W_ih^T + b_ih) + h W_hh^T) + b_hh (its SimpleRNNCell
        # and GRUCell add each bias to its own product first, as _affine does)
        gates = paddle.matmul(inputs, self.weight_ih, transpose_y=True)
        if self.bias_ih is not None:
            gates = gates + self.bias_ih
        gates = gates + paddle.matmul(h, self.weight_hh, transpose_y=True)
        if self.bias_hh is not None:
            gates = gates + self.bias_hh
        i, f, g, o = paddle.split(gates, 4, axis=-1)
        i, f, o = paddle.nn.functional.sigmoid(i), paddle.nn.functional.sigmoid(f), \
            paddle.nn.functional.sigmoid(o)
        c = f * c + i * paddle.tanh(g)
        h = o * paddle.tanh(c)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class GRUCell(RNNCellBase):
    """r, z from both affines; n = tanh(x_n + r * h_n); h = (h - n) * z + n."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        if hidden_size <= 0:
            raise ValueError(f"hidden_size of {type(self).__name__} must be greater than 0, "
                             f"but now equals to {hidden_size}")
        self._make(3, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                   bias_hh_attr)

    def forward(self, inputs, states=None):
        paddle = _paddle()
        if states is None:
            states = self.get_initial_states(inputs)
        i2h, h2h = self._affine(inputs, states)
        x_r, x_z, x_c = paddle.split(i2h, 3, axis=-1)
        h_r, h_z, h_c = paddle.split(h2h, 3, axis=-1)
        r = paddle.nn.functional.sigmoid(x_r + h_r)
        z = paddle.nn.functional.sigmoid(x_z + h_z)
        c = paddle.tanh(x_c + r * h_c)
        h = (states - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


_SEQUENCE_MASK_DEPRECATED = (
    '\033[93m\nWarning:\nAPI "paddle.static.nn.sequence_lod.sequence_mask" is deprecated, and '
    'will be removed in future versions. Please use "paddle.nn.functional.sequence_mask" '
    'instead. \033[0m')


def _run(cell, inputs, states, sequence_length, time_major, is_reverse):
    """Paddle's ``_rnn_dynamic_graph``: step ``cell`` over the time axis. Past a sequence's
    ``sequence_length`` its states are kept (``_maybe_copy``: new * mask + old * (1 - mask));
    the cell's outputs there are kept as the cell gave them (the fused nn.LSTM/GRU/SimpleRNN
    kernel is what zeroes them: ``_RNNBase._fused``). Paddle 3.x makes the mask with the
    deprecated ``paddle.static.nn.sequence_lod.sequence_mask``: it warns from rnn.py:198."""
    paddle = _paddle()
    if not time_major:
        inputs = paddle.transpose(inputs, [1, 0] + list(range(2, inputs.ndim)))
    steps = inputs.shape[0]
    if states is None:
        states = cell.get_initial_states(inputs, batch_dim_idx=1)
    mask = None
    if sequence_length is not None:
        from ... import libwarn, profiles
        from ...utils import VisibleDeprecationWarning

        if profiles.current().deprecation_warnings:
            libwarn.warn("rnn_sequence_mask", _SEQUENCE_MASK_DEPRECATED,
                         VisibleDeprecationWarning)
        mask = paddle.transpose(paddle.cast(paddle.nn.functional.sequence_mask(
            sequence_length, steps), inputs.dtype), [1, 0])
    order = range(steps - 1, -1, -1) if is_reverse else range(steps)
    outs = [None] * steps
    for t in order:
        out, new_states = cell(inputs[t], states)
        if mask is not None:
            m = paddle.unsqueeze(mask[t], [-1])

            def keep(new, old):
                return new * m + old * (1 - m)
            if isinstance(new_states, tuple):
                new_states = tuple(keep(n, o) for n, o in zip(new_states, states))
            else:
                new_states = keep(new_states, states)
        states = new_states
        outs[t] = out
    outputs = paddle.stack(outs, axis=0)
    if not time_major:
        outputs = paddle.transpose(outputs, [1, 0] + list(range(2, outputs.ndim)))
    return outputs, states


class RNN(Layer):
    """Run a cell over a sequence: ``rnn(inputs, initial_states, sequence_length)``."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell = cell
        self.is_reverse, self.time_major = is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return _run(self.cell, inputs, initial_states, sequence_length, self.time_major,
                    self.is_reverse)


class BiRNN(Layer):
    """A forward and a backward cell over the sequence, their outputs concatenated."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major
        # (Paddle 2.6/3.3 read the cells' input_size: a cell without one is an AttributeError)
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not equals"
                             f"that of backward cell({cell_bw.input_size})")

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        paddle = _paddle()
        s_fw, s_bw = (None, None) if initial_states is None else initial_states
        o_fw, st_fw = _run(self.cell_fw, inputs, s_fw, sequence_length, self.time_major, False)
        o_bw, st_bw = _run(self.cell_bw, inputs, s_bw, sequence_length, self.time_major, True)
        return paddle.concat([o_fw, o_bw], axis=-1), (st_fw, st_bw)


class _RNNBase(Layer):
    """Paddle's RNNBase: a LayerList of its layers (``RNN``/``BiRNN`` of cells, named ``0``,
    ``1``, ...), whose cells' parameters it also holds under the flat names Paddle's fused CPU
    kernel takes (``weight_ih_l0``, ``bias_hh_l1_reverse``, ...): the same tensors, so
    ``named_parameters`` lists the flat names and ``state_dict`` both (as Paddle 2.6/3.3)."""
    _cell = None
    _gates = 1

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None, **cell_kwargs):
        super().__init__()
        bidir = {"forward": 1, "bidirect": 2, "bidirectional": 2}
        if direction not in bidir:
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), "
                             f"received direction = {direction}")
        self.input_size, self.hidden_size = input_size, hidden_size
        self.num_layers, self.direction = num_layers, direction
        self.num_directions = bidir[direction]
        self.time_major, self.dropout = time_major, dropout
        self.could_use_cudnn = False
        layers = []
        for i in range(num_layers):
            in_size = input_size if i == 0 else hidden_size * self.num_directions
            cells = [type(self)._cell(in_size, hidden_size, weight_ih_attr=weight_ih_attr,
                                      weight_hh_attr=weight_hh_attr, bias_ih_attr=bias_ih_attr,
                                      bias_hh_attr=bias_hh_attr, **cell_kwargs)
                     for _ in range(self.num_directions)]
            layers.append(RNN(cells[0], time_major=time_major) if self.num_directions == 1
                          else BiRNN(cells[0], cells[1], time_major))
        for idx, layer in enumerate(layers):
            self.add_sublayer(str(idx), layer)
        names = []
        for i in range(num_layers):
            for d in range(self.num_directions):
                suffix = "_reverse" if d == 1 else ""
                names += [f"weight_ih_l{i}{suffix}", f"weight_hh_l{i}{suffix}"]
                if bias_ih_attr is not False:
                    names.append(f"bias_ih_l{i}{suffix}")
                if bias_hh_attr is not False:
                    names.append(f"bias_hh_l{i}{suffix}")
        for name, param in zip(names, list(self.parameters())):
            setattr(self, name, param)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def __getitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):   # (as LayerList: Paddle's own RNNs fail here, TypeError)
            return self.__class__(layers[idx])
        if not -len(layers) <= idx < len(layers):
            raise IndexError(f"index {idx} is out of range")
        return layers[idx]

    def _split_states(self, states):
        """[layers*dirs, batch, hidden] (a pair for LSTM) -> per layer (and direction)."""
        if states is None:
            return [None] * self.num_layers
        lstm = isinstance(states, (list, tuple))
        d = self.num_directions

        def per(t, i):
            parts = [t[i * d + k] for k in range(d)]
            return parts[0] if d == 1 else parts
        out = []
        for i in range(self.num_layers):
            if lstm:
                h, c = per(states[0], i), per(states[1], i)
                out.append((h, c) if d == 1 else ((h[0], c[0]), (h[1], c[1])))
            else:
                out.append(per(states, i))
        return out

    _mode = None   # the fused kernel's mode: "LSTM", "GRU", "RNN_TANH", "RNN_RELU"

    def _fused_weights(self):
        """Per layer and direction (w_ih, w_hh, b_ih, b_hh), or None where a bias is absent:
        then Paddle, too, steps its cells in Python (``could_use_cudnn`` is False)."""
        params = list(self.parameters())
        if len(params) != self.num_layers * 4 * self.num_directions:
            return None
        if getattr(self, "proj_size", 0):
            return None
        return params

    def _fused(self, inputs, initial_states, sequence_length, weights):
        """Paddle's ``_cudnn_impl`` on the CPU: one ``rnn`` op (``engine/ops/paddle_rnn.py``)."""
        import numpy as np

        from ....engine.ops import paddle_rnn
        from ..functional.common import _uniform_mask_draws

        paddle = _paddle()
        mode = self._mode or ("RNN_RELU" if getattr(self, "_activation", "tanh") == "relu"
                              else "RNN_TANH")
        lstm = mode == "LSTM"
        batch_index = 1 if self.time_major else 0
        if initial_states is None:
            shape = [self.num_layers * self.num_directions, inputs.shape[batch_index],
                     self.hidden_size]
            initial_states = tuple(paddle.full(shape, 0, inputs.dtype)
                                   for _ in range(2 if lstm else 1))
        elif not isinstance(initial_states, (list, tuple)):
            initial_states = (initial_states,)
        x = inputs if self.time_major else paddle.transpose(inputs, [1, 0, 2])
        drop = None
        if self.training and self.dropout != 0 and self.num_layers > 1:
            size = x.shape[0] * x.shape[1] * self.num_directions * self.hidden_size
            keep = np.zeros(size, x.data.dtype) if self.dropout == 1 else \
                (_uniform_mask_draws([size]) >= np.float32(self.dropout)).astype(x.data.dtype)
            drop = paddle.to_tensor(keep)
        seq = None if sequence_length is None else np.asarray(
            sequence_length.numpy() if hasattr(sequence_length, "numpy") else sequence_length)
        out, h, c = paddle_rnn.rnn(
            x, initial_states[0], initial_states[1] if lstm else None, weights, mode=mode,
            num_layers=self.num_layers, bidirect=self.num_directions == 2, dropout=self.dropout,
            training=self.training, seq_len=seq, drop_mask=drop)
        if not self.time_major:
            out = paddle.transpose(out, [1, 0, 2])
        return out, ((h, c) if lstm else h)

    def forward(self, inputs, initial_states=None, sequence_length=None):
        paddle = _paddle()
        weights = self._fused_weights()
        if weights is not None and inputs.ndim == 3:
            return self._fused(inputs, initial_states, sequence_length, weights)
        states = self._split_states(initial_states)
        finals = []
        x = inputs
        for i, layer in enumerate(self):
            if i > 0 and self.dropout:
                x = paddle.nn.functional.dropout(x, self.dropout, training=self.training)
            x, st = layer(x, states[i], sequence_length)
            finals.append(st)
        flat = []
        for st in finals:
            flat.extend(st if self.num_directions == 2 else [st])
        if isinstance(flat[0], tuple):
            h = paddle.stack([s[0] for s in flat], 0)
            c = paddle.stack([s[1] for s in flat], 0)
            return x, (h, c)
        return x, paddle.stack(flat, 0)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(_RNNBase):
    _cell = SimpleRNNCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, name,
                         activation=activation)
        self._activation = activation


class LSTM(_RNNBase):
    _cell = LSTMCell
    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, name)


class GRU(_RNNBase):
    _cell = GRUCell
    _mode = "GRU"
