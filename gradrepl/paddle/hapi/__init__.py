"""``paddle.hapi``: the high-level API's model summary (``paddle.summary``)."""
from .model_summary import summary

__all__ = ["summary"]
