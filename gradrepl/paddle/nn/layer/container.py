"""Containers: Sequential, LayerList, LayerDict, ParameterList."""
from __future__ import annotations

from collections import OrderedDict

from ...core import Parameter
from .layers import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList", "ParameterDict"]


class Sequential(Layer):
    """Layers called one after the other; built from layers or (name, layer) pairs."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) > 0 and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for idx, layer in enumerate(layers):
                self.add_sublayer(str(idx), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return self.__class__(*(list(self._sub_layers.values())[name]))
        if isinstance(name, str):
            return self._sub_layers[name]
        n = len(self._sub_layers)
        if name >= n or name < -n:
            raise IndexError(f"index {name} is out of range")
        if name < 0:
            name += n
        return list(self._sub_layers.values())[name]

    def __setitem__(self, name, layer):
        setattr(self, str(name), layer)

    def __delitem__(self, name):
        name = str(name)
        del self._sub_layers[name]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, input):  # noqa: A002
        for layer in self._sub_layers.values():
            input = layer(input)
        return input

    def append(self, module):
        """Add a layer at the end (named by its index)."""
        self.add_sublayer(str(len(self._sub_layers)), module)
        return self

    def insert(self, index, module):
        layers = list(self._sub_layers.values())
        n = len(layers)
        if not -n <= index <= n:
            raise IndexError(f"index {index} is out of range")
        if index < 0:
            index += n
        layers.insert(index, module)
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self.add_sublayer(str(i), layer)
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self


class LayerList(Layer):
    """A list of sublayers, registered under their indices."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            for idx, layer in enumerate(sublayers):
                self.add_sublayer(str(idx), layer)

    def _abs(self, idx):
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return idx + n if idx < 0 else idx

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._sub_layers.values())[idx])
        return self._sub_layers[str(self._abs(idx))]

    def __setitem__(self, idx, sublayer):
        setattr(self, str(self._abs(idx)), sublayer)

    def __delitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[self._abs(idx)]
        self._sub_layers = OrderedDict((str(i), layer) for i, layer in enumerate(layers))

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        layers = list(self._sub_layers.values())
        layers.insert(index, sublayer)
        self._sub_layers = OrderedDict((str(i), layer) for i, layer in enumerate(layers))

    def extend(self, sublayers):
        offset = len(self)
        for i, layer in enumerate(sublayers):
            self.add_sublayer(str(offset + i), layer)
        return self


class LayerDict(Layer):
    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        items = sublayers.items() if hasattr(sublayers, "items") else sublayers
        for key, layer in items:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            for idx, param in enumerate(parameters):
                self.add_parameter(str(idx), param)

    def __getitem__(self, idx):
        return self._parameters[str(idx)]

    def __setitem__(self, idx, param):
        if not isinstance(param, Parameter):
            raise TypeError("ParameterList only holds Parameters")
        setattr(self, str(idx), param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        self.add_parameter(str(len(self._parameters)), parameter)
        return self


class ParameterDict(Layer):
    """Parameters held by name (a dict, or (name, parameter) pairs)."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        self.add_parameter(key, param)

    def __delitem__(self, key):
        del self._parameters[key]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def add_parameter(self, name, parameter):
        if name in self._parameters:
            self._parameters[name] = parameter
            return parameter
        return super().add_parameter(name, parameter)

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for k, v in items:
            self.add_parameter(k, v)


# the recurrent and transformer layers live in their own modules (Paddle's paths:
# paddle.nn.layer.rnn, paddle.nn.layer.transformer) and reach ``paddle.nn`` through here
from . import rnn as _rnn, transformer as _transformer  # noqa: E402
from .rnn import *  # noqa: F401,F403,E402
from .transformer import *  # noqa: F401,F403,E402

__all__ += _rnn.__all__ + _transformer.__all__
