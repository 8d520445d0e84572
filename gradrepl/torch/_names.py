"""The names torch's classes print under: ``type(torch.ones(1))`` is ``<class 'torch.Tensor'>``,
``type(nn.Linear(1, 1))`` ``<class 'torch.nn.modules.linear.Linear'>``. The dialect's classes
live in gradrepl's own modules; ``name_classes()`` gives each the ``__module__`` (and, where it
differs, the ``__qualname__``) torch 2.13 reports, once, at import."""
from __future__ import annotations

# module path in torch -> names of the classes torch defines there
_TABLE = {
    "torch": ("Tensor", "Size", "dtype", "device", "finfo", "iinfo"),
    "torch._C": ("Generator",),
    "torch.nn.parameter": ("Parameter", "UninitializedParameter", "Buffer"),
    "torch.nn.modules.module": ("Module",),
    "torch.nn.modules.linear": ("Linear", "Identity", "Bilinear"),
    "torch.nn.modules.activation": (
        "ReLU", "ReLU6", "Sigmoid", "Tanh", "LeakyReLU", "ELU", "SELU", "GELU", "SiLU", "Mish",
        "Softplus", "Hardtanh", "LogSigmoid", "Softsign", "Hardswish", "Hardsigmoid",
        "Softmax", "LogSoftmax", "Softmin"),
    "torch.nn.modules.container": ("Sequential", "ModuleList", "ModuleDict", "ParameterList",
                                   "ParameterDict"),
    "torch.nn.modules.conv": ("Conv1d", "Conv2d"),
    "torch.nn.modules.pooling": ("MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
                                 "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"),
    "torch.nn.modules.batchnorm": ("BatchNorm1d", "BatchNorm2d"),
    "torch.nn.modules.normalization": ("LayerNorm",),
    "torch.nn.modules.dropout": ("Dropout", "Dropout2d"),
    "torch.nn.modules.flatten": ("Flatten", "Unflatten"),
    "torch.nn.modules.sparse": ("Embedding",),
    "torch.nn.modules.loss": ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
                              "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
                              "KLDivLoss"),
    "torch.optim.optimizer": ("Optimizer",),
    "torch.optim.sgd": ("SGD",),
    "torch.optim.adam": ("Adam",),
    "torch.optim.adamw": ("AdamW",),
    "torch.optim.rmsprop": ("RMSprop",),
    "torch.optim.adagrad": ("Adagrad",),
    "torch.optim.lr_scheduler": ("LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR",
                                 "LambdaLR", "CosineAnnealingLR"),
    "torch.utils.data.dataset": ("Dataset", "TensorDataset"),
    "torch.utils.data.dataloader": ("DataLoader",),
    "torch.autograd.function": ("Function", "FunctionCtx", "InplaceFunction",
                                "NestedIOFunction"),
    "torch.utils.hooks": ("RemovableHandle",),
    "torch.autograd.profiler": ("profile", "record_function"),
    "torch.autograd.profiler_util": ("EventList", "FunctionEvent", "FunctionEventAvg"),
    "torch.autograd.forward_ad": ("dual_level",),
    "torch.utils.benchmark.utils.common": ("Measurement",),
    "torch.utils.benchmark.utils.timer": ("Timer",),
    "torch.autograd.variable": ("Variable", "VariableMeta"),
    "torch._functorch.make_functional": ("FunctionalModule", "FunctionalModuleWithBuffers"),
}


def _namespaces():
    import sys

    from . import _base, _dtypes, _functorch, _random, _tensor, optim
    from . import autograd
    from .autograd import _engine, forward_ad, function, profiler
    from .nn import _layers, modules, parameter
    from .optim import lr_scheduler
    from .utils import benchmark, data

    found = [_tensor, _base, _dtypes, _random, parameter, modules, _layers, optim,
             lr_scheduler, data, function, _engine, profiler, forward_ad,
             benchmark, _functorch, autograd]
    torch = sys.modules[__package__]
    return found + [torch]


def name_classes():
    """Give every class in the table torch's module path (first definition found wins)."""
    spaces = _namespaces()
    for module, names in _TABLE.items():
        for name in names:
            for ns in spaces:
                cls = ns.__dict__.get(name)
                if isinstance(cls, type) and cls.__module__.startswith("gradrepl.torch"):
                    cls.__module__ = module
                    cls.__qualname__ = name
                    break
