"""``paddle.hapi``: the high-level API: ``Model``, ``callbacks`` and the model summary
(``paddle.summary``)."""
from . import callbacks
from .model import Model
from .model_summary import summary

__all__ = ["Model", "callbacks", "summary"]
