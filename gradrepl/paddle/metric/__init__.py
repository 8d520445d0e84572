"""``paddle.metric``: the Metric base, Accuracy and the ``accuracy`` function.

Precision, Recall and Auc are not emulated yet: using them raises NotImplementedError."""
from .metrics import Accuracy, Auc, Metric, Precision, Recall, accuracy

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]
