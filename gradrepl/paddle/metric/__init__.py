"""``paddle.metric``: the Metric base, Accuracy, Precision, Recall, Auc and ``accuracy``."""
from .metrics import Accuracy, Auc, Metric, Precision, Recall, accuracy

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]
