"""``paddle.optimizer``: SGD, Momentum, Adam, AdamW and the learning-rate schedulers (``lr``).

Updates run Paddle's CPU kernel arithmetic in the parameter's dtype (float32: every product and
sum rounded as the kernel rounds), in place on the Parameter, outside the autograd graph.
"""
from . import lr  # noqa: F401
from .adam import Adam  # noqa: F401
from .adamw import AdamW  # noqa: F401
from .momentum import Momentum  # noqa: F401
from .optimizer import L1Decay, L2Decay, Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .more import ASGD, Adadelta, Adagrad, Adamax, Lamb, NAdam, RAdam, RMSProp, Rprop  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "lr", "L1Decay", "L2Decay",
           "Adadelta", "Adagrad", "RMSProp", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD", "Lamb", "LBFGS"]


from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
