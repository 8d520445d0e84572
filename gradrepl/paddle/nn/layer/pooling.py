"""Pooling layers, printed as Paddle prints them (``MaxPool2D(kernel_size=2, stride=2,
padding=0)``, ``AdaptiveAvgPool2D(output_size=(7, 7))``)."""
from __future__ import annotations

from .. import functional as F
from .conv import paddle_snake
from .layers import Layer

__all__ = ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D",
           "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D",
           "LPPool1D", "LPPool2D"]


class _Window:
    def extra_repr(self):
        return "kernel_size={ksize}, stride={stride}, padding={padding}".format(**self.__dict__)


class _MaxPoolND(_Window, Layer):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.return_mask = return_mask
        self.ceil_mode = ceil_mode
        self.data_format = data_format
        self.name = name

    def forward(self, x):
        return getattr(F, self._fn)(x, kernel_size=self.ksize, stride=self.stride,
                                    padding=self.padding, return_mask=self.return_mask,
                                    ceil_mode=self.ceil_mode, data_format=self.data_format,
                                    name=self.name)


class _AvgPoolND(_Window, Layer):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.exclusive = exclusive
        self.divisor = divisor_override
        self.data_format = data_format
        self.name = name

    def forward(self, x):
        return getattr(F, self._fn)(x, kernel_size=self.ksize, stride=self.stride,
                                    padding=self.padding, ceil_mode=self.ceil_mode,
                                    exclusive=self.exclusive, divisor_override=self.divisor,
                                    data_format=self.data_format, name=self.name)


class MaxPool2D(_MaxPoolND):
    _fn = "max_pool2d"


class AvgPool2D(_AvgPoolND):
    _fn = "avg_pool2d"


class _Window1D:
    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}"
                .format(**self.__dict__))


class MaxPool1D(_Window1D, Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.return_mask = return_mask
        self.name = name

    def forward(self, input):  # noqa: A002
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.return_mask,
                            self.ceil_mode, self.name)


class AvgPool1D(_Window1D, Layer):
    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.exclusive = exclusive
        self.name = name

    def forward(self, x):
        return F.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.exclusive,
                            self.ceil_mode, self.name)


class _AdaptiveAvgPoolND(Layer):
    _fn = None

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self._output_size = output_size
        self._data_format = data_format
        self._name = name

    @property
    def output_size(self):
        return self._output_size

    def forward(self, x):
        return getattr(F, self._fn)(x, output_size=self._output_size,
                                    data_format=self._data_format, name=self._name)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class _AdaptiveMaxPoolND(Layer):
    _fn = None

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self._output_size = output_size
        self._return_mask = return_mask
        self._name = name

    def forward(self, x):
        return getattr(F, self._fn)(x, output_size=self._output_size,
                                    return_mask=self._return_mask, name=self._name)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class AdaptiveAvgPool2D(_AdaptiveAvgPoolND):
    _fn = "adaptive_avg_pool2d"


class AdaptiveMaxPool2D(_AdaptiveMaxPoolND):
    _fn = "adaptive_max_pool2d"


class AdaptiveAvgPool1D(Layer):
    def __init__(self, output_size, name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self.output_size = output_size
        self.name = name

    def forward(self, input):  # noqa: A002
        return F.adaptive_avg_pool1d(input, self.output_size, self.name)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1D(Layer):
    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self.output_size = output_size
        self.return_mask = return_mask
        self.name = name

    def forward(self, input):  # noqa: A002
        return F.adaptive_max_pool1d(input, self.output_size, self.return_mask, self.name)

    def extra_repr(self):
        return f"output_size={self.output_size}, return_mask={self.return_mask}"


class MaxPool3D(_MaxPoolND):
    _fn = "max_pool3d"

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format, name)


class AvgPool3D(_AvgPoolND):
    _fn = "avg_pool3d"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format, name)


class AdaptiveAvgPool3D(_AdaptiveAvgPoolND):
    _fn = "adaptive_avg_pool3d"

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size, data_format, name)


class AdaptiveMaxPool3D(_AdaptiveMaxPoolND):
    _fn = "adaptive_max_pool3d"


class _MaxUnPool(Layer):
    _fn = None
    _format = None

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None, output_size=None,
                 name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.data_format = data_format or self._format
        self.output_size = output_size
        self.name = name

    def forward(self, x, indices):
        return getattr(F, self._fn)(x, indices, kernel_size=self.ksize, stride=self.stride,
                                    padding=self.padding, data_format=self.data_format,
                                    output_size=self.output_size, name=self.name)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPool):
    _fn, _format = "max_unpool1d", "NCL"


class MaxUnPool2D(_MaxUnPool):
    _fn, _format = "max_unpool2d", "NCHW"


class MaxUnPool3D(_MaxUnPool):
    _fn, _format = "max_unpool3d", "NCDHW"


class _LPPool(Layer):
    _fn = None
    _format = None

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self.norm_type = float(norm_type)
        self.kernel_size = kernel_size
        # Paddle's LPPool2D fills the stride in (its LPPool1D keeps None)
        self.stride = kernel_size if stride is None and self._fn == "lp_pool2d" else stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.data_format = data_format or self._format
        self.name = name

    def forward(self, x):
        return getattr(F, self._fn)(x, self.norm_type, self.kernel_size, self.stride,
                                    self.padding, self.ceil_mode, self.data_format, self.name)

    def extra_repr(self):
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "padding={padding}".format(**self.__dict__))


class LPPool1D(_LPPool):
    _fn, _format = "lp_pool1d", "NCL"


class LPPool2D(_LPPool):
    _fn, _format = "lp_pool2d", "NCHW"
