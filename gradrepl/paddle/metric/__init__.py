"""``paddle.metric``: the Metric base, Accuracy, Precision, Recall, Auc and ``accuracy``."""
from .metrics import Accuracy, Auc, Metric, Precision, Recall, accuracy

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
