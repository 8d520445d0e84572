"""Helpers shared by the test modules (pytest puts this folder on sys.path)."""
from __future__ import annotations

from gradrepl.runner import run_captured


def run_source(src: str, profile: str, tmp_path) -> str:
    """stdout of ``src`` run as ``gradrepl run --paddle <profile>`` would, in this process, from
    a fresh state; an exception the script raises is raised here."""
    path = tmp_path / "case.py"
    path.write_text(src)
    out, error = run_captured(str(path), profile)
    if error is not None:
        raise error
    return out


def vgg_like_model(paddle):
    """A small vgg-like network (features: two conv/relu/pool blocks; classifier: two Linears)
    for 1x3x8x8 images and 5 classes, seeded: the pictures' --layers tests draw it."""
    nn = paddle.nn
    paddle.seed(1)
    features = nn.Sequential(nn.Conv2D(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                             nn.Conv2D(4, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2))
    classifier = nn.Sequential(nn.Linear(8 * 2 * 2, 16), nn.ReLU(), nn.Linear(16, 5))

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.features, self.classifier = features, classifier

        def forward(self, x):
            return self.classifier(paddle.flatten(self.features(x), 1))

    return Net()
