"""``torch.nn``: modules, ``Parameter``, ``functional``, ``init``, ``utils``."""
from . import functional, init, utils  # noqa: F401
from .modules import (ELU, GELU, SELU, BCELoss, BCEWithLogitsLoss, Bilinear,  # noqa: F401
                      CrossEntropyLoss, Dropout, Embedding, Flatten, Hardsigmoid, Hardswish,
                      Hardtanh, HuberLoss, Identity, KLDivLoss, L1Loss, LeakyReLU, Linear,
                      LogSigmoid, LogSoftmax, Mish, Module, ModuleDict, ModuleList, MSELoss,
                      NLLLoss, ParameterList, ReLU, ReLU6, Sequential, Sigmoid, SiLU,
                      SmoothL1Loss, Softmax, Softmin, Softplus, Softsign, Tanh, Unflatten)
from ._layers import (AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool2d,  # noqa: F401
                      BatchNorm1d, BatchNorm2d, Conv1d, Conv2d, Dropout2d, MaxPool1d,
                      MaxPool2d, AvgPool1d, LayerNorm)
from .parameter import Buffer, Parameter, UninitializedParameter  # noqa: F401
from .modules import Container, LazyLinear, ParameterDict  # noqa: F401,E402
from ._spatial_more import *  # noqa: F401,F403,E402
from ._recurrent import *  # noqa: F401,F403,E402
from ._layers_more import *  # noqa: F401,F403,E402
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
