"""``torch.nn``: modules, ``Parameter``, ``functional``, ``init``, ``utils``."""
from . import functional, init, utils  # noqa: F401
from .modules import (ELU, GELU, SELU, BCELoss, BCEWithLogitsLoss, Bilinear,  # noqa: F401
                      CrossEntropyLoss, Dropout, Embedding, Flatten, Hardsigmoid, Hardswish,
                      Hardtanh, HuberLoss, Identity, KLDivLoss, L1Loss, LeakyReLU, Linear,
                      LogSigmoid, LogSoftmax, Mish, Module, ModuleDict, ModuleList, MSELoss,
                      NLLLoss, ParameterList, ReLU, ReLU6, Sequential, Sigmoid, SiLU,
                      SmoothL1Loss, Softmax, Softmin, Softplus, Softsign, Tanh, Unflatten)
from .parameter import Buffer, Parameter, UninitializedParameter  # noqa: F401
