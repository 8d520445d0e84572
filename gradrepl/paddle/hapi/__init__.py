"""``paddle.hapi``: the high-level API: ``Model``, ``callbacks`` and the model summary
(``paddle.summary``)."""
from . import callbacks
from . import progressbar  # noqa: F401  (paddle.hapi.progressbar.ProgressBar)
from .model import Model
from .model_summary import summary

__all__ = ["Model", "callbacks", "summary"]
